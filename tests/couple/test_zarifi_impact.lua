-- Horizontal momentum of a water-filled ring through its impact on the floor (issue 14 [zarifi]):
-- the ring of scenes/zarifi_hollow_sphere.lua --uneven (R = 0.2, r = 0.14 m, 500 kg/m^3,
-- E = 1e6 Pa; 2D 32^2) with its water at rest in the right part of the cavity, dropped from
-- 0.5 m, 0.35 s (it meets the floor at ~0.25 s).  The floor's impulse (the walls' barrier inside
-- the projection, its explicit fallback) acts along the floor's normal, there is no mass damping:
-- water + ring must keep P_x = 0.  Counted with zarifi.momentum (the particles' momentum as line
-- 2 will leave it: a projection's impulse is on the ring at once, on the particles a step later).
-- Measured (scripts/zarifi_momentum_budget.lua splits it): the FLIP transfer gave the particles
-- the projection's change by their kernel mass, not the projection's rho A_f dx^d: 8.2 N s lost
-- with cell sampling and exact unclamped fractions (the projection itself conserves to 5e-10),
-- 11.9 N s with the recipe's defaults; with zarifi.new{ mass_consistent = true } 2e-4 N s and
-- 1.3 N s (the linear sampling's own imbalance), against ~125 N s of vertical momentum.  Under the
-- ghost-fluid surface (level_set = "zhu_bridson") the liquid-air faces' mass is rho theta_f A_f dx^d:
-- with it 3.4e-4 N s, with rho A_f dx^d there 7.1 N s (the budget's mesh: 1.6e-3 and 7.05).
-- mass_consistent, mass_reference and mass_cap = 1 are the recipe's defaults (the response to
-- gravity by the kernel mass, the solids' stiffness in it): 3.0e-4 / 5.5e-4 / 1.3 N s.
local tide = require "tide"
local T = require "tide.testing"
local zarifi = require "tide.zarifi"

local check = T.check
T.check = function(ok, msg) print(msg); return check(ok, msg) end

local n, R, r = 32, 0.2, 0.14
local function drop(opts, T_END)
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local dx = g.dx
  local c = { 0.4, 0.5 }
  local m = tide.solid.bcc { shape = tide.shape.difference(tide.shape.sphere { center = c, radius = R },
    tide.shape.sphere { center = c, radius = r }), h = (R - r) / 3 }
  m:material { model = "corotational", E = 1e6, nu = 0.3, density = 500, rayleigh_stiffness = 0.002 }
  local phi = tide.shape.intersection(tide.shape.sphere { center = c, radius = r - 0.25 * dx },
    tide.shape.box { min = { c[1] + 0.2 * r, 0 }, max = { 1, 1 } }):sdf(g)
  local ps = tide.liquid.seed { grid = g, phi = phi }
  local o = { grid = g, particles = ps, solids = { m }, solid_faces = true }
  for k, v in pairs(opts) do o[k] = v end
  local S = zarifi.new(o)
  local P0 = zarifi.momentum(S)[1]
  local t, worst, ymin, py = 0, 0, math.huge, 0
  while t < T_END - 1e-12 do
    local dt = math.min(zarifi.max_dt(S), T_END - t)
    zarifi.step(S, dt)
    t = t + dt
    local P = zarifi.momentum(S)
    worst, py = math.max(worst, math.abs(P[1] - P0)), math.max(py, math.abs(P[2]))
    ymin = math.min(ymin, m.x:select(2, 2):min())
  end
  return worst, ymin, py
end

local cases = {
  { { sampling = "cell", fractions = "exact", clamp = 0, mass_consistent = true }, "<", 0.01,
    "cell sampling, exact unclamped fractions, mass-consistent FLIP increment" },
  { { sampling = "cell", fractions = "exact", clamp = 0, mass_consistent = false }, ">", 2,
    "  the same with the particles' kernel mass (mass_consistent = false)" },
  { { sampling = "cell", fractions = "exact", clamp = 0, mass_consistent = true, level_set = "zhu_bridson" }, "<", 0.01,
    "the same under the ghost-fluid surface (its liquid-air faces' mass rho theta_f A_f dx^d)" },
  { { mass_consistent = true }, "<", 3, "the recipe's other defaults (linear sampling, node fractions, clamp 0.15), mass-consistent" },
  { { mass_consistent = false }, ">", 5, "  the same with the particles' kernel mass (mass_consistent = false)" },
}
for _, cs in ipairs(cases) do
  local worst, ymin, py = drop(cs[1], 0.35)
  local ok = cs[2] == "<" and worst < cs[3] or cs[2] == ">" and worst > cs[3]
  T.check(ok and ymin < 0.02 and py > 50, string.format(
    "water-filled ring onto the floor, %s: worst |P_x - P_x(0)| %.2e N s (%s %g; |P_y| up to %.0f N s, lowest node %.4f m)",
    cs[4], worst, cs[2], cs[3], py, ymin))
end

os.exit(T.report())
