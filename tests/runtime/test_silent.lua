-- Calls that would do nothing speak (issue 11, item 5): a seed region outside
-- the grid, an empty pin selection, an emitter/sink/inflow region without
-- cells, a simulation without particles.  Each is an error naming the
-- problem (and, for shapes outside the grid, both boxes).
local tide = require "tide"
local T = require "tide.testing"

local g = tide.grid.new { size = { 8, 8 }, dx = 1 / 8 }
local far = tide.shape.box { min = { 2, 2 }, max = { 3, 3 } }

-- seeding
T.raises(function() tide.liquid.seed { grid = g, box = { min = { 2, 2 }, max = { 3, 3 } } } end,
  "the box seeds no particle: it lies outside the grid (its bounds (2, 2) .. (3, 3), the grid spans (0, 0) .. (1, 1))",
  "seed box outside the grid")
T.raises(function() tide.liquid.seed { grid = g, sphere = { center = { -1, 0.5 }, radius = 0.5 } } end,
  "the sphere seeds no particle: it lies outside the grid", "seed sphere outside the grid")
local phi = g:cells()
phi:fill(1)
T.raises(function() tide.liquid.seed { grid = g, phi = phi } end, "phi < 0 seeds no particle", "phi >= 0 everywhere")
local solid = g:cells("u8")
solid:fill(2)
T.raises(function() tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 0.5, 0.5 } }, labels = solid } end,
  "solid in 'labels'", "every cell solid")
local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 0.5, 0.5 } } }
local n = #ps
T.raises(function() ps:seed { grid = g, box = { min = { -3, 0 }, max = { -2, 1 } } } end, "outside the grid",
  "Particles:seed outside")
T.check(#ps == n, "a failed seed adds nothing")
-- partly inside: seeds the inside part without complaint
local _, added = tide.liquid.seed { grid = g, box = { min = { 0.5, 0.5 }, max = { 2, 2 } } }
T.check(added == 16 * 4, "box partly inside seeds the 16 cells inside: " .. added)

-- regions of emitters, inflows, sinks
T.raises(function() tide.liquid.emit(ps, g, { shape = far, velocity = { 1, 0 } }) end,
  "tide.liquid.emit: the shape covers no cell centre of the grid: it lies outside the grid", "emit outside")
T.raises(function() tide.liquid.emit(ps, g, { region = g:cells("u8"), velocity = { 1, 0 } }) end,
  "option 'region' holds no cell", "emit with an empty mask")
T.raises(function() tide.liquid.inflow(g:mac(), { shape = far, velocity = { 1, 0 } }) end,
  "tide.liquid.inflow: the shape covers no cell centre", "inflow outside")
T.raises(function() tide.flip.new { grid = g, particles = ps, emitters = { { shape = far, velocity = { 1, 0 } } } } end,
  "emitters[1].shape covers no (non-solid) cell centre", "flip emitter outside")
T.raises(function() tide.flip.new { grid = g, particles = ps, sinks = { far } } end,
  "sinks[1] covers no cell centre", "flip sink outside")

-- a simulation without particles
local empty = tide.liquid.particles { dim = 2 }
T.raises(function() tide.flip.new { grid = g, particles = empty } end, "the particles are empty and there are no emitters",
  "flip without particles")
local near = tide.shape.box { min = { 0, 0.5 }, max = { 0.25, 0.75 } }
T.check(pcall(tide.flip.new, { grid = g, particles = empty, open = { "x+" },
  emitters = { { shape = near, velocity = { 1, 0 } } } }), "no particles but an emitter is fine")

-- pinning nothing
local m = tide.solid.box { min = { 0, 0 }, max = { 1, 1 }, cells = { 2, 2 } }
m:material { E = 1e4, nu = 0.3 }
T.raises(function() m:pin { min = { 2, 2 }, max = { 3, 3 } } end,
  "TetMesh:pin: the selection holds no node (the mesh's nodes span (0, 0) .. (1, 1))", "pin region outside")
T.raises(function() m:pin(function() return false end) end, "holds no node", "pin function selecting none")
T.raises(function() m:unpin {} end, "TetMesh:unpin: the selection holds no node", "unpin empty list")
T.check(m.pinned:sum() == 0, "nothing pinned by the failed calls")

os.exit(T.report())
