-- Dam break (3D): a block of water collapses in a closed tank.
--   build/tide scenes/dam_break_3d.lua [--res 32] [--frames 60] [--scheme flip|pic|apic]
-- FLIP/PIC/APIC particles on a MAC grid, free surface, free-slip walls,
-- MIC(0)-PCG pressure solve (lua/tide/flip.lua).  Frames: the liquid surface
-- (Zhu-Bridson level set of the particles) rendered by tide.fileio.png3d into
-- out/dam_break_3d/frame_%04d.png; run manifest out/dam_break_3d/run.json.
local tide = require "tide"
local flip = require "tide.flip"

local P = tide.params({
  res = 32, frames = 60, fps = 30, scheme = "flip", flip = 0.97, per_cell = 8, cfl = 1.0,
  width = 1.5, height = 1.0, depth = 0.5, column_w = 0.5, column_h = 0.75, out = "out/dam_break_3d",
  png = true, image = 640, particles = false,
}, {
  res = "cells across the tank height", scheme = "pic, flip or apic", flip = "FLIP blend ratio",
  per_cell = "particles per cell", width = "tank size in x [m]", height = "tank size in y (up) [m]",
  depth = "tank size in z [m]", column_w = "water block size in x [m]", column_h = "water block height [m]",
  png = "write PNG frames", image = "PNG width in pixels", particles = "draw particles instead of the surface",
})

local dx = P.height / P.res
local size = { math.floor(P.width / dx + 0.5), P.res, math.floor(P.depth / dx + 0.5) }
local g = tide.grid.new { size = size, dx = dx }
local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0, 0 }, max = { P.column_w, P.column_h, P.depth } },
  per_cell = P.per_cell, apic = P.scheme == "apic" }
local S = flip.new { grid = g, particles = ps, scheme = P.scheme, flip = P.flip, cfl = P.cfl, per_cell = P.per_cell }
local n0 = #ps
print(string.format("dam break 3D: %d x %d x %d cells, dx = %.4g m, %d particles, %s", size[1], size[2], size[3],
  dx, n0, P.scheme))

local phi = g:cells()
local function write_frame(i, t)
  if not P.png then return end
  local path = string.format("%s/frame_%04d.png", P.out, i)
  local title = string.format("dam break 3D  t = %.2f s", t)
  local camera = { position = { 0.75 * P.width + 1.2, 1.6, P.depth + 2.4 }, target = { 0.5 * P.width, 0.3, 0.5 * P.depth }, fov = 35 }
  if P.particles then
    tide.fileio.png3d { path = path, grid = g, particles = ps.x, radius = 0.3 * dx, width = P.image,
      camera = camera, title = title }
  else
    ps:level_set(g, { radius = 0.75 * dx, out = phi })
    tide.fileio.png3d { path = path, grid = g, phi = phi, width = P.image, camera = camera, title = title }
  end
end

local result = tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "dam_break_3d",
  max_dt = function() return flip.max_dt(S) end,
  step = function(dt) return flip.step(S, dt) end,
  frame = write_frame,
}
assert(#ps == n0, "particle count changed")
print(string.format("%d particles kept, %d steps, liquid volume %.4f m^3 (initial %.4f), particle checksum %s", #ps,
  result.steps, #ps * dx ^ 3 / (P.per_cell * (S.mean_density or 1)), P.column_w * P.column_h * P.depth, ps.x:checksum()))
