--- The SPH hydrostatic column: a water column at rest in a tank (2D,
-- dx = 1 cm, 22 x 30 particles, cubic spline H = 2 dx, c = 40 m/s,
-- renormalized pressure terms, hydrostatic wall pressure).  Gravity is ramped
-- in over 40% of the run (Adami, Hu & Adams 2012, Eq. 30) so the column
-- settles without a pressure wave; then the pressure of the particles between
-- 2 cells above the floor and 4 cells below the surface, accumulated over the
-- last 30% of the run, is fitted by p = a + b y.  The tank's walls are two
-- layers of boundary particles (walls = "particles") or a box SDF
-- (walls = "sdf", S:sdf_boundary).  Shared by tests/sph/test_sph_hydrostatic.lua
-- and tests/sph/test_sph_sdf.lua.
--
--   local C = require "tide.cases.sph_column"
--   local r = C.run("wcsph" | "dfsph", duration, "particles" | "sdf" | "sdf_map")
--   -- r.slope (-b / rho0 g - 1), r.surface (-a/b - column top, in dx), r.bulk (max |rho/rho0 - 1|
--   -- in the fitted band at the end), r.solve (DFSPH: max mean compression over the last 30%),
--   -- r.limit (solves at maxit 300), r.mean_its, r.max_its, r.worst (largest SDF value of a
--   -- particle over the steps, in dx; sdf walls), r.projected (particles projected by the drifts)
local tide = require "tide"
local sph = require "tide.sph_step"

local M = {}

--- The largest signed distance of the particles of S into the solid of a wall
-- (outside: the solid is outside the shape, as S:sdf_boundary's side).
function M.depth(S, shape, outside)
  local phi = shape:eval(S.x)
  return outside and phi:max() or -phi:min()
end

function M.run(method, duration, walls)
  local dx = 0.01
  local nx, ny = 26, 40
  local g = tide.grid.new { size = { nx, ny }, dx = dx }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 40, viscosity = 0.1,
    renormalize = true, wall_pressure = "hydrostatic" }
  local L, Hc = 2 * dx, 0.3
  local tank = tide.shape.box { min = { L, L }, max = { nx * dx - L, ny * dx - L } }
  local sdf = walls == "sdf" or walls == "sdf_map"
  if sdf then S:sdf_boundary { shape = tank, side = "outside", method = walls == "sdf_map" and "map" or "harada" }
  else sph.walls(S, g) end
  S:seed { shape = tide.shape.box { min = { L, L }, max = { nx * dx - L, L + Hc } } }
  local surf = L + Hc
  local t, tdamp = 0, 0.4 * duration
  local sx, sy, sxx, sxy, m = 0, 0, 0, 0, 0
  local solve_err, bulk_err, hit_limit, its, max_its, solves = 0, 0, 0, 0, 0, 0
  local worst, projected = -math.huge, 0
  while t < duration do
    local ramp = t < tdamp and 0.5 * (math.sin((-0.5 + t / tdamp) * math.pi) + 1) or 1
    S:set_gravity { 0, -9.81 * ramp }
    local dt
    if method == "wcsph" then
      dt = sph.max_dt(S, "wcsph", 0.4)
      sph.wcsph_step(S, dt)
    else
      dt = 2e-3
      local r = sph.dfsph_step(S, dt, { tol = 1e-4, maxit = 300 })
      if not r.converged then hit_limit = hit_limit + 1 end
      its, solves = its + r.density_iterations, solves + 1
      max_its = math.max(max_its, r.density_iterations)
      if t > 0.7 * duration then solve_err = math.max(solve_err, r.density_error) end
    end
    if sdf then worst = math.max(worst, M.depth(S, tank, true)) end
    projected = projected + S:diagnostics().projected
    t = t + dt
    if t > 0.7 * duration then
      local x, p = S.x, S.p
      for i = 1, S.n do
        local y = x[i][2]
        if y > L + 2 * dx and y < surf - 4 * dx then
          sx = sx + y; sy = sy + p[i]; sxx = sxx + y * y; sxy = sxy + y * p[i]; m = m + 1
        end
      end
    end
  end
  if method == "wcsph" then S:search(); S:density() end
  local x, rho = S.x, S.rho
  for i = 1, S.n do
    local y = x[i][2]
    if y > L + 2 * dx and y < surf - 4 * dx then bulk_err = math.max(bulk_err, math.abs(rho[i] / 1000 - 1)) end
  end
  local b = (m * sxy - sx * sy) / (m * sxx - sx * sx)
  local a = (sy - b * sx) / m
  return { slope = -b / (1000 * 9.81) - 1, surface = (-a / b - surf) / dx, bulk = bulk_err, solve = solve_err,
    limit = hit_limit, mean_its = its / math.max(solves, 1), max_its = max_its, worst = worst / dx,
    projected = projected }
end

return M
