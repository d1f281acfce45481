-- tide.drop's kappa_redistance: the ghost jump's cell curvature read from a copy of phi redistanced
-- every step with tide.grid.redistance{closest = 4} (phi itself, the fractions and labels
-- untouched), so that the curvature stencils read a signed distance with no kink at the surface.
-- The 2D drop at rest of test_drop_rest (capillary units rho = sigma = D = 1, 25 cells per
-- diameter, inviscid, box 2 D), with the centre (+0.21, +0.44) dx off the box centre, where the
-- default's currents grow from t ~ 4 (2.6e-4 at t = 5, 2.1e-3 at t = 10; docs/liquids-physics.md,
-- "The late growth is not the extension's" and "The energy budget of the jump"): with
-- kappa_redistance they stay at 3-9e-5 to t = 5 (1.3e-4 to t = 10).  Asserts the largest
-- max|u| sqrt(rho D / sigma) over [0, 5] below 1.5e-4 and the inner pressure within 1% of sigma / R;
-- and the option's checks.
local T = require "tide.testing"
local drop = require "tide.drop"

local C = require "tide.cases.drop_rest" -- test_drop_rest's benchmark

local S0, K = C.new { cpd = 25, centre = { 0.21, 0.44 } }
local g, phi, sigma = K.grid, S0.phi, K.sigma

T.raises(function() drop.new { grid = g, phi = phi, sigma = sigma, kappa_redistance = 4 } end, "kappa_redistance",
  "kappa_redistance must be a table")
T.raises(function() drop.new { grid = g, phi = phi, sigma = sigma, tension = "liu", kappa_redistance = { closest = 4 } } end,
  "kappa_redistance", "kappa_redistance belongs to the ghost jump")
T.raises(function() drop.new { grid = g, phi = phi, sigma = sigma, periodic = { true, false }, kappa_redistance = { closest = 4 } } end,
  "periodic", "kappa_redistance is refused with periodic axes")
T.raises(function()
  local S = drop.new { grid = g, phi = phi, sigma = sigma, kappa_redistance = { closest = 4, wobble = 1 } }
  drop.step(S, drop.max_dt(S))
end, "wobble", "a misspelled redistance option is an error")

local r = C.run { cpd = 25, centre = { 0.21, 0.44 }, marks = { 1, 2, 3, 4, 5 }, options = { kappa_redistance = { closest = 4 } } }
local S, at, largest, p = r.S, r.at, r.largest, r.p
print(string.format("drop at rest, kappa_redistance = { closest = 4 }, centre (+0.21, +0.44) dx, %d steps: max|u| sqrt(rho D/sigma) %.2e %.2e %.2e %.2e %.2e at t = 1 .. 5, largest %.2e; inner pressure %.5f sigma/R",
  S.steps, at[1], at[2], at[3], at[4], at[5], largest, p))
T.check(largest < 1.5e-4, "kappa_redistance: bounded below 1.5e-4 up to t = 5 (the default: 2.6e-4 at t = 5)")
T.check(math.abs(p - 1) < 0.01, "inner pressure within 1% of sigma / R")
T.check(S.phi_kappa ~= nil and S.phi:checksum() ~= S.phi_kappa:checksum(), "the curvature copy is a separate field")

os.exit(T.report())
