-- Archimedes with two-way SPH-rigid body coupling (tide.sph_body;
-- lua/tide/cases/sph_float.lua): a 2D block of density 0.5 rho0 released at
-- the surface of a DFSPH tank floats with a submerged fraction within 5% of
-- 0.5 (mean over the last 2 s of 3.5 s: about two bobbing periods).  The
-- submerged depth is measured from the fluid's zero-pressure level (a
-- hydrostatic fit p = a + b y of the pressure away from the block), the level
-- Archimedes' law refers to; the level of the top particles + dx/2 is printed.
local T = require "tide.testing"
local C = require "tide.cases.sph_float"

local r = C.run { method = "dfsph", density = 500, duration = 3.5 }
print(string.format("DFSPH, block of 0.5 rho0: submerged fraction %.4f (top particles + dx/2: %.4f), pressure slope "
  .. "%+.2f%% of rho0 g, final angle %.4f rad, %d steps", r.fraction, r.fraction_top, 100 * (r.slope - 1), r.angle, r.steps))
T.check(math.abs(r.fraction / 0.5 - 1) < 0.05,
  string.format("the block of density 0.5 rho0 floats half submerged within 5%% (%.4f)", r.fraction))
T.check(math.abs(r.angle) < 0.1, string.format("the wide block floats upright (%.4f rad)", r.angle))

os.exit(T.report())
