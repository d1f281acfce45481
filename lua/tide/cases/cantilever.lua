--- A cantilever beam under gravity in the linear regime: L = 1 m, square
-- section h = 0.1 m, E = 1e8 Pa, nu = 0, 1000 kg/m^3, clamped at x = 0, meshed
-- with 10n x n x 1 cells; static solution by one step of Zarifi's
-- corotational backward Euler with a large dt (inertia and damping vanish).
-- Euler-Bernoulli tip deflection: q L^4 / (8 E I), q = rho g h^2, I = h^4/12.
-- Shared by tests/solid/test_solid_cantilever.lua and figures/cantilever_convergence.lua.
--
--   local c = require "tide.cases.cantilever"
--   local r = c.solve(4)   -- r.tip [m] (mean over the free end), r.exact, r.error (relative),
--                          -- r.ne, r.pinned (clamped nodes), r.converged
local tide = require "tide"

local M = { L = 1.0, h = 0.1, E = 1e8, rho = 1000, g = 9.81 }
M.q = M.rho * M.g * M.h * M.h
M.I = M.h ^ 4 / 12
M.exact = M.q * M.L ^ 4 / (8 * M.E * M.I)

function M.solve(n)
  local S = tide.solid
  local L, h = M.L, M.h
  local m = S.box { min = { 0, 0, 0 }, max = { L, h, h }, cells = { 10 * n, n, 1 } }
  m:material { model = "linear", E = M.E, nu = 0, density = M.rho }
  local pinned = m:pin(function(x) return x < 1e-9 end)
  local st = m:step_linear { dt = 1e3 }
  local x, r, s, c = m.x, m.rest, 0, 0
  for i = 1, m.nv do
    if r:get(i, 1) > L - 1e-9 then
      s, c = s + r:get(i, 2) - x:get(i, 2), c + 1
    end
  end
  local tip = s / c
  return { tip = tip, exact = M.exact, error = math.abs(tip / M.exact - 1), ne = m.ne, nv = m.nv,
    pinned = pinned, converged = st.converged, mesh = m }
end

return M
