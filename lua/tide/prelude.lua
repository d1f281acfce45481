--- The table returned by `require "tide"`.
--
-- Native modules (tide.array, tide.grid, tide.linalg, ...) and the pure-Lua
-- helpers in lua/tide/ (tide.params, tide.run, ...) are loaded on first use:
-- `tide.grid` is `require "tide.grid"`.  Functions of the runtime core
-- (threads, seed, memory, versions, clock, rand) sit directly on the table.
local core = require "tide.core"

local tide = {
  version = core.versions().tide,
  _core = core,
}

for name, f in pairs(core) do
  if type(f) == "function" then tide[name] = f end
end

--- true when the program was started with --quiet.
function tide.quiet() return core.quiet == true end

--- true when a progress bar should be drawn (TTY or --progress).
function tide.progress_enabled() return core.progress == true end

local function loadable(name)
  if package.preload[name] then return true end
  return package.searchpath(name, package.path) ~= nil
end

setmetatable(tide, {
  __index = function(t, k)
    if type(k) ~= "string" then return nil end
    local name = "tide." .. k
    if not loadable(name) then return nil end
    local m = require(name)
    rawset(t, k, m)
    return m
  end,
})

-- Native modules are cheap to open: load them now so they show up in pairs()
-- and in the REPL's tab completion.  Pure-Lua helpers stay lazy.
do
  local names = {}
  for name in pairs(package.preload) do
    local short = name:match("^tide%.([%w_]+)$")
    if short and short ~= "core" then names[#names + 1] = short end
  end
  table.sort(names)
  for _, short in ipairs(names) do rawset(tide, short, require("tide." .. short)) end
end

--- Time a call: tide.time(name, f, ...) returns f(...) and adds its wall time
-- to the operator table printed by tide.run (see tide.timers).
function tide.time(name, f, ...) return require("tide.timers").time(name, f, ...) end

--- Help: tide.help() lists the modules, tide.help("liquid") or
-- tide.help(tide.liquid) one module with signatures, tide.help(tide.liquid.seed),
-- tide.help("liquid.seed") or tide.help("Particles:seed") one function with its
-- arguments (types, defaults, units), result and paper; tide.help(obj) the
-- methods of a native object.  Entries: lua/tide/help/*.lua (docs/reference.md).
function tide.help(what)
  print(require("tide.help.index").text(what))
end

return tide
