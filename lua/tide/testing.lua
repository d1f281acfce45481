--- Small assertion helpers for Tide's Lua tests.
--
--   local T = require "tide.testing"
--   T.check(x > 0, "x positive")
--   T.near(a, b, 1e-9, "a equals b")
--   T.raises(function() f(nil) end, "expected", "f rejects nil")
--   os.exit(T.report())            -- prints "N passed, N failed"
local T = { passed = 0, failed = 0 }

local function where()
  local info = debug.getinfo(3, "Sl")
  return info and (info.short_src .. ":" .. info.currentline) or "?"
end

function T.check(cond, msg)
  if cond then
    T.passed = T.passed + 1
  else
    T.failed = T.failed + 1
    io.stderr:write(where(), ": check failed: ", tostring(msg), "\n")
  end
  return cond
end

--- |a - b| <= tol
function T.near(a, b, tol, msg)
  local ok = type(a) == "number" and type(b) == "number" and math.abs(a - b) <= tol
  if ok then
    T.passed = T.passed + 1
  else
    T.failed = T.failed + 1
    io.stderr:write(where(), ": check failed: ", tostring(msg), ": ", tostring(a), " vs ", tostring(b),
      " (tol ", tostring(tol), ")\n")
  end
  return ok
end

--- f() must raise an error whose message contains `pattern` (plain text).
function T.raises(f, pattern, msg)
  local ok, err = pcall(f)
  local good = not ok and (pattern == nil or tostring(err):find(pattern, 1, true) ~= nil)
  if good then
    T.passed = T.passed + 1
  else
    T.failed = T.failed + 1
    io.stderr:write(where(), ": check failed: ", tostring(msg), ": ",
      ok and "no error raised" or ("error was: " .. tostring(err)), "\n")
  end
  return good
end

--- Print the closing line and return the exit code.
function T.report()
  print(string.format("%d passed, %d failed", T.passed, T.failed))
  return T.failed == 0 and 0 or 1
end

--- Path of a file in the source tree (tests run from the build directory).
function T.source(path)
  local root = os.getenv("TIDE_SOURCE_DIR") or "."
  return root .. "/" .. path
end

return T
