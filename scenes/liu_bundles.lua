-- Drops through rod bundles (Liu et al. 2024, Fig. 10; Table I case n): a drop with surface tension
-- falls onto two staggered cantilever beams, each a 3 x 3 bundle of stiff rods clamped at a side
-- wall; the rods pierce it, it slides down and off their tips; no rod vertex is ever inside the
-- liquid (checked every step), the stiff tips included.
--   build/tide scenes/liu_bundles.lua [--res 32] [--frames 48] [--sigma 5]
--   build/tide scenes/liu_bundles.lua --paper   (Table I n: 3D, 160^3, CFL 0.7, 18 rods of 89 = 1602 vertices)
-- The rods: tide.solid rods (radius 5 mm, E 1e10 Pa) 4 cm apart; the step is tide.liu
-- (Algorithms 1-2) (set-up: tide.cases.liu_thin.bundles).  3D only.  Frames: PNG; --vtk the rods.
local tide = require "tide"
local liu = require "tide.liu"
local T = require "tide.cases.liu_thin"

local P = T.params("liu_bundles", { res = 32, dim = 3, sigma = 5, cfl = 0.7 }, {
  dim = "3 (a bundle has no 2D section of rods)", sigma = "surface tension [N/m]",
}, "Table I n: 3D, 160^3, CFL 0.7")
local o = { dim = P.dim, n = P.res, sigma = P.sigma, cfl = P.cfl }
if P.paper then o.dim, o.n, o.cfl = 3, 160, 0.7 end
local S, X = T.bundles(o)
print(string.format("liu_bundles: 3D, %d cells per side, %d rod vertices", S.grid.size[1], S.nv))
liu.run_scene(S, P, "liu_bundles", P.out, "Liu Fig. 10: a drop through rod bundles", X)
