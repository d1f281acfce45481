-- Body-body contact (tide.sph_body's collide, called by tide.sph_step with
-- two or more bodies; docs/sph.md "Rigid bodies"): in a DFSPH tank a box of
-- 1.5 rho0 released above a box of 2 rho0 lying on the floor sinks onto it
-- and rests there -- at most a contact gap (dx, one fluid layer) plus a
-- particle spacing above its top, never inside it, both at rest and level.
local tide = require "tide"
local T = require "tide.testing"
local sph = require "tide.sph_step"
local SB = require "tide.sph_body"

local dx = 0.02
local W, Ht, depth = 0.6, 0.5, 0.35
local g = tide.grid.new { size = { math.floor(W / dx + 0.5) + 4, math.floor(Ht / dx + 0.5) + 4 }, dx = dx,
  origin = { -2 * dx, -2 * dx } }
local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 10 * math.sqrt(2 * 9.81 * depth),
  viscosity = 0.05, wall_pressure = "hydrostatic", renormalize = true }
local tank = tide.shape.box { min = { 0, 0 }, max = { W, Ht } }
S:sdf_boundary { shape = tank, side = "outside" }
local lower = tide.shape.box { min = { 0.15, 0.02 }, max = { 0.45, 0.12 } }
local upper = tide.shape.box { min = { 0.22, 0.22 }, max = { 0.38, 0.30 } }
S:seed { shape = tide.shape.box { min = { 0, 0 }, max = { W, depth } } - lower - upper }
local cont = { shape = tank, side = "outside" }
local A = SB.new(S, { shape = lower, density = 2000, container = cont })
local B = SB.new(S, { shape = upper, density = 1500, container = cont })
local t, step, worst, unconv, late = 0, 0, math.huge, 0, 0
local duration = 1.5
while t < duration - 1e-12 do
  local dt = math.min(sph.max_dt(S, "dfsph", 0.4, 2e-3), duration - t)
  local r = sph.dfsph_step(S, dt, { bodies = { A, B }, tol = 1e-3 })
  if not r.converged then unconv = unconv + 1 end
  t, step = t + dt, step + 1
  if step % 5 == 0 then -- B's surface samples against A's shape: never inside
    local c, R = B:pose()
    local P = {}
    for q, y in ipairs(B.surface) do P[q] = B:to_world(y, c, R) end
    local phi = A:world_shape():eval(tide.array.from(P))
    for q = 1, #P do worst = math.min(worst, phi[q]) end
  end
  if t > duration - 0.3 then
    late = math.max(late, math.sqrt(A.v[1] ^ 2 + A.v[2] ^ 2), math.sqrt(B.v[1] ^ 2 + B.v[2] ^ 2))
  end
end
local ca, aa = A:pose()
local cb, ab = B:pose()
local topA, botB = ca[2] + 0.05, cb[2] - 0.04
local gap = botB - topA
print(string.format("DFSPH, box of 1.5 rho0 onto a box of 2 rho0: gap %.2f dx (smallest sample distance to the lower "
  .. "box over the run %.2f dx), lower box bottom %.2f dx above the floor, angles %.4f / %.4f rad, largest speed over "
  .. "the last 0.3 s %.3f m/s, %d steps, %d with a solve not converged", gap / dx, worst / dx, (ca[2] - 0.05) / dx, aa,
  ab, late, step, unconv))
T.check(gap > 0 and gap < 2 * dx, string.format("the upper box rests on the lower (gap %.2f dx)", gap / dx))
T.check(worst > 0, string.format("no sample of the upper box inside the lower (closest %.2f dx)", worst / dx))
T.check(ca[2] - 0.05 < 1.5 * dx, string.format("the lower box stays on the floor (%.2f dx)", (ca[2] - 0.05) / dx))
T.check(math.abs(aa) < 0.05 and math.abs(ab) < 0.05, string.format("level (%.4f, %.4f rad)", aa, ab))
T.check(late < 0.1, string.format("at rest (%.3f m/s over the last 0.3 s)", late))
os.exit(T.report())
