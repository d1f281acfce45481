-- Knowledge of tide.mpm for the wrong-argument sweep (tests/runtime/test_badargs.lua).
local tide = require "tide"

local function sample()
  local g = tide.grid.new { size = { 8, 8 }, dx = 1 / 8 }
  local M = tide.mpm.new { grid = g }
  local j = M:material { E = 1e3, nu = 0.3 }
  M:seed { shape = tide.shape.box { min = { 0.3, 0.3 }, max = { 0.6, 0.6 } }, material = j }
  return M
end

return {
  method_accepts = {
    ["tide.MPM"] = { sort = "any", max_speed = "any", diagnostics = "any", grid_sums = "any", free = "any",
      max_dt = { ["nil"] = "the default cfl 0.5" } },
  },
  samples = { { "tide.MPM", sample } },
}
