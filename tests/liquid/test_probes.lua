-- Probes of a liquid state (tide.liquid.front / elevation / measure, the probe
-- sets of tide.probes and tide.run{probes = ...}) against values computed by
-- hand on synthetic states: level sets linear along the probed lines (so the
-- linear interpolation of the crossing is exact), a rectangle of liquid whose
-- sides lie on cell faces (liquid fractions 1 inside, 0 outside, 1/2 on the
-- faces of its sides), three particles.
local tide = require "tide"
local T = require "tide.testing"
local probes = require "tide.probes"

local g = tide.grid.new { size = { 10, 8 }, dx = 0.1 }
local function cells(f)
  local a = g:cells()
  for i = 1, 10 do
    for j = 1, 8 do a:set(i, j, f((i - 0.5) * 0.1, (j - 0.5) * 0.1)) end
  end
  return a
end

-- a column of liquid 0.62 wide, 0.35 deep: phi linear in x along the floor row, in y above x < 0.32
local col = cells(function(x, y) return math.max(x - 0.62, y - 0.35) end)
T.near(tide.liquid.front(g, col, { wall = "y-", direction = "x+" }), 0.62, 1e-12, "front along the floor")
T.near(tide.liquid.front(g, col), 0.62, 1e-12, "front: defaults y- towards x+")
T.near(tide.liquid.front(g, col, { wall = "y-", direction = "x-" }), 0, 1e-12, "front towards x-: the wall")
T.near(tide.liquid.elevation(g, col, { at = 0.3 }), 0.35, 1e-12, "elevation at x = 0.3")
T.near(tide.liquid.elevation(g, col, { wall = "x-" }), 0.35, 1e-12, "column height at the left wall")
T.check(tide.liquid.elevation(g, col, { at = 0.9 }) == nil, "no liquid under x = 0.9: nil")
T.check(tide.liquid.front(g, cells(function() return 1 end)) == nil, "no liquid: front nil")
-- a sloped surface y = 0.3 + 0.1 x: exact between columns too
local slope = cells(function(x, y) return y - 0.3 - 0.1 * x end)
T.near(tide.liquid.elevation(g, slope, { at = 0.47 }), 0.347, 1e-12, "elevation of a sloped surface between columns")
T.near(tide.liquid.elevation(g, slope, { wall = "x+" }), 0.395, 1e-12, "height at the right wall (first column centre)")
T.near(tide.liquid.elevation(g, cells(function(x) return x - 0.5 end), { at = 0.2 }), 0.8, 1e-12, "liquid to the top: the domain top")

-- volume, energies, speed of a 0.6 x 0.4 rectangle with u = (1, 2)
local rect = cells(function(x, y) return math.max(x - 0.6, y - 0.4) end)
local u = g:mac()
u.u:fill(1)
u.v:fill(2)
local m = tide.liquid.measure { u = u, phi = rect, rho = 1000, gravity = { 0, -9.81 } }
T.near(m.volume, 0.24, 1e-12, "volume of the rectangle")
T.near(m.potential, 1000 * 9.81 * 0.6 * 0.4 ^ 2 / 2, 1e-9, "potential energy rho g int y dA")
-- faces: u: 4 rows x (wall face + 5 inner + 1/2 on the side), v: 6 columns x (floor + 3 + 1/2)
T.near(m.kinetic, 0.5 * 1000 * (4 * 6.5 * 1 + 6 * 4.5 * 4) * 0.01, 1e-9, "kinetic energy from the face fractions")
T.near(m.max_speed, math.sqrt(5), 1e-12, "max speed")

-- particles: three, 4 per cell (V_p = dx^2/4, m = 2.5 kg/m)
local ps = tide.liquid.particles { dim = 2 }
ps:resize(3)
local P3 = { { 0.1, 0.05, 1, 0 }, { 0.5, 0.02, 0, 2 }, { 0.3, 0.3, 3, 4 } }
for p, r in ipairs(P3) do
  ps.x:set(p, 1, r[1]); ps.x:set(p, 2, r[2]); ps.v:set(p, 1, r[3]); ps.v:set(p, 2, r[4])
end
local mp = tide.liquid.measure { particles = ps, grid = g, per_cell = 4, rho = 1000, gravity = { 0, -9.81 } }
T.near(mp.volume, 3 * 0.0025, 1e-15, "particle volume n dx^2 / per_cell")
T.near(mp.kinetic, 0.5 * 2.5 * (1 + 4 + 25), 1e-12, "particle kinetic energy")
T.near(mp.potential, 2.5 * 9.81 * (0.05 + 0.02 + 0.3), 1e-12, "particle potential energy")
T.near(mp.max_speed, 5, 1e-15, "particle max speed")
T.near(tide.liquid.front(g, ps, { wall = "y-", direction = "x+" }), 0.5, 0, "particle front: the farthest within dx of the floor")
T.near(tide.liquid.front(g, ps, { wall = "y-", direction = "x-" }), 0.1, 0, "particle front towards x-")
T.near(tide.liquid.elevation(g, ps, { at = 0.3 }), 0.3, 0, "particle elevation at x = 0.3")
T.check(tide.liquid.elevation(g, ps, { at = 0.8 }) == nil, "no particle above x = 0.8")

-- 3D: elevation at (x, z), front over every line of the floor layer
do
  local g3 = tide.grid.new { size = { 10, 8, 10 }, dx = 0.1 }
  local a, b = g3:cells(), g3:cells()
  for i = 1, 10 do
    for j = 1, 8 do
      for k = 1, 10 do
        local x, y, z = (i - 0.5) * 0.1, (j - 0.5) * 0.1, (k - 0.5) * 0.1
        a:set(i, j, k, y - 0.2 - 0.1 * z)
        b:set(i, j, k, x - 0.3 - 0.2 * z)
      end
    end
  end
  T.near(tide.liquid.elevation(g3, a, { at = { 0.33, 0.47 } }), 0.247, 1e-12, "3D elevation at (x, z)")
  T.near(tide.liquid.elevation(g3, a, { wall = "x-", at = 0.47 }), 0.247, 1e-12, "3D height at a wall")
  T.near(tide.liquid.front(g3, b, { wall = "y-", direction = "x+" }), 0.3 + 0.2 * 0.95, 1e-12, "3D front: the farthest line")
end

-- a probe set, sampled by hand and by tide.run
local S = { phi = col, u = u, particles = ps }
local P = probes.new { grid = g, rho = 1000, per_cell = 4, state = function() return S end,
  { "front", wall = "y-", direction = "x+" },
  { "elevation", wall = "x-", name = "column" },
  { "elevation", at = 0.9, name = "dry" },
  { "volume" }, { "kinetic" }, { "potential" }, { "max_speed" },
  { "volume", source = "particles", name = "volume_particles" },
}
local row = P:sample(0.5)
T.check(row[1] == 0.5 and row[2] == 0.62 and math.abs(row[3] - 0.35) < 1e-12 and row[4] ~= row[4], "sample: t, front, column, nan where dry")
local mc = tide.liquid.measure { u = u, phi = col, rho = 1000, gravity = { 0, -9.81 } }
T.check(row[5] == mc.volume and row[6] == mc.kinetic and row[7] == mc.potential and row[8] == mc.max_speed, "sample: the measure of the level set")
T.near(row[9], 0.0075, 1e-15, "sample: the particles' volume")
local dir = os.tmpname()
os.remove(dir)
local R = tide.run { frames = 2, fps = 10, out = dir, quiet = true, probes = P, step = function(dt) S.phi = rect end }
local f = assert(io.open(dir .. "/probes.csv"))
local lines = {}
for l in f:lines() do lines[#lines + 1] = l end
f:close()
T.check(lines[1] == "t,front,column,dry,volume,kinetic,potential,max_speed,volume_particles", "CSV header")
T.check(#lines == 5, "CSV: the hand sample and frames 0, 1, 2")
T.check(lines[5]:match("^0%.2,0%.6,") ~= nil and lines[5]:find(",nan,", 1, true), "CSV: last frame row (the rectangle, dry gauge nan)")
T.check(#P:column("front") == 4 and P:column("t")[4] == 0.2, "P:column")
T.check(R.frames == 2, "tide.run ran")
os.remove(dir .. "/probes.csv"); os.remove(dir .. "/run.json"); os.remove(dir)

-- argument errors
T.raises(function() tide.liquid.front(g, col, { wall = "y-", direction = "y+" }) end, "along the wall", "front across the wall")
T.raises(function() tide.liquid.front(g, col, { wall = "q-" }) end, "side", "bad side")
T.raises(function() tide.liquid.front(g, col, { layer = 1 }) end, "particles", "layer without particles")
T.raises(function() tide.liquid.elevation(g, col, {}) end, "at must give", "elevation without at")
T.raises(function() tide.liquid.elevation(g, col, { at = 0.1, color = 1 }) end, "color", "unknown key")
T.raises(function() tide.liquid.elevation(g, g:mac(), { at = 0.1 }) end, "level set", "not a level set")
T.raises(function() tide.liquid.measure { u = u, phi = col, particles = ps } end, "not both", "both sources")
T.raises(function() tide.liquid.measure { particles = ps, grid = g } end, "per_cell", "particles without per_cell")
local bad = cells(function() return 0 / 0 end)
T.raises(function() tide.liquid.elevation(g, bad, { at = 0.1 }) end, "finite", "NaN phi")
T.raises(function() probes.new { grid = g, state = function() return S end, { "speed" } } end, "kind", "unknown kind")
T.raises(function() probes.new { grid = g, state = function() return S end, { "front", wal = "y-" } } end, "wal", "unknown probe option")
T.raises(function() probes.new { grid = g, { "volume" } } end, "state", "no state")
T.raises(function() probes.new { grid = g, state = function() return S end, { "volume" }, { "volume" } } end, "two probes", "duplicate names")
T.raises(function() tide.run { step = function() end, probes = {} } end, "probe set", "run: not a probe set")
os.exit(T.report())
