-- 3D inviscid drop oscillation (the n = 2 Rayleigh-Lamb mode) with the
-- tide.drop recipe: level set (MacCormack, redistanced every step by the
-- second-order fast marching, volume correction), ghost-fluid
-- surface tension with the height-function curvature (3D quadric fit), ghost-
-- fluid projection, air density 0.  Linear theory (Rayleigh 1879; Lamb
-- Sec. 275): omega^2 = n (n - 1) (n + 2) sigma / (rho R^3) = 8 sigma / (rho R^3)
-- for n = 2.  Asserts (docs/liquids-physics.md):
--   * r = R (1 + eps P2(cos t)) about the z axis, 16 cells per diameter, box
--     1.5 diameters, eps = 0.05: the frequency from the zero crossings 1 and 3
--     of the P2 moment within 4% of theory (measured -1.6%);
--   * volume drift < 0.1%; the oscillation keeps its amplitude (no growth);
--   * drop.sphere / drop.quadrupole: the P2 moment of the initial shape is
--     4 pi R^5 eps / 5 to first order in eps; argument checks.
local tide = require "tide"
local T = require "tide.testing"
local drop = require "tide.drop"

local D = require "tide.cases.drop_oscillation" -- the set-up, shared with figures/drop_frequency.lua

local R, eps = D.R, D.eps
local omega = D.omega(3)
local cpd, periods = 16, 1.35
local r = D.run { dim = 3, cpd = cpd, periods = periods }
local S, c, n, q0 = r.S, r.center, r.n, r.q0
local g, dx = S.grid, 2 * R / cpd
local q0_lin = 4 * math.pi * R ^ 5 * eps / 5
T.check(math.abs(q0 / q0_lin - 1) < 0.05, string.format("P2 moment %.4e vs 4 pi R^5 eps / 5 = %.4e", q0, q0_lin))
T.check(r.div_rel < 1e-7, "projected (relative divergence)")
T.check(#r.zeros >= 3, "three zero crossings of the P2 moment")
local w = r.omega or 0
local err = w / omega - 1
local drift, qmax = r.drift, r.qmax
print(string.format("3D drop, %d^3 cells (%d per diameter), %d steps: omega %.4f vs %.4f (%+.2f%%), volume drift %.4f%%, largest |P2| after the first crossing %.3f of the initial",
  n, cpd, r.steps, w, omega, 100 * err, 100 * drift, qmax / q0))
T.check(math.abs(err) < 0.04, "frequency within 4% of 8 sigma / (rho R^3)")
T.check(drift < 0.001, "volume drift < 0.1%")
T.check(qmax > 0.8 * q0 and qmax < 1.02 * q0, "the amplitude neither grows nor collapses")

-- argument checks
T.check(not pcall(drop.sphere, { grid = tide.grid.new { size = { 4, 4 }, dx = 0.1 }, center = { 0, 0, 0 }, radius = 1 }), "sphere needs 3D")
T.check(not pcall(drop.sphere, { grid = g, center = c, radius = R, axis = { 0, 0, 0 } }), "zero axis")
T.check(not pcall(drop.sphere, { grid = g, center = c, radius = R, mode = 1.5 }), "integer mode")
T.check(not pcall(drop.sphere, { grid = g, center = c, radius = R, eps = 0 / 0 }), "NaN eps")
T.check(not pcall(drop.sphere, { grid = g, center = c, radius = R, wobble = 1 }), "unknown key")
T.check(not pcall(drop.quadrupole, S, { 0, 0 }), "3D centre")
T.check(not pcall(drop.quadrupole, S, c, { 0, 0, 0 }), "zero axis")
local s0 = drop.sphere { grid = g, center = c, radius = R }
T.check(math.abs(s0:get(n / 2, n / 2, n / 2) + R - math.sqrt(3) * dx / 2) < 1e-12, "unperturbed sphere is the distance")

os.exit(T.report())
