-- bench/flip3d: a 3D breaking dam (issue [liquids]).
--   build/tide bench/flip3d.lua [--res 64] [--steps 50] [--warmup 10] [--threads_list 1,2]
-- Box [0,1]^3 at res^3 cells, liquid column [0,0.4] x [0,0.6] x [0,1], 8
-- particles per cell kept between 8 and 16, FLIP 0.97, the surface level set
-- rebuilt from the particles every step (ghost-fluid projection), pressure to
-- 1e-6 relative residual (MGPCG), CFL 1.  Prints the mean seconds per step over
-- `steps` steps after `warmup` steps, split by operator, for each thread count,
-- next to two figures of the same run: a bandwidth bound (one streaming pass
-- of copies over every particle and grid array the step touches, i.e. the
-- least memory traffic of one step) and the reference of the issue (a
-- well-known FLIP code: 0.28 s/step at 64^3, 1.19 s/step at 100^3, 2 threads,
-- single precision, pressure to 1e-3 max norm).
local tide = require "tide"
local flip = require "tide.flip"
local timers = require "tide.timers"

local P = tide.params({ res = 64, steps = 50, warmup = 10, threads_list = "1,2", method = "mgpcg", dt = 0.0,
  level_set = "zhu_bridson" },
  { res = "cells per axis", steps = "timed steps", warmup = "untimed steps first", threads_list = "thread counts to run",
    method = "pressure solver: mgpcg, pcg or mic0", dt = "fixed step (0: CFL 1)",
    level_set = "surface level set: zhu_bridson or union" })

local reference = { [64] = 0.28, [100] = 1.19 }

local function setup()
  local g = tide.grid.new { size = { P.res, P.res, P.res }, dx = 1 / P.res }
  local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0, 0 }, max = { 0.4, 0.6, 1.0 } }, per_cell = 8 }
  local S = flip.new { grid = g, particles = ps, scheme = "flip", flip = 0.97, tol = 1e-6, method = P.method,
    level_set = P.level_set, reseed = { min = 8, max = 16 }, separation = 0, cfl = 1 }
  return g, ps, S
end

-- the least memory traffic of one step: copy every particle and grid array once
local function bandwidth_bound(g, ps, S)
  local arrays = { ps.x, ps.v, S.u.u, S.u.v, S.u.w, S.u_old.u, S.u_old.v, S.u_old.w, S.pressure, S.phi, S.labels }
  local copies = {}
  for i, a in ipairs(arrays) do copies[i] = a:clone() end
  local best = math.huge
  for _ = 1, 5 do
    local t0 = tide.clock()
    for i, a in ipairs(arrays) do copies[i]:copy(a) end
    best = math.min(best, tide.clock() - t0)
  end
  return best
end

for th in P.threads_list:gmatch("%d+") do
  tide.threads(tonumber(th))
  local g, ps, S = setup()
  local n0 = #ps
  local function step()
    local dt = P.dt > 0 and P.dt or flip.max_dt(S)
    return flip.step(S, dt)
  end
  for _ = 1, P.warmup do step() end
  timers.reset()
  local iters = 0
  local t0 = tide.clock()
  for _ = 1, P.steps do iters = iters + step().iterations end
  local per_step = (tide.clock() - t0) / P.steps
  local bound = bandwidth_bound(g, ps, S)
  print(string.format("flip3d %d^3, %d thread(s): %.3f s/step  (%d -> %d particles, %.1f pressure iterations/step, t = %.3f s)",
    P.res, tide.threads(), per_step, n0, #ps, iters / P.steps, S.t))
  print(string.format("  bandwidth bound (one copy pass over the step's arrays): %.4f s/step = %.1f%% of the step",
    bound, 100 * bound / per_step))
  if reference[P.res] then
    print(string.format("  reference FLIP code, 2 threads, f32, pressure 1e-3 max norm: %.2f s/step (target: half, %.2f)",
      reference[P.res], reference[P.res] / 2))
  end
  local rep = timers.report()
  table.sort(rep, function(a, b) return a.seconds > b.seconds end)
  for _, e in ipairs(rep) do
    print(string.format("    %-12s %8.4f s/step  %5.1f%%", e.name, e.seconds / P.steps, 100 * e.seconds / P.steps / per_step))
  end
end
