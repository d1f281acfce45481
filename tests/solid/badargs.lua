-- Knowledge of tide.solid for the wrong-argument sweep (tests/runtime/test_badargs.lua).
local tide = require "tide"
local S = tide.solid

local function mesh()
  local m = S.box { min = { 0, 0, 0 }, max = { 1, 1, 1 }, cells = { 1, 1, 1 } }
  m:material { E = 1e4, nu = 0.3 }
  return m
end

local queries = { energy = "any", kinetic_energy = "any", volume = "any", volumes = "any", forces = "any",
  elements = "any", boundary = "any", boundary_normals = "any", boundary_nodes = "any", reset = "any",
  free = "any", plastic_flow = "any", total_energy = "any", hinges = "any", bends = "any", intersections = "any",
  stiffness = { ["nil"] = "defaults", ["empty table"] = "defaults" }, fibers = { ["nil"] = "removes per-element fibres" },
  pin = { ["empty table"] = "an empty node list pins nothing", ["function"] = "a predicate (print: false)" },
  unpin = { ["empty table"] = "an empty node list unpins nothing", ["function"] = "a predicate" },
  select_nodes = { ["empty table"] = "an empty node list selects nothing", ["function"] = "a predicate" },
  select_faces = { ["empty table"] = "an empty node list selects nothing", ["function"] = "a predicate" } }

return {
  accepts = {
    ["tide.solid.read"] = { string = "a missing file returns nil, message (an expected failure)" },
  },
  method_accepts = {
    ["tide.TetMesh"] = queries,
    ["tide.Shape"] = { bounds = "any", free = "any", moved = { ["empty table"] = "the identity motion" } },
    ["tide.solid.Collider"] = { free = "any", set = { ["empty table"] = "changes nothing" },
      advance = { negative = "moves the body back in time" } },
  },
  samples = {
    { "tide.TetMesh", mesh },
    { "tide.Shape", function() return S.shape.sphere { center = { 0, 0, 0 }, radius = 1 } end },
    { "tide.solid.Collider", function()
      return S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, 1, 0 } } }
    end },
  },
}
