-- 03: APIC particles, a falling block of water and a pressure picture.
--   build/tide examples/03_apic_splash.lua --res 48 --frames 45
-- Shows how a scene adds its own output: each frame draws the pressure of
-- the last projection as a colour map behind the particles.
local tide = require "tide"
local flip = require "tide.flip"
local P = tide.params { res = 48, frames = 45, out = "out/03_apic_splash" }

local g = tide.grid.new { size = { P.res, P.res }, dx = 1 / P.res }       -- 1 m x 1 m box
local ps = tide.liquid.seed { grid = g, per_cell = 4, apic = true,
  box = { min = { 0, 0 }, max = { 1, 0.25 } } }                            -- a pool ...
tide.liquid.seed { particles = ps, grid = g, per_cell = 4, stream = 2,  -- ... and a block above it
  box = { min = { 0.35, 0.55 }, max = { 0.65, 0.85 } } }
local S = flip.new { grid = g, particles = ps, scheme = "apic" }

tide.run {
  frames = P.frames, fps = 30, out = P.out, params = P,
  max_dt = function() return flip.max_dt(S) end,
  step = function(dt) return flip.step(S, dt) end,
  frame = function(i, t)
    tide.fileio.png2d { path = string.format("%s/frame_%04d.png", P.out, i), grid = g, width = 480,
      field = S.pressure, range = { 0, 5000 }, colormap = "blues", colorbar = true,
      colorbar_label = "p [Pa]", particles = ps, particle_rgb = { 0.9, 0.4, 0.1 }, radius = 0.004,
      title = string.format("APIC splash  t = %.2f s", t) }
  end,
}
