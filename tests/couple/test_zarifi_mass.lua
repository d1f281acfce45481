-- The mass-consistent FLIP transfer at rest (issue 14 [zarifi], docs/couple.md "Momentum"):
-- zarifi.new{ mass_consistent = true } gives the particles the projection's change by its face
-- masses; the projection's free surface holds more liquid than the particles (the level set's zero
-- lies ~0.25 dx above their volume), so at rest they receive more than the pressure change that
-- balances gravity and a floating block sits too deep (measured +9.5% at density ratio 0.5).
-- With mass_reference = true the projection's response to gravity alone (zarifi.gravity_response)
-- goes to the particles by their kernel mass and only the rest by the face masses; with
-- mass_cap = 1 (the defaults) the draft is Archimedes' within 2% (measured +0.89%; +0.50% when
-- the response left the solids' elastic forces out), as with the kernel-mass transfer.
local tide = require "tide"
local T = require "tide.testing"
local zarifi = require "tide.zarifi"

local check = T.check
T.check = function(ok, msg) print(msg); return check(ok, msg) end

-- a 0.4 x 0.25 m block of density ratio 0.5 floating in a 0.5 m pool, 2D 32^2, 300 steps of at
-- most 5 ms; the draft (level-set surface clear of the block minus its bottom) averaged over the
-- second half
local function draft(opts)
  local n, ratio, w, h = 32, 0.5, 0.4, 0.25
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local want = h * ratio
  local top = 0.5 + w * want                        -- the surface once the block displaces w * want
  local m = tide.solid.box { min = { 0.3, top - want }, max = { 0.7, top - want + h }, cells = { 8, 5 } }
  m:material { model = "corotational", E = 1e6, nu = 0.3, density = 1000 * ratio, rayleigh_mass = 5 }
  local block = tide.shape.mesh { vertices = m.x, faces = m:boundary() }:sdf(g)
  local phi = g:cells()
  for i = 1, n do for j = 1, n do phi:set(i, j, math.max((j - 0.5) * g.dx - top, -block:get(i, j))) end end
  local o = { grid = g, particles = tide.liquid.seed { grid = g, phi = phi }, solids = { m }, level_set = "zhu_bridson" }
  for k, v in pairs(opts) do o[k] = v end
  local S = zarifi.new(o)
  local clear = function(x) return math.abs(x - 0.5) > w / 2 + 2 * g.dx end
  local sum, cnt = 0, 0
  for k = 1, 300 do
    zarifi.step(S, math.min(zarifi.max_dt(S), 0.005))
    if k > 150 then sum, cnt = sum + zarifi.surface_level(S, clear) - m.x:select(2, 2):min(), cnt + 1 end
  end
  return sum / cnt, want
end

local d, want = draft { mass_consistent = true, mass_reference = true, mass_cap = 1 }
T.check(math.abs(d - want) < 0.02 * want, string.format(
  "mass-consistent with the hydrostatic part by the kernel mass (mass_reference, mass_cap = 1): draft %.5f vs %.5f (%+.2f%%, < 2%%)",
  d, want, 100 * (d - want) / want))
d = draft { mass_consistent = true, mass_reference = false, mass_cap = 4 }
T.check(d - want > 0.03 * want, string.format(
  "  without mass_reference (mass_cap = 4) the block sits too deep: draft %.5f vs %.5f (%+.2f%%, > 3%%)", d, want, 100 * (d - want) / want))

os.exit(T.report())
