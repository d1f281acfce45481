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

local TWO_PI = 2 * math.pi
local PER = { true, true }

-- one run; returns KE(t_end)/KE(0) and the least-squares rate of -ln KE(t)
local function init(n)
  local dx = TWO_PI / n
  local g = tide.grid.new { size = { n, n }, dx = dx }
  local u = g:mac()
  local ua, va = u.u, u.v
  for i = 1, n + 1 do
    for j = 1, n do ua:set(i, j, math.sin((i - 1) * dx) * math.cos((j - 0.5) * dx)) end
  end
  for i = 1, n do
    for j = 1, n + 1 do va:set(i, j, -math.cos((i - 0.5) * dx) * math.sin((j - 1) * dx)) end
  end
  return g, u, dx
end

local function run(n, scheme, nu, opts)
  opts = opts or {}
  local g, u, dx = init(n)
  local P = tide.liquid.periodic { grid = g }
  local VS = tide.liquid.viscosity_solver()
  local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { TWO_PI, TWO_PI } }, per_cell = 4,
    apic = scheme == "apic", stream = 7 }
  P:project(u, { dt = 1, rho = 1, tol = 1e-12 })
  P:g2p(u, ps, { scheme = scheme })
  local e0 = tide.liquid.kinetic_energy(u, { periodic = PER })
  local t_end = opts.t_end or 2
  local nsteps = math.ceil(t_end / ((opts.cfl or 0.25) * dx))
  local dt = t_end / nsteps
  local sx, sy, sxx, sxy, e = 0, 0, 0, 0, e0
  for s = 1, nsteps do
    P:p2g(ps, u, { scheme = scheme })
    if nu > 0 then
      if opts.variational then
        tide.liquid.viscosity(u, { nu = nu, rho = 1, dt = dt, periodic = PER, tol = 1e-10, solver = VS })
      else
        tide.liquid.diffuse(u, { nu = nu, dt = dt, periodic = PER, tol = 1e-10, solver = VS })
      end
    end
    local _, st = P:project(u, { dt = dt, rho = 1, tol = 1e-10 })
    T.check(st.div_after < 1e-6, "divergence after projection " .. st.div_after)
    P:g2p(u, ps, { scheme = scheme })
    P:advect_particles(ps, u, dt)
    e = tide.liquid.kinetic_energy(u, { periodic = PER })
    local t, l = s * dt, math.log(e / e0)
    sx, sy, sxx, sxy = sx + t, sy + l, sxx + t * t, sxy + t * l
  end
  local slope = (nsteps * sxy - sx * sy) / (nsteps * sxx - sx * sx)
  return e / e0, -slope
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
local function run_grid(n, adv)
  local g, u, dx = init(n)
  local P = tide.liquid.periodic { grid = g }
  P:project(u, { dt = 1, rho = 1, tol = 1e-12 })
  local e0 = tide.liquid.kinetic_energy(u, { periodic = PER })
  local nsteps = math.ceil(2 / (0.25 * dx))
  local dt = 2 / nsteps
  local w = g:mac()
  for _ = 1, nsteps do
    adv.out = w
    P:advect(u, u, dt, adv)
    u, w = w, u
    P:project(u, { dt = dt, rho = 1, tol = 1e-10 })
  end
  return tide.liquid.kinetic_energy(u, { periodic = PER }) / e0
end
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
