-- Contact offsets (Codimensional IPC, Li, Kaufman & Jiang 2021; ipc-toolkit's
-- dmin): step_newton{ contact_offset = xi } makes the mesh's primitives rest
-- at the thickness, not at ~dhat from the mid-surfaces / centrelines.
--   - two shells of thickness h = 4 mm (xi = h): the upper one dropped at
--     1 m/s from 1 cm above a pinned one never comes closer than h (every
--     free node at least h above the pinned sheet after every step, the gap
--     beyond xi positive) and rests at h + O(dhat) (within dhat);
--   - two rods of radius r = 2 mm (xi = 2 r), parallel, the upper dropped
--     the same way: its centreline rests at 2 r + O(dhat) above the lower one
--     and never within 2 r;
--   - 2D: the same rod drop;
--   - without the offset the same drops rest within dhat of the
--     mid-surface (below the thickness: the offset is what holds them);
--   - contact_offset < 0 or without dhat is a clear error.
local T = require "tide.testing"
local S = require("tide").solid

local dhat = 1e-3

local function run(m, free_lo, label, xi, steps)
  local conv, low, dmin = 0, math.huge, math.huge
  local st
  for _ = 1, steps do
    st = m:step_newton { dt = 1 / 200, dhat = dhat, contact_offset = xi, maxit = 100, check = true }
    conv = conv + (st.converged and 1 or 0)
    dmin = math.min(dmin, st.min_distance)
    for i = free_lo, m.nv do low = math.min(low, m.x:get(i, 2)) end
  end
  local rest = 0
  for i = free_lo, m.nv do rest = rest + m.x:get(i, 2) / (m.nv - free_lo + 1) end
  print(string.format("%s, offset %.3g m: %d/%d steps converged, lowest free node %.4e m, closest gap "
    .. "beyond the offset %.3e m (at the end %.3e m), mean height at rest %.4e m (target %.3g + O(dhat = %g))",
    label, xi, conv, steps, low, dmin, st.min_distance, rest, xi, dhat))
  return conv, low, dmin, rest, st.min_distance
end

local function shells(xi)
  local a = S.sheet { origin = { -0.1, 0, -0.1 }, u = { 0.2, 0, 0 }, v = { 0, 0, 0.2 }, cells = { 6, 6 } }
  local b = S.sheet { origin = { -0.06, 0.01, -0.06 }, u = { 0.12, 0, 0 }, v = { 0, 0, 0.12 }, cells = { 4, 4 } }
  for _, s in ipairs { a, b } do s:shell { E = 1e5, thickness = 4e-3, density = 300 } end
  a:pin(function() return true end)
  local m = S.merge { a, b }
  for i = a.nv + 1, m.nv do m.v:set(i, 2, -1) end
  return m, a.nv + 1
end

local function rods(d)
  local L, n = 0.3, 8
  local a, b
  if d == 3 then
    a = S.rod { from = { -L / 2, 0, 0 }, to = { L / 2, 0, 0 }, segments = n }
    b = S.rod { from = { -L / 2 + 0.01, 0.01, 0 }, to = { L / 2 - 0.01, 0.01, 0 }, segments = n }
  else
    a = S.rod { from = { -L / 2, 0 }, to = { L / 2, 0 }, segments = n }
    b = S.rod { from = { -L / 2 + 0.01, 0.01 }, to = { L / 2 - 0.01, 0.01 }, segments = n }
  end
  for _, r in ipairs { a, b } do r:rod { E = 1e7, radius = 2e-3 } end
  a:pin(function() return true end)
  local m = S.merge { a, b }
  for i = a.nv + 1, m.nv do m.v:set(i, 2, -1) end
  return m, a.nv + 1
end

local h = 4e-3
do
  local m, lo = shells()
  local conv, low, dmin, rest, gap = run(m, lo, "two shells (h = 4 mm)", h, 20)
  T.check(conv == 20, "shells: every step converged")
  T.check(low > h and dmin > 0, "shells: never closer than the thickness h")
  T.check(gap > 0 and gap < dhat and rest > h and rest < h + 2 * dhat, "shells: rest at h + O(dhat)")
  local m0, lo0 = shells()
  local _, low0, _, rest0 = run(m0, lo0, "two shells without the offset", 0, 20)
  T.check(rest0 < 2 * dhat and rest0 < h and low0 > 0,
    "shells without the offset rest O(dhat) from the mid-surface, inside the thickness")
end

local r = 2e-3
for _, d in ipairs { 3, 2 } do
  local m, lo = rods(d)
  local label = string.format("%dD parallel rods (r = 2 mm)", d)
  local conv, low, dmin, rest, gap = run(m, lo, label, 2 * r, 20)
  T.check(conv == 20, label .. ": every step converged")
  T.check(low > 2 * r and dmin > 0, label .. ": centrelines never within 2 r")
  T.check(gap > 0 and gap < dhat and rest > 2 * r and rest < 2 * r + 2 * dhat, label .. ": rests at 2 r + O(dhat)")
end

do
  local m = shells()
  T.raises(function() m:step_newton { dt = 0.01, dhat = dhat, contact_offset = -1 } end, "contact_offset",
    "contact_offset < 0 refused")
  T.raises(function() m:step_newton { dt = 0.01, contact_offset = 1e-3 } end, "dhat > 0",
    "contact_offset without dhat refused")
end

os.exit(T.report())
