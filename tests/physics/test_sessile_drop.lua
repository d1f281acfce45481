-- A sessile drop (2D, tide.drop recipe: ghost-fluid jump with height-function
-- curvature, contact angle at the floor, variational viscosity, no gravity).
-- A half disk of radius R0 = 1 mm (32 cells per diameter) sits on the floor,
-- meeting it at 90 degrees; with a static contact angle theta it spreads (60)
-- or beads up (120) towards the circular cap of the same area:
--   A = R^2 (theta - sin theta cos theta),  height R (1 - cos theta),
--   half base R sin theta
-- (the equilibrium of Young-Laplace with the contact angle at the wall).
-- sigma = 0.07 N/m, rho = 1000, nu = 1e-4 m^2/s (Ohnesorge 0.38: the spreading
-- settles in a few capillary times sqrt(rho R0^3 / sigma) = 3.8 ms), run to
-- t = 0.03 s.  Asserts (docs/liquids-physics.md, "Walls and the contact
-- angle"): the height of the drop (the crossing of phi on the central
-- columns) within 2 cells of the cap's, the half base (the crossings on the
-- first row of cells) within 2 cells, the area kept to 0.1%, and that the
-- initial half disk was more than 2.5 cells away from the cap (so the test
-- measures the contact angle, not the initial shape).
local tide = require "tide"
local T = require "tide.testing"
local drop = require "tide.drop"

local sigma, rho, nu, R0, cpd, tend = 0.07, 1000, 1e-4, 1e-3, 32, 0.03
local dx = 2 * R0 / cpd

local function run(theta_deg)
  local th = math.rad(theta_deg)
  local A = math.pi * R0 * R0 / 2
  local R = math.sqrt(A / (th - math.sin(th) * math.cos(th)))
  local hcap, half = R * (1 - math.cos(th)), R * math.sin(th)
  local nx = 2 * math.ceil((math.max(half, R0) + 4 * dx) / dx)
  local ny = math.ceil((math.max(hcap, R0) + 6 * dx) / dx)
  local g = tide.grid.new { size = { nx, ny }, dx = dx }
  local xc = nx * dx / 2
  local phi = g:cells()
  for i = 1, nx do
    for j = 1, ny do
      local x, y = (i - 0.5) * dx - xc, (j - 0.5) * dx
      phi:set(i, j, math.sqrt(x * x + y * y) - R0)
    end
  end
  local S = drop.new { grid = g, phi = phi, sigma = sigma, rho = rho, nu = nu, contact_angle = theta_deg }
  local function height() -- the top crossing on the two columns beside x = xc
    local hs = 0
    for _, i in ipairs { nx // 2, nx // 2 + 1 } do
      local h = 0
      for j = 1, ny - 1 do
        local a, b = S.phi:get(i, j), S.phi:get(i, j + 1)
        if a < 0 and b >= 0 then h = (j - 0.5 + a / (a - b)) * dx end
      end
      hs = hs + h / 2
    end
    return hs
  end
  local function base() -- half the distance between the crossings of the first row
    local lo, hi
    for i = 1, nx - 1 do
      local a, b = S.phi:get(i, 1), S.phi:get(i + 1, 1)
      if a >= 0 and b < 0 then lo = (i - 0.5 + a / (a - b)) * dx end
      if a < 0 and b >= 0 then hi = (i - 0.5 + a / (a - b)) * dx end
    end
    return lo and hi and (hi - lo) / 2 or 0
  end
  local h0, v0 = height(), drop.volume(S)
  while S.t < tend - 1e-12 do drop.step(S, math.min(drop.max_dt(S), tend - S.t)) end
  local h, b, v = height(), base(), drop.volume(S)
  print(string.format("sessile drop, %g deg, %d cells per diameter, %d steps: height %.2f cells vs cap %.2f (%+.2f), half base %.2f vs %.2f (%+.2f), start %.2f; area change %.4f%%",
    theta_deg, cpd, S.steps, h / dx, hcap / dx, (h - hcap) / dx, b / dx, half / dx, (b - half) / dx, h0 / dx, 100 * (v / v0 - 1)))
  T.check(math.abs(h0 - hcap) > 2.5 * dx, string.format("%g deg: the half disk starts %.1f cells from the cap", theta_deg, math.abs(h0 - hcap) / dx))
  T.check(math.abs(h - hcap) < 2 * dx, string.format("%g deg: height within 2 cells of the circular cap", theta_deg))
  T.check(math.abs(b - half) < 2 * dx, string.format("%g deg: half base within 2 cells of the cap's", theta_deg))
  T.check(math.abs(v / v0 - 1) < 1e-3, string.format("%g deg: area kept", theta_deg))
end

run(60)
run(120)
os.exit(T.report())
