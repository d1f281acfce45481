-- MPM jelly (Li's lecture, "The Material-Point Method"): two elastic blocks
-- thrown at each other fall into a box beside a column of weakly compressible
-- water ("fluid as a special solid", kappa/2 (J - 1)^2), a snowball
-- (Stomakhin et al. 2013) and a sand pile (Drucker-Prager, Klar et al. 2016).
--   build/tide scenes/mpm_jelly.lua [--res 64] [--frames 60] [--dim 3] [--order 2|3]
-- The explicit MLS-MPM step is lua/tide/mls_mpm.lua; frames are
-- out/mpm_jelly/frame_%04d.png with particles coloured by material.
local tide = require "tide"
local mpm = require "tide.mls_mpm"

local P = tide.params({
  res = 64, frames = 60, fps = 30, dim = 2, order = 2, cfl = 0.4, E = 2e4, out = "out/mpm_jelly",
  image = 640, materials = "all",
}, {
  res = "cells across the box", dim = "2 or 3", order = "B-spline order: 2 quadratic, 3 cubic",
  cfl = "fraction of a cell per step (particle speed + elastic wave speed)",
  E = "Young's modulus of the jelly [Pa]", image = "PNG width in pixels",
  materials = "'all' or 'jelly' (only the two elastic blocks)",
})

local d = P.dim
local n = P.res
local g = tide.grid.new { size = d == 3 and { n, n, n } or { n, n }, dx = 1 / n }
local grav = d == 3 and { 0, -9.81, 0 } or { 0, -9.81 }
local M = tide.mpm.new { grid = g, order = P.order, gravity = grav, walls = "separate", friction = 0.2 }

local function box(lo, hi)
  if d == 2 then return tide.shape.box { min = { lo[1], lo[2] }, max = { hi[1], hi[2] } } end
  return tide.shape.box { min = { lo[1], lo[2], 0.35 }, max = { hi[1], hi[2], 0.65 } }
end
local function ball(c, r)
  return tide.shape.sphere { center = d == 3 and { c[1], c[2], 0.5 } or c, radius = r }
end
local function vel(vx, vy) return d == 3 and { vx, vy, 0 } or { vx, vy } end

local jelly = M:material { model = "neohookean", E = P.E, nu = 0.3, density = 1000 }
M:seed { shape = box({ 0.12, 0.55 }, { 0.32, 0.75 }), material = jelly, velocity = vel(2, 0), stream = 1 }
M:seed { shape = box({ 0.6, 0.62 }, { 0.78, 0.8 }), material = jelly, velocity = vel(-2, 0), stream = 2 }
if P.materials == "all" then
  local water = M:material { plastic = "fluid", kappa = 2e4, density = 1000 }
  local snow = M:material { model = "fixed_corotated", E = 1.4e5, nu = 0.2, density = 400, plastic = "snow",
    theta_c = 0.025, theta_s = 0.0075, hardening = 10 }
  local sand = M:material { model = "fixed_corotated", E = 3.5e5, nu = 0.3, density = 1600, plastic = "sand",
    friction_angle = 35 }
  M:seed { shape = box({ 0.05, 0.05 }, { 0.25, 0.35 }), material = water, stream = 3 }
  M:seed { shape = ball({ 0.5, 0.35 }, 0.07), material = snow, velocity = vel(1.5, 3), stream = 4 }
  M:seed { shape = box({ 0.75, 0.05 }, { 0.9, 0.35 }), material = sand, stream = 5 }
end
print(string.format("mpm jelly: %dD, %d cells per side, %d particles, %s B-splines", d, n, M.n,
  P.order == 2 and "quadratic" or "cubic"))

local function frame(i, t)
  mpm.picture(M, g, string.format("%s/frame_%04d.png", P.out, i), { width = P.image,
    title = string.format("MPM  t = %.2f s", t) })
end

local step = 0
tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "mpm_jelly",
  max_dt = function() return mpm.max_dt(M, P.cfl) end,
  step = function(dt)
    step = step + 1
    if step % 50 == 0 then M:sort() end -- memory locality; results unchanged
    mpm.step(M, dt)
  end,
  frame = frame,
}
local D = M:diagnostics()
print(string.format("kinetic %.4g J, elastic %.4g J, mass %.6g kg", D.kinetic, D.elastic, D.mass))
