-- Euler buckling of a cantilevered rod and a cantilevered shell strip
-- (modules/solid/thin.h) against P_cr = pi^2 EI / (4 L^2).
--
-- Method (Southwell 1932): the column is built with a small imperfection in
-- the shape of the first buckling mode, w0(x) = a (1 - cos(pi x / (2 L))),
-- a = 1e-3 L, as its rest shape; under an axial tip load P the linear theory
-- amplifies it exactly to w = w0 / (1 - P / P_cr), so the extra tip
-- deflection d satisfies d / P = d / P_cr + a / P_cr: the slope of d / P
-- against d over several loads is 1 / P_cr, with no assumption on EI.  Each
-- load is a static solve (step_newton with a large dt from the current
-- shape) with project = false: below P_cr the true Hessian is positive
-- definite, so Newton converges quadratically (the projected Hessians drop
-- the compressive geometric stiffness and crawl near P_cr).  The clamp is
-- two pinned node columns (an O(h) error, as in the cantilever test).
-- tol = 1e-10 with dt = 1e3 stops at Newton steps below 1e-7 m (tip
-- deflections here are ~1e-3 m).  At 1e-11 (1e-8 m) the 80 x 4 triangle-
-- bending strip at 0.4 P_cr stalls on some CPUs: from a step of 1.2e-8 m on,
-- every full Newton step returns the same step (AMD EPYC, -march=native;
-- it passed on the Intel machines before), then the line search finds no
-- decrease below the energy's rounding (|dE| ~ 1e-17 of 2.5e-6 J).  Since
-- step_newton then takes the full step when it lowers the gradient's norm
-- (docs/shells.md, static solves), that strip converges at 1e-11 too
-- (checked at the end).
local T = require "tide.testing"
local S = require("tide").solid

local L, E = 1.0, 1e7
local a = 1e-3 * L
local function w0(x) return a * (1 - math.cos(math.pi * x / (2 * L))) end
local loads = { 0.2, 0.4, 0.6, 0.8 }
local solve_tol = 1e-10

-- the Southwell slope of the measured (P, d) pairs; loads applied by
-- set_load(P), tip deflection by tip(); every solve must converge
local function southwell(m, set_load, tip, Pcr)
  local sx, sy, sxx, sxy, k = 0, 0, 0, 0, 0
  for _, f in ipairs(loads) do
    local P = f * Pcr
    set_load(P)
    local st = m:step_newton { dt = 1e3, tol = solve_tol, maxit = 60, guess = "start", project = false }
    T.check(st.converged, string.format("static solve at %.1f P_cr converged (%d iterations)", f, st.iterations))
    local d = tip()
    T.check(d > 0, "the imperfection grows in its own direction")
    k, sx, sy, sxx, sxy = k + 1, sx + d, sy + d / P, sxx + d * d, sxy + d * d / P
  end
  return (k * sxx - sx * sx) / (k * sxy - sx * sy)
end

-- ------------------------------------------------------------------ rod
do
  local r = 5e-3
  local EI = E * math.pi * r ^ 4 / 4
  local Pcr = math.pi ^ 2 * EI / (4 * L * L)
  local errs = {}
  for k, n in ipairs { 10, 20, 40, 80 } do
    local pts = {}
    for i = 0, n do pts[#pts + 1] = { L * i / n, w0(L * i / n) } end
    local m = S.polyline { points = pts }
    m:rod { E = E, radius = r, gravity = { 0, 0 } }
    m:pin { 1, 2 }
    local P = southwell(m, function(P) m.force:set(n + 1, 1, -P) end,
      function() return m.x:get(n + 1, 2) - m.rest:get(n + 1, 2) end, Pcr)
    errs[k] = P / Pcr - 1
    print(string.format("rod %2d segments: P_cr %.5e N, Euler %.5e N, error %+.2f%%", n, P, Pcr, 100 * errs[k]))
  end
  for k = 2, #errs do T.check(math.abs(errs[k]) < math.abs(errs[k - 1]), "rod buckling error shrinks") end
  T.check(math.abs(errs[#errs]) <= 0.02, string.format("rod buckling load within 2%% (%.2f%%)", 100 * errs[#errs]))
end

-- ----------------------------------------------------------- shell strip
-- width b, nu = 0: a beam of stiffness D b, D = E h^3 / 12; the sheet is the
-- generator's grid with the imperfection lifted out of plane (S.mesh), the
-- compressive load spread over the tip edge as consistent nodal loads
local b, h = 0.05, 1e-3
local D = E * h ^ 3 / 12
local Pcr = math.pi ^ 2 * D * b / (4 * L * L)
local function strip(n, nb, bm, diag)
  local g = S.sheet { origin = { 0, 0, 0 }, u = { L, 0, 0 }, v = { 0, 0, b }, cells = { n, nb }, diagonals = diag }
  local X = g.x:clone()
  for i = 1, g.nv do X:set(i, 2, w0(X:get(i, 1))) end
  local m = S.mesh { nodes = X, elements = g:elements() }
  m:shell { model = "stvk", E = E, nu = 0, thickness = h, gravity = { 0, 0, 0 }, bending_model = bm }
  m:pin(function(x) return x < 1.01 * L / n end)
  local tipn = {}
  for i = 1, m.nv do if m.x:get(i, 1) > L - 1e-9 then tipn[#tipn + 1] = i end end
  local function set_load(P)
    for _, i in ipairs(tipn) do
      local z = m.x:get(i, 3)
      m.force:set(i, 1, -P * ((z < 1e-9 or z > b - 1e-9) and 0.5 or 1) / (#tipn - 1))
    end
  end
  local function tip()
    local d = 0
    for _, i in ipairs(tipn) do d = d + (m.x:get(i, 2) - m.rest:get(i, 2)) / #tipn end
    return d
  end
  return southwell(m, set_load, tip, Pcr)
end
-- cells 4x longer than wide (the hinge model's mesh dependence, docs/shells.md)
local serr = {}
for k, n in ipairs { 20, 40, 80 } do
  local P = strip(n, n // 5)
  serr[k] = P / Pcr - 1
  print(string.format("strip %2d x %2d cells (4:1): P_cr %.5e N, Euler %.5e N, error %+.2f%%", n, n // 5, P, Pcr,
    100 * serr[k]))
end
for k = 2, #serr do T.check(math.abs(serr[k]) < math.abs(serr[k - 1]), "strip buckling error shrinks") end
T.check(math.abs(serr[#serr]) <= 0.03, string.format("strip buckling load within 3%% (%.2f%%)", 100 * serr[#serr]))
-- square cells: the shape-operator bending ("triangle" on the "same" grid)
-- buckles as the 4:1 cells do (the hinges: -17%, docs/shells.md)
local terr = {}
for k, n in ipairs { 20, 40, 80 } do
  terr[k] = strip(n, n // 20, "triangle", "same") / Pcr - 1
  print(string.format("strip %2d x %d cells (square), triangle bending: P_cr error %+.2f%%", n, n // 20, 100 * terr[k]))
end
for k = 2, #terr do T.check(math.abs(terr[k]) < math.abs(terr[k - 1]), "triangle bending: buckling error shrinks") end
T.check(math.abs(terr[#terr]) <= 0.03, string.format("triangle bending: square-cell buckling load within 3%% (%.2f%%)",
  100 * terr[#terr]))
-- Morley bending on the default alternating grid, square cells (where the
-- triangle fit is 35-45% too soft): the same buckling loads
local merr = {}
for k, n in ipairs { 20, 40, 80 } do
  merr[k] = strip(n, n // 20, "morley", "alternate") / Pcr - 1
  print(string.format("strip %2d x %d cells (square, alternating), Morley bending: P_cr error %+.2f%%", n, n // 20,
    100 * merr[k]))
  T.check(math.abs(merr[k] - terr[k]) < 2e-3, "Morley on the alternating grid buckles as the triangle model on \"same\"")
end
for k = 2, #merr do T.check(math.abs(merr[k]) < math.abs(merr[k - 1]), "Morley: buckling error shrinks") end
T.check(math.abs(merr[#merr]) <= 0.03, string.format("Morley: buckling load within 3%% (%.2f%%)", 100 * merr[#merr]))
-- below the rounding floor of the line search: every solve converges
solve_tol = 1e-11
local t11 = strip(80, 4, "triangle", "same") / Pcr - 1
print(string.format("strip 80 x 4 cells (square), triangle bending, tol 1e-11: P_cr error %+.2f%%", 100 * t11))
T.check(math.abs(t11 - terr[3]) < 1e-3, "tol 1e-11: the same buckling load")

os.exit(T.report())
