--- Irving's incline set-up (thesis Sec. 3.3, Figs. 3.2-3.3): a particle or a
-- single tetrahedron on a plane with tan(theta) = 0.5, integrated with
-- collisions and friction against the ground collider.  Shared by the test
-- (tests/solid/test_solid_incline.lua) and the figure (figures/irving_incline.lua).
--
--   local incline = require "tide.cases.incline"
--   local r = incline.run { method = "step_newmark", E = 0, mu = 0.3, u0 = 0, steps = 1000, dt = 1e-3 }
--   -- r.t, r.s, r.v: time [s], downhill distance of node 1 from its start [m] and
--   -- downhill speed [m/s] after each step; r.stop: first time the speed is <= 0
--   -- (nil if it never stops); r.mesh: the mesh at the end
--   local s, v = incline.exact(mu, u0, t)   -- the analytic motion
--
-- E = 0 makes the tetrahedron's nodes free particles (node 1 is "the
-- particle"); E > 0 with damping_beta gives the damped elastic tetrahedron of
-- Fig. 3.3 (neo-Hookean, nu = 0.3, density 1000).
local raise = require("tide.core")._raise -- errors at the scene's line
local tide = require "tide"

local M = {}

M.g = 9.81
M.theta = math.atan(0.5)
local sn, cs = math.sin(M.theta), math.cos(M.theta)
local up = { cs, sn, 0 }  -- uphill tangent
local nrm = { -sn, cs, 0 } -- outward normal of the incline
M.up, M.normal = up, nrm

--- The tetrahedron (edge 0.1 m) with its face (1, 2, 3) on the incline,
-- moving downhill at u0.
function M.tet(E, beta, u0)
  local S, A = tide.solid, tide.array
  local a = 0.1
  local loc = { { 0, 0, 0 }, { a, 0, 0 }, { 0, 0, a }, { a / 3, a, a / 3 } }
  local nodes = {}
  for i, p in ipairs(loc) do
    nodes[i] = { p[1] * up[1] + p[2] * nrm[1], p[1] * up[2] + p[2] * nrm[2], p[3] }
  end
  local m = S.mesh { nodes = A.from(nodes), elements = A.from({ { 1, 2, 3, 4 } }, "i32") }
  m:material { model = "neohookean", E = E, nu = 0.3, density = 1000, damping_beta = beta }
  for i = 1, 4 do for k = 1, 3 do m.v:set(i, k, -u0 * up[k]) end end
  return m
end

--- Downhill position and speed of node i.
function M.along(m, i)
  local x, v = m.x, m.v
  return -(x:get(i, 1) * up[1] + x:get(i, 2) * up[2]), -(v:get(i, 1) * up[1] + v:get(i, 2) * up[2])
end

--- Downhill distance and speed of the mass-weighted centre of mass of mesh m
-- (of its nodes first..m.nv; first defaults to 1) on a slope at angle theta
-- (rad) whose uphill direction is (cos, sin, 0).
function M.com_along(m, theta, first)
  local cs, sn = math.cos(theta), math.sin(theta)
  local W, s, v = 0, 0, 0
  for i = first or 1, m.nv do
    local mi = m.mass[i]
    W = W + mi
    s = s - mi * (m.x:get(i, 1) * cs + m.x:get(i, 2) * sn)
    v = v - mi * (m.v:get(i, 1) * cs + m.v:get(i, 2) * sn)
  end
  return s / W, v / W
end

--- Analytic downhill distance and speed at time t (Coulomb friction mu,
-- initial downhill speed u0): s = u0 t + a t^2 / 2 with a = g (sin - mu cos)
-- while moving; a body at rest stays at rest when mu >= tan(theta).
function M.exact(mu, u0, t)
  local acc = M.g * (sn - mu * cs)
  if acc >= 0 or u0 <= 0 then
    if acc <= 0 and u0 <= 0 then return 0, 0 end
    return u0 * t + 0.5 * acc * t * t, u0 + acc * t
  end
  local ts = u0 / -acc
  local tt = math.min(t, ts)
  return u0 * tt + 0.5 * acc * tt * tt, u0 + acc * tt
end

--- Stopping time of a body sliding at u0 when mu cos > sin.
function M.stop_time(mu, u0) return u0 / (M.g * (mu * cs - sn)) end

--- Run one case (see the top); opts: method ("step_newmark" or
-- "step_newton"), E, beta, mu, u0, steps, dt, every (record every n-th step, 1),
-- rest (the speed that counts as stopped, 1e-12 m/s).
function M.run(o)
  local m = M.tet(o.E or 0, o.beta or 0, o.u0 or 0)
  local S = tide.solid
  local ground = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = nrm }, mu = o.mu }
  local s0 = M.along(m, 1)
  local r = { t = {}, s = {}, v = {}, mesh = m }
  local every = o.every or 1
  local step = m[o.method]
  if type(step) ~= "function" then raise("tide.cases.incline: unknown method " .. tostring(o.method)) end
  for n = 1, o.steps do
    step(m, { dt = o.dt, colliders = { ground } })
    local t = n * o.dt
    local s, sp = M.along(m, 1)
    if (o.u0 or 0) > 0 and not r.stop and sp <= (o.rest or 1e-12) then r.stop = t end
    if n % every == 0 or n == o.steps then
      r.t[#r.t + 1], r.s[#r.s + 1], r.v[#r.v + 1] = t, s - s0, sp
    end
  end
  r.finite = m.x:nonfinite() == 0
  return r
end

return M
