-- Three cloth layers fall onto a sphere and onto each other: discrete
-- shells merged into one mesh, stepped by Newton's method with Incremental
-- Potential Contact among all their triangles, edges and nodes (dhat,
-- docs/shells.md): the layers fold over the sphere without passing
-- through each other (checked every frame with m:intersections()).
--   tide scenes/shell_layers.lua [--frames 60] [--cells 16] [--out out/shell_layers]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 60, fps = 30, cells = 16, dhat = 2e-3, out = "out/shell_layers", png = true },
  { cells = "cells per side of each cloth", dhat = "contact distance [m]", png = "write PNG frames" })

local layers = {}
for k = 1, 3 do
  local c = S.sheet { origin = { -0.4 + 0.05 * k, 0.55 + 0.04 * k, -0.4 + 0.03 * k }, u = { 0.8, 0, 0 },
    v = { 0, 0, 0.8 }, cells = { P.cells, P.cells } }
  c:shell { E = 1e5, nu = 0.3, thickness = 5e-4, density = 400, damping = 0.01 }
  layers[k] = c
end
local cloth = S.merge(layers)
print(tostring(cloth))
local ball = S.collider { shape = S.shape.sphere { center = { 0, 0.3, 0 }, radius = 0.2 }, mu = 0.3 }
local ground = solids.ground(0, 0.3)
local step = solids.stepper(cloth, { method = "newton", colliders = { ball, ground }, tol = 1e-4, maxit = 60,
  dhat = P.dhat })
local sphere_mesh = S.bcc { shape = S.shape.sphere { center = { 0, 0.3, 0 }, radius = 0.19 }, h = 0.06 }

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 120 end,
  step = step,
  frame = function(i, t)
    local crossings = cloth:intersections()
    if crossings > 0 then error(string.format("frame %d: %d edge-triangle crossings", i, crossings)) end
    if P.png then
      solids.png3d(P.out .. "/frame_%04d.png", i, {
        solids.surface(cloth, { 0.85, 0.45, 0.3 }), solids.surface(sphere_mesh, { 0.6, 0.6, 0.65 }) }, {
        camera = { position = { 1.1, 1.0, 1.3 }, target = { 0, 0.3, 0 }, fov = 40 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", t) })
    end
  end,
}
