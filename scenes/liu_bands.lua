-- Drops falling onto elastic bands pinned at both ends (Liu et al. 2024, Fig. 13; Table I
-- case a): the drops hit three staggered bands, stretch them and pool on them; no band
-- vertex is ever inside the liquid (checked every step).
--   build/tide scenes/liu_bands.lua [--res 48] [--dim 2|3] [--frames 48] [--drops 2] [--E 2e5]
--   build/tide scenes/liu_bands.lua --paper   (Table I a: 3D, 160^3, bands of 270 vertices in all)
-- The bands are 1 mm ribbons: tide.solid shells in 3D, rods of unit depth in 2D (--slab: neo-Hookean
-- tet/triangle slabs one cell thick instead); the step is tide.liu (Algorithms 1-2): one Newton solve
-- of Eq. 22 over the level set near the surface and the band vertices, with the bands' incremental
-- potential (stretching, bending, gravity, pinned ends) at the vertices' offsets.  Frames: PNG, and with --vtk the bands (.vtu)
-- for ParaView (liu.run_scene).
local tide = require "tide"
local liu = require "tide.liu"
local L = require "tide.cases.liu"

local P = tide.params({ res = 48, dim = 2, frames = 48, fps = 60, drops = 2, E = 0, cfl = 1, paper = false, slab = false,
  vtk = false, image = 480, out = "out/liu_bands" }, {
  res = "cells across the unit box", dim = "2 or 3", drops = "number of drops (1-3)",
  E = "bands' Young's modulus [Pa] (0: 1e7 ribbons, 2e5 slabs)", slab = "tet/triangle slabs instead of shells/rods",
  cfl = "cells per step at the fastest liquid face or vertex", paper = "Table I case a: 3D, 160^3, 270 band vertices",
  vtk = "write VTK files for ParaView", image = "PNG width in pixels",
})
local E = P.E > 0 and P.E or nil
local opts = { dim = P.dim, n = P.res, drops = P.drops, E = E, cfl = P.cfl, slab = P.slab }
if P.paper then -- 3 ribbons of 15 x 6 nodes = 270 vertices (Table I a)
  opts = { dim = 3, n = 160, drops = P.drops, E = E, cfl = 1, cells = 14, width = 5, slab = P.slab }
  if P.slab then opts.width = 2 end -- slabs: 2 x 3 x 15 nodes each
end
local S = L.bands(opts)
local g, m = S.grid, S.mesh
print(string.format("liu_bands: %dD, %d cells per side, %d band vertices, %d drops", g.dim, g.size[1], m.nv, opts.drops))

liu.run_scene(S, P, "liu_bands", P.out, "Liu: drops on elastic bands")
