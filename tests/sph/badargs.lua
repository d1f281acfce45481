-- Knowledge of tide.sph for the wrong-argument sweep (tests/runtime/test_badargs.lua).
local tide = require "tide"

local function sample()
  local g = tide.grid.new { size = { 8, 8 }, dx = 1 / 8 }
  local S = tide.sph.new { grid = g }
  S:seed { shape = tide.shape.box { min = { 0.3, 0.3 }, max = { 0.6, 0.6 } } }
  S:search()
  return S
end

local any = "any"
return {
  method_accepts = {
    ["tide.SPH"] = { search = any, density = any, tait = any, dfsph_factor = any, max_speed = any,
      diagnostics = any, free = any,
      forces = { ["nil"] = "the defaults", ["empty table"] = "the defaults" },
      max_dt = { ["nil"] = "the defaults", ["empty table"] = "the defaults" } },
  },
  samples = { { "tide.SPH", sample } },
}
