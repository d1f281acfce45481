-- SPH with SDF boundaries (tide.SPH:sdf_boundary; Harada, Koshizuka &
-- Shimazaki 2007's wall weight, sph.h "SDF boundaries"):
-- 1. the wall terms against boundary particles: a floor (a plane) as an SDF
--    wall and as a thick band of boundary particles (Psi_b = m), the fluid
--    lattice-aligned: densities, accelerations and DFSPH factors agree to
--    round-off away from the band's ends;
-- 2. the hydrostatic column of test_sph_hydrostatic with the tank a box SDF
--    instead of boundary particles: pressure slope vs rho0 g, surface, bulk
--    density (WCSPH, DFSPH), and no particle outside the box at any step;
-- 3. a dam break against an obstacle, tank and obstacle SDF walls vs
--    boundary particles: surge fronts, no particle inside the obstacle.
local tide = require "tide"
local T = require "tide.testing"
local sph = require "tide.sph_step"

-- the largest signed distance of the particles into the solid of a wall
-- (outside: the solid is outside the shape)
local function depth(S, shape, outside)
  local phi = shape:eval(S.x)
  return outside and phi:max() or -phi:min()
end

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

-- 2. the hydrostatic column in a box SDF tank
local function column(method, duration)
  local dx = 0.01
  local nx, ny = 26, 40
  local g = tide.grid.new { size = { nx, ny }, dx = dx }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 40, viscosity = 0.1,
    renormalize = true, wall_pressure = "hydrostatic" }
  local L, Hc = 2 * dx, 0.3
  local tank = tide.shape.box { min = { L, L }, max = { nx * dx - L, ny * dx - L } }
  S:sdf_boundary { shape = tank, side = "outside" }
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
    worst = math.max(worst, depth(S, tank, true))
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

for _, method in ipairs { "wcsph", "dfsph" } do
  local r = column(method, 0.8)
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

-- 3. dam break (the tank and column of lua/tide/cases/dam_break_compare.lua,
-- 32 cells/m) against a block on the floor: boundary particles vs SDF walls
local function dam(wall, method)
  local res, Wt, Ht, a, h = 32, 1.5, 1.0, 0.5, 0.75
  local dx = 1 / res
  local nx, ny = math.floor(Wt * res + 0.5), math.floor(Ht * res + 0.5)
  local g = tide.grid.new { size = { nx + 4, ny + 4 }, dx = dx, origin = { -2 * dx, -2 * dx } }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 40, viscosity = 0.05 }
  local tank = tide.shape.box { min = { 0, 0 }, max = { Wt, Ht } }
  local block = tide.shape.box { min = { 0.875, 0 }, max = { 1.0, 0.125 } }
  if wall == "particles" then
    S:boundary { shape = tank, layers = 2, side = "outside" }
    S:boundary { shape = block, layers = 2, side = "inside" }
  else
    S:sdf_boundary { shape = tank, side = "outside" }
    S:sdf_boundary { shape = block, side = "inside" }
  end
  S:seed { shape = tide.shape.box { min = { 0, 0 }, max = { a, h } } }
  local t, fronts, worst, unconverged = 0, {}, -math.huge, 0
  for _, tf in ipairs { 0.1, 0.2, 0.3 } do
    while t < tf - 1e-12 do
      local dt
      if method == "wcsph" then
        dt = math.min(sph.max_dt(S, "wcsph", 0.4), tf - t)
        sph.wcsph_step(S, dt)
      else
        dt = math.min(sph.max_dt(S, "dfsph", 0.4, 2e-3), tf - t)
        if not sph.dfsph_step(S, dt).converged then unconverged = unconverged + 1 end
      end
      t = t + dt
      if wall == "sdf" then worst = math.max(worst, depth(S, tank, true), depth(S, block, false)) end
    end
    local xs = {}
    for p = 1, S.n do xs[p] = S.x[p][1] end
    table.sort(xs)
    fronts[#fronts + 1] = xs[math.max(1, math.floor(0.99 * S.n))]
  end
  return fronts, worst / dx, unconverged
end

local ref = dam("particles", "wcsph")
for _, method in ipairs { "wcsph", "dfsph" } do
  local f, worst, unconverged = dam("sdf", method)
  local dev = 0
  for k = 1, 3 do dev = math.max(dev, math.abs(f[k] / ref[k] - 1)) end
  print(string.format("dam break against a block, %s: fronts at 0.1, 0.2, 0.3 s: SDF walls %.3f %.3f %.3f m, "
    .. "boundary particles (WCSPH) %.3f %.3f %.3f m (largest deviation %.1f%%); deepest particle %+.3f dx into a wall%s",
    method, f[1], f[2], f[3], ref[1], ref[2], ref[3], 100 * dev, worst,
    method == "dfsph" and string.format(", %d solves at maxit", unconverged) or ""))
  T.check(dev < 0.05, string.format("%s: the surge fronts with SDF walls within 5%% of the boundary-particle run (%.1f%%)", method, 100 * dev))
  T.check(worst <= 0, string.format("%s: no particle in the tank's wall or in the block at any step (deepest %+.3f dx)", method, worst))
end

-- API errors name the problem
do
  local g = tide.grid.new { size = { 16, 16 }, dx = 1 / 16 }
  local S = tide.sph.new { grid = g }
  local box = tide.shape.box { min = { 0.2, 0.2 }, max = { 0.8, 0.8 } }
  local function err(f, ...) local ok, msg = pcall(f, ...); return not ok and tostring(msg) or "" end
  T.check(err(S.sdf_boundary, S, {}):find("shape"), "a missing shape is refused")
  T.check(err(S.sdf_boundary, S, { shape = box, side = "above" }):find("side"), "an unknown side is refused")
  T.check(err(S.sdf_boundary, S, { shape = box, layers = 2 }):find("layers"), "an option of S:boundary is refused")
  T.check(err(S.sdf_boundary, S, { shape = tide.shape.sphere { center = { 0, 0, 0 }, radius = 1 } }):find("3D"),
    "a shape of the other dimension is refused")
  T.check(S:sdf_boundary { shape = box } == 4 and S.nwall == 4, "a box tank is its four faces")
  for _ = 1, 3 do S:sdf_boundary { shape = box } end
  local msg = err(S.sdf_boundary, S, { shape = box })
  T.check(msg:find("at most 16"), "more than 16 wall surfaces are refused: " .. msg)
end

os.exit(T.report())
