-- The small 2D pool with a submerged box of test_zarifi_project, test_zarifi_resolve and
-- test_zarifi_warm: pool(n, level, lo, hi) -> grid (unit square, n^2), the box's face fractions,
-- labels (SOLID in the box, LIQUID below level, AIR above) and the surface's level set y - level;
-- block(lo, hi, dt, grav [, y0]) -> the box as a corotational solid, deformed (sheared: its elastic
-- force K x - b is not 0) and moving, with gravity's dt step in v (its bottom at y0 if given);
-- moving_u(g, dt, grav) -> a moving liquid velocity with gravity's dt step.
local tide = require "tide"
local LIQ, AIR, SOLID = tide.liquid.LIQUID, tide.liquid.AIR, tide.liquid.SOLID
local U = {}
function U.pool(n, level, lo, hi)
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local fr, sol = g:face_fractions(tide.shape.box { min = lo, max = hi })
  local lab, phi = g:cells("u8"), g:cells()
  for i = 1, n do
    for j = 1, n do
      local y = (j - 0.5) / n
      phi:set(i, j, y - level)
      lab:set(i, j, sol:get(i, j) == SOLID and SOLID or (y < level and LIQ or AIR))
    end
  end
  return g, fr, lab, phi
end

function U.block(lo, hi, dt, grav, y0)
  local m = tide.solid.box { min = { lo[1], y0 or lo[2] }, max = { hi[1], (y0 or lo[2]) + hi[2] - lo[2] }, cells = { 6, 4 } }
  m:material { model = "corotational", E = 1e6, nu = 0.3, density = 700, rayleigh_mass = 2 }
  for q = 1, m.nv do
    local x, y = m.x:get(q, 1), m.x:get(q, 2)
    m.x:set(q, 1, x + 0.02 * (y - lo[2]))
    m.v:set(q, 1, 0.3 * math.sin(7 * y))
    m.v:set(q, 2, 0.2 * math.cos(5 * x) - grav * dt)
  end
  return m
end

function U.moving_u(g, dt, grav)
  local n = g.size[1]
  local u = g:mac()
  for i = 1, n + 1 do for j = 1, n do u.u:set(i, j, 0.1 * math.sin(0.4 * i + 0.7 * j)) end end
  for i = 1, n do for j = 1, n + 1 do u.v:set(i, j, 0.1 * math.cos(0.3 * i - 0.5 * j)) end end
  u:add_gravity(dt, { 0, -grav })
  return u
end
return U
