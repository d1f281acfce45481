--- The help of Tide's API: one source for tide.help() at the REPL, the
-- reference docs/reference.md (scripts/help_reference.lua) and the coverage
-- test (tests/runtime/test_help.lua).
--
-- Each module has a file lua/tide/help/<module>.lua returning a table of
-- entries keyed by the exported name: "tide.liquid.seed" for a function,
-- "tide.Particles:seed" for a method of a native type:
--
--   ["tide.liquid.seed"] = {
--     sig = "tide.liquid.seed{ grid =, box = {min =, max =} | sphere = | phi =, ... } -> particles, count",
--     does = "What it does, in a sentence or a few (the formula when there is one).",
--     args = { { name, type, default ("required" when it must be given), meaning with [units] }, ... } (nil: none),
--     returns = "what it returns" (nil: what the sig's -> says, or nothing),
--     ref = "the paper and equation it implements (optional)",
--     see = "docs/<module>.md",
--   },
--
-- A new export needs its entry in the file of its module (the list FILES
-- below; add a new module's file there); scripts/help_draft.py drafts entries
-- of native functions from their bindings' option specs.
local M = {}

--- The help files, in the order of the overview.
M.FILES = { "tide", "array", "grid", "linalg", "liquid", "solid", "solid_thin", "fileio", "couple", "couple_liu", "mpm", "sph", "flip",
  "drop", "liu", "zarifi", "solids", "figures", "runs" }

--- Where the entries of a module or native type live (for messages).
M.TYPE_FILE = { Array = "array", Grid = "grid", Mac = "grid", Shape = "grid", VolumeTracker = "grid",
  AdvectWork = "grid", Matrix = "linalg", Factor = "linalg", Solver = "linalg", PoissonSolver = "linalg",
  Particles = "liquid", Projector = "liquid", Periodic = "liquid", ViscositySolver = "liquid", TetMesh = "solid",
  ["solid.Collider"] = "solid", MPM = "mpm", SPH = "sph" }
M.MODULE_FILE = { shape = "grid", run = "tide", params = "tide", timers = "tide", json = "tide", mls_mpm = "mpm",
  mpm_flip = "mpm", sph_step = "sph", sph_body = "sph", probes = "liquid", runlog = "runs", sandbox = "runs" }

--- Modules whose functions are the API: the native modules (every
-- tide.<name> registered in package.preload, found at run time) and the Lua
-- recipes of lua/tide/ listed here (tests/runtime/test_help.lua fails on a
-- lua/tide/*.lua module that is in neither RECIPES nor INTERNAL).
M.RECIPES = { "shape", "flip", "drop", "liu", "zarifi", "solids", "mls_mpm", "mpm_flip", "sph_step", "sph_body", "probes", "sandbox", "timers", "json",
  "figures" }
M.INTERNAL = { prelude = "the tide table itself", run = "tide.run (a function)", params = "tide.params (a callable)",
  testing = "test helpers", runlog = "run.json bookkeeping of tide.run" }
M.NATIVE = {}
do
  local names = {}
  for name in pairs(package.preload) do
    local short = name:match("^tide%.([%w_]+)$")
    if short and short ~= "core" then names[#names + 1] = short end
  end
  table.sort(names)
  M.NATIVE = names
end

local cache

--- All entries: name -> entry (each with .file, its help file).
function M.entries()
  if cache then return cache end
  cache = {}
  for _, f in ipairs(M.FILES) do
    local ok, t = pcall(require, "tide.help." .. f)
    if ok and type(t) == "table" then
      for name, e in pairs(t) do
        if cache[name] then error("tide.help: " .. name .. " has entries in help/" .. cache[name].file .. ".lua and help/" .. f .. ".lua") end
        e.file = f
        cache[name] = e
      end
    elseif not ok and not tostring(t):find("module 'tide.help." .. f .. "' not found", 1, true) then
      error(t, 0)
    end
  end
  return cache
end

--- The help file a name belongs in: "tide.liquid.seed" -> "liquid".
function M.file_of(name)
  local t = name:match("^tide%.([%w_.]-%u[%w_]*):") or name:match("^tide%.(%u[%w_]*)")
  if t then return M.TYPE_FILE[t] or "<module of " .. t .. ">" end
  local m = name:match("^tide%.([%w_]+)%.")
  if not m then return "tide" end
  return M.MODULE_FILE[m] or m
end

-- The metatables of the native types ("tide.Array" = {methods}).
local function types()
  local out = {}
  local reg = debug and debug.getregistry and debug.getregistry() or {}
  for k, v in pairs(reg) do
    if type(k) == "string" and (k:match("^tide%.%u") or k:match("^tide%.%l+%.%u")) and type(v) == "table" then
      local methods = v.methods or (type(v.__index) == "table" and v.__index) or nil
      if methods then out[k] = methods end
    end
  end
  return out
end
M.types = types

--- Every exported name: functions of tide, of its modules and recipes, and
-- methods of the native types.  Returns a sorted list and name -> function.
function M.exports()
  local tide = require "tide"
  local names, fn = {}, {}
  local function add(name, f)
    if not fn[name] then names[#names + 1] = name end
    fn[name] = f
  end
  for k, v in pairs(tide) do
    if type(v) == "function" and k:sub(1, 1) ~= "_" then add("tide." .. k, v) end
  end
  add("tide.run", tide.run)
  add("tide.params", tide.params)
  for _, m in ipairs(M.NATIVE) do
    for k, v in pairs(tide[m]) do
      if type(v) == "function" and k:sub(1, 1) ~= "_" then add("tide." .. m .. "." .. k, v) end
    end
  end
  for _, m in ipairs(M.RECIPES) do
    local ok, mod = pcall(function() return tide[m] end)
    if ok and type(mod) == "table" then
      for k, v in pairs(mod) do
        if type(v) == "function" and k:sub(1, 1) ~= "_" then add("tide." .. m .. "." .. k, v) end
      end
    end
  end
  for tname, methods in pairs(types()) do
    for k, v in pairs(methods) do
      if type(v) == "function" and k:sub(1, 1) ~= "_" then add(tname .. ":" .. k, v) end
    end
  end
  table.sort(names)
  return names, fn
end

--- Names lacking an entry, and entries naming no export.
function M.missing()
  local names, fn = M.exports()
  local E = M.entries()
  local missing, stale = {}, {}
  for _, n in ipairs(names) do if not E[n] then missing[#missing + 1] = n end end
  for n in pairs(E) do if not fn[n] then stale[#stale + 1] = n end end
  table.sort(stale)
  return missing, stale
end

local function wrap(text, indent, width)
  local lines, line = {}, indent
  for word in text:gmatch("%S+") do
    if #line + #word + 1 > width and #line > #indent then
      lines[#lines + 1] = line
      line = indent .. word
    else
      line = (#line > #indent) and (line .. " " .. word) or (line .. word)
    end
  end
  if #line > #indent then lines[#lines + 1] = line end
  return table.concat(lines, "\n")
end

--- The text of one entry.
function M.format(name, e)
  local out = { e.sig ~= "" and e.sig or name }
  if e.does and e.does ~= "" then out[#out + 1] = wrap(e.does, "  ", 100) end
  if e.args and #e.args > 0 then
    out[#out + 1] = "  arguments:"
    local w1, w2 = 4, 4
    for _, a in ipairs(e.args) do w1, w2 = math.max(w1, #a[1]), math.max(w2, #(a[2] or "")) end
    w1, w2 = math.min(w1, 28), math.min(w2, 36)
    for _, a in ipairs(e.args) do
      local dflt = a[3] and a[3] ~= "" and ("[" .. a[3] .. "] ") or ""
      out[#out + 1] = string.format("    %-" .. w1 .. "s  %-" .. w2 .. "s  %s%s", a[1], a[2] or "", dflt, a[4] or "")
    end
  end
  if e.returns and e.returns ~= "" then out[#out + 1] = "  returns: " .. e.returns end
  if e.ref and e.ref ~= "" then out[#out + 1] = wrap("reference: " .. e.ref, "  ", 100) end
  if e.see and e.see ~= "" then out[#out + 1] = "  see: " .. e.see end
  return table.concat(out, "\n")
end

-- name of a function value (functions and methods)
local function name_of(f)
  local names, fn = M.exports()
  local best
  for _, n in ipairs(names) do
    if fn[n] == f and (not best or #n < #best or (n:find("^tide%.shape%.") and best:find("^tide%.grid%."))) then best = n end
  end
  return best
end

-- entries whose names start with prefix, as one signature line each
local function listing(title, prefix, plain)
  local E = M.entries()
  local names, fns = M.exports()
  local lines = { title }
  for _, n in ipairs(names) do
    if n:sub(1, #prefix) == prefix and not n:sub(#prefix + 1):find(plain and "[.:]" or "^$") then
      local e = E[n]
      lines[#lines + 1] = "  " .. (e and e.sig ~= "" and e.sig or (n .. "  (no help entry)"))
    end
  end
  if #lines == 1 then return nil end
  lines[#lines + 1] = "tide.help(\"<name>\") or tide.help(<function>) for the arguments of one"
  return table.concat(lines, "\n")
end

--- The help text of `what`: nil (overview), a function, a module table, a
-- native object, or a name ("liquid", "tide.liquid", "tide.liquid.seed",
-- "liquid.seed", "Particles", "Particles:seed").
function M.text(what)
  local tide = require "tide"
  local E = M.entries()
  if what == nil then
    local lines = { "Tide " .. tostring(tide.version) .. " -- modules (tide.help(\"<module>\") lists one with signatures):" }
    lines[#lines + 1] = "  tide: threads seed rand memory clock versions mkdir time run params help"
    for _, m in ipairs(M.NATIVE) do
      local keys = {}
      for k, v in pairs(tide[m]) do if type(v) == "function" and k:sub(1, 1) ~= "_" then keys[#keys + 1] = k end end
      table.sort(keys)
      lines[#lines + 1] = string.format("  tide.%s: %s", m, table.concat(keys, " "))
    end
    lines[#lines + 1] = "  recipes: tide.shape tide.flip tide.drop tide.liu tide.zarifi tide.solids tide.mls_mpm tide.mpm_flip tide.timers tide.json tide.figures"
    local tn = {}
    for t in pairs(types()) do tn[#tn + 1] = t end
    table.sort(tn)
    lines[#lines + 1] = "  object types (tide.help(obj) or tide.help(\"tide.Particles\")): " .. table.concat(tn, " ")
    lines[#lines + 1] = "  tide.help(tide.liquid.seed), tide.help(\"liquid.seed\"): one function; docs/reference.md: all of them"
    return table.concat(lines, "\n")
  end
  if type(what) == "function" then
    local n = name_of(what)
    if not n then return "tide.help: this function is not part of Tide's API" end
    return E[n] and M.format(n, E[n]) or (n .. ": no help entry yet (add one to lua/tide/help/" .. M.file_of(n) .. ".lua)")
  end
  if type(what) == "userdata" then
    local mt = getmetatable(what)
    local tname = type(mt) == "table" and mt.__name
    if not tname then return "tide.help: not a Tide object" end
    return listing(tname .. " methods:", tname .. ":", true) or ("tide.help: " .. tname .. " has no methods")
  end
  if type(what) == "table" then
    for k, v in pairs(tide) do
      if v == what then return M.text(k) end
    end
    for _, m in ipairs(M.RECIPES) do
      local ok, mod = pcall(function() return tide[m] end)
      if ok and mod == what then return M.text(m) end
    end
    return "tide.help: not a Tide module"
  end
  if type(what) ~= "string" then return "tide.help: give a function, a module, an object or a name" end
  local s = what
  if not s:find("^tide%.") and s ~= "tide" then s = "tide." .. s end
  if E[s] then return M.format(s, E[s]) end
  if s == "tide" then return listing("tide:", "tide.", true) end
  local t = listing(s .. ":", s .. ".", true) or listing(s .. " methods:", s .. ":", true)
  if t then return t end
  -- a method given without its type: Particles.seed
  local ty, meth = s:match("^(tide%.[%w_.]-%u[%w_]*)%.([%w_]+)$")
  if ty and E[ty .. ":" .. meth] then return M.format(ty .. ":" .. meth, E[ty .. ":" .. meth]) end
  return "tide.help: nothing named " .. what .. " (tide.help() lists the modules)"
end

--- docs/reference.md: every entry, module by module.
function M.reference()
  local E = M.entries()
  local names = {}
  for n in pairs(E) do names[#names + 1] = n end
  local files = {}
  for i, f in ipairs(M.FILES) do files[f] = i end
  table.sort(names, function(a, b)
    local fa, fb = files[E[a].file], files[E[b].file]
    if fa ~= fb then return fa < fb end
    return a < b
  end)
  local out = { "# Tide API reference", "",
    "Generated from lua/tide/help/*.lua by `tide scripts/help_reference.lua` (the same entries",
    "`tide.help(...)` prints; tests/runtime/test_help.lua checks this file is up to date and that every",
    "exported function and method has an entry). Arguments: name, type, [default], meaning.", "" }
  local cur
  for _, n in ipairs(names) do
    local e = E[n]
    if e.file ~= cur then
      cur = e.file
      out[#out + 1] = "## " .. (cur == "tide" and "tide (runtime, tide.run, tide.params, timers, json)" or cur)
      out[#out + 1] = ""
    end
    out[#out + 1] = "### `" .. n .. "`"
    out[#out + 1] = ""
    out[#out + 1] = "`" .. (e.sig ~= "" and e.sig or n):gsub("`", "'") .. "`"
    out[#out + 1] = ""
    if e.does and e.does ~= "" then out[#out + 1] = e.does; out[#out + 1] = "" end
    if e.args and #e.args > 0 then
      out[#out + 1] = "| argument | type | default | meaning |"
      out[#out + 1] = "|---|---|---|---|"
      for _, a in ipairs(e.args) do
        local cells = {}
        for i = 1, 4 do cells[i] = tostring(a[i] or ""):gsub("|", "\\|") end
        out[#out + 1] = "| " .. table.concat(cells, " | ") .. " |"
      end
      out[#out + 1] = ""
    end
    if e.returns and e.returns ~= "" then out[#out + 1] = "Returns: " .. e.returns; out[#out + 1] = "" end
    if e.ref and e.ref ~= "" then out[#out + 1] = "Reference: " .. e.ref; out[#out + 1] = "" end
    if e.see and e.see ~= "" then out[#out + 1] = "See " .. e.see .. "."; out[#out + 1] = "" end
  end
  return table.concat(out, "\n")
end

return M
