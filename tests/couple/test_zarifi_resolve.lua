-- tide.couple.resolve (issue 14, docs/couple.md "Costs"): a second right-hand side against the
-- system kept by couple.project{ keep = true } (geometry, matrix, preconditioner or factor) gives
-- the answer of a full second projection: the mass reference's solve (liquid u = dt g, solids
-- v = dt g, elastic_force = false) after a projection of a moving, deformed block in a pool, for
-- every formulation and solver -- to round-off with the direct solvers, to the tolerance with the
-- Krylov ones (the SPD block scaling alpha is the first solve's); with the walls' barrier active
-- the matrix differs and a resolve without it is refused; zarifi.step with mass_reuse gives the
-- two-solve run's trajectory.
local tide = require "tide"
local T = require "tide.testing"
local zarifi = require "tide.zarifi"
local n, level, dt, rho, grav = 24, 0.8, 0.01, 1000, 9.81
local lo, hi = { 0.35, 0.3 }, { 0.65, 0.5 }
local P = dofile(T.source("tests/couple/zarifi_pool_util.lua"))
local g, fr, lab, phi = P.pool(n, level, lo, hi)

-- a block deformed (sheared and stretched: its elastic force K x - b is not 0) and moving
local function block(y0) return P.block(lo, hi, dt, grav, y0) end
local function moving_u() return P.moving_u(g, dt, grav) end

local function at_rest(m)
  local h = g:mac()
  h:add_gravity(dt, { 0, -grav })
  m.v:fill(0)
  m.v:select(2, 2):fill(-grav * dt)
  return h
end

local function maxdiff(a, b)
  local d = 0
  local fa, fb = a:reshape(a:size()), b:reshape(b:size())
  for k = 1, fa:size() do d = math.max(d, math.abs(fa:get(k) - fb:get(k))) end
  return d
end

local function base(extra)
  local a = { labels = lab, dt = dt, rho = rho, phi = phi, fractions = fr, tol = 1e-12, sampling = "linear" }
  for k, v in pairs(extra) do a[k] = v end
  return a
end

for _, c in ipairs { { "spd", "cholmod", 1e-10 }, { "indefinite", "ldlt", 1e-10 }, { "factored", "cholmod", 1e-10 },
  { "spd", "pcg", 1e-9 }, { "spd", "mgpcg", 1e-9 }, { "indefinite", "minres", 1e-9 }, { "indefinite", "bicgstab", 1e-9 },
  { "factored", "mgpcg", 1e-9 } } do
  local name = c[1] .. "/" .. c[2]
  -- the reference: two full projections
  local m = block()
  local a = base { u = moving_u(), solids = { m }, formulation = c[1], solver = c[2], pressure = g:cells() }
  tide.couple.project(a)
  local h, p = at_rest(m), g:cells()
  local vf = g:mac("u8")
  local st2 = tide.couple.project(base { u = h, solids = { m }, formulation = c[1], solver = c[2], pressure = p,
    elastic_force = false, valid = vf })
  local vref = m.v:clone()
  -- the same with the first one's system kept
  local m2 = block()
  local st = tide.couple.project(base { u = moving_u(), solids = { m2 }, formulation = c[1], solver = c[2],
    pressure = g:cells(), keep = true })
  T.check(st.system ~= nil, name .. ": keep = true returns the system")
  local h2, p2, vf2 = at_rest(m2), g:cells(), g:mac("u8")
  local t0 = os.clock()
  local sr = tide.couple.resolve { system = st.system, u = h2, solids = { m2 }, pressure = p2, valid = vf2,
    elastic_force = false, tol = 1e-12 }
  local cpu = os.clock() - t0
  local dp = maxdiff(p, p2) / p:max()
  local dv = maxdiff(vref, m2.v) / (grav * dt)
  local du = math.max(maxdiff(h.u, h2.u), maxdiff(h.v, h2.v)) / (grav * dt)
  T.check(sr.converged and sr.solver == c[2] and sr.unknowns == st2.unknowns and sr.geometry_seconds == 0,
    string.format("%s: resolve converged (%d iterations, full %d; %.1f ms)", name, sr.iterations, st2.iterations, 1e3 * cpu))
  T.check(dp < c[3] and dv < c[3] and du < c[3], string.format(
    "%s: resolve = full second projection: pressure %.2e, solid v %.2e, liquid u %.2e (rel., < %g)", name, dp, dv, du, c[3]))
  T.check(maxdiff(vf.u, vf2.u) == 0 and maxdiff(vf.v, vf2.v) == 0, name .. ": the same valid faces")
  st.system:free()
  T.raises(function() tide.couple.resolve { system = st.system, u = h2, solids = { m2 } } end, "freed",
    name .. ": a freed system is refused")
end

-- the walls' barrier: a block 0.3 dhat above the floor puts its Hessian in the matrix; a resolve
-- with it (its gradient kept) is exact, one without it is refused
do
  local dhat = 0.03
  local walls = { tide.solid.collider { shape = tide.shape.plane { point = { 0, lo[2] - 0.3 * dhat }, normal = { 0, 1 } } } }
  local y0 = lo[2]
  local function args(m, u, extra)
    local a = base { u = u, solids = { m }, colliders = walls, dhat = dhat, solver = "cholmod", pressure = g:cells() }
    for k, v in pairs(extra or {}) do a[k] = v end
    return a
  end
  local m = block(y0)
  tide.couple.project(args(m, moving_u()))
  local h = at_rest(m)
  tide.couple.project(args(m, h, { elastic_force = false }))
  local vref = m.v:clone()
  local m2 = block(y0)
  local st = tide.couple.project(args(m2, moving_u(), { keep = true }))
  T.check(st.contact_nodes > 0, string.format("barrier active (%d nodes within dhat)", st.contact_nodes))
  local h2 = at_rest(m2)
  T.raises(function() tide.couple.resolve { system = st.system, u = h2, solids = { m2 }, barrier = false } end,
    "holds the walls' barrier", "a resolve without the active barrier is refused")
  local ok = pcall(tide.couple.resolve, { system = st.system, u = at_rest(block(y0)), solids = { m2 }, barrier = "stiffness" })
  T.check(ok, "barrier = \"stiffness\" (its gradient out, its Hessian kept) is accepted")
  h2 = at_rest(m2)
  tide.couple.resolve { system = st.system, u = h2, solids = { m2 }, elastic_force = false }
  local dv = maxdiff(vref, m2.v) / (grav * dt)
  T.check(dv < 1e-8, string.format("with the barrier: resolve = full projection (solid v %.2e, < 1e-8: the barrier is stiff)", dv))
  T.raises(function() tide.couple.resolve { system = st.system, u = h2, solids = { block(y0) } } end,
    "not the system's", "another solid is refused")
end

-- zarifi.step: the mass reference reusing line 7's system gives the two-solve trajectory
local function run(reuse, scheme)
  local gg = tide.grid.new { size = { 24, 24 }, dx = 1 / 24 }
  local m = tide.solid.box { min = { 0.3, 0.42 }, max = { 0.7, 0.67 }, cells = { 8, 5 } }
  m:material { model = "corotational", E = 1e6, nu = 0.3, density = 500, rayleigh_mass = 5 }
  local bl = tide.shape.mesh { vertices = m.x, faces = m:boundary() }:sdf(gg)
  local ph = gg:cells()
  for i = 1, 24 do for j = 1, 24 do ph:set(i, j, math.max((j - 0.5) / 24 - 0.55, -bl:get(i, j))) end end
  local S = zarifi.new { grid = gg, particles = tide.liquid.seed { grid = gg, phi = ph }, solids = { m },
    level_set = "zhu_bridson", mass_reuse = reuse, scheme = scheme }
  local its = 0
  for _ = 1, 20 do
    zarifi.step(S, math.min(zarifi.max_dt(S), 0.005))
    its = its + S.gravity_stats.iterations
  end
  return m.x:clone(), S.particles.v:clone(), its / 20
end
for _, scheme in ipairs { "spd", "damping", "indefinite" } do
  local xa, va, ia = run(true, scheme)
  local xb, vb, ib = run(false, scheme)
  local dx, dv = maxdiff(xa, xb), maxdiff(va, vb)
  T.check(dx < 1e-9 and dv < 1e-7, string.format("zarifi.step, %s, 20 steps: mass_reuse = two solves (block positions "
    .. "%.2e m, particle velocities %.2e m/s; the reference's iterations %.1f vs %.1f)", scheme, dx, dv, ia, ib))
end

os.exit(T.report())
