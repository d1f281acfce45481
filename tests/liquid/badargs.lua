-- Knowledge of tide.grid and tide.liquid for the wrong-argument sweep
-- (tests/runtime/test_badargs.lua).
local tide = require "tide"
return {
  accepts = {},
  method_accepts = {
    ["tide.Grid"] = { cells = { ["nil"] = "f64 cells" }, mac = { ["nil"] = "f64 MAC field" },
      centers = "any", bounds = "any", free = "any" },
    ["tide.Mac"] = { max_speed = "any", clone = "any", free = "any", divergence = { ["nil"] = "new output" },
      enforce_walls = { ["nil"] = "domain walls only" }, fill = { negative = "fill with -3" },
      add_gravity = { negative = "dt = -3 integrates backwards" } },
    ["tide.Particles"] = { count = "any", free = "any", max_speed = "any" },
    ["tide.Periodic"] = { free = "any" },
    ["tide.ViscositySolver"] = { free = "any" },
  },
  samples = {
    { "tide.ViscositySolver", function() return tide.liquid.viscosity_solver() end },
    { "tide.Periodic", function() return tide.liquid.periodic { grid = tide.grid.new { size = { 4, 3 }, dx = 0.1 } } end },
    { "tide.Grid", function() return tide.grid.new { size = { 4, 3 }, dx = 0.1 } end },
    { "tide.Mac", function() return tide.grid.new { size = { 4, 3 }, dx = 0.1 }:mac() end },
    { "tide.Particles", function()
      return tide.liquid.seed { grid = tide.grid.new { size = { 4, 3 }, dx = 0.1 }, box = { min = { 0, 0 }, max = { 0.2, 0.2 } } }
    end },
  },
}
