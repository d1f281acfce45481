-- A torus with no strength collapses into a puddle on the ground; when its
-- strength is switched on it recovers its shape (Irving, thesis Fig. 2.2):
-- inverted and flat elements recover through the inversion-aware diagonal
-- frame (rotated linear model, Irving 2.5-2.6).  Backward Euler by Newton's
-- method on the incremental potential with the ground as a constraint of the
-- minimization, frictional ground; or Irving's Newmark scheme (--method
-- newmark, explicit elasticity: 10x smaller steps).
--   tide scenes/solid_torus_collapse.lua [--frames 90] [--h 0.04] [--out out/torus]
--        [--model neohookean] [--method newmark] [--mu 0]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 60, fps = 30, h = 0.05, E = 2e4, out = "out/torus_collapse", png = true,
    model = "rotated_linear", method = "newton", mu = 0.5 },
  { h = "BCC lattice spacing [m]", E = "Young's modulus after the collapse [Pa]", png = "write PNG frames",
    model = "rotated_linear or neohookean (extrapolated below J = 0.1)", method = "newton or newmark",
    mu = "friction coefficient of the ground" })

local torus = S.shape.torus { center = { 0, 0.15, 0 }, axis = { 0, 1, 0 }, R = 0.2, r = 0.08 }
local m = S.bcc { shape = torus, h = P.h }
local function strength(E)
  m:material { model = P.model, E = E, nu = 0.3, density = 1000, damping_beta = 0.02 * E + 1 }
end
strength(1) -- no strength: it collapses
local ground = solids.ground(0, P.mu)
print(string.format("%s, rest volume %.4f m^3", tostring(m), m:volume()))

local t_on = P.frames / P.fps / 3 -- strength switched on after a third of the run
local on = false
local newmark = P.method == "newmark"
local step = newmark and solids.stepper(m, { method = "newmark", colliders = { ground } })
  or solids.stepper(m, { method = P.method, colliders = { ground }, maxit = 30, tol = 1e-4 })

local function inverted()
  local v, n = m:volumes(), 0
  for e = 1, m.ne do if v[e] <= 0 then n = n + 1 end end
  return n
end

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return newmark and 1 / 600 or 1 / 60 end,
  step = function(dt, t)
    if not on and t >= t_on then
      strength(P.E)
      on = true
    end
    return step(dt)
  end,
  frame = function(i, t)
    if i % 10 == 0 then
      print(string.format("t = %.2f s: volume %.1f%% of rest, %d flat or inverted elements", t,
        100 * solids.volume_ratio(m), inverted()))
    end
    if P.png then
      solids.png3d(P.out .. "/frame_%04d.png", i, { solids.surface(m) }, {
        camera = { position = { 0.8, 0.8, 1.0 }, target = { 0, 0.08, 0 }, fov = 35 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", t) })
    end
  end,
}
