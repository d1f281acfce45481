-- Liquid poured on a soft platform (Zarifi, thesis §6.1, Fig. 6.9): a thick slab pinned at both
-- ends catches a falling block of water, sags under its weight and swings back as the water runs
-- off its ends.
--   build/tide scenes/zarifi_soft_platform.lua [--res 32] [--dim 2|3] [--frames 48] [--scheme spd|...]
--   build/tide scenes/zarifi_soft_platform.lua --paper   (Table 6.1's "thin solid 2": 3D, 64^3 grid; the
--                                        platform 1728 nodes / 7038 tets, the thesis's 2450 / 6936)
-- Strong coupling in one pressure solve: lua/tide/zarifi.lua (Algorithm 4).
local tide = require "tide"
local zarifi = require "tide.zarifi"

local P = zarifi.scene_params({ out = "out/zarifi_soft_platform", E = 1e5, nu = 0.3, density = 500, thick = 0.1,
  tau_m = 0.5, tau_k = 0.002 }, {
  E = "platform's Young's modulus [Pa]", nu = "Poisson's ratio", density = "platform density [kg/m^3]",
  thick = "platform thickness [m]", tau_m = "Rayleigh mass damping [1/s]", tau_k = "Rayleigh stiffness damping [s]",
})
local g, dim, dx = zarifi.scene_grid(P, 64)
-- the platform spans x in [0.1, 0.9] at height 0.35, pinned over its outer 0.05 on each side
local t = P.thick
local nx = P.paper and 23 or math.max(8, math.floor(0.8 / (1.5 * dx) + 0.5))
local ny = math.max(2, math.floor(nx * t / 0.8 + 0.5))
local plat
if dim == 2 then
  plat = tide.solid.box { min = { 0.1, 0.35 }, max = { 0.9, 0.35 + t }, cells = { nx, ny } }
else
  plat = tide.solid.box { min = { 0.1, 0.35, 0.2 }, max = { 0.9, 0.35 + t, 0.8 }, cells = { nx, ny, math.floor(nx * 0.75 + 0.5) } }
end
plat:material { model = "corotational", E = P.E, nu = P.nu, density = P.density, rayleigh_mass = P.tau_m,
  rayleigh_stiffness = P.tau_k }
plat:pin(function(x) return x < 0.15 + 1e-9 or x > 0.85 - 1e-9 end)
-- the water: a block above the platform's middle
local box = dim == 2 and { min = { 0.3, 0.55 }, max = { 0.7, 0.95 } } or { min = { 0.3, 0.55, 0.3 }, max = { 0.7, 0.95, 0.7 } }
local ps = zarifi.seed(g, { box = box }, { plat }, P.per_cell > 0 and P.per_cell or nil)
local S = zarifi.new { grid = g, particles = ps, solids = { plat }, scheme = P.scheme, sampling = P.sampling, cfl = P.cfl }
local function mid_y() -- the lowest point of the platform's middle
  local y = math.huge
  for q = 1, plat.nv do
    if math.abs(plat.x:get(q, 1) - 0.5) < 0.05 then y = math.min(y, plat.x:get(q, 2)) end
  end
  return y
end
local y0, sag = mid_y(), 0
zarifi.run_scene(S, P, "zarifi_soft_platform", "soft platform", function()
  print(string.format("platform middle: largest sag %.4f m, now %.4f m below rest", sag, y0 - mid_y()))
end, function() sag = math.max(sag, y0 - mid_y()) end)
