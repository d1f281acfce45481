-- Errors point into the scene (issue 11, item 4): a message raised for a
-- user's call names the user's file:line even when the call went through
-- Tide's Lua library (tide.time, recipes like tide.flip, tide.run); cells are
-- printed as 1-based (i, j[, k]); assigning to an object's field says what
-- can be done instead.
local tide = require "tide"
local T = require "tide.testing"

local me = debug.getinfo(1, "S").short_src

-- The message of f() and the line it must name.
local function message(f)
  local ok, err = pcall(f)
  T.check(not ok, "raises")
  return tostring(err)
end

local function names_line(err, line, what)
  local want = me .. ":" .. line .. ":"
  T.check(err:sub(1, #want) == want, what .. ": message starts with " .. want .. ", got: " .. err)
end

local g = tide.grid.new { size = { 6, 5 }, dx = 0.1 }

-- a native function called through tide.time (timers.lua calls it)
local line
local err = message(function()
  line = debug.getinfo(1, "l").currentline + 1
  local _ = tide.time("seed", tide.liquid.seed, { grid = g, bogus = 1 })
end)
names_line(err, line, "native error through tide.time")
T.check(err:find("unknown option 'bogus'", 1, true), "names the bad key: " .. err)

-- a recipe's own check (flip.lua raises)
err = message(function()
  line = debug.getinfo(1, "l").currentline + 1
  local _ = tide.flip.new { grid = g }
end)
names_line(err, line, "recipe argument check")

-- a native call inside a recipe with the user's bad option (drop.lua -> C)
err = message(function()
  line = debug.getinfo(1, "l").currentline + 1
  local _ = tide.drop.disk { grid = g, center = { 0.3, 0.25 }, radius = -1 }
end)
names_line(err, line, "tide.drop.disk")

-- a runtime error inside a recipe while tide.run drives the user's step
err = message(function()
  tide.run { frames = 1, quiet = true, step = function(dt)
    line = debug.getinfo(1, "l").currentline + 1
    tide.flip.step(nil, dt)
  end }
end)
names_line(err, line, "runtime error in a recipe under tide.run")
T.check(err:find("flip.lua:", 1, true), "the library line is kept after the scene's: " .. err)

-- cells are 1-based (i, j): NaN phi in cell (3, 2) of the 6 x 5 grid
local phi = g:cells()
phi:fill(1)
phi:set(3, 2, 0 / 0)
local u, valid = g:mac(), g:mac("u8")
err = message(function() tide.liquid.extend(u, phi, valid) end)
T.check(err:find("cell (3, 2)", 1, true), "cell named (3, 2): " .. err)

local g3 = tide.grid.new { size = { 4, 3, 5 }, dx = 0.1 }
local phi3 = g3:cells()
phi3:fill(1)
phi3:set(4, 1, 5, 0 / 0)
err = message(function() tide.liquid.extend(g3:mac(), phi3, g3:mac("u8")) end)
T.check(err:find("cell (4, 1, 5)", 1, true), "cell named (4, 1, 5): " .. err)

-- assigning to fields of native objects
local m = tide.solid.box { min = { 0, 0 }, max = { 1, 1 }, cells = { 2, 2 } }
err = message(function()
  line = debug.getinfo(1, "l").currentline + 1
  m.x = m.x
end)
names_line(err, line, "m.x = ...")
T.check(err:find("tide.TetMesh: field 'x' cannot be assigned", 1, true) and err:find("m.x:copy", 1, true) == nil
  and err:find(":copy(array)", 1, true), "m.x = arr explains copy: " .. err)
err = message(function() m.nv = 3 end)
T.check(err:find("field 'nv' is read-only", 1, true), "read-only scalar field: " .. err)
err = message(function() m.pin = 3 end)
T.check(err:find("'pin' is a method", 1, true), "method: " .. err)
err = message(function() g.colour = 3 end)
T.check(err:find("tide.Grid has no field 'colour'", 1, true), "unknown field: " .. err)

-- the tide program's message handler: a runtime error inside the library
-- names the scene's line first
local scene = os.tmpname() .. ".lua"
local f = assert(io.open(scene, "w"))
f:write('local tide = require "tide"\n\nlocal S = tide.flip.step(nil, 0.1)\n')
f:close()
local exe = (os.getenv("TIDE_BUILD_DIR") or ".") .. "/tide"
local p = io.popen(string.format("%q %q 2>&1", exe, scene))
local out = p:read("a")
p:close()
os.remove(scene)
T.check(out:find(scene:match("[^/]+$") .. ":3: ", 1, true) ~= nil, "scene's line 3 named: " .. out)

os.exit(T.report())
