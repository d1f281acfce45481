-- Non-finite particle state is an error at the step it appears in, naming the
-- operator and the particle (1-based), never a particle moved to the wall or
-- wrapped to the origin.
local tide = require "tide"
local T = require "tide.testing"
local flip = require "tide.flip"

local function setup(dim)
  local n = dim == 2 and { 8, 8 } or { 6, 6, 6 }
  local g = tide.grid.new { size = n, dx = 1 / n[1] }
  local hi = dim == 2 and { 0.5, 0.5 } or { 0.5, 0.5, 0.5 }
  local ps = tide.liquid.seed { grid = g, box = { min = dim == 2 and { 0, 0 } or { 0, 0, 0 }, max = hi } }
  return g, ps, g:mac()
end

for _, dim in ipairs { 2, 3 } do
  local g, ps, u = setup(dim)
  local tag = dim .. "D: "
  -- a NaN position: advect, g2p with advection and p2g all refuse it
  ps.x:set(5, 2, 0 / 0)
  T.raises(function() ps:advect(u, 0.01) end, "Particles:advect: particle 5 has a non-finite position", tag .. "advect names particle 5")
  T.check(ps.x:get(5, 2) ~= ps.x:get(5, 2), tag .. "the NaN particle was not moved to the wall")
  T.raises(function() tide.liquid.p2g(ps, u) end, "tide.liquid.p2g: particle 5 has a non-finite position", tag .. "p2g names particle 5")
  T.raises(function() tide.liquid.g2p(u, ps, { scheme = "pic", advect = 0.01 }) end, "particle 5", tag .. "g2p + advect names particle 5")
  ps.x:set(5, 2, 1 / 0)
  T.raises(function() ps:advect(u, 0.01) end, "particle 5 has a non-finite position (", tag .. "an infinite position too")
  ps.x:set(5, 2, 0.25)
  -- a non-finite velocity in the field: the first particle that samples it
  local x = ps.x:clone()
  if dim == 2 then u.u:set(3, 3, 1 / 0) else u.u:set(3, 3, 3, 1 / 0) end
  local ok, err = pcall(function() ps:advect(u, 0.01, { order = 2 }) end)
  T.check(not ok and err:find("would move to a non-finite position", 1, true) and err:find("Particles:advect: particle %d+ at"),
    tag .. "infinite velocity caught at the RK2 midpoint: " .. tostring(err))
  local moved = 0
  for p = 1, #ps do for d = 1, dim do if ps.x:get(p, d) ~= x:get(p, d) and ps.x:get(p, d) ~= ps.x:get(p, d) then moved = moved + 1 end end end
  T.check(moved == 0, tag .. "no particle holds a NaN after the refused step")
  for _, order in ipairs { 1, 3 } do
    T.raises(function() ps:advect(u, 0.01, { order = order }) end, "non-finite position", tag .. "order " .. order)
  end
end

-- a FLIP step with a NaN particle stops in that step with the particle named
do
  local g = tide.grid.new { size = { 16, 16 }, dx = 1 / 16 }
  local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 0.5, 0.5 } } }
  local S = flip.new { grid = g, particles = ps, scheme = "flip" }
  flip.step(S, 0.005)
  ps.x:set(17, 1, 0 / 0)
  T.raises(function() flip.step(S, 0.005) end, "particle 17 has a non-finite position", "flip.step: NaN position is an error")
  ps.x:set(17, 1, 0.1)
  ps.v:set(3, 2, 0 / 0)
  local ok, err = pcall(function() for _ = 1, 3 do flip.step(S, 0.005) end end)
  T.check(not ok and err:find("non%-finite"), "flip.step: NaN velocity is an error: " .. tostring(err))
end

-- periodic wrap does not turn NaN into the origin
do
  local g = tide.grid.new { size = { 8, 8 }, dx = 1 / 8 }
  local P = tide.liquid.periodic { grid = g }
  local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 1, 0.5 } } }
  local u = g:mac()
  ps.x:set(2, 1, 0 / 0)
  T.raises(function() P:advect_particles(ps, u, 0.01) end, "particle 2", "periodic advection names particle 2")
end
os.exit(T.report())
