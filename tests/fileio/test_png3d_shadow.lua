-- tide.fileio.png3d shadows on a coarse faceted mesh: no shadow acne (dark
-- facets on the lit side of a convex body, which cannot shadow itself), no
-- dark dots along its outline, and no peter-panning (a plate 2 mm off the
-- surface still casts its shadow).
-- The mesh is the collider sphere of scenes/shell_spin.lua: the boundary of
-- a BCC tet mesh, R = 0.29 m, h = 0.06 m, shaded with smooth vertex normals.
local tide = require "tide"
local T = require "tide.testing"
local A = tide.array
local fio = tide.fileio
local S = tide.solid

local U = dofile(T.source("tests/fileio/util.lua"))
local dir = U.tmpdir("png3d_shadow")

local R = 0.29
local ball = S.bcc { shape = S.shape.sphere { center = { 0, 0, 0 }, radius = R }, h = 0.06 }
local sphere = { vertices = ball.x, triangles = ball:boundary(), index_base = 1, color = { 1, 1, 1 } }

-- orthographic camera on +z: pixel (row i, column j) sees world (x, y)
local N, EXT = 256, 0.7
local function world(i, j)
  return (j - 0.5 - N / 2) * EXT / N, -(i - 0.5 - N / 2) * EXT / N
end
local function shot(name, meshes, L, shadows)
  local path = dir .. "/" .. name .. ".png"
  fio.png3d { path = path, meshes = meshes, width = N, height = N, ground = false, box = false, shadows = shadows,
    ambient = 0, background = { 0, 0, 0 }, lights = { { dir = L, color = { 1, 1, 1 } } },
    camera = { position = { 0, 0, 3 }, target = { 0, 0, 0 }, ortho = EXT } }
  return fio.png_read(path)
end
local function unit(v)
  local l = math.sqrt(v[1] ^ 2 + v[2] ^ 2 + v[3] ^ 2)
  return { v[1] / l, v[2] / l, v[3] / l }
end

-- acne: on the part of the sphere facing the light (the exact sphere's
-- normal n with n.L > 0.25, inside 0.92 R on screen), the shadowed frame
-- must equal the unshadowed one but for a few pixels.  The old texel-sized
-- bias darkened 3% of these pixels with the light from the side.
for _, L in ipairs { { 1, 0.1, 0 }, { -0.5, 1, 0.2 }, { 1, 1, 0.5 }, { 0.3, 0.2, 1 } } do
  L = unit(L)
  local a, b = shot("acne", { sphere }, L, true), shot("plain", { sphere }, L, false)
  local lit, dark = 0, 0
  for i = 1, N do
    for j = 1, N do
      local x, y = world(i, j)
      local r2 = x * x + y * y
      if r2 < (0.92 * R) ^ 2 then
        local z = math.sqrt(R * R - r2)
        if (x * L[1] + y * L[2] + z * L[3]) / R > 0.25 then
          lit = lit + 1
          if a:get(i, j, 1) < 0.7 * b:get(i, j, 1) then dark = dark + 1 end
        end
      end
    end
  end
  local frac = dark / lit
  print(string.format("light (%.2f, %.2f, %.2f): %d lit pixels, %d darkened by the shadow map (%.3f%%)", L[1], L[2],
    L[3], lit, dark, 100 * frac))
  T.check(lit > 5000, "lit region found")
  T.check(frac < 1e-3, string.format("no shadow acne on the lit side: %.3f%% darkened (target < 0.1%%)", 100 * frac))
end

-- the outline: scenes/shell_spin.lua's view of its sphere (centred at
-- y = 0.4 m, so its BCC facets are the scene's) with the default lights,
-- ground and shadows.  The far rim's facets have smooth normals leaning
-- away from the camera; turned over (as for the back of a shell) instead
-- of bent into the visible half, they were shaded from behind: dark dots
-- (red < 60, the lit sphere and the ground are > 100) along the upper outline
do
  local c = { 0, 0.4, 0 }
  local b2 = S.bcc { shape = S.shape.sphere { center = c, radius = R }, h = 0.06 }
  local path = dir .. "/rim.png"
  fio.png3d { path = path, meshes = { { vertices = b2.x, triangles = b2:boundary(), index_base = 1,
    color = { 0.6, 0.6, 0.65 } } }, width = 480, height = 360, ground_y = 0, box = false,
    camera = { position = { 1.2, 1.1, 1.4 }, target = { 0, 0.35, 0 }, fov = 40 } }
  local img = fio.png_read(path)
  local dark = 0
  for i = 1, 130 do -- the sphere's top is near row 95, its centre row 170
    for j = 1, 480 do
      if img:get(i, j, 1) < 60 then dark = dark + 1 end
    end
  end
  print(string.format("upper outline in the scene's view: %d dark pixels", dark))
  T.check(dark == 0, "no dark dots along the outline (" .. dark .. ")")
end

-- peter-panning: a 0.2 m square plate 2 mm above the top of the sphere,
-- lit 40 degrees off vertical, seen from low on the far side (-x) so the
-- camera looks beneath it.  Where the exact sphere lies in the plate's
-- shadow (1 cm inside its edges) the frame must be black: lifting the
-- lookup point by the edge length (or a constant normal offset of that
-- size) would put it above the plate and light it.
local gap, hw = 0.002, 0.1
local yp = R + gap
local plate = { vertices = A.from { { -hw, yp, -hw }, { hw, yp, -hw }, { hw, yp, hw }, { -hw, yp, hw } },
  triangles = A.from({ { 0, 1, 2 }, { 0, 2, 3 } }, "i32"), color = { 1, 1, 1 } }
local L = { math.sin(math.rad(40)), math.cos(math.rad(40)), 0 }
local pos = { -3, 0.9, 0.6 }
local path = dir .. "/plate.png"
fio.png3d { path = path, meshes = { sphere, plate }, width = N, height = N, ground = false, box = false, ambient = 0,
  background = { 0, 0, 0 }, lights = { { dir = L, color = { 1, 1, 1 } } },
  camera = { position = pos, target = { 0, 0, 0 }, ortho = EXT } }
local img = fio.png_read(path)
-- the camera frame of an orthographic view (forward F, right Rt, up Up)
local F = unit { -pos[1], -pos[2], -pos[3] }
local Rt = unit { F[2] * 0 - F[3] * 1, F[3] * 0 - F[1] * 0, F[1] * 1 - F[2] * 0 }
local Up = { Rt[2] * F[3] - Rt[3] * F[2], Rt[3] * F[1] - Rt[1] * F[3], Rt[1] * F[2] - Rt[2] * F[1] }
local under, leak = 0, 0
for i = 1, N do
  for j = 1, N do
    local a, b = world(i, j)
    local o = {}
    for d = 1, 3 do o[d] = pos[d] + a * Rt[d] + b * Up[d] end
    -- first hit of the ray o + t F with the sphere |x| = R
    local ob = o[1] * F[1] + o[2] * F[2] + o[3] * F[3]
    local disc = ob * ob - (o[1] ^ 2 + o[2] ^ 2 + o[3] ^ 2 - R * R)
    if disc > 0 then
      local t = -ob - math.sqrt(disc)
      local p = { o[1] + t * F[1], o[2] + t * F[2], o[3] + t * F[3] }
      -- the camera ray must pass the plate plane well outside the plate
      local tp = (yp - o[2]) / F[2]
      local qx, qz = o[1] + tp * F[1], o[3] + tp * F[3]
      local seen = tp > t or math.abs(qx) > hw + 0.01 or math.abs(qz) > hw + 0.01
      -- p's shadow ray reaches the plate 1 cm inside its edges
      local s = (yp - p[2]) / L[2]
      local sx, sz = p[1] + s * L[1], p[3] + s * L[3]
      if seen and p[2] > 0 and math.abs(sx) < hw - 0.01 and math.abs(sz) < hw - 0.01 then
        under = under + 1
        if img:get(i, j, 1) > 20 then leak = leak + 1 end
      end
    end
  end
end
print(string.format("plate %g m above the sphere: %d pixels in its shadow, %d lit", gap, under, leak))
T.check(under > 300, "shadow of the plate in view (" .. under .. " pixels)")
T.check(leak == 0, "the plate's shadow stays attached (" .. leak .. " lit pixels in it)")

U.cleanup(dir)
os.exit(T.report())
