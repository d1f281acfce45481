-- Two-way SPH-rigid body coupling (tide.sph_body, S:wall_force; docs/sph.md
-- "Rigid bodies"): the fluid's force on a body is the pair-wise reaction of
-- the wall terms, so fluid + body conserve momentum to round-off.
-- 1. A free box (density map wall) pushed at 1 m/s into a blob of water at
--    rest, no gravity, no tank: total linear momentum (WCSPH and DFSPH) and
--    angular momentum (WCSPH, no projection) conserved to 1e-12 relative,
--    while the body loses a third of its speed to the fluid.
-- 2. The same reactions for boundary particles (a fixed set): the fluid's
--    momentum plus the impulse the set received is constant.
-- 3. Bit-identical forces and bodies for 1 and 2 threads.
-- 4. A 3D smoke test (a box pushed into a blob): momentum, finite torque.
local tide = require "tide"
local T = require "tide.testing"
local sph = require "tide.sph_step"
local SB = require "tide.sph_body"

local function fluid_momentum(S)
  local v, x, m = S.v, S.x, S.mass
  local p, L = {}, 0
  for a = 1, S.dim do p[a] = 0 end
  for i = 1, S.n do
    for a = 1, S.dim do p[a] = p[a] + m * v[i][a] end
    if S.dim == 2 then L = L + m * (x[i][1] * v[i][2] - x[i][2] * v[i][1]) end
  end
  return p, L
end

-- 1. a free box pushed into water at rest (2D, dx = 1 cm: 1600 fluid particles)
local function pushed(method, steps)
  local dx = 0.01
  local g = tide.grid.new { size = { 120, 80 }, dx = dx }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 20, viscosity = 0.05,
    gravity = { 0, 0 } }
  S:seed { shape = tide.shape.box { min = { 0.5, 0.2 }, max = { 0.9, 0.6 } } }
  local B = SB.new(S, { shape = tide.shape.box { min = { 0.36, 0.42 }, max = { 0.48, 0.52 } }, density = 1000,
    velocity = { 1.0, 0 } })
  local function total()
    local p, L = fluid_momentum(S)
    local pb, Lb = B:momentum()
    return { p[1] + pb[1], p[2] + pb[2] }, L + Lb
  end
  local P0, L0 = total()
  local dt = method == "wcsph" and 2e-4 or 1e-3
  local worstP, worstL, projected = 0, 0, 0
  for _ = 1, steps do
    if method == "wcsph" then sph.wcsph_step(S, dt, { B }) else sph.dfsph_step(S, dt, { bodies = { B } }) end
    projected = projected + S:diagnostics().projected
    local P, L = total()
    worstP = math.max(worstP, math.abs(P[1] - P0[1]) / P0[1], math.abs(P[2] - P0[2]) / P0[1])
    worstL = math.max(worstL, math.abs(L - L0) / math.abs(L0))
  end
  return worstP, worstL, projected, B, S
end

local results = {}
for _, method in ipairs { "wcsph", "dfsph" } do
  local wP, wL, projected, B = pushed(method, method == "wcsph" and 400 or 120)
  results[method] = B
  print(string.format("%s: box pushed into water at 1 m/s: body now %.4f, %.4f m/s, %.4f rad/s; linear momentum "
    .. "drift %.2e relative, angular %.2e (%d projections)", method, B.v[1], B.v[2], B.omega, wP, wL, projected))
  T.check(B.v[1] < 0.75, string.format("%s: the fluid slowed the body (%.3f m/s from 1)", method, B.v[1]))
  T.check(wP < 1e-12, string.format("%s: fluid + body linear momentum conserved to round-off (%.2e)", method, wP))
  if projected == 0 then
    T.check(wL < 1e-12, string.format("%s: fluid + body angular momentum conserved to round-off (%.2e)", method, wL))
  end
end

-- 2. boundary particles: a fixed obstacle set hit by a jet; fluid momentum +
-- the set's impulse constant (WCSPH: the reactions of the forces pass)
do
  local dx = 0.01
  local g = tide.grid.new { size = { 80, 60 }, dx = dx }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 20, viscosity = 0.05,
    gravity = { 0, 0 }, boundary_viscosity = 0.05 }
  local n, k = S:boundary { shape = tide.shape.box { min = { 0.45, 0.2 }, max = { 0.55, 0.4 } }, side = "inside", layers = 2 }
  S:seed { shape = tide.shape.box { min = { 0.15, 0.22 }, max = { 0.4, 0.38 } }, velocity = { 1.5, 0.2 } }
  local P0 = fluid_momentum(S)
  local J, dt, worst = { 0, 0 }, 2e-4, 0
  for _ = 1, 300 do
    sph.wcsph_step(S, dt)
    local fx, fy = S:boundary_force(k)
    J[1], J[2] = J[1] + dt * fx, J[2] + dt * fy
    local P = fluid_momentum(S)
    worst = math.max(worst, math.abs(P[1] + J[1] - P0[1]) / P0[1], math.abs(P[2] + J[2] - P0[2]) / P0[1])
  end
  print(string.format("boundary particles (%d in set %d): impulse on the set %.4f, %.4f N s (fluid's initial %.4f, %.4f); "
    .. "fluid + set momentum drift %.2e relative", n, k, J[1], J[2], P0[1], P0[2], worst))
  T.check(J[1] > 0.2 * P0[1], string.format("the jet pushed the obstacle (impulse %.3f of %.3f)", J[1], P0[1]))
  T.check(worst < 1e-12, string.format("boundary particles: fluid momentum + the set's impulse conserved (%.2e)", worst))
end

-- 3. 1 and 2 threads: the same bits
do
  local runs = {}
  for th = 1, 2 do
    tide.threads(th)
    local _, _, _, B = pushed("wcsph", 100)
    runs[th] = { B.v[1], B.v[2], B.omega, B.force[1], B.force[2], B.torque }
  end
  tide.threads(2)
  local same = true
  for q = 1, 6 do same = same and runs[1][q] == runs[2][q] end
  T.check(same, string.format("body velocity and force bit-identical for 1 and 2 threads (vx %.17g vs %.17g, fx %.17g vs %.17g)",
    runs[1][1], runs[2][1], runs[1][4], runs[2][4]))
end

-- 4. 3D smoke: a box pushed into a blob
do
  local dx = 0.02
  local g = tide.grid.new { size = { 30, 20, 20 }, dx = dx }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 20, viscosity = 0.05,
    gravity = { 0, 0, 0 } }
  S:seed { shape = tide.shape.box { min = { 0.3, 0.1, 0.1 }, max = { 0.5, 0.3, 0.3 } } }
  local B = SB.new(S, { shape = tide.shape.box { min = { 0.18, 0.16, 0.14 }, max = { 0.28, 0.26, 0.24 } },
    density = 800, velocity = { 1.0, 0, 0 }, map_resolution = 2, sample = dx / 2 })
  local function total()
    local p = fluid_momentum(S)
    local pb = B:momentum()
    return { p[1] + pb[1], p[2] + pb[2], p[3] + pb[3] }
  end
  local P0, worst = total(), 0
  for _ = 1, 80 do
    sph.wcsph_step(S, 4e-4, { B })
    local P = total()
    for a = 1, 3 do worst = math.max(worst, math.abs(P[a] - P0[a]) / P0[1]) end
  end
  local fx, fy, fz, tq = S:wall_force(B.boundary)
  local finite = fx == fx and fy == fy and fz == fz and tq[1] == tq[1] and tq[2] == tq[2] and tq[3] == tq[3]
  print(string.format("3D: %d particles, body %.4f %.4f %.4f m/s, omega %.3f %.3f %.3f rad/s, momentum drift %.2e",
    S.n, B.v[1], B.v[2], B.v[3], B.omega[1], B.omega[2], B.omega[3], worst))
  T.check(B.v[1] < 0.95 and finite, "3D: the fluid slowed the body, force and torque finite")
  T.check(worst < 1e-12, string.format("3D: fluid + body linear momentum conserved (%.2e)", worst))
end

-- API errors name the problem
do
  local g = tide.grid.new { size = { 16, 16 }, dx = 1 / 16 }
  local S = tide.sph.new { grid = g }
  local function err(f, ...) local ok, msg = pcall(f, ...); return not ok and tostring(msg) or "" end
  T.check(err(S.wall_force, S, 1):find("no SDF boundary"), "wall_force without SDF boundaries is refused")
  T.check(err(S.boundary_force, S, 1):find("no boundary particle set"), "boundary_force without sets is refused")
  S:sdf_boundary { shape = tide.shape.box { min = { 0.1, 0.1 }, max = { 0.9, 0.9 } } }
  T.check(err(S.wall_force, S, 2):find("index"), "an SDF boundary index out of range is refused")
  T.check(err(S.wall_force, S, 1, { 1 }):find("centre"), "a centre of the wrong length is refused")
  T.check(err(SB.new, S, { shape = tide.shape.box { min = { 0.3, 0.3 }, max = { 0.4, 0.4 } } }):find("density or mass"),
    "a body without density or mass is refused")
  T.check(err(SB.new, S, { shape = tide.shape.plane { point = { 0, 0.2 }, normal = { 0, 1 } }, density = 1 }):find("bounded"),
    "an unbounded body shape is refused")
end

os.exit(T.report())
