-- Shells and rods (modules/solid/thin.h) in step_newton, each check against
-- an analytic answer:
--  * a cantilevered rod and a cantilevered shell strip under a small tip
--    load P: tip deflection against Euler-Bernoulli P L^3 / (3 EI), three or
--    four resolutions, the error shrinking and within 3% on the finest (the
--    clamp is two pinned node columns, an O(h) error);
--  * a membrane patch under uniaxial stretch (nu = 0): the stretch against
--    the analytic StVK and neo-Hookean plane-stress stress, homogeneous;
--  * a curved strip (rest curvature from the bulge), a curved rod and a web
--    with junctions, deformed and released: the static solution is the rest
--    shape;
--  * free fall of a shell: backward Euler positions exactly;
--  * tets, a shell and a rod merged into one mesh: one Newton solve, masses
--    kept, the shell and rod fall at g while hanging from the pinned block.
-- Static solutions: one step_newton with a large dt from the start positions
-- (guess = "start"), where the inertia term vanishes.
local T = require "tide.testing"
local S = require("tide").solid

local function static(m, tol)
  local st = m:step_newton { dt = 1e3, tol = tol or 1e-9, maxit = 200, guess = "start" }
  return st
end

-- ------------------------------------------------------- cantilevered rod
local L, E, r = 1.0, 1e7, 5e-3
local EI = E * math.pi * r ^ 4 / 4
local P = 3 * EI * 0.005 / L ^ 3 -- tip deflection 0.5% of L
local exact = P * L ^ 3 / (3 * EI)
local errs = {}
for k, n in ipairs { 10, 20, 40, 80 } do
  local m = S.rod { from = { 0, 0, 0 }, to = { L, 0, 0 }, segments = n }
  m:rod { E = E, radius = r, gravity = { 0, 0, 0 } }
  T.check(m:bends().shape[1] == n - 1, "a straight rod has n-1 bends")
  T.check(m:pin(function(x) return x < 1.01 * L / n end) == 2, "clamp: two nodes")
  m.force:set(n + 1, 2, -P)
  local st = static(m)
  T.check(st.converged, "rod cantilever converged")
  local tip = -m.x:get(n + 1, 2)
  errs[k] = (tip - exact) / exact
  print(string.format("rod %3d segments: tip %.6e m, Euler-Bernoulli %.6e m, error %+.2f%%", n, tip, exact,
    100 * errs[k]))
end
for k = 2, #errs do T.check(math.abs(errs[k]) < math.abs(errs[k - 1]), "rod error shrinks") end
T.check(math.abs(errs[#errs]) <= 0.03, string.format("rod within 3%% (%.2f%%)", 100 * errs[#errs]))

-- ------------------------------------------------- cantilevered shell strip
-- width b, nu = 0 so the beam stiffness is D b with D = E h^3 / 12; the
-- right-triangle grid with cells 4x longer than wide, StVK (see docs/shells.md on
-- the hinge model's mesh dependence)
local strip = require "tide.cases.shell_strip"
local b, h, Ps = strip.b, strip.h, strip.P
assert(strip.L == L and strip.E == E)
local function strip_tip(n, nb, bm, diag)
  local err, st = strip.solve(strip.sheet(n, nb, diag), n, bm)
  T.check(st.converged, "strip (" .. (bm or "default") .. ") converged")
  return err
end
local serr = {}
for k, n in ipairs { 20, 40, 80 } do
  serr[k] = strip_tip(n, n // 5)
  print(string.format("shell strip %3d x %2d cells: Euler-Bernoulli %.6e m, error %+.2f%%", n, n // 5, strip.exact,
    100 * serr[k]))
end
for k = 2, #serr do T.check(math.abs(serr[k]) < math.abs(serr[k - 1]), "strip error shrinks") end
T.check(math.abs(serr[#serr]) <= 0.03, string.format("strip within 3%% (%.2f%%)", 100 * serr[#serr]))

-- the shape-operator bending (bending_model = "triangle") on the "same"
-- diagonal grid: cells 4:1 and square give the same deflections (mesh
-- independent; the hinges on square cells are 14-22% too soft), within 3%
-- on the finest, the error the two-column clamp's alone (the rod's)
do
  local sq, long = {}, {}
  for k, n in ipairs { 20, 40, 80 } do
    sq[k] = strip_tip(n, n // 20, "triangle", "same")
    if n < 80 then long[k] = strip_tip(n, n // 5, "triangle", "same") end
    local hinge = strip_tip(n, n // 20, "hinge", "same")
    print(string.format("strip %2d cells long, triangle bending: square cells %+.2f%%, 4:1 cells %s; hinges on square cells %+.2f%%",
      n, 100 * sq[k], long[k] and string.format("%+.2f%%", 100 * long[k]) or "-", 100 * hinge))
    if long[k] then T.check(math.abs(sq[k] - long[k]) < 1e-3, "triangle bending: square and 4:1 cells agree") end
    if k == 3 then T.check(hinge > 0.1, "hinges on square cells are too soft (the check can fail)") end
  end
  for k = 2, #sq do T.check(math.abs(sq[k]) < math.abs(sq[k - 1]), "triangle bending: error shrinks") end
  T.check(math.abs(sq[#sq]) <= 0.03, string.format("triangle bending, square cells within 3%% (%.2f%%)", 100 * sq[#sq]))
end

-- ---------------------------------------------------- uniaxial membrane
-- unit square patch, left edge pinned, total force F on the right edge; nu =
-- 0 makes the pinned edge compatible with the homogeneous state x = (s X, Y)
for _, model in ipairs { "stvk", "neohookean" } do
  local s = 1.2
  local Pxx = model == "stvk" and E * s * (s * s - 1) / 2 or (E / 2) * (s - 1 / s)
  local F = Pxx * 1.0 * h
  local m = S.sheet { origin = { 0, 0, 0 }, u = { 1, 0, 0 }, v = { 0, 1, 0 }, cells = { 6, 6 } }
  m:shell { model = model, E = E, nu = 0, thickness = h, gravity = { 0, 0, 0 }, bending = 0 }
  m:pin(function(x) return x < 1e-9 end)
  local right = {}
  for i = 1, m.nv do if m.x:get(i, 1) > 1 - 1e-9 then right[#right + 1] = i end end
  for _, i in ipairs(right) do
    local y = m.x:get(i, 2)
    m.force:set(i, 1, F * ((y < 1e-9 or y > 1 - 1e-9) and 0.5 or 1) / (#right - 1))
  end
  local st = static(m, 1e-12)
  local worst = 0
  for i = 1, m.nv do
    local X, Y = m.rest:get(i, 1), m.rest:get(i, 2)
    worst = math.max(worst, math.abs(m.x:get(i, 1) - s * X), math.abs(m.x:get(i, 2) - Y), math.abs(m.x:get(i, 3)))
  end
  print(string.format("uniaxial %s: stretch error %.2e (s = %.2f, P = %.4g Pa)", model, worst, s, Pxx))
  T.check(st.converged and worst < 1e-8, model .. " uniaxial stretch matches the analytic stress")
end

-- ------------------------------------------------ rest shapes are restored
local function restores(m, what)
  local amp = 0
  for i = 1, m.nv do
    if m.pinned:get(i) == 0 then
      for k = 1, m.dim do
        local d = 0.02 * math.sin(7 * i + 3 * k)
        m.x:set(i, k, m.x:get(i, k) + d)
        amp = math.max(amp, math.abs(d))
      end
    end
  end
  local st = static(m, 1e-10)
  local worst = 0
  for i = 1, m.nv do for k = 1, m.dim do worst = math.max(worst, math.abs(m.x:get(i, k) - m.rest:get(i, k))) end end
  print(string.format("%s: perturbed by %.3f m, back to rest within %.2e m", what, amp, worst))
  T.check(st.converged and worst < 1e-6, what .. " returns to its rest shape")
end
local curved = S.sheet { origin = { 0, 0, 0 }, u = { 0.4, 0, 0 }, v = { 0, 0, 0.1 }, cells = { 16, 4 }, bulge = { 0.05, 0 } }
curved:shell { E = 1e6, nu = 0.3, thickness = 2e-3, gravity = { 0, 0, 0 } }
curved:pin(function(x) return x < 0.03 end)
restores(curved, "curved strip")
local arcpts = {}
for i = 0, 20 do arcpts[#arcpts + 1] = { 0.3 * math.sin(i / 10), 0.3 * (1 - math.cos(i / 10)) } end
local arc = S.polyline { points = arcpts }
arc:rod { E = 1e7, radius = 3e-3, gravity = { 0, 0 } }
arc:pin { 1, 2 }
restores(arc, "2D arc rod")
-- a 3D helix with geometric torsion (twist = GJ) has a unique rest shape up
-- to rigid motion: three pinned nodes fix it
local helix = S.helix { radius = 0.1, pitch = 0.05, turns = 1.5, per_turn = 16 }
local GJ = 1e7 / 2.6 * math.pi * (3e-3) ^ 4 / 2
helix:rod { E = 1e7, radius = 3e-3, twist = GJ, gravity = { 0, 0, 0 } }
helix:pin { 1, 2, 3 }
restores(helix, "3D helix with twist")
-- a 2D network with a junction: a curved arm crossing a straight one (3D
-- rods with rest curvature have free torsion, no unique rest shape: see
-- docs/shells.md)
local A = require("tide").array
local pts, segs = {}, {}
for i = -5, 5 do pts[#pts + 1] = { 0.05 * i, 0.1 * (0.05 * i) ^ 2 } end        -- nodes 1..11, junction 6
for _, i in ipairs { -5, -4, -3, -2, -1, 1, 2, 3, 4, 5 } do pts[#pts + 1] = { 0, 0.05 * i } end -- 12..21
for i = 1, 10 do segs[#segs + 1] = { i, i + 1 } end
local vert = { 12, 13, 14, 15, 16, 6, 17, 18, 19, 20, 21 }
for i = 1, 10 do segs[#segs + 1] = { vert[i], vert[i + 1] } end
local net = S.mesh { nodes = A.from(pts), elements = A.from(segs) }
net:rod { E = 1e7, radius = 2e-3, gravity = { 0, 0 } }
T.check(net:bends().shape[1] == 18, "junction: 9 + 9 bends, the two lines paired through it")
net:pin { 1, 2, 12, 13 }
restores(net, "2D network with a junction")

-- ------------------------------------------------------- plastic bending
-- a clamped strip bent by a large tip load (static), then unloaded: with
-- bend_yield the hinges that bent more than the yield angle keep
-- theta_loaded - yield as their rest angle, and the unloaded strip is
-- stress-free at exactly those angles; without it, it returns flat
local function dihedral(x, h)
  local function P(k) return { x:get(h[k], 1), x:get(h[k], 2), x:get(h[k], 3) } end
  local p0, p1, p2, p3 = P(1), P(2), P(3), P(4)
  local function sub(a, b) return { a[1] - b[1], a[2] - b[2], a[3] - b[3] } end
  local function cross(a, b) return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] } end
  local function dot(a, b) return a[1] * b[1] + a[2] * b[2] + a[3] * b[3] end
  local e = sub(p1, p0)
  local nA, nB = cross(e, sub(p2, p0)), cross(sub(p3, p0), e)
  return math.atan(dot(cross(nA, nB), e) / math.sqrt(dot(e, e)), dot(nA, nB))
end
for _, yield in ipairs { 0, 0.01 } do
  local n = 20
  local m = S.sheet { origin = { 0, 0, 0 }, u = { L, 0, 0 }, v = { 0, 0, b }, cells = { n, 4 } }
  m:shell { model = "stvk", E = E, nu = 0, thickness = h, gravity = { 0, 0, 0 }, bend_yield = yield }
  m:pin(function(x) return x < 1.01 * L / n end)
  local tipn = {}
  for i = 1, m.nv do if m.x:get(i, 1) > L - 1e-9 then tipn[#tipn + 1] = i end end
  for _, i in ipairs(tipn) do m.force:set(i, 2, -40 * Ps / #tipn) end -- 20% of L deflection elastically
  local st = static(m, 1e-11)
  local hinges = m:hinges()
  local loaded = {}
  for k = 1, hinges.shape[1] do
    loaded[k] = dihedral(m.x, { hinges:get(k, 1), hinges:get(k, 2), hinges:get(k, 3), hinges:get(k, 4) })
  end
  m.force:fill(0)
  local st2 = static(m, 1e-11)
  local worst, yielded = 0, 0
  for k = 1, hinges.shape[1] do
    local th = dihedral(m.x, { hinges:get(k, 1), hinges:get(k, 2), hinges:get(k, 3), hinges:get(k, 4) })
    local want = 0
    if math.abs(loaded[k]) > yield and yield > 0 then
      want = loaded[k] - (loaded[k] > 0 and yield or -yield)
      yielded = yielded + 1
    end
    worst = math.max(worst, math.abs(th - want))
  end
  local tip = 0
  for _, i in ipairs(tipn) do tip = tip - m.x:get(i, 2) / #tipn end
  print(string.format("plastic bending, yield %.3f rad: %d hinges yielded, unloaded angles vs theta_loaded - yield: %.2e rad, residual tip deflection %.4f m",
    yield, yielded, worst, tip))
  T.check(st.converged and st2.converged, "plastic bending solves converged")
  T.check(worst < 1e-4, "unloaded hinge angles are the plastic rest angles (1% of the yield)")
  if yield > 0 then T.check(yielded > 0 and tip > 0.05, "a permanent bend remains") else T.check(math.abs(tip) < 1e-4, "elastic: back to flat") end
end

-- ------------------------------------------------------------ free fall
do
  local m = S.disc { radius = 0.2, rings = 3 }
  m:shell { E = 1e5, thickness = 1e-3 }
  local dt, n, y0 = 0.01, 10, m.x:get(1, 2)
  for _ = 1, n do T.check(m:step_newton { dt = dt }.converged, "free fall step") end
  local want = y0 - 9.81 * dt * dt * n * (n + 1) / 2 -- backward Euler
  T.check(math.abs(m.x:get(1, 2) - want) < 1e-9, string.format("free fall %.12f vs %.12f", m.x:get(1, 2), want))
end

-- ---------------------------------------------- tets + shell + rod merged
do
  local box = S.box { min = { 0, 0, 0 }, max = { 0.2, 0.1, 0.1 }, cells = { 2, 1, 1 } }
  box:material { E = 1e6, density = 500 }
  box:pin(function() return true end)
  local cloth = S.sheet { origin = { 0, -0.01, 0 }, u = { 0.2, 0, 0 }, v = { 0, 0, 0.1 }, cells = { 4, 2 } }
  cloth:shell { E = 1e5, thickness = 1e-3 }
  local rod = S.rod { from = { 0.3, 0, 0 }, to = { 0.5, 0, 0 }, segments = 4 }
  rod:rod { E = 1e7, radius = 1e-3 }
  local msum = box.mass:sum() + cloth.mass:sum() + rod.mass:sum()
  local all = S.merge { box, cloth, rod }
  T.check(all.nv == box.nv + cloth.nv + rod.nv and math.abs(all.mass:sum() - msum) < 1e-15 * msum,
    "merged nodes and masses")
  T.check(all:hinges().shape[1] == cloth:hinges().shape[1] and all:bends().shape[1] == rod:bends().shape[1],
    "merged stencils")
  local st = all:step_newton { dt = 0.01 }
  T.check(st.converged, "merged step converged")
  -- the free shell and rod fall by g dt^2 in the first step, the block stays
  T.check(math.abs(all.x:get(1, 2) - 0) < 1e-15, "pinned block stays")
  local c0 = box.nv + 1
  T.check(math.abs(all.x:get(c0, 2) - (-0.01 - 9.81e-4)) < 1e-9, "shell falls at g")
  T.check(math.abs(all.x:get(all.nv, 2) - (-9.81e-4)) < 1e-9, "rod falls at g")
end

os.exit(T.report())
