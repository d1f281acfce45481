-- The 2D n = 2 drop over 4 periods with the height-function curvature (the
-- set-up of test_drop.lua: R = 1 cm, sigma = 0.07 N/m, rho = 1000 kg/m^3,
-- 5% stretch along x, 32 cells per diameter, inviscid, 1/2 dt_cap).  Without
-- redistancing the level set steepened at the surface (|grad phi| ~ 3 across
-- the crossing faces) and the run blew up after about 3 periods (1.5 at 64 cells
-- per diameter); tide.drop now redistances every 10 steps in 2D with
-- curvature = "heights" (docs/liquids-physics.md, "Long runs with the height
-- functions").  Asserts over the 4 periods: every full period (zero
-- crossings 1-3, 3-5, 5-7) within 2% of Rayleigh's omega^2 = 6 sigma /
-- (rho R^3), the largest extremum after the first crossing within 3% of the
-- initial moment, volume drift below 0.1%, the velocity of the order of the
-- mode's (below 3x its peak a omega R).
local T = require "tide.testing"
local D = require "tide.cases.drop_oscillation"

local r = D.run { dim = 2, cpd = 32, periods = 4 }
local errs = {}
for k = 3, #r.zeros, 2 do errs[#errs + 1] = 2 * math.pi / (r.zeros[k] - r.zeros[k - 2]) / r.exact - 1 end
local umax = r.S.u:max_speed()
local upeak = D.eps * D.R * r.exact
local parts = {}
for _, e in ipairs(errs) do parts[#parts + 1] = string.format("%+.2f%%", 100 * e) end
print(string.format("2D drop, 32 cells per diameter, 4 periods, %d steps: periods %s; largest extremum %.4f of the initial; volume drift %.4f%%; max |u| %.2e m/s (mode peak %.2e)",
  r.steps, table.concat(parts, " "), r.qmax / r.q0, 100 * r.drift, umax, upeak))
T.check(#errs >= 3, "three full periods measured")
for k, e in ipairs(errs) do T.check(math.abs(e) < 0.02, "period " .. k .. " within 2% of Rayleigh") end
T.check(r.qmax / r.q0 < 1.03, "amplitude not growing (within 3%)")
T.check(r.drift < 1e-3, "volume drift below 0.1%")
T.check(umax < 3 * upeak, "velocity of the order of the mode's")
os.exit(T.report())
