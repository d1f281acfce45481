-- Liu et al. Fig. 11a (the paper's Sec. 5.1 "contact handling"): a 2D drop
-- falling at 1 m/s under gravity onto a single fixed vertex, 32^2 cells.
-- With the barrier (tide.liu) no step ends with the vertex inside the liquid
-- (d > 0 after every solve, the method's invariant); with a plain Neumann
-- face (u = 0) at the same place instead, the liquid passes through the point.
-- Also: a vertex far from the liquid follows its prediction exactly and the
-- volume constraint holds, and the solve's arguments are checked.
local tide = require "tide"
local T = require "tide.testing"
local liu = require "tide.liu"
local drop = require "tide.drop"

local n = 32
local dx = 1 / n
local g = tide.grid.new { size = { n, n }, dx = dx }
local px, py = 15.5 * dx, 11 * dx -- the centre of the y-face (16, 12)

local function run(barrier)
  local phi = drop.disk { grid = g, center = { 0.5, 0.62 }, radius = 0.15 }
  local S
  if barrier then
    local F = tide.array.zeros({ 1 }, "u8")
    F:set(1, 1)
    S = liu.new { grid = g, phi = phi, x = tide.array.from { { px, py } }, mass = 1, fixed = F, gravity = { 0, -9.81 } }
  else
    S = liu.new { grid = g, phi = phi, gravity = { 0, -9.81 }, walls = { { 2, 16, 12 } } }
  end
  S.u:component(2):fill(-1)
  local P = tide.array.from { { px, py } }
  local r = { minphi = math.huge, steps = 0, iters = 0, capped = 0, pen = 0 }
  while S.t < 0.4 do
    local st = liu.step(S, liu.max_dt(S))
    local d = tide.couple.liu_distance { grid = g, phi = S.phi, x = P }
    r.minphi = math.min(r.minphi, d:get(1))
    r.steps, r.iters = r.steps + 1, r.iters + st.iterations
    if not st.converged then r.capped = r.capped + 1 end
    if barrier then
      r.pen = r.pen + st.penetrating
      liu.check(S)
    end
  end
  return r
end

local b = run(true)
T.check(b.pen == 0 and b.minphi > 0, string.format("barrier: vertex never inside (min phi %.3g dx)", b.minphi / dx))
T.check(b.iters / b.steps < 10, string.format("barrier: %.2f Newton iterations per step", b.iters / b.steps))
T.check(b.capped <= 3, string.format("barrier: %d of %d steps hit the cap", b.capped, b.steps))
local w = run(false)
T.check(w.minphi < -0.25 * dx, string.format("Neumann face: the liquid passes the point (min phi %.3g dx)", w.minphi / dx))
print(string.format("Fig. 11a: barrier min phi %.3f dx (%d steps, %.2f it/step, %d capped); Neumann min phi %.3f dx",
  b.minphi / dx, b.steps, b.iters / b.steps, b.capped, w.minphi / dx))

-- a free vertex far from the liquid: x = x*, phi = phi* up to the volume constraint
do
  local phi = drop.disk { grid = g, center = { 0.5, 0.5 }, radius = 0.2 }
  local phis = drop.disk { grid = g, center = { 0.5, 0.49 }, radius = 0.205 } -- 5% too big
  local tr = tide.grid.volume_tracker { grid = g, phi = phi }
  local X = tide.array.from { { 0.1, 0.9 } }
  local st = tide.couple.liu_solve { grid = g, phi = phi, phi_star = phis, x = X, x_star = tide.array.from { { 0.12, 0.88 } },
    mass = 2, tracker = tr, dt = 0.01 }
  T.check(st.converged, "far vertex: converged")
  T.near(X:get(1, 1), 0.12, 1e-12, "far vertex follows x* (x)")
  T.near(X:get(1, 2), 0.88, 1e-12, "far vertex follows x* (y)")
  T.check(st.vol_err < 1e-4, string.format("volume constraint met: %.2g", st.vol_err))
  T.check(st.pairs == 0 and st.components == 1, "no pair, one component")
  -- argument errors
  local good = { grid = g, phi = phi, phi_star = phis, x = X, x_star = X, mass = 1, dt = 0.01 }
  local function with(k, v)
    local t = {}
    for kk, vv in pairs(good) do t[kk] = vv end
    t[k] = v
    return t
  end
  T.raises(function() tide.couple.liu_solve(with("dt", 0)) end, "dt")
  T.raises(function() tide.couple.liu_solve(with("mass", 0)) end, "mass")
  T.raises(function() tide.couple.liu_solve(with("interp", "cubic")) end, "interp")
  T.raises(function() tide.couple.liu_solve(with("x_star", tide.array.from { { 0, 0 }, { 1, 1 } })) end, "x_star")
  T.raises(function() tide.couple.liu_solve(with("bogus", 1)) end, "bogus")
  -- a vertex starting inside the liquid is refused (the start must be penetration-free)
  T.raises(function() tide.couple.liu_solve(with("x", tide.array.from { { 0.5, 0.5 } })) end, "inside the liquid")
end

-- Eq. 23: the liquid-air faces of the dual cell of a vertex in contact take its velocity
do
  local phi = g:cells()
  for i = 1, n do for j = 1, n do phi:set(i, j, (j - 0.5) * dx - 0.5) end end -- pool below y = 0.5
  local X = tide.array.from { { 10.3 * dx, 0.5 + 0.1 * dx } }
  local V = tide.array.from { { 0.3, -0.2 } }
  local u, fx = g:mac(), g:mac("u8")
  local nf = tide.couple.liu_contact_faces { grid = g, phi = phi, x = X, v = V, u = u, fixed = fx, dhat = 0.5 * dx }
  -- dual cell: cells i = 10, 11 (1-based), j = 16 (liquid), 17 (air): two y-faces
  T.check(nf == 2, "two liquid-air faces in the dual cell, got " .. nf)
  T.check(fx:component(2):get(10, 17) == 1 and fx:component(2):get(11, 17) == 1, "the y-faces at j = 17 are prescribed")
  T.near(u:component(2):get(10, 17), -0.2, 1e-15, "face velocity = vertex velocity")
  local far = tide.couple.liu_contact_faces { grid = g, phi = phi, x = tide.array.from { { 0.3, 0.8 } }, v = V, u = u, fixed = fx }
  T.check(far == 0, "a vertex beyond dhat sets no face")
  -- air = true (tide.liu's first projection): the air faces of the dual cell too; a vertex 1.6 dx above the
  -- pool with a reach of 2 dx: dual cell i = 10, 11, j = 18, 19 (1-based, all air): x-faces (11, 18), (11, 19),
  -- y-faces (10, 19), (11, 19)
  local u2, fx2 = g:mac(), g:mac("u8")
  local Xa = tide.array.from { { 10.3 * dx, 0.5 + 1.6 * dx } }
  local na = tide.couple.liu_contact_faces { grid = g, phi = phi, x = Xa, v = V, u = u2, fixed = fx2, dhat = 2 * dx, air = true }
  local n0 = tide.couple.liu_contact_faces { grid = g, phi = phi, x = Xa, v = V, u = g:mac(), fixed = g:mac("u8"), dhat = 2 * dx }
  T.check(n0 == 0 and na == 4, string.format("air faces: %d with air = true (4 expected), %d without (0)", na, n0))
  T.check(fx2:component(1):get(11, 18) == 1 and fx2:component(1):get(11, 19) == 1 and fx2:component(2):get(10, 19) == 1
    and fx2:component(2):get(11, 19) == 1, "the dual cell's x- and y-faces")
  T.near(u2:component(1):get(11, 18), 0.3, 1e-15, "x-face velocity = vertex velocity")
  T.near(u2:component(2):get(11, 19), -0.2, 1e-15, "y-face velocity = vertex velocity")
  -- slip = true: the contact normal is y (a flat pool), so only the y-faces (the normal part of the
  -- vertex velocity) are prescribed; the x-faces stay free and the liquid may slide along x
  local u3, fx3 = g:mac(), g:mac("u8")
  local ns = tide.couple.liu_contact_faces { grid = g, phi = phi, x = Xa, v = V, u = u3, fixed = fx3, dhat = 2 * dx, air = true,
    slip = true }
  T.check(ns == 2 and fx3:component(2):get(10, 19) == 1 and fx3:component(2):get(11, 19) == 1
    and fx3:component(1):get(11, 18) == 0 and fx3:component(1):get(11, 19) == 0,
    string.format("slip: the 2 y-faces only (%d set)", ns))
  T.near(u3:component(2):get(11, 19), -0.2, 1e-15, "slip: y-face velocity = the vertex's normal velocity")
end
os.exit(T.report())
