-- MPM validation: the axial vibration of a free elastic bar (2D, nu = 0 so
-- the bar is in uniaxial stress, sigma = E eps for the fixed-corotated
-- model with lambda = 0, mu = E/2).  Its first free-free mode has
-- omega = pi c / L, c = sqrt(E / rho) (Timoshenko, Vibration Problems in
-- Engineering, Sec. 45).  Started with the mode's velocity
-- v_x = V cos(pi (x - x0) / L); the mean x-velocity of the left half,
-- proportional to cos(omega t), crosses zero at t = T/4 and 3T/4.
-- Also: the run with 1 and 2 threads is bit-identical, and the tide.MPM API.
local tide = require "tide"
local T = require "tide.testing"
local mpm = require "tide.mls_mpm"

local function bar(order)
  local n = 64 + 16
  local dx = 1 / 128
  local g = tide.grid.new { size = { n, 24 }, dx = dx }
  local M = tide.mpm.new { grid = g, order = order, gravity = { 0, 0 }, walls = "separate" }
  local E, rho = 1e4, 1000
  local j = M:material { model = "fixed_corotated", E = E, nu = 0, density = rho }
  local x0, L, h = 8 * dx, 64 * dx, 8 * dx
  M:seed { shape = tide.shape.box { min = { x0, 8 * dx }, max = { x0 + L, 8 * dx + h } }, material = j, per_cell = 4, jitter = 0 }
  local c = math.sqrt(E / rho)
  local V = 0.01 * c
  local x, v = M.x, M.v
  for p = 1, M.n do v[p][1] = V * math.cos(math.pi * (x[p][1] - x0) / L) end
  return M, L, c, x0
end

local function left_velocity(M, x0, L)
  local x, v, m = M.x, M.v, M.mass
  local s, w = 0, 0
  for p = 1, M.n do
    if x[p][1] < x0 + L / 2 then
      s = s + m[p] * v[p][1]
      w = w + m[p]
    end
  end
  return s / w
end

local function period(order)
  local M, L, c, x0 = bar(order)
  local T0 = 2 * L / c
  local dt = 0.2 * M.dx / c
  local t, prev, crossings = 0, left_velocity(M, x0, L), {}
  while t < 0.9 * T0 do
    mpm.step(M, dt)
    t = t + dt
    local now = left_velocity(M, x0, L)
    if prev > 0 and now <= 0 or prev < 0 and now >= 0 then
      crossings[#crossings + 1] = t - dt * now / (now - prev)
    end
    prev = now
  end
  T.check(#crossings >= 2, "two zero crossings of the left half's velocity")
  return 2 * (crossings[2] - crossings[1]), T0, M
end

for _, order in ipairs { 2, 3 } do
  local Tm, T0 = period(order)
  local err = Tm / T0 - 1
  print(string.format("order %d: period %.5f s, analytic 2L/c = %.5f s, error %+.2f%%", order, Tm, T0, 100 * err))
  T.check(math.abs(err) < 0.03, string.format("bar period within 3%% of 2L/c (order %d): %+.2f%%", order, 100 * err))
end

-- determinism: 1 and 2 threads give the same bits
local function run(threads)
  tide.threads(threads)
  local M = bar(2)
  for _ = 1, 20 do mpm.step(M, 1e-4) end
  local x = M.x
  local s = {}
  for p = 1, M.n, 7 do s[#s + 1] = string.format("%a,%a", x[p][1], x[p][2]) end
  return table.concat(s, ";")
end
T.check(run(1) == run(2), "1 and 2 threads give bit-identical particles")
tide.threads(2)

-- API: errors name the problem
local g = tide.grid.new { size = { 16, 16 }, dx = 1 / 16 }
local M = tide.mpm.new { grid = g }
T.raises(function() M:seed { shape = tide.shape.box { min = { 0.2, 0.2 }, max = { 0.5, 0.5 } } } end, "define a material first")
local j = M:material { E = 1e4 }
T.raises(function() M:seed { shape = tide.shape.box { min = { 2, 2 }, max = { 3, 3 } }, material = j } end, "holds no particle")
T.raises(function() M:material { plastic = "fluid", E = 1 } end, "kappa")
T.raises(function() M:material { model = "nonsense", E = 1 } end, "unknown model")
T.raises(function() M.x = 1 end, "cannot be assigned")
T.raises(function() tide.mpm.new { grid = g, walls = { ["q+"] = "slip" } } end, "unknown side")
local fl = M:material { plastic = "fluid", kappa = 1e4 }
T.check(fl == 2, "material indices are 1-based")
local n = M:seed { shape = tide.shape.box { min = { 0.3, 0.3 }, max = { 0.6, 0.6 } }, material = fl }
T.check(n == M.n and n > 0, "seed returns the count")
T.check(tostring(M):find("tide.MPM%(2D") ~= nil, "tostring")
local d = M:diagnostics()
T.near(d.mass, 1000 * 0.3 * 0.3, 0.1 * 1000 * 0.09, "mass of the seeded block")
T.check(M:max_dt() > 0 and M:max_dt() < 1, "max_dt")
T.report()
