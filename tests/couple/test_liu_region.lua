-- tide.liu's advect_region (bench/liu: 6-8x less advection at 96^3): u and phi are
-- advected only where the step reads them, and the results are bit-identical to
-- advecting the whole grid -- the level set, the velocity and the vertices after a
-- drop on a row of fixed vertices (which leaks at 5 dx) and after drops on elastic rods.
local T = require "tide.testing"
local L = require "tide.cases.liu"
local liu = require "tide.liu"

local function same(A, B)
  local ok = A.steps == B.steps and A.phi:checksum() == B.phi:checksum() and A.x:checksum() == B.x:checksum()
  for a = 1, A.grid.dim do ok = ok and A.u:component(a):checksum() == B.u:component(a):checksum() end
  return ok
end
for _, sp in ipairs { 1.0, 5.0 } do
  local A = L.drop_on_row { n = 32, spacing = sp, frames = 30, advect_region = false }.S
  local B = L.drop_on_row { n = 32, spacing = sp, frames = 30, advect_region = true }.S
  T.check(same(A, B), string.format("drop on a row at %.1f dx: identical with and without the region (%d steps)", sp, B.steps))
end
local A = L.bands { dim = 2, n = 32, drops = 2, low = true, advect_region = false }
local B = L.bands { dim = 2, n = 32, drops = 2, low = true, advect_region = true }
for _ = 1, 20 do
  liu.step(A, liu.max_dt(A))
  liu.step(B, liu.max_dt(B))
end
T.check(same(A, B), "drops on rods: identical with and without the region (20 steps)")
os.exit(T.report())
