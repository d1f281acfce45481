-- Lotus-like self-cleaning (Liu et al. 2024, Fig. 16; Table I case h): a drop rolls down a tilted,
-- stiff, cupped leaf under a light rain and picks up the dirt grains lying on it; the drops run off
-- the lower edge and carry the grains with them.  No leaf vertex is ever inside the liquid (checked
-- every step).  The grains are passive markers (tide.cases.liu_thin.lotus states their rule: they
-- stay on the leaf until the liquid wets them, then move with it, and fall once out of it); the
-- count of picked and washed-off grains is printed at the end.
--   build/tide scenes/liu_lotus.lua [--res 48] [--dim 2|3] [--frames 60] [--tilt 15] [--dirt 40]
--   build/tide scenes/liu_lotus.lua --paper   (Table I h: 3D, 192^3, CFL 0.5)
-- The leaf is a tide.solid shell disc (3 mm, E 5e9 Pa) clamped at its centre by the stem (2D: its
-- section, a strip of unit depth); rain from tide.liu.rain; the step is tide.liu (Algorithms 1-2).
-- Frames: PNG (grains drawn as brown dots); --vtk the leaf.
local tide = require "tide"
local liu = require "tide.liu"
local T = require "tide.cases.liu_thin"

local P = T.params("liu_lotus", { frames = 60, tilt = 15, dirt = 40, rate = 4, sigma = 2, cfl = 0.5 }, {
  tilt = "leaf tilt [deg]", dirt = "number of dirt grains", rate = "rain drops per second",
  sigma = "surface tension [N/m]",
}, "Table I h: 3D, 192^3, CFL 0.5")
local o = { dim = P.dim, n = P.res, tilt = P.tilt, dirt = P.dirt, rate = P.rate, sigma = P.sigma, cfl = P.cfl }
if P.paper then o.dim, o.n, o.cfl = 3, 192, 0.5 end
local S, X = T.lotus(o)
print(string.format("liu_lotus: %dD, %d cells per side, %d leaf vertices, %d grains, tilt %g deg", S.dim,
  S.grid.size[1], S.nv, o.dirt, o.tilt))
liu.run_scene(S, P, "liu_lotus", P.out, "Liu Fig. 16: lotus-like self-cleaning", X)
local picked, off, total = X.grains()
print(string.format("liu_lotus: %d of %d grains picked up by the liquid, %d washed off the leaf", picked, total, off))
