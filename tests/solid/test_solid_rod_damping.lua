-- The thin parts' Rayleigh damping (thin.h: damping forces beta H(xn) v,
-- entering the incremental potential, which carries dt^2 E, as
-- (beta dt / 2) dx^T H(xn) dx).  Until this test the term was
-- (beta / (2 dt)) dx^T H dx, dt^-2 too strong: a rod with beta = 0.01 s
-- at dt = 1/240 was damped as by 576 s, its cantilever tip sinking at
-- 1.3 cm/s instead of falling (rod_cylinder's rod ends stayed straight).
-- 1. A 0.5 m cantilever (E = 1e7 Pa, radius 2 mm) released horizontally
--    under gravity: with beta = 0.01 s its tip falls within 10% of the
--    undamped tip over the first 0.2 s.
-- 2. Axial vibration of one segment (EA = 1e4 N, L = 0.1 m, free node mass
--    0.025 kg: k = 1e5 N/m, omega = 2000 rad/s), stretched 1% and released
--    without gravity: with beta = 1e-4 s its peaks decay, relative to the
--    undamped run (backward Euler's own decay taken out), at
--    beta k / (2 m) = 200 /s within 3%.
local T = require "tide.testing"
local S = require("tide").solid

local function cantilever(beta)
  local L, n, dt = 0.5, 20, 1 / 240
  local r = S.rod { from = { 0, 0, 0 }, to = { L, 0, 0 }, segments = n }
  r:rod { E = 1e7, radius = 2e-3, density = 1100, damping = beta }
  r:pin(function(x) return x < 0.03 end) -- the first two nodes: clamped
  local ys = {}
  for k = 1, 48 do
    local st = r:step_newton { dt = dt, maxit = 100 }
    T.check(st.converged, "cantilever step converged")
    ys[k] = r.x:get(r.nv, 2)
  end
  return ys
end
local y0, y1 = cantilever(0), cantilever(0.01)
local worst = 0
for k = 12, 48 do worst = math.max(worst, math.abs(y1[k] - y0[k]) / math.abs(y0[k])) end
print(string.format("cantilever tip at 0.2 s: undamped %.4f m, damped %.4f m; worst relative difference (t >= 0.05 s) %.3f",
  y0[48], y1[48], worst))
T.check(y0[48] < -0.1, "the undamped tip falls (" .. y0[48] .. " m)")
T.check(worst < 0.1, "damped tip within 10% of the undamped tip (" .. worst .. ")")

local function axial(beta)
  local L, dt = 0.1, 1e-5
  local r = S.rod { from = { 0, 0, 0 }, to = { L, 0, 0 }, segments = 1 }
  r:rod { EA = 1e4, EI = 1e-4, line_density = 0.5, damping = beta, gravity = { 0, 0, 0 } }
  r:pin(function(x) return x < L / 2 end)
  r.x:set(2, 1, L * 1.01)
  local peaks, prev, pprev = {}, nil, nil
  for k = 1, 1000 do
    local st = r:step_newton { dt = dt, maxit = 50 }
    T.check(st.converged, "axial step converged")
    local u = r.x:get(2, 1) - L
    if prev and pprev and prev > u and prev > pprev then peaks[#peaks + 1] = { (k - 1) * dt, prev } end
    pprev, prev = prev, u
  end
  return peaks
end
local a, b = axial(0), axial(1e-4)
T.check(#a >= 3 and #b >= 3, "three axial periods")
for i = 1, 3 do
  local rate = math.log(a[i][2] / b[i][2]) / b[i][1]
  print(string.format("axial peak %d at %.5f s: undamped %.3e, damped %.3e, extra decay rate %.1f /s (200)", i, b[i][1],
    a[i][2], b[i][2], rate))
  T.check(math.abs(rate - 200) < 6, "axial decay rate " .. rate .. " /s vs beta k / (2 m) = 200 /s")
end
os.exit(T.report())
