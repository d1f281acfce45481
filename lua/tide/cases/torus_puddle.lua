--- Irving's torus puddle (thesis Fig. 2.2): a torus (R = 0.2 m, r = 0.08 m,
-- BCC tetrahedra of spacing h) without strength (E = 1 Pa) collapses on a
-- frictional ground (mu = 0.5) into a flat puddle -- every element flat or
-- inverted -- then, with its strength switched on (E = 2e4 Pa), stands back
-- up.  Backward Euler by Newton (incremental potential) with the ground as a
-- constraint of the minimization, rotated linear model (Irving 2.5-2.6),
-- nu = 0.3, 1000 kg/m^3, damping_beta = 0.02 E + 1, dt = 1/60 s.
-- Shared by tests/solid/test_solid_puddle.lua and figures/irving_puddle.lua.
--
--   local r = require("tide.cases.torus_puddle").run { h = 0.08, collapse = 40, recover = 60 }
--   -- r.t, r.volume (V/V0), r.inverted (count), r.top, r.bottom [m] after each step;
--   -- r.mesh, r.ne; r.collapsed = the state at the end of the collapse {volume, inverted, top}
local tide = require "tide"

local M = { dt = 1 / 60, E = 2e4, rest_height = 0.16 }

--- Volume ratio, flat-or-inverted count, lowest and highest node height.
function M.measure(m)
  local v, inv = m:volumes(), 0
  for e = 1, m.ne do if v[e] <= 0 then inv = inv + 1 end end
  local ylo, yhi = math.huge, -math.huge
  for i = 1, m.nv do
    local y = m.x:get(i, 2)
    ylo, yhi = math.min(ylo, y), math.max(yhi, y)
  end
  return m:volume() / m.rest_volume:sum(), inv, ylo, yhi
end

function M.run(o)
  local S = tide.solid
  local torus = S.shape.torus { center = { 0, 0.15, 0 }, axis = { 0, 1, 0 }, R = 0.2, r = 0.08 }
  local m = S.bcc { shape = torus, h = o.h or 0.08 }
  local function strength(E)
    m:material { model = "rotated_linear", E = E, nu = 0.3, density = 1000, damping_beta = 0.02 * E + 1 }
  end
  local ground = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, 1, 0 } }, mu = 0.5 }
  local r = { t = {}, volume = {}, inverted = {}, top = {}, bottom = {}, mesh = m, ne = m.ne, lowest = 0 }
  local total = o.collapse + o.recover
  local function run(steps)
    for _ = 1, steps do
      m:step_newton { dt = M.dt, colliders = { ground }, maxit = 30, tol = 1e-4 }
      local v, inv, ylo, yhi = M.measure(m)
      local k = #r.t + 1
      r.t[k], r.volume[k], r.inverted[k], r.bottom[k], r.top[k] = k * M.dt, v, inv, ylo, yhi
      r.lowest = math.min(r.lowest, ylo)
      if o.frame then o.frame(k, total, m) end
    end
  end
  strength(1) -- no strength: it collapses
  run(o.collapse)
  local v, inv, _, top = M.measure(m)
  r.collapsed = { volume = v, inverted = inv, top = top }
  strength(o.E or M.E) -- strength on: it recovers
  run(o.recover)
  return r
end

return M
