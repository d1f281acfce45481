-- Implicit MPM (Newton on the incremental potential, MPM:step_implicit):
-- 1. A cantilever under gravity, L = 1 m, h = 0.1 m, E = 1e8 Pa, nu = 0,
--    1000 kg/m^3 (the beam of tide.cases.cantilever), 2D with 8 cells across
--    the thickness, clamped by a sticky collider; implicit steps of 0.1 s
--    (about half the first period: backward-Euler-like damping) settle it.
--    Its tip deflection against tide.solid's FEM answer for the same beam
--    (linear tetrahedra, 16 cells across, 15360 elements): within 5%.
-- 2. A stiff jelly dropped on a separating floor with steps 10x the explicit
--    limit: total energy (kinetic + elastic + potential) never grows.
local tide = require "tide"
local T = require "tide.testing"
local cant = require "tide.cases.cantilever"

local function mpm_cantilever(res, dt, steps)
  local h, L, E, rho = cant.h, cant.L, cant.E, cant.rho
  local dx = h / res
  local nx, ny = math.ceil((L + 0.2) / dx) + 4, math.ceil(0.3 / dx)
  local x0, y0 = 4 * dx, math.floor(ny / 2) * dx
  local g = tide.grid.new { size = { nx, ny }, dx = dx }
  local M = tide.mpm.new { grid = g, gravity = { 0, -cant.g }, walls = "separate" }
  local mat = M:material { model = "fixed_corotated", E = E, nu = 0, density = rho }
  M:seed { shape = tide.shape.box { min = { x0 - 2 * dx, y0 }, max = { x0 + L, y0 + h } }, material = mat,
    per_cell = 4, jitter = 0 }
  M:collider { shape = tide.shape.box { min = { -1, -1 }, max = { x0, 2 } }, bc = "sticky" }
  local x = M.x
  local tip, y0s = {}, {}
  for p = 1, M.n do
    if x[p][1] > x0 + L - dx then tip[#tip + 1] = p; y0s[#y0s + 1] = x[p][2] end
  end
  local all_conv, newton, cg = true, 0, 0
  for _ = 1, steps do
    local st = M:step_implicit(dt, { tol = 1e-7, maxit = 30, cg_maxit = 100000 })
    all_conv = all_conv and st.converged
    newton, cg = newton + st.newton, cg + st.cg
  end
  local s = 0
  for k, p in ipairs(tip) do s = s + y0s[k] - x[p][2] end
  return s / #tip, all_conv, newton / steps, cg / steps
end

local fem = cant.solve(16).tip
local tip, conv, newton, cg = mpm_cantilever(8, 0.1, 8)
local err = tip / fem - 1
print(string.format("cantilever tip: MPM %.5f m, FEM %.5f m (%+.2f%%), Euler-Bernoulli %.5f m; %.1f Newton, %.0f CG per step",
  tip, fem, 100 * err, cant.exact, newton, cg))
T.check(conv, "every implicit step converged")
T.check(math.abs(err) < 0.05, string.format("MPM cantilever within 5%% of the FEM answer (%+.2f%%)", 100 * err))

-- large steps: energy never grows
do
  local n = 32
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local M = tide.mpm.new { grid = g, gravity = { 0, -9.81 }, walls = "separate" }
  local E, rho = 1e6, 1000
  local j = M:material { model = "fixed_corotated", E = E, nu = 0.3, density = rho }
  M:seed { shape = tide.shape.box { min = { 0.3, 0.3 }, max = { 0.6, 0.55 } }, material = j, velocity = { 0.5, -1 } }
  local c = math.sqrt(E / rho * 1.35)
  local dt = 10 * 0.5 * M.dx / c
  local function total()
    local D = M:diagnostics()
    local x, m, pot = M.x, M.mass, 0
    for p = 1, M.n do pot = pot + m[p] * 9.81 * x[p][2] end
    return D.kinetic + D.elastic + pot
  end
  local E0, worst, conv2 = total(), -math.huge, true
  for _ = 1, 40 do
    local st = M:step_implicit(dt, { tol = 1e-6, maxit = 30, cg_maxit = 20000 })
    conv2 = conv2 and st.converged
    worst = math.max(worst, total() - E0)
  end
  print(string.format("jelly, dt = 10x the explicit limit: total energy rises by at most %.3g J of %.4g J", worst, E0))
  T.check(conv2, "large-step implicit solves converged")
  T.check(worst <= 1e-9 * E0, string.format("total energy never grows with large implicit steps (%.3g J)", worst))
end

-- API
local g = tide.grid.new { size = { 16, 16 }, dx = 1 / 16 }
local M = tide.mpm.new { grid = g }
T.check(not pcall(M.step_implicit, M, 0), "a zero step is refused")
T.check(not pcall(M.step_implicit, M, 1e-3, { tol = 2 }), "tol >= 0.5 is refused")
T.check(not pcall(M.step_implicit, M, 1e-3, { bogus = 1 }), "unknown options are refused")
os.exit(T.report())
