-- 2D dam break (96 x 64 cells): particle count kept exactly, liquid volume within
-- 2%, the projection leaves divergence at the solver tolerance in liquid
-- cells at every step, and runs are bit-reproducible (same seed and threads,
-- and also across thread counts).
local tide = require "tide"
local flip = require "tide.flip"
local T = require "tide.testing"

local function setup(scheme)
  return require("tide.cases.dam_break").setup(scheme, 64) -- shared with figures/pic_flip_apic.lua
end

-- liquid volume: particles over their mean interior density (S.mean_density,
-- per_cell units), i.e. the volume the particles fill at the density they have
local function volume(S)
  return #S.particles * S.grid.dx ^ 2 / (S.per_cell * S.mean_density)
end

local function run(scheme, t_end, check)
  local g, ps, S = setup(scheme)
  local n0, V0 = #ps, nil
  local worst_vol, worst_div = 0, 0
  while S.t < t_end - 1e-12 do
    local dt = math.min(flip.max_dt(S), t_end - S.t)
    local st = flip.step(S, dt)
    if check then
      -- ||r||_inf <= tol ||b||_2 <= tol sqrt(n) ||b||_inf, in divergence units
      local bound = S.tol * math.sqrt(st.unknowns) * st.div_before
      worst_div = math.max(worst_div, st.div_after / math.max(bound, 1e-300))
      V0 = V0 or volume(S)
      worst_vol = math.max(worst_vol, math.abs(volume(S) / V0 - 1))
    end
  end
  return ps, S, n0, worst_vol, worst_div
end

for _, scheme in ipairs { "flip", "apic" } do
  local ps, S, n0, dv, dd = run(scheme, 1.5, true)
  T.check(#ps == n0, scheme .. ": particle count kept: " .. #ps .. " of " .. n0)
  T.check(dv < 0.02, scheme .. ": liquid volume within 2%: worst " .. dv)
  T.check(dd <= 1, scheme .. ": divergence after projection within the solver tolerance: " .. dd)
  T.check(ps.x:nonfinite() == 0 and ps.v:nonfinite() == 0, scheme .. ": finite state")
  local lo, hi = S.grid:bounds()
  T.check(ps.x:min() >= 0 and ps.x:max() <= hi[1], scheme .. ": particles inside the tank")
  print(string.format("%s: %d particles, %d steps, worst volume change %.3f%%, worst divergence / tolerance %.2e",
    scheme, #ps, S.steps, 100 * dv, dd))
end

-- determinism: same seed and threads -> identical particles; and the same
-- with one thread (every reduction and scatter is thread-count independent)
local sums = {}
for k, threads in ipairs { 2, 2, 1 } do
  tide.threads(threads)
  local ps = run("flip", 0.3, false)
  sums[k] = ps.x:checksum() .. ps.v:checksum()
end
tide.threads(2)
T.check(sums[1] == sums[2], "same seed and threads: identical particles")
T.check(sums[1] == sums[3], "1 and 2 threads: identical particles")
os.exit(T.report())
