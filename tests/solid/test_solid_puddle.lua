-- Irving's torus puddle (thesis Fig. 2.2) at a coarse size: a torus without
-- strength collapses on a frictional ground into a completely flat puddle
-- (every element flat or inverted); with its strength switched on it must
-- stand back up: >= 95% of the rest volume and no inverted element.
-- Backward Euler by Newton (incremental potential) with the ground as a
-- constraint of the minimization, rotated linear model (Irving 2.6).
-- Before the contacts were part of the minimization (collisions projected
-- after each Newton solve) this stayed at 78% with 28 inverted elements.
local T = require "tide.testing"
local puddle = require "tide.cases.torus_puddle" -- the set-up, shared with figures/irving_puddle.lua

local r = puddle.run { h = 0.08, collapse = 40, recover = 60 }
local m = r.mesh
local V1, inv1, top1 = r.collapsed.volume, r.collapsed.inverted, r.collapsed.top
print(string.format("%d elements; puddle: volume %.2e of rest, %d flat or inverted, top at %.1e m", m.ne, V1, inv1, top1))
T.check(math.abs(V1) < 1e-3 and inv1 == m.ne, "collapsed into a flat puddle (every element flat or inverted)")

local V2, inv2, _, top2 = puddle.measure(m)
local lowest = r.lowest
print(string.format("recovered: volume %.4f of rest, %d inverted, height %.3f m (rest 0.160 m), lowest node %.1e m",
  V2, inv2, top2, lowest))
T.check(V2 >= 0.95, string.format("recovers >= 95%% of the rest volume (%.4f)", V2))
T.check(inv2 == 0, string.format("no inverted element left (%d)", inv2))
-- standing on the ground at its rest height, up to the sag under its weight
T.check(top2 >= 0.9 * 0.16, string.format("stands back up (height %.3f m)", top2))
T.check(lowest >= -1e-9, "no node ever below the ground")
T.check(m.x:nonfinite() == 0 and m.v:nonfinite() == 0, "no NaN")

os.exit(T.report())
