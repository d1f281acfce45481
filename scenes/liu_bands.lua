-- Drops falling onto elastic bands pinned at both ends (Liu et al. 2024, Fig. 13; Table I
-- case a): the drops hit three staggered bands, stretch them and pool on them; no band
-- vertex is ever inside the liquid (checked every step).
--   build/tide scenes/liu_bands.lua [--res 48] [--dim 2|3] [--frames 48] [--drops 2] [--E 2e5]
--   build/tide scenes/liu_bands.lua --paper   (Table I a: 3D, 160^3, bands of 270 vertices in all)
-- The bands are neo-Hookean tet (2D: triangle) slabs one cell thick, standing in for the paper's
-- shells until those exist; the step is tide.liu (Algorithms 1-2): one Newton solve of Eq. 22
-- over the level set near the surface and the band vertices, with the bands' incremental
-- potential (elasticity, gravity, pinned ends).  Frames: PNG, and with --vtk the bands (.vtu)
-- for ParaView (liu.run_scene).
local tide = require "tide"
local liu = require "tide.liu"
local L = require "tide.cases.liu"

local P = tide.params({ res = 48, dim = 2, frames = 48, fps = 60, drops = 2, E = 2e5, cfl = 1, paper = false,
  vtk = false, image = 480, out = "out/liu_bands" }, {
  res = "cells across the unit box", dim = "2 or 3", drops = "number of drops (1-3)", E = "bands' Young's modulus [Pa]",
  cfl = "cells per step at the fastest liquid face or vertex", paper = "Table I case a: 3D, 160^3, 270 band vertices",
  vtk = "write VTK files for ParaView", image = "PNG width in pixels",
})
local opts = { dim = P.dim, n = P.res, drops = P.drops, E = P.E, cfl = P.cfl }
if P.paper then -- 3 bands x 2 x 3 x 15 nodes = 270 vertices (Table I a)
  opts = { dim = 3, n = 160, drops = P.drops, E = P.E, cfl = 1, cells = 14, width = 2 }
end
local S = L.bands(opts)
local g, m = S.grid, S.mesh
print(string.format("liu_bands: %dD, %d cells per side, %d band vertices, %d drops", g.dim, g.size[1], m.nv, opts.drops))

liu.run_scene(S, P, "liu_bands", P.out, "Liu: drops on elastic bands")
