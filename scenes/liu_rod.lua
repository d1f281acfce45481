-- A drop through a rod (Liu et al. 2024, Fig. 17; Table I case j): a drop falls onto an elastic
-- rod pinned at both ends, closes around it and leaves a thin air tube along it; no rod vertex is
-- ever inside the liquid (checked every step).
--   build/tide scenes/liu_rod.lua [--res 32] [--dim 3|2] [--frames 36] [--sigma 0.5] [--E 1e8]
--   build/tide scenes/liu_rod.lua --paper   (Table I j: 3D, 160^3, CFL 1, 160 segments = 161 vertices)
-- The rod is a tide.solid rod (radius 5 mm, E 1e8 Pa) across the box; --dim 2 is its in-plane
-- analogue (a 0.16 m rod of unit depth, narrower than the drop).  The step is tide.liu
-- (Algorithms 1-2) with the rod's incremental potential in Eq. 22 (set-up: tide.cases.liu_thin.rod).
-- Frames: PNG (the rod as a tube); --vtk the rod.
local tide = require "tide"
local liu = require "tide.liu"
local T = require "tide.cases.liu_thin"

local P = T.params("liu_rod", { res = 32, dim = 3, frames = 36, sigma = 0.5, E = 1e8 }, {
  dim = "3 or 2", sigma = "surface tension [N/m]", E = "rod Young's modulus [Pa]",
}, "Table I j: 3D, 160^3, CFL 1")
local o = { dim = P.dim, n = P.res, sigma = P.sigma, E = P.E, cfl = P.cfl }
if P.paper then o.dim, o.n, o.cfl = 3, 160, 1 end
local S, X = T.rod(o)
print(string.format("liu_rod: %dD, %d cells per side, %d rod vertices", S.dim, S.grid.size[1], S.nv))
liu.run_scene(S, P, "liu_rod", P.out, "Liu Fig. 17: a drop through a rod", X)
