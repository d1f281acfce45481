-- A granular column collapsing (MPM sand: Drucker-Prager return mapping in
-- the Hencky strain, Klar et al. 2016).  A column of height h0 and half
-- width r0 is released on a rough (sticky) floor; the final runout r_inf and
-- height h_inf are printed against the aspect ratio a = h0/r0, the numbers
-- to compare with the column-collapse scalings of Lube et al. 2005 (not yet
-- validated: docs/mpm.md).
--   build/tide scenes/mpm_sand_column.lua [--res 128] [--aspect 1] [--frames 60] [--dim 3]
local tide = require "tide"
local mpm = require "tide.mls_mpm"

local P = tide.params({
  res = 128, dim = 2, frames = 60, fps = 30, aspect = 1, friction_angle = 30, cfl = 0.4,
  out = "out/mpm_sand_column", image = 640, E = 3.5e5,
}, {
  res = "cells across the box", dim = "2 or 3", aspect = "h0/r0 of the column",
  friction_angle = "Drucker-Prager friction angle [deg]", cfl = "Courant number", E = "Young's modulus [Pa]",
  image = "PNG width in pixels",
})

local d, n = P.dim, P.res
local g = tide.grid.new { size = d == 3 and { n, n // 2, n } or { n, n // 2 }, dx = 1 / n }
local M = tide.mpm.new { grid = g, gravity = d == 3 and { 0, -9.81, 0 } or { 0, -9.81 }, walls = "sticky" }
local sand = M:material { model = "fixed_corotated", E = P.E, nu = 0.3, density = 1600, plastic = "sand",
  friction_angle = P.friction_angle }
local floor = 3 / n -- top of the wall band
local r0 = 0.12
local h0 = P.aspect * r0
local lo = d == 3 and { 0.5 - r0, floor, 0.5 - r0 } or { 0.5 - r0, floor }
local hi = d == 3 and { 0.5 + r0, floor + h0, 0.5 + r0 } or { 0.5 + r0, floor + h0 }
M:seed { shape = tide.shape.box { min = lo, max = hi }, material = sand, stream = 2 }
print(string.format("mpm sand column: %dD, %d particles, a = h0/r0 = %.2f", d, M.n, P.aspect))

local function frame(i, t)
  mpm.picture(M, g, string.format("%s/frame_%04d.png", P.out, i), { width = P.image,
    title = string.format("MPM sand  t = %.2f s", t) })
end

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "mpm_sand_column",
  max_dt = function() return mpm.max_dt(M, P.cfl) end,
  step = function(dt) mpm.step(M, dt) end,
  frame = frame,
}
local x = M.x
local xs, top = {}, floor
for p = 1, M.n do
  xs[#xs + 1] = math.abs(x[p][1] - 0.5)
  top = math.max(top, x[p][2])
end
table.sort(xs)
local rinf = xs[math.floor(0.995 * #xs)]
print(string.format("runout r_inf = %.3f m ((r_inf - r0)/r0 = %.2f), height h_inf = %.3f m (h_inf/r0 = %.2f), " ..
  "speed now %.3f m/s", rinf, (rinf - r0) / r0, top - floor, (top - floor) / r0, M:max_speed()))
