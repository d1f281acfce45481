-- MPM sand, angle of repose (issue 17: within 3 deg of the friction angle).
-- A layer 0.08 m thick and 2 m long on a sticky floor, 64 cells per metre,
-- gravity tilted by theta, friction angle 30 deg, the default Drucker-Prager
-- fit (cone = "shear": alpha = sqrt(2) tan(phi)/d, docs/mpm.md).  Below
-- phi - 3 deg the layer comes to rest (mid-layer speed < 1 cm/s after 3 s),
-- above phi + 3 deg it still flows (> 0.1 m/s): the onset lies within 3 deg
-- of phi.  Klar's 3D cone (cone = "compression") flows at 23 deg in 2D.
local tide = require "tide"
local T = require "tide.testing"
local mpm = require "tide.mls_mpm"

local phi, n = 30, 64

local function layer(theta)
  local g = tide.grid.new { size = { 5 * n, n // 4 }, dx = 1 / n }
  local th = math.rad(theta)
  local M = tide.mpm.new { grid = g, gravity = { 9.81 * math.sin(th), -9.81 * math.cos(th) }, walls = "sticky" }
  local sand = M:material { model = "fixed_corotated", E = 3.5e5, nu = 0.3, density = 1600, plastic = "sand",
    friction_angle = phi }
  local floor = 3 / n
  M:seed { shape = tide.shape.box { min = { 0.3, floor }, max = { 2.3, floor + 0.08 } }, material = sand, stream = 2 }
  mpm.advance(M, 3, 0.4)
  local s, c = 0, 0
  for p = 1, M.n do
    if math.abs(M.x[p][1] - 1.3) < 0.1 then
      s = s + M.v[p][1]
      c = c + 1
    end
  end
  return s / c
end

local lo, hi = layer(phi - 3), layer(phi + 3)
print(string.format("mid-layer speed after 3 s: %.4f m/s at %g deg, %.4f m/s at %g deg", lo, phi - 3, hi, phi + 3))
T.check(math.abs(lo) < 0.01, string.format("at rest at phi - 3 deg (%.4f m/s)", lo))
T.check(hi > 0.1, string.format("flowing at phi + 3 deg (%.4f m/s)", hi))
os.exit(T.report())
