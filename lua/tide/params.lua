--- tide.params: scene parameters from the command line.
--
--   local P = tide.params{ frames = 60, res = 64, out = "out/dam_break", apic = false }
--
-- reads `--frames 100` or `--frames=100` from the script's arguments (the
-- global `arg`), coerces each value to the type of its default (integer,
-- number, string, boolean: `--apic`, `--apic=false`, `--no-apic`), rejects
-- unknown flags, and `--help` lists the parameters with their defaults and
-- exits.  An optional second table gives one-line descriptions.
-- The table returned is also kept as tide.params.last for the run manifest.
local raise = require("tide.core")._raise -- errors at the scene's line
local M = {}

local function usage(defaults, help, script)
  local names = {}
  for k in pairs(defaults) do names[#names + 1] = k end
  table.sort(names)
  local lines = { string.format("usage: tide %s [--name value | --name=value] ...", script or "scene.lua"),
    "parameters (default):" }
  for _, k in ipairs(names) do
    local v = defaults[k]
    lines[#lines + 1] = string.format("  --%-14s %-16s %s", k, string.format("(%s)", tostring(v)),
      help and help[k] or "")
  end
  return table.concat(lines, "\n")
end

local function coerce(name, default, text)
  local t = math.type(default) or type(default)
  if t == "integer" then
    local v = math.tointeger(tonumber(text))
    if v == nil then error(string.format("parameter --%s expects an integer, got '%s'", name, text), 0) end
    return v
  elseif t == "float" then
    local v = tonumber(text)
    if v == nil or v ~= v or v == math.huge or v == -math.huge then
      error(string.format("parameter --%s expects a finite number, got '%s'", name, text), 0)
    end
    return v + 0.0
  elseif t == "boolean" then
    if text == "true" or text == "1" or text == "yes" then return true end
    if text == "false" or text == "0" or text == "no" then return false end
    error(string.format("parameter --%s expects true or false, got '%s'", name, text), 0)
  elseif t == "string" then
    return text
  end
  error(string.format("parameter --%s has a default of unsupported type %s", name, t), 0)
end

--- Parse `args` (default: the global arg) against `defaults`.
-- Returns a new table with every default, overridden by the flags given.
function M.parse(defaults, help, args)
  if type(defaults) ~= "table" then
    raise("tide.params: table of defaults expected, got " .. type(defaults))
  end
  args = args or _G.arg or {}
  local out = {}
  for k, v in pairs(defaults) do
    if type(k) ~= "string" then raise("tide.params: parameter names must be strings") end
    local t = type(v)
    if t ~= "number" and t ~= "string" and t ~= "boolean" then
      raise(string.format("tide.params: default of '%s' must be a number, string or boolean, got %s", k, t))
    end
    out[k] = v
  end
  local i = 1
  while i <= #args do
    local a = args[i]
    if a == "--help" or a == "-h" then
      print(usage(defaults, help, args[0]))
      os.exit(0)
    end
    local name, value = a:match("^%-%-([%w_%-]+)=(.*)$")
    if not name then name = a:match("^%-%-([%w_%-]+)$") end
    if not name then
      raise(string.format("tide.params: unexpected argument '%s' (parameters are given as --name value)", a))
    end
    name = name:gsub("%-", "_")
    local key = name
    if defaults[key] == nil and key:sub(1, 3) == "no_" and type(defaults[key:sub(4)]) == "boolean" and value == nil then
      out[key:sub(4)] = false
    elseif defaults[key] == nil then
      local known = {}
      for k in pairs(defaults) do known[#known + 1] = "--" .. k end
      table.sort(known)
      raise(string.format("tide.params: unknown parameter --%s (known: %s)", name, table.concat(known, " ")))
    elseif value == nil and type(defaults[key]) == "boolean" then
      out[key] = true
    else
      if value == nil then
        i = i + 1
        value = args[i]
        if value == nil then raise(string.format("tide.params: parameter --%s needs a value", name)) end
      end
      local ok, v = pcall(coerce, key, defaults[key], value)
      if not ok then raise("tide.params: " .. v) end
      out[key] = v
    end
    i = i + 1
  end
  M.last = out
  return out
end

return setmetatable(M, { __call = function(_, defaults, help, args) return M.parse(defaults, help, args) end })
