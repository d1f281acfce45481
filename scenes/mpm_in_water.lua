-- MPM bodies in a FLIP liquid, two-way coupled on one grid (tide.mpm_flip:
-- one momentum grid, one pressure projection over liquid and bodies;
-- docs/mpm.md "MPM in a FLIP liquid").  Two elastic blocks are dropped into a
-- tank: a light one (0.5 rho_water) that floats half submerged and a heavy
-- one (1.5 rho_water) that sinks.  Prints, per frame, the light block's
-- submerged volume fraction (Archimedes: 0.5) and the heavy block's height.
--   build/tide scenes/mpm_in_water.lua [--res 64] [--frames 60] [--dim 3] [--paper] (res 128, 120 frames)
local tide = require "tide"
local mf = require "tide.mpm_flip"
local mpm = require "tide.mls_mpm"

local P = tide.params({
  res = 64, dim = 2, frames = 60, fps = 30, out = "out/mpm_in_water", image = 640, E = 2e4, paper = false,
  light = 500, heavy = 1500, scheme = "flip",
}, {
  res = "cells across the tank", dim = "2 or 3", E = "Young's modulus of the blocks [Pa]",
  image = "PNG width in pixels", paper = "bigger run: res 128, 120 frames",
  light = "density of the floating block [kg/m^3]", heavy = "density of the sinking block [kg/m^3]",
  scheme = "liquid transfer: flip, apic or pic",
})
if P.paper then P.res, P.frames = math.max(P.res, 128), math.max(P.frames, 120) end

local d, n = P.dim, P.res
local g = tide.grid.new { size = d == 3 and { n, n // 2, n // 2 } or { n, n // 2 }, dx = 1 / n }
local zc = d == 3 and 0.25 or nil
local function box(x0, y0, x1, y1, zh)
  if d == 2 then return tide.shape.box { min = { x0, y0 }, max = { x1, y1 } } end
  return tide.shape.box { min = { x0, y0, zc - zh }, max = { x1, y1, zc + zh } }
end
local H = 0.25
local light = box(0.12, H + 0.02, 0.42, H + 0.14, 0.1)  -- 0.3 x 0.12 (x 0.2), released above the surface
local heavy = box(0.62, H + 0.05, 0.78, H + 0.17, 0.1)  -- 0.16 x 0.12 (x 0.2)
local gravity = d == 3 and { 0, -9.81, 0 } or { 0, -9.81 }
local ps = tide.liquid.seed { grid = g, box = { min = d == 3 and { 0, 0, 0 } or { 0, 0 },
  max = d == 3 and { 1, H, 0.5 } or { 1, H } }, apic = P.scheme == "apic" }
local M = tide.mpm.new { grid = g, gravity = gravity, walls = "slip", node_volume = true }
local m1 = M:material { model = "neohookean", E = P.E, nu = 0.3, density = P.light }
local m2 = M:material { model = "neohookean", E = P.E, nu = 0.3, density = P.heavy }
M:seed { shape = light, material = m1, stream = 1 }
M:seed { shape = heavy, material = m2, stream = 2 }
local S = mf.new { grid = g, particles = ps, mpm = M, scheme = P.scheme, gravity = gravity }
print(string.format("mpm in water: %dD, %d liquid particles, %d MPM particles (blocks %g and %g kg/m^3)", d, #ps,
  M.n, P.light, P.heavy))

-- the light block's submerged volume fraction below the mean surface level
-- (the zero of the liquid's level set, columns with no block particle) and
-- the heavy block's lowest particle
local function report(t)
  local x, ids = M.x, M.material_id
  local h = g.dx / 2 -- MPM particle spacing (2^dim per cell)
  local lo, cnt, sub = math.huge, 0, 0
  local covered = {}
  for p = 1, M.n do covered[math.floor(x[p][1] / g.dx) + 1] = true end
  local s, c = 0, 0
  local k = d == 3 and n // 4 or nil
  for i = 4, n - 3 do
    if not covered[i] then
      for j = n // 2 - 1, 1, -1 do
        local a = d == 3 and S.phi:get(i, j, k) or S.phi:get(i, j)
        local b = d == 3 and S.phi:get(i, j + 1, k) or S.phi:get(i, j + 1)
        if a < 0 and b >= 0 then
          s, c = s + (j - 0.5 + a / (a - b)) * g.dx, c + 1
          break
        end
      end
    end
  end
  local level = c > 0 and s / c or H
  for p = 1, M.n do
    local y = x[p][2]
    if ids[p] == 0 then
      cnt = cnt + 1
      sub = sub + math.max(0, math.min(1, (level - (y - h / 2)) / h))
    else
      lo = math.min(lo, y)
    end
  end
  print(string.format("t = %.2f s: level %.4f m, light block submerged %.3f (Archimedes %.3f), heavy block bottom %.4f m",
    t, level, sub / cnt, P.light / S.rho, lo))
end

local function frame(i, t)
  report(t)
  local path, title = string.format("%s/frame_%04d.png", P.out, i), string.format("MPM blocks in FLIP water  t = %.2f s", t)
  if d == 3 then return mpm.picture(M, g, path, { width = P.image, title = title }) end
  tide.fileio.png2d { path = path, grid = g, width = P.image, phi = S.phi, particles = M.x,
    particle_color = mpm.colour_by_material(M), particle_range = { 0, 1 }, particle_colormap = "viridis", title = title }
end

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "mpm_in_water",
  max_dt = function() return mf.max_dt(S) end,
  step = function(dt) mf.step(S, dt) end,
  frame = frame,
}
