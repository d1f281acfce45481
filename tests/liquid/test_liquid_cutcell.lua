-- Liquid at rest in a circular (2D) / spherical (3D) container of radius
-- 0.45 m, filled to 0.4 m (0.35 m deep at the centre), FLIP particles seeded
-- in the true container, 200 CFL steps.
--   cut cells (face fractions from the container's SDF, particles kept out
--   of the curved wall by its level set): max|u|/sqrt(gH) <= 1e-5 and no
--   particle moves 0.1 cell;
--   voxelized (cells whose centre is outside the container are solid), the
--   same test: the liquid is shoved out of the solid voxels (particles move
--   more than 0.1 cell) and in 3D it does not come to rest within the bound.
local T = require "tide.testing"
local container = require "tide.cases.container" -- the set-up, shared with figures/cutcell_container.lua

local function run(dim, cut, exact)
  local r = container.run { dim = dim, n = dim == 2 and 32 or 16, cut = cut, exact = exact, steps = 200 }
  print(string.format("%dD %-16s max|u|/sqrt(gH) = %.2e, largest displacement %.2e cells, %.1f s simulated", dim,
    cut and (exact and "cut cells, exact" or "cut cells") or "voxelized", r.vmax, r.disp, r.S.t))
  return r.vmax, r.disp
end

for _, dim in ipairs { 2, 3 } do
  local v, d = run(dim, true)
  T.check(v <= 1e-5, dim .. "D cut cells: at rest, max|u|/sqrt(gH) = " .. v)
  T.check(d < 0.1, dim .. "D cut cells: surface and particles stay put: " .. d .. " cells")
  local ve, de = run(dim, true, true)
  T.check(ve <= 1e-5 and de < 0.1, dim .. "D cut cells with clipped areas: at rest: " .. ve .. ", " .. de .. " cells")
  local vv, dv = run(dim, false)
  T.check(dv > 0.1, dim .. "D voxelized: particles shoved out of the solid voxels: " .. dv .. " cells")
  if dim == 3 then T.check(vv > 1e-5, "3D voxelized: fails the rest bound: " .. vv) end
end
os.exit(T.report())
