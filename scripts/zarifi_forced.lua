-- Run a zarifi scene with some zarifi.new options forced (to compare a scene under old and new
-- recipe defaults without editing it), optionally printing every solid's centroid and velocity.
--   build/tide scripts/zarifi_forced.lua mass_consistent=false,separate_cut=false scenes/zarifi_balls.lua --frames 96
--   PROBE=0.5 build/tide scripts/zarifi_forced.lua mass_reuse=true scenes/zarifi_light_toy.lua   (centroids every 0.5 s)
--   MOMENTUM=3 build/tide scripts/zarifi_forced.lua mass_share=true scenes/zarifi_balls.lua --frames 96  (solid 3's momentum)
--   SOLVES=1 build/tide scripts/zarifi_forced.lua mass_reuse=true scenes/zarifi_balls.lua   (iterations of every solve)
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
-- MOMENTUM=k: solid k's momentum change per 0.25 s window, split into the orphan's share (its mass
-- times flip_increment's uniform c, when mass_share gives it one) and the rest (pressure, damping,
-- contact, gravity), with its centroid (docs/couple.md: the heavy ball's slide)
local mk = tonumber(os.getenv("MOMENTUM") or "")
if mk then
  local step, next_t, acc = zarifi.step, 0.25, {}
  local function momentum(m)
    local P = {}
    for a = 1, m.dim do P[a] = m.mass:dot(m.v:select(2, a)) end
    return P
  end
  zarifi.step = function(S, dt)
    local m = S.solids[mk]
    local P0 = momentum(m)
    local r = step(S, dt)
    local P1, M, c = momentum(m), m.mass:sum(), r.increment and r.increment.uniform
    local shared = S.mass_share and m.pinned:sum() == 0 and c
    for a = 1, m.dim do
      local sh = shared and M * c[a] or 0
      acc[a] = acc[a] or { dP = 0, share = 0, abs = 0 }
      acc[a].dP, acc[a].share, acc[a].abs = acc[a].dP + P1[a] - P0[a], acc[a].share + sh, acc[a].abs + math.abs(sh)
    end
    if S.t >= next_t - 1e-9 then
      local cen = zarifi.centroid(m)
      local t = {}
      for a = 1, m.dim do
        local q = acc[a]
        t[#t + 1] = string.format("axis %d: dP %+.4f share %+.4f (|share| %.4f) rest %+.4f", a, q.dP, q.share, q.abs, q.dP - q.share)
        acc[a] = nil
      end
      local xs = {}
      for a = 1, m.dim do xs[a] = string.format("%.4f", cen[a]) end
      print(string.format("momentum t=%.2f solid %d at (%s) [N s]  %s", S.t, mk, table.concat(xs, ", "), table.concat(t, "  ")))
      next_t = next_t + 0.25
    end
    return r
  end
end
-- SOLVES=1: at the end, the solves of every step from zarifi.step's stats: the coupled projection's
-- iterations (mean, max) and direct-solver fallbacks, the mass reference's solve (resolved with
-- the step's system or redone in full, its iterations, S.resolve_fallbacks), CPU seconds of the
-- phases "project" and "reference" (docs/couple.md: resolve iterations)
local solves_report
if os.getenv("SOLVES") == "1" then
  local step, q, last = zarifi.step, { steps = 0, it = 0, itmax = 0, fb = 0, ref = 0, rit = 0, ritmax = 0, res = 0,
    rfull = 0, unconv = 0, pcpu = 0, rcpu = 0, cpu = 0, resid = 0, rresid = 0 }, nil
  zarifi.step = function(S, dt)
    local r = step(S, dt)
    last = S
    q.steps, q.it, q.itmax = q.steps + 1, q.it + r.iterations, math.max(q.itmax, r.iterations)
    if r.fallback then q.fb = q.fb + 1 end
    if not r.converged then q.unconv = q.unconv + 1 end
    q.resid = math.max(q.resid, r.residual or 0)
    local f = r.reference
    if f then
      q.ref, q.rit, q.ritmax = q.ref + 1, q.rit + f.iterations, math.max(q.ritmax, f.iterations)
      if f.resolved then q.res = q.res + 1 else q.rfull = q.rfull + 1 end
      q.rresid = math.max(q.rresid, f.residual or 0)
    end
    q.pcpu, q.rcpu, q.cpu = q.pcpu + r.phases.project.cpu, q.rcpu + r.phases.reference.cpu, q.cpu + r.cpu
    return r
  end
  local exit = os.exit
  local function report()
    local n = math.max(q.steps, 1)
    print(string.format("solves: %d steps; projection %.1f iterations (max %d), %d unconverged, %d fallbacks, largest "
      .. "true residual %.2g; reference %d (%d resolved, %d full), %.1f iterations (max %d), %d resolves redone, largest "
      .. "residual %.2g; CPU s: steps %.3g, project %.3g, reference %.3g", q.steps, q.it / n, q.itmax, q.unconv, q.fb, q.resid,
      q.ref, q.res, q.rfull, q.ref > 0 and q.rit / q.ref or 0, q.ritmax, last and last.resolve_fallbacks or 0, q.rresid,
      q.cpu, q.pcpu, q.rcpu))
  end
  os.exit = function(...) report(); return exit(...) end
  solves_report = report
end
local a = { [0] = scene }
for i = 3, #arg do a[#a + 1] = arg[i] end
_G.arg = a
print("forced: " .. spec)
dofile(scene)
if solves_report then solves_report() end
