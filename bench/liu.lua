-- bench/liu.lua: Liu et al. 2024 Table I case a (Fig. 13, drops through elastic bands) and
-- case c (Fig. 1, drops bouncing on a cloth),
-- seconds per step by part: the two pressure projections (t_P), the joint Newton solve
-- (t_N: assembly, linear solves, CCD, line search) and the rest, with CHOLMOD and with
-- CG + IC(0) and BiCGSTAB + ILU(0) for the Newton systems, 1 and 2 threads.
--   build/tide bench/liu.lua [--case a|c] [--res 160 (a) | 192 (c)] [--steps 3] [--warmup 1] [--threads 1,2]
--                            [--solvers cholmod,bicgstab] [--region on,off] [--cloth 109]
--
-- Set-up (tide.cases.liu.bands, dim 3): a unit box of res^3 cells, three bands: shell ribbons
-- 0.7 x 0.1 m, 1 mm, of 15 x 6 nodes each = 270 vertices (Table I a; --slab: tet slabs of 2 x 3 x 15),
-- two drops of radius 0.07 m starting just above the top band at 1 m/s (contact within the
-- first steps), gravity, CFL 1, quadratic distance.  The paper: 160^3, 270 vertices, CFL 1,
-- t_P = 0.84 s, t_N = 1.35 s, t = 3.56 s per step on a 32-core CPU + RTX A4000 (MGPCG on the
-- GPU, IDR(s) + ILUT for Newton).
-- Case c (tide.cases.liu.cloth, dim 3, --low): a 1 mm shell cloth of cloth^2 cells ((cloth + 1)^2
-- vertices: 110^2 = 12.1k, the paper's 12k) pinned along its edges at y = 0.35 m across the box, three
-- drops of radius 0.07 m at 2 m/s starting 2 cells above it, CFL 0.7.  The paper: 192^3, 12k
-- vertices, t_P = 1.03 s, t_N = 3.7 s, t = 5.95 s.
--
-- The Newton line gives wall seconds (assembly, linear solves, CCD, line search), the "Newton CPU" line
-- the CPU seconds of the assembly and the linear solves (all threads; read these on a loaded machine).
-- Measured 2026-12-02, case c 192^3, 2 threads, load 6: Newton CPU assembly 0.99 + solves 1.34 s/step,
-- optimize 2.73 CPU s/step, step 6.85 s wall (docs/couple.md).
--
-- Bound measured in the same run: the memory traffic of the grid-sized work of one step
-- (`traffic` below) at the STREAM-triad bandwidth with the same thread count.
local tide = require "tide"
local L = require "tide.cases.liu"
local liu = require "tide.liu"
local timers = tide.timers
local clock = tide.clock

local P = tide.params({ case = "a", res = 0, cloth = 109, steps = 3, warmup = 1, threads = "1,2", solvers = "cholmod,pcg,bicgstab", slab = false,
  region = "on,off" }, {
  case = "Table I case: a (bands) or c (cloth)", res = "cells per side (0: the paper's, 160 for a, 192 for c)",
  cloth = "case c: cloth cells along a side (vertices (cloth + 1)^2)", steps = "timed steps", warmup = "untimed steps first", slab = "tet slabs instead of shell ribbons",
  region = "advection of phi and u near the liquid only (tide.liu advect_region): on, off or both",
  threads = "comma-separated thread counts", solvers = "Newton linear solvers: cholmod, pcg (CG + IC(0)), bicgstab (+ ILU(0))",
})
local function list(s, num)
  local t = {}
  for w in tostring(s):gmatch("[^,%s]+") do t[#t + 1] = num and math.tointeger(tonumber(w)) or w end
  return t
end
if P.case ~= "a" and P.case ~= "c" then error("bench/liu: --case must be a or c", 0) end
if P.res == 0 then P.res = P.case == "a" and 160 or 192 end
local paper = P.case == "a" and { t = 3.56, tP = 0.84, tN = 1.35 } or { t = 5.95, tP = 1.03, tN = 3.7 }

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
-- bytes per cell one step must at least stream: phi read/written by the advection and
-- the redistancing (4 x 8 B), the MAC velocity advected (3 x 24 B) and extrapolated twice
-- (2 x 48 B), two projections reading and writing u and writing the pressure and labels
-- (2 x (48 + 8 + 1) B): about 314 B; the pressure and Newton solves are not counted
local function traffic(ncells) return 314 * ncells end

local function run(nt, solver, region)
  tide.threads(nt)
  local S
  if P.case == "a" then
    S = L.bands { dim = 3, n = P.res, cells = 14, width = P.slab and 2 or 5, drops = 2, low = true, solver = solver,
      slab = P.slab, advect_region = region }
  else
    S = L.cloth { dim = 3, n = P.res, cells = P.cloth, liquid = "drops", low = true, cfl = 0.7, solver = solver,
      slab = P.slab, advect_region = region }
  end
  for _ = 1, P.warmup do liu.step(S, liu.max_dt(S)) end
  timers.reset()
  local r = { nt = nt, solver = solver, region = region, steps = 0, it = 0, asm = 0, sol = 0, ccd = 0, ls = 0, pairs = 0, kry = 0,
    nphi = 0, casm = 0, csol = 0 }
  local t0, c0 = clock(), os.clock()
  for _ = 1, P.steps do
    local st = liu.step(S, tide.time("max dt", liu.max_dt, S))
    liu.check(S)
    r.steps, r.it = r.steps + 1, r.it + st.iterations
    r.asm, r.sol, r.ccd, r.ls = r.asm + st.t_assemble, r.sol + st.t_solve, r.ccd + st.t_ccd, r.ls + st.t_search
    r.casm, r.csol = r.casm + (st.c_assemble or 0), r.csol + (st.c_solve or 0)
    r.pairs, r.kry, r.nphi = math.max(r.pairs, st.pairs), r.kry + st.krylov_iterations, st.nphi
  end
  r.wall = clock() - t0
  r.cpu = os.clock() - c0
  r.ops = timers.report()
  r.nv = S.nv
  for _, e in ipairs(r.ops) do
    if e.name == "project" then r.tP = e.seconds / r.steps end
    if e.name == "optimize" then r.tN = e.seconds / r.steps end
  end
  r.phi = S.phi:checksum()
  local f = io.open("/proc/loadavg")
  r.load = f and f:read("l"):match("^(%S+)") or "?"
  if f then f:close() end
  r.bw = triad_bandwidth()
  r.bound = traffic(S.grid.ncells) / r.bw
  return r
end

print(string.format("bench/liu: Table I case %s, %d^3, %d warm-up + %d timed steps", P.case, P.res, P.warmup, P.steps))
local results = {}
for _, nt in ipairs(list(P.threads, true)) do
  for _, solver in ipairs(list(P.solvers)) do
   for _, reg in ipairs(list(P.region)) do
    local ok, r = pcall(run, nt, solver, reg == "on")
    if not ok then -- an iterative solver that does not converge says so and the run goes on
      print(string.format("\n%d thread%s, Newton systems by %s: failed: %s", nt, nt > 1 and "s" or "", solver, tostring(r)))
      goto next
    end
    results[#results + 1] = r
    print(string.format("\n%d thread%s, Newton systems by %s, advection region %s: %d solid vertices, %d level-set unknowns,"
      .. " up to %d pairs, %.2f Newton iterations/step%s; phi checksum %s", nt, nt > 1 and "s" or "", solver, reg, r.nv,
      r.nphi, r.pairs, r.it / r.steps,
      solver == "bicgstab" and string.format(", %.0f BiCGSTAB iterations/step", r.kry / r.steps) or "", r.phi))
    print(string.format("%-16s %10s %7s %10s", "operator", "s/step", "%", "CPU s/step"))
    local timed, tcpu = 0, 0
    for _, e in ipairs(r.ops) do
      print(string.format("%-16s %10.3f %6.1f%% %10.3f", e.name, e.seconds / r.steps, 100 * e.seconds / r.wall,
        e.cpu / r.steps))
      timed, tcpu = timed + e.seconds, tcpu + e.cpu
    end
    print(string.format("%-16s %10.3f %6.1f%% %10.3f", "(untimed)", (r.wall - timed) / r.steps,
      100 * (r.wall - timed) / r.wall, (r.cpu - tcpu) / r.steps))
    print(string.format("%-16s %10.3f   (assembly %.3f, linear solves %.3f, CCD %.3f, line search %.3f)", "  Newton",
      (r.asm + r.sol + r.ccd + r.ls) / r.steps, r.asm / r.steps, r.sol / r.steps, r.ccd / r.steps, r.ls / r.steps))
    print(string.format("%-16s %10.3f   (CPU s/step, all threads: assembly %.3f, linear solves %.3f)", "  Newton CPU",
      (r.casm + r.csol) / r.steps, r.casm / r.steps, r.csol / r.steps))
    print(string.format("%-16s %10.3f   (CPU %.3f s, all threads; load average %s)", "step (wall)", r.wall / r.steps,
      r.cpu / r.steps, r.load))
    print(string.format("bound: %.0f MB of grid traffic at triad %.2f GB/s = %.3f s", traffic(P.res ^ 3) / 1e6, r.bw / 1e9,
      r.bound))
    collectgarbage("collect")
    ::next::
   end
  end
end
print("\nsummary [s/step]   threads  solver   region  t_P      t_N      advect   step     triad-bound   paper t_P / t_N / t (32 cores + GPU)")
for _, r in ipairs(results) do
  local adv = 0
  for _, e in ipairs(r.ops) do if e.name == "advect phi" or e.name == "advect u" then adv = adv + e.seconds / r.steps end end
  print(string.format("%-16s %7d  %-8s %-6s %7.3f  %7.3f  %7.3f  %7.3f  %11.3f   %.2f / %.2f / %.2f", P.res .. "^3", r.nt,
    r.solver, r.region and "on" or "off", r.tP or 0, r.tN or 0, adv, r.wall / r.steps, r.bound, paper.tP, paper.tN, paper.t))
end
