-- A spider web in the rain (Liu et al. 2024, Fig. 19; Table I case o): rain falls on a soft,
-- tilted web whose rings and spokes meet at non-manifold junctions; drops slide along the silk or
-- are cut by it; no web vertex is ever inside the liquid (checked every step).
--   build/tide scenes/liu_web.lua [--res 32] [--frames 48] [--rings 4] [--rate 8] [--sigma 1]
--   build/tide scenes/liu_web.lua --paper   (Table I o: 3D, 192^3, CFL 0.7, 6 rings)
-- The web: tide.solid.web split into pieces of at most a cell, silk radius 2 mm, E 1e7 Pa, outer
-- ring pinned; rain from tide.liu.rain; the step is tide.liu (Algorithms 1-2)
-- (set-up: tide.cases.liu_thin.web).  3D only.  Frames: PNG (the silk as tubes); --vtk the web.
local tide = require "tide"
local liu = require "tide.liu"
local T = require "tide.cases.liu_thin"

local P = T.params("liu_web", { res = 32, dim = 3, rings = 4, rate = 8, sigma = 1, cfl = 0.7 }, {
  dim = "3 (a web seen in section is a set of points)", rings = "rings of the web", rate = "rain drops per second",
  sigma = "surface tension [N/m]",
}, "Table I o: 3D, 192^3, CFL 0.7, 6 rings")
local o = { dim = P.dim, n = P.res, rings = P.rings, rate = P.rate, sigma = P.sigma, cfl = P.cfl }
if P.paper then o.dim, o.n, o.cfl, o.rings = 3, 192, 0.7, 6 end
local S, X = T.web(o)
print(string.format("liu_web: 3D, %d cells per side, %d web vertices, %d rings", S.grid.size[1], S.nv, o.rings))
liu.run_scene(S, P, "liu_web", P.out, "Liu Fig. 19: a spider web in the rain", X)
