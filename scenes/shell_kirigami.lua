-- A kirigami sheet pulled at two opposite edges: a square sheet with
-- staggered rows of slits (S.sheet slits: the nodes along each cut are
-- split) is stretched to 1.6x its length; the ligaments between the cuts
-- rotate and buckle out of plane, opening the cuts into a lattice of holes.
-- Discrete shell (neo-Hookean membrane + hinge bending), step_newton with
-- the pulled edge's nodes moved as pinned targets.
--   tide scenes/shell_kirigami.lua [--frames 60] [--cells 24] [--out out/shell_kirigami]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 60, fps = 30, cells = 24, stretch = 1.6, out = "out/shell_kirigami", png = true },
  { cells = "cells per side (a multiple of 4)", stretch = "final length / initial length", png = "write PNG frames" })

local n = 4 * math.max(2, P.cells // 4)
-- rows of slits along u every second grid line, staggered by half a period
local slits = {}
for j = 2, n - 2, 2 do
  local shift = (j // 2) % 2 == 0 and 0 or 2
  for i0 = shift, n - 1, 4 do
    local a, b = math.max(0, i0 - 1), math.min(n, i0 + 2)
    if b - a >= 2 then slits[#slits + 1] = { along = "u", at = j, from = a, to = b } end
  end
end
local L = 0.3
local sheet = S.sheet { origin = { -L / 2, 0.3, -L / 2 }, u = { L, 0, 0 }, v = { 0, 0, L }, cells = { n, n },
  slits = slits }
sheet:shell { E = 1e6, nu = 0.3, thickness = 2e-4, density = 1000, damping = 0.02, gravity = { 0, 0, 0 } }
print(tostring(sheet), #slits .. " slits")
-- the edges z = -L/2 and z = +L/2 are held; the second one is pulled in z
sheet:pin(function(x, y, z) return z < -L / 2 + 1e-9 or z > L / 2 - 1e-9 end)
local pulled = {}
for i = 1, sheet.nv do if sheet.x:get(i, 3) > L / 2 - 1e-9 then pulled[#pulled + 1] = i end end
local T = P.frames / P.fps
local step = solids.stepper(sheet, { method = "newton", tol = 1e-4, maxit = 60 })
local time = 0

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 120 end,
  step = function(dt)
    time = time + dt
    local z = L / 2 + (P.stretch - 1) * L * math.min(1, time / T)
    for _, i in ipairs(pulled) do sheet.target:set(i, 3, z) end
    return step(dt)
  end,
  frame = function(i, t)
    if P.png then
      solids.png3d(P.out .. "/frame_%04d.png", i, { solids.surface(sheet, { 0.3, 0.6, 0.85 }) }, {
        camera = { position = { 0.45, 0.75, 0.1 }, target = { 0, 0.3, 0.05 }, fov = 45 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s, stretch %.2f", t,
          1 + (P.stretch - 1) * math.min(1, t / T)) })
    end
  end,
}
