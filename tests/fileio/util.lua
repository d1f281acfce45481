-- Shared set-up of the tide.fileio Lua tests: a fresh temporary directory.
--   local U = dofile(T.source("tests/fileio/util.lua"))
--   local dir = U.tmpdir("png2d")      ... U.cleanup(dir)
local U = {}

--- A path for a new temporary directory (created on first write).
function U.tmpdir(tag)
  local base = os.tmpname()
  os.remove(base)
  return base .. "_" .. tag
end

function U.cleanup(dir)
  os.execute("rm -rf '" .. dir .. "'")
end

--- Names in a directory (sorted, newline separated, hidden ones included).
function U.listing(dir)
  local p = io.popen("ls -A '" .. dir .. "'")
  local s = p:read("a")
  p:close()
  return s
end

return U
