-- Drops sliding on parallel rods (Liu et al. 2024, Fig. 18; Table I cases k-m): a drop set down
-- at the upper end of two inclined parallel rods, held by surface tension and the barrier
-- contact, slides along them (in the paper further the higher the surface tension, --sigma).
--   build/tide scenes/liu_sliding.lua [--res 64] [--box rods|unit] [--dim 3|2] [--frames 30] [--sigma 1200]
--        [--gap 0.075] [--drop 0.125] [--E 1e12] [--slope 15] [--contact vertices|segments] [--radius 0] [--slip]
--        [--width local|fixed]
--   build/tide scenes/liu_sliding.lua --medium  (96 cells per metre: the drop 12 cells in radius)
--   build/tide scenes/liu_sliding.lua --paper   (Table I k-m: 3D, the unit box at 160^3, CFL 0.7,
--                                                2 x 136 = 272 vertices)
-- The default grid: the unit box's cells at dx = 1/64 m (the drop 8 cells in radius: held, the coarsest
-- tried that holds; at 4 cells it drains between the rods) but only those around the rods and
-- the drop (--box rods: x 0-1, y 0.30-0.94, z 0.25-0.75 m, 64 x 41 x 32 cells, 0.31 of 64^3):
-- the same cells as --box unit --res 64 minus empty air, at 0.3 of its cost; 30 frames (0.5 s: the
-- landing, the stop and 0.2 m of sliding), 1400 steps, a few minutes on 2 cores.
-- Defaults chosen so the drop can be held (docs/couple.md, "Contact faces along rods"):
--  * drop radius R 0.125 m (8.2 kg): 8 cells at dx 1/64 (the default), 12 at 1/96 (--medium), 20 at
--    160^3 (--paper); at 1/32 it is 4 cells, too coarse to be held (it drains between the rods);
--  * gap 0.075 m and sigma 1200 N/m, above the Laplace holding estimate
--    sigma >= rho g h / (2/G - 2/R), h = R + sqrt(R^2 - G^2/4): 224 N/m here (Bond number 0.13);
--  * rods of radius 4 mm, E 1e12 Pa, pinned at both ends 0.87 m apart: EI = E pi r^4 / 4 = 201 N m^2,
--    the drop's 40 N per rod sags them P a^2 b^2 / (3 EI L) = 0.65 mm where it is set down and
--    P L^3 / (48 EI) = 2.7 mm at midspan (0.2 dx at 64^3); E 1e9 would sag 0.65 m -- the drop
--    would fall with the rods;
--  * 15 deg down (the paper's rods are inclined; it gives no angle).
-- dx 1/64, 0.3 s (docs/couple.md, "The scene re-tuned"): the drop lands, is stopped within 0.1 s,
-- bounces on the rods and slides along them, held (0.2-0.3 s: mean vertical velocity -0.06 m/s,
-- 0.48 m/s along the rods, nothing below them); with sigma 600 it slides too but drains between
-- the rods through a growing tongue from 0.2 s with --width fixed (2-4 cells thick: the fixed
-- tension band, centred 1.5 dx inside the liquid, gives it 6-20% of its Laplace jump --
-- docs/couple.md, "Why sigma 600 drains"); the default --width local gives it the whole jump and
-- the tongue stops at about 84 cells below the rods from 0.23 s (132 and growing with fixed at 0.27 s).
-- --dim 2 is the cross-section (the rods end-on: two fixed vertices; the drop is held between them
-- or not, the sliding is out of the plane).  No rod vertex is ever inside the liquid (checked every
-- step).  The step is tide.liu (Algorithms 1-2) (set-up: tide.cases.liu_thin.sliding).  Every frame
-- prints the liquid's centre, its velocity along the rods and down; frames: PNG; --vtk the rods.
local tide = require "tide"
local liu = require "tide.liu"
local T = require "tide.cases.liu_thin"

local P = T.params("liu_sliding", { res = 64, dim = 3, box = "rods", frames = 30, sigma = 1200, cfl = 0.7,
  contact = "vertices", radius = 0, slip = false, gap = 0.075, drop = 0.125, E = 1e12, slope = 15, medium = false, width = "local" }, {
  dim = "3 or 2", sigma = "surface tension [N/m]", contact = "tide.liu contact faces: vertices or segments",
  radius = "contact_radius of segments [m] (0: the default)", slip = "contact_slip (free slip along the rods)",
  gap = "distance between the rods [m]", drop = "drop radius [m]", E = "rods' Young's modulus [Pa]",
  slope = "rods' inclination [deg]", box = "3D grid: rods (the unit box's cells around the rods and the drop) or unit",
  width = "tide.liu tension_width: local (the band narrowed in thin liquid) or fixed (3 dx)",
  medium = "3D, 96 cells per metre around the rods (the drop 12 cells in radius)",
}, "Table I k-m: 3D, 160^3, CFL 0.7")
local o = { dim = P.dim, n = P.res, sigma = P.sigma, cfl = P.cfl, contact = P.contact, gap = P.gap, radius = P.drop,
  E = P.E, slope = P.slope, box = P.box, contact_radius = P.radius > 0 and P.radius or nil, slip = P.slip,
  tension_width = P.width }
if P.medium then o.dim, o.n = 3, 96 end
if P.paper then o.dim, o.n, o.cfl, o.box = 3, 160, 0.7, "unit" end
local S, X = T.sliding(o)
local g = S.grid
local cells = table.concat(g.size, " x ")
print(string.format("liu_sliding: %dD, %s cells (dx 1/%g m), %d rod vertices, sigma %g N/m, drop %.3f m = %.1f dx, "
  .. "gap %.3f m, E %g Pa, %g deg", S.dim, cells, 1 / g.dx, S.nv, o.sigma, P.drop, P.drop / g.dx, P.gap, P.E, P.slope))

-- where the liquid is: the centre of its cells and its lowest cell
local pts = g:centers()
pts = pts:reshape(pts:size() // S.dim, S.dim)
local function liquid()
  local vals = g:sample(S.phi, pts)
  local cells, sx, sy, ymin, below = 0, 0, 0, math.huge, 0
  for q = 1, pts.shape[1] do
    if vals[q] < 0 then
      local x, y = pts:get(q, 1), pts:get(q, 2)
      cells, sx, sy = cells + 1, sx + x, sy + y
      ymin = math.min(ymin, y)
      -- 3D: the cells of a tongue through the gap (more than the rod radius + dx/2 below the axis)
      if X.yrod and y < X.yrod(x) - 4e-3 - 0.5 * g.dx then below = below + 1 end
    end
  end
  return sx / math.max(1, cells), sy / math.max(1, cells), ymin, below
end
-- every frame: the centre, its velocity down (vy) and along the rods (vs, positive downhill; in 2D
-- the rods are out of the plane: 0)
local ca, sa = math.cos(math.rad(P.slope)), math.sin(math.rad(P.slope))
if S.dim == 2 then ca, sa = 0, 0 end
local track, last = {}, nil
local function record()
  local x, y, ymin, below = liquid()
  local r = { t = S.t, x = x, y = y, s = x * ca - y * sa, ymin = ymin }
  if last then
    r.vy, r.vs = (y - last.y) / (S.t - last.t), (r.s - last.s) / (S.t - last.t)
    print(string.format("liu_sliding: t %.3f s  centre x %.3f y %.3f m  vy %+.3f m/s  along the rods %+.3f m/s  "
      .. "lowest liquid %.3f m  %d cells below the rods", S.t, x, y, r.vy, r.vs, ymin, below))
  end
  track[#track + 1], last = r, r
end
record()
local nextf = 1 / P.fps
liu.run_scene(S, P, "liu_sliding", P.out, string.format("Liu Fig. 18: sliding on rods, sigma %g", o.sigma), {
  tube = X.tube, after_step = function()
    if S.t >= nextf - 1e-9 then record(); nextf = nextf + 1 / P.fps end
  end })
-- the last 0.1 s (or the whole run): mean velocity down and along the rods
local e = track[#track]
local b = track[1]
for i = #track, 1, -1 do
  if e.t - track[i].t <= 0.1 + 1e-9 then b = track[i] end
end
local dt = math.max(e.t - b.t, 1e-12)
print(string.format("liu_sliding: liquid centre at x = %.3f m, y = %.3f m, lowest liquid cell at y = %.3f m; over "
  .. "t %.3f-%.3f s: %+.3f m/s down, %+.3f m/s along the rods (moved %.3f m along them since t 0)", e.x, e.y, e.ymin,
  b.t, e.t, (e.y - b.y) / dt, (e.s - b.s) / dt, e.s - track[1].s))
