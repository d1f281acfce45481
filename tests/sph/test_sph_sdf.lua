-- SPH with SDF boundaries (tide.SPH:sdf_boundary; Harada, Koshizuka &
-- Kawaguchi 2007's wall weight, sph.h "SDF boundaries"):
-- 1. the wall terms against boundary particles: a floor (a plane) as an SDF
--    wall and as a thick band of boundary particles (Psi_b = m), the fluid
--    lattice-aligned: densities, accelerations and DFSPH factors agree to
--    round-off away from the band's ends;
-- 2. the hydrostatic column of test_sph_hydrostatic with the tank a box SDF
--    instead of boundary particles: pressure slope vs rho0 g, surface, bulk
--    density (WCSPH, DFSPH), and no particle outside the box at any step;
-- (the dam break, the moving tank and the bad arguments: test_sph_sdf_moving.lua)
local tide = require "tide"
local T = require "tide.testing"
local sph = require "tide.sph_step"
local C = require "tide.cases.sph_column" -- the column of test_sph_hydrostatic

-- 1. wall terms = boundary particles for a lattice-aligned planar wall
do
  local dx = 0.01
  local g = tide.grid.new { size = { 20, 20 }, dx = dx }
  local function state(wall)
    local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 40, renormalize = true,
      wall_pressure = "hydrostatic" }
    local floor = tide.shape.plane { point = { 0, 4 * dx }, normal = { 0, -1 } }
    if wall == "particles" then S:boundary { shape = floor, layers = 2, side = "outside" }
    else S:sdf_boundary { shape = floor, side = "outside" } end
    S:seed { shape = tide.shape.box { min = { 0, 4 * dx }, max = { 20 * dx, 14 * dx } } }
    S:search(); S:density(); S:tait(); S:forces(); S:dfsph_factor()
    return S
  end
  local A, B = state("particles"), state("sdf")
  local dr, da, dal, m = 0, 0, 0, 0
  for i = 1, A.n do
    local x = A.x[i][1]
    if x > 3 * dx and x < 17 * dx then -- away from the ends of the boundary band
      m = m + 1
      dr = math.max(dr, math.abs(A.rho[i] - B.rho[i]) / 1000)
      for a = 1, 2 do da = math.max(da, math.abs(A.a[i][a] - B.a[i][a]) / 9.81) end
      dal = math.max(dal, math.abs(A.alpha[i] / B.alpha[i] - 1))
    end
  end
  print(string.format("planar wall vs boundary particles (%d particles): density %.1e rho0, acceleration %.1e g, alpha %.1e",
    m, dr, da, dal))
  -- measured 4.5e-16, 3.6e-12, 5.9e-16
  T.check(m > 100 and dr < 1e-12 and da < 1e-9 and dal < 1e-12,
    "SDF wall terms equal those of a thick boundary-particle band at a lattice-aligned wall")
end

-- ... and a box tank (its faces, edges and corners by inclusion-exclusion)
-- against sph.walls' band of boundary particles, 2D and 3D: every particle
for _, dim in ipairs { 2, 3 } do
  local dx, nx, ny, nz = 0.01, 16, 20, 12
  local g = tide.grid.new { size = dim == 3 and { nx, ny, nz } or { nx, ny }, dx = dx }
  local L = 2 * dx
  local function v(x, y, z) return dim == 3 and { x, y, z } or { x, y } end
  local function state(wall)
    local S = tide.sph.new { grid = g, renormalize = true, gravity = v(0, -9.81, 0) }
    if wall == "particles" then sph.walls(S, g)
    else S:sdf_boundary { shape = tide.shape.box { min = v(L, L, L), max = v(nx * dx - L, ny * dx - L, nz * dx - L) } } end
    S:seed { shape = tide.shape.box { min = v(L, L, L), max = v(nx * dx - L, 12 * dx, nz * dx - L) } }
    S:search(); S:density(); S:dfsph_factor()
    return S
  end
  local A, B = state("particles"), state("sdf")
  local dr, dal = 0, 0
  for i = 1, A.n do
    dr = math.max(dr, math.abs(A.rho[i] - B.rho[i]) / 1000)
    dal = math.max(dal, math.abs(A.alpha[i] / B.alpha[i] - 1))
  end
  print(string.format("%dD box tank vs boundary particles (%d particles, %d surfaces): density %.1e rho0, alpha %.1e",
    dim, A.n, B.nwall, dr, dal))
  -- measured 1.4e-15 / 1.3e-15 and 2.3e-15 / 4.0e-15
  T.check(B.nwall == 2 * dim and dr < 1e-12 and dal < 1e-12,
    string.format("%dD: a box tank's SDF walls give the boundary particles' densities and DFSPH factors at its edges and corners too", dim))
end

-- 2. the hydrostatic column in a box SDF tank
for _, method in ipairs { "wcsph", "dfsph" } do
  local r = C.run(method, 0.8, "sdf")
  print(string.format("%s, SDF tank: pressure slope %+.2f%% of rho0 g, surface %+.2f dx, bulk density error max %.3f%%, "
    .. "deepest particle %+.3f dx into the wall, %d projections%s",
    method, 100 * r.slope, r.surface, 100 * r.bulk, r.worst, r.projected,
    method == "dfsph" and string.format(", solve mean compression max %.4f%%, density solve iterations mean %.1f max %d (%d at the limit 300)",
      100 * r.solve, r.mean_its, r.max_its, r.limit) or ""))
  T.check(math.abs(r.slope) < 0.01, string.format("%s: hydrostatic pressure gradient within 1%% of rho0 g (%+.2f%%)", method, 100 * r.slope))
  T.check(math.abs(r.surface) < 1, string.format("%s: hydrostatic surface within one dx (%+.2f dx)", method, r.surface))
  T.check(r.worst <= 0, string.format("%s: no particle in the wall at any step (deepest %+.3f dx)", method, r.worst))
  if method == "wcsph" then
    T.check(r.bulk < 0.01, string.format("WCSPH: bulk density error below 1%% (%.3f%%)", 100 * r.bulk))
  else
    T.check(r.bulk < 0.001, string.format("DFSPH: bulk density error below 0.1%% (%.4f%%)", 100 * r.bulk))
    T.check(r.solve < 0.001, string.format("DFSPH: mean compression below 0.1%% (%.4f%%)", 100 * r.solve))
    T.check(r.limit == 0, string.format("DFSPH: every density solve converged below maxit 300 (%d at the limit)", r.limit))
  end
end

os.exit(T.report())
