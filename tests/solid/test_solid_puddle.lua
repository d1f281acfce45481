-- Irving's torus puddle (thesis Fig. 2.2) at a coarse size: a torus without
-- strength collapses on a frictional ground into a completely flat puddle
-- (every element flat or inverted); with its strength switched on it must
-- stand back up: >= 95% of the rest volume and no inverted element.
-- Backward Euler by Newton (incremental potential) with the ground as a
-- constraint of the minimization, rotated linear model (Irving 2.6).
-- Before the contacts were part of the minimization (collisions projected
-- after each Newton solve) this stayed at 78% with 28 inverted elements.
local tide = require "tide"
local T = require "tide.testing"
local S = tide.solid

local torus = S.shape.torus { center = { 0, 0.15, 0 }, axis = { 0, 1, 0 }, R = 0.2, r = 0.08 }
local m = S.bcc { shape = torus, h = 0.08 }
local function strength(E)
  m:material { model = "rotated_linear", E = E, nu = 0.3, density = 1000, damping_beta = 0.02 * E + 1 }
end
local ground = S.collider { shape = S.shape.plane { point = { 0, 0, 0 }, normal = { 0, 1, 0 } }, mu = 0.5 }
local dt = 1 / 60

local function measure()
  local v, inv = m:volumes(), 0
  for e = 1, m.ne do if v[e] <= 0 then inv = inv + 1 end end
  local ylo, yhi = math.huge, -math.huge
  for i = 1, m.nv do
    local y = m.x:get(i, 2)
    ylo, yhi = math.min(ylo, y), math.max(yhi, y)
  end
  return m:volume() / m.rest_volume:sum(), inv, ylo, yhi
end

local lowest = 0
local function run(steps)
  for _ = 1, steps do
    m:step_newton { dt = dt, colliders = { ground }, maxit = 30, tol = 1e-4 }
    local _, _, ylo = measure()
    lowest = math.min(lowest, ylo)
  end
end

strength(1) -- no strength: it collapses
run(40)
local V1, inv1, _, top1 = measure()
print(string.format("%d elements; puddle: volume %.2e of rest, %d flat or inverted, top at %.1e m", m.ne, V1, inv1, top1))
T.check(math.abs(V1) < 1e-3 and inv1 == m.ne, "collapsed into a flat puddle (every element flat or inverted)")

strength(2e4) -- strength on: it recovers
run(60)
local V2, inv2, _, top2 = measure()
print(string.format("recovered: volume %.4f of rest, %d inverted, height %.3f m (rest 0.160 m), lowest node %.1e m",
  V2, inv2, top2, lowest))
T.check(V2 >= 0.95, string.format("recovers >= 95%% of the rest volume (%.4f)", V2))
T.check(inv2 == 0, string.format("no inverted element left (%d)", inv2))
-- standing on the ground at its rest height, up to the sag under its weight
T.check(top2 >= 0.9 * 0.16, string.format("stands back up (height %.3f m)", top2))
T.check(lowest >= -1e-9, "no node ever below the ground")
T.check(m.x:nonfinite() == 0 and m.v:nonfinite() == 0, "no NaN")

os.exit(T.report())
