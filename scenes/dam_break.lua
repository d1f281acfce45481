-- Dam break (2D): a column of water collapses in a closed tank.
--   build/tide scenes/dam_break.lua [--res 64] [--frames 60] [--scheme flip|pic|apic]
-- FLIP/PIC/APIC particles on a MAC grid with a free surface (p = 0 in air),
-- free-slip walls and a MIC(0)-PCG pressure solve: the recipe in
-- lua/tide/flip.lua.  Frames: out/dam_break/frame_%04d.png (particles coloured
-- by speed), run manifest out/dam_break/run.json, probes out/dam_break/probes.csv
-- (the surge front along the floor and the column height at the left wall, as
-- Martin & Moyce 1952 measured them, the volume, energies and largest speed of
-- the particles: tide.probes).
local tide = require "tide"
local flip = require "tide.flip"

local P = tide.params({
  res = 64, frames = 60, fps = 30, scheme = "flip", flip = 0.97, per_cell = 4, cfl = 1.0,
  width = 1.5, height = 1.0, column_w = 0.5, column_h = 0.75, out = "out/dam_break", png = true,
  image = 640,
}, {
  res = "cells across the tank height", scheme = "pic, flip or apic", flip = "FLIP blend ratio",
  per_cell = "particles per cell", width = "tank width [m]", height = "tank height [m]",
  column_w = "water column width [m]", column_h = "water column height [m]", png = "write PNG frames",
  image = "PNG width in pixels",
})

local dx = P.height / P.res
local g = tide.grid.new { size = { math.floor(P.width / dx + 0.5), P.res }, dx = dx }
local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { P.column_w, P.column_h } },
  per_cell = P.per_cell, apic = P.scheme == "apic" }
local S = flip.new { grid = g, particles = ps, scheme = P.scheme, flip = P.flip, cfl = P.cfl }
local n0 = #ps
print(string.format("dam break: %d x %d cells, dx = %.4g m, %d particles, %s", g.size[1], g.size[2], dx, n0, P.scheme))

local speed = tide.array.zeros(n0)
local function write_frame(i, t)
  if not P.png then return end
  -- particle speed |v| for the colours
  local v = ps.v
  for p = 1, #ps do
    local a, b = v:get(p, 1), v:get(p, 2)
    speed[p] = math.sqrt(a * a + b * b)
  end
  tide.fileio.png2d {
    path = string.format("%s/frame_%04d.png", P.out, i), grid = g, width = P.image,
    particles = ps.x, particle_color = speed, particle_range = { 0, 4 }, particle_colormap = "viridis",
    title = string.format("dam break  t = %.2f s", t),
  }
end

local probes = tide.probes.new { grid = g, per_cell = P.per_cell, state = function() return { particles = ps } end,
  { "front", wall = "y-", direction = "x+" }, { "elevation", wall = "x-", name = "column" },
  { "volume" }, { "kinetic" }, { "potential" }, { "max_speed" } }

local result = tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "dam_break",
  max_dt = function() return flip.max_dt(S) end,
  step = function(dt) return flip.step(S, dt) end,
  frame = write_frame, probes = probes,
}
local last = probes.rows[#probes.rows]
print(string.format("t = %.3f s: front %.3f m (column width %.3f), column height %.3f m (of %.3f)", last[1], last[2],
  P.column_w, last[3], P.column_h))
assert(#ps == n0, "particle count changed")
print(string.format("%d particles kept, %d steps, particle checksum %s", #ps, result.steps, ps.x:checksum()))
