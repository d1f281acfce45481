-- A drop falls into a pool (2D or 3D), FLIP or APIC particles, free surface
-- from the particles' Zhu-Bridson level set (ghost fluid) -- lua/tide/flip.lua.
--   build/tide scenes/drop.lua [--dim 2|3] [--res 64] [--frames 45] [--scheme flip|apic]
-- Frames: out/drop/frame_%04d.png; manifest out/drop/run.json.
local tide = require "tide"
local flip = require "tide.flip"

local P = tide.params({ dim = 2, res = 64, frames = 45, fps = 30, scheme = "apic", depth = 0.3, radius = 0.12,
  height = 0.7, speed = 1.0, out = "out/drop", png = true, image = 640 },
  { dim = "2 or 3", res = "cells per side", scheme = "pic, flip or apic", depth = "pool depth [m]",
    radius = "drop radius [m]", height = "drop centre height [m]", speed = "initial downward speed [m/s]",
    png = "write PNG frames", image = "PNG width in pixels" })
assert(P.dim == 2 or P.dim == 3, "--dim must be 2 or 3")

local dx = 1 / P.res
local size = P.dim == 2 and { P.res, P.res } or { P.res, P.res, P.res }
local g = tide.grid.new { size = size, dx = dx }
local zero = P.dim == 2 and { 0, 0 } or { 0, 0, 0 }
local pool_top = P.dim == 2 and { 1, P.depth } or { 1, P.depth, 1 }
local ps = tide.liquid.seed { grid = g, box = { min = zero, max = pool_top }, apic = P.scheme == "apic" }
local centre = P.dim == 2 and { 0.5, P.height } or { 0.5, P.height, 0.5 }
local down = P.dim == 2 and { 0, -P.speed } or { 0, -P.speed, 0 }
ps:seed { grid = g, sphere = { center = centre, radius = P.radius }, velocity = down }
local S = flip.new { grid = g, particles = ps, scheme = P.scheme, level_set = "zhu_bridson",
  method = P.dim == 3 and "mgpcg" or "pcg" }
print(string.format("drop: %s cells, %d particles, %s", table.concat(size, " x "), #ps, P.scheme))

local phi = g:cells()
local function frame(i, t)
  if not P.png then return end
  local path = string.format("%s/frame_%04d.png", P.out, i)
  local title = string.format("drop  t = %.2f s", t)
  ps:level_set(g, { radius = 0.75 * dx, out = phi })
  if P.dim == 2 then
    tide.fileio.png2d { path = path, grid = g, phi = phi, width = P.image, title = title }
  else
    tide.fileio.png3d { path = path, grid = g, phi = phi, width = P.image, title = title }
  end
end

tide.run { frames = P.frames, fps = P.fps, out = P.out, params = P, name = "drop",
  max_dt = function() return flip.max_dt(S) end,
  step = function(dt) return flip.step(S, dt) end,
  frame = frame }
