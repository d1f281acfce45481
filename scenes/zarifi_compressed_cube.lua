-- A cube compressed to 1/8 of its volume released under water (Zarifi, thesis §6.1.3, Fig. 6.2):
-- it springs back to its rest size, pushing the liquid away; compressed it is denser than the
-- water and first sinks a little, then, expanded, it rises.
--   build/tide scenes/zarifi_compressed_cube.lua [--res 32] [--dim 2|3] [--frames 48] [--scheme spd|...]
--   build/tide scenes/zarifi_compressed_cube.lua --paper   (Table 6.1: 3D, 100^3 grid, 343 nodes / 1296 tets)
-- In 2D the square is compressed to 1/8 of its area.  Strong coupling: lua/tide/zarifi.lua.
local tide = require "tide"
local zarifi = require "tide.zarifi"

local P = zarifi.scene_params({ out = "out/zarifi_compressed_cube", E = 3e4, nu = 0.3, density = 500, side = 0.3,
  tau_m = 1.0, tau_k = 0.002, volume = 0.125 }, {
  E = "cube's Young's modulus [Pa]", nu = "Poisson's ratio", density = "cube density at rest [kg/m^3]",
  side = "rest side length [m]", tau_m = "Rayleigh mass damping [1/s]", tau_k = "Rayleigh stiffness damping [s]",
  volume = "initial volume / rest volume",
})
local g, dim, dx = zarifi.scene_grid(P)
local a = P.side
local c = dim == 2 and { 0.5, 0.35 } or { 0.5, 0.35, 0.5 }
local lo, hi = {}, {}
for k = 1, dim do lo[k], hi[k] = c[k] - a / 2, c[k] + a / 2 end
local nc = P.paper and 6 or math.max(3, math.floor(a / (1.5 * dx) + 0.5))
local cells = dim == 2 and { nc, nc } or { nc, nc, nc }
local cube = tide.solid.box { min = lo, max = hi, cells = cells }
cube:material { model = "corotational", E = P.E, nu = P.nu, density = P.density, rayleigh_mass = P.tau_m,
  rayleigh_stiffness = P.tau_k }
-- compress about the centre: s^dim = volume
local s = P.volume ^ (1 / dim)
for q = 1, cube.nv do
  for k = 1, dim do cube.x:set(q, k, c[k] + s * (cube.x:get(q, k) - c[k])) end
end
local rest = cube:volumes():sum()
local ps = zarifi.seed(g, { below = 0.7 }, { cube }, P.per_cell > 0 and P.per_cell or nil)
local S = zarifi.new { grid = g, particles = ps, solids = { cube }, scheme = P.scheme, sampling = P.sampling, cfl = P.cfl }
print(string.format("cube compressed to %.3f of its rest volume", rest / a ^ dim))
local ymin = math.huge
zarifi.run_scene(S, P, "zarifi_compressed_cube", "compressed cube", function()
  local cy = zarifi.centroid(cube)[2]
  print(string.format("volume %.3f of rest (start %.3f); centre y %.3f m, lowest %.3f (start %.3f)",
    cube:volumes():sum() / a ^ dim, rest / a ^ dim, cy, ymin, c[2]))
end, function() ymin = math.min(ymin, zarifi.centroid(cube)[2]) end)
