-- bench/flip3d.lua: 3D breaking dam, FLIP 0.97, mean seconds per step by operator.
--   build/tide bench/flip3d.lua [--res 64,100] [--steps 50] [--warmup 10] [--threads 1,2]
--
-- Set-up (issue 4, "Scenes and benchmark"): a unit cube of res^3 cells; a liquid
-- column spanning 0.4 x 0.6 x 1.0 of the box in x, y (up), z; 8 particles per
-- liquid cell (2x2x2 stratified, jittered), FLIP blend 0.97, RK2 particle advection,
-- CFL 1 steps; every step the surface level set is rebuilt from the particles
-- (Particles:level_set = tide.grid.particle_sdf on the set's own cell order,
-- exact within 2 dx of the particles: the ghost-fluid
-- theta only reads liquid cells and their air neighbours) and enters the ghost-fluid free surface of the pressure
-- projection, solved by MGPCG (method = "mgpcg") to 1e-6 relative residual;
-- particles per liquid cell are kept within [8, 16] by Particles:reseed (bulk cells
-- filled up, over-full cells trimmed; the set comes out sorted by cell).  Each (res, threads) run starts
-- from the same seeded state, takes `warmup` untimed steps and `steps` timed ones.
--
-- Reference: a well-known open-source FLIP code runs this set-up on this machine
-- at 0.28 s/step (64^3) and 1.19 s/step (100^3) with 2 threads (pressure to 1e-3 in
-- the max norm, single precision); the target is half of that.
--
-- Bounds measured in the same run:
--   triad  the particle and grid bytes one step must at least stream (see
--          `traffic` below) at the STREAM-triad bandwidth (y += a x on arrays
--          larger than the caches) measured with the same thread count;
--   solve  one MGPCG solve alone: the last step's pressure system solved again
--          from a zero guess (same labels, level set, dt).
local tide = require "tide"
local flip = require "tide.flip"
local liquid = tide.liquid
local timers = tide.timers
local time = tide.time
local clock = tide.clock

local P = tide.params({
  res = "64,100", steps = 50, warmup = 10, threads = "1,2", tol = 1e-6, surface = "union",
  radius = 1.0, separation = 0.0, reseed = true, min = 8, max = 16,
}, {
  res = "comma-separated cells per side", steps = "timed steps", warmup = "untimed steps first",
  threads = "comma-separated thread counts", tol = "relative residual of the pressure solve",
  surface = "particle level set: union or zhu_bridson", radius = "particle radius [cells]",
  separation = "flip.separate density correction strength (0: off, as the reference)",
  reseed = "keep particles per liquid cell in [min, max] (Particles:reseed)",
  min = "reseed: fewest particles per liquid cell", max = "reseed: most particles per liquid cell",
})

local function list(s)
  local t = {}
  for w in tostring(s):gmatch("[^,%s]+") do
    local n = math.tointeger(tonumber(w))
    if not n or n < 1 then error("bench/flip3d: bad list entry '" .. w .. "' in '" .. tostring(s) .. "'") end
    t[#t + 1] = n
  end
  return t
end
local resolutions, thread_counts = list(P.res), list(P.threads)
if P.steps < 1 or P.warmup < 0 then error("bench/flip3d: --steps must be >= 1 and --warmup >= 0") end
if P.surface ~= "union" and P.surface ~= "zhu_bridson" then error("bench/flip3d: --surface union|zhu_bridson") end
local have_reseed = P.reseed
local reference = { [64] = 0.28, [100] = 1.19 }

local loadavg = require("tide.timers").loadavg

-- One FLIP step: the recipe of lua/tide/flip.lua with the particle level set
-- rebuilt and used as the ghost-fluid surface, MGPCG, and reseeding.
local function step(S, dt)
  local ps, u, g = S.particles, S.u, S.grid
  flip.transfer_to_grid(S)
  S.u_old:copy(u)
  time("label", liquid.label, ps, g, { out = S.labels, counts = S.counts })
  time("level set", ps.level_set, ps, g, { method = P.surface, radius = P.radius * g.dx,
    reach = P.radius * g.dx + 2 * g.dx, out = S.phi })
  u:add_gravity(dt, S.gravity)
  S.last = { dt = dt, rho = S.rho, tol = S.tol, method = "mgpcg", projector = S.projector,
    phi = S.phi, valid = S.valid, pressure = S.pressure }
  local stats = time("project", liquid.project, u, S.labels, S.last)
  time("extrapolate", u.extrapolate, u, S.valid, S.layers, true)
  u:enforce_walls(nil, true)
  time("g2p+advect", liquid.g2p, u, ps, { scheme = "flip", old = S.u_old, flip = S.flip, advect = dt, order = S.order })
  if S.separation > 0 then flip.separate(S, dt) end
  if have_reseed then
    time("label", liquid.label, ps, g, { out = S.labels })
    time("reseed", ps.reseed, ps, u, S.labels, { min = P.min, max = P.max, stream = S.steps + 1 })
  end
  S.t, S.steps = S.t + dt, S.steps + 1
  return stats
end

-- STREAM triad bandwidth [bytes/s] with the current thread count: y += a x on
-- two 64 MB arrays (24 bytes per element: read x, read y, write y), best of 5.
local function triad_bandwidth()
  local n = 8 * 1024 * 1024
  local x <close> = tide.array.full(n, 1.0)
  local y <close> = tide.array.full(n, 2.0)
  y:axpy(0.5, x)
  local best = math.huge
  for _ = 1, 5 do
    local t0 = clock()
    for _ = 1, 4 do y:axpy(1e-3, x) end
    best = math.min(best, (clock() - t0) / 4)
  end
  return 24 * n / best
end

-- Bytes one step must stream at least: per particle x (24 B) and v (24 B) read
-- by P2G, x read, v read+written and x written by G2P with RK2 advection in
-- one pass (96 B), x read by labelling and by the level set (48 B): 192 B;
-- per cell the 3 MAC components (24 B) written by P2G, copied to u_old (48 B),
-- read twice by G2P (48 B), read by advection (24 B), plus labels, level set and
-- pressure (8 + 1 + 8 B written): 161 B.  The pressure solve is not counted.
local function traffic(np, ncells) return 192 * np + 161 * ncells end

local function run(res, nthreads)
  tide.threads(nthreads)
  timers.reset()
  local dx = 1 / res
  local g = tide.grid.new { size = { res, res, res }, dx = dx }
  local ps = liquid.seed { grid = g, box = { min = { 0, 0, 0 }, max = { 0.4, 0.6, 1.0 } }, per_cell = 8 }
  local n0 = #ps
  local S = flip.new { grid = g, particles = ps, scheme = "flip", flip = 0.97, tol = P.tol, method = "mgpcg",
    per_cell = 8, separation = P.separation, cfl = 1 }
  S.phi, S.counts = g:cells(), g:cells("i32")
  local iters, nsteps = 0, 0
  for _ = 1, P.warmup do step(S, flip.max_dt(S)) end
  timers.reset()
  local t0 = clock()
  for _ = 1, P.steps do
    local st = step(S, time("max_dt", flip.max_dt, S))
    iters, nsteps = iters + st.iterations, nsteps + 1
  end
  local wall = clock() - t0
  local ops = timers.report()
  -- bound 1: one MGPCG solve of the last step's system alone: S.u_old is the
  -- velocity before gravity and projection, so u_old + dt g is that right-hand side
  local u2 <close> = S.u_old:clone()
  u2:add_gravity(S.last.dt, S.gravity)
  local o = {}
  for k, v in pairs(S.last) do o[k] = v end
  o.valid, o.pressure = nil, nil
  local ts = clock()
  local st = liquid.project(u2, S.labels, o)
  local solve = clock() - ts
  local bw = triad_bandwidth()
  local bytes = traffic(#ps, g.ncells)
  return { res = res, threads = nthreads, wall = wall, per_step = wall / nsteps, ops = ops, steps = nsteps,
    iters = iters / nsteps, particles = #ps, n0 = n0, unknowns = st.unknowns, solve = solve,
    solve_iters = st.iterations, bw = bw, bound = bytes / bw, bytes = bytes, t = S.t }
end

print(string.format("bench/flip3d: breaking dam, column 0.4 x 0.6 x 1.0, FLIP 0.97, MGPCG to %.0e, surface %s r = %.2f dx,"
  .. " reseed %s, separation %g; %d warm-up + %d timed steps; load average %s",
  P.tol, P.surface, P.radius, have_reseed and string.format("[%d, %d]", P.min, P.max)
    or "off", P.separation, P.warmup, P.steps, loadavg()))

local results = {}
for _, res in ipairs(resolutions) do
  for _, nt in ipairs(thread_counts) do
    local r = run(res, nt)
    results[#results + 1] = r
    print(string.format("\n%d^3, %d thread%s: %d particles (%d seeded), %d steps to t = %.3f s, %.1f MGPCG iterations/step,"
      .. " load average %s", res, nt, nt > 1 and "s" or "", r.particles, r.n0, r.steps, r.t, r.iters, loadavg()))
    print(string.format("%-14s %10s %8s", "operator", "s/step", "%"))
    for _, e in ipairs(r.ops) do
      print(string.format("%-14s %10.4f %7.1f%%", e.name, e.seconds / r.steps, 100 * e.seconds / r.wall))
    end
    print(string.format("%-14s %10.4f %7.1f%%", "step (wall)", r.per_step, 100))
    print(string.format("bounds: one MGPCG solve alone %.4f s (%d iterations, %d unknowns); memory traffic %.0f MB"
      .. " at triad %.2f GB/s = %.4f s", r.solve, r.solve_iters, r.unknowns, r.bytes / 1e6, r.bw / 1e9, r.bound))
    collectgarbage("collect")
  end
end

print("\nsummary [s/step]         threads  tide     solve-alone  triad-bound  reference(2 thr)  target")
for _, r in ipairs(results) do
  local ref = reference[r.res]
  print(string.format("%4d^3 %19d  %7.4f  %11.4f  %11.4f  %16s  %6s", r.res, r.threads, r.per_step, r.solve, r.bound,
    ref and string.format("%.2f", ref) or "-", ref and string.format("%.2f", ref / 2) or "-"))
end
print("load average " .. loadavg())
