-- A kirigami in the rain (Liu et al. 2024, Fig. 15; Table I case i): drops of different sizes
-- fall onto a V-shaped kirigami sheet with a central crease (rest angle 110.6 deg) and staggered
-- rows of slots; they squeeze through the slots, break up on the bands or pool in the crease; no
-- sheet vertex is ever inside the liquid (checked every step).
--   build/tide scenes/liu_kirigami.lua [--res 48] [--dim 2|3] [--frames 60] [--rate 8] [--sigma 1]
--   build/tide scenes/liu_kirigami.lua --paper   (Table I i: 3D, 192^3, CFL 0.5)
-- The kirigami is a tide.solid shell (1 mm, E 1e7 Pa) whose rest shape is the folded, slotted
-- sheet, pinned along its two upper edges (2D: its section across the slots, strips of unit depth
-- pinned at their ends); rain from tide.liu.rain; the step is tide.liu (Algorithms 1-2)
-- (set-up: tide.cases.liu_thin.kirigami).  Frames: PNG; --vtk the sheet.
local tide = require "tide"
local liu = require "tide.liu"
local T = require "tide.cases.liu_thin"

local P = T.params("liu_kirigami", { frames = 60, rate = 8, sigma = 1, E = 1e7, cfl = 0.5 }, {
  rate = "rain drops per second", sigma = "surface tension [N/m]", E = "sheet Young's modulus [Pa]",
}, "Table I i: 3D, 192^3, CFL 0.5")
local o = { dim = P.dim, n = P.res, rate = P.rate, sigma = P.sigma, E = P.E, cfl = P.cfl }
if P.paper then o.dim, o.n, o.cfl = 3, 192, 0.5 end
local S, X = T.kirigami(o)
print(string.format("liu_kirigami: %dD, %d cells per side, %d sheet vertices, %g drops/s", S.dim, S.grid.size[1], S.nv,
  o.rate))
liu.run_scene(S, P, "liu_kirigami", P.out, "Liu Fig. 15: a kirigami in the rain", X)
