-- A cloth in liquid, penetration-free (Liu et al. 2024): drops bouncing on a cloth stretched
-- across the box (Fig. 1, Table I case c; --liquid drops, the default) or a dam break falling
-- onto it (Fig. 2, Table I case e; --liquid dam).  No cloth vertex is ever inside the liquid
-- (checked every step).
--   build/tide scenes/liu_cloth.lua [--liquid drops|dam] [--res 48] [--dim 2|3] [--frames 48] [--E 5e4]
--   build/tide scenes/liu_cloth.lua --paper   (Table I: 3D, 192^3, CFL 0.7)
-- The cloth is a 1 mm tide.solid shell (2D: a rod of unit depth) with its nodes a cell apart,
-- pinned along its edges (--slab: a neo-Hookean tet/triangle slab one cell thick instead); the step
-- is tide.liu (Algorithms 1-2) with the cloth's incremental potential in the joint solve of Eq. 22.
-- Frames: PNG, and with --vtk the cloth (.vtu) for ParaView.
local tide = require "tide"
local liu = require "tide.liu"
local L = require "tide.cases.liu"

local P = tide.params({ liquid = "drops", res = 48, dim = 2, frames = 48, fps = 60, E = 0, cfl = 1, paper = false,
  slab = false,
  vtk = false, image = 480, out = "" }, {
  liquid = "drops (Fig. 1) or dam (Fig. 2)", res = "cells across the unit box", dim = "2 or 3",
  E = "cloth Young's modulus [Pa] (0: 1e7 shell/rod, 5e4 slab)", cfl = "cells per step at the fastest face or vertex",
  slab = "a tet/triangle slab instead of the shell/rod",
  paper = "Table I sizes: 3D, 192^3, CFL 0.7 (the cloth's vertices a cell apart: 155^2)",
  vtk = "write VTK files for ParaView", image = "PNG width in pixels",
})
if P.liquid ~= "drops" and P.liquid ~= "dam" then error("liu_cloth: --liquid must be drops or dam", 0) end
local out = P.out ~= "" and P.out or ("out/liu_cloth_" .. P.liquid)
local opts = { dim = P.dim, n = P.res, liquid = P.liquid, E = P.E > 0 and P.E or nil, cfl = P.cfl, slab = P.slab }
if P.paper then opts.dim, opts.n, opts.cfl = 3, 192, 0.7 end
local S = L.cloth(opts)
local g, m = S.grid, S.mesh
print(string.format("liu_cloth (%s): %dD, %d cells per side, %d cloth vertices", P.liquid, g.dim, g.size[1], m.nv))

liu.run_scene(S, P, "liu_cloth", out, P.liquid == "dam" and "Liu: dam break on a cloth" or "Liu: drops on a cloth")
