-- Corotational vs. pure linear elasticity (Zarifi Fig. 3.4): a beam pinned at
-- its left end falls under gravity and swings through large rotations.  With
-- element rotations (Zarifi 3.6) its volume stays close to the rest volume;
-- the pure linear model, which sees rotations as strain, grows it.
local T = require "tide.testing"
local corotation = require "tide.cases.corotation" -- the set-up, shared with figures/zarifi_corotation.lua

local function swing(corotational)
  local r = corotation.swing { corotational = corotational }
  return r.dev, r.final, r.tip
end

local dc, vc, tipc = swing(true)
local dl, vl = swing(false)
print(string.format("corotational: max |V/V0 - 1| = %.3f (final %.3f, lowest point y = %.2f m)", dc, vc, tipc))
print(string.format("pure linear:  max |V/V0 - 1| = %.3f (final %.3f)", dl, vl))
T.check(tipc < -0.5, "the beam swings through a large rotation")
T.check(dc <= 0.05, "corotational keeps the volume within 5%")
T.check(vl > 1.5, "pure linear grows the volume")
T.check(dl > 10 * dc, "pure linear deviates far more than corotational")

os.exit(T.report())
