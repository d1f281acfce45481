-- The same 2D water dam break with FLIP (APIC), MPM (weakly compressible
-- fluid, kappa/2 (J - 1)^2) and SPH (WCSPH) side by side: one PNG row per
-- frame (FLIP | MPM | SPH), and the surge fronts printed per frame and
-- written to <out>/fronts.csv (t [s], FLIP, MPM, SPH front [m], spread [%]).
--   build/tide scenes/dam_break_compare.lua [--res 64] [--frames 30] [--paper] (res 128, 45 frames)
-- Set-up: lua/tide/cases/dam_break_compare.lua (shared with
-- tests/sph/test_dam_break_compare.lua, which checks the fronts agree).
local tide = require "tide"
local C = require "tide.cases.dam_break_compare"

local P = tide.params({ res = 64, frames = 30, fps = 30, out = "out/dam_break_compare", image = 400, paper = false },
  { res = "cells per metre (tank 1.5 x 1 m)", image = "width of each panel in pixels",
    paper = "bigger run: res 128, 45 frames" })
if P.paper then P.res, P.frames = math.max(P.res, 128), math.max(P.frames, 45) end

local runs = C.setup(P.res)
local rows = { "t_s,flip_front_m,mpm_front_m,sph_front_m,spread_percent" }
local function frame(i, t)
  C.picture(runs, string.format("%s/frame_%04d.png", P.out, i), P.image)
  local f = { C.front(runs.flip), C.front(runs.mpm), C.front(runs.sph) }
  local lo, hi = math.min(f[1], f[2], f[3]), math.max(f[1], f[2], f[3])
  local spread = 100 * (hi - lo) / ((f[1] + f[2] + f[3]) / 3)
  print(string.format("t = %.3f s: fronts FLIP %.3f m, MPM %.3f m, SPH %.3f m (spread %.1f%%)", t, f[1], f[2], f[3],
    spread))
  rows[#rows + 1] = string.format("%.6g,%.6g,%.6g,%.6g,%.4g", t, f[1], f[2], f[3], spread)
  local path = P.out .. "/fronts.csv" -- rewritten each frame: temp name + rename
  local fh = assert(io.open(path .. ".tmp", "w"))
  fh:write(table.concat(rows, "\n"), "\n")
  assert(fh:close())
  assert(os.rename(path .. ".tmp", path))
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
