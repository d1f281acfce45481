-- Dam break against a deformable beam pinned at its top (Zarifi, thesis §6.1.1, Fig. 6.1): the
-- collapsing column hits the hanging beam, which bends, deflects the flow, then both sway.
--   build/tide scenes/zarifi_dam_beam.lua [--res 32] [--dim 2|3] [--frames 48] [--scheme spd|indefinite|factored|damping|weak]
--   build/tide scenes/zarifi_dam_beam.lua --paper      (Table 6.1: 3D, 100^3 grid, beam 725 nodes / 2688 tets)
-- Strong two-way coupling in one pressure solve (lua/tide/zarifi.lua, Algorithm 4; the set-up is
-- lua/tide/cases/zarifi_dam_beam.lua). Frames: PNG (liquid and beam) and, with --vtk, .vtu/.vtp
-- files with .pvd collections for ParaView.
local zarifi = require "tide.zarifi"
local case = require "tide.cases.zarifi_dam_beam"

local P = zarifi.scene_params({ out = "out/zarifi_dam_beam", E = 2e5, nu = 0.3, density = 800, tau_m = 0.5,
  tau_k = 0.002, beam_cells = 0 }, {
  E = "beam Young's modulus [Pa]", nu = "Poisson's ratio", density = "beam density [kg/m^3]",
  tau_m = "Rayleigh mass damping [1/s]", tau_k = "Rayleigh stiffness damping [s]",
  beam_cells = "beam elements across its width (0: from the grid)",
})
local S, beam = case.new { res = P.paper and 100 or P.res, dim = P.dim, paper = P.paper, beam_cells = P.beam_cells,
  E = P.E, nu = P.nu, density = P.density, tau_m = P.tau_m, tau_k = P.tau_k, per_cell = P.per_cell,
  scheme = P.scheme, sampling = P.sampling, cfl = P.cfl }
local x0 = beam.x:select(2, 1):min()
zarifi.run_scene(S, P, "zarifi_dam_beam", "dam break + beam", function()
  local xs = beam.x:select(2, 1)
  print(string.format("beam spans x = %.3f .. %.3f m (rest %.3f .. %.3f)", xs:min(), xs:max(), x0, x0 + 0.1))
end)
