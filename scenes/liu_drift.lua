-- A drifting cloth on a tank (Liu et al. 2024, Fig. 14; Table I case f): a light, soft cloth hung
-- by one edge swings down onto a tank of still water, is released at t = 0.35 s and floats on the
-- surface, moving with its waves; no cloth vertex is ever inside the liquid (checked every step).
--   build/tide scenes/liu_drift.lua [--res 48] [--dim 2|3] [--frames 60] [--release 0.35]
--   build/tide scenes/liu_drift.lua --paper   (Table I f: 3D, 160^3, CFL 0.7, 81^2 = 6561 cloth vertices)
-- The cloth is a tide.solid shell (1 mm, E 1e6 Pa, 300 kg/m^3, Rayleigh damping 1e-4 s for the air
-- drag; 2D: its section, a strip of unit depth); the step is tide.liu (Algorithms 1-2) with the
-- cloth's incremental potential in the joint solve of Eq. 22 (set-up: tide.cases.liu_thin.drift).
-- Frames: PNG; --vtk the cloth.
local tide = require "tide"
local liu = require "tide.liu"
local T = require "tide.cases.liu_thin"

local P = T.params("liu_drift", { frames = 60, release = 0.35, E = 1e6, cfl = 0.7 }, {
  release = "time the hung edge is let go [s]", E = "cloth Young's modulus [Pa]",
}, "Table I f: 3D, 160^3, CFL 0.7")
local o = { dim = P.dim, n = P.res, release = P.release, E = P.E, cfl = P.cfl }
if P.paper then o.dim, o.n, o.cfl = 3, 160, 0.7 end
local S, X = T.drift(o)
print(string.format("liu_drift: %dD, %d cells per side, %d cloth vertices, released at %.2f s", S.dim, S.grid.size[1],
  S.nv, o.release))
liu.run_scene(S, P, "liu_drift", P.out, "Liu Fig. 14: a cloth drifting on a tank", X)
