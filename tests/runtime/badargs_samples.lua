-- Sample objects for the wrong-argument sweep (tests/runtime/test_badargs.lua):
-- { metatable name, constructor } for every native object type.  Add yours.
local tide = require "tide"
local samples = {}
return samples
