-- A light elastic toy dropped into a breaking column of water (Zarifi, thesis §6.1.6, Fig. 6.7):
-- the thesis's "dinosaur" (a Houdini model) is replaced by a CSG dinosaur of capsules (body, neck,
-- head, tail, legs) meshed on a BCC lattice.  The toy splashes into the collapsing column, is
-- carried along by the surge and floats (density 300 kg/m^3); the water is deflected around it.
--   build/tide scenes/zarifi_light_toy.lua [--res 32] [--dim 2|3] [--frames 48] [--density 300]
--   build/tide scenes/zarifi_light_toy.lua --paper   (Table 6.1 "Light Dino": 3D, 100^3 grid; the
--                                                    thesis's toy has 1424 nodes / 5920 tets)
-- Strong coupling in one pressure solve: lua/tide/zarifi.lua (Algorithm 4).
local tide = require "tide"
local zarifi = require "tide.zarifi"

local P = zarifi.scene_params({ out = "out/zarifi_light_toy", E = 2e5, nu = 0.3, density = 300, scale = 1,
  tau_m = 0.5, tau_k = 0.002 }, {
  E = "toy's Young's modulus [Pa]", nu = "Poisson's ratio", density = "toy density [kg/m^3]",
  scale = "size of the toy (1: 0.5 m from tail to nose)", tau_m = "Rayleigh mass damping [1/s]",
  tau_k = "Rayleigh stiffness damping [s]",
})
local g, dim, dx = zarifi.scene_grid(P)
-- the toy, nose to the right, centred at c (2D: its side view; 3D: legs in pairs 0.05 apart)
local s = 0.9 * P.scale
local c = dim == 2 and { 0.3, 0.8 } or { 0.3, 0.8, 0.5 }
local function pt(x, y, z)
  return dim == 2 and { c[1] + s * x, c[2] + s * y } or { c[1] + s * x, c[2] + s * y, c[3] + s * (z or 0) }
end
local function capsule(a, b, r) return tide.shape.capsule { a = a, b = b, radius = s * r } end
local parts = {
  capsule(pt(-0.07, 0), pt(0.07, 0.01), 0.055),            -- body
  capsule(pt(0.08, 0.02), pt(0.15, 0.11), 0.03),           -- neck
  capsule(pt(0.15, 0.12), pt(0.22, 0.11), 0.032),          -- head
  capsule(pt(-0.08, 0.0), pt(-0.25, 0.05), 0.028),         -- tail
}
for _, lx in ipairs { -0.05, 0.05 } do
  if dim == 2 then
    parts[#parts + 1] = capsule(pt(lx, -0.03), pt(lx, -0.11), 0.024) -- legs
  else
    for _, lz in ipairs { -0.03, 0.03 } do parts[#parts + 1] = capsule(pt(lx, -0.03, lz), pt(lx, -0.11, lz), 0.022) end
  end
end
local shape = tide.shape.union(table.unpack(parts))
local h = P.paper and 0.018 or math.max(0.02 * s / 0.9, 0.6 * dx) -- --paper: 1435 nodes / 5154 tets (the thesis: 1424 / 5920)
local toy = tide.solid.bcc { shape = shape, h = h }
toy:material { model = "corotational", E = P.E, nu = P.nu, density = P.density, rayleigh_mass = P.tau_m,
  rayleigh_stiffness = P.tau_k }
-- the breaking column: the left 35% of the tank, 60% high
local box = dim == 2 and { min = { 0, 0 }, max = { 0.35, 0.6 } } or { min = { 0, 0, 0 }, max = { 0.35, 0.6, 1 } }
local ps = zarifi.seed(g, { box = box }, { toy }, P.per_cell > 0 and P.per_cell or nil)
local S = zarifi.new { grid = g, particles = ps, solids = { toy }, scheme = P.scheme, sampling = P.sampling, cfl = P.cfl }
local c0 = zarifi.centroid(toy)
local ymin, xmax = c0[2], c0[1]
zarifi.run_scene(S, P, "zarifi_light_toy", "light toy", function()
  local cc, v = zarifi.centroid(toy)
  print(string.format("toy (%.3g kg, %d nodes): centre (%.3f, %.3f) m, start (%.3f, %.3f), lowest y %.3f, "
    .. "furthest x %.3f, velocity (%.3f, %.3f) m/s", toy.mass:sum(), toy.nv, cc[1], cc[2], c0[1], c0[2], ymin, xmax, v[1], v[2]))
end, function()
  local cc = zarifi.centroid(toy)
  ymin, xmax = math.min(ymin, cc[2]), math.max(xmax, cc[1])
end)
