-- Knowledge of the MAC-advection part of tide.grid for the wrong-argument
-- sweep (tests/runtime/test_badargs.lua).
local tide = require "tide"

return {
  accepts = {
    ["tide.grid.advect_work"] = { ["nil"] = "no arguments: a new empty workspace" },
  },
  method_accepts = {
    ["tide.AdvectWork"] = { bytes = "any", free = "any" },
  },
  samples = {
    { "tide.AdvectWork", function() return tide.grid.advect_work() end },
  },
}
