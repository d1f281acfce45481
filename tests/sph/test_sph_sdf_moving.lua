-- SPH with SDF boundaries (tide.SPH:sdf_boundary; sph.h "SDF boundaries"),
-- continued from test_sph_sdf.lua:
-- 3. a dam break against an obstacle, tank and obstacle SDF walls vs
--    boundary particles: surge fronts, no particle inside the walls;
-- 4. a moving tank (Galilean invariance);
-- and the errors of bad arguments.
local tide = require "tide"
local T = require "tide.testing"
local sph = require "tide.sph_step"

local depth = require("tide.cases.sph_column").depth -- the particles' largest SDF into a wall
local front = require("tide.cases.dam_break_compare").front

-- 3. dam break (the tank and column of lua/tide/cases/dam_break_compare.lua,
-- 32 cells/m) against a block on the floor: boundary particles vs SDF walls
-- (tank and block as density maps, method = "map": over CFL 0.3-0.45 the
-- closest to the boundary particles' fronts, partly by the map tank's
-- denser concave corner, docs/sph.md; the 0.3 s front, spray over the
-- block, moves by a few % with the step size for any wall)
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
    S:sdf_boundary { shape = tank, side = "outside", method = "map" }
    S:sdf_boundary { shape = block, side = "inside", method = "map" }
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
    fronts[#fronts + 1] = front { x = function() return S.x end } -- 99th percentile of x
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

-- 4. a moving wall (Galilean invariance): a small column settling in a box
-- tank that translates at U = 0.5 m/s with the water, against the same tank
-- at rest: the same motion relative to the tank (fixed steps)
local function carried(method, U)
  local dx = 0.01
  local nx, ny = 16, 24
  local g = tide.grid.new { size = { nx + 18, ny }, dx = dx }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 40, viscosity = 0.1,
    renormalize = true, wall_pressure = "hydrostatic" }
  local L = 2 * dx
  local tank = tide.shape.box { min = { L, L }, max = { nx * dx - L, ny * dx - L } }
  S:sdf_boundary { shape = tank, side = "outside", velocity = { U, 0 } }
  S:seed { shape = tide.shape.box { min = { L, L }, max = { nx * dx - L, L + 0.15 } }, velocity = { U, 0 } }
  local t, duration, worst = 0, 0.3, -math.huge
  local dt = method == "wcsph" and 9e-5 or 2e-3
  while t < duration - 1e-12 do
    local ramp = t < 0.5 * duration and 0.5 * (math.sin((-0.5 + t / (0.5 * duration)) * math.pi) + 1) or 1
    S:set_gravity { 0, -9.81 * ramp }
    if method == "wcsph" then sph.wcsph_step(S, dt) else sph.dfsph_step(S, dt, { tol = 1e-4, maxit = 300 }) end
    t = t + dt
    local x = S.x
    for i = 1, S.n do worst = math.max(worst, (tank:eval { x[i][1] - U * t, x[i][2] })) end
  end
  local xs, ys, v, ke = {}, {}, S.v, 0
  for i = 1, S.n do
    xs[i], ys[i] = S.x[i][1] - U * t, S.x[i][2]
    ke = ke + 0.5 * S.mass * ((v[i][1] - U) ^ 2 + v[i][2] ^ 2)
  end
  table.sort(xs); table.sort(ys) -- the particles' order differs (Morton order of absolute positions)
  return { xs, ys }, ke, worst / dx
end

for _, method in ipairs { "wcsph", "dfsph" } do
  local x0, ke0 = carried(method, 0)
  local x1, ke1, worst = carried(method, 0.5)
  local dmax = 0
  for a = 1, 2 do for i = 1, #x0[a] do dmax = math.max(dmax, math.abs(x0[a][i] - x1[a][i])) end end
  print(string.format("%s, tank moving at 0.5 m/s: kinetic energy relative to the tank %.4e J (at rest %.4e J), "
    .. "positions relative to the tank differ by %.1e m at most; deepest particle %+.3f dx into the moving wall",
    method, ke1, ke0, dmax, worst))
  if method == "dfsph" then
    -- measured: KE equal to 5 digits, positions to 4.5e-13 m
    T.check(math.abs(ke1 / ke0 - 1) < 1e-6 and dmax < 1e-9,
      string.format("DFSPH: the column in the moving tank moves as in the tank at rest (relative KE %.6e vs %.6e J, positions %.1e m)",
        ke1, ke0, dmax))
  else
    -- WCSPH's acoustic residue is chaotic: a tank moving at 1e-9 m/s instead of 0 changes
    -- the residual KE from 9.4e-3 to 6.0e-3 J (0.5 m/s: 6.0e-3 J), so the bound is statistical
    T.check(ke1 < 2 * ke0 and ke0 < 2 * ke1 and dmax < 0.1 * 0.01,
      string.format("WCSPH: the column in the moving tank settles as in the tank at rest (relative KE %.2e vs %.2e J, positions %.1e m)",
        ke1, ke0, dmax))
  end
  T.check(worst <= 0, string.format("%s: no particle in the moving wall at any step (%+.3f dx)", method, worst))
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
  T.check(S:sdf_boundary { shape = box } == 1 and S.nwall == 4, "a box tank is boundary 1, its four faces")
  for _ = 1, 3 do S:sdf_boundary { shape = box } end
  local msg = err(S.sdf_boundary, S, { shape = box })
  T.check(msg:find("at most 16"), "more than 16 wall surfaces are refused: " .. msg)
  T.check(err(S.sdf_boundary, S, { shape = box, velocity = { 1 } }):find("velocity"), "a velocity of the wrong length is refused")
  T.check(err(S.set_sdf_velocity, S, 5, { 1, 0 }):find("index"), "an SDF boundary index out of range is refused")
  T.check(err(S.set_sdf_velocity, S, 1, { 0 / 0, 0 }):find("finite"), "a non-finite wall velocity is refused")
  -- a state with walls and no particle steps (nothing to do)
  local E = tide.sph.new { grid = g }
  E:sdf_boundary { shape = box }
  T.check(pcall(function() E:search(); E:density(); E:tait(); E:forces(); E:dfsph_factor(); E:drift(1e-3) end),
    "the operators run on a state without particles")
end

os.exit(T.report())
