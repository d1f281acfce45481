-- The small 2D pool with a submerged box of test_zarifi_project and test_zarifi_resolve:
-- pool(n, level, lo, hi) -> grid (unit square, n^2), the box's face fractions, labels (SOLID in
-- the box, LIQUID below level, AIR above) and the surface's level set y - level.
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
return U
