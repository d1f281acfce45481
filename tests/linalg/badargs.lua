-- Knowledge of tide.linalg for the wrong-argument sweep (tests/runtime/test_badargs.lua).
local tide = require "tide"
local L = tide.linalg

local function small()
  return L.matrix { n = 3, i = { 1, 2, 3, 1, 2 }, j = { 1, 2, 3, 2, 1 }, v = { 4, 4, 4, -1, -1 } }
end

return {
  accepts = {},
  method_accepts = {
    ["tide.Matrix"] = { diag = "any", transpose = "any", totriplets = "any", clone = "any", free = "any" },
    ["tide.Factor"] = { info = "any", free = "any" },
    ["tide.Solver"] = { refactor = { ["nil"] = "refactor with its own matrix" }, free = "any" },
  },
  samples = {
    { "tide.Matrix", small },
    { "tide.Factor", function() return L.cholesky(small()) end },
    { "tide.Solver", function() return L.solver { A = small(), precond = "mic0" } end },
  },
}
