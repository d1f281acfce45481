-- A sessile drop on a cylinder (2D, tide.drop with a cut-cell circular solid:
-- solid_phi and the face fractions of a disk of radius Rc = 3 R0, its centre
-- off the grid's nodes; no gravity).  A disk of radius R0 = 1 mm (32 cells
-- per diameter) centred 0.2 R0 above (60 degrees) or below (120) the top of
-- the cylinder spreads or beads up towards the equilibrium: an arc of radius R meeting the
-- circle at theta, its centre C on the symmetry axis at distance D from the
-- cylinder's centre O.  In the triangle O, C and a contact point P the angle
-- at P is theta (between the wall's normal and the liquid's), so
--   D^2 = Rc^2 + R^2 - 2 Rc R cos theta,
-- and the liquid's area A = pi R^2 - lens(R, Rc, D) (the part of the drop's
-- disk inside the cylinder) fixes R (bisection) for the initial area.  The
-- apex is D + R - Rc above the cylinder; the circle of radius Rc + z about O
-- meets the arc at the polar angle b, cos b = ((Rc + z)^2 + D^2 - R^2) /
-- (2 (Rc + z) D).  sigma = 0.07, rho = 1000, nu = 1e-4 (as test_sessile_drop),
-- to t = 0.03 s.  Asserts (docs/liquids-physics.md, "Walls and the contact
-- angle"): the apex height within 2 cells, both crossings of the circle 1.5
-- cells above the cylinder within 2 cells (along it) of the equilibrium's,
-- the initial disk more than 2.5 cells from the equilibrium (height), the
-- volume the recipe keeps within 0.1%.
local tide = require "tide"
local T = require "tide.testing"
local drop = require "tide.drop"

local sigma, rho, nu, R0, cpd, tend = 0.07, 1000, 1e-4, 1e-3, 32, 0.03
local dx = 2 * R0 / cpd
local Rc = 3 * R0

-- area of the lens shared by disks of radii r1, r2 with centres d apart
local function lens(r1, r2, d)
  if d >= r1 + r2 then return 0 end
  if d <= math.abs(r1 - r2) then return math.pi * math.min(r1, r2) ^ 2 end
  local a1 = math.acos((d * d + r1 * r1 - r2 * r2) / (2 * d * r1))
  local a2 = math.acos((d * d + r2 * r2 - r1 * r1) / (2 * d * r2))
  return r1 * r1 * (a1 - math.sin(2 * a1) / 2) + r2 * r2 * (a2 - math.sin(2 * a2) / 2)
end

-- the equilibrium arc of area A at contact angle th: R, D
local function equilibrium(A, th)
  local function D(R) return math.sqrt(Rc * Rc + R * R - 2 * Rc * R * math.cos(th)) end
  local lo, hi = 1e-6 * R0, 10 * R0
  for _ = 1, 200 do
    local R = (lo + hi) / 2
    if math.pi * R * R - lens(R, Rc, D(R)) < A then lo = R else hi = R end
  end
  return lo, D(lo)
end

local function run(theta_deg)
  local th = math.rad(theta_deg)
  -- the disk's centre 0.2 R0 above the cylinder's top for 60 degrees (a taller start), below for 120
  local lift = (theta_deg < 90 and 0.2 or -0.2) * R0
  local A = math.pi * R0 * R0 - lens(R0, Rc, Rc + lift)
  local R, D = equilibrium(A, th)
  local happ = D + R - Rc
  local nx = 2 * math.ceil((1.4 * R0 + 6 * dx) / dx)
  local ny = math.ceil((math.max(happ, R0) + 14 * dx) / dx)
  local g = tide.grid.new { size = { nx, ny }, dx = dx }
  local ox, oy = nx * dx / 2 + 0.3 * dx, 8.37 * dx - Rc -- the top of the cylinder 8.37 cells up
  local cyl = tide.shape.sphere { center = { ox, oy }, radius = Rc }
  local fractions, solid = g:face_fractions(cyl)
  local sphi = cyl:sdf(g)
  local phi = drop.disk { grid = g, center = { ox, oy + Rc + lift }, radius = R0 }
  local S = drop.new { grid = g, phi = phi, sigma = sigma, rho = rho, nu = nu, contact_angle = theta_deg,
    solid = solid, solid_phi = sphi, fractions = fractions }
  local function sample(f, x, y)
    local fx, fy = x / dx + 0.5, y / dx + 0.5
    local i, j = math.floor(fx), math.floor(fy)
    local a, b = fx - i, fy - j
    return (1 - a) * (1 - b) * f:get(i, j) + a * (1 - b) * f:get(i + 1, j) + (1 - a) * b * f:get(i, j + 1) + a * b * f:get(i + 1, j + 1)
  end
  local z = 1.5 * dx
  local function measure() -- apex height above the cylinder; polar angles of the crossings at Rc + z
    local f = tide.liquid.contact_extend(g, S.phi, { solid_phi = sphi, contact_angle = theta_deg })
    local h
    local prev = sample(f, ox, oy + Rc + z)
    for k = 1, math.floor((ny * dx - oy - Rc - z) / (0.05 * dx)) - 2 do
      local s = z + k * 0.05 * dx
      local v = sample(f, ox, oy + Rc + s)
      if prev < 0 and v >= 0 then h = s - 0.05 * dx * v / (v - prev) break end
      prev = v
    end
    local r, angles = Rc + z, {}
    for _, side in ipairs { -1, 1 } do
      local db = 0.05 * dx / r
      local b, pv = 0, sample(f, ox, oy + r)
      while true do
        local nb = b + db
        local v = sample(f, ox + side * r * math.sin(nb), oy + r * math.cos(nb))
        if pv < 0 and v >= 0 then angles[#angles + 1] = side * (b + db * pv / (pv - v)) break end
        b, pv = nb, v
        if b > 1.2 then break end
      end
    end
    return h, angles[1], angles[2]
  end
  local bz = math.acos(((Rc + z) ^ 2 + D * D - R * R) / (2 * (Rc + z) * D))
  local h0 = measure()
  local v0 = drop.volume(S)
  while S.t < tend - 1e-12 do drop.step(S, math.min(drop.max_dt(S), tend - S.t)) end
  local h, bl, br = measure()
  local v = drop.volume(S)
  local arc = (Rc + z) / dx -- cells per radian along the circle at Rc + z
  print(string.format("sessile drop, %g deg on a cylinder of radius %g R0, %dx%d cells, %d steps: height %.2f cells vs %.2f (%+.2f), contact points %.2f / %.2f cells along the circle %.1f cells up vs -/+ %.2f (%+.2f / %+.2f); start %.2f; volume %+.4f%%",
    theta_deg, Rc / R0, nx, ny, S.steps, h / dx, happ / dx, (h - happ) / dx, bl * arc, br * arc, z / dx, bz * arc,
    (bl + bz) * arc, (br - bz) * arc, h0 / dx, 100 * (v / v0 - 1)))
  T.check(math.abs(h0 - happ) > 2.5 * dx, string.format("%g deg: the disk starts more than 2.5 cells from the equilibrium", theta_deg))
  T.check(math.abs(h - happ) < 2 * dx, string.format("%g deg: height within 2 cells of the equilibrium arc", theta_deg))
  T.check(math.abs(bl + bz) * arc < 2 and math.abs(br - bz) * arc < 2,
    string.format("%g deg: both contact points within 2 cells of the equilibrium's", theta_deg))
  T.check(math.abs(v / v0 - 1) < 1e-3, string.format("%g deg: volume kept", theta_deg))
end

run(60)
run(120)
os.exit(T.report())
