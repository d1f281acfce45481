-- A free jet leaving the domain through each open side in turn (FLIP recipe,
-- docs/liquids.md "Validation"): a nozzle of 8 x 2 cells (V = 1 m/s) 0.69 m
-- from the side, the side open and the three others walls; without gravity
-- (the jet leaves normal to the side) and with 0.5 m/s^2 across it (it falls
-- 0.11 m on a parabola and leaves at 19 degrees).  Over the second half of
-- the run (the jet steady):
--   * inflow and outflow rates vs Q = V x width, and the particle count
--     steady and near the ideal column (nozzle to the open layer);
--   * no reflection at the open side: in the last 3 cells before the open
--     layer the particles keep moving outward at ~V (none turns back), the
--     jet keeps its width about the ballistic centre line there (no pile-up
--     spreading along the side), and the pressure there is ~0 (a free jet:
--     p = 0 around it; a stopped jet would show rho V^2 / 2);
--   * no particle outside the domain or in the open layer after any step;
--     #ps = emitted - removed; the four sides agree with each other;
--   * the checks can fail: with the side closed the same measures show the
--     pile-up (a control run);
--   * 3D, x+ only (16^3, nozzle 4 x 2 x 4 cells).
local tide = require "tide"
local flip = require "tide.flip"
local liquid = tide.liquid
local T = require "tide.testing"

local V, W = 1, 0.25 -- jet speed [m/s] and width [m]
local AX = { x = 1, y = 2, z = 3 }

-- one jet towards `side` ("x+", ...); closed: the side stays a wall; ga
-- (2D): gravity across the jet [m/s^2], the jet then leaves obliquely
local function jet(dim, n, side, tend, closed, ga)
  ga = ga or 0
  local dx = 1 / n
  local g = tide.grid.new { size = dim == 2 and { n, n } or { n, n, n }, dx = dx }
  local a, s = AX[side:sub(1, 1)], side:sub(2, 2) == "+" and 1 or -1
  -- the nozzle: 2 cells along the axis, starting 0.25 m from the opposite wall
  local lo, hi, vel = {}, {}, {}
  local c0 = ga > 0 and 0.6 or 0.5 -- the nozzle's centre across the jet
  local grav = {}
  for d = 1, dim do
    lo[d], hi[d], vel[d], grav[d] = c0 - W / 2, c0 + W / 2, 0, d == a and 0 or -ga
  end
  lo[a], hi[a] = s > 0 and 0.25 or 0.75 - 2 * dx, s > 0 and 0.25 + 2 * dx or 0.75
  vel[a] = s * V
  local front = s > 0 and hi[a] or lo[a]
  -- the ballistic centre of the jet across it at x[a]: c0 - ga tau^2 / 2
  local function centre(xa)
    local tau = math.max(s * (xa - front), 0) / V
    return c0 - 0.5 * ga * tau * tau
  end
  local ps = liquid.particles { dim = dim }
  local S = flip.new { grid = g, particles = ps, gravity = grav,
    open = not closed and { side } or nil, method = dim == 3 and "mgpcg" or "pcg",
    emitters = { { shape = tide.shape.box { min = lo, max = hi }, velocity = vel } } }
  -- distance of a point from the open side
  local function depth(x) return s > 0 and 1 - x[a] or x[a] end
  local per_cell, cellv = S.per_cell, dx ^ dim / S.per_cell
  -- the band: the last 3 cells before the open layer (depth in [dx, 4 dx))
  local m = { outside = 0, in_layer = 0, vmin = math.huge, vsum = 0, nv = 0, bandmax = 0, spread = 0, pmax = 0, prest = 0 }
  local t0, e0, r0, cmin, cmax, csum, nc, vmin, vmax, vsum
  local X, Vp, dt
  while S.t < tend do
    dt = flip.max_dt(S)
    flip.step(S, dt)
    X, Vp = ps.x, ps.v
    local half = S.t >= 0.5 * tend
    -- the liquid volume in particles at rest density: #ps / (mean interior density)
    local vol = #ps / S.mean_density
    if half and not t0 then t0, e0, r0, cmin, cmax, csum, nc, vmin, vmax, vsum = S.t, S.emitted, S.removed, #ps, #ps, 0, 0, vol, vol, 0 end
    local inband = 0
    for q = 1, #ps do
      local x = {}
      for d = 1, dim do x[d] = X:get(q, d) end
      for d = 1, dim do
        if x[d] < 0 or x[d] > 1 then m.outside = m.outside + 1 end
      end
      local dep = depth(x)
      if not closed and dep < dx then m.in_layer = m.in_layer + 1 end
      if half and dep >= dx and dep < 4 * dx then
        inband = inband + 1
        local un = s * Vp:get(q, a) -- outward normal velocity
        m.vmin, m.vsum, m.nv = math.min(m.vmin, un), m.vsum + un, m.nv + 1
        for d = 1, dim do
          if d ~= a then m.spread = math.max(m.spread, math.abs(x[d] - centre(x[a])) - W / 2) end
        end
      end
    end
    if half then
      m.bandmax = math.max(m.bandmax, inband)
      cmin, cmax, csum, nc = math.min(cmin, #ps), math.max(cmax, #ps), csum + #ps, nc + 1
      vmin, vmax, vsum = math.min(vmin, vol), math.max(vmax, vol), vsum + vol
      -- pressure in the liquid cells of the band (the cells at depth 1..3 dx)
      local L, P = S.labels, S.pressure
      local band = s > 0 and { n - 3, n - 1 } or { 2, 4 }
      for i = 1, n do
        for j = 1, n do
          for k = 1, dim == 3 and n or 1 do
            local c = { i, j, k }
            if (dim == 2 and L:get(i, j) or L:get(i, j, k)) == liquid.LIQUID then
              local pc = math.abs(dim == 2 and P:get(i, j) or P:get(i, j, k))
              if c[a] >= band[1] and c[a] <= band[2] then
                m.pmax = math.max(m.pmax, pc)
              else
                m.prest = math.max(m.prest, pc)
              end
            end
          end
        end
      end
    end
  end
  local span = S.t - t0
  local r = {
    qin = (S.emitted - e0) * cellv / span, qout = (S.removed - r0) * cellv / span,
    cmin = cmin, cmax = cmax, cmean = csum / nc, vmin = vmin, vmax = vmax, vmean = vsum / nc, count_ok = #ps == S.emitted - S.removed,
    un_mean = m.vsum / math.max(m.nv, 1), un_min = m.vmin, spread = m.spread / dx, pmax = m.pmax, prest = m.prest, ga = ga,
    outside = m.outside, in_layer = m.in_layer,
    -- the band of an undisturbed jet holds 3 x (W / dx) cells of particles
    band = m.bandmax / (3 * (W / dx) ^ (dim - 1) * per_cell),
    -- the ideal column: from the nozzle's back to the open layer, less the
    -- V dt at the back of the nozzle its particles left during the step
    -- (refilled at the start of the next)
    ideal = (0.75 - dx - V * dt) * W ^ (dim - 1) / cellv,
  }
  return r
end

local function report(tag, r, dim)
  local Q = V * W ^ (dim - 1)
  print(string.format("%s: in %+.1f%% out %+.1f%% of Q; count %d..%d, volume %.0f..%.0f (ideal column %.0f, mean %+.1f%%); "
    .. "band: u_n mean %.3f min %.3f V, fill %.2f, spread %.2f dx, |p| <= %.2f Pa (%.1e rho V^2/2; elsewhere in the jet %.2f Pa); outside %d, in layer %d",
    tag, 100 * (r.qin / Q - 1), 100 * (r.qout / Q - 1), r.cmin, r.cmax, r.vmin, r.vmax, r.ideal,
    100 * (r.vmean / r.ideal - 1), r.un_mean / V, r.un_min / V, r.band, r.spread, r.pmax, r.pmax / (500 * V * V),
    r.prest, r.outside, r.in_layer))
end

local function check(tag, r, dim)
  local Q = V * W ^ (dim - 1)
  T.check(math.abs(r.qin / Q - 1) < 0.05, string.format("%s: inflow %.4f vs Q %.4f", tag, r.qin, Q))
  T.check(math.abs(r.qout / Q - 1) < 0.05, string.format("%s: outflow %.4f vs Q %.4f", tag, r.qout, Q))
  T.check(r.cmax - r.cmin < 0.08 * r.cmean, string.format("%s: count steady, %d..%d", tag, r.cmin, r.cmax))
  T.check(r.vmax - r.vmin < 0.05 * r.vmean, string.format("%s: volume steady, %.0f..%.0f", tag, r.vmin, r.vmax))
  T.check(math.abs(r.vmean / r.ideal - 1) < 0.03, string.format("%s: volume %.0f vs the ideal column %.0f", tag, r.vmean,
    r.ideal))
  T.check(r.count_ok, tag .. ": #ps = emitted - removed")
  T.check(r.outside == 0 and r.in_layer == 0, string.format("%s: %d particles outside, %d in the open layer", tag,
    r.outside, r.in_layer))
  T.check(r.un_mean > 0.95 * V and r.un_min > 0.5 * V, string.format("%s: outward velocity in the band mean %.3f, min %.3f V",
    tag, r.un_mean / V, r.un_min / V))
  T.check(r.band < 1.25 and r.spread < 1, string.format("%s: band fill %.2f < 1.25, spread %.2f dx < 1", tag, r.band,
    r.spread))
  -- a jet stopped at the side would show its dynamic pressure rho V^2 / 2;
  -- the staircase surface of a jet under gravity carries a few % of rho g W
  -- everywhere (5% measured, as much elsewhere in the jet as at the side)
  local pb = 0.02 * 500 * V * V + 0.1 * 1000 * r.ga * W
  T.check(r.pmax < pb, string.format("%s: |p| in the band %.3g Pa < 2%% of rho V^2 / 2 + 10%% of rho g W = %.3g Pa", tag,
    r.pmax, pb))
end

for _, side in ipairs { "x+", "x-", "y+", "y-" } do
  local r = jet(2, 32, side, 2.5)
  report("2D 32^2 jet through " .. side, r, 2)
  check("2D " .. side, r, 2)
  -- oblique: gravity 0.5 m/s^2 across, the jet falls 0.11 m and leaves at 19 degrees
  r = jet(2, 32, side, 2.5, false, 0.5)
  report("2D 32^2 oblique jet through " .. side, r, 2)
  check("2D oblique " .. side, r, 2)
end

-- control: the x+ side closed, the jet hits a wall
do
  local r = jet(2, 32, "x+", 2.5, true)
  report("2D 32^2 jet against a closed x+", r, 2)
  T.check(r.un_min < 0.1 * V and r.un_mean < 0.5 * V and r.band > 1.5 and r.qout == 0 and r.pmax > 100,
    string.format("closed side: the checks see the pile-up (u_n mean %.2f, min %.2f V, fill %.2f, |p| %.0f Pa)",
      r.un_mean / V, r.un_min / V, r.band, r.pmax))
end

do
  local r = jet(3, 16, "x+", 2)
  report("3D 16^3 jet through x+", r, 3)
  check("3D x+", r, 3)
end

os.exit(T.report())
