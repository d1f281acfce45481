-- The same 2D dam break (tank 1.5 x 1 m, water column 0.5 x 0.75 m, 32 cells
-- per metre) with FLIP (APIC), MPM (weakly compressible fluid) and SPH
-- (WCSPH): the surge fronts (99th percentile of the particles' x) at t = 0.1,
-- 0.2 and 0.3 s lie within 5% of each other (spread / mean).
local T = require "tide.testing"
local C = require "tide.cases.dam_break_compare"

local runs = C.setup(32)
for _, t in ipairs { 0.1, 0.2, 0.3 } do
  local f, lo, hi, sum = {}, math.huge, -math.huge, 0
  for _, k in ipairs { "flip", "mpm", "sph" } do
    C.advance(runs[k], t)
    f[k] = C.front(runs[k])
    lo, hi, sum = math.min(lo, f[k]), math.max(hi, f[k]), sum + f[k]
  end
  local spread = (hi - lo) / (sum / 3)
  print(string.format("t = %.1f s: fronts FLIP %.4f, MPM %.4f, SPH %.4f m, spread %.2f%%", t, f.flip, f.mpm, f.sph,
    100 * spread))
  T.check(spread < 0.05, string.format("t = %.1f s: FLIP, MPM and SPH fronts within 5%% (%.2f%%)", t, 100 * spread))
end
os.exit(T.report())
