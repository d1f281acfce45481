-- Spurious currents of a 3D drop at rest over a longer horizon with the defaults of tide.drop
-- (issue 13; docs/liquids-physics.md, "3D drop at rest"; about 21 s of one core): the sphere of
-- test_drop_rest in capillary units (rho = sigma = D = 1, inviscid, centre off the lattice) at
-- 16 cells per diameter in a box of 1.4 D (22^3), to t = 1.5 capillary times.  Measured:
-- max |u| sqrt(rho D/sigma) over the faces at every step.  Asserts bounded currents: the largest
-- over [0, 1.5] below 1e-3, the largest over [0.75, 1.5] at most 2x the largest over [0, 0.75]
-- (an exponential growth fails it; test_drop_rest checks the 3D inner pressure).  The
-- exponential growth of the 25-cells-per-diameter drop after t ~ 1.75 (x3 per 0.25) does not
-- show on this grid by t = 1.5 (nor at 20 cells per diameter by t = 3.25): a guard, not its
-- reproduction (scripts/drop3d_rest.lua measures that one).
local tide = require "tide"
local T = require "tide.testing"
local drop = require "tide.drop"

local sigma, rho, D, cpd, Tend = 1, 1, 1, 16, 1.5
local R, h = D / 2, D / cpd
local m = math.floor(1.4 * cpd + 0.5)
local g = tide.grid.new { size = { m, m, m }, dx = h }
local ctr = { m * h / 2 + 0.37 * h, m * h / 2 + 0.13 * h, m * h / 2 + 0.29 * h }
local S = drop.new { grid = g, phi = drop.sphere { grid = g, center = ctr, radius = R }, sigma = sigma, rho = rho }
-- the 3D default extension: constant ("linear_phi" pumps the grid-scale capillary waves at 25
-- cells per diameter: docs/liquids-physics.md, "What grows after t ~ 1.75")
T.check(S.extend == "constant", "3D, ghost jump, cell curvature: constant extension by default")
local scale = math.sqrt(rho * D / sigma)
local first, second, marks, mark = 0, 0, {}, 0.25
while S.t < Tend - 1e-9 do
  local dt = drop.max_dt(S)
  if S.t + 1.5 * dt > mark then dt = mark - S.t end
  drop.step(S, dt)
  local v = S.u:max_speed() * scale
  if S.t <= Tend / 2 + 1e-9 then first = math.max(first, v) else second = math.max(second, v) end
  if S.t > mark - 1e-9 then
    marks[#marks + 1] = string.format("%.2e", v)
    mark = mark + 0.25
  end
end
print(string.format("3D drop at rest, defaults, %d cells per diameter (%d^3), %d steps: max|u| sqrt(rho D/sigma) at t = 0.25, 0.5, ... %.2f: %s; "
  .. "largest over [0, %.2f] %.2e, over [%.2f, %.2f] %.2e",
  cpd, m, S.steps, Tend, table.concat(marks, " "), Tend / 2, first, Tend / 2, Tend, second))
T.check(math.max(first, second) < 1e-3, "3D: spurious currents below 1e-3 up to t = 1.5")
T.check(second <= 2 * first, "3D: bounded (the second half's largest within 2x of the first half's)")
os.exit(T.report())
