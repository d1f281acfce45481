--- tide.probes: sets of measurements of a liquid state, sampled every frame
-- and written to CSV (docs/liquids-physics.md, "Probes").
--
--   local probes = require "tide.probes"
--   local P = probes.new{ grid = g, rho = 1000, gravity = {0, -9.81}, per_cell = 4,
--     state = function() return { phi = S.phi, u = S.u, particles = ps } end,
--     { "front", wall = "y-", direction = "x+" },          -- dam-break surge front [m]
--     { "elevation", wall = "x-", name = "column" },      -- column height at the left wall [m]
--     { "elevation", at = 0.3, name = "gauge" },          -- surface elevation at x = 0.3 [m]
--     { "volume" }, { "kinetic" }, { "potential" }, { "max_speed" },
--   }
--   tide.run{ ..., probes = P }        -- samples frame 0 and every frame, writes out/probes.csv
--   local row = P:sample(t)            -- or by hand: {t, value, ...}; P.rows, P.header
--   P:write("probes.csv"); P:column("front")   -- CSV (temp name + rename); one column as a list
--
-- Each probe reads the level set (state.phi; the velocity state.u for the
-- energies) or the particles (state.particles), whichever the state has, the
-- level set first; `source = "particles"` picks the particles.  Kinds (the
-- operators of tide.liquid, probe.h):
--   front      tide.liquid.front: farthest liquid along `direction` in the cell layer at `wall`
--   elevation  tide.liquid.elevation: topmost surface height above `at` (or at a `wall`)
--   volume, kinetic, potential, max_speed   tide.liquid.measure
-- A probe that finds no liquid (an empty column) records nan.
local tide = require "tide"
local raise = require("tide.core")._raise

local probes = {}
local Probes = {}
Probes.__index = Probes

local KINDS = { front = true, elevation = true, volume = true, kinetic = true, potential = true, max_speed = true }
local PROBE_KEYS = { name = true, source = true, wall = true, direction = true, layer = true, at = true, up = true,
  half_width = true }
local SET_KEYS = { grid = true, rho = true, gravity = true, per_cell = true, state = true, path = true }

--- Build a probe set: options grid (tide.Grid), state (function returning
-- {phi =, u =, particles =}), rho (1000), gravity ({0, -9.81[, 0]}),
-- per_cell (particles per cell at rest, for the particle volume and mass;
-- 2^dim), path (CSV file for tide.run; default <out>/probes.csv), and the
-- probes as list entries {kind, options...}.
function probes.new(o)
  if type(o) ~= "table" then raise("tide.probes.new: table of named arguments expected") end
  for k in pairs(o) do
    if type(k) ~= "number" and not SET_KEYS[k] then raise(string.format("tide.probes.new: unknown option '%s'", tostring(k))) end
  end
  local g = o.grid
  if type(g) ~= "userdata" or not g.dim then raise("tide.probes.new: grid (tide.Grid) is required") end
  if type(o.state) ~= "function" then raise("tide.probes.new: state (a function returning {phi =, u =, particles =}) is required") end
  local P = setmetatable({ grid = g, state = o.state, rho = o.rho or 1000, path = o.path,
    gravity = o.gravity or (g.dim == 2 and { 0, -9.81 } or { 0, -9.81, 0 }), per_cell = o.per_cell or 2 ^ g.dim,
    list = {}, header = { "t" }, rows = {} }, Probes)
  if type(P.rho) ~= "number" or not (P.rho > 0) then raise("tide.probes.new: rho must be a positive number") end
  if type(P.per_cell) ~= "number" or not (P.per_cell > 0) then raise("tide.probes.new: per_cell must be a positive number") end
  if type(P.gravity) ~= "table" or #P.gravity ~= g.dim then raise("tide.probes.new: gravity must have " .. g.dim .. " components") end
  if #o == 0 then raise("tide.probes.new: no probes given (list entries like {\"volume\"})") end
  local names = {}
  for i, p in ipairs(o) do
    if type(p) ~= "table" or not KINDS[p[1]] then
      raise(string.format("tide.probes.new: probe %d must be {kind, ...} with kind front, elevation, volume, kinetic, potential or max_speed", i))
    end
    for k in pairs(p) do
      if k ~= 1 and not PROBE_KEYS[k] then raise(string.format("tide.probes.new: probe %d (%s): unknown option '%s'", i, p[1], tostring(k))) end
    end
    if p.source ~= nil and p.source ~= "phi" and p.source ~= "particles" then
      raise(string.format("tide.probes.new: probe %d: source must be \"phi\" or \"particles\"", i))
    end
    local name = p.name or p[1]
    if names[name] then raise(string.format("tide.probes.new: two probes named '%s' (give them names)", name)) end
    names[name] = true
    -- the options for the level set, and for the particles (layer, half_width)
    local opts, popts
    if p[1] == "front" then
      opts, popts = { wall = p.wall, direction = p.direction }, { wall = p.wall, direction = p.direction, layer = p.layer }
    elseif p[1] == "elevation" then
      opts = { at = p.at, wall = p.wall, up = p.up }
      popts = { at = p.at, wall = p.wall, up = p.up, half_width = p.half_width }
    end
    P.list[#P.list + 1] = { kind = p[1], name = name, source = p.source, opts = opts, popts = popts }
    P.header[#P.header + 1] = name
  end
  return P
end

-- the level set or the particles a probe reads
local function source(P, p, st)
  if p.source == "particles" or (p.source == nil and st.phi == nil) then
    if not st.particles then raise("tide.probes: probe '" .. p.name .. "' needs state().particles") end
    return "particles", st.particles
  end
  if not st.phi then raise("tide.probes: probe '" .. p.name .. "' needs state().phi") end
  return "phi", st.phi
end

--- Measure every probe on the current state; appends {t, values...} to
-- P.rows and returns it.
function Probes:sample(t)
  if type(t) ~= "number" then raise("Probes:sample: time t expected") end
  local st = self.state()
  if type(st) ~= "table" then raise("Probes:sample: state() must return a table {phi =, u =, particles =}") end
  local g = self.grid
  local row = { t }
  local measured = {}
  for _, p in ipairs(self.list) do
    local kind, v = p.kind
    local which, src = source(self, p, st)
    local o = which == "particles" and p.popts or p.opts
    if kind == "front" then
      v = tide.liquid.front(g, src, o)
    elseif kind == "elevation" then
      v = tide.liquid.elevation(g, src, o)
    else
      local m = measured[which]
      if not m then
        if which == "particles" then
          m = tide.liquid.measure { particles = src, grid = g, per_cell = self.per_cell, rho = self.rho, gravity = self.gravity }
        else
          if not st.u then raise("tide.probes: probe '" .. p.name .. "' needs state().u with the level set") end
          m = tide.liquid.measure { u = st.u, phi = src, rho = self.rho, gravity = self.gravity }
        end
        measured[which] = m
      end
      v = m[kind]
    end
    row[#row + 1] = v or (0 / 0)
  end
  self.rows[#self.rows + 1] = row
  return row
end

--- One column of the samples as a list (by name, or "t").
function Probes:column(name)
  local k
  for i, h in ipairs(self.header) do if h == name then k = i end end
  if not k then raise("Probes:column: no probe named '" .. tostring(name) .. "'") end
  local c = {}
  for i, r in ipairs(self.rows) do c[i] = r[k] end
  return c
end

local function num(v)
  if v ~= v then return "nan" end
  return string.format("%.10g", v)
end

--- Write the samples as CSV (header line, one row per sample) to path
-- (default P.path), through a temporary file renamed into place.
function Probes:write(path)
  path = path or self.path
  if type(path) ~= "string" then raise("Probes:write: path expected") end
  local lines = { table.concat(self.header, ",") }
  for _, r in ipairs(self.rows) do
    local f = {}
    for i, v in ipairs(r) do f[i] = num(v) end
    lines[#lines + 1] = table.concat(f, ",")
  end
  local tmp = path .. ".tmp"
  local fh, err = io.open(tmp, "w")
  if not fh then raise("Probes:write: cannot open " .. tmp .. ": " .. tostring(err)) end
  fh:write(table.concat(lines, "\n"), "\n")
  assert(fh:close())
  local ok, rerr = os.rename(tmp, path)
  if not ok then raise("Probes:write: cannot rename to " .. path .. ": " .. tostring(rerr)) end
  return path
end

probes.Probes = Probes
return probes
