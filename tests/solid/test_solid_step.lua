-- tide.solid integrators from Lua: free fall, external forces, kinematic
-- targets, colliders, the matrices for couplings, determinism, and errors.
local tide = require "tide"
local T = require "tide.testing"
local S = tide.solid

local function cube(n, model)
  local m = S.box { min = { 0, 0, 0 }, max = { 0.1, 0.1, 0.1 }, cells = { n, n, n } }
  m:material { model = model or "neohookean", E = 1e5, nu = 0.3, density = 1000 }
  return m
end

-- free fall: every integrator gives v = g t, x = x0 + 1/2 g t^2 for an undeformed body
for _, method in ipairs { "step_linear", "step_newmark", "step_newton" } do
  local m = cube(1)
  local y0 = m.x:get(1, 2)
  local dt = method == "step_newmark" and 0.001 or 0.01 -- Newmark: explicit elasticity, CFL
  local nsteps = math.floor(0.1 / dt + 0.5)
  for _ = 1, nsteps do
    local st = m[method](m, { dt = dt })
    T.check(type(st.seconds) == "number" and st.converged ~= nil, method .. " returns stats")
  end
  T.near(m.v:get(1, 2), -9.81 * 0.1, 1e-9, method .. ": v = g t")
  local dy = m.x:get(1, 2) - y0
  -- backward Euler: x_n = x0 + g dt^2 n(n+1)/2; Newmark: exact 1/2 g t^2
  local exact = method == "step_newmark" and -0.5 * 9.81 * 0.01 or -9.81 * dt * dt * 55
  T.near(dy, exact, 1e-9, method .. ": fall distance")
  T.near(m:energy(), 0, 1e-9, method .. ": no deformation")
end

-- external nodal forces: a uniform force per unit mass accelerates the body rigidly
do
  local m = cube(1)
  m:material { E = 1e5, nu = 0.3, density = 1000, gravity = { 0, 0, 0 } }
  local f, mass = m.force, m.mass
  for i = 1, m.nv do f:set(i, 1, 2.0 * mass[i]) end -- 2 m/s^2 along x
  m:step_newton { dt = 0.1 }
  T.near(m.v:get(3, 1), 0.2, 1e-9, "external force array")
end

-- kinematic targets: pinned nodes reach their targets; the rest follows
do
  local m = cube(2)
  T.check(m:pin { min = { -1, -1, -1 }, max = { 1e-9, 1, 1 } } == 9, "pin the x = 0 face")
  local tg = m.target
  for i = 1, m.nv do if m.pinned[i] == 1 then tg:set(i, 2, tg:get(i, 2) + 0.01) end end
  for _, method in ipairs { "step_linear", "step_newmark", "step_newton" } do
    m:reset()
    for i = 1, m.nv do if m.pinned[i] == 1 then tg:set(i, 2, m.rest:get(i, 2) + 0.01) end end
    m[method](m, { dt = 0.01 })
    local ok = true
    for i = 1, m.nv do
      if m.pinned[i] == 1 then
        ok = ok and math.abs(m.x:get(i, 2) - m.rest:get(i, 2) - 0.01) < 1e-12
          and math.abs(m.v:get(i, 2) - 1.0) < 1e-9
      end
    end
    T.check(ok, method .. ": pinned nodes move to their targets with v = (target - x)/dt")
  end
end

-- colliders: a body dropped on the ground comes to rest on it
do
  local m = cube(2)
  m:material { E = 1e5, nu = 0.3, density = 1000, damping_beta = 20 }
  local ground = S.collider { shape = S.shape.plane { point = { 0, -0.05, 0 }, normal = { 0, 1, 0 } }, mu = 0.5 }
  T.check(tostring(ground):find("tide.solid.Collider 3D plane"), tostring(ground))
  for _ = 1, 100 do m:step_newton { dt = 0.005, colliders = { ground } } end
  local lo = math.huge
  for i = 1, m.nv do lo = math.min(lo, m.x:get(i, 2)) end
  T.near(lo, -0.05, 1e-6, "resting on the ground")
  T.check(math.abs(m.v:get(1, 2)) < 0.05, "at rest")
  -- a moving, rotating collider
  local c = S.collider { shape = S.shape.box { min = { -1, -1, -1 }, max = { 1, 1, 1 } }, velocity = { 1, 0, 0 },
    omega = { 0, 0, 1 } }
  c:advance(0.5)
  T.near(c.position[1], 0.5, 1e-15, "collider translates")
  T.near(c.rotation[1][2], -math.sin(0.5), 1e-12, "collider rotates")
  local phi, n, vb = c:phi { 3, 0.5, 0 }
  -- (3, 0.5, 0) seen from the box frame: R^T (x - p)
  T.near(phi, 2.5 * math.cos(0.5) + 0.5 * math.sin(0.5) - 1, 1e-9, "collider distance in the moved frame")
  T.near(vb[2], 2.5, 1e-12, "body velocity includes rotation")
  -- a grid-sampled collider: the half space y < 0 on a grid
  local G = tide.grid.new { size = { 8, 8, 8 }, dx = 0.25, origin = { -1, -1, -1 } }
  local phig = tide.array.zeros { 8, 8, 8 }
  for i = 1, 8 do for j = 1, 8 do for k = 1, 8 do phig:set(i, j, k, -1 + (j - 0.5) * 0.25) end end end
  local cg = S.collider { grid = G, phi = phig }
  local pg, ng = cg:phi { 0.1, 0.3, 0.2 }
  T.near(pg, 0.3, 1e-12, "grid collider distance")
  T.near(ng[2], 1, 1e-9, "grid collider normal")
end

-- matrices for couplings: K x_rest = b at rest; the IP Hessian is SPD-ish and symmetric
do
  local m = cube(2, "rotated_linear")
  local K, b = m:stiffness()
  T.check(tostring(K):find("tide.Matrix"), "stiffness is a tide.Matrix")
  local Kx = K:mul(m.x:reshape(m.nv * 3))
  local d = 0
  for i = 1, m.nv * 3 do d = math.max(d, math.abs(Kx[i] - b:reshape(m.nv * 3)[i])) end
  T.check(d < 1e-8 * b:norm(), "K x = b at rest")
  local H, E, g = m:ip_hessian { dt = 0.01, xhat = m.x:clone() }
  T.near(E, 0, 1e-12, "incremental potential zero at the prediction, at rest")
  T.near(g:norm(), 0, 1e-9, "and stationary")
  T.check(H:diag():min() > 0, "Hessian diagonal positive")
end

-- plasticity through the integrator: a bar stretched by its pins keeps part of the stretch
do
  local m = S.box { min = { 0, 0, 0 }, max = { 0.4, 0.1, 0.1 }, cells = { 4, 1, 1 } }
  m:material { model = "rotated_linear", E = 1e5, nu = 0.3, density = 1000, gravity = { 0, 0, 0 }, damping_beta = 100 }
  m:plasticity { yield = 0.02, limit = 2 }
  m:pin(function(x) return x < 1e-9 or x > 0.4 - 1e-9 end)
  local yielded = 0
  for n = 1, 20 do
    for i = 1, m.nv do if m.rest:get(i, 1) > 0.3 then m.target:set(i, 1, m.rest:get(i, 1) + 0.004 * n) end end
    yielded = yielded + m:step_newton { dt = 0.01 }.plastic
  end
  T.check(yielded > 0, "elements yield")
  m:unpin(function(x) return x > 0.3 end)
  for _ = 1, 200 do m:step_newton { dt = 0.01 } end
  local len = 0
  for i = 1, m.nv do len = math.max(len, m.x:get(i, 1)) end
  T.check(len > 0.44, string.format("permanent stretch after release (length %.4f m)", len))
end

-- determinism: same result for 1 and 2 threads on a mesh above the parallel thresholds
do
  local sums = {}
  for _, th in ipairs { 1, 2 } do
    tide.threads(th)
    local m = cube(6)
    m:pin(function(x) return x < 1e-9 end)
    for _ = 1, 3 do m:step_newton { dt = 0.01 } end
    for _ = 1, 3 do m:step_newmark { dt = 1e-4 } end
    sums[th] = m.x:checksum() .. m.v:checksum()
  end
  tide.threads(2)
  T.check(sums[1] == sums[2], "bit-identical for 1 and 2 threads")
end

-- 2D: a disk dropped on the ground by each integrator hits it and stays out of it
for _, method in ipairs { "step_linear", "step_newmark", "step_newton" } do
  local m = S.bcc { shape = S.shape.sphere { center = { 0, 0.2 }, radius = 0.1 }, h = 0.025 }
  m:material { model = method == "step_linear" and "linear" or "neohookean", E = 2e4, nu = 0.3, density = 1000,
    damping_beta = 20, rayleigh_stiffness = 0.01 }
  local ground = S.collider { shape = S.shape.plane { point = { 0, 0 }, normal = { 0, 1 } }, mu = 0.5 }
  local dt = method == "step_newmark" and 5e-4 or 5e-3
  local lowest, contacts = math.huge, 0
  for _ = 1, math.floor(0.4 / dt) do
    contacts = contacts + m[method](m, { dt = dt, colliders = ground }).contacts
    for i = 1, m.nv do lowest = math.min(lowest, m.x:get(i, 2)) end
  end
  T.check(contacts > 0 and lowest > -1e-9, string.format("%s 2D: hits the ground, never below it (%.1e)", method,
    lowest))
  T.near(m:volume() / m.rest_volume:sum(), 1, 0.1, method .. " 2D: volume kept")
  T.check(m.x:nonfinite() == 0, method .. " 2D: finite")
end

-- errors
local m = cube(1)
T.raises(function() m:step_newton { dt = 0 } end, "dt", "zero dt")
T.raises(function() m:step_newton { dt = 0.01, colliders = { 42 } } end, "not a tide.solid.Collider", "bad collider")
T.raises(function() m:step_newton { dt = 0.01, corotational = true } end, "unknown option 'corotational'", "key of another integrator")
T.raises(function() m:step_linear { dt = 0.01, solver = "magic" } end, "must be one of", "bad solver")
T.raises(function() m:step_newmark { dt = 0.01, project = true } end, "unknown option", "unknown key")
local c2 = S.collider { shape = S.shape.sphere { center = { 0, 0 }, radius = 1 } }
T.raises(function() m:step_newton { dt = 0.01, colliders = { c2 } } end, "collider 1 is 2D", "2D collider on a 3D mesh")
m.force:set(1, 1, 0 / 0)
T.raises(function() m:step_newton { dt = 0.01 } end, "NaN", "NaN force")
local nofem = S.box { min = { 0, 0 }, max = { 1, 1 }, cells = { 1, 1 } }
T.raises(function() nofem:step_newton { dt = 0.01 } end, "no material", "step without a material")
T.raises(function() S.collider { shape = S.shape.sphere { center = { 0, 0 }, radius = 1 }, mu = -1 } end, "mu",
  "negative friction")
T.raises(function() S.collider { mu = 0.1 } end, "shape or grid", "collider needs a shape")

os.exit(T.report())
