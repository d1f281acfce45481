-- tide.solids recipes of the thin-solid scenes: solids.contact (the
-- stepper's contact options) and the stepper's `after` hook.
local T = require "tide.testing"
local tide = require "tide"
local solids = require "tide.solids"
local S = tide.solid

-- the options
local o = solids.contact({ tol = 1e-4 }, "barrier", 2e-3, 0.3)
T.check(o.contact == "barrier" and o.dhat == 2e-3 and o.mu == 0.3 and o.tol == 1e-4, "barrier: contact, dhat, mu set")
o = solids.contact({}, "friction", 2e-3, 0.3)
T.check(o.contact == "friction" and o.dhat == nil and o.mu == nil, "friction: no barrier options")
T.raises(function() solids.contact({}, "barrier") end, "needs dhat > 0", "barrier without dhat")
T.raises(function() solids.contact({}, "sticky", 1e-3) end, "got sticky", "unknown contact")

-- a 4 x 4 cloth dropped on a sphere with barrier contact: after() sees
-- every step's stats, the barrier's closest distance stays positive and
-- no node is ever inside the sphere
local R, c = 0.2, { 0, 0.3, 0 }
local cloth = S.sheet { origin = { -0.15, 0.52, -0.15 }, u = { 0.3, 0, 0 }, v = { 0, 0, 0.3 }, cells = { 4, 4 } }
cloth:shell { E = 1e5, thickness = 1e-3, density = 300 }
local ball = S.collider { shape = S.shape.sphere { center = c, radius = R }, mu = 0.4 }
local seen, dmin, inside = 0, math.huge, 0
local step = solids.stepper(cloth, solids.contact({ method = "newton", colliders = { ball }, tol = 1e-4, maxit = 60,
  after = function(st)
    seen = seen + 1
    if st.min_distance then dmin = math.min(dmin, st.min_distance) end
  end }, "barrier", 2e-3, 0.2))
for _ = 1, 20 do
  step(1 / 100)
  for i = 1, cloth.nv do
    local r = math.sqrt((cloth.x:get(i, 1) - c[1]) ^ 2 + (cloth.x:get(i, 2) - c[2]) ^ 2 + (cloth.x:get(i, 3) - c[3]) ^ 2)
    if r <= R then inside = inside + 1 end
  end
end
print(string.format("barrier drape: %d steps seen by after(), closest contact %.3e m, %d nodes inside", seen, dmin, inside))
T.check(seen == 20, "after() called once per step")
T.check(dmin > 0 and dmin < 2e-3, "the cloth reached the sphere's barrier and stayed apart (" .. dmin .. " m)")
T.check(inside == 0, "no node inside the sphere")

os.exit(T.report())
