--- Inviscid drop oscillation, the n = 2 mode, with the tide.drop recipe
-- (level set with volume correction, surface tension, projection, air
-- density 0), R = 1 cm, sigma = 0.07 N/m, rho = 1000 kg/m^3, box 1.5
-- diameters (rounded up to an even cell count).  Linear theory (Rayleigh
-- 1879; Lamb Sec. 275): 2D (a liquid column) omega^2 = n (n^2 - 1) sigma /
-- (rho R^3) = 6 sigma / (rho R^3); 3D omega^2 = n (n - 1) (n + 2) sigma /
-- (rho R^3) = 8 sigma / (rho R^3).  The frequency is measured between the
-- zero crossings 1 and 3 of the mode's moment (a full period, unbiased by an
-- offset).  Shared by tests/physics/test_drop.lua, tests/physics/test_drop3d.lua
-- and figures/drop_frequency.lua.
--
--   local D = require "tide.cases.drop_oscillation"
--   local r = D.run { dim = 2, cpd = 32, periods = 1.6, tension = "ghost", angle = 0 }
--   -- r.omega (measured, nil without three crossings), r.exact, r.err (omega / exact - 1),
--   -- r.drift (max |V/V0 - 1|), r.steps, r.n (cells per side), r.q0, r.qmax (largest |moment|
--   -- after the first crossing), r.div_abs (max div after), r.div_rel (max div after / before),
--   -- r.t, r.q (the moment after each step), r.S (the drop state), r.center
local tide = require "tide"
local drop = require "tide.drop"

local M = { R = 0.01, eps = 0.05, sigma = 0.07, rho = 1000 }

function M.omega(dim)
  return math.sqrt((dim == 3 and 8 or 6) * M.sigma / (M.rho * M.R ^ 3))
end

function M.run(o)
  local dim, R = o.dim or 2, M.R
  local eps = o.eps or M.eps
  local omega = M.omega(dim)
  local period = 2 * math.pi / omega
  local dx = 2 * R / o.cpd
  local n = 2 * math.ceil(1.5 * R / dx)
  local L = n * dx
  local g, c, phi, mode
  local angle = o.angle or 0
  if dim == 2 then
    g = tide.grid.new { size = { n, n }, dx = dx }
    c = { L / 2, L / 2 }
    phi = drop.disk { grid = g, center = c, radius = R, eps = eps, angle = angle }
  else
    g = tide.grid.new { size = { n, n, n }, dx = dx }
    c = { L / 2, L / 2, L / 2 }
    phi = drop.sphere { grid = g, center = c, radius = R, eps = eps }
  end
  -- height-function curvature (with the linear extension for the jump) unless
  -- o.curvature says otherwise: orientation-independent frequencies (-0.44% /
  -- -0.33%); tide.drop's default cell curvature gives -0.14% / +0.67% (docs)
  local S = drop.new { grid = g, phi = phi, rho = M.rho, sigma = M.sigma, tension = o.tension,
    curvature = o.curvature or "heights" }
  local V0 = drop.volume(S)
  if dim == 2 then
    local ca, sa = math.cos(2 * angle), math.sin(2 * angle)
    mode = function()
      local q1, q2 = drop.quadrupole(S, c)
      return ca * q1 + sa * q2
    end
  else
    mode = function() return drop.quadrupole(S, c) end
  end
  local dt = drop.max_dt(S)
  local steps = math.ceil(o.periods * period / dt)
  dt = o.periods * period / steps
  local q0 = mode()
  local r = { exact = omega, steps = steps, n = n, q0 = q0, qmax = 0, drift = 0, div_abs = 0, div_rel = 0,
    t = {}, q = {}, S = S, center = c, zeros = {} }
  local q_prev, t_prev = q0, 0
  for s = 1, steps do
    local st = drop.step(S, dt)
    r.div_abs = math.max(r.div_abs, st.div_after)
    r.div_rel = math.max(r.div_rel, st.div_before > 0 and st.div_after / st.div_before or 0)
    local q, t = mode(), s * dt
    if (q_prev > 0) ~= (q > 0) then r.zeros[#r.zeros + 1] = t_prev + (t - t_prev) * q_prev / (q_prev - q) end
    if #r.zeros >= 1 then r.qmax = math.max(r.qmax, math.abs(q)) end
    q_prev, t_prev = q, t
    r.t[s], r.q[s] = t, q
    r.drift = math.max(r.drift, math.abs(drop.volume(S) / V0 - 1))
    if o.progress then o.progress(s, steps) end
  end
  if #r.zeros >= 3 then
    r.omega = 2 * math.pi / (r.zeros[3] - r.zeros[1])
    r.err = r.omega / omega - 1
  end
  return r
end

return M
