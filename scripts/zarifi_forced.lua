-- Run a zarifi scene with some zarifi.new options forced (to compare a scene under old and new
-- recipe defaults without editing it), optionally printing every solid's centroid and velocity.
--   build/tide scripts/zarifi_forced.lua mass_consistent=false,separate_cut=false scenes/zarifi_balls.lua --frames 96
--   PROBE=0.5 build/tide scripts/zarifi_forced.lua mass_reuse=true scenes/zarifi_light_toy.lua   (centroids every 0.5 s)
-- The first argument is a comma-separated list key=value (true, false, numbers or strings); a
-- forced option overrides what the scene passes (e.g. the hollow sphere's own mass_consistent).
local zarifi = require "tide.zarifi"
local spec, scene = arg[1], arg[2]
if not spec or not scene then error("usage: scripts/zarifi_forced.lua key=value,... scene.lua [scene args]", 0) end
local force = {}
for k, v in spec:gmatch("([%w_]+)=([%w_%.%-]+)") do
  if v == "true" then v = true elseif v == "false" then v = false elseif tonumber(v) then v = tonumber(v) end
  force[k] = v
end
local new = zarifi.new
zarifi.new = function(o)
  for k, v in pairs(force) do o[k] = v end
  return new(o)
end
local probe = tonumber(os.getenv("PROBE") or "")
if probe then
  local step, next_t = zarifi.step, 0
  zarifi.step = function(S, dt)
    local r = step(S, dt)
    if S.t >= next_t - 1e-9 then
      local t = {}
      for k, m in ipairs(S.solids) do
        local c, v = zarifi.centroid(m)
        t[#t + 1] = string.format("%d: (%.3f, %.3f) v (%.3f, %.3f)", k, c[1], c[2], v[1], v[2])
      end
      print(string.format("probe t=%.2f %s", S.t, table.concat(t, "  ")))
      next_t = next_t + probe
    end
    return r
  end
end
local a = { [0] = scene }
for i = 3, #arg do a[#a + 1] = arg[i] end
_G.arg = a
print("forced: " .. spec)
dofile(scene)
