-- A 2D block of density 2 rho0 in a WCSPH tank (tide.sph_body;
-- lua/tide/cases/sph_float.lua) sinks to the floor and rests there: within
-- the contact gap (one particle spacing) of the floor, at rest, upright.
-- (With DFSPH the lagged coupling throws a heavy block off the floor when the
-- layer of water under it gets thin: docs/sph.md, "Rigid bodies".)
local T = require "tide.testing"
local C = require "tide.cases.sph_float"

local r = C.run { method = "wcsph", density = 2000, duration = 1.0, average = 0.2 }
print(string.format("WCSPH, block of 2 rho0 released 2 cm above the floor: bottom at %.4f m (%.2f dx) after 1 s, "
  .. "speed %.2e m/s, angle %.4f rad, %d contact impulses, %d steps", r.bottom, r.bottom / r.dx, r.speed, r.angle,
  r.contacts, r.steps))
T.check(r.bottom < 1.5 * r.dx and r.bottom > 0, string.format("the block sank to the floor (bottom %.2f dx above it)", r.bottom / r.dx))
T.check(r.speed < 0.01, string.format("the block rests on the floor (%.2e m/s)", r.speed))
T.check(math.abs(r.angle) < 0.05, string.format("upright (%.4f rad)", r.angle))

os.exit(T.report())
