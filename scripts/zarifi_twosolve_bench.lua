-- The cost of the mass reference's second coupled solve (issue 14, docs/couple.md "Costs"):
-- a block of density ratio 0.5 floating in a pool (test_zarifi_mass's scene; 2D 32^2, or 3D 16^3
-- with --3d), N steps of at most 5 ms, CPU seconds per step (os.clock) with
--   --mode off      mass_reference = false (one coupled solve)
--   --mode full     mass_reference with a second full solve (mass_reuse = false; as before the reuse)
--   --mode reuse    mass_reference reusing the first solve's system (the default)
-- build/tide scripts/zarifi_twosolve_bench.lua [--3d] [--mode m] [--steps N] [--n cells] [--timings]
local tide = require "tide"
local zarifi = require "tide.zarifi"

local opt = { mode = "reuse", steps = 60, n = nil, ["3d"] = false, timings = false }
local i = 1
while arg and arg[i] do
  local k = arg[i]:match("^%-%-(.+)$")
  if k == "3d" or k == "timings" then opt[k] = true; i = i + 1
  else opt[k] = tonumber(arg[i + 1]) or arg[i + 1]; i = i + 2 end
end
local d3 = opt["3d"]
local n = opt.n or (d3 and 16 or 32)
local ratio = 0.5
local g = tide.grid.new { size = d3 and { n, n, n } or { n, n }, dx = 1 / n }
local w, h = 0.4, 0.25
local want = h * ratio
local top = 0.5 + (d3 and w * w or w) * want
local lo, hi = 0.5 - w / 2, 0.5 + w / 2
local m = tide.solid.box { min = d3 and { lo, top - want, lo } or { lo, top - want },
  max = d3 and { hi, top - want + h, hi } or { hi, top - want + h }, cells = d3 and { 4, 3, 4 } or { 8, 5 } }
m:material { model = "corotational", E = 1e6, nu = 0.3, density = 1000 * ratio, rayleigh_mass = 5 }
local block = tide.shape.mesh { vertices = m.x, faces = m:boundary() }:sdf(g)
local phi = g:cells()
if d3 then
  for a = 1, n do for b = 1, n do for c = 1, n do
    phi:set(a, b, c, math.max((b - 0.5) * g.dx - top, -block:get(a, b, c))) end end end
else
  for a = 1, n do for b = 1, n do phi:set(a, b, math.max((b - 0.5) * g.dx - top, -block:get(a, b))) end end
end
local o = { grid = g, particles = tide.liquid.seed { grid = g, phi = phi }, solids = { m },
  level_set = "zhu_bridson", mass_reference = opt.mode ~= "off" }
if opt.mode == "full" then o.mass_reuse = false end
local S = zarifi.new(o)
local t0 = os.clock()
local its, its2, y, t1, t2 = 0, 0, 0, 0, 0
for _ = 1, opt.steps do
  local st = zarifi.step(S, math.min(zarifi.max_dt(S), 0.005))
  its = its + st.iterations
  its2 = its2 + (S.gravity_stats and S.gravity_stats.iterations or 0)
  local r = S.gravity_stats or {}
  t1 = t1 + st.geometry_seconds + st.assembly_seconds + st.solve_seconds
  t2 = t2 + (r.geometry_seconds or 0) + (r.assembly_seconds or 0) + (r.solve_seconds or 0)
end
local cpu = os.clock() - t0
for k = 1, m.nv do y = y + m.x:get(k, 2) / m.nv end
print(string.format("%s %s n=%d steps=%d: %.4f s CPU/step, %.1f + %.1f iterations/step (line 7 + reference), %.1f + %.1f ms/step in their C calls (wall), block centre y %.6f, t %.4f s",
  d3 and "3D" or "2D", opt.mode, n, opt.steps, cpu / opt.steps, its / opt.steps, its2 / opt.steps, 1e3 * t1 / opt.steps, 1e3 * t2 / opt.steps, y, S.t))
if opt.timings then print(tide.timers.format()) end
