-- Knowledge of the level-set part of tide.grid for the wrong-argument sweep
-- (tests/runtime/test_badargs.lua).  tide.Shape's entries live in
-- tests/solid/badargs.lua (one table per type; the later file wins).
local tide = require "tide"
local G = tide.grid

return {
  accepts = {},
  method_accepts = {
    ["tide.VolumeTracker"] = { volumes = "any", free = "any", set_weights = { ["nil"] = "no weights: every cell counts 1" } },
  },
  samples = {
    { "tide.VolumeTracker", function()
      local g = G.new { size = { 8, 8 }, dx = 0.1 }
      return G.volume_tracker { grid = g, phi = G.shape.sphere { center = { .4, .4 }, radius = .2 }:sdf(g) }
    end },
  },
}
