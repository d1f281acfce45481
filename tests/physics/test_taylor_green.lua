-- 2D Taylor-Green vortex on the periodic box [0, 2 pi]^2 (k = 1, U = 1):
--   u = sin x cos y e^{-2 nu t},  v = -cos x sin y e^{-2 nu t},
-- so the kinetic energy decays as e^{-4 nu k^2 t}.  Particle (APIC / PIC)
-- velocity transport with the periodic transfers, implicit viscosity and the
-- periodic projection.  Asserts (docs/liquids-physics.md, validation):
--   * viscous (nu = 0.125, Re = U / (k nu) = 8): the fitted decay rate is
--     within 2% of 4 nu k^2 on 64^2 and the error shrinks from 32^2 to 64^2;
--   * inviscid: APIC keeps >= 95% of the kinetic energy at t = 2 on 64^2,
--     PIC loses much more (at least 5x APIC's loss);
--   * inviscid, grid only (velocity self-advected by P:advect): MacCormack
--     and BFECC keep >= 97% at t = 2 on 64^2, plain semi-Lagrangian loses
--     at least 5x more.
local tide = require "tide"
local T = require "tide.testing"

local tg = require "tide.cases.taylor_green" -- the set-up, shared with figures/taylor_green_decay.lua

-- one run; returns KE(t_end)/KE(0) and the least-squares rate of -ln KE(t)
local function run(n, scheme, nu, opts)
  opts = opts or {}
  local r = tg.run { n = n, scheme = scheme, nu = nu, variational = opts.variational, t_end = opts.t_end, cfl = opts.cfl }
  T.check(r.div_max < 1e-6, "divergence after projection " .. r.div_max)
  return r.ke, r.rate
end

-- viscous decay rate
local nu = 0.125
local rate_exact = 4 * nu
local err = {}
for _, n in ipairs { 32, 64 } do
  local _, rate = run(n, "apic", nu)
  err[n] = math.abs(rate - rate_exact) / rate_exact
  print(string.format("Taylor-Green nu = %g, %d^2, APIC + diffuse: rate %.5f vs 4 nu k^2 = %.5f, error %.2f%%", nu, n,
    rate, rate_exact, 100 * err[n]))
end
T.check(err[64] < 0.02, string.format("decay rate error on 64^2 %.3f%% < 2%%", 100 * err[64]))
T.check(err[64] < err[32], "decay rate error shrinks from 32^2 to 64^2")

-- the variational solve gives the same decay (div-free field, uniform mu)
do
  local _, rate = run(32, "apic", nu, { variational = true })
  local _, rate_d = run(32, "apic", nu)
  print(string.format("Taylor-Green nu = %g, 32^2, variational viscosity: rate %.5f (per-component %.5f)", nu, rate, rate_d))
  T.check(math.abs(rate - rate_d) < 0.002 * rate_exact, "variational and per-component viscosity agree on Taylor-Green")
end

-- inviscid: APIC keeps the energy, PIC dissipates it
local ke_apic = run(64, "apic", 0)
local ke_pic = run(64, "pic", 0)
print(string.format("Taylor-Green inviscid 64^2, t = 2: KE kept APIC %.2f%%, PIC %.2f%%", 100 * ke_apic, 100 * ke_pic))
T.check(ke_apic >= 0.95, "APIC keeps >= 95% of the kinetic energy")
T.check(1 - ke_pic > 5 * (1 - ke_apic), "PIC loses much more energy than APIC")

-- inviscid, grid only: u <- A(u; u, dt) on the torus, then the projection
local run_grid = tg.run_grid
local ke = {}
for _, s in ipairs { "sl", "maccormack", "bfecc" } do
  ke[s] = run_grid(64, { scheme = s })
  print(string.format("Taylor-Green inviscid 64^2, grid only, %s: KE kept %.2f%%", s, 100 * ke[s]))
end
T.check(ke.maccormack >= 0.97, "grid-only MacCormack keeps >= 97% of the kinetic energy")
T.check(ke.bfecc >= 0.97, "grid-only BFECC keeps >= 97% of the kinetic energy")
T.check(1 - ke.sl > 5 * (1 - ke.maccormack), "semi-Lagrangian loses much more than MacCormack")
T.raises(function() tide.liquid.periodic { grid = tide.grid.new { size = { 4, 4 } } }:advect(nil, nil, 1) end, "",
  "Periodic:advect checks its arguments")

os.exit(T.report())
