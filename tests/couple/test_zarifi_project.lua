-- tide.couple.project (Zarifi Eq. 5.17, 5.25-5.36, 5.37-5.45) from Lua on a small 2D pool with a
-- submerged block: the three formulations agree; a neutrally buoyant block stays (nearly) at rest
-- after gravity is added to liquid and solid (buoyancy balances weight through the coupled
-- pressure), a light one rises and a heavy one sinks; the SPD system matrix is symmetric; the
-- stats name what was solved; bad arguments raise.
local tide = require "tide"
local T = require "tide.testing"
local LIQ, SOLID = tide.liquid.LIQUID, tide.liquid.SOLID

local n, level, dt, rho, grav = 32, 0.8, 0.01, 1000, 9.81
local lo, hi = { 0.35, 0.3 }, { 0.65, 0.5 }
local g, fr, lab, phi = dofile(T.source("tests/couple/zarifi_pool_util.lua")).pool(n, level, lo, hi)

-- one coupled projection of a pool at rest with gravity added (Alg. 4 lines 4 and 7)
local function project(density, opts)
  local m = tide.solid.box { min = lo, max = hi, cells = { 6, 4 } }
  m:material { model = "linear", E = 1e7, nu = 0.3, density = density }
  local nv = m.x.shape[1]
  for q = 1, nv do m.v:set(q, 2, -grav * dt) end
  local u = g:mac()
  u:add_gravity(dt, { 0, -grav })
  local p = g:cells()
  local args = { u = u, labels = lab, solids = { m }, dt = dt, rho = rho, phi = phi, fractions = fr,
    pressure = p, tol = 1e-12 }
  for k, v in pairs(opts or {}) do args[k] = v end
  local st = tide.couple.project(args)
  local vy = 0
  for q = 1, nv do vy = vy + m.v:get(q, 2) / nv end
  return st, vy, p, u, m
end

-- the formulations agree
local ref, vref, pref = project(1000, { formulation = "indefinite", solver = "ldlt" })
for _, c in ipairs { { "spd", "pcg" }, { "spd", "cholmod" }, { "indefinite", "minres" },
  { "indefinite", "bicgstab" }, { "factored", "pcg" }, { "factored", "cholmod" } } do
  local st, vy, p = project(1000, { formulation = c[1], solver = c[2] })
  local dp = 0
  for i = 1, n do for j = 1, n do dp = math.max(dp, math.abs(p:get(i, j) - pref:get(i, j))) end end
  T.check(st.converged and st.formulation == c[1] and st.solver == c[2], c[1] .. "/" .. c[2] .. " converged")
  T.check(dp < 1e-6 * pref:max(), string.format("%s/%s: pressure agrees (%.2e of %.3g)", c[1], c[2], dp, pref:max()))
  T.check(math.abs(vy - vref) < 1e-8, string.format("%s/%s: solid velocity agrees (%.2e)", c[1], c[2], vy - vref))
end
-- hydrostatics: the pressure at the block's top is about rho g depth
local ptop = pref:get(16, math.floor(hi[2] * n) + 2)
local depth = level - (math.floor(hi[2] * n) + 1.5) / n
T.near(ptop, rho * grav * depth, 0.05 * rho * grav * depth, "hydrostatic pressure above the block")
-- neutral buoyancy: the block stays nearly at rest; light rises, heavy sinks
T.check(math.abs(vref) < 0.05 * grav * dt, string.format("neutral block: vy %.3g vs g dt %.3g", vref, grav * dt))
local _, vlight = project(500)
local _, vheavy = project(2000)
T.check(vlight > 0.2 * grav * dt, "a light block rises: " .. vlight)
T.check(vheavy < -0.1 * grav * dt, "a heavy block sinks: " .. vheavy)
T.check(vheavy > -grav * dt, "a heavy block is slowed by buoyancy: " .. vheavy)
-- the SPD matrix and the stats
local st = project(1000, { matrix = true, alpha = 1e-3 })
T.check(st.matrix and st.matrix.nrows == st.unknowns, "the system matrix is returned")
local M = st.matrix
local D = M - M:transpose()
local _, _, v = D:totriplets()
local asym = 0
for q = 1, v:size() do asym = math.max(asym, math.abs(v[q])) end
T.check(asym < 1e-12, "the SPD matrix is symmetric: " .. asym)
T.check(st.alpha == 1e-3 and st.pieces > 0 and st.liquid > 0 and st.solid_dofs > 0, "stats")
T.check(st.geometry_seconds >= 0 and st.assembly_seconds >= 0 and st.solve_seconds >= 0, "timings")
-- errors
T.raises(function() project(1000, { formulation = "spd", solver = "minres" }) end, "solver", "solver mismatch")
T.raises(function() project(1000, { formulation = "nope" }) end, "formulation", "bad formulation")
T.raises(function() project(1000, { alpha = -1 }) end, "alpha", "bad alpha")
T.raises(function() project(1000, { sampling = "cubic" }) end, "sampling", "bad sampling")
-- the linear sampling and the damping-only coupling agree across formulations too
local _, vl = project(1000, { sampling = "linear", formulation = "indefinite", solver = "ldlt" })
local _, vl2 = project(1000, { sampling = "linear", formulation = "spd", solver = "cholmod" })
T.check(math.abs(vl - vl2) < 1e-8, string.format("linear sampling: spd and indefinite agree (%.2e)", vl - vl2))
local _, vd = project(1000, { elastic = false, formulation = "indefinite", solver = "ldlt" })
local _, vd2 = project(1000, { elastic = false, formulation = "factored", solver = "cholmod" })
T.check(math.abs(vd - vd2) < 1e-8, string.format("damping-only: factored and indefinite agree (%.2e)", vd - vd2))
-- elastic_force = false (zarifi.gravity_response): the stiffness kept, the elastic force at x left
-- out.  A neutral block stretched 5% in x: with its elastic force its nodes spring back; without it
-- they move together as the unstretched block's do (the response to gravity and buoyancy alone);
-- damping-only (elastic = false, no stiffness) its nodes fall each on its own.
local function spread(stretch, opts)
  local m = tide.solid.box { min = lo, max = hi, cells = { 6, 4 } }
  m:material { model = "linear", E = 1e7, nu = 0.3, density = 1000 }
  local nv, cx = m.x.shape[1], 0.5 * (lo[1] + hi[1])
  for q = 1, nv do
    m.x:set(q, 1, cx + stretch * (m.x:get(q, 1) - cx))
    m.v:set(q, 2, -grav * dt)
  end
  local u = g:mac()
  u:add_gravity(dt, { 0, -grav })
  local args = { u = u, labels = lab, solids = { m }, dt = dt, rho = rho, phi = phi, fractions = fr, tol = 1e-12,
    formulation = "spd", solver = "cholmod" }
  for k, v in pairs(opts) do args[k] = v end
  tide.couple.project(args)
  local vx, vy = m.v:select(2, 1), m.v:select(2, 2)
  return math.max(vx:max() - vx:min(), vy:max() - vy:min())
end
local s_rest, s_el, s_noel, s_damp = spread(1, {}), spread(1.05, {}), spread(1.05, { elastic_force = false }),
  spread(1, { elastic = false })
T.check(s_el > 100 * s_rest and s_noel < 2 * s_rest + 1e-12 and s_damp > 10 * s_rest, string.format(
  "elastic_force = false: the stretched block's nodes move together (velocity spread %.2e m/s, unstretched %.2e, with its elastic force %.2e; damping-only %.2e)",
  s_noel, s_rest, s_el, s_damp))
T.raises(function() project(1000, { solids = { 3 } }) end, "TetMesh", "bad solid")
T.raises(function() tide.couple.project { u = g:mac(), labels = lab, solids = {}, dt = 0 } end, "dt", "bad dt")
local bare = tide.solid.box { min = lo, max = hi, cells = { 2, 2 } }
T.raises(function() tide.couple.project { u = g:mac(), labels = lab, solids = { bare }, dt = dt } end,
  "material", "solid without material")
-- the iteration limit is reported, never claimed converged
local stc = project(1000, { maxit = 2, must_converge = false })
T.check(stc.converged == false, "maxit reached: converged = false")
T.raises(function() project(1000, { maxit = 2 }) end, "converge", "maxit reached raises by default")
-- a liquid cell walled in on every side (solid cells) that no solid piece touches is a zero row
-- of the system (cells under a ball resting on the floor): its pressure is set to 0 and every
-- solver still runs (CHOLMOD said "not positive definite" before)
do
  local lab2 = lab:clone()
  lab2:set(3, 3, LIQ)
  for _, c in ipairs { { 2, 3 }, { 4, 3 }, { 3, 2 }, { 3, 4 } } do lab2:set(c[1], c[2], SOLID) end
  for _, sv in ipairs { "cholmod", "mgpcg", "pcg" } do
    local st2, _, p2 = project(1000, { labels = lab2, solver = sv })
    T.check(st2.converged and st2.dead == 1 and p2:get(3, 3) == 0, string.format(
      "a walled-in liquid cell: %s solves, %d dead row, p there %g", sv, st2.dead, p2:get(3, 3)))
  end
  local st3 = project(1000, { labels = lab2, formulation = "indefinite", solver = "ldlt" })
  T.check(st3.converged and st3.dead == 1, "a walled-in liquid cell: indefinite + ldlt solves")
end
os.exit(T.report())
