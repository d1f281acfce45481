-- Liquid at rest in a circular (2D) / spherical (3D) container of radius
-- 0.45 m, filled to 0.4 m (0.35 m deep at the centre), FLIP particles seeded
-- in the true container, 200 CFL steps.
--   cut cells (face fractions from the container's SDF, particles kept out
--   of the curved wall by its level set): max|u|/sqrt(gH) <= 1e-5 and no
--   particle moves 0.1 cell;
--   voxelized (cells whose centre is outside the container are solid), the
--   same test: the liquid is shoved out of the solid voxels (particles move
--   more than 0.1 cell) and in 3D it does not come to rest within the bound.
local tide = require "tide"
local flip = require "tide.flip"
local T = require "tide.testing"

local function run(dim, cut, exact)
  local n = dim == 2 and { 32, 32 } or { 16, 16, 16 }
  local g = tide.grid.new { size = n, dx = 1 / n[1] }
  local c = dim == 2 and { 0.5, 0.5 } or { 0.5, 0.5, 0.5 }
  local container = tide.shape.sphere { center = c, radius = 0.45 }
  local solid = tide.shape.complement(container)
  local H = 0.4
  local lo = dim == 2 and { 0, 0 } or { 0, 0, 0 }
  local hi = dim == 2 and { 1, H } or { 1, H, 1 }
  local ps = tide.liquid.seed { grid = g, box = { min = lo, max = hi }, phi = container:sdf(g) }
  local opts = { grid = g, particles = ps }
  local solid_phi = solid:sdf(g)
  if cut then
    local fractions, solid_cells = g:face_fractions(solid, { exact = exact })
    opts.fractions, opts.solid, opts.solid_phi = fractions, solid_cells, solid_phi
  else
    local lab = g:cells("u8")
    local s, l = solid_phi:reshape(g.ncells), lab:reshape(g.ncells)
    for q = 1, g.ncells do if s[q] < 0 then l[q] = tide.liquid.SOLID end end
    opts.solid = lab
  end
  local S = flip.new(opts)
  local x0 = ps.x:clone()
  for _ = 1, 200 do flip.step(S, flip.max_dt(S)) end
  local cH = math.sqrt(9.81 * (H - 0.05))
  local vmax = math.max(ps.v:max(), -ps.v:min(), S.u:max_speed()) / cH
  local d = ps.x:clone():axpy(-1, x0)
  local disp = math.max(d:max(), -d:min()) / g.dx
  print(string.format("%dD %-16s max|u|/sqrt(gH) = %.2e, largest displacement %.2e cells, %.1f s simulated", dim,
    cut and (exact and "cut cells, exact" or "cut cells") or "voxelized", vmax, disp, S.t))
  return vmax, disp
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
