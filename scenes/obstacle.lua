-- Liquid around an obstacle (2D or 3D): a dam break hits a sphere (disk in 2D)
-- resting on the floor, handled with cut cells: face fractions from the
-- obstacle's signed distance, active cells inside it, particles kept out of
-- it by its level set (lua/tide/flip.lua with fractions / solid_phi).
--   build/tide scenes/obstacle.lua [--dim 2|3] [--res 64] [--frames 60] [--scheme flip|apic]
-- Frames: out/obstacle/frame_%04d.png; manifest out/obstacle/run.json.
local tide = require "tide"
local flip = require "tide.flip"

local P = tide.params({ dim = 2, res = 64, frames = 60, fps = 30, scheme = "flip", radius = 0.18, out = "out/obstacle",
  png = true, image = 640 }, { dim = "2 or 3", res = "cells across the height", scheme = "pic, flip or apic",
  radius = "obstacle radius [m]", png = "write PNG frames", image = "PNG width in pixels" })
assert(P.dim == 2 or P.dim == 3, "--dim must be 2 or 3")

local dx = 1 / P.res
local size = P.dim == 2 and { 2 * P.res, P.res } or { 2 * P.res, P.res, P.res // 2 }
local g = tide.grid.new { size = size, dx = dx }
local lo, hi = g:bounds()
local centre = P.dim == 2 and { 1.3, P.radius } or { 1.3, P.radius, 0.5 * hi[3] }
local obstacle = tide.shape.sphere { center = centre, radius = P.radius }
local fractions, solid = g:face_fractions(obstacle)
local column = P.dim == 2 and { min = { 0, 0 }, max = { 0.5, 0.8 } } or { min = { 0, 0, 0 }, max = { 0.5, 0.8, hi[3] } }
local ps = tide.liquid.seed { grid = g, box = column, apic = P.scheme == "apic" }
local S = flip.new { grid = g, particles = ps, scheme = P.scheme, fractions = fractions, solid = solid,
  solid_phi = obstacle:sdf(g), method = P.dim == 3 and "mgpcg" or "pcg" }
print(string.format("obstacle: %s cells, %d particles, %s, cut-cell sphere r = %.2f m", table.concat(size, " x "), #ps,
  P.scheme, P.radius))

local phi = g:cells()
local function frame(i, t)
  if not P.png then return end
  local path = string.format("%s/frame_%04d.png", P.out, i)
  local title = string.format("obstacle  t = %.2f s", t)
  if P.dim == 2 then
    ps:level_set(g, { radius = 0.75 * dx, out = phi })
    tide.fileio.png2d { path = path, grid = g, phi = phi, particles = ps.x, radius = 0.2 * dx, labels = solid,
      width = P.image, title = title }
  else
    ps:level_set(g, { radius = 0.75 * dx, out = phi })
    tide.fileio.png3d { path = path, grid = g, phi = phi, width = P.image, title = title,
      meshes = { (function()
        local V, N, T = tide.fileio.isosurface { phi = obstacle:sdf(g), grid = g }
        return { vertices = V, normals = N, triangles = T, color = { 0.8, 0.45, 0.3 } }
      end)() } }
  end
end

tide.run { frames = P.frames, fps = P.fps, out = P.out, params = P, name = "obstacle",
  max_dt = function() return flip.max_dt(S) end,
  step = function(dt) return flip.step(S, dt) end,
  frame = frame }
