-- The CHOLMOD path of tide.couple.liu_solve factors only the coupled unknowns
-- (the solid and the level-set cells in the stencils of the pairs within the
-- barrier's reach) and solves the decoupled level-set rows by a division.
-- Checked here: on a 2D drop pressing onto two free vertices and a fixed one
-- (pairs in contact, cells coupled to vertices and to each other), the solve
-- reaches the same phi and x as CG + IC(0) on the full system, to the
-- Krylov tolerance, in the same number of Newton iterations.
local tide = require "tide"
local T = require "tide.testing"
local drop = require "tide.drop"

local n, dx = 32, 1 / 32
local g = tide.grid.new { size = { n, n }, dx = dx }
local function solve(solver)
  local phi = drop.disk { grid = g, center = { 0.5, 0.5 }, radius = 0.2 }
  local phis = drop.disk { grid = g, center = { 0.5, 0.47 }, radius = 0.2 } -- moved down 0.03
  local tr = tide.grid.volume_tracker { grid = g, phi = phi }
  -- vertices 0.2 dx below the drop; x* pushes them 0.5 dx up into it
  local y0 = 0.3 - 0.2 * dx
  local X = tide.array.from { { 0.5, y0 }, { 0.5 + dx, y0 + 0.01 * dx }, { 0.5 - 2 * dx, y0 + 0.02 * dx } }
  local Xs = tide.array.from { { 0.5, y0 + 0.5 * dx }, { 0.5 + dx, y0 + 0.5 * dx }, { 0.5 - 2 * dx, y0 } }
  local F = tide.array.zeros({ 3 }, "u8")
  F:set(3, 1)
  local st = tide.couple.liu_solve { grid = g, phi = phi, phi_star = phis, x = X, x_star = Xs, mass = 1e-3,
    fixed = F, tracker = tr, dt = 0.01, solver = solver }
  return st, phi, X
end

local sc, pc, xc = solve("cholmod")
local sp, pp, xp = solve("pcg")
T.check(sc.converged and sp.converged, "both converged")
T.check(sc.pairs >= 2, string.format("pairs in contact: %d", sc.pairs))
T.check(sc.iterations == sp.iterations, string.format("Newton iterations %d (cholmod) and %d (pcg)", sc.iterations, sp.iterations))
local dphi = 0
for i = 1, n do
  for j = 1, n do dphi = math.max(dphi, math.abs(pc:get(i, j) - pp:get(i, j))) end
end
local dxv = 0
for v = 1, 3 do
  for a = 1, 2 do dxv = math.max(dxv, math.abs(xc:get(v, a) - xp:get(v, a))) end
end
T.check(dphi < 1e-7 * dx, string.format("phi: cholmod - pcg = %.3g dx", dphi / dx))
T.check(dxv < 1e-7 * dx, string.format("x: cholmod - pcg = %.3g dx", dxv / dx))
print(string.format("liu reduced: %d pairs, %d iterations, |dphi| %.2g dx, |dx| %.2g dx", sc.pairs, sc.iterations, dphi / dx, dxv / dx))
