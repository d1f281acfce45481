-- The hydrostatic wall pressure of an accelerating SDF wall
-- (S:set_sdf_acceleration; Adami, Hu & Adams 2012, Eq. 27 with the wall's
-- acceleration: the wall terms take g - a_w(x_i), a_w = a + alpha x r +
-- omega x (omega x r)):
-- 1. a floor accelerating upward at 5 m/s^2 under gravity 9.81 gives the fluid
--    the wall acceleration of a floor at rest under 14.81 m/s^2 (WCSPH and the
--    DFSPH non-pressure pass, 2D and 3D), and the same reaction; with the
--    mirrored wall pressure the acceleration changes nothing;
-- 2. a turning sphere map: the centripetal part equals -T_w (omega x (omega x r))/rho_i
--    (T_w of S:wall_terms);
-- 3. bad arguments.
local tide = require "tide"
local T = require "tide.testing"

-- 1. accelerating floor vs heavier gravity
for _, dim in ipairs { 2, 3 } do
  local dx = 0.01
  local g = tide.grid.new { size = dim == 3 and { 16, 16, 10 } or { 20, 16 }, dx = dx }
  local function V(x, y, z) return dim == 3 and { x, y, z } or { x, y } end
  local function state(gy, acc, pressure, wall_pressure)
    local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 40, renormalize = true,
      wall_pressure = wall_pressure or "hydrostatic", gravity = V(0, gy, 0) }
    local k = S:sdf_boundary { shape = tide.shape.plane { point = V(0, 4 * dx, 0), normal = V(0, -1, 0) }, side = "outside" }
    if acc then S:set_sdf_acceleration(k, V(0, acc, 0)) end
    S:seed { shape = tide.shape.box { min = V(0, 4 * dx, 0), max = V(20 * dx, 12 * dx, 10 * dx) }, jitter = 0.3 }
    S:search(); S:density(); S:tait(); S:forces { pressure = pressure }
    return S, k
  end
  for _, pressure in ipairs { true, false } do
    local A, ka = state(-9.81, 5, pressure)
    local B, kb = state(-14.81, nil, pressure)
    local da, amax = 0, 0
    for i = 1, A.n do
      for a = 1, dim do
        local wa = A.a[i][a] - A.gravity[a]
        local wb = B.a[i][a] - B.gravity[a]
        da, amax = math.max(da, math.abs(wa - wb)), math.max(amax, math.abs(wa))
      end
    end
    local fa, fb = { A:wall_force(ka) }, { B:wall_force(kb) }
    local df = math.abs(fa[2] - fb[2]) / math.abs(fb[2])
    print(string.format("%dD floor accelerating at 5 m/s^2 (%s): wall acceleration vs a floor at rest under 14.81 m/s^2 "
      .. "%.1e of %.3f m/s^2; reaction %.6g vs %.6g N (%.1e)", dim, pressure and "WCSPH forces" or "DFSPH non-pressure pass",
      da, amax, fa[2], fb[2], df))
    T.check(amax > 1 and da < 1e-9 * amax and df < 1e-12,
      string.format("%dD (%s): an accelerating floor is a floor at rest under g - a", dim, pressure and "WCSPH" or "DFSPH"))
  end
  local A = state(-9.81, 5, true, "mirror")
  local B = state(-9.81, nil, true, "mirror")
  local same = true
  for i = 1, A.n do for a = 1, dim do same = same and A.a[i][a] == B.a[i][a] end end
  T.check(same, string.format("%dD: with the mirrored wall pressure the wall's acceleration changes nothing", dim))
end

-- 2. the centripetal part at a turning sphere map
do
  local dx, om, c = 0.02, 3, { 0.2, 0.2 }
  local g = tide.grid.new { size = { 20, 20 }, dx = dx }
  local function state(acc)
    local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 20, wall_pressure = "hydrostatic",
      gravity = { 0, 0 } }
    local k = S:sdf_boundary { shape = tide.shape.sphere { center = c, radius = 0.08 }, side = "inside",
      angular_velocity = om, centre = c }
    if acc then S:set_sdf_acceleration(k, { 0, 0 }) end
    S:seed { shape = tide.shape.difference(tide.shape.box { min = { 0.04, 0.04 }, max = { 0.36, 0.36 } },
      tide.shape.sphere { center = c, radius = 0.085 }) }
    S:search(); S:density(); S:tait(); S:forces { pressure = false }
    return S
  end
  local A, B = state(true), state(false)
  local rows = A:wall_terms(A.x)
  local worst, big, n = 0, 0, 0
  for i = 1, A.n do
    local r = { A.x[i][1] - c[1], A.x[i][2] - c[2] }
    local acp = { -om * om * r[1], -om * om * r[2] } -- omega x (omega x r)
    for a = 1, 2 do
      local ex = -(rows[i][6 + 2 * (a - 1)] * acp[1] + rows[i][7 + 2 * (a - 1)] * acp[2]) / A.rho[i]
      local got = A.a[i][a] - B.a[i][a]
      worst, big = math.max(worst, math.abs(got - ex)), math.max(big, math.abs(ex))
      if math.abs(ex) > 0 then n = n + 1 end
    end
  end
  print(string.format("turning sphere map (3 rad/s): centripetal wall term vs -T_w (w x (w x r))/rho: %.1e of %.3e m/s^2 (%d entries)",
    worst, big, n))
  T.check(n > 20 and big > 0 and worst < 1e-9 * big, "the centripetal acceleration enters the hydrostatic wall pressure")
end

-- 3. bad arguments
do
  local g = tide.grid.new { size = { 8, 8 }, dx = 1 / 8 }
  local S = tide.sph.new { grid = g }
  local function err(f, ...) local ok, msg = pcall(f, ...); return not ok and tostring(msg) or "" end
  T.check(err(S.set_sdf_acceleration, S, 1, { 0, 1 }):find("no SDF boundary"), "set_sdf_acceleration without SDF boundaries is refused")
  S:sdf_boundary { shape = tide.shape.box { min = { 0.1, 0.1 }, max = { 0.9, 0.9 } } }
  T.check(err(S.set_sdf_acceleration, S, 2, { 0, 1 }) ~= "", "an SDF boundary index out of range is refused")
  T.check(err(S.set_sdf_acceleration, S, 1, { 0 }) ~= "", "an acceleration of the wrong length is refused")
  T.check(err(S.set_sdf_acceleration, S, 1, { 0, 0 / 0 }) ~= "", "a NaN acceleration is refused")
  T.check(err(S.set_sdf_acceleration, S, 1, { 0, 0 }, "x") ~= "", "a non-number angular acceleration is refused")
end

os.exit(T.report())
