-- A liquid disk (sphere) leaving the domain through an open side, grid-only
-- level-set recipe (tide.drop; docs/liquids.md "Validation"; the FLIP
-- recipe's jet is test_open_jet): R = 0.2 m, centre 0.2 m from the domain's
-- centre towards the side, uniform velocity V = 1 m/s towards it, no
-- gravity, no surface tension, 32^2 and 16^3 (x+).  Exact: the disk moves
-- rigidly and what crosses the side is gone, so the liquid volume in the
-- domain is the disk's part on the domain's side of the side's plane.
--   * volume vs that segment area at every step, through each of the four
--     sides, within 2% of the initial volume; all gone once the disk is out;
--   * no reflection: the flow stays uniform (|u - V| at every face < 1e-9 V)
--     and the pressure ~0 while the disk crosses;
--   * the checks can fail: with the side closed the disk is stopped (speed
--     and pressure jump, the volume stays) -- a control run.
local tide = require "tide"
local drop = require "tide.drop"
local T = require "tide.testing"

local AX = { x = 1, y = 2, z = 3 }
local R, V = 0.2, 1

-- largest |u_f - U e_a| over the faces of the liquid cells (phi < 0)
local function deviation(g, D, a, U)
  local n, comps, worst = g.size, { "u", "v", "w" }, 0
  for i = 1, n[1] do for j = 1, n[2] do for k = 1, (n[3] or 1) do
    local ph = g.dim == 2 and D.phi:get(i, j) or D.phi:get(i, j, k)
    if ph < 0 then
      for b = 1, g.dim do
        local idx = { i, j, k }
        for o = 0, 1 do
          idx[b] = (b == 1 and i or b == 2 and j or k) + o
          local f = D.u[comps[b]]
          local v = g.dim == 2 and f:get(idx[1], idx[2]) or f:get(idx[1], idx[2], idx[3])
          worst = math.max(worst, math.abs(v - (b == a and U or 0)))
        end
        idx[b] = b == 1 and i or b == 2 and j or k
      end
    end
  end end end
  return worst
end

local function run(dim, n, side, closed)
  local g = tide.grid.new { size = dim == 2 and { n, n } or { n, n, n }, dx = 1 / n }
  local a, s = AX[side:sub(1, 1)], side:sub(2, 2) == "+" and 1 or -1
  local c = {}
  for d = 1, dim do c[d] = 0.5 end
  c[a] = 0.5 + s * 0.2
  local phi = tide.shape.sphere { center = c, radius = R }:sdf(g)
  local V0
  local D = drop.new { grid = g, phi = phi, open = not closed and { side } or nil, volume = false }
  D.u[({ "u", "v", "w" })[a]]:fill(s * V)
  -- the reference: the same measure (tide.liquid.measure, the linear cell
  -- fraction 1/2 - phi/dx) of the disk at rest; its own error for a
  -- 6.4-cell disk / 3.2-cell ball is not what is tested
  V0 = tide.liquid.measure { u = D.u, phi = D.phi }.volume
  local Vx = dim == 2 and math.pi * R * R or 4 / 3 * math.pi * R ^ 3
  -- the disk's (ball's) part on the domain side of the plane at distance h
  -- from its centre
  local function exact(t)
    local h = (s > 0 and 1 - (c[a] + V * t) or c[a] - V * t)
    if h >= R then return V0 end -- (scaled to the measure of the whole disk below)
    if h <= -R then return 0 end
    if dim == 2 then
      local th = math.acos(h / R)
      return V0 * (1 - R * R * (th - math.sin(th) * math.cos(th)) / Vx)
    end
    local cap = R - h -- the cap beyond the plane
    return V0 * (1 - math.pi * cap * cap * (3 * R - cap) / 3 / Vx)
  end
  local m = { dvol = 0, udev = 0, pmax = 0, last = 0, steps = 0, umax = 0 }
  while D.t < 0.6 do
    drop.step(D, drop.max_dt(D))
    m.steps = m.steps + 1
    local vol = tide.liquid.measure { u = D.u, phi = D.phi }.volume
    m.dvol = math.max(m.dvol, math.abs(vol - exact(D.t)) / V0)
    m.last = vol / V0
    m.udev = math.max(m.udev, deviation(g, D, a, s * V))
    m.umax = math.max(m.umax, D.u:max_speed())
    m.pmax = math.max(m.pmax, D.pressure:max(), -D.pressure:min())
  end
  print(string.format("%dD %d %s%s: %d steps, |V - exact|/V0 <= %.4f, V/V0 at the end %.4f, |u - V| %.1e, max|u| %.3f, |p| %.2e Pa",
    dim, n, side, closed and " (closed)" or "", m.steps, m.dvol, m.last, m.udev, m.umax, m.pmax))
  return m
end

local rho = 1000
for _, side in ipairs { "x+", "x-", "y+", "y-" } do
  local m = run(2, 32, side)
  T.check(m.dvol < 0.02, string.format("2D %s: volume within 2%% of V0 of the exact segment at every step (%.4f)", side, m.dvol))
  T.check(m.last < 1e-9, string.format("2D %s: all liquid gone after the disk left (%.1e)", side, m.last))
  T.check(m.udev < 1e-9 * V, string.format("2D %s: the flow stays uniform (|u - V| %.1e)", side, m.udev))
  T.check(m.pmax < 1e-6 * rho * V * V, string.format("2D %s: no pressure at the open side (%.1e Pa)", side, m.pmax))
end
do
  local m = run(3, 24, "x+")
  T.check(m.dvol < 0.02, string.format("3D x+: volume within 2%% of V0 of the exact cap at every step (%.4f)", m.dvol))
  T.check(m.last < 1e-9, string.format("3D x+: all liquid gone (%.1e)", m.last))
  T.check(m.udev < 1e-9 * V and m.pmax < 1e-6 * rho * V * V, string.format("3D x+: uniform flow, no pressure (%.1e, %.1e Pa)", m.udev, m.pmax))
end
do -- the control: the same disk against a wall
  local m = run(2, 32, "y-", true)
  T.check(m.last > 0.8 and m.dvol > 0.5, string.format("closed y-: the liquid stays (V/V0 %.3f, off the open-side answer by %.2f V0)", m.last, m.dvol))
  T.check(m.udev > 0.2 * V and m.pmax > 0.1 * rho * V * V, string.format("closed y-: the wall stops it (|u - V| %.2f, |p| %.0f Pa)", m.udev, m.pmax))
end

os.exit(T.report())
