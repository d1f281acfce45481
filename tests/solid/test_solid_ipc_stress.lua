-- Never-intersect stress tests of solid contact (IPC, modules/solid/ipc.h) in
-- step_newton, each checked after every step:
--  * edge grazing: a soft ribbon falls onto the top edge of a pinned
--    vertical ribbon while sliding sideways, its grid lines at 0, 0.1 and
--    2 deg to that edge (edge-edge pairs exactly and nearly parallel, the
--    mollifier's case): m:intersections() (exact segment-triangle test) is
--    0 after every step;
--  * a random pile of shells: five cloths at pseudo-random positions and
--    orientations (a stateless integer hash) dropped onto a pinned cloth and
--    each other: m:intersections() (exact segment-triangle test) is 0 after
--    every step and every step converges.
local T = require "tide.testing"
local S = require("tide").solid

-- ---------------------------------------------------------- edge grazing
-- a vertical ribbon A (pinned, its top edge along x at y = 0) and a soft
-- horizontal ribbon B 1.5 mm above it, turned by a grazing angle about y,
-- falling onto A's top edge while sliding sideways at 0.25 m/s: every long
-- grid line of B sweeps over A's top edge nearly (or exactly) parallel to it
local function graze(angle)
  local a = S.sheet { origin = { -0.5, -0.05, 0 }, u = { 1, 0, 0 }, v = { 0, 0.05, 0 }, cells = { 20, 2 } }
  a:shell { E = 1e5, thickness = 1e-3 }
  a:pin(function() return true end)
  local c, s, L, W = math.cos(angle), math.sin(angle), 0.6, 0.1
  local u, v = { L * c, 0, -L * s }, { W * s, 0, W * c }
  local b = S.sheet { origin = { -0.3 - (u[1] + v[1]) / 2, 0.0015, -(u[3] + v[3]) / 2 - 0.03 }, u = u, v = v,
    cells = { 12, 4 } }
  b:shell { E = 1e5, thickness = 5e-4, density = 400 }
  local m = S.merge { a, b }
  for i = a.nv + 1, m.nv do
    m.v:set(i, 2, -0.05)
    m.v:set(i, 3, 0.25)
  end
  local steps, conv, crossings, z0 = 30, 0, 0, m.x:get(a.nv + 1, 3)
  for _ = 1, steps do
    local st = m:step_newton { dt = 1 / 200, dhat = 1e-3, maxit = 100 }
    conv = conv + (st.converged and 1 or 0)
    crossings = crossings + m:intersections()
  end
  local slid = m.x:get(a.nv + 1, 3) - z0
  print(string.format("grazing %.1f deg: %d/%d steps converged, %d crossings, B slid %.3f m across A's edge",
    math.deg(angle), conv, steps, crossings, slid))
  T.check(conv == steps, "grazing: every step converged")
  T.check(crossings == 0, "grazing: no segment-triangle crossing after any step")
  T.check(slid > 0.05, "grazing: B's grid lines (0.025 m apart) swept over A's edge")
end
graze(0)
graze(math.rad(0.1))
graze(math.rad(2))

-- ----------------------------------------------------- random shell pile
do
  local function hash(i) -- stateless integer hash -> [0, 1)
    local x = (i * 2654435761) % 4294967296
    x = ((x ~ (x >> 16)) * 73244475) % 4294967296
    x = ((x ~ (x >> 16)) * 73244475) % 4294967296
    return (x ~ (x >> 16)) / 4294967296
  end
  local ground = S.sheet { origin = { -0.4, 0, -0.4 }, u = { 0.8, 0, 0 }, v = { 0, 0, 0.8 }, cells = { 8, 8 } }
  ground:shell { E = 1e5, thickness = 1e-3 }
  ground:pin(function() return true end)
  local parts, nsheets, side = { ground }, 5, 0.3
  for k = 1, nsheets do
    local phi, tilt = 2 * math.pi * hash(3 * k), 0.2 * (hash(3 * k + 1) - 0.5)
    local cx, cz, y = 0.15 * (hash(3 * k + 2) - 0.5), 0.15 * (hash(7 * k) - 0.5), 0.02 + 0.04 * k
    local u = { side * math.cos(phi), side * tilt, side * math.sin(phi) }
    local v = { -side * math.sin(phi), 0, side * math.cos(phi) }
    local c = S.sheet { origin = { cx - (u[1] + v[1]) / 2, y - (u[2] + v[2]) / 2, cz - (u[3] + v[3]) / 2 }, u = u,
      v = v, cells = { 5, 5 } }
    c:shell { E = 1e5, thickness = 5e-4, density = 400, damping = 0.01 }
    parts[#parts + 1] = c
  end
  local m = S.merge(parts)
  T.check(m:intersections() == 0, "pile: the start is free of intersections")
  local steps, conv, crossings, maxit = 35, 0, 0, 0
  for _ = 1, steps do
    local st = m:step_newton { dt = 1 / 100, dhat = 2e-3, maxit = 80, tol = 1e-4 }
    conv = conv + (st.converged and 1 or 0)
    maxit = math.max(maxit, st.iterations)
    crossings = crossings + m:intersections()
  end
  -- settled: every sheet's mean height within a few layers of the ground
  local top = 0
  for k = 1, nsheets do
    local y, n0 = 0, ground.nv + (k - 1) * parts[2].nv
    for i = n0 + 1, n0 + parts[2].nv do y = y + m.x:get(i, 2) / parts[2].nv end
    top = math.max(top, y)
  end
  print(string.format("pile of %d cloths: %d/%d steps converged, at most %d Newton iterations, %d crossings, "
    .. "highest mean sheet height %.4f m", nsheets, conv, steps, maxit, crossings, top))
  T.check(conv == steps, "pile: every step converged")
  T.check(crossings == 0, "pile: no segment-triangle crossing after any step")
  T.check(top < 0.02, "pile: the cloths have landed")
end

os.exit(T.report())
