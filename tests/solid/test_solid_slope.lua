-- Friction of bodies of many elements in the Newton integrator (IPC's
-- smoothed lagged friction, Li et al. 2020 sec. 5; docs/solids.md): an
-- elastic cube of 48 tetrahedra (and a square of 128 triangles) on a slope
-- with tan(theta) = 0.4, dt = 1/100 s.
--   mu = 0.2 (slides):  acceleration of the centre of mass g (sin - mu cos)
--                       within 2% (measured between t = 0.5 s and 1.5 s)
--   mu = 0.45 (sticks): the centre of mass creeps less than 1 mm in 2 s
--                       (the smoothed static friction's bound is eps_v t)
local tide = require "tide"
local T = require "tide.testing"
local S, A = tide.solid, tide.array

local g, dt = 9.81, 1 / 100
local th = math.atan(0.4)
local sn, cs = math.sin(th), math.cos(th)

-- a body built on y = 0 rotated onto the slope through the origin (downhill
-- is -x rotated: the slope rises towards +x)
local function body(dim)
  local a = 0.1
  local b = dim == 3 and S.box { min = { 0, 0, 0 }, max = { a, a, a }, cells = { 2, 2, 2 } }
      or S.box { min = { 0, 0 }, max = { a, a }, cells = { 8, 8 } }
  local nodes = {}
  for i = 1, b.nv do
    local x, y = b.rest:get(i, 1), b.rest:get(i, 2)
    nodes[i] = { cs * x - sn * y, sn * x + cs * y }
    if dim == 3 then nodes[i][3] = b.rest:get(i, 3) end
  end
  local m = S.mesh { nodes = A.from(nodes), elements = b:elements() }
  m:material { model = "neohookean", E = 1e6, nu = 0.3, density = 1000 }
  return m
end

-- downhill distance and speed of the centre of mass (mass-weighted)
local function com_along(m) return require("tide.cases.incline").com_along(m, th) end

local function run(dim, mu, seconds, t0, t1)
  local m = body(dim)
  local nrm = dim == 3 and { -sn, cs, 0 } or { -sn, cs }
  local pt = dim == 3 and { 0, 0, 0 } or { 0, 0 }
  local slope = S.collider { shape = S.shape.plane { point = pt, normal = nrm }, mu = mu }
  local s0 = com_along(m)
  local v0, v1, nc, maxit, st0 = nil, nil, true, 0, nil
  local steps = math.floor(seconds / dt + 0.5)
  for n = 1, steps do
    local st = m:step_newton { dt = dt, colliders = { slope } }
    nc = nc and st.converged
    maxit = math.max(maxit, st.iterations)
    local t = n * dt
    if math.abs(t - t0) < 1e-9 then st0, v0 = com_along(m) end
    if math.abs(t - t1) < 1e-9 then _, v1 = com_along(m) end
  end
  local s = com_along(m)
  T.check(nc, string.format("%dD mu = %g: every Newton step converged", dim, mu))
  T.check(m.x:nonfinite() == 0, "finite")
  return m, s - s0, v0 and v1 and (v1 - v0) / (t1 - t0), maxit, s - st0
end

for _, dim in ipairs { 3, 2 } do
  local m, _, acc, it = run(dim, 0.2, 1.5, 0.5, 1.5)
  local exact = g * (sn - 0.2 * cs)
  local err = acc / exact - 1
  print(string.format("%dD (%d elements) mu = 0.2: acceleration %.4f m/s^2, analytic %.4f (%+.2f%%), max %d Newton iterations",
    dim, m.ne, acc, exact, 100 * err, it))
  T.check(dim == 2 or m.ne >= 48, "at least 48 tetrahedra")
  T.check(math.abs(err) <= 0.02, string.format("%dD mu = 0.2: acceleration within 2%% (%+.2f%%)", dim, 100 * err))
  local _, creep, _, it2, late = run(dim, 0.45, 2.0, 1, 2)
  print(string.format("%dD mu = 0.45: creep %.3e m in 2 s (bound 1e-3 m), %.3e m in the last second (eps_v t = 1e-4 m; the rest is elastic settling), max %d Newton iterations",
    dim, creep, late, it2))
  T.check(math.abs(creep) < 1e-3, string.format("%dD mu = 0.45: sticks (creep %.2e m)", dim, creep))
  T.check(math.abs(late) < 1e-4 * 1.0, string.format("%dD mu = 0.45: creeps slower than eps_v once settled (%.2e m in 1 s)", dim, late))
end

os.exit(T.report())
