-- Lua API of the liquid physics operators (viscosity, surface tension,
-- curvature, periodic boundaries): results, shapes and argument errors.
local tide = require "tide"
local T = require "tide.testing"

local function raises(f, pattern, what)
  local ok, err = pcall(f)
  T.check(not ok, what .. " must raise")
  if not ok and pattern then T.check(tostring(err):find(pattern, 1, true) ~= nil, what .. ": message '" .. tostring(err) .. "'") end
end

local n, dx = 24, 1 / 24
local g = tide.grid.new { size = { n, n }, dx = dx }

-- ---------------------------------------------------------------- viscosity
do
  local u = g:mac()
  u:fill(1)
  local r, st = tide.liquid.diffuse(u, { nu = 1e-3, dt = 0.01 })
  T.check(r == u and st.unknowns > 0 and st.residual <= 1e-8, "diffuse returns u and stats")
  -- no-slip walls slow the flow near them
  T.check(u.u:get(2, 1) > 0 and u.u:get(2, 1) < 1 and u.u:get(1, 5) == 1, "wall faces kept, tangential flow slowed")
  raises(function() tide.liquid.diffuse(u, { dt = 0.1 }) end, "nu", "diffuse without nu")
  raises(function() tide.liquid.diffuse(u, { nu = 1, dt = 0.1, wall = "sticky" }) end, "wall", "unknown wall")
  raises(function() tide.liquid.diffuse(u, { nu = 1, dt = 0.1, periodic = { true } }) end, "periodic", "short periodic list")
  raises(function() tide.liquid.diffuse(u, { nu = 1, dt = 0.1, periodic = { 1, 0 } }) end, "boolean", "periodic numbers")
  raises(function() tide.liquid.diffuse(u, { nu = 1, dt = 0.1, viscosity = 2 }) end, "viscosity", "unknown key")
  raises(function() tide.liquid.diffuse(u, { nu = 0 / 0, dt = 0.1 }) end, nil, "NaN nu")

  local phi = tide.shape.sphere { center = { 0.5, 0.5 }, radius = 0.3 }:sdf(g)
  local v = g:mac()
  v:fill(0.5)
  local r2, st2 = tide.liquid.viscosity(v, { nu = 1e-2, rho = 1000, dt = 0.01, phi = phi, wall = "freeslip" })
  T.check(r2 == v and st2.iterations == 0, "a uniform translation has no strain: nothing to solve")
  local mu = g:cells()
  mu:fill(10)
  tide.liquid.viscosity(v, { mu = mu, rho = 1000, dt = 0.01, phi = phi })
  -- a workspace: the pattern is built once, then refilled
  local S = tide.liquid.viscosity_solver()
  local w1, w2 = g:mac(), g:mac()
  for k = 1, 3 do
    w1:fill(0); w2:fill(0)
    w1.u:set(12, 12, 1); w2.u:set(12, 12, 1)
    tide.liquid.viscosity(w1, { nu = 1e-2, rho = 1000, dt = 0.01, phi = phi })
    tide.liquid.viscosity(w2, { nu = 1e-2, rho = 1000, dt = 0.01, phi = phi, solver = S })
  end
  T.check(w1.u:get(12, 12) == w2.u:get(12, 12) and w1.v:get(12, 13) == w2.v:get(12, 13), "same result with a workspace")
  T.check(S.builds == 1 and S.refills == 2 and S.bytes > 0, "workspace counts " .. tostring(S))
  raises(function() tide.liquid.viscosity(v, { nu = 1, rho = 1, dt = 1, solver = g }) end, "solver", "solver of the wrong type")
  S:free()
  raises(function() tide.liquid.viscosity(v, { nu = 1, rho = 1, dt = 1, solver = S }) end, "solver", "freed solver")
  raises(function() tide.liquid.viscosity(v, { nu = 1, mu = 1, rho = 1, dt = 1 }) end, "exactly one", "both mu and nu")
  raises(function() tide.liquid.viscosity(v, { nu = 1, dt = 1 }) end, "rho", "missing rho")
  raises(function() tide.liquid.viscosity(v, { nu = 1, rho = 1, dt = 1, precond = "mic0" }) end, "precond", "mic0 not offered")
  raises(function() tide.liquid.viscosity(v, { nu = 1, rho = 1, dt = 1, phi = tide.array.zeros { 3, 3 } }) end, "phi", "wrong phi shape")
  raises(function() tide.liquid.viscosity(v, { nu = 1, rho = 1, dt = 1, subdivision = 0 }) end, "subdivision", "subdivision 0")
end

-- ---------------------------------------------------------- surface tension
do
  local R = 0.25
  local disk = tide.shape.sphere { center = { 0.5, 0.5 }, radius = R }
  local phi = disk:sdf(g)
  local kappa = tide.liquid.curvature(g, phi)
  -- the cell next to the rim on the x axis: kappa ~ 1/r there
  local i = math.floor((0.5 + R) / dx) -- cell whose centre is just inside
  local x = (i - 0.5) * dx - 0.5
  local yc = (13 - 0.5) * dx - 0.5
  local r = math.sqrt(x * x + yc * yc)
  T.check(math.abs(kappa:get(i, 13) - 1 / r) < 0.05 / R, "curvature of a disk " .. kappa:get(i, 13) .. " vs " .. 1 / r)
  local out = g:cells()
  T.check(tide.liquid.curvature(g, phi, { out = out }) == out, "curvature into out")
  raises(function() tide.liquid.curvature(g, phi, { out = phi }) end, "share", "out aliasing phi")
  -- the level-set curvature from the surface's height functions: 1/r for the distance of a disk
  local kh = tide.liquid.curvature(g, phi, { method = "heights" })
  T.check(math.abs(kh:get(i, 13) - 1 / r) < 0.01 / R, "heights curvature of a disk " .. kh:get(i, 13) .. " vs " .. 1 / r)
  T.check(tide.liquid.curvature(g, phi, { method = "heights", band = 2 * dx, out = out }) == out, "heights into out")
  raises(function() tide.liquid.curvature(g, phi, { band = dx }) end, "heights", "band with the cell curvature")
  raises(function() tide.liquid.curvature(g, phi, { method = "fit" }) end, "method", "unknown curvature method")
  raises(function() tide.liquid.curvature(g, phi, { method = "heights", band = 0 / 0 }) end, "band", "NaN band")

  local u = g:mac()
  local pj = g:cells()
  T.check(tide.liquid.surface_tension(u, phi, { sigma = 0.07, rho = 1000, dt = 1e-3, pjump = pj }) == u, "ghost returns u")
  -- faces with air on the high side are pushed towards the liquid (u < 0)
  local ia = math.floor((0.5 + R) / dx) + 1 -- first face index past the rim ... search the x row
  local found = false
  for f = 2, n do
    local lo, hi = phi:get(f - 1, 13), phi:get(f, 13)
    if lo < 0 and hi >= 0 then
      T.check(u.u:get(f, 13) < 0, "ghost-fluid impulse points into the liquid")
      found = true
    end
  end
  T.check(found and ia > 0, "found the liquid-air face")
  T.check(math.abs(pj:get(13, 13)) == 0 and pj:get(i, 13) > 0, "pjump is sigma kappa at surface cells, 0 inside")
  local v = g:mac()
  local _, st = tide.liquid.surface_tension(v, phi, { sigma = 0.07, rho = 1000, dt = 1e-3, method = "liu" })
  T.check(st.unknowns > 0 and st.residual <= 1e-8, "liu returns stats")
  local vmin = 0
  for f = 2, n do vmin = math.min(vmin, v.u:get(f, 13) * (f - 13)) end
  T.check(vmin < 0, "liu force points into the liquid")
  local w = g:mac()
  local _, st1 = tide.liquid.surface_tension(w, phi, { sigma = 0.07, rho = 1000, dt = 1e-3, method = "liu", side = "liquid" })
  T.check(st1.unknowns > 0 and st1.unknowns < st.unknowns, "one-sided band has fewer unknowns")
  raises(function() tide.liquid.surface_tension(u, phi, { sigma = 1, rho = 1, dt = 1, method = "liu", side = "air" }) end,
    "side", "unknown side")
  raises(function() tide.liquid.surface_tension(u, phi, { sigma = 1, rho = 1, dt = 1, band = 0.1 }) end, "liu",
    "band with the ghost method")
  raises(function() tide.liquid.surface_tension(u, phi, { sigma = 1, rho = 1, dt = 1, method = "liu", width = "narrow" }) end,
    "width", "unknown width")
  raises(function() tide.liquid.surface_tension(u, phi, { sigma = 1, rho = 1, dt = 1, width = "fixed" }) end, "liu",
    "width with the ghost method")
  -- labels from phi
  local lab = tide.liquid.label_phi(g, phi)
  T.check(lab:get(13, 13) == tide.liquid.LIQUID and lab:get(1, 1) == tide.liquid.AIR, "label_phi")
  local solid = g:cells("u8")
  solid:set(13, 13, tide.liquid.SOLID)
  T.check(tide.liquid.label_phi(g, phi, { solid = solid, out = lab }) == lab and lab:get(13, 13) == tide.liquid.SOLID,
    "label_phi with solid into out")
  raises(function() tide.liquid.label_phi(g, phi, { out = g:cells() }) end, "out", "label_phi f64 out")
  raises(function() tide.liquid.surface_tension(u, phi, { sigma = 1, rho = 1, dt = 1, method = "liu", pjump = pj }) end,
    "ghost", "pjump with liu")
  raises(function() tide.liquid.surface_tension(u, phi, { sigma = 1, rho = 1 }) end, "dt", "missing dt")
  raises(function() tide.liquid.surface_tension(u, phi, { sigma = 1, rho = 1, dt = 1, projection = "voxels" }) end,
    "projection", "unknown projection")
  raises(function() tide.liquid.surface_tension(u, phi, { sigma = 1, rho = 1, dt = 1, projection = "labels", theta_min = 0.1 }) end,
    "theta_min", "theta_min with the labels projection")
  -- projection = "labels" (theta = 1): the impulse of a face is that of theta = 1
  local ul = g:mac()
  tide.liquid.surface_tension(ul, phi, { sigma = 0.07, rho = 1000, dt = 1e-3, method = "liu", side = "liquid",
    projection = "labels", curvature = "cells" })
  T.check(ul:max_speed() > 0, "liu with projection labels")
  local cdt = tide.liquid.capillary_dt(dx, 0.07, 1000)
  T.check(math.abs(cdt - math.sqrt(1000 * dx ^ 3 / (2 * math.pi * 0.07))) < 1e-15, "capillary dt")
  T.check(tide.liquid.capillary_dt(dx, 0, 1000) == math.huge, "no surface tension: no limit")
  raises(function() tide.liquid.capillary_dt(-1, 1, 1) end, "dx", "negative dx")
end

-- ---------------------------------------------------------------- periodic
do
  local P = tide.liquid.periodic { grid = g, periodic = { true, false } }
  T.check(tostring(P):find("periodic in x", 1, true) ~= nil, "tostring " .. tostring(P))
  T.check(P.periodic[1] == true and P.periodic[2] == false and P.bytes > 0, "fields")
  local u = g:mac()
  u:fill(1)
  local _, st = P:project(u, { dt = 0.01, rho = 1000, tol = 1e-12 })
  T.check(st.unknowns == n * n and st.div_after < 1e-8 and st.div_before == 1 / dx, "projection stats")
  T.check(u.v:get(3, 1) == 0 and math.abs(u.u:get(1, 3) - 1) < 1e-9, "walls in y, flow through the seam in x")
  local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 1, 1 } }, per_cell = 4, apic = true }
  P:g2p(u, ps, { scheme = "apic" })
  P:p2g(ps, u, { scheme = "apic" })
  T.check(math.abs(u.u:get(1, 7) - 1) < 1e-9 and math.abs(u.u:get(n + 1, 7) - 1) < 1e-9, "P2G across the seam")
  P:advect_particles(ps, u, 0.3)
  local x = ps.x
  local ok = true
  for p = 1, #x do ok = ok and x:get(p, 1) >= 0 and x:get(p, 1) < 1 end
  T.check(ok, "particles wrapped")
  local q = P:advect(u, u, 0.01)
  T.check(getmetatable(q) == getmetatable(u), "advect returns a Mac")
  local f = g:cells()
  f:fill(2)
  T.check(math.abs(P:advect_cells(u, f, 0.01, { scheme = "bfecc" }):get(5, 5) - 2) < 1e-14, "advect_cells keeps a constant")
  T.check(P:sync(u) == u and P:wrap(ps) == ps, "sync, wrap")
  local e = tide.liquid.kinetic_energy(u, { periodic = { true, false } })
  T.check(e > 0, "kinetic energy")
  raises(function() P:g2p(u, ps, { scheme = "flip" }) end, "old", "flip without old")
  raises(function() P:project(u, { dt = 0.01 }) end, "rho", "project without rho")
  raises(function() P:advect(u, u, 0.01, { out = u }) end, "out", "out aliasing")
  raises(function() tide.liquid.periodic { grid = g, periodic = { false, false } } end, "periodic", "no periodic axis")
  raises(function() tide.liquid.periodic { periodic = { true, true } } end, "grid", "missing grid")
  P:free()
  raises(function() P:sync(u) end, "freed", "use after free")
  T.check(tostring(P):find("freed", 1, true) ~= nil, "tostring after free")
end

os.exit(T.report())
