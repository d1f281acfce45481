-- Static solves against analytic and published values (issue 12); set-ups in
-- lua/tide/cases/statics.lua.
--  * cantilever under a tip load, 2D plane stress (nu = 0.3) and 3D tets
--    (nu = 0): Timoshenko beam theory within 1% on the finest mesh, the tip
--    deflection growing with refinement (converging from below);
--  * thick-walled cylinder under internal follower pressure (neo-Hookean,
--    small strain): Lame's solution within 1%;
--  * large-deflection cantilever (P L^2 / EI = 2): Mattiasson's elastica
--    values within 2%.
local T = require "tide.testing"
local C = require "tide.cases.statics"

for _, dim in ipairs { 2, 3 } do
  local prev
  for _, n in ipairs { 8, 16, 32 } do
    local r = C.tip_cantilever { dim = dim, n = n }
    print(string.format("%dD cantilever %3d x %2d cells (%6d elements): tip %.6e m, Timoshenko %.6e m, error %+.2f%% (%d iterations)",
      dim, 10 * n, n, r.ne, r.tip, r.exact, 100 * r.error, r.stats.iterations))
    T.check(r.stats.converged, dim .. "D cantilever converged")
    T.check(r.tip < r.exact, dim .. "D cantilever below Timoshenko (linear elements are stiff)")
    if prev then T.check(r.tip > prev, dim .. "D cantilever: the deflection grows with refinement") end
    prev = r.tip
    if n == 32 then T.check(math.abs(r.error) < 0.01, dim .. "D cantilever within 1% of Timoshenko on the finest mesh") end
  end
end

for _, n in ipairs { 8, 32 } do
  local r = C.lame { n = n, model = "neohookean", follower = true }
  print(string.format("Lame cylinder %2d x %3d (%5d triangles, %d inner faces), neo-Hookean, follower pressure: u_r(a) %+.3f%%, u_r(b) %+.3f%%, largest %.3f%% (%d iterations)",
    n, 4 * n, r.ne, r.inner_faces, 100 * r.inner, 100 * r.outer, 100 * r.max, r.stats.iterations))
  T.check(r.stats.converged, "Lame converged")
  T.check(r.inner_faces == 4 * n, "the pressure acts on the inner arc")
  if n == 32 then
    T.check(r.max < 0.01, "Lame: u_r within 1% everywhere")
    T.check(r.stats.iterations <= 4, "follower tangent: Newton converges in a few iterations")
  end
end
-- the same in 3D (tetrahedra, the 3D follower tangent), u_z = 0
do
  local r = C.lame { n = 16, dim = 3, model = "neohookean", follower = true }
  print(string.format("Lame cylinder 3D slab 16 x 64 x 1 (%d tetrahedra, %d inner triangles), follower: u_r(a) %+.3f%%, u_r(b) %+.3f%%, largest %.3f%% (%d iterations)",
    r.ne, r.inner_faces, 100 * r.inner, 100 * r.outer, 100 * r.max, r.stats.iterations))
  T.check(r.stats.converged and r.inner_faces == 2 * 64, "3D Lame converged, pressure on the inner surface")
  T.check(r.max < 0.01, "3D Lame: u_r within 1% everywhere")
  T.check(r.stats.iterations <= 4, "3D follower tangent: Newton converges in a few iterations")
end
-- dead vs follower: the follower pressure acts on the expanded inner arc
-- (larger by u_r(a)/a), so the displacement grows by about that fraction
local rd, rf = C.lame { n = 16, model = "linear", follower = false }, C.lame { n = 16, model = "linear", follower = true }
local grow = (1 + rf.inner) / (1 + rd.inner) - 1
print(string.format("linear, 16 x 64: dead pressure u_r(a) %+.3f%%, follower %+.3f%%: follower / dead - 1 = %.3f%%, u_r(a)/a = %.3f%%",
  100 * rd.inner, 100 * rf.inner, 100 * grow, 100 * rd.exact_a / 0.5))
T.check(math.abs(rd.inner) < 0.005, "dead pressure, linear: Lame within 0.5%")
T.check(grow > 0.5 * rd.exact_a / 0.5 and grow < 2 * rd.exact_a / 0.5, "follower load grows with the surface")

local prev
for _, n in ipairs { 8, 16 } do
  local r = C.elastica { n = n, ratio = 20, alpha = 2 }
  print(string.format("elastica PL^2/EI = 2, L/h = 20, %d x %d cells: v/L %.5f (Mattiasson %.5f, %+.2f%%), u/L %.5f (%.5f, %+.2f%%), %d iterations in %d load steps",
    20 * n, n, r.v, r.v_ref, 100 * r.v_error, r.u, r.u_ref, 100 * r.u_error, r.stats.iterations, r.stats.steps))
  T.check(r.stats.converged, "elastica converged")
  if prev then T.check(r.v > prev, "elastica: deflection grows with refinement") end
  prev = r.v
  if n == 16 then
    T.check(math.abs(r.v_error) < 0.02, "elastica: tip deflection within 2% of Mattiasson")
    T.check(math.abs(r.u_error) < 0.02, "elastica: tip shortening within 2% of Mattiasson")
  end
end

os.exit(T.report())
