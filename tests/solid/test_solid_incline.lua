-- Irving's incline tests (thesis Figs. 3.2-3.3): a particle and a single
-- tetrahedron on a plane with tan(theta) = 0.5, Newmark integration with
-- collisions and friction (thesis 3.1-3.2), and the same with the Newton
-- integrator (contacts as constraints of the minimization, IPC's smoothed
-- lagged friction in the potential: its static friction creeps below
-- eps_v = 1e-4 m/s, so there "at rest" means slower than eps_v and "does
-- not slide" moving less than eps_v t).
--   accelerating (mu = 0.3):   s(t) = 1/2 g (sin - mu cos) t^2     within 1%
--   decelerating (mu = 0.6):   comes to rest at t = u0 / (g (mu cos - sin)) within 2%
--   static (mu = 0.6, at rest): does not slide
local T = require "tide.testing"
local incline = require "tide.cases.incline" -- the set-up, shared with figures/irving_incline.lua

local method
local eps_v = 1e-4 -- step_newton's default
local function rest_speed() return method == "step_newton" and eps_v or 1e-12 end
local function run(what, E, beta, mu, u0, steps, dt)
  what = method .. ", " .. what
  local r = incline.run { method = method, E = E, beta = beta, mu = mu, u0 = u0, steps = steps, dt = dt,
    rest = rest_speed() }
  local worst = 0
  for k, t in ipairs(r.t) do
    local exact = incline.exact(mu, u0, t)
    if mu < math.tan(incline.theta) and t >= 0.25 then worst = math.max(worst, math.abs(r.s[k] / exact - 1)) end
  end
  T.check(r.finite, what .. ": finite state")
  return r.mesh, worst, r.stop, r.s[#r.s]
end

local dt = 1e-3
for _, mth in ipairs { "step_newmark", "step_newton" } do
  method = mth
  -- a particle (node 1 of a tetrahedron without stiffness)
  local _, err = run("particle accelerating", 0, 0, 0.3, 0, 1000, dt)
  print(string.format(method .. ": particle mu=0.3: max rel. error of x(t) %.2e", err))
  T.check(err <= 0.01, string.format(method .. ": particle, mu = 0.3: x(t) within 1%% of 1/2 g (sin - mu cos) t^2 (%.2e)", err))
  local _, _, stop = run("particle decelerating", 0, 0, 0.6, 1.0, 1300, dt)
  local tstop = incline.stop_time(0.6, 1.0)
  print(string.format(method .. ": particle mu=0.6 u0=1: stops at %.4f s, analytic %.4f s", stop or -1, tstop))
  T.check(stop and math.abs(stop / tstop - 1) <= 0.02,
    string.format(method .. ": particle, mu = 0.6, u0 = 1: stops at %s s vs %.4f s", tostring(stop), tstop))
  local _, _, _, ds = run("particle static", 0, 0, 0.6, 0, 500, dt)
  T.near(ds, 0, method == "step_newton" and eps_v * 0.5 or 1e-12, method .. ": particle, mu = 0.6 from rest: does not slide")

  -- a tetrahedron with elasticity and damping (thesis Fig. 3.3)
  local E, beta = 1e5, 5
  local _, err2 = run("tet accelerating", E, beta, 0.3, 0, 1000, dt)
  print(string.format(method .. ": tetrahedron mu=0.3: max rel. error of x(t) %.2e", err2))
  T.check(err2 <= 0.01, string.format(method .. ": tetrahedron, mu = 0.3: within 1%% of the analytic motion (%.2e)", err2))
  local _, _, stop2 = run("tet decelerating", E, beta, 0.6, 1.0, 1300, dt)
  print(string.format(method .. ": tetrahedron mu=0.6 u0=1: stops at %.4f s", stop2 or -1))
  T.check(stop2 and math.abs(stop2 / tstop - 1) <= 0.02,
    string.format(method .. ": tetrahedron, mu = 0.6, u0 = 1: stops at %s s vs %.4f s", tostring(stop2), tstop))
  local mt, _, _, ds2 = run("tet static", E, beta, 0.6, 0, 500, dt)
  local _, sp = incline.along(mt, 1)
  print(string.format(method .. ": mu=0.6 from rest: particle moved %.1e m, tetrahedron %.1e m (elastic settling)", ds, ds2))
  -- only the elastic settling of the element under its weight (~rho g a / E ~ 1e-3 of its size)
  T.check(math.abs(ds2) < 1e-3 and math.abs(sp) < (method == "step_newton" and eps_v or 1e-9),
    string.format(method .. ": tetrahedron, mu = 0.6 from rest: does not slide (moved %.2e m, speed %.2e)", ds2, sp))
end

os.exit(T.report())
