-- Rod-on-rod contact (IPC, modules/solid/ipc.h) in step_newton, the cases the
-- edge-edge mollifier alone misses: a free rod dropped at 1 m/s onto a pinned
-- rod exactly parallel to it 3 mm below (nodes above nodes, and nodes above
-- the other rod's segment middles), and the same crossing it at 0.5 deg and
-- 90 deg.  The mollified edge-edge barrier is 0 for exactly parallel edges;
-- the point-edge pairs of the rods' nodes against the other rod's segments
-- (Codimensional IPC) hold it.  Every step converges, the run-time invariant
-- check (check = true: no pair touching, no segment through a triangle)
-- passes, the rods end in contact (closest distance within dhat) and apart
-- (> 0); the parallel rod lies on the pinned one (no node below it), the
-- crossing rods drape over it (the free rod's middle node, above the
-- crossing, stays above it).  Before the point-edge pairs the exactly
-- parallel drop ran into the iteration limit every step, the rods 1e-25 m
-- apart.
-- In 2D (IPC's point-edge pairs, every segment codimensional): a rod dropped
-- at 1 m/s onto a pinned parallel rod 3 mm below, and a hairpin (one
-- polyline: a pinned lower arm, a half circle of radius 3 mm, a free upper
-- arm thrown down at 1 m/s onto the lower one, self-contact): the same
-- checks; without dhat the upper arm passes through.  Friction in 2D: a
-- short rod sliding at 0.5 m/s on a pinned one, mu = 0.5, decelerates at
-- mu g (within 3%) and stops.
local T = require "tide.testing"
local S = require("tide").solid

local function drop(angle, shift, label, maxit_allowed)
  local L, n, dhat = 0.5, 10, 1e-3
  local a = S.rod { from = { -L / 2, 0, 0 }, to = { L / 2, 0, 0 }, segments = n }
  local c, s = math.cos(angle), math.sin(angle)
  local b = S.rod { from = { -L / 2 * c + shift, 0.003, L / 2 * s }, to = { L / 2 * c + shift, 0.003, -L / 2 * s },
    segments = n }
  for _, r in ipairs { a, b } do r:rod { E = 1e7, radius = 5e-4 } end
  a:pin(function() return true end)
  local m = S.merge { a, b }
  for i = a.nv + 1, m.nv do m.v:set(i, 2, -1) end
  local steps, conv, maxit, ylow, dmin = 16, 0, 0, math.huge, math.huge
  local mid = a.nv + n // 2 + 1 -- the free rod's middle node
  for _ = 1, steps do
    local st = m:step_newton { dt = 1 / 200, dhat = dhat, maxit = 150, check = true }
    conv = conv + (st.converged and 1 or 0)
    maxit = math.max(maxit, st.iterations)
    dmin = math.min(dmin, st.min_distance)
    if angle == 0 then
      for i = a.nv + 1, m.nv do ylow = math.min(ylow, m.x:get(i, 2)) end
    else
      ylow = math.min(ylow, m.x:get(mid, 2))
    end
  end
  local st = m:step_newton { dt = 1 / 200, dhat = dhat, maxit = 150, check = true }
  print(string.format("%s: %d/%d steps converged, at most %d iterations, closest %.3e m (last %.3e m), "
    .. "lowest %s y = %.3e m", label, conv, steps, maxit, dmin, st.min_distance,
    angle == 0 and "node of the free rod" or "middle node", ylow))
  T.check(conv == steps, label .. ": every step converged")
  T.check(dmin > 0 and ylow > 0, label .. ": the rods stay apart, the free rod on top")
  T.check(st.min_distance < dhat, label .. ": the free rod rests on the pinned one (within dhat)")
  T.check(maxit <= maxit_allowed, label .. ": at most " .. maxit_allowed .. " Newton iterations per step")
end

-- the nearly parallel crossing's impact step converges slowly (the
-- mollified edge-edge term, the crossing point sliding fast as the angle
-- changes): ~70 iterations, then 12 and fewer
drop(0, 0, "exactly parallel, nodes over nodes", 40)
drop(0, 0.025, "exactly parallel, nodes over segment middles", 40)
drop(math.rad(0.5), 0.0125, "crossing at 0.5 deg", 100)
drop(math.rad(90), 0.0125, "crossing at 90 deg", 40)

-- ------------------------------------------------------------------ 2D
local function run2d(m, label, free, above)
  local steps, conv, maxit, low, dmin = 16, 0, 0, math.huge, math.huge
  for _ = 1, steps do
    local st = m:step_newton { dt = 1 / 200, dhat = 1e-3, maxit = 100, check = true }
    conv = conv + (st.converged and 1 or 0)
    maxit = math.max(maxit, st.iterations)
    dmin = math.min(dmin, st.min_distance)
    for i = 1, m.nv do if free(i) then low = math.min(low, m.x:get(i, 2) - above(i)) end end
  end
  print(string.format("2D %s: %d/%d steps converged, at most %d iterations, closest %.3e m, free part at least %.3e m "
    .. "above the pinned one", label, conv, steps, maxit, dmin, low))
  T.check(conv == steps, "2D " .. label .. ": every step converged")
  T.check(dmin > 0 and dmin < 1e-3 and low > 0, "2D " .. label .. ": in contact, apart, on top")
  T.check(maxit <= 40, "2D " .. label .. ": at most 40 Newton iterations per step")
end
do
  local a = S.rod { from = { -0.25, 0 }, to = { 0.25, 0 }, segments = 10 }
  local b = S.rod { from = { -0.25, 0.003 }, to = { 0.25, 0.003 }, segments = 10 }
  for _, r in ipairs { a, b } do r:rod { E = 1e7, radius = 5e-4 } end
  a:pin(function() return true end)
  local m = S.merge { a, b }
  T.check(m.dim == 2, "2D rods merge into a 2D mesh")
  for i = a.nv + 1, m.nv do m.v:set(i, 2, -1) end
  run2d(m, "parallel rods", function(i) return i > a.nv end, function() return 0 end)
end
local function hairpin()
  local pts, R, n = {}, 0.003, 20
  for i = 0, n do pts[#pts + 1] = { -0.2 + 0.4 * i / n, 0 } end
  for k = 1, 5 do
    local t = -math.pi / 2 + math.pi * k / 6
    pts[#pts + 1] = { 0.2 + R * math.cos(t), R + R * math.sin(t) }
  end
  for i = n, 0, -1 do pts[#pts + 1] = { -0.2 + 0.4 * i / n, 2 * R } end
  local m = S.polyline { points = pts }
  m:rod { E = 1e7, radius = 5e-4 }
  m:pin(function(_, y) return y < 1e-9 end)
  for i = 1, m.nv do if m.x:get(i, 2) > R then m.v:set(i, 2, -1) end end
  -- the upper arm's nodes short of the bend
  return m, function(i) return m.rest:get(i, 2) > R and m.rest:get(i, 1) < 0.19 end
end
do
  local a = S.rod { from = { -0.5, 0 }, to = { 0.5, 0 }, segments = 20 }
  local b = S.rod { from = { -0.1, 0.0008 }, to = { 0.1, 0.0008 }, segments = 4 }
  for _, r in ipairs { a, b } do r:rod { E = 1e7, radius = 5e-4 } end
  a:pin(function() return true end)
  local m = S.merge { a, b }
  for i = a.nv + 1, m.nv do m.v:set(i, 1, 0.5) end
  local v8, conv = nil, 0
  for k = 1, 40 do
    local st = m:step_newton { dt = 1 / 200, dhat = 1e-3, mu = 0.5, check = true }
    conv = conv + (st.converged and 1 or 0)
    if k == 8 then v8 = m.v:get(a.nv + 1, 1) end
  end
  local acc, vend = (0.5 - v8) / 0.04, m.v:get(a.nv + 1, 1)
  print(string.format("2D sliding rod, mu = 0.5: deceleration %.4f m/s^2 (mu g = %.4f, %+.2f%%), speed after 0.2 s %.2e m/s",
    acc, 0.5 * 9.81, 100 * (acc / (0.5 * 9.81) - 1), vend))
  T.check(conv == 40, "2D sliding rod: every step converged")
  T.check(math.abs(acc / (0.5 * 9.81) - 1) < 0.03, "2D sliding rod: decelerates at mu g within 3%")
  T.check(math.abs(vend) < 1e-6, "2D sliding rod: it stops")
end
do -- without contact the arm passes through the pinned one
  local m, upper = hairpin()
  for _ = 1, 16 do m:step_newton { dt = 1 / 200 } end
  local low = math.huge
  for i = 1, m.nv do if upper(i) then low = math.min(low, m.x:get(i, 2)) end end
  T.check(low < 0, string.format("2D hairpin without contact: the upper arm passes through (lowest %.3g m)", low))
end
do
  local m, upper = hairpin()
  run2d(m, "hairpin (self-contact)", upper, function() return 0 end)
end

os.exit(T.report())
