-- A heavy solid on the floor in the strong coupling (lua/tide/zarifi.lua, issue 14): the walls'
-- contact inside the coupled solve (zarifi.new{contact = "barrier"}, the default: IPC's barrier of
-- each node's distance to each wall, linearized at x*, its PSD Hessian in the solid's block and
-- its gradient on the right-hand side, tide.couple.project{colliders, dhat}) against the
-- thesis's explicit position correction after the step (contact = "explicit", §3.7).
-- The set-up of scenes/zarifi_balls.lua's heavy ball alone: 2D, 32^2, a 0.09 m corotational ball
-- (E = 1e6 Pa, 2500 kg/m^3) in a pool 0.55 m deep, ghost-fluid free surface.
--  * at rest on the floor (t = 1 ... 3 s): the bottom-row liquid cells beside the contact are
--    closed on every side but the floor; with the explicit correction their pressure couples only
--    to the solid that the correction moves (measured 6.8e4 Pa here, 1e5-3e6 Pa with the three
--    balls of test_zarifi_volume; hydrostatic at the floor 5.4e3 Pa) and the ball is squashed by
--    2.9%.  With the barrier: peak pressure 1.2e4 Pa (2.3x hydrostatic), squash 1.8% (its own
--    weight), the ball resting a barrier width (dhat = 0.25 dx) above the floor.
--  * the barrier's terms alone (no liquid): a block settled on it is carried by its forces to 1e-12.
--  * thrown down at 6 m/s from y = 0.2 m: no node reaches the floor (zarifi.max_dt keeps every
--    approaching node a tenth of its gap; the explicit fallback counts S.contact_fallbacks = 0),
--    and the ball comes to rest unsquashed, without suction in the pocket under it.
local tide = require "tide"
local T = require "tide.testing"
local zarifi = require "tide.zarifi"

local check = T.check
T.check = function(ok, msg) print(msg); return check(ok, msg) end

local n, r, depth = 32, 0.09, 0.55
local hydro = 1000 * 9.81 * depth -- hydrostatic pressure at the floor [Pa]

local function run(contact, y0, vy0, t_end)
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local m = tide.solid.bcc { shape = tide.shape.sphere { center = { 0.5, y0 }, radius = r }, h = r / 3 }
  m:material { model = "corotational", E = 1e6, nu = 0.3, density = 2500, rayleigh_mass = 0.5 }
  m.v:select(2, 2):fill(vy0)
  local ps = zarifi.seed(g, { below = depth }, { m })
  local S = zarifi.new { grid = g, particles = ps, solids = { m }, level_set = "zhu_bridson", contact = contact }
  local function extent(a) local c = m.x:select(2, a); return c:max() - c:min() end
  local R = { H0 = extent(2), hmin = math.huge, lo = math.huge, hi = -math.huge, vy = 0, pmax = 0, pmin = 0,
    bottom = math.huge, impact = 0 }
  local dhat = S.contact_dhat * g.dx
  local t = 0
  while t < t_end - 1e-12 do
    local dt = math.min(zarifi.max_dt(S), t_end - t)
    zarifi.step(S, dt)
    t = t + dt
    local c, v = zarifi.centroid(m)
    local low = m.x:select(2, 2):min()
    R.bottom = math.min(R.bottom, low)
    if low < 2 * dhat then R.impact = math.max(R.impact, -v[2]) end
    if t >= 1 then
      R.lo, R.hi, R.vy = math.min(R.lo, c[2]), math.max(R.hi, c[2]), math.max(R.vy, math.abs(v[2]))
      R.pmax, R.pmin = math.max(R.pmax, S.pressure:max()), math.min(R.pmin, S.pressure:min())
      R.hmin = math.min(R.hmin, extent(2))
    end
  end
  R.squash, R.fallbacks, R.dhat = 1 - R.hmin / R.H0, S.contact_fallbacks, dhat
  return R, S
end

-- The barrier's terms alone (no liquid: every cell air): a soft block settling on the floor under
-- gravity through repeated couple.project{colliders, dhat} (x += dt v between them) comes to rest
-- where the barrier's forces, IPC's kappa |b'(d^2)| 2 d summed over its nodes within dhat, carry
-- its weight; the automatic kappa holds 100x the weight with one node at dhat/2.
local function barrier_force(kappa, d, dhat) -- -dB/dd of kappa b(d^2, dhat^2), b(D) = -(D - Dh)^2 log(D / Dh)
  local D, Dh = d * d, dhat * dhat
  return kappa * -(Dh - D) * (2 * math.log(D / Dh) - Dh / D + 1) * 2 * d
end
for _, form in ipairs { { "spd", "cholmod" }, { "indefinite", "ldlt" } } do
  local g = tide.grid.new { size = { 16, 16 }, dx = 1 / 16 }
  local dhat = 0.25 * g.dx
  local m = tide.solid.box { min = { 0.4, 0.5 * dhat }, max = { 0.6, 0.1 }, cells = { 4, 2 } }
  m:material { model = "corotational", E = 1e6, nu = 0.3, density = 1000, rayleigh_mass = 5 }
  local u, labels, walls, dt, st = g:mac(), g:cells("u8"), zarifi.walls(g), 0.01, nil
  for _ = 1, 300 do
    m.x:axpy(dt, m.v)
    m.v:select(2, 2):axpy(-9.81 * dt, tide.array.full(m.nv, 1))
    st = tide.couple.project { u = u, labels = labels, solids = { m }, dt = dt, colliders = walls, dhat = dhat,
      formulation = form[1], solver = form[2] }
  end
  local W, F = m.mass:sum() * 9.81, 0
  for i = 1, m.nv do
    local d = m.x:get(i, 2)
    if d < dhat then F = F + barrier_force(st.contact_kappa, d, dhat) end
  end
  local k100 = 100 * W / barrier_force(1, 0.5 * dhat, dhat)
  T.check(math.abs(F / W - 1) < 1e-6 and math.abs(st.contact_kappa / k100 - 1) < 1e-12 and st.contact_nodes == 5,
    string.format("%s: a block resting on the barrier: its forces %.6g N carry the weight %.6g N (%.1e), %d nodes at gap %.4f m (dhat %.4f), kappa %.4g = 100x auto",
      form[1], F, W, F / W - 1, st.contact_nodes, st.contact_gap, dhat, st.contact_kappa))
end
do -- the factored formulation (K = R^T R) takes no barrier: a clear error
  local g = tide.grid.new { size = { 8, 8 }, dx = 1 / 8 }
  local m = tide.solid.box { min = { 0.4, 0.01 }, max = { 0.6, 0.1 }, cells = { 2, 1 } }
  m:material { model = "corotational", E = 1e6, nu = 0.3, density = 1000 }
  T.raises(function() tide.couple.project { u = g:mac(), labels = g:cells("u8"), solids = { m }, dt = 0.01,
    colliders = zarifi.walls(g), dhat = 0.03, formulation = "factored" } end, "needs formulation spd or indefinite",
    "factored + barrier is refused")
end

local E = run("explicit", 0.3, 0, 3.0)
print(string.format("explicit correction (reference): peak pressure %.3g Pa (%.1fx hydrostatic), squash %.1f%%, centre %.4f-%.4f m, |vy| <= %.3f m/s",
  E.pmax, E.pmax / hydro, 100 * E.squash, E.lo, E.hi, E.vy))
local B, S = run(nil, 0.3, 0, 3.0)
T.check(S.contact == "barrier" and S.barrier, "the default contact is the barrier inside the solve")
T.check(B.pmax < 4 * hydro, string.format("barrier, at rest (t = 1 ... 3 s): peak pressure %.3g Pa = %.1fx hydrostatic (< 4x)", B.pmax, B.pmax / hydro))
T.check(B.squash < 0.025, string.format("  ball height %.4f -> %.4f m: squashed %.1f%% (< 2.5%%)", B.H0, B.hmin, 100 * B.squash))
T.check(B.lo > r - 0.005 and B.hi < r + B.dhat, string.format("  resting: centre %.4f-%.4f m (radius %g, dhat %.4f m)", B.lo, B.hi, r, B.dhat))
T.check(B.vy < 0.05 and B.bottom > 0 and B.fallbacks == 0, string.format("  |vy| <= %.3f m/s, lowest node %.3g m, explicit fallbacks %d", B.vy, B.bottom, B.fallbacks))
local D = run(nil, 0.2, -6, 1.5)
T.check(D.bottom > 0 and D.fallbacks == 0, string.format("thrown down at 6 m/s (%.2f m/s at the floor): lowest node %.3g m, explicit fallbacks %d", D.impact, D.bottom, D.fallbacks))
T.check(D.squash < 0.025 and D.pmin > -1e5, string.format("  then at rest: squashed %.1f%%, smallest pressure %.3g Pa (no suction holding it)", 100 * D.squash, D.pmin))

os.exit(T.report())
