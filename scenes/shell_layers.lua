-- Three cloth layers fall onto a hammock (a cloth pinned along its border)
-- and onto each other: discrete shells merged into one mesh, stepped by
-- Newton's method with Incremental Potential Contact among all their
-- triangles, edges and nodes (dhat, docs/shells.md); every frame is checked
-- for crossings with m:intersections() (an error if any).
--   tide scenes/shell_layers.lua [--frames 60] [--cells 8] [--out out/shell_layers]
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

local P = tide.params({ frames = 60, fps = 30, cells = 8, dhat = 2e-3, out = "out/shell_layers", png = true },
  { cells = "cells per side of each falling cloth (the hammock has 1.5x)", dhat = "contact distance [m]",
    png = "write PNG frames" })

local hammock = S.sheet { origin = { -0.5, 0.4, -0.5 }, u = { 1, 0, 0 }, v = { 0, 0, 1 },
  cells = { math.ceil(1.5 * P.cells), math.ceil(1.5 * P.cells) } }
hammock:shell { E = 1e5, nu = 0.3, thickness = 5e-4, density = 400, damping = 0.01 }
hammock:pin(function(x, y, z) return math.abs(x) > 0.49 or math.abs(z) > 0.49 end)
local parts = { hammock }
for k = 1, 3 do
  local c = S.sheet { origin = { -0.3 + 0.05 * k, 0.45 + 0.03 * k, -0.3 + 0.03 * k }, u = { 0.6, 0, 0 },
    v = { 0, 0, 0.6 }, cells = { P.cells, P.cells } }
  c:shell { E = 1e5, nu = 0.3, thickness = 5e-4, density = 400, damping = 0.01 }
  parts[k + 1] = c
end
local cloth = S.merge(parts)
print(tostring(cloth))
local step = solids.stepper(cloth, { method = "newton", tol = 1e-4, maxit = 60, dhat = P.dhat })

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P,
  max_dt = function() return 1 / 120 end,
  step = step,
  frame = function(i, t)
    local crossings = cloth:intersections()
    if crossings > 0 then error(string.format("frame %d: %d edge-triangle crossings", i, crossings)) end
    if P.png then
      solids.png3d(P.out .. "/frame_%04d.png", i, { solids.surface(cloth, { 0.85, 0.45, 0.3 }) }, {
        camera = { position = { 1.0, 0.9, 1.2 }, target = { 0, 0.35, 0 }, fov = 40 },
        width = 480, height = 360, ground_y = 0, title = string.format("t = %.2f s", t) })
    end
  end,
}
