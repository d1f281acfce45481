-- A raindrop splashing on a stiff, hydrophobic leaf (Liu et al. 2024, Fig. 3; Table I case g):
-- a drop thrown at 4 m/s onto an arched leaf pinned along its midrib deforms it briefly and
-- breaks into smaller drops that rebound; no leaf vertex is ever inside the liquid (checked every
-- step).
--   build/tide scenes/liu_leaf.lua [--res 48] [--dim 2|3] [--frames 36] [--speed 4] [--sigma 2]
--   build/tide scenes/liu_leaf.lua --paper   (Table I g: 3D, 160^3, CFL 0.5, 103 x 169 = 17407 leaf vertices)
-- The leaf is a tide.solid shell 5 mm thick (E 5e9 Pa) with an arched rest shape (2D: its section,
-- a strip of unit depth); the step is tide.liu (Algorithms 1-2), the leaf's incremental potential
-- in the joint solve of Eq. 22 (set-up: tide.cases.liu_thin.leaf).  Frames: PNG; --vtk the leaf.
local tide = require "tide"
local liu = require "tide.liu"
local T = require "tide.cases.liu_thin"

local P = T.params("liu_leaf", { frames = 36, speed = 4, sigma = 2, E = 5e9, cfl = 0.5 }, {
  speed = "impact speed [m/s]", sigma = "surface tension [N/m]", E = "leaf Young's modulus [Pa]",
}, "Table I g: 3D, 160^3, CFL 0.5, leaf nodes 0.57 dx apart (17k vertices)")
local o = { dim = P.dim, n = P.res, speed = P.speed, sigma = P.sigma, E = P.E, cfl = P.cfl }
if P.paper then o.dim, o.n, o.cfl, o.refine = 3, 160, 0.5, 1.75 end
local S, X = T.leaf(o)
print(string.format("liu_leaf: %dD, %d cells per side, %d leaf vertices, drop at %.1f m/s, sigma %.3g N/m", S.dim,
  S.grid.size[1], S.nv, o.speed, o.sigma))
liu.run_scene(S, P, "liu_leaf", P.out, "Liu Fig. 3: a drop on a stiff leaf", X)
