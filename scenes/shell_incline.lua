-- A closed band of cloth-like shell (a short tube, axis along z) is set on
-- an incline and rolls down it: static friction (mu = 0.6 > tan(alpha))
-- makes it roll without slipping (after Irving's thesis Fig. 3.4, cloth
-- rolling on an incline with static friction).  A thin-walled hoop rolling
-- without slipping accelerates at g sin(alpha) / 2 (half the frictionless
-- slide); the scene prints the band's distance down the slope against
-- s = g sin(alpha) t^2 / 4, and its spin against its speed / radius.
-- Contact is IPC's: the incline is a barrier at distance dhat with lagged
-- friction (--contact friction: a projected constraint).
--   tide scenes/shell_incline.lua [--frames 40] [--around 24] [--alpha 15] [--mu 0.6] [--contact barrier]
--                                 [--dhat 1e-3] [--paper]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid
local A = tide.array

local P = tide.params({ frames = 40, fps = 30, around = 24, along = 4, radius = 0.08, length = 0.12, alpha = 15,
  mu = 0.6, E = 5e6, thickness = 3e-3, contact = "barrier", dhat = 1e-3, out = "out/shell_incline", png = true,
  paper = false },
  { around = "cells around the band", along = "cells along its axis", radius = "band radius [m]",
    length = "band width (along the axis) [m]", alpha = "incline angle [degrees]", mu = "friction",
    E = "Young's modulus [Pa]", thickness = "shell thickness [m]", png = "write PNG frames",
    contact = "barrier (IPC) or friction (projected constraint)", dhat = "barrier distance [m]",
    paper = "bigger run: 64 x 12 cells, 90 frames" })
if P.paper then P.around, P.along, P.frames = math.max(P.around, 64), math.max(P.along, 12), math.max(P.frames, 90) end

local a = math.rad(P.alpha)
local n = { math.sin(a), math.cos(a), 0 }  -- the incline's normal: it falls toward +x
local d = { math.cos(a), -math.sin(a), 0 } -- down the slope
local gap = 2e-3
local c0 = { n[1] * (P.radius + gap), n[2] * (P.radius + gap), 0 }
local nodes, tris = {}, {}
for i = 0, P.along do
  local z = P.length * (i / P.along - 0.5)
  for j = 0, P.around - 1 do
    local w = 2 * math.pi * j / P.around
    nodes[#nodes + 1] = { c0[1] + P.radius * math.cos(w), c0[2] + P.radius * math.sin(w), z }
  end
end
local function id(i, j) return i * P.around + (j % P.around) + 1 end
for i = 0, P.along - 1 do
  for j = 0, P.around - 1 do
    tris[#tris + 1] = { id(i, j), id(i, j + 1), id(i + 1, j + 1) }
    tris[#tris + 1] = { id(i, j), id(i + 1, j + 1), id(i + 1, j) }
  end
end
local band = S.mesh { nodes = A.from(nodes), elements = A.from(tris) }
band:shell { model = "neohookean", E = P.E, nu = 0.3, thickness = P.thickness, density = 500 }
print(tostring(band))
local slope = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = n }, mu = P.mu }
local step = solids.stepper(band, solids.contact({ method = "newton", colliders = { slope }, tol = 1e-5, maxit = 40 },
  P.contact, P.dhat, P.mu))

-- centre of mass along the slope and the spin about z (sum m (r x v)_z / sum m r^2)
local function state()
  local M, cx, cy, vx, vy = 0, 0, 0, 0, 0
  for i = 1, band.nv do
    local m = band.mass:get(i)
    M = M + m
    cx, cy = cx + m * band.x:get(i, 1), cy + m * band.x:get(i, 2)
    vx, vy = vx + m * band.v:get(i, 1), vy + m * band.v:get(i, 2)
  end
  cx, cy, vx, vy = cx / M, cy / M, vx / M, vy / M
  local L, I = 0, 0
  for i = 1, band.nv do
    local m = band.mass:get(i)
    local rx, ry = band.x:get(i, 1) - cx, band.x:get(i, 2) - cy
    L = L + m * (rx * (band.v:get(i, 2) - vy) - ry * (band.v:get(i, 1) - vx))
    I = I + m * (rx * rx + ry * ry)
  end
  return (cx - c0[1]) * d[1] + (cy - c0[2]) * d[2], vx * d[1] + vy * d[2], L / I
end

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 120 end,
  step = step,
  frame = function(i, t)
    local s, v, w = state()
    print(string.format("frame %d  t = %.3f s  down the slope %.4f m (rolling hoop %.4f, sliding %.4f)  speed/radius %.2f, spin %.2f rad/s",
      i, t, s, 9.81 * math.sin(a) * t * t / 4, 9.81 * math.sin(a) * t * t / 2, v / P.radius, -w))
    if P.png then
      local lo = { -0.2, -0.3, -0.2 }
      local ramp = S.box { min = lo, max = { 1.2, 0, 0.2 }, cells = { 1, 1, 1 } }
      for k = 1, ramp.nv do -- the box turned onto the incline
        local x, y = ramp.rest:get(k, 1), ramp.rest:get(k, 2)
        ramp.x:set(k, 1, x * d[1] + y * n[1])
        ramp.x:set(k, 2, x * d[2] + y * n[2])
      end
      solids.png3d(P.out .. "/frame_%04d.png", i, {
        solids.surface(band, { 0.35, 0.6, 0.9 }), solids.surface(ramp, { 0.7, 0.7, 0.7 }) }, {
        camera = { position = { 0.4, 0.3, 1.3 }, target = { 0.35, -0.05, 0 }, fov = 45 },
        width = 480, height = 360, title = string.format("t = %.2f s", t) })
    end
  end,
}
