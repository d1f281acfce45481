-- Liquid volume in the strong coupling (lua/tide/zarifi.lua) and the light ball's float height,
-- the set-up of scenes/zarifi_balls.lua (Fig. 6.3, 2D, 32^2, 4 s): balls of 300, 1000 and
-- 2500 kg/m^3 released under water; the light one is ejected and floats.
--  * FLIP particles crowd together after the ejection's splash; without a correction the pool
--    loses ~7% of its volume in 3 s (~10% in 4 s) and the light ball
--    floats high.  The recipe runs tide.flip's density correction (flip.separate, Kugelstadt et
--    al. 2019: particles moved along a projected displacement field, velocities untouched) after
--    the particle advection, with a dead band of 0.1 (zarifi.new{separation, band}).
--  * measured: the liquid volume from the free surface level (Zhu-Bridson level set, columns
--    clear of the balls) minus the balls' submerged areas, relative to its value after the first
--    step, averaged over the last second (the pool sloshes); and the particles' volume at their
--    mean interior density (tide.flip's measure, docs/liquids.md).
--  * the light ball's draft (free surface minus its lowest node) against Archimedes' (density
--    ratio 0.3): with the ghost-fluid free surface (level_set = "zhu_bridson"); the voxel surface
--    (p = 0 at air cell centres) is off by up to half a cell, 25% of this draft.  The ball still
--    bobs by +-20% of its draft in the last second (period ~0.6 s) and the pool sloshes (the
--    clear columns' level against the one beside the ball: up to 25% of the draft, period ~1.2 s),
--    so the draft is taken against the water within 2 dx beside the ball (which rides the slosh),
--    Hann-weighted over the last 1.5 s, and compared with the mesh's own Archimedes draft at each
--    pose (its triangles clipped at the level), 0.74% deeper than the equal-area disc's.  (Until
--    session 26: the clear columns' level, a flat 1 s window and the disc: over cfl 0.85-1 that
--    read -3.2 to +4.2% without separate_cut, -1.8 to +12.4% with it, by the phase of the
--    bob and the slosh alone; docs/couple.md.)
local tide = require "tide"
local T = require "tide.testing"
local zarifi = require "tide.zarifi"

local check = T.check
T.check = function(ok, msg) print(msg); return check(ok, msg) end

local n, r, T_END = 32, 0.09, 3.0
local function run(separation)
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local balls = {}
  for k, rho in ipairs { 300, 1000, 2500 } do
    local m = tide.solid.bcc { shape = tide.shape.sphere { center = { 0.25 * k, 0.3 }, radius = r }, h = r / 3 }
    m:material { model = "corotational", E = 1e6, nu = 0.3, density = rho, rayleigh_mass = 0.5 }
    balls[k] = m
  end
  local ps = zarifi.seed(g, { below = 0.55 }, balls)
  local S = zarifi.new { grid = g, particles = ps, solids = balls, level_set = "zhu_bridson", separation = separation }
  local As = balls[1]:volumes():sum()
  local R = math.sqrt(As / math.pi) -- the disc of the mesh's area
  local function segment(d)         -- area of the disc below depth d from its bottom
    d = math.max(0, math.min(2 * R, d))
    return R * R * math.acos((R - d) / R) - (R - d) * math.sqrt(math.max(0, 2 * R * d - d * d))
  end
  local lo, hi = 0, 2 * R -- Archimedes: segment(draft) = 0.3 As
  for _ = 1, 60 do
    local mid = (lo + hi) / 2
    if segment(mid) < 0.3 * As then lo = mid else hi = mid end
  end
  local want = lo
  local E, X = balls[1]:elements(), balls[1].x
  local function clipped(y0) -- the light ball's mesh area below y0
    local a = 0
    for e = 1, E.shape[1] do
      local p, q = {}, {}
      for k = 1, 3 do p[k] = { X:get(E:get(e, k), 1), X:get(E:get(e, k), 2) } end
      for k = 1, 3 do
        local u, v = p[k], p[k % 3 + 1]
        if u[2] <= y0 then q[#q + 1] = u end
        if (u[2] <= y0) ~= (v[2] <= y0) then
          local f = (y0 - u[2]) / (v[2] - u[2])
          q[#q + 1] = { u[1] + f * (v[1] - u[1]), y0 }
        end
      end
      for k = 1, #q do local u, v = q[k], q[k % #q + 1]; a = a + 0.5 * (u[1] * v[2] - v[1] * u[2]) end
    end
    return math.abs(a)
  end
  local function archimedes() -- the draft from the lowest node that displaces 0.3 of the mesh's area now
    local bottom, l, h = X:select(2, 2):min(), 0, 4 * R
    local target = 0.3 * clipped(math.huge)
    for _ = 1, 16 do -- to 6e-6 m, 0.01% of the draft
      local mid = (l + h) / 2
      if clipped(bottom + mid) < target then l = mid else h = mid end
    end
    return l
  end
  local function beside() -- the water within 2 dx beside the light ball
    local c = zarifi.centroid(balls[1])[1]
    return zarifi.surface_level(S, function(x) local d = math.abs(x - c); return d >= R and d < R + 2 * g.dx end)
  end
  local function level() -- the columns clear of the balls
    local cx = {}
    for k, m in ipairs(balls) do cx[k] = zarifi.centroid(m)[1] end
    return zarifi.surface_level(S, function(x)
      for k = 1, #balls do if math.abs(x - cx[k]) < R + 2 * g.dx then return false end end
      return true
    end)
  end
  local t, V0, acc, nacc, worst_mean = 0, nil, 0, 0, 0
  local dsum, asum, wsum, W = 0, 0, 0, 1.5 -- Hann-weighted drafts over the last W seconds
  local rest = { lo = math.huge, hi = -math.huge, vy = 0, bottom = math.huge } -- the heavy ball from t = 1 s
  local neutral = { lo = math.huge, y0 = zarifi.centroid(balls[2])[2], umax = 0 } -- the neutral ball's depth
  while t < T_END - 1e-12 do
    local dt = math.min(zarifi.max_dt(S), T_END - t)
    zarifi.step(S, dt)
    t = t + dt
    local lev = level()
    local V = lev
    for _, m in ipairs(balls) do V = V - segment(lev - (zarifi.centroid(m)[2] - R)) end
    V0 = V0 or V
    if S.liquid.mean_density then worst_mean = math.max(worst_mean, math.abs(S.liquid.mean_density - 1)) end
    neutral.lo, neutral.umax = math.min(neutral.lo, zarifi.centroid(balls[2])[2]), math.max(neutral.umax, S.u:max_speed())
    if t >= 1 then
      local c, v = zarifi.centroid(balls[3])
      rest.lo, rest.hi = math.min(rest.lo, c[2]), math.max(rest.hi, c[2])
      rest.vy = math.max(rest.vy, math.abs(v[2]))
      rest.bottom = math.min(rest.bottom, balls[3].x:select(2, 2):min())
    end
    if t > T_END - 1 then acc, nacc = acc + V / V0 - 1, nacc + 1 end
    if t > T_END - W then
      local w = math.sin(math.pi * (t - (T_END - W)) / W) ^ 2 * dt
      dsum, asum, wsum = dsum + w * (beside() - X:select(2, 2):min()), asum + w * archimedes(), wsum + w
    end
  end
  rest.gap = S.barrier and S.contact_dhat * g.dx or 0 -- the walls' barrier rests it up to dhat above the floor
  return acc / nacc, dsum / wsum, asum / wsum, worst_mean, rest, neutral
end

local dv0, d0, want = run(0)
T.check(dv0 < -0.05, string.format("without the volume correction the pool loses %.1f%% of its volume in %g s (light ball's draft %.4f m, Archimedes %.4f m, %.1f%%)",
  -100 * dv0, T_END, d0, want, 100 * (d0 / want - 1)))
local dv, d, want1, wm, rest, neutral = run(0.5)
-- (the level-measured change depends on the step sequence: over cfl 0.9-1 it spans -0.5 to -1.2%
-- with the explicit wall correction and -0.8 to -1.8% with the walls' barrier, the default since
-- session 24, -1.46% at the default cfl; the bound 2.5% stays far from the -7% failure it guards;
-- with the mass-consistent transfer (the default since session 25) -2.0 to -2.7%, the volume held
-- in crowded cut cells the correction skipped; with zarifi's separate_cut, the default since
-- session 26, -0.1 to -0.9% over cfl 0.85-1, docs/couple.md)
T.check(math.abs(dv) < 0.025, string.format("with it (separation 0.5, band 0.1): volume change %.2f%% over the last second", 100 * dv))
T.check(wm < 0.01, string.format("  particles' mean interior density within %.2f%% of the rest density over the run", 100 * wm))
T.check(math.abs(d / want1 - 1) < 0.03, string.format("  light ball floats at its Archimedes draft (beside it, Hann-weighted): %.4f m vs %.4f m (%.2f%%)", d, want1, 100 * (d / want1 - 1)))
-- the heavy ball (2500 kg/m^3) on the floor under the ghost-fluid surface: the particle level set
-- is continued through the solids (zarifi.surface_through_solids), so the pieces of its underside
-- feel the liquid's pressure (before: phi > 0 there, p = 0, the ball pressed into the floor to a
-- centre height of 0.064 m at 1.3 s, 0.060 m at 4 s in the scene)
-- Measured: centre 0.0859-0.0899 m, |vy| <= 0.115 m/s on the machines of session 21; 0.0780-0.0896 m,
-- |vy| <= 0.219 m/s on an AVX-512 EPYC (-march=native): there, from t = 2.79 s, the pocket cells
-- under the ball (phi ~ 0, open fractions near the clamp) take pressure spikes of 1e5-1e6 Pa and
-- the ball is squashed by up to 1 cm against the floor (height 0.1775 -> 0.1673 m, width unchanged)
-- -- the pocket-spike item still open on issue 14.  The bounds separate this from the failure the
-- test guards (0.060-0.064 m, |vy| up to 1.05 m/s) and allow the spikes' squash.
-- With the walls' barrier inside the coupled solve (contact = "barrier", the default since issue
-- 14's pocket item; tests/couple/test_zarifi_floor.lua) the spikes are gone (peak 1.5e4 Pa) and
-- the ball rests a barrier width above the floor: centre 0.0957-0.0961 m, |vy| <= 0.021 m/s, so
-- the upper bound is the radius plus dhat (0.0078 m) instead of the radius.
T.check(rest.lo > 0.075 and rest.hi < r + rest.gap + 0.0005, string.format("heavy ball rests on the floor from t = 1 s: centre y %.4f-%.4f m (radius %g, contact gap up to %.4f m)", rest.lo, rest.hi, r, rest.gap))
T.check(rest.vy < 0.3 and rest.bottom > -1e-9, string.format("  |vy| <= %.3f m/s, lowest node %.2g m", rest.vy, rest.bottom))

-- the neutral ball (1000 kg/m^3, as the water) in the pool the light ball's ejection stirs: it must
-- stay near its depth.  With the mass-consistent transfer the change the particles cannot take
-- (capped faces: the ghost-fluid surface, cut cells) was a uniform velocity of the liquid alone,
-- upward on average (~0.1 of the ball's weight); the floor stopped it at the next projection by a
-- pressure gradient that also acts on the ball, ~0.5% less buoyancy, and the ball sank steadily
-- (-0.06 m/s from 1 s; here 0.128 m in 3 s, the scene on the floor at 4 s).  Shared with the
-- free solids by mass (zarifi.new{ mass_share }, the default) the content moves together: 0.065 m
-- in 3 s (the scene 0.048 m; the kernel-mass FLIP of before 0.059 m in 4 s; it still sinks slowly,
-- as all three balls do when neutral, docs/couple.md; at cfl 0.9 / 0.95 0.060 / 0.069 m, without the
-- share 0.135 / 0.138 m).  Bound 0.08 m (2.6 dx).
T.check(neutral.y0 - neutral.lo < 0.08 and neutral.umax > 0.3, string.format(
  "neutral ball stays near its depth in the stirred pool (liquid up to %.2f m/s): sank at most %.4f m in %g s (from %.3f m; bound 0.08)",
  neutral.umax, neutral.y0 - neutral.lo, T_END, neutral.y0))

os.exit(T.report())
