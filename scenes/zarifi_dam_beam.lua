-- Dam break against a deformable beam pinned at its top (Zarifi, thesis §6.1.1, Fig. 6.1): the
-- collapsing column hits the hanging beam, which bends, deflects the flow, then both sway.
--   build/tide scenes/zarifi_dam_beam.lua [--res 32] [--dim 2|3] [--frames 48] [--scheme spd|indefinite|factored|damping|weak]
--   build/tide scenes/zarifi_dam_beam.lua --paper      (Table 6.1: 3D, 100^3 grid, beam 725 nodes / 2688 tets)
-- Strong two-way coupling in one pressure solve (lua/tide/zarifi.lua, Algorithm 4). Frames:
-- PNG (liquid and beam) and, with --vtk, .vtu/.vtp files with .pvd collections for ParaView.
local tide = require "tide"
local zarifi = require "tide.zarifi"

local P = zarifi.scene_params({ out = "out/zarifi_dam_beam", E = 2e5, nu = 0.3, density = 800, tau_m = 0.5,
  tau_k = 0.002, beam_cells = 0 }, {
  E = "beam Young's modulus [Pa]", nu = "Poisson's ratio", density = "beam density [kg/m^3]",
  tau_m = "Rayleigh mass damping [1/s]", tau_k = "Rayleigh stiffness damping [s]",
  beam_cells = "beam elements across its width (0: from the grid)",
})
local g, dim, dx = zarifi.scene_grid(P)
-- the beam: 0.1 wide, hanging from the lid down to y = 0.15, pinned along its top
local bc = P.beam_cells > 0 and P.beam_cells or (P.paper and 4 or math.max(2, math.floor(0.1 / dx + 0.5)))
local ny = math.max(4, math.floor(0.85 / 0.1 * bc + 0.5))
local beam
if dim == 2 then
  beam = tide.solid.box { min = { 0.55, 0.15 }, max = { 0.65, 1.0 - 0.5 * dx }, cells = { bc, ny } }
else
  -- Table 6.1 beam: 725 nodes, 2688 tets = 4 x 28 x 4 cubes of 6 tets (5 x 29 x 5 nodes)
  local nz = P.paper and 4 or bc
  if P.paper then ny = 28 end
  beam = tide.solid.box { min = { 0.55, 0.15, 0.4 }, max = { 0.65, 1.0 - 0.5 * dx, 0.6 }, cells = { bc, ny, nz } }
end
beam:material { model = "corotational", E = P.E, nu = P.nu, density = P.density, rayleigh_mass = P.tau_m,
  rayleigh_stiffness = P.tau_k }
local top = 1.0 - 0.5 * dx - 1e-9
beam:pin(function(x, y) return y > top end)
-- the column: the left 35% of the tank, 70% high
local box = dim == 2 and { min = { 0, 0 }, max = { 0.35, 0.7 } } or { min = { 0, 0, 0 }, max = { 0.35, 0.7, 1 } }
local ps = zarifi.seed(g, { box = box }, { beam }, P.per_cell > 0 and P.per_cell or nil)
local S = zarifi.new { grid = g, particles = ps, solids = { beam }, scheme = P.scheme, sampling = P.sampling,
  cfl = P.cfl }
local x0 = beam.x:select(2, 1):min()
zarifi.run_scene(S, P, "zarifi_dam_beam", "dam break + beam", function()
  local xmax, xmin = -math.huge, math.huge
  for a = 1, beam.nv do
    xmax, xmin = math.max(xmax, beam.x:get(a, 1)), math.min(xmin, beam.x:get(a, 1))
  end
  print(string.format("beam spans x = %.3f .. %.3f m (rest %.3f .. %.3f)", xmin, xmax, x0, x0 + 0.1))
end)
