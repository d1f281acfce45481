--- tide.sandbox: run a scene from a stranger without giving it the machine.
--
--   tide --sandbox [--out DIR] [--memory MB] [--time S] scene.lua [args]
--   tide.sandbox.run{ script = "scene.lua", out = "out", memory = 2048, time = 600, args = {...} }
--
-- The scene runs in its own global table with:
--   * no process execution: os.execute, io.popen refused;
--   * no native code: package.loadlib refused, no C searchers (Tide's native
--     modules are preloaded), package.cpath empty;
--   * no binary chunks: load, loadfile, dofile and require load text only;
--   * no debug library (nor require "debug", package.loaded, _G of the host);
--   * reads only below the scene's folder, Tide's Lua library and the output
--     folder; writes only below the output folder -- through io.open/io.lines/
--     io.input/io.output/os.remove/os.rename/loadfile/dofile/require and every
--     reader and writer of tide.fileio and tide.solid (the C core checks the
--     same policy, tide_path_allowed); os.tmpname refused, os.getenv gives nil;
--   * a memory limit (Lua heap + Tide's arrays) and a wall-clock time limit
--     (a Lua hook and a timer that stops long C operators), neither of which
--     pcall can swallow.
-- The sandbox stays on for the rest of the process (it cannot be undone from
-- inside).  Violations are errors beginning with "sandbox:".
local core = require "tide.core"

local M = {}

local function refuse(name)
  return function() error("sandbox: " .. name .. " is not allowed (tide --sandbox)", 2) end
end

local function check(path, write)
  if type(path) ~= "string" then return end -- the wrapped function reports the type
  local ok, msg = core._path_allowed(path, write)
  if not ok then error(msg, 3) end
end

local function dirname(p)
  return p:match("^(.*)/[^/]*$") or "."
end

local function is_write_mode(mode)
  return type(mode) == "string" and mode:find("[wa+]") ~= nil
end

local specs = { script = "string", out = "string", memory = "number", time = "number", args = "table" }

--- Run the scene file `script` sandboxed; returns true or raises its error.
function M.run(o)
  if type(o) ~= "table" then core._raise("tide.sandbox.run: table of named arguments expected, got " .. type(o)) end
  for k, v in pairs(o) do
    if not specs[k] then core._raise("tide.sandbox.run: unknown option '" .. tostring(k) .. "' (accepted: args, memory, out, script, time)") end
    if type(v) ~= specs[k] then core._raise(string.format("tide.sandbox.run: option '%s' must be a %s, got %s", k, specs[k], type(v))) end
  end
  if not o.script then core._raise("tide.sandbox.run: missing option 'script' (the scene file)") end
  if o.memory and not (o.memory > 0) then core._raise("tide.sandbox.run: 'memory' must be positive (MB)") end
  if o.time and not (o.time > 0) then core._raise("tide.sandbox.run: 'time' must be positive (seconds)") end
  local out = o.out or "out"
  core.mkdir(out)
  local libdir
  for d in package.path:gmatch("([^;]+)/%?%.lua") do
    local f = io.open(d .. "/tide/run.lua")
    if f then f:close(); libdir = d; break end
  end
  local scene_dir = dirname(o.script)
  local read = { scene_dir, out }
  if libdir then read[#read + 1] = libdir end
  -- the real functions, kept before anything is replaced
  local real = { open = io.open, lines = io.lines, input = io.input, output = io.output, remove = os.remove,
    rename = os.rename, load = load, loadfile = loadfile, require = require }

  core._sandbox { read = read, write = { out }, memory = o.memory and math.floor(o.memory * 2 ^ 20),
    time = o.time }

  -- process-wide: what any code (the scene's or Tide's own Lua) can reach
  os.execute, io.popen, package.loadlib, os.tmpname = refuse("os.execute"), refuse("io.popen"),
    refuse("package.loadlib"), refuse("os.tmpname")
  os.getenv = function() return nil end
  io.open = function(path, mode) -- refused like a missing file: nil, message
    if type(path) == "string" then
      local ok, msg = core._path_allowed(path, is_write_mode(mode))
      if not ok then return nil, msg end
    end
    return real.open(path, mode)
  end
  io.lines = function(path, ...)
    if path ~= nil then check(path, false) end
    return real.lines(path, ...)
  end
  io.input = function(f)
    if type(f) == "string" then check(f, false) end
    return real.input(f)
  end
  io.output = function(f)
    if type(f) == "string" then check(f, true) end
    return real.output(f)
  end
  os.remove = function(path) check(path, true); return real.remove(path) end
  os.rename = function(a, b) check(a, true); check(b, true); return real.rename(a, b) end
  package.cpath = ""
  for i = #package.searchers, 3, -1 do table.remove(package.searchers, i) end -- C and all-in-one loaders
  local smeta = getmetatable("")
  smeta.__metatable = false -- the string metatable cannot be swapped under the host's code

  -- the scene's globals
  local env = {}
  local function text_load(chunk, name, mode, e)
    if mode ~= nil and mode ~= "t" then error("sandbox: binary chunks are not allowed (load mode must be \"t\")", 2) end
    return real.load(chunk, name, "t", e == nil and env or e)
  end
  local function text_loadfile(path, mode, e)
    if mode ~= nil and mode ~= "t" then error("sandbox: binary chunks are not allowed (loadfile mode must be \"t\")", 2) end
    if path == nil then error("sandbox: loadfile from stdin is not allowed", 2) end
    check(path, false)
    return real.loadfile(path, "t", e == nil and env or e)
  end
  -- Lua modules: Tide's library with the host's globals, everything else (the
  -- scene's own modules) with the scene's, text only, below the read roots
  package.path = table.concat({ scene_dir .. "/?.lua", scene_dir .. "/?/init.lua" }, ";") ..
    (libdir and (";" .. libdir .. "/?.lua") or "")
  package.searchers[2] = function(name)
    local path, err = package.searchpath(name, package.path)
    if not path then return "\n\t" .. err end
    local ok, msg = core._path_allowed(path, false)
    if not ok then return "\n\t" .. msg end
    local trusted = libdir and path:sub(1, #libdir + 1) == libdir .. "/"
    local f, lerr = real.loadfile(path, "t", trusted and _G or env)
    if not f then error(lerr, 0) end
    return f, path
  end
  local hidden = { debug = true, _G = true, package = true }
  local function scene_require(name)
    if type(name) == "string" and hidden[name] then
      error("sandbox: require \"" .. name .. "\" is not allowed", 2)
    end
    if env[name] ~= nil and type(env[name]) == "table" and (name == "io" or name == "os" or name == "string"
        or name == "table" or name == "math" or name == "utf8" or name == "coroutine") then
      return env[name]
    end
    return real.require(name)
  end
  local function copy(t)
    local c = {}
    for k, v in pairs(t) do c[k] = v end
    return c
  end
  for _, k in ipairs { "assert", "error", "ipairs", "next", "pairs", "pcall", "print", "rawequal", "rawget",
    "rawlen", "rawset", "select", "setmetatable", "getmetatable", "tonumber", "tostring", "type", "xpcall",
    "collectgarbage", "_VERSION", "warn" } do
    env[k] = _G[k]
  end
  env.string, env.table, env.math, env.utf8, env.coroutine = copy(string), copy(table), copy(math), copy(utf8),
    copy(coroutine)
  env.io = { open = io.open, lines = io.lines, read = io.read, write = io.write, close = io.close, type = io.type,
    stdout = io.stdout, stderr = io.stderr, input = io.input, output = io.output, popen = io.popen }
  env.os = { clock = os.clock, date = os.date, time = os.time, difftime = os.difftime, exit = os.exit,
    getenv = os.getenv, remove = os.remove, rename = os.rename, execute = os.execute, tmpname = os.tmpname }
  env.load, env.loadfile = text_load, text_loadfile
  env.dofile = function(path)
    local f, err = text_loadfile(path)
    if not f then error(err, 2) end
    return f()
  end
  env.require = scene_require
  env.package = { path = package.path, config = package.config, loadlib = package.loadlib, cpath = "" }
  env.debug = nil
  env._G = env
  local args = o.args or {}
  local arg = { [0] = o.script }
  for i, a in ipairs(args) do arg[i] = a end
  env.arg = arg
  _G.arg = arg -- tide.params and tide.run read the host's arg

  check(o.script, false)
  local chunk, err = real.loadfile(o.script, "t", env)
  if not chunk then error(err, 0) end
  local ok, res = core._sandbox_call(chunk, table.unpack(args))
  if not ok then error(res, 0) end
  return true
end

return M
