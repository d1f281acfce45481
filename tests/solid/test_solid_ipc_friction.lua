-- Friction between solids (IPC's lagged friction on the point-triangle and
-- edge-edge pairs, Li et al. 2020 sec. 5; step_newton{dhat, mu}) and IPC's
-- adaptive barrier stiffness (kappa_adapt).
--   - a cloth square (4 x 4 cells) and an elastic cube (8 tets per cell, 2^3
--     cells) resting on a pinned cloth inclined at tan(theta) = 0.4, dt =
--     1/100 s, d_hat = 1 mm: mu = 0.2 slides with the acceleration
--     g (sin - mu cos) within 2% (centre of mass between 0.1 and 0.5 s);
--     mu = 0.6 sticks (creep below 1 mm in 0.5 s); no crossing (the exact
--     segment-triangle check), every node above the slope, every step
--     converged;
--   - check = true finds no violation in these runs, and names the
--     primitives for a start set up through another sheet; pinned nodes
--     driven through a sheet push it aside (test_solid_ipc_prescribed);
--   - a cube pressed onto a plane barrier with a kappa far too small: the
--     gap falls below 1e-9 of the bounding box while closing, kappa doubles
--     (stats.kappa_updates); the gap at rest grows with kappa as the
--     barrier's small-distance force 2 kappa dhat^4 / d predicts; with
--     kappa_adapt = false kappa stays;
--   - a cloth resting on a plane barrier with such a kappa (one Newton
--     iteration per step, the gap shrinking step after step): kappa
--     doubles across steps and the gap settles above 1e-9 of the
--     bounding box, steady; with kappa fixed it collapses below 1e-20 m;
--   - kept fixed far too small the step fails naming the node (plane
--     barrier) or the point-triangle pair (two solids) and the remedy.
local tide = require "tide"
local T = require "tide.testing"
local S, A = tide.solid, tide.array

local g, dt, dhat = 9.81, 1 / 100, 1e-3
local th = math.atan(0.4)
local sn, cs = math.sin(th), math.cos(th)

local function tilted(mesh, lift)
  local nodes = {}
  for i = 1, mesh.nv do
    local x, y = mesh.rest:get(i, 1), mesh.rest:get(i, 2) + lift
    nodes[i] = { cs * x - sn * y, sn * x + cs * y, mesh.rest:get(i, 3) }
  end
  return S.mesh { nodes = A.from(nodes), elements = mesh:elements() }
end

local function run(kind, mu)
  local ground = tilted(S.sheet { origin = { -0.45, 0, -0.1 }, u = { 0.6, 0, 0 }, v = { 0, 0, 0.3 }, cells = { 12, 6 } }, 0)
  ground:shell { E = 1e6, thickness = 1e-3, density = 1000 }
  ground:pin(function() return true end)
  local top
  if kind == "cloth" then
    top = tilted(S.sheet { origin = { 0, 0, 0 }, u = { 0.1, 0, 0 }, v = { 0, 0, 0.1 }, cells = { 4, 4 } }, 0.5 * dhat)
    top:shell { E = 1e6, nu = 0.3, thickness = 1e-3, density = 1000 }
  else
    top = tilted(S.box { min = { 0, 0, 0 }, max = { 0.1, 0.1, 0.1 }, cells = { 2, 2, 2 } }, 0.5 * dhat)
    top:material { model = "neohookean", E = 1e6, nu = 0.3, density = 1000 }
  end
  local m = S.merge { ground, top }
  local n0 = ground.nv
  -- the top body's centre of mass along the slope (the ground's nodes come first)
  local function com() return require("tide.cases.incline").com_along(m, th, n0 + 1) end
  local s0 = com()
  local v0, v1, its, maxit, conv, cross, below = nil, nil, 0, 0, 0, 0, 0
  for n = 1, 50 do
    local st = m:step_newton { dt = dt, dhat = dhat, mu = mu, maxit = 100, check = n % 10 == 0 }
    its, maxit = its + st.iterations, math.max(maxit, st.iterations)
    conv = conv + (st.converged and 1 or 0)
    cross = cross + m:intersections()
    for i = n0 + 1, m.nv do -- height above the slope's plane
      if -sn * m.x:get(i, 1) + cs * m.x:get(i, 2) <= 0 then below = below + 1 end
    end
    if n == 10 then _, v0 = com() end
    if n == 50 then _, v1 = com() end
  end
  return (v1 - v0) / 0.4, com() - s0, its / 50, maxit, conv, cross, below
end

for _, case in ipairs { { "cloth", 0.2 }, { "cloth", 0.6 }, { "cube", 0.2 } } do
  local kind, mu = case[1], case[2]
  local acc, disp, mean, maxit, conv, cross, below = run(kind, mu)
  local exact = g * (sn - mu * cs)
  local what = string.format("%s on a cloth, mu = %g", kind, mu)
  if exact > 0 then
    local err = acc / exact - 1
    print(string.format("%s: acceleration %.5f m/s^2, analytic %.5f (%+.3f%%), Newton iterations mean %.1f max %d, %d/50 converged, %d crossings",
      what, acc, exact, 100 * err, mean, maxit, conv, cross))
    T.check(math.abs(err) <= 0.02, string.format("%s: acceleration within 2%% (%+.3f%%)", what, 100 * err))
  else
    print(string.format("%s: creep %.2e m in 0.5 s, Newton iterations mean %.1f max %d, %d/50 converged, %d crossings",
      what, disp, mean, maxit, conv, cross))
    T.check(math.abs(disp) < 1e-3, string.format("%s: sticks (creep %.2e m)", what, disp))
  end
  T.check(conv == 50, what .. ": every step converged")
  T.check(cross == 0 and below == 0, what .. ": no crossing, every node above the slope")
end

-- adaptive kappa: a cube (2^3 cells) resting on a plane barrier with kappa
-- = 1e-3 (kappa_min is ~4e3 here)
local function press(adapt)
  local m = S.box { min = { 0, 5e-4, 0 }, max = { 0.1, 0.1005, 0.1 }, cells = { 2, 2, 2 } }
  m:material { model = "neohookean", E = 1e6, nu = 0.3, density = 1000 }
  local floor = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, 1, 0 } } }
  local ups, conv, st = 0, 0, nil
  for n = 1, 20 do
    st = m:step_newton { dt = dt, colliders = { floor }, contact = "barrier", dhat = dhat, kappa = 1e-3,
      kappa_adapt = adapt, maxit = 200 }
    ups = ups + st.kappa_updates
    conv = conv + (st.converged and 1 or 0)
  end
  return st.kappa, ups, st.min_distance, conv
end
local ka, ua, da, ca = press(true)
local kf, uf, df, cf = press(false)
local eps = 1e-9 * math.sqrt(0.1 ^ 2 * 3)
print(string.format("adaptive kappa: %d doublings to %.3g, gap at rest %.3e m; fixed kappa %.3g, gap %.3e m (threshold %.2e m); gap ratio %.4f vs kappa ratio %.4f",
  ua, ka, da, kf, df, eps, da / df, ka / kf))
T.check(ua >= 1 and ka > 1e-3 and ka <= 0.1 + 1e-12, "the adaptive update raised kappa")
T.check(math.abs(ka / 1e-3 - 2 ^ ua) < 1e-9 * ka / 1e-3, "each update doubles kappa")
T.check(uf == 0 and kf == 1e-3, "kappa_adapt = false keeps kappa")
T.check(df < eps and da > df, "the fixed kappa's gap is below the threshold, the adapted one wider")
T.check(math.abs((da / df) / (ka / kf) - 1) < 0.02, "the gap at rest grows with kappa (2 kappa dhat^4 / d = force)")
T.check(ca == 20 and cf == 20, "every step converged")
T.check(da > eps, "the adapted gap at rest is above the threshold (the history spans the steps)")

-- adaptive kappa in a resting contact: a cloth (6 x 6 cells, 0.2 m) lying
-- on a plane barrier with kappa = 1e-6 converges in one Newton iteration
-- per step while its gap shrinks about 5 times per step.  The update
-- compares the distance with the last iterate's across steps, so kappa
-- doubles step after step until the gap turns; the cloth settles at a
-- steady gap above the threshold eps = 1e-9 of the bounding box.  With
-- kappa fixed the gap collapses (below 1e-20 m in 20 steps).
do
  local function cloth(adapt, steps)
    local c = S.sheet { origin = { -0.1, 5e-4, -0.1 }, u = { 0.2, 0, 0 }, v = { 0, 0, 0.2 }, cells = { 6, 6 } }
    c:shell { E = 1e5, thickness = 1e-3, density = 300 }
    local floor = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, 1, 0 } } }
    local r = { conv = 0, ups = 0, low = math.huge, gaps = {}, k = {} }
    for n = 1, steps do
      local st = c:step_newton { dt = dt, colliders = { floor }, contact = "barrier", dhat = dhat, kappa = 1e-6,
        kappa_adapt = adapt, maxit = 200 }
      r.conv = r.conv + (st.converged and 1 or 0)
      r.ups = r.ups + st.kappa_updates
      r.gaps[n], r.k[n] = st.min_distance, st.kappa
      if n > steps // 2 then r.low = math.min(r.low, st.min_distance) end
    end
    return r
  end
  local a, f = cloth(true, 150), cloth(false, 20)
  local ceps = 1e-9 * math.sqrt(0.2 ^ 2 * 2 + 5e-4 ^ 2)
  local early = math.huge
  for n = 1, 150 do early = math.min(early, a.gaps[n]) end
  local drift = math.abs(a.gaps[150] / a.gaps[100] - 1)
  print(string.format("resting cloth: kappa 1e-6 -> %.4g (%d doublings), gap at rest %.4g m = %.1f eps (eps %.3g m, dhat %g m), smallest over the last 75 steps %.4g m, smallest while kappa rose %.3g m, drift over 50 steps %.2g; fixed kappa: gap %.3g m after 20 steps; converged %d/150, %d/20",
    a.k[150], a.ups, a.gaps[150], a.gaps[150] / ceps, ceps, dhat, a.low, early, drift, f.gaps[20], a.conv, f.conv))
  T.check(a.conv == 150 and f.conv == 20, "resting cloth: every step converged")
  T.check(a.ups >= 5 and a.k[150] == 1e-6 * 2 ^ a.ups, "resting cloth: kappa doubled across steps")
  T.check(a.low > ceps, "resting cloth: the gap at rest stays above eps = 1e-9 bbox")
  T.check(drift < 1e-6, "resting cloth: the gap is steady")
  T.check(f.gaps[20] < 1e-20, "resting cloth: with kappa fixed the gap collapses")

  -- kept fixed the gap shrinks on (about 5x per step) until the barrier's
  -- b'' ~ dhat^2 / d^4 overflows (d ~ 1e-80 m, step 100): the step fails
  -- there naming the node and the remedy (it used to die later on a NaN
  -- in the matrix assembly)
  local c = S.sheet { origin = { -0.1, 5e-4, -0.1 }, u = { 0.2, 0, 0 }, v = { 0, 0, 0.2 }, cells = { 6, 6 } }
  c:shell { E = 1e5, thickness = 1e-3, density = 300 }
  local floor = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, 1, 0 } } }
  local failed, msg, last = nil, nil, math.huge
  for n = 1, 150 do
    local ok, st = pcall(c.step_newton, c, { dt = dt, colliders = { floor }, contact = "barrier", dhat = dhat,
      kappa = 1e-6, kappa_adapt = false, maxit = 200 })
    if not ok then failed, msg = n, st break end
    last = st.min_distance
  end
  print(string.format("fixed kappa 1e-6: step %s fails (gap before %.3g m): %s", failed, last, msg))
  T.check(failed and failed > 20, "fixed kappa: the underflowing gap ends the run with an error")
  T.check(msg and msg:find("node %d+'s distance to a barrier collider underflowed")
    and msg:find("kappa_adapt = true or a larger kappa", 1, true), "fixed kappa: the error names the node and the remedy")
  T.check(last < 1e-60, "fixed kappa: the gap had collapsed")

  -- two solids with the adaptive kappa: a 6 x 6 sheet resting on a pinned larger sheet (one merged
  -- mesh, point-triangle pairs); the fixed-kappa failure between two solids is the next block
  -- with the adaptive kappa (from 1e-6) the sheets rest apart, every step converged: the gap
  -- dips while kappa rises (3e-16 m), then rests at 1.2e-8 m, above eps = 1e-9 bbox
  local lower2 = S.sheet { origin = { -0.15, 0, -0.15 }, u = { 0.3, 0, 0 }, v = { 0, 0, 0.3 }, cells = { 6, 6 } }
  local upper2 = S.sheet { origin = { -0.087, 5e-4, -0.093 }, u = { 0.2, 0, 0 }, v = { 0, 0, 0.2 }, cells = { 6, 6 } }
  for _, sh in ipairs { lower2, upper2 } do sh:shell { E = 1e5, thickness = 1e-3, density = 300 } end
  lower2:pin(function() return true end)
  local two2 = S.merge { lower2, upper2 }
  local aconv, alow, agap, ak = 0, math.huge, 0, 0
  for _ = 1, 60 do
    local st = two2:step_newton { dt = dt, dhat = dhat, kappa = 1e-6, maxit = 200 }
    aconv, alow, agap, ak = aconv + (st.converged and 1 or 0), math.min(alow, st.min_distance), st.min_distance, st.kappa
  end
  local beps = 1e-9 * math.sqrt(2 * 0.3 ^ 2 + 5e-4 ^ 2)
  print(string.format("two sheets, adaptive kappa: %d/60 steps converged, kappa %.3g, gap at rest %.3g m (eps %.3g m), smallest %.3g m",
    aconv, ak, agap, beps, alow))
  T.check(aconv == 60 and agap > beps and ak > 1e-6, "two solids, adaptive kappa: every step converged, kappa raised, the gap at rest above eps")
end

-- a 6 x 6 cloth 0.5 mm above a pinned 2 x 2 sheet (one merged mesh)
local function cloth_on_sheet()
  local lower = S.sheet { origin = { -0.2, 0, -0.2 }, u = { 0.4, 0, 0 }, v = { 0, 0, 0.4 }, cells = { 2, 2 } }
  lower:shell { E = 1e5, thickness = 1e-3 }
  lower:pin(function() return true end)
  local upper = S.sheet { origin = { -0.1, 5e-4, -0.1 }, u = { 0.2, 0, 0 }, v = { 0, 0, 0.2 }, cells = { 6, 6 } }
  upper:shell { E = 1e5, thickness = 1e-3, density = 300 }
  return S.merge { lower, upper }
end

-- the same between two solids (the self-contact pairs of a merged mesh): a
-- cloth dropped onto a pinned sheet with a fixed kappa far too small for
-- its weight (1e-200): the gap falls by ~30 decades per step until the
-- barrier's b'' overflows; the step fails naming the point-triangle pair and
-- the remedy, never a NaN in the assembly or the solution
do
  local m = cloth_on_sheet()
  local failed, msg, last = nil, nil, math.huge
  for n = 1, 10 do
    local ok, st = pcall(m.step_newton, m, { dt = dt, dhat = dhat, kappa = 1e-200, kappa_adapt = false, maxit = 30 })
    if not ok then failed, msg = n, tostring(st) break end
    last = st.min_distance
    T.check(last > 0 and last == last, "solid-solid fixed kappa: step " .. n .. " keeps a positive finite gap")
  end
  print(string.format("solid-solid fixed kappa 1e-200: step %s fails (gap before %.3g m): %s", failed, last, msg))
  T.check(failed ~= nil, "solid-solid fixed kappa: the collapsing gap ends the run with an error")
  T.check(msg and msg:find("contact distance of a point and a triangle %(nodes %d+ | %d+ %d+ %d+%)")
    and msg:find("not finite", 1, true) and msg:find("kappa_adapt = true or a larger kappa", 1, true)
    and not msg:lower():find("nan", 1, true), "solid-solid fixed kappa: the error names the pair and the remedy")
  T.check(last < 1e-30, "solid-solid fixed kappa: the gap had collapsed")
  for i = 1, m.nv do
    for k = 1, 3 do T.check(m.x:get(i, k) == m.x:get(i, k), "solid-solid fixed kappa: positions stay finite") end
  end
end

-- the same pair with kappa = 1e-6 fixed rests at a gap of 9.17e-12 m, the cloth's nodes moving
-- tangentially by far more per Newton step: the line search's CCD took ~l_p / d additive-CCD
-- iterations per pair (2e6 per step, 1.5 s); with the separating-plane step it is about one per
-- pair and bound. stats.ccd_iterations counts them, ccd_capped the searches cut at the cap.
do
  local m = cloth_on_sheet()
  local conv, gap, worst, capped, newton = 0, 0, 0, 0, 0
  for n = 1, 12 do
    local st = m:step_newton { dt = dt, dhat = dhat, kappa = 1e-6, kappa_adapt = false, maxit = 30 }
    conv, gap, capped = conv + (st.converged and 1 or 0), st.min_distance, capped + st.ccd_capped
    if n > 4 then worst, newton = math.max(worst, st.ccd_iterations / st.iterations), math.max(newton, st.iterations) end
  end
  print(string.format("two sheets, kappa 1e-6 fixed: %d/12 converged, gap %.3g m, at most %.0f CCD iterations per Newton iteration (steps 5-12, <= %d Newton iterations), %d capped",
    conv, gap, worst, newton, capped))
  T.check(conv == 12 and gap > 1e-12 and gap < 1e-10, "kappa 1e-6 fixed: every step converged, resting at a tiny gap")
  T.check(worst <= 2000 and capped == 0, "kappa 1e-6 fixed: the CCD bounds take about one iteration per pair (ACCD alone ~1e6), none capped")
end

-- check = true: the invariant is checked after the step and a violation
-- names the primitives: a sheet set up through another (a start the
-- distance check cannot see: no pair at distance 0); and pinned nodes
-- driven through a sheet move there inside the optimization, no violation
do
  local function pair(y1)
    local lower = S.sheet { origin = { 0, 0, 0 }, u = { 1, 0, 0 }, v = { 0, 0, 1 }, cells = { 2, 2 } }
    lower:shell { E = 1e5, thickness = 1e-3 }
    local upper = S.sheet { origin = { 0.31, 0.01, 0.17 }, u = { 0.4, y1, 0 }, v = { 0, 0, 0.4 }, cells = { 1, 1 } }
    upper:shell { E = 1e5, thickness = 1e-3 }
    upper:pin(function() return true end)
    return S.merge { lower, upper }, lower.nv
  end
  local m = pair(-0.04) -- tilted through the lower sheet from the start
  local ok, err = pcall(m.step_newton, m, { dt = dt, dhat = dhat, check = true })
  print("check: " .. tostring(err))
  T.check(not ok and tostring(err):find("invariant is violated") and tostring(err):find("through triangle"),
    "check = true: a violation is an error naming the primitives")
  local n0
  m, n0 = pair(0)
  for i = n0 + 1, m.nv do
    if m.x:get(i, 1) > 0.5 then m.target:set(i, 2, -0.03) end
  end
  -- (since the augmented Lagrangian, test_solid_ipc_prescribed: moved
  -- inside the optimization, pushing the sheet aside; no violation)
  ok, err = pcall(m.step_newton, m, { dt = dt, dhat = dhat, check = true })
  print("pinned: " .. tostring(ok and string.format("moved, %d rounds, error %g", err.prescribed_rounds, err.prescribed_error) or err))
  T.check(ok and err.converged and err.prescribed_error == 0, "pinned nodes driven through a sheet: moved there inside the optimization, no violation")
end

os.exit(T.report())
