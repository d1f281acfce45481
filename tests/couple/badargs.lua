-- Knowledge of tide.couple for the wrong-argument sweep (tests/runtime/test_badargs.lua).
local tide = require "tide"

return {
  accepts = {
    ["tide.couple.mpm_solid"] = { ["nil"] = "all defaults", ["empty table"] = "all defaults" },
  },
  method_accepts = {
    ["tide.MPMSolid"] = { free = "any" },
  },
  samples = { { "tide.MPMSolid", function() return tide.couple.mpm_solid {} end } },
}
