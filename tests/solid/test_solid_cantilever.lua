-- Cantilever beam under gravity in the linear regime (tip deflection < 2% of
-- the length): the tip deflection approaches Euler-Bernoulli q L^4 / (8 E I)
-- as the mesh is refined (three resolutions), within 5% on the finest.
-- Static solution by one step of Zarifi's corotational backward Euler with a
-- large dt (the inertia and damping terms vanish).  nu = 0, so the 3D beam
-- (one element across its width) and the beam theory agree up to shear
-- deformation (about 1% at L/h = 10).  The set-up: lua/tide/cases/cantilever.lua
-- (shared with figures/cantilever_convergence.lua).
local T = require "tide.testing"
local cantilever = require "tide.cases.cantilever"

T.check(cantilever.exact < 0.02 * cantilever.L, "linear regime")
local errs = {}
for k, n in ipairs { 2, 4, 8 } do
  local r = cantilever.solve(n)
  T.check(r.pinned == 2 * (n + 1), "clamped end")
  T.check(r.converged, "solve")
  errs[k] = r.error
  print(string.format("cells %3d x %2d x 1 (%5d tets): tip deflection %.5f m, Euler-Bernoulli %.5f m, error %.1f%%",
    10 * n, n, r.ne, r.tip, r.exact, 100 * errs[k]))
end
T.check(errs[2] < errs[1] and errs[3] < errs[2], "the error shrinks with refinement")
T.check(errs[3] <= 0.05, string.format("finest mesh within 5%% (%.2f%%)", 100 * errs[3]))

os.exit(T.report())
