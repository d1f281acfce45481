-- The same 2D water dam break with FLIP (APIC), MPM (weakly compressible
-- fluid, kappa/2 (J - 1)^2) and SPH (WCSPH) side by side: one PNG row per
-- frame (FLIP | MPM | SPH), and the surge fronts printed per frame.
--   build/tide scenes/dam_break_compare.lua [--res 64] [--frames 30]
-- Set-up: lua/tide/cases/dam_break_compare.lua (shared with
-- tests/sph/test_dam_break_compare.lua, which checks the fronts agree).
local tide = require "tide"
local C = require "tide.cases.dam_break_compare"

local P = tide.params({ res = 64, frames = 30, fps = 30, out = "out/dam_break_compare", image = 400 },
  { res = "cells per metre (tank 1.5 x 1 m)", image = "width of each panel in pixels" })

local runs = C.setup(P.res)
local function frame(i, t)
  C.picture(runs, string.format("%s/frame_%04d.png", P.out, i), P.image)
  print(string.format("t = %.3f s: fronts FLIP %.3f m, MPM %.3f m, SPH %.3f m", t, C.front(runs.flip),
    C.front(runs.mpm), C.front(runs.sph)))
end
local t = 0
tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "dam_break_compare",
  max_dt = function() return 1 / P.fps end,
  step = function(dt)
    t = t + dt
    for _, k in ipairs { "flip", "mpm", "sph" } do C.advance(runs[k], t) end
  end,
  frame = frame,
}
