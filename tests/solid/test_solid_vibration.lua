-- Undamped elastic vibration of a bar clamped at one end (first axial mode,
-- period 4 L / c): Irving's Newmark scheme keeps the total energy within 1%
-- over 10 periods; backward Euler (incremental potential, Newton) loses it
-- monotonically.
local tide = require "tide"
local T = require "tide.testing"
local S = tide.solid

local L, E, rho = 0.4, 1e6, 1000
local period = 4 * L / math.sqrt(E / rho)
local dt = period / 100

local function bar()
  local m = S.box { min = { 0, 0, 0 }, max = { L, 0.05, 0.05 }, cells = { 8, 1, 1 } }
  m:material { model = "neohookean", E = E, nu = 0.3, density = rho, gravity = { 0, 0, 0 } }
  m:pin(function(x) return x < 1e-9 end)
  local v, r = m.v, m.rest
  for i = 1, m.nv do v:set(i, 1, r:get(i, 1) / L) end -- 1 m/s at the free end
  return m
end

local function run(method)
  local m = bar()
  local E0 = m:total_energy()
  local prev, worst, monotone = E0, 0, true
  for _ = 1, 1000 do -- 10 periods
    if method == "newmark" then m:step_newmark { dt = dt } else m:step_newton { dt = dt } end
    local En = m:total_energy()
    worst = math.max(worst, math.abs(En / E0 - 1))
    if En > prev * (1 + 1e-12) then monotone = false end
    prev = En
  end
  return worst, prev / E0, monotone, m
end

local worst, final = run("newmark")
print(string.format("Newmark: max |E/E0 - 1| over 10 periods %.2e, final E/E0 %.5f", worst, final))
T.check(worst <= 0.01, "Newmark keeps the energy within 1% over 10 periods")
local _, finalbe, monotone, m = run("newton")
print(string.format("backward Euler: final E/E0 %.4f, monotone %s", finalbe, tostring(monotone)))
T.check(monotone, "backward Euler loses energy monotonically")
T.check(finalbe < 0.5, "backward Euler loses a good part of it over 10 periods")
T.check(m.x:nonfinite() == 0, "finite")

os.exit(T.report())
