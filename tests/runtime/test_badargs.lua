-- The wrong-argument sweep: every exported function and method, called with
-- wrong types, NaN, negative sizes, unknown option keys and freed objects,
-- must raise a Lua error (never crash, never succeed silently).
--
-- Each area adds its own knowledge in tests/<area>/badargs.lua (loaded if
-- present), returning
--   { accepts = { ["tide.m.f"] = { ["<garbage label>"] = "why it is valid" } or "any" },
--     method_accepts = { ["tide.Type"] = { method = { ["<label>"] = "why" } or "any" } },
--     samples = { { "tide.Type", function() return <new object> end }, ... } }
-- so that methods of every native type are swept too.
local tide = require "tide"
local T = require "tide.testing"

local A = tide.array
local nan = 0 / 0

-- Values no operator accepts in place of its first argument.
local garbage = {
  { "nil", nil }, { "NaN", nan }, { "inf", math.huge }, { "negative", -3 }, { "string", "garbage" },
  { "boolean", true }, { "function", print }, { "empty table", {} },
  { "table with unknown key", { surely_not_an_option = 1 } },
  { "negative sizes", { size = { -4, -4 }, n = -4, dx = -1, shape = { -1 } } },
  { "NaN options", { dx = nan, tol = nan, size = { nan, nan } } },
}

-- Functions that legitimately accept some of these (value -> reason).
local accepts = {
  ["tide.threads"] = { ["nil"] = "query", negative = "n <= 0 means all cores" },
  ["tide.seed"] = { ["nil"] = "query" },
  ["tide.memory"] = "any", ["tide.clock"] = "any", ["tide.versions"] = "any",
  ["tide.interrupted"] = "any", ["tide.quiet"] = "any", ["tide.progress_enabled"] = "any",
  ["tide.help"] = "any",
  ["tide.mkdir"] = { string = "creates ./garbage" },
  ["tide.fileio.clean_temps"] = { string = "a missing folder holds no temporaries" },
  ["tide.time"] = { ["function"] = "times print()" },
  ["tide.array.from"] = { ["empty table"] = "an empty 1-d array" },
  ["tide.params"] = { ["empty table"] = "no parameters", ["table with unknown key"] = "declares a parameter" },
}

local skip_modules = { core = true, testing = true, _core = true }
local method_accepts


local function accepted(fname, label)
  local a = accepts[fname]
  return a == "any" or (type(a) == "table" and a[label] ~= nil)
end

local count = 0
local function sweep(fname, f, prefix_args)
  for _, g in ipairs(garbage) do
    local label, value = g[1], g[2]
    if not accepted(fname, label) then
      local ok, err
      if prefix_args then
        ok, err = pcall(f, prefix_args, value)
      else
        ok, err = pcall(f, value)
      end
      count = count + 1
      T.check(not ok, string.format("%s(%s) must raise an error", fname, label))
      if not ok then
        T.check(type(err) == "string" and #err > 0, fname .. " error is a message")
      end
    end
  end
end

-- methods that accept any single argument or none
method_accepts = {
  ["tide.Array"] = { size = "any", shape = "any", nonfinite = "any", sum = "any", norm = "any",
    min = "any", max = "any", totable = "any", checksum = "any", free = "any", clone = { ["nil"] = "same dtype" },
    fill = { negative = "fill with -3" }, scale = { negative = "scale by -3" } },
}

-- Sample objects of every native type, for their methods.  Each module's
-- area may extend this list through its tests/<area>/badargs.lua (see the top).
local samples = {
  { "tide.Array", function() return A.zeros({ 3, 2 }) end },
}

for _, area in ipairs { "linalg", "grid", "levelset", "liquid", "solid", "fileio", "couple", "mg", "sph", "mpm" } do
  local path = T.source("tests/" .. area .. "/badargs.lua")
  local f = io.open(path)
  if f then
    f:close()
    local extra = dofile(path)
    for k, v in pairs(extra.accepts or {}) do accepts[k] = v end
    for k, v in pairs(extra.method_accepts or {}) do method_accepts[k] = v end
    for _, smp in ipairs(extra.samples or {}) do samples[#samples + 1] = smp end
  end
end

-- module functions
local names = {}
for k, v in pairs(tide) do if type(v) == "table" and not skip_modules[k] then names[#names + 1] = k end end
table.sort(names)
for _, fname in ipairs { "seed", "mkdir", "rand" } do sweep("tide." .. fname, tide[fname]) end
for _, m in ipairs(names) do
  local keys = {}
  for k, f in pairs(tide[m]) do if type(f) == "function" then keys[#keys + 1] = k end end
  table.sort(keys)
  for _, k in ipairs(keys) do sweep("tide." .. m .. "." .. k, tide[m][k]) end
end
sweep("tide.params", function(v) return tide.params(v) end)
sweep("tide.run", function(v) return tide.run(v) end)

for _, s in ipairs(samples) do
  local tname, make = s[1], s[2]
  local obj = make()
  local mt = getmetatable(obj)
  local methods = mt and (mt.methods or (type(mt.__index) == "table" and mt.__index)) or {}
  local mnames = {}
  for k, f in pairs(methods) do if type(f) == "function" then mnames[#mnames + 1] = k end end
  table.sort(mnames)
  T.check(#mnames > 0, tname .. " has methods")
  for _, k in ipairs(mnames) do
    local acc = (method_accepts[tname] or {})[k]
    for _, g in ipairs(garbage) do
      if not (acc == "any" or (type(acc) == "table" and acc[g[1]])) then
        local o = make()
        local ok = pcall(methods[k], o, g[2])
        count = count + 1
        T.check(not ok, string.format("%s:%s(%s) must raise an error", tname, k, g[1]))
      end
    end
    -- wrong self
    T.check(not pcall(methods[k], 42), string.format("%s.%s(42) must raise an error", tname, k))
    -- freed self
    local o = make()
    if o.free then
      o:free()
      if k ~= "free" then
        T.check(not pcall(methods[k], o), string.format("%s:%s() on a freed object must raise", tname, k))
      end
    end
  end
end

print(string.format("sweep: %d calls with wrong arguments", count))
os.exit(T.report())
