-- Write docs/reference.md from the help entries (lua/tide/help/*.lua):
--   tide scripts/help_reference.lua [out = docs/reference.md]
-- tests/runtime/test_help.lua fails when the file is not what this writes.
local index = require "tide.help.index"
local out = arg[1] or "docs/reference.md"
local text = index.reference()
local tmp = out .. ".tmp"
local f = assert(io.open(tmp, "w"))
f:write(text)
f:close()
assert(os.rename(tmp, out))
print(string.format("%s: %d bytes", out, #text))
