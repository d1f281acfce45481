-- Cantilever beam under gravity in the linear regime (tip deflection < 2% of
-- the length): the tip deflection approaches Euler-Bernoulli q L^4 / (8 E I)
-- as the mesh is refined (three resolutions), within 5% on the finest.
-- Static solution by one step of Zarifi's corotational backward Euler with a
-- large dt (the inertia and damping terms vanish).  nu = 0, so the 3D beam
-- (one element across its width) and the beam theory agree up to shear
-- deformation (about 1% at L/h = 10).
local tide = require "tide"
local T = require "tide.testing"
local S = tide.solid

local L, h, E, rho, g = 1.0, 0.1, 1e8, 1000, 9.81
local q = rho * g * h * h  -- weight per length [N/m]
local I = h ^ 4 / 12
local exact = q * L ^ 4 / (8 * E * I)
T.check(exact < 0.02 * L, "linear regime")

local errs = {}
for k, n in ipairs { 2, 4, 8 } do
  local m = S.box { min = { 0, 0, 0 }, max = { L, h, h }, cells = { 10 * n, n, 1 } }
  m:material { model = "linear", E = E, nu = 0, density = rho }
  T.check(m:pin(function(x) return x < 1e-9 end) == 2 * (n + 1), "clamped end")
  local st = m:step_linear { dt = 1e3 }
  T.check(st.converged, "solve")
  local x, r, s, c = m.x, m.rest, 0, 0
  for i = 1, m.nv do
    if r:get(i, 1) > L - 1e-9 then
      s, c = s + r:get(i, 2) - x:get(i, 2), c + 1
    end
  end
  local tip = s / c
  errs[k] = math.abs(tip / exact - 1)
  print(string.format("cells %3d x %2d x 1 (%5d tets): tip deflection %.5f m, Euler-Bernoulli %.5f m, error %.1f%%",
    10 * n, n, m.ne, tip, exact, 100 * errs[k]))
end
T.check(errs[2] < errs[1] and errs[3] < errs[2], "the error shrinks with refinement")
T.check(errs[3] <= 0.05, string.format("finest mesh within 5%% (%.2f%%)", 100 * errs[3]))

os.exit(T.report())
