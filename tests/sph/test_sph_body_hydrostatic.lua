-- The hydrostatic force on a fixed body (S:wall_force, S:boundary_force;
-- docs/sph.md "Rigid bodies"): a 0.2 x 0.1 m block fully submerged in a 2D
-- DFSPH column at rest (0.6 m wide, 0.5 m deep, dx = 2 cm) receives the
-- buoyancy rho0 g V within 3% upwards and no net horizontal force (mean over
-- the last 0.5 s of 1.5 s) -- as an SDF boundary (density map) and as a set of
-- boundary particles (Akinci et al. 2012).
local tide = require "tide"
local T = require "tide.testing"
local sph = require "tide.sph_step"
local SB = require "tide.sph_body"

local function run(wall)
  local dx, W, depth, duration = 0.02, 0.6, 0.5, 1.5
  local L = 2 * dx
  local g = tide.grid.new { size = { math.floor(W / dx + 0.5) + 4, math.floor(0.6 / dx + 0.5) + 4 }, dx = dx, origin = { -L, -L } }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 10 * math.sqrt(2 * 9.81 * depth),
    viscosity = 0.05, wall_pressure = "hydrostatic", renormalize = true }
  local tank = tide.shape.box { min = { 0, 0 }, max = { W, 0.6 } }
  local blk = tide.shape.box { min = { 0.2, 0.2 }, max = { 0.4, 0.3 } }
  local B, set
  if wall == "sdf" then
    S:sdf_boundary { shape = tank, side = "outside" }
    B = SB.new(S, { shape = blk, density = 1000, fixed = true })
  else
    S:boundary { shape = tank, side = "outside", layers = 2 }
    _, set = S:boundary { shape = blk, side = "inside", layers = 2 }
  end
  S:seed { shape = tide.shape.box { min = { 0, 0 }, max = { W, depth } } - blk }
  local t, Fx, Fy, Tq, k = 0, 0, 0, 0, 0
  while t < duration - 1e-12 do
    local dt = math.min(sph.max_dt(S, "dfsph", 0.4, 2e-3), duration - t)
    sph.dfsph_step(S, dt, { bodies = B and { B } or nil, tol = 1e-4, maxit = 300 })
    t = t + dt
    local fx, fy, tq
    if B then fx, fy, tq = B.force[1], B.force[2], B.torque else fx, fy, tq = S:boundary_force(set) end
    if t > duration - 0.5 then Fx, Fy, Tq, k = Fx + fx, Fy + fy, Tq + tq, k + 1 end
  end
  return Fx / k, Fy / k, Tq / k
end

local ref = 1000 * 9.81 * 0.2 * 0.1
for _, wall in ipairs { "sdf", "particles" } do
  local fx, fy, tq = run(wall)
  print(string.format("%s: block fully submerged: vertical force %.2f N/m (rho0 g V = %.2f: %+.2f%%), horizontal %.3f N/m, "
    .. "torque %.4f N", wall == "sdf" and "SDF boundary (density map)" or "boundary particles", fy, ref,
    100 * (fy / ref - 1), fx, tq))
  T.check(math.abs(fy / ref - 1) < 0.03, string.format("%s: the buoyancy within 3%% of rho0 g V (%+.2f%%)", wall, 100 * (fy / ref - 1)))
  T.check(math.abs(fx) < 0.01 * ref, string.format("%s: no net horizontal force (%.3f N/m)", wall, fx))
end

os.exit(T.report())
