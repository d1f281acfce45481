-- Coupling solids of any tide.solid material (beyond the thesis, its ch. 7): materials other than
-- the corotated linear model enter the coupled projection linearized at x* (K = the PSD-projected
-- elastic Hessian, b = K x* - dE/dx; tide_solid_elastic_matrices), so the solid half of the
-- coupled solve is one Newton iteration of the solid's backward-Euler incremental potential from
-- x*, and the step does not iterate.
--  * exactness: a strongly deformed (30% stretch, sheared), moving, partly pinned soft body clear
--    of the liquid gets from one coupled projection exactly the velocities of one Newton iteration
--    of m:step_newton{ guess = "start", maxit = 1 } (neo-Hookean, StVK, fixed corotated), with
--    the SPD formulation solved by CHOLMOD and by MG-in-block PCG, and with the indefinite one;
--    the converged Newton step differs by a few percent here (what not iterating loses; printed);
--  * rest stays rest: a neo-Hookean block at rest in a liquid at rest, no gravity, 50 steps;
--  * (Archimedes with a soft neo-Hookean block: test_zarifi_physics.lua)
--  * the factored formulation (K = R^T R) refuses a neo-Hookean solid with a clear error.
local tide = require "tide"
local T = require "tide.testing"
local zarifi = require "tide.zarifi"
local LIQ, AIR = tide.liquid.LIQUID, tide.liquid.AIR

local check = T.check -- every measured number is printed beside its assertion
T.check = function(ok, msg) print(msg); return check(ok, msg) end

local function maxabs(a) return math.max(-a:min(), a:max()) end

-- ------------------------------------------------------------ exactness vs one Newton iteration
local n, dt = 32, 0.01
local g = tide.grid.new { size = { n, n }, dx = 1 / n }
local lab, phi = g:cells("u8"), g:cells()
for i = 1, n do
  for j = 1, n do
    local y = (j - 0.5) / n
    phi:set(i, j, y - 0.3)
    lab:set(i, j, y < 0.3 and LIQ or AIR)
  end
end
local function body(model)
  local m = tide.solid.box { min = { 0.3, 0.6 }, max = { 0.7, 0.75 }, cells = { 8, 3 } }
  m:material { model = model, E = 1e4, nu = 0.3, density = 500 }
  for q = 1, m.nv do
    local x, y = m.x:get(q, 1), m.x:get(q, 2)
    m.x:set(q, 1, 0.5 + 1.3 * (x - 0.5) + 0.2 * (y - 0.6))
    m.v:set(q, 1, 0.3 * math.sin(7 * x))
    m.v:set(q, 2, 0.2 * math.cos(5 * y))
  end
  m:pin(function(x) return x < 0.3 end)
  return m
end
for _, model in ipairs { "neohookean", "stvk", "fixed_corotated" } do
  local ref = body(model)
  local x0 = ref.x:clone()
  ref:step_newton { dt = dt, maxit = 1, guess = "start" }
  local v1 = ref.x:clone()
  v1:axpy(-1, x0)
  v1:scale(1 / dt)
  local conv = body(model)
  conv:step_newton { dt = dt, guess = "start" }
  local vc = conv.x:clone()
  vc:axpy(-1, x0)
  vc:scale(1 / dt)
  for _, c in ipairs { { "spd", "cholmod" }, { "spd", "mgpcg" }, { "indefinite", "ldlt" } } do
    local m = body(model)
    for q = 1, m.nv do m.v:set(q, 2, m.v:get(q, 2) - 9.81 * dt) end
    local u = g:mac()
    u:add_gravity(dt, { 0, -9.81 })
    local st = tide.couple.project { u = u, labels = lab, solids = { m }, dt = dt, phi = phi, tol = 1e-12,
      formulation = c[1], solver = c[2] }
    local d = m.v:clone()
    d:axpy(-1, v1)
    local e = maxabs(d) / maxabs(v1)
    local dc = m.v:clone()
    dc:axpy(-1, vc)
    T.check(st.converged and e < 1e-9, string.format("%s, %s + %s: coupled solid = one Newton iteration of its "
      .. "incremental potential (relative %.1e); the converged Newton step differs by %.1f%%", model, c[1], c[2], e,
      100 * maxabs(dc) / maxabs(vc)))
  end
end

-- ---------------------------------------------------------------- rest stays rest
do
  local m = tide.solid.box { min = { 0.35, 0.2 }, max = { 0.65, 0.4 }, cells = { 6, 4 } }
  m:material { model = "neohookean", E = 1e5, nu = 0.3, density = 700, gravity = { 0, 0 } }
  local sphi = tide.shape.mesh { vertices = m.x, faces = m:boundary() }:sdf(g)
  local lphi = g:cells()
  for i = 1, n do for j = 1, n do lphi:set(i, j, math.max((j - 0.5) / n - 0.6, -sphi:get(i, j))) end end
  local ps = tide.liquid.seed { grid = g, phi = lphi }
  local S = zarifi.new { grid = g, particles = ps, solids = { m }, gravity = { 0, 0 } }
  local worst = 0
  for _ = 1, 50 do
    zarifi.step(S, 0.005)
    worst = math.max(worst, maxabs(m.v), S.u:max_speed(), ps:max_speed())
  end
  T.check(worst < 1e-8, string.format("neo-Hookean: rest stays rest over 50 steps without gravity: max |v| = %.3g", worst))
end

-- ---------------------------------------------------------------- the factored form needs K = R^T R
do
  local m = body("neohookean")
  T.raises(function()
    tide.couple.project { u = g:mac(), labels = lab, solids = { m }, dt = dt, phi = phi, formulation = "factored" }
  end, "factored formulation needs the corotated", "factored refuses a neo-Hookean solid")
end
T.report()
