-- Three balls of different densities released under water (Zarifi, thesis §6.1.2, Fig. 6.3):
-- the light one (300 kg/m^3) shoots up and is ejected from the surface, the neutral one
-- (1000 kg/m^3) drifts, the heavy one (2500 kg/m^3) sinks to the floor.
--   build/tide scenes/zarifi_balls.lua [--res 32] [--dim 2|3] [--frames 48] [--scheme spd|...]
--   build/tide scenes/zarifi_balls.lua --paper      (Table 6.1: 3D, 100^3 grid, 481 nodes / 2000 tets in all)
-- Strong two-way coupling in one pressure solve (lua/tide/zarifi.lua, Algorithm 4).
local tide = require "tide"
local zarifi = require "tide.zarifi"

local P = zarifi.scene_params({ out = "out/zarifi_balls", E = 1e6, nu = 0.3, radius = 0.09, tau_m = 0.5,
  light = 300, neutral = 1000, heavy = 2500, depth = 0.3, level_set = "zhu_bridson", separation = 0.5 }, {
  E = "balls' Young's modulus [Pa]", nu = "Poisson's ratio", radius = "ball radius [m]",
  tau_m = "Rayleigh mass damping [1/s]", light = "light ball density [kg/m^3]",
  neutral = "neutral ball density", heavy = "heavy ball density", depth = "height of the balls' centres [m]",
  level_set = "free surface: zhu_bridson (ghost fluid) or none (voxel: half a cell off, the light ball floats high)",
  separation = "FLIP volume correction strength (0: off; the pool then loses ~10% in 4 s)",
})
local g, dim, dx = zarifi.scene_grid(P)
local r = P.radius
local h = P.paper and r / 2.2 or math.max(r / 3, 0.75 * dx)
local balls, y0 = {}, {}
for k, rho in ipairs { P.light, P.neutral, P.heavy } do
  local c = dim == 2 and { 0.25 * k, P.depth } or { 0.25 * k, P.depth, 0.5 }
  local m = tide.solid.bcc { shape = tide.shape.sphere { center = c, radius = r }, h = h }
  m:material { model = "corotational", E = P.E, nu = P.nu, density = rho, rayleigh_mass = P.tau_m }
  balls[k], y0[k] = m, c[2]
end
local ps = zarifi.seed(g, { below = 0.55 }, balls, P.per_cell > 0 and P.per_cell or nil)
if P.level_set ~= "zhu_bridson" and P.level_set ~= "union" and P.level_set ~= "none" then
  error("--level_set must be zhu_bridson, union or none", 0)
end
local S = zarifi.new { grid = g, particles = ps, solids = balls, scheme = P.scheme, sampling = P.sampling, cfl = P.cfl,
  level_set = P.level_set ~= "none" and P.level_set or false, separation = P.separation }
zarifi.run_scene(S, P, "zarifi_balls", "balls in a pool", function()
  for k, name in ipairs { "light", "neutral", "heavy" } do
    local c, v = zarifi.centroid(balls[k])
    print(string.format("%-8s ball: centre y %.3f m (start %.3f), vy %.3f m/s", name, c[2], y0[k], v[2]))
  end
end)
