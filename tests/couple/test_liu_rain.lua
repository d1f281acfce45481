-- tide.liu.add_drop and tide.liu.rain (the drops of the Sec. 5.2 scenes): a drop
-- adds the volume of its disc, carries its velocity, is refused near a vertex,
-- near liquid and outside the box; a drop added between steps is a new component
-- the volume constraint then holds; the rain is the same with 1 and 2 threads.
local tide = require "tide"
local T = require "tide.testing"
local liu = require "tide.liu"

local function fresh(x, n)
  n = n or 64
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local opts = { grid = g, phi = g:cells():fill(1), gravity = { 0, -9.81 } }
  if x then
    opts.x, opts.fixed = tide.array.from(x), tide.array.zeros({ #x }, "u8"):fill(1)
  end
  return liu.new(opts), g
end

do -- one drop: its volume (the smoothed Heaviside's, which exceeds the disc's by O(dx^2)) and velocity
  local r = 0.1
  local exact, err = math.pi * r * r, {}
  for _, m in ipairs { 64, 128 } do
    local S1 = fresh(nil, m)
    err[m] = liu.add_drop(S1, { center = { 0.5, 0.6 }, radius = r }) / exact - 1
  end
  print(string.format("drop r = 0.1 m: added volume / (pi r^2) - 1 = %.2f%% (64^2), %.2f%% (128^2)", 100 * err[64],
    100 * err[128]))
  T.check(math.abs(err[64]) < 0.03, "the added volume is the disc's within 3% at 6.4 cells' radius")
  T.check(math.abs(err[128]) < math.abs(err[64]) / 3, "and converges at second order")
  local S = fresh()
  liu.add_drop(S, { center = { 0.5, 0.6 }, radius = r, velocity = { 0.5, -2 } })
  local v = S.u:sample(tide.array.from { { 0.5, 0.6 } })
  T.check(math.abs(v:get(1, 1) - 0.5) < 1e-12 and math.abs(v:get(1, 2) + 2) < 1e-12, "the drop carries its velocity")
  -- refusals leave S unchanged
  local before = S.phi:checksum()
  local ok, why = liu.add_drop(S, { center = { 0.5, 0.45 }, radius = 0.04 }) -- 0.01 m from the drop
  T.check(ok == nil and why == "liquid", "refused next to liquid: " .. tostring(why))
  ok, why = liu.add_drop(S, { center = { 0.97, 0.5 }, radius = 0.05 })
  T.check(ok == nil and why == "outside the box", "refused outside the box: " .. tostring(why))
  T.check(S.phi:checksum() == before, "a refused drop changes nothing")
  T.check(not pcall(liu.add_drop, S, { center = { 0.5 }, radius = 0.1 }), "a centre of the wrong length is an error")
  T.check(not pcall(liu.add_drop, S, { center = { 0.5, 0.5 }, radius = 0.001 }), "a radius below dx is an error")
end

do -- near a vertex: refused (the invariant)
  local S = fresh { { 0.5, 0.3 } }
  local ok, why = liu.add_drop(S, { center = { 0.5, 0.38 }, radius = 0.06 }) -- 0.02 m from the vertex
  T.check(ok == nil and why == "a solid vertex", "refused near a vertex: " .. tostring(why))
  T.check(liu.add_drop(S, { center = { 0.5, 0.6 }, radius = 0.06 }) ~= nil, "accepted away from it")
end

do -- a drop added between steps is held at its volume
  local S = fresh()
  local V0 = liu.add_drop(S, { center = { 0.3, 0.7 }, radius = 0.08 })
  for _ = 1, 5 do liu.step(S, liu.max_dt(S)) end
  local dv = liu.add_drop(S, { center = { 0.7, 0.7 }, radius = 0.08 })
  local worst = 0
  for _ = 1, 10 do
    local st = liu.step(S, liu.max_dt(S))
    worst = math.max(worst, math.abs(liu.volume(S) / (V0 + dv) - 1))
    T.check(st.components == 2, "two components")
  end
  print(string.format("two drops, the second added after 5 steps: max |V / (V0 + dV) - 1| over 10 steps %.2e", worst))
  T.check(worst < 1e-3, "the volume constraint holds the added drop")
end

do -- a drop added 4.5 dx from another (about the closest add_drop allows; the tracker's labels reach 3 dx
  -- into the air from each, so their bands meet) is a component of its own, not a share of its
  -- neighbour's reference (without tide.VolumeTracker:add in add_drop: half the volume lost)
  local S = fresh()
  local dx = S.grid.dx
  local V0 = liu.add_drop(S, { center = { 0.3, 0.6 }, radius = 0.1 })
  liu.step(S, liu.max_dt(S))
  local dv = liu.add_drop(S, { center = { 0.3 + 0.2 + 4.5 * dx, 0.6 }, radius = 0.1 })
  T.check(dv ~= nil, "placed 4.5 dx from the first")
  local worst = 0
  for _ = 1, 4 do
    liu.step(S, liu.max_dt(S))
    worst = math.max(worst, math.abs(liu.volume(S) / (V0 + dv) - 1))
  end
  print(string.format("a drop added in another's band: max |V / (V0 + dV) - 1| over 4 steps %.2e, reference %.2e", worst,
    S.tracker.volume / (V0 + dv) - 1))
  T.check(worst < 1e-3, "its volume is held too")
end

do -- rain: count and thread independence
  local sums = {}
  for _, th in ipairs { 1, 2 } do
    tide.threads(th)
    local S = fresh()
    local R = liu.rain { box = { min = { 0.2, 0.5 }, max = { 0.8, 0.85 } }, radius = { 0.04, 0.06 }, rate = 10,
      velocity = { 0, -1 }, jitter = 0.2 }
    S.t = 0.45 -- drops due at 0, 0.1, 0.2, 0.3, 0.4
    R:emit(S)
    sums[th] = S.phi:checksum() .. S.u:component(2):checksum()
    T.check(R.drops + R.waits >= 5 and R.drops >= 3, string.format("5 drops due: %d placed, %d waiting", R.drops, R.waits))
    T.check(R.volume > 0, "the rain adds volume")
  end
  T.check(sums[1] == sums[2], "the same rain with 1 and 2 threads")
  T.check(not pcall(liu.rain, { box = { min = { 0, 0 }, max = { 1, 1 } }, radius = { 0.1, 0.1 }, rate = 0 }),
    "rate 0 is an error")
end

os.exit(T.report())
