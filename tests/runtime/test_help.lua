-- Help coverage (issue 11, item 3): every exported function and method of
-- tide, its native modules, its Lua recipes and the native object types has
-- a help entry (lua/tide/help/<module>.lua) with a signature, what it does
-- and what it returns; tide.help accepts functions, names, modules and
-- objects; docs/reference.md is what scripts/help_reference.lua writes.
local tide = require "tide"
local T = require "tide.testing"
local index = require "tide.help.index"

local missing, stale = index.missing()
local new, by_file = missing, {}
for _, n in ipairs(missing) do
  local f = "lua/tide/help/" .. index.file_of(n) .. ".lua"
  by_file[f] = by_file[f] or {}
  table.insert(by_file[f], n)
end
if #new > 0 then
  local lines = { string.format("%d exported names lack a help entry; add one per name (format: lua/tide/help/index.lua; "
    .. "draft: python3 scripts/help_draft.py modules/<m>/lua_*.c --names <file of 'owner<TAB>name' lines>) to:", #new) }
  local files = {}
  for f in pairs(by_file) do files[#files + 1] = f end
  table.sort(files)
  for _, f in ipairs(files) do lines[#lines + 1] = "  " .. f .. ": " .. table.concat(by_file[f], ", ") end
  io.stderr:write(table.concat(lines, "\n"), "\n")
end
T.check(#new == 0, "every export has a help entry")
T.check(#stale == 0, "entries that name no export (renamed or removed?): " .. table.concat(stale, ", "))

-- every help file is loaded, every Lua module of lua/tide/ is swept
local function ls(dir)
  local p = io.popen("ls '" .. dir .. "'")
  local out = {}
  for f in p:read("a"):gmatch("[^\n]+") do out[#out + 1] = f end
  p:close()
  return out
end
local files = {}
for _, f in ipairs(index.FILES) do files[f] = true end
for _, f in ipairs(ls(T.source("lua/tide/help"))) do
  local n = f:match("^(.+)%.lua$")
  T.check(not n or n == "index" or files[n], "lua/tide/help/" .. f .. " is listed in FILES of lua/tide/help/index.lua")
end
local recipes = {}
for _, r in ipairs(index.RECIPES) do recipes[r] = true end
for _, f in ipairs(ls(T.source("lua/tide"))) do
  local n = f:match("^(.+)%.lua$")
  T.check(not n or recipes[n] or index.INTERNAL[n], "lua/tide/" .. f .. ": add its module to RECIPES (or INTERNAL) in lua/tide/help/index.lua")
end

-- every entry is complete enough to read
for name, e in pairs(index.entries()) do
  T.check(type(e.sig) == "string" and #e.sig > 0, name .. ": sig")
  T.check(type(e.does) == "string" and #e.does > 0, name .. ": does")
  T.check(e.returns == nil or (type(e.returns) == "string" and #e.returns > 0), name .. ": returns is text (nil: what the signature's -> says, or nothing)")
  T.check(e.args == nil or type(e.args) == "table", name .. ": args is a list (or nil: no arguments)")
  for i, a in ipairs(e.args or {}) do
    T.check(type(a[1]) == "string" and type(a[2]) == "string" and #a[2] > 0, string.format("%s: args[%d] has a name and a type", name, i))
  end
end

-- tide.help accepts functions, names, modules and objects
local function has(text, s, what) T.check(text:find(s, 1, true) ~= nil, what .. ": " .. text:sub(1, 200)) end
local t = index.text(tide.liquid.seed)
has(t, "tide.liquid.seed{", "a function")
has(t, "per_cell", "its arguments")
has(index.text("liquid.seed"), "tide.liquid.seed{", "a short name")
has(index.text("tide.liquid"), "tide.liquid.seed{", "a module name lists signatures")
has(index.text(tide.liquid), "tide.liquid.seed{", "a module table")
has(index.text(tide.flip), "flip.new", "a recipe module")
local ps = tide.liquid.seed { grid = tide.grid.new { size = { 4, 4 }, dx = 0.25 }, box = { min = { 0, 0 }, max = { 0.5, 0.5 } } }
has(index.text(ps), "seed", "an object lists its methods")
has(index.text(ps.seed), "ps:seed", "a method given as a function")
has(index.text("Particles:seed"), "ps:seed", "a method by name")
has(index.text(), "tide.liquid:", "the overview")
has(index.text("nonsense_name"), "nothing named", "an unknown name")
T.check(pcall(tide.help, tide.liquid.seed), "tide.help(function) does not raise")

-- docs/reference.md is up to date
local f = io.open(T.source("docs/reference.md"))
local doc = f and f:read("a")
if f then f:close() end
T.check(doc == index.reference(), "docs/reference.md is what `tide scripts/help_reference.lua` writes (run it)")

os.exit(T.report())
