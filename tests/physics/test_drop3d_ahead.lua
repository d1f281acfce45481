-- The damping of tide.drop's tension_ahead (issue 13; docs/liquids-physics.md, "Damping the
-- shortest capillary waves"): the ghost jump's curvature read from phi moved beta dt ahead with
-- the velocity turns the symplectic (neutral) step of a capillary wave of frequency omega into a
-- damped one, amplitude x (1 - beta (omega dt)^2 / 2) per step.  In capillary units (rho = sigma
-- = D = 1, inviscid, the 3D defaults otherwise), about 12 s of one core:
--   * a seeded grid-scale wave (r = R (1 + eps P_20(cos t)), 16 cells per diameter, 22^3, the
--     wavelength 2 pi R / 20 = 2.5 dx) run 80 steps with tension_ahead = 0 and with the 3D
--     default: the traced face velocity of the default run over that of the beta = 0 run (the
--     same linear dynamics, so the mode mixing cancels) at its last extremum against
--     (1 - beta (omega dt)^2 / 2)^steps, omega from the zero crossings of the beta = 0 trace;
--     within 25% of it, and below 0.75 (a real damping);
--   * the n = 2 mode (eps = 0.05, 12 cells per diameter): the half period between the first two
--     zero crossings of the P2 moment with the default within 0.2% of the beta = 0 run's, and the
--     moment at the extremum between them within 2% of it (the drop's modes, omega dt ~ 0.04
--     here, are hardly touched).
local tide = require "tide"
local T = require "tide.testing"
local drop = require "tide.drop"

local sigma, rho, D = 1, 1, 1
local beta = drop.TENSION_AHEAD_3D
T.check(beta > 0, "3D default tension_ahead > 0")

local function box(cpd, f)
  local R, h = D / 2, D / cpd
  local m = math.floor(f * cpd + 0.5)
  local g = tide.grid.new { size = { m, m, m }, dx = h }
  return g, { m * h / 2 + 0.37 * h, m * h / 2 + 0.13 * h, m * h / 2 + 0.29 * h }, R, h
end

-- the seeded grid-scale wave
local function seeded(b)
  local g, ctr, R, h = box(16, 1.4)
  local S = drop.new { grid = g, phi = drop.sphere { grid = g, center = ctr, radius = R, eps = 0.0025, mode = 20 },
    sigma = sigma, rho = rho, tension_ahead = b }
  T.check(S.tension_ahead == b, "tension_ahead taken")
  local i, j, k = math.floor(ctr[1] / h) + 1, math.floor(ctr[2] / h) + 1, math.floor((ctr[3] + R) / h) + 1
  local v, dt = {}, nil
  for s = 1, 80 do
    dt = drop.max_dt(S)
    drop.step(S, dt)
    v[s] = S.u:component(3):get(i, j, k)
  end
  return v, dt
end
local v0, dt = seeded(0)
local vb = seeded(beta)
-- omega from the zero crossings of the undamped trace
local z = {}
for s = 2, #v0 do
  if (v0[s - 1] > 0) ~= (v0[s] > 0) then z[#z + 1] = s - 1 + v0[s - 1] / (v0[s - 1] - v0[s]) end
end
T.check(#z >= 6, "the seeded wave oscillates")
local omega = math.pi * (#z - 1) / ((z[#z] - z[1]) * dt)
-- the last extremum of |v0|
local last
for s = 2, #v0 - 1 do
  if math.abs(v0[s]) >= math.abs(v0[s - 1]) and math.abs(v0[s]) >= math.abs(v0[s + 1]) then last = s end
end
local ratio = vb[last] / v0[last]
local expect = (1 - beta * (omega * dt) ^ 2 / 2) ^ last
print(string.format("seeded P_20 wave (16 cells per diameter): omega dt %.3f (%.1f steps per period); after %d steps "
  .. "tension_ahead %.3g / 0: %.3f, (1 - beta (omega dt)^2 / 2)^n = %.3f", omega * dt, 2 * math.pi / (omega * dt), last, beta, ratio, expect))
T.check(ratio < 0.75, "the grid-scale wave is damped")
T.check(math.abs(ratio / expect - 1) < 0.25, "at the rate of the partly implicit step (within 25%)")

-- the n = 2 mode
local function mode2(b)
  local g, ctr, R = box(12, 1.5)
  local S = drop.new { grid = g, phi = drop.sphere { grid = g, center = ctr, radius = R, eps = 0.05 },
    sigma = sigma, rho = rho, tension_ahead = b }
  local zeros, qext, qp = {}, 0, drop.quadrupole(S, ctr)
  local q0 = qp
  while #zeros < 2 do
    local dt = drop.max_dt(S)
    drop.step(S, dt)
    local q = drop.quadrupole(S, ctr)
    if (qp > 0) ~= (q > 0) then zeros[#zeros + 1] = S.t - dt + dt * qp / (qp - q) end
    if #zeros == 1 then qext = math.max(qext, -q) end
    qp = q
    if S.t > 2 then break end
  end
  return zeros, qext / q0, S.steps
end
local za, ea = mode2(0)
local zb, eb, nb = mode2(beta)
T.check(#za == 2 and #zb == 2, "two zero crossings of the n = 2 mode")
local half0, halfb = za[2] - za[1], zb[2] - zb[1]
local exact = math.pi / math.sqrt(8 * sigma / (rho * (D / 2) ^ 3))
print(string.format("n = 2 (12 cells per diameter, %d steps): half period %.5f (beta 0) / %.5f (beta %.3g), %+.3f%% apart (Rayleigh %.5f: %+.2f%%); "
  .. "extremum %.4f / %.4f of the initial", nb, half0, halfb, beta, 100 * (halfb / half0 - 1), exact, 100 * (exact / halfb - 1), ea, eb))
T.check(math.abs(halfb / half0 - 1) < 2e-3, "the n = 2 frequency unchanged (0.2%)")
T.check(math.abs(eb / ea - 1) < 0.02, "the n = 2 amplitude unchanged (2%)")

-- arguments
local g = box(12, 1.5)
local phi = drop.sphere { grid = g, center = { 0.6, 0.6, 0.6 }, radius = 0.5 }
T.check(not pcall(drop.new, { grid = g, phi = phi, sigma = 1, rho = 1, tension_ahead = -0.1 }), "negative tension_ahead")
T.check(not pcall(drop.new, { grid = g, phi = phi, sigma = 1, rho = 1, tension_ahead = 0 / 0 }), "NaN tension_ahead")
T.check(not pcall(drop.new, { grid = g, phi = phi, sigma = 1, rho = 1, tension = "liu", tension_ahead = 0.1 }), "ahead with liu")
T.check(drop.new { grid = g, phi = phi, sigma = 1, rho = 1, tension = "liu" }.tension_ahead == 0, "liu: 0")
local g2 = tide.grid.new { size = { 8, 8 }, dx = 0.1 }
T.check(drop.new { grid = g2, phi = drop.disk { grid = g2, center = { 0.4, 0.4 }, radius = 0.2 }, sigma = 1, rho = 1 }.tension_ahead == 0, "2D: 0 by default")
local u = g:mac()
T.check(not pcall(tide.liquid.surface_tension, u, phi, { sigma = 1, rho = 1, dt = 1e-3, kappa_phi = phi, kappa = phi }), "kappa and kappa_phi exclude each other")
T.check(not pcall(tide.liquid.surface_tension, u, phi, { sigma = 1, rho = 1, dt = 1e-3, method = "liu", kappa_phi = phi }), "kappa_phi is ghost only")
os.exit(T.report())
