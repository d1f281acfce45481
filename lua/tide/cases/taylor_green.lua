--- The 2D Taylor-Green vortex on the periodic box [0, 2 pi]^2 (k = 1, U = 1):
--   u = sin x cos y e^{-2 nu t},  v = -cos x sin y e^{-2 nu t},
-- so the kinetic energy decays as e^{-4 nu k^2 t}.  Shared by the test
-- (tests/physics/test_taylor_green.lua) and the figure
-- (figures/taylor_green_decay.lua).
--
--   local tg = require "tide.cases.taylor_green"
--   local r = tg.run { n = 64, scheme = "apic", nu = 0.125 }
--   -- r.ke: KE(t_end) / KE(0); r.rate: least-squares rate of -ln KE(t);
--   -- r.div_max: largest divergence after a projection; r.t, r.e: KE(t)/KE(0)
--   local ke = tg.run_grid(64, { scheme = "maccormack" })   -- grid-only advection
--
-- run: particle (APIC / PIC) velocity transport with the periodic transfers,
-- implicit viscosity (per-component `diffuse`, or the variational
-- `viscosity` with variational = true) and the periodic projection; 4
-- particles per cell (stream 7), CFL 0.25, t_end = 2 unless given.
local tide = require "tide"

local M = {}
local TWO_PI = 2 * math.pi
local PER = { true, true }

--- Grid, projected-free initial MAC velocity and cell size for n^2 cells.
function M.init(n)
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

--- One particle run (see the top).
function M.run(o)
  local n, scheme, nu = o.n, o.scheme, o.nu or 0
  local g, u, dx = M.init(n)
  local P = tide.liquid.periodic { grid = g }
  local VS = tide.liquid.viscosity_solver()
  local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { TWO_PI, TWO_PI } }, per_cell = 4,
    apic = scheme == "apic", stream = 7 }
  P:project(u, { dt = 1, rho = 1, tol = 1e-12 })
  P:g2p(u, ps, { scheme = scheme })
  local e0 = tide.liquid.kinetic_energy(u, { periodic = PER })
  local t_end = o.t_end or 2
  local nsteps = math.ceil(t_end / ((o.cfl or 0.25) * dx))
  local dt = t_end / nsteps
  local sx, sy, sxx, sxy, e = 0, 0, 0, 0, e0
  local r = { t = {}, e = {}, div_max = 0, steps = nsteps }
  for s = 1, nsteps do
    P:p2g(ps, u, { scheme = scheme })
    if nu > 0 then
      if o.variational then
        tide.liquid.viscosity(u, { nu = nu, rho = 1, dt = dt, periodic = PER, tol = 1e-10, solver = VS })
      else
        tide.liquid.diffuse(u, { nu = nu, dt = dt, periodic = PER, tol = 1e-10, solver = VS })
      end
    end
    local _, st = P:project(u, { dt = dt, rho = 1, tol = 1e-10 })
    r.div_max = math.max(r.div_max, st.div_after)
    P:g2p(u, ps, { scheme = scheme })
    P:advect_particles(ps, u, dt)
    e = tide.liquid.kinetic_energy(u, { periodic = PER })
    local t, l = s * dt, math.log(e / e0)
    sx, sy, sxx, sxy = sx + t, sy + l, sxx + t * t, sxy + t * l
    r.t[s], r.e[s] = t, e / e0
    if o.progress then o.progress(s, nsteps) end
  end
  r.ke = e / e0
  r.rate = -(nsteps * sxy - sx * sy) / (nsteps * sxx - sx * sx)
  return r
end

--- Inviscid, grid only: u <- A(u; u, dt) on the torus, then the projection;
-- returns KE(2) / KE(0).
function M.run_grid(n, adv)
  local g, u, dx = M.init(n)
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

return M
