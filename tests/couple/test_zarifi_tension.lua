-- Surface tension in the strong coupling (tide.zarifi with tension = sigma): the ghost-fluid
-- jump sigma kappa on tide.flip's tracked level set, continued through the solids, inside the
-- coupled pressure solve of ch. 5, so the capillary pressure acts on the solids too.
--  * a 2D drop oscillating in its n = 2 Rayleigh mode (R = 1 cm, sigma = 0.07 N/m, rho = 1000,
--    zero gravity, 24 cells per diameter) with a pinned block in the air beside it: frequency
--    within 3% of omega^2 = 6 sigma / (rho R^3) (measured APIC -0.15%, the recipe's default
--    mass-consistent FLIP -1.01%; the FLIP recipe's own test: -0.15% / -0.52%), volume within 0.1%;
--    and in 3D (omega^2 = 8 sigma / (rho R^3), 12 cells per diameter, APIC): +0.26% (FLIP recipe +0.26%);
--  * a soft disk (linear, mu = lambda = 200 Pa, neutral, Rayleigh mass damping) inside a drop at
--    rest: the Laplace pressure sigma / R squeezes it to the area strain of linear elasticity,
--    -p / (lambda + mu) = -1.75e-2, plus the finite-strain term (eps/2)^2 = +7.7e-5 of the area
--    measured on the deformed mesh: -1.742e-2.  Measured -1.730e-2 (0.7% short) with the liquid's
--    pressure beside the disk at 1.0013 sigma / R; asserted within 3% and 1%, the solid at rest,
--    the liquid outside the disk kept (the volume correction weighs the cells by their open
--    fraction, renewed as the disk shrinks);
--  * argument checks.
local tide = require "tide"
local T = require "tide.testing"
local zarifi = require "tide.zarifi"
local drop = require "tide.drop"

local check = T.check
T.check = function(ok, msg) print(msg); return check(ok, msg) end

local R, sigma, rho = 0.01, 0.07, 1000

local function grid(cpd, dim)
  local dx = 2 * R / cpd
  local n = 2 * math.ceil(1.5 * R / dx)
  if dim == 3 then return tide.grid.new { size = { n, n, n }, dx = dx }, { n * dx / 2, n * dx / 2, n * dx / 2 }, n, dx end
  return tide.grid.new { size = { n, n }, dx = dx }, { n * dx / 2, n * dx / 2 }, n, dx
end

-- ------------------------------------------------------------- n = 2 oscillation
local function oscillation(transfer, dim, cpd, periods)
  local g, c, _, dx = grid(cpd, dim)
  local omega = math.sqrt((dim == 2 and 6 or 8) * sigma / (rho * R ^ 3))
  local phi0 = dim == 2 and drop.disk { grid = g, center = c, radius = R, eps = 0.05 }
    or drop.sphere { grid = g, center = c, radius = R, eps = 0.05 }
  local ps = tide.liquid.seed { grid = g, phi = phi0, jitter = 0, apic = transfer == "apic" }
  local m = dim == 2 and tide.solid.box { min = { dx, dx }, max = { 4 * dx, 3 * dx }, cells = { 3, 2 } }
    or tide.solid.box { min = { dx, dx, dx }, max = { 3 * dx, 3 * dx, 3 * dx }, cells = { 2, 2, 2 } }
  m:material { model = "corotational", E = 1e5, nu = 0.3, density = 1000, gravity = dim == 2 and { 0, 0 } or { 0, 0, 0 } }
  m:pin(function() return true end)
  local S = zarifi.new { grid = g, particles = ps, solids = { m }, gravity = dim == 2 and { 0, 0 } or { 0, 0, 0 }, rho = rho,
    transfer = transfer, tension = sigma, phi = phi0 }
  local dt = zarifi.max_dt(S)
  T.check(dt <= 0.5 * tide.liquid.capillary_dt(dx, sigma, rho) * (1 + 1e-12), "max_dt keeps the capillary limit")
  local steps = math.ceil(periods * 2 * math.pi / omega / dt)
  dt = periods * 2 * math.pi / omega / steps
  local D = { grid = g }
  local function mode() D.phi = S.liquid.phi; return (drop.quadrupole(D, c)) end
  local V0 = tide.grid.volume(g, S.liquid.phi)
  local q_prev, t_prev, zeros = mode(), 0, {}
  for s = 1, steps do
    zarifi.step(S, dt)
    local q, t = mode(), s * dt
    if (q_prev > 0) ~= (q > 0) then zeros[#zeros + 1] = t_prev + (t - t_prev) * q_prev / (q_prev - q) end
    q_prev, t_prev = q, t
  end
  local w = #zeros >= 3 and 2 * math.pi / (zeros[3] - zeros[1]) or 0
  local dv = tide.grid.volume(g, S.liquid.phi) / V0 - 1
  T.check(#zeros >= 3 and math.abs(w / omega - 1) < 0.03, string.format(
    "%dD %s, %d cells per diameter: n = 2 drop, omega %.4f vs Rayleigh %.4f rad/s (%+.2f%%, bound 3%%)", dim, transfer, cpd,
    w, omega, 100 * (w / omega - 1)))
  T.check(math.abs(dv) < 1e-3, string.format("%dD %s: volume change %.4f%% (bound 0.1%%)", dim, transfer, 100 * dv))
end
oscillation("apic", 2, 24, 1.6)
oscillation("flip", 2, 24, 1.6)
oscillation("apic", 3, 12, 1.35)

-- ------------------------------------------------------------- soft disk squeezed by the drop
do
  local g, c, n, dx = grid(24)
  local mu, lam, Rs = 200, 200, 0.5 * R
  local phi0 = g:cells()
  for i = 1, n do for j = 1, n do
    phi0:set(i, j, math.sqrt(((i - 0.5) * dx - c[1]) ^ 2 + ((j - 0.5) * dx - c[2]) ^ 2) - R)
  end end
  local m = tide.solid.bcc { shape = tide.shape.sphere { center = c, radius = Rs }, h = Rs / 5 }
  m:material { model = "linear", mu = mu, lambda = lam, density = rho, gravity = { 0, 0 }, rayleigh_mass = 60 }
  local sphi = tide.shape.mesh { vertices = m.x, faces = m:boundary() }:sdf(g)
  local pl = g:cells() -- the particles: the drop minus the disk (the tracked phi is the whole drop)
  for i = 1, n do for j = 1, n do pl:set(i, j, math.max(phi0:get(i, j), -sphi:get(i, j))) end end
  local ps = tide.liquid.seed { grid = g, phi = pl, jitter = 0, apic = true }
  local S = zarifi.new { grid = g, particles = ps, solids = { m }, gravity = { 0, 0 }, rho = rho, transfer = "apic",
    tension = sigma, phi = phi0 }
  local A0 = m:volume()
  local function liquid_volume() -- outside the disk: the tracked level set weighted by the open fractions
    return tide.grid.volume(g, S.liquid.phi, { weights = drop.open_weights(g, S.solid_phi) })
  end
  local VL0 = liquid_volume()
  local Tend = 0.4
  local steps = math.ceil(Tend / zarifi.max_dt(S))
  local dt = Tend / steps
  for _ = 1, steps do zarifi.step(S, dt) end
  local p = sigma / R
  local eps = -p / (lam + mu)
  local expect = eps + (eps / 2) ^ 2
  local strain = m:volume() / A0 - 1
  local pl_ = S.pressure:get(n // 2 + math.floor(0.75 * R / dx), n // 2)
  T.check(math.abs(strain / expect - 1) < 0.03, string.format(
    "soft disk in a drop: area strain %.4e vs linear elasticity %.4e under sigma/R (%+.2f%%, bound 3%%)",
    strain, expect, 100 * (strain / expect - 1)))
  T.check(math.abs(pl_ / p - 1) < 0.01, string.format("the liquid's pressure beside the disk %.4f Pa vs sigma/R %.4f (bound 1%%)", pl_, p))
  local dVL = liquid_volume() / VL0 - 1
  T.check(math.abs(dVL) < 1e-3, string.format("the liquid's volume outside the disk changed by %.4f%% (bound 0.1%%) while the disk shrank %.2f%%",
    100 * dVL, -100 * strain))
  local v = math.max(-m.v:min(), m.v:max())
  T.check(v < 1e-4, string.format("the disk at rest at t = %.1f s: max |v| %.3g m/s", Tend, v))
end

-- ------------------------------------------------------------- arguments
do
  local g = tide.grid.new { size = { 8, 8 }, dx = 0.1 }
  local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 0.4, 0.4 } } }
  local m = tide.solid.box { min = { 0.5, 0.5 }, max = { 0.7, 0.7 }, cells = { 1, 1 } }
  m:material { model = "linear", mu = 1e4, lambda = 1e4 }
  local function bad(o, what, pattern)
    o.grid, o.particles, o.solids = g, ps, { m }
    local ok, err = pcall(zarifi.new, o)
    T.check(not ok and tostring(err):find(pattern, 1, true) ~= nil, what .. ": " .. tostring(err))
  end
  bad({ tension = -1 }, "negative tension", "tension must be")
  bad({ tension = 0 / 0 }, "NaN tension", "tension must be")
  bad({ tension_options = {} }, "tension_options without tension", "need tension > 0")
  bad({ tension = 1, level_set = "union" }, "tension with the particle level set", "excludes it")
  bad({ tension = 1, tension_options = 3 }, "tension_options not a table", "must be a table")
  bad({ tension = 1, tension_options = { method = "csf" } }, "unknown method", "surface_tension.method")
end

os.exit(T.report())
