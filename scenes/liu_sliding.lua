-- Drops sliding on parallel rods (Liu et al. 2024, Fig. 18; Table I cases k-m): a drop set down
-- at the upper end of two inclined parallel rods; in the paper it slides along them, further the
-- higher the surface tension (--sigma).  Not reproduced here yet: at 32^3 and 48^3 (sigma 20, 60)
-- the drop stays at the upper end and drains between the rods (docs/couple.md, "Scenes of Sec.
-- 5.2"; --contact segments, every face within a cell of the rods fixed, falls too: by the
-- Laplace estimate there this drop needs sigma >= 373 N/m over a 0.08 m gap, and the E 1e9 rods
-- sag under its 4.2 kg; with E 1e12 rods, 64^3, a 0.125 m drop, a 0.075 m gap and sigma 600 it is
-- held and starts down the rods, docs/couple.md "Contact faces along rods").  No rod vertex is
-- ever inside the liquid (checked every step).
--   build/tide scenes/liu_sliding.lua [--res 32] [--dim 3|2] [--frames 48] [--sigma 20] [--gap 0.08]
--                                     [--contact vertices|segments] [--radius 0] [--slip]
--   build/tide scenes/liu_sliding.lua --paper   (Table I k-m: 3D, 160^3, CFL 0.7, 2 x 136 = 272 vertices)
-- The rods: tide.solid rods (radius 4 mm, E 1e9 Pa) 0.14 m apart, 10 deg down, pinned at both ends;
-- --dim 2 is the cross-section (the rods end-on: two fixed vertices; the drop passes between them
-- or not, the sliding is out of the plane).  The step is tide.liu (Algorithms 1-2)
-- (set-up: tide.cases.liu_thin.sliding).  Frames: PNG; --vtk the rods.
local tide = require "tide"
local liu = require "tide.liu"
local T = require "tide.cases.liu_thin"

local P = T.params("liu_sliding", { res = 32, dim = 3, frames = 48, sigma = 20, cfl = 0.7, contact = "vertices",
  radius = 0, slip = false, gap = 0.08 }, {
  dim = "3 or 2", sigma = "surface tension [N/m]", contact = "tide.liu contact faces: vertices or segments",
  radius = "contact_radius of segments [m] (0: the default)", slip = "contact_slip (free slip along the rods)",
  gap = "distance between the rods [m]",
}, "Table I k-m: 3D, 160^3, CFL 0.7")
local o = { dim = P.dim, n = P.res, sigma = P.sigma, cfl = P.cfl, contact = P.contact, gap = P.gap,
  contact_radius = P.radius > 0 and P.radius or nil, slip = P.slip }
if P.paper then o.dim, o.n, o.cfl = 3, 160, 0.7 end
local S, X = T.sliding(o)
local x0 = 0
for i = 1, S.nv do x0 = x0 + S.x:get(i, 1) end
print(string.format("liu_sliding: %dD, %d cells per side, %d rod vertices, sigma %g N/m", S.dim, S.grid.size[1], S.nv,
  o.sigma))
liu.run_scene(S, P, "liu_sliding", P.out, string.format("Liu Fig. 18: sliding on rods, sigma %g", o.sigma), X)
-- where the liquid went: its centre of mass and lowest point
local g, phi = S.grid, S.phi
local cells, sx, sy, ymin = 0, 0, 0, math.huge
local pts = g:centers()
pts = pts:reshape(pts:size() // S.dim, S.dim)
local vals = g:sample(phi, pts)
for q = 1, pts.shape[1] do
  if vals[q] < 0 then
    cells, sx, sy = cells + 1, sx + pts:get(q, 1), sy + pts:get(q, 2)
    ymin = math.min(ymin, pts:get(q, 2))
  end
end
print(string.format("liu_sliding: liquid centre at x = %.3f m, y = %.3f m, lowest liquid cell at y = %.3f m",
  sx / math.max(1, cells), sy / math.max(1, cells), ymin))
