-- tide.couple.liu_distance (Liu et al. Eq. 14-16): the vertex-to-liquid
-- distance interpolated from phi.  A disk of radius R as an exact signed
-- distance sampled at the cells: both interpolations give |x - c| - R within
-- their interpolation error (linear: dx^2 / (8 R) ... quadratic B-spline
-- smoothing dx^2 / (8 R) + curvature term), and the sign tells inside from
-- outside for every vertex further than that from the surface.
local tide = require "tide"
local T = require "tide.testing"
local drop = require "tide.drop"

local n, L = 32, 1.0
local dx = L / n
local g = tide.grid.new { size = { n, n }, dx = dx }
local c, R = { 0.5, 0.5 }, 0.3
local phi = drop.disk { grid = g, center = c, radius = R }

local pts, want = {}, {}
for k = 0, 39 do
  local a = 2 * math.pi * k / 40
  local r = R + (k % 8 - 3.5) * 0.4 * dx -- -1.4 dx .. +1.4 dx from the surface
  pts[#pts + 1] = { c[1] + r * math.cos(a), c[2] + r * math.sin(a) }
  want[#want + 1] = r - R
end
local X = tide.array.from(pts)
for _, interp in ipairs { "linear", "quadratic" } do
  local d = tide.couple.liu_distance { grid = g, phi = phi, x = X, interp = interp }
  local maxe = 0
  for k = 1, #pts do
    maxe = math.max(maxe, math.abs(d:get(k) - want[k]))
    T.check((d:get(k) > 0) == (want[k] > 0), interp .. ": sign of vertex " .. k)
  end
  -- the curvature error of interpolating |x| - R: at most dx^2 / (2 (R - 1.5 dx)) (quadratic: 3/4 of that +
  -- the B-spline's own dx^2/8 phi'')
  T.check(maxe < 0.5 * dx * dx / (R - 1.5 * dx), string.format("%s: max error %.3g dx", interp, maxe / dx))
end

T.raises(function() tide.couple.liu_distance { grid = g, phi = phi, x = X, interp = "cubic" } end, "interp")
T.raises(function() tide.couple.liu_distance { grid = g, phi = phi, x = tide.array.from { { 1, 2, 3 } } } end, "x")
T.raises(function() tide.couple.liu_distance { grid = g, phi = phi, x = tide.array.from { { 0 / 0, 0 } } } end, "non-finite")
os.exit(T.report())
