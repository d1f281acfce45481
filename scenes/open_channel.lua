-- An open channel (2D or 3D): liquid enters through an inlet at the left end
-- (an emitter against the x- wall: prescribed velocity, fresh particles every
-- step), fills the channel behind a weir (a cut-cell solid on the floor),
-- pours over it and leaves the domain through the open right side (x+).
-- lua/tide/flip.lua with emitters = {...} and open = {"x+"}.
--   build/tide scenes/open_channel.lua [--dim 2|3] [--res 48] [--frames 300] [--scheme flip|apic]
-- Frames: out/open_channel/frame_%04d.png; manifest out/open_channel/run.json.
-- At the end it prints the inflow and outflow rates of the last second next
-- to the prescribed Q = V * inlet area (they agree once the flow is steady).
local tide = require "tide"
local flip = require "tide.flip"

local P = tide.params({ dim = 2, res = 48, frames = 300, fps = 30, scheme = "flip", speed = 0.8, inlet = 0.3,
  weir = 0.25, out = "out/open_channel", png = true, image = 720 }, { dim = "2 or 3", res = "cells per metre",
  scheme = "pic, flip or apic", speed = "inlet velocity [m/s]", inlet = "inlet height [m]",
  weir = "weir height [m]", png = "write PNG frames", image = "PNG width in pixels" })
assert(P.dim == 2 or P.dim == 3, "--dim must be 2 or 3")

local dx = 1 / P.res
local size = P.dim == 2 and { 3 * P.res, P.res } or { 3 * P.res, P.res, P.res // 2 }
local g = tide.grid.new { size = size, dx = dx }
local lo, hi = g:bounds()
local function box3(a, b) -- 2D box, or the same across the whole z extent
  if P.dim == 2 then return tide.shape.box { min = a, max = b } end
  return tide.shape.box { min = { a[1], a[2], -1 }, max = { b[1], b[2], hi[3] + 1 } }
end
-- the weir: a block with a rounded crest (a capsule on top of a box)
local wx, ww = 1.5, 0.16
local weir = box3({ wx - ww / 2, -1 }, { wx + ww / 2, P.weir - ww / 2 })
if P.dim == 2 then
  weir = weir + tide.shape.sphere { center = { wx, P.weir - ww / 2 }, radius = ww / 2 }
else
  weir = weir + tide.shape.cylinder { a = { wx, P.weir - ww / 2, -1 }, b = { wx, P.weir - ww / 2, hi[3] + 1 }, radius = ww / 2 }
end
local fractions, solid = g:face_fractions(weir)
local inlet = box3({ 0, 0 }, { 4 * dx, P.inlet })
local V = P.dim == 2 and { P.speed, 0 } or { P.speed, 0, 0 }
local ps = tide.liquid.particles { dim = P.dim, apic = P.scheme == "apic" }
local S = flip.new { grid = g, particles = ps, scheme = P.scheme, fractions = fractions, solid = solid,
  solid_phi = weir:sdf(g), method = P.dim == 3 and "mgpcg" or "pcg", open = { "x+" },
  emitters = { { shape = inlet, velocity = V } } }
-- the inlet's cells (centres inside the shape) carry the prescribed flux: Q = V times
-- the area of their faces at x = 4 dx
local area = tide.liquid.region(g, inlet):sum() / 4 * dx ^ (P.dim - 1)
local Q = P.speed * area
print(string.format("open channel: %s cells, inlet %.2f m at %.2f m/s (Q = %.4f m^%d/s), weir %.2f m, open side x+, %s",
  table.concat(size, " x "), P.inlet, P.speed, Q, P.dim == 2 and 2 or 3, P.weir, P.scheme))

local phi = g:cells()
local log = {}
local function frame(i, t)
  log[#log + 1] = { t = t, emitted = S.emitted, removed = S.removed }
  if not P.png then return end
  local path = string.format("%s/frame_%04d.png", P.out, i)
  local title = string.format("open channel  t = %.2f s  particles %d", t, #ps)
  ps:level_set(g, { radius = 0.75 * dx, out = phi })
  if P.dim == 2 then
    tide.fileio.png2d { path = path, grid = g, phi = phi, particles = ps.x, radius = 0.2 * dx, labels = solid,
      width = P.image, title = title }
  else
    local Vw, Nw, Tw = tide.fileio.isosurface { phi = weir:sdf(g), grid = g }
    tide.fileio.png3d { path = path, grid = g, phi = phi, width = P.image, title = title,
      meshes = { { vertices = Vw, normals = Nw, triangles = Tw, color = { 0.8, 0.45, 0.3 } } } }
  end
end

tide.run { frames = P.frames, fps = P.fps, out = P.out, params = P, name = "open_channel",
  max_dt = function() return flip.max_dt(S) end,
  step = function(dt) return flip.step(S, dt) end,
  frame = frame }

-- mass balance over the last second (or what there is)
local last = log[#log]
local first = log[1]
for k = #log, 1, -1 do
  if last.t - log[k].t <= 1 then first = log[k] end
end
if last.t > first.t then
  local cell = dx ^ P.dim / 2 ^ P.dim
  local qin = (last.emitted - first.emitted) * cell / (last.t - first.t)
  local qout = (last.removed - first.removed) * cell / (last.t - first.t)
  print(string.format("t in [%.2f, %.2f] s: inflow %.4f, outflow %.4f, prescribed Q %.4f; %d particles", first.t,
    last.t, qin, qout, Q, #ps))
end
