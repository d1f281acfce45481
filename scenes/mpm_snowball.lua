-- A snowball thrown at a wall breaks (MPM snow, Stomakhin et al. 2013:
-- singular values of the elastic F clamped to [1 - theta_c, 1 + theta_s],
-- hardening exp(xi (1 - J_p))).  The wall is a sticky-free collider box
-- (separating, with friction).
--   build/tide scenes/mpm_snowball.lua [--res 96] [--dim 3] [--frames 30] [--speed 6]
-- The step is lua/tide/mls_mpm.lua; frames are out/mpm_snowball/frame_%04d.png,
-- particles coloured by the plastic volume ratio J_p (compacted snow darker).
local tide = require "tide"
local mpm = require "tide.mls_mpm"

local P = tide.params({
  res = 96, dim = 2, frames = 30, fps = 60, speed = 6, cfl = 0.4, out = "out/mpm_snowball", image = 640,
  theta_c = 0.025, theta_s = 0.0075, hardening = 10, E = 1.4e5,
}, {
  res = "cells across the box", dim = "2 or 3", speed = "throw speed [m/s]", cfl = "Courant number",
  theta_c = "critical compression", theta_s = "critical stretch", hardening = "hardening xi",
  E = "Young's modulus of snow [Pa]", image = "PNG width in pixels",
})

local d, n = P.dim, P.res
local g = tide.grid.new { size = d == 3 and { n, n, n } or { n, n }, dx = 1 / n }
local M = tide.mpm.new { grid = g, gravity = d == 3 and { 0, -9.81, 0 } or { 0, -9.81 }, walls = "separate",
  friction = 0.3 }
local snow = M:material { model = "fixed_corotated", E = P.E, nu = 0.2, density = 400, plastic = "snow",
  theta_c = P.theta_c, theta_s = P.theta_s, hardening = P.hardening }
local c = d == 3 and { 0.3, 0.5, 0.5 } or { 0.3, 0.5 }
M:seed { shape = tide.shape.sphere { center = c, radius = 0.12 }, material = snow,
  velocity = d == 3 and { P.speed, 0, 0 } or { P.speed, 0 }, stream = 1 }
local wall = d == 3 and tide.shape.box { min = { 0.78, 0, 0 }, max = { 0.85, 1, 1 } }
  or tide.shape.box { min = { 0.78, 0 }, max = { 0.85, 1 } }
M:collider { shape = wall, bc = "separate", friction = 0.3 }
print(string.format("mpm snowball: %dD, %d particles", d, M.n))

local solid = d == 2 and select(2, g:face_fractions(wall)) or nil -- the wall drawn in 2D frames
local function frame(i, t)
  mpm.picture(M, g, string.format("%s/frame_%04d.png", P.out, i), { color = M.Jp, range = { 0.8, 1.0 },
    width = P.image, labels = solid, title = string.format("MPM snow  t = %.3f s", t) })
end

local step = 0
tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "mpm_snowball",
  max_dt = function() return mpm.max_dt(M, P.cfl) end,
  step = function(dt)
    step = step + 1
    if step % 50 == 0 then M:sort() end
    mpm.step(M, dt)
  end,
  frame = frame,
}
local Jp = M.Jp
local lo = math.huge
for p = 1, M.n do lo = math.min(lo, Jp[p]) end
print(string.format("least plastic volume ratio J_p = %.3f (compacted snow)", lo))
