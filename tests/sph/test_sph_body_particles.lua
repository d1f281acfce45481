-- Rigid bodies made of boundary particles (Akinci et al. 2012; tide.sph_body
-- with particles = true, S:set_boundary_velocity, S:boundary_force;
-- docs/sph.md "Rigid bodies").
-- 1. Kinematics: a set moved with v and omega for 50 drifts sits at c + R y
--    (R = exp(t omega)) with velocity v + omega x (x_b - c), to round-off.
-- 2. Momentum: a free box of boundary particles pushed at 1 m/s into water at
--    rest (no gravity, WCSPH): fluid + body linear and angular momentum
--    conserved to 1e-12 relative while the fluid slows the body.
-- 3. Archimedes: the block of test_sph_body_float (0.5 rho0, DFSPH, 3.5 s)
--    made of boundary particles floats half submerged within 5 % (the same
--    block as a density-map wall: 0.4918), upright, no fluid inside it.
local tide = require "tide"
local T = require "tide.testing"
local sph = require "tide.sph_step"
local SB = require "tide.sph_body"
local C = require "tide.cases.sph_float"

-- 1. kinematics
do
  local g = tide.grid.new { size = { 40, 40 }, dx = 0.025 }
  local S = tide.sph.new { grid = g, gravity = { 0, 0 } }
  S:seed { shape = tide.shape.box { min = { 0.1, 0.1 }, max = { 0.2, 0.2 } } }
  local n, k = S:boundary { shape = tide.shape.box { min = { 0.4, 0.4 }, max = { 0.6, 0.55 } }, side = "inside", layers = 2 }
  local x0 = S.boundary_x
  local c0 = { 0.5, 0.47 }
  local v, om, dt, steps = { 0.3, -0.2 }, 1.5, 0.004, 50
  S:set_boundary_velocity(k, v, om, c0)
  for _ = 1, steps do S:drift(dt) end
  local c, ang = S:boundary_pose(k)
  local t = steps * dt
  local worst, vworst = math.abs(ang - om * t), 0
  -- the set is re-sorted: match the particles by their rest positions (each moved by the same rigid map)
  local xs = S.boundary_x
  local cs, sn = math.cos(om * t), math.sin(om * t)
  local want = {}
  for b = 1, n do
    local rx, ry = x0[b][1] - c0[1], x0[b][2] - c0[2]
    want[#want + 1] = { c0[1] + v[1] * t + cs * rx - sn * ry, c0[2] + v[2] * t + sn * rx + cs * ry }
  end
  local function key(p) return string.format("%.9f %.9f", p[1], p[2]) end
  local have = {}
  for b = 1, n do have[key(xs[b])] = true end
  local matched = 0
  for _, p in ipairs(want) do if have[key(p)] then matched = matched + 1 end end
  worst = math.max(worst, math.abs(c[1] - (c0[1] + v[1] * t)), math.abs(c[2] - (c0[2] + v[2] * t)))
  print(string.format("kinematics: %d particles moved 50 drifts (v = 0.3, -0.2 m/s, omega 1.5 rad/s): pose error %.1e, "
    .. "%d of %d at c + R y (to 1e-9 m)", n, worst, matched, n))
  T.check(worst < 1e-12, string.format("set pose c + t v, angle t omega (%.1e)", worst))
  T.check(matched == n, string.format("every particle at c + R y (%d of %d)", matched, n))
end

-- 2. momentum (2D, dx = 1 cm: 1600 fluid particles)
do
  local dx = 0.01
  local g = tide.grid.new { size = { 120, 80 }, dx = dx }
  local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 20, viscosity = 0.05,
    gravity = { 0, 0 } }
  S:seed { shape = tide.shape.box { min = { 0.5, 0.2 }, max = { 0.9, 0.6 } } }
  local B = SB.new(S, { shape = tide.shape.box { min = { 0.36, 0.42 }, max = { 0.48, 0.52 } }, density = 1000,
    velocity = { 1.0, 0 }, particles = true })
  local function total()
    local v, x, m = S.v, S.x, S.mass
    local p, L = { 0, 0 }, 0
    for i = 1, S.n do
      p[1], p[2] = p[1] + m * v[i][1], p[2] + m * v[i][2]
      L = L + m * (x[i][1] * v[i][2] - x[i][2] * v[i][1])
    end
    local pb, Lb = B:momentum()
    return { p[1] + pb[1], p[2] + pb[2] }, L + Lb
  end
  local P0, L0 = total()
  local wP, wL = 0, 0
  for _ = 1, 250 do
    sph.wcsph_step(S, 2e-4, { B })
    local P, L = total()
    wP = math.max(wP, math.abs(P[1] - P0[1]) / P0[1], math.abs(P[2] - P0[2]) / P0[1])
    wL = math.max(wL, math.abs(L - L0) / math.abs(L0))
  end
  print(string.format("boundary-particle box pushed into water at 1 m/s: body now %.4f, %.4f m/s, %.4f rad/s; "
    .. "momentum drift linear %.2e, angular %.2e relative", B.v[1], B.v[2], B.omega, wP, wL))
  T.check(B.v[1] < 0.75, string.format("the fluid slowed the body (%.3f m/s from 1)", B.v[1]))
  T.check(wP < 1e-12, string.format("fluid + body linear momentum conserved (%.2e)", wP))
  T.check(wL < 1e-12, string.format("fluid + body angular momentum conserved (%.2e)", wL))
end

-- 3. Archimedes
do
  local r = C.run { method = "dfsph", density = 500, duration = 3.5, particles = true, landing = true }
  print(string.format("DFSPH, block of 0.5 rho0 made of boundary particles: submerged fraction %.4f (top particles + "
    .. "dx/2: %.4f; the density-map block: 0.4918), final angle %.4f rad, fluid particles inside %d, %d steps",
    r.fraction, r.fraction_top, r.angle, r.inside, r.steps))
  T.check(math.abs(r.fraction / 0.5 - 1) < 0.05, string.format("floats half submerged within 5%% (%.4f)", r.fraction))
  T.check(math.abs(r.angle) < 0.1, string.format("upright (%.4f rad)", r.angle))
  T.check(r.inside == 0, string.format("no fluid particle inside the block (%d)", r.inside))
end

os.exit(T.report())
