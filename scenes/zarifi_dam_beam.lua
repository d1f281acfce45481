-- Dam break against a deformable beam pinned at its top (Zarifi, thesis §6.1.1, Fig. 6.1): the
-- collapsing column hits the dangling beam, which deflects the flow and bends, then both sway.
--   build/tide scenes/zarifi_dam_beam.lua [--res 24] [--frames 60] [--scheme spd|indefinite|factored|damping|weak]
--   build/tide scenes/zarifi_dam_beam.lua --paper      (Table 6.1: 100^3 grid, beam 725 nodes / 2688 tets)
--   build/tide scenes/zarifi_dam_beam.lua --dim 2      (a 2D slice)
-- Strong two-way coupling in one pressure solve (lua/tide/zarifi.lua, Algorithm 4). Frames:
-- PNG (liquid surface and beam) and, with --vtk, .vtu/.vtp files with .pvd collections for ParaView.
local tide = require "tide"
local zarifi = require "tide.zarifi"

local P = tide.params({
  res = 24, dim = 3, frames = 60, fps = 30, scheme = "spd", paper = false, per_cell = 0, cfl = 1.0,
  E = 4e4, nu = 0.3, density = 800, tau_m = 0.5, tau_k = 0.005, beam_cells = 0,
  out = "out/zarifi_dam_beam", png = true, vtk = false, image = 640,
}, {
  res = "cells across the unit tank", dim = "2 or 3", scheme = "spd, indefinite, factored, damping or weak",
  paper = "Table 6.1 size: 100^3 grid and the 725-node beam (overrides res)", per_cell = "particles per cell (0: 2^dim)",
  E = "beam Young's modulus [Pa]", nu = "Poisson's ratio", density = "beam density [kg/m^3]",
  tau_m = "Rayleigh mass damping [1/s]", tau_k = "Rayleigh stiffness damping [s]",
  beam_cells = "beam elements across its width (0: from the grid)", png = "write PNG frames",
  vtk = "write VTK files for ParaView", image = "PNG width in pixels",
})
local dim = P.dim
if dim ~= 2 and dim ~= 3 then error("--dim must be 2 or 3") end
local res = P.paper and 100 or P.res
local dx = 1 / res
local g = tide.grid.new { size = dim == 2 and { res, res } or { res, res, res }, dx = dx }
-- the column: the left 30% of the tank, 65% high
local box = dim == 2 and { min = { 0, 0 }, max = { 0.3, 0.65 } } or { min = { 0, 0, 0 }, max = { 0.3, 0.65, 1 } }
local ps = tide.liquid.seed { grid = g, box = box, per_cell = P.per_cell > 0 and P.per_cell or nil }
-- the beam: 0.1 wide, hanging from the lid down to y = 0.25, pinned along its top
local bc = P.beam_cells > 0 and P.beam_cells or (P.paper and 4 or math.max(2, math.floor(0.1 / dx + 0.5)))
local ny = math.max(4, math.floor(0.75 / 0.1 * bc + 0.5))
local beam
if dim == 2 then
  beam = tide.solid.box { min = { 0.55, 0.25 }, max = { 0.65, 1.0 - 0.5 * dx }, cells = { bc, ny } }
else
  -- Table 6.1 beam: 725 nodes, 2688 tets = 4 x 28 x 4 Kuhn cubes (5 x 29 x 5 nodes)
  local nz = P.paper and 4 or bc
  if P.paper then ny = 28 end
  beam = tide.solid.box { min = { 0.55, 0.25, 0.4 }, max = { 0.65, 1.0 - 0.5 * dx, 0.6 }, cells = { bc, ny, nz } }
end
beam:material { model = "corotational", E = P.E, nu = P.nu, density = P.density, rayleigh_mass = P.tau_m,
  rayleigh_stiffness = P.tau_k }
local top = 1.0 - 0.5 * dx - 1e-9
beam:pin(function(x, y) return y > top end)

local S = zarifi.new { grid = g, particles = ps, solids = { beam }, scheme = P.scheme, cfl = P.cfl }
print(string.format("zarifi dam break + beam (%dD): %s cells, dx = %.4g m, %d particles, beam %d nodes / %d elements, scheme %s",
  dim, table.concat(g.size, " x "), dx, #ps, beam.nv, beam.ne, P.scheme))

local last
local result = tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "zarifi_dam_beam",
  max_dt = function() return zarifi.max_dt(S) end,
  step = function(dt)
    last = zarifi.step(S, dt)
    return { iterations = last.iterations }
  end,
  frame = function(i, t)
    zarifi.frame(S, P.out, i, t, { png = P.png, vtk = P.vtk, width = P.image, title = "dam break + beam" })
  end,
}
local xmax = -math.huge
for a = 1, beam.nv do xmax = math.max(xmax, beam.x:get(a, 1)) end
print(string.format("%d steps; beam tip pushed to x = %.3f m (rest 0.65); last projection: %d unknowns, %d iterations",
  result.steps, xmax, last and last.unknowns or 0, last and last.iterations or 0))
