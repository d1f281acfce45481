-- Two-way coupling of MPM bodies with tide.solid FEM meshes (tide.couple.mpm_solid,
-- mls_mpm.solid_coupling / coupled_step; docs/mpm.md "Two-way coupling with tide.solid
-- meshes").  2D, 64 cells/m, neo-Hookean jelly E = 2e4 Pa, nu = 0.3, 1000 kg/m^2.
--   1. momentum: no gravity, no wall touched, a jelly block at 1 m/s hits a free FEM
--      block: total linear momentum (particles + mesh nodes) kept to round-off.
--      (also in 3D, 24 cells/m)
--   2. weight: a jelly block resting on a slab pinned at both ends: the impulse the mesh
--      receives per unit time, averaged over 1.5-3 s, equals the block's weight; the
--      resting gap (lowest particle - slab top) over 0.75-1.5 s with the contact distance
--      (default) and without it (contact wherever the stencils overlap); with the distance,
--      no creep into the slab over 1.5-3 s (gap and centre-of-mass height held).
--   3. cantilever: the block resting near the free end of a clamped FEM beam: the tip
--      deflection due to the block vs the same beam (same integrator) loaded by the
--      block's weight as a uniform traction over its footprint.
local tide = require "tide"
local T = require "tide.testing"
local mpm = require "tide.mls_mpm"

local n = 64
local function state(size, gravity)
  local g = tide.grid.new { size = size, dx = 1 / n }
  local M = tide.mpm.new { grid = g, gravity = gravity, walls = "separate" }
  local jelly = M:material { model = "neohookean", E = 2e4, nu = 0.3, density = 1000 }
  return M, jelly
end
local linear = function(mesh, dt) return mesh:step_linear { dt = dt } end
-- the resting gap: min over the particles of y_p - (the mesh's top surface at x_p), the
-- surface interpolated linearly between its current top nodes (rest y = top) [m]
local function gap(M, m, top)
  local xs = {}
  for k = 1, m.nv do
    if m.rest:get(k, 2) > top - 1e-9 then xs[#xs + 1] = { m.rest:get(k, 1), m.x:get(k, 1), m.x:get(k, 2) } end
  end
  table.sort(xs, function(a, b) return a[1] < b[1] end)
  local lo = math.huge
  for p = 1, M.n do
    local px, py = M.x[p][1], M.x[p][2]
    for i = 1, #xs - 1 do
      local a, b = xs[i], xs[i + 1]
      if px >= a[2] and px <= b[2] then
        lo = math.min(lo, py - (a[3] + (b[3] - a[3]) * (px - a[2]) / (b[2] - a[2])))
        break
      end
    end
  end
  return lo
end
local function run(S, T1, each)
  local t = 0
  while t < T1 do
    local dt = math.min(mpm.coupled_max_dt(S, 0.4), T1 - t)
    mpm.coupled_step(S, dt)
    t = t + dt
    if each then each(t, dt) end
  end
end

do -- 1. momentum
  local M, jelly = state({ n, n }, { 0, 0 })
  M:seed { shape = tide.shape.box { min = { 0.2, 0.4 }, max = { 0.4, 0.52 } }, material = jelly,
    velocity = { 1, 0 }, stream = 1 }
  local m = tide.solid.box { min = { 0.5, 0.35 }, max = { 0.7, 0.55 }, cells = { 8, 8 } }
  m:material { model = "neohookean", E = 5e4, nu = 0.3, density = 500, gravity = { 0, 0 } }
  local S = mpm.solid_coupling(M, m, { friction = 0.2 })
  local p0 = mpm.coupled_momentum(S)
  local contacts = 0
  run(S, 0.4, function() contacts = math.max(contacts, S.stats[1].contacts) end)
  local p1 = mpm.coupled_momentum(S)
  local pm = 0
  for k = 1, m.nv do pm = pm + m.mass[k] * m.v:get(k, 1) end
  local rel = math.max(math.abs(p1[1] - p0[1]), math.abs(p1[2] - p0[2])) / math.abs(p0[1])
  print(string.format("momentum: %.15g -> %.15g (y %.2e), relative change %.2e; the mesh took %.1f %%, up to %d contact nodes",
    p0[1], p1[1], p1[2], rel, 100 * pm / p0[1], contacts))
  T.check(contacts > 10 and pm / p0[1] > 0.3, "the bodies met and the mesh took momentum")
  T.check(rel < 1e-12, string.format("total momentum kept to round-off: %.2e", rel))
end

do -- 1b. momentum in 3D (24 cells/m, tetrahedra, triangle samples)
  local g = tide.grid.new { size = { 24, 24, 24 }, dx = 1 / 24 }
  local M = tide.mpm.new { grid = g, gravity = { 0, 0, 0 }, walls = "separate" }
  M:seed { shape = tide.shape.box { min = { 0.2, 0.4, 0.4 }, max = { 0.4, 0.6, 0.6 } }, velocity = { 1, 0, 0 }, stream = 1,
    material = M:material { model = "neohookean", E = 2e4, nu = 0.3, density = 1000 } }
  local m = tide.solid.box { min = { 0.5, 0.35, 0.35 }, max = { 0.7, 0.65, 0.65 }, cells = { 3, 4, 4 } }
  m:material { model = "neohookean", E = 5e4, nu = 0.3, density = 500, gravity = { 0, 0, 0 } }
  local S = mpm.solid_coupling(M, m, { friction = 0.2 })
  local p0 = mpm.coupled_momentum(S)
  run(S, 0.3)
  local p1 = mpm.coupled_momentum(S)
  local pm = 0
  for k = 1, m.nv do pm = pm + m.mass[k] * m.v:get(k, 1) end
  local rel = math.max(math.abs(p1[1] - p0[1]), math.abs(p1[2]), math.abs(p1[3])) / math.abs(p0[1])
  print(string.format("momentum 3D: %.15g -> %.15g (y %.2e, z %.2e), relative change %.2e; the mesh took %.1f %%",
    p0[1], p1[1], p1[2], p1[3], rel, 100 * pm / p0[1]))
  T.check(pm / p0[1] > 0.3, "3D: the mesh took momentum")
  T.check(rel < 1e-12, string.format("3D: total momentum kept to round-off: %.2e", rel))
end

-- 2. weight on a pinned slab, with the default contact distance (0.25 cells) and with the
-- contact wherever the stencils overlap (distance 1e6 cells, the scheme before the distance)
local gaps = {}
for _, dist in ipairs { 0.25, 1e6 } do
  local M, jelly = state({ n, n }, { 0, -9.81 })
  M:seed { shape = tide.shape.box { min = { 0.35, 0.3 + 1.5 / n }, max = { 0.65, 0.45 } }, material = jelly, stream = 1 }
  local m = tide.solid.box { min = { 0.2, 0.2 }, max = { 0.8, 0.3 }, cells = { 24, 4 } }
  m:material { model = "neohookean", E = 1e7, nu = 0.3, density = 1000, rayleigh_mass = 20 }
  m:pin(function(x) return x < 0.2 + 1e-9 or x > 0.8 - 1e-9 end)
  local S = mpm.solid_coupling(M, m, { friction = 0.3, solid_step = linear, distance = dist })
  local W = M:diagnostics().mass * 9.81
  -- window A 0.75-1.5 s (settling): resting gap; window B 1.5-3 s (at rest): force, gap, drift
  local J, tav, gav, gmin, gbv, gbmin, tb = 0, 0, 0, math.huge, 0, math.huge, 0
  -- the block's centre-of-mass height above the slab's top nodes under it (|x - 0.5| < 0.15)
  local function com()
    local s, h, c = 0, 0, 0
    for p = 1, M.n do s = s + M.x[p][2] end
    for k = 1, m.nv do
      if m.rest:get(k, 2) > 0.3 - 1e-9 and math.abs(m.rest:get(k, 1) - 0.5) < 0.15 then h = h + m.x:get(k, 2); c = c + 1 end
    end
    return s / M.n - h / c
  end
  local c15
  run(S, 3.0, function(t, dt)
    if t > 0.75 and t <= 1.5 then
      local gp = gap(M, m, 0.3); gav = gav + gp * dt; gmin = math.min(gmin, gp); tav = tav + dt
    elseif t > 1.5 then
      if not c15 then c15 = com() end
      J = J + S.stats[1].impulse[2]; tb = tb + dt
      local gp = gap(M, m, 0.3); gbv = gbv + gp * dt; gbmin = math.min(gbmin, gp)
    end
  end)
  gav, gbv = gav / tav, gbv / tb
  -- drift of the block's centre of mass relative to the slab surface under it, 1.5 -> 3 s
  local drift = com() - c15
  print(string.format("weight, distance %g cells: resting gap (lowest particle - slab top) %.3f cells mean over 0.75-1.5 s (min %.3f), %.3f over 1.5-3 s (min %.3f); centre of mass - slab top drift 1.5 -> 3 s %.4f cells",
    dist, gav * n, gmin * n, gbv * n, gbmin * n, drift * n))
  local ymin = math.huge
  for p = 1, M.n do ymin = math.min(ymin, M.x[p][2]) end
  local ratio = -J / tb / W
  print(string.format("weight: block %.3f N, force on the mesh over 1.5-3 s %.3f N (ratio %.5f), lowest particle %.4f m (slab top 0.3)",
    W, -J / tb, ratio, ymin))
  T.check(math.abs(ratio - 1) < 0.01, string.format("force on the mesh = weight within 1%%: %.5f", ratio))
  T.check(ymin > 0.3 - 1 / n, string.format("the block stays on the slab: lowest particle %.4f m", ymin))
  gaps[#gaps + 1] = gav * n
  if dist < 1 then
    T.check(gav * n < 0.5 and gmin * n > -0.25,
      string.format("distance %g: the block rests on the slab's surface: gap %.3f cells (min %.3f) in (-0.25, 0.5)", dist, gav * n, gmin * n))
    T.check(gbmin * n > 0.1 and gbv * n < 0.5,
      string.format("distance %g: no creep into the slab, 1.5-3 s: gap %.3f cells, min %.3f > 0.1 (a particle edge at the surface: 0.25)", dist, gbv * n, gbmin * n))
    T.check(math.abs(drift * n) < 0.05,
      string.format("distance %g: the block's centre of mass holds its height over the slab, 1.5 -> 3 s: %.4f cells (< 0.05)", dist, drift * n))
  end
end
T.check(gaps[1] < gaps[2] - 0.1, string.format("the contact distance closes the grid's contact gap: %.3f vs %.3f cells", gaps[1], gaps[2]))

do -- 3. cantilever under the block vs the equivalent distributed load
  local M, jelly = state({ 96, 64 }, { 0, -9.81 })
  local b0, b1 = 0.85, 1.15
  M:seed { shape = tide.shape.box { min = { b0, 0.55 + 1.5 / n }, max = { b1, 0.65 } }, material = jelly, stream = 1 }
  local function beam()
    local m = tide.solid.box { min = { 0.25, 0.45 }, max = { 1.25, 0.55 }, cells = { 40, 4 } }
    m:material { model = "neohookean", E = 1e8, nu = 0.3, density = 1000, rayleigh_mass = 20, plane_stress = true }
    m:pin(function(x) return x < 0.25 + 1e-9 end)
    return m
  end
  local function tip(m)
    local s, c = 0, 0
    for k = 1, m.nv do
      if m.rest:get(k, 1) > 1.25 - 1e-9 then s = s + m.x:get(k, 2) - m.rest:get(k, 2); c = c + 1 end
    end
    return s / c
  end
  local m = beam()
  local S = mpm.solid_coupling(M, m, { friction = 0.5, solid_step = linear })
  local W = M:diagnostics().mass * 9.81
  local acc, tav = 0, 0
  run(S, 1.0, function(t, dt) if t > 0.75 then acc = acc + tip(m) * dt; tav = tav + dt end end)
  local coupled = acc / tav
  -- the same beam, same integrator and steps: own weight alone, and with the block's weight as traction
  local own, loaded = beam(), beam()
  local faces = loaded:select_faces { min = { b0 - 1e-9, 0.55 - 1e-9 }, max = { b1 + 1e-9, 0.56 } }
  local f = loaded:surface_forces { loads = { { faces = faces, traction = { 0, -W / (b1 - b0) } } } }
  for k = 1, loaded.nv do for a = 1, 2 do loaded.force:set(k, a, f:get(k, a)) end end
  local ref, c = 0, 0
  for s = 1, 1000 do
    own:step_linear { dt = 1e-3 }; loaded:step_linear { dt = 1e-3 }
    if s > 750 then ref = ref + tip(loaded); c = c + 1 end
  end
  ref = ref / c
  local ratio = (coupled - tip(own)) / (ref - tip(own))
  print(string.format("cantilever: tip %.5f m coupled, %.5f m distributed load, %.5f m own weight: deflection by the block / by the load %.4f",
    coupled, ref, tip(own), ratio))
  T.check(math.abs(ratio - 1) < 0.05, string.format("tip deflection by the block within 5%% of the distributed load's: %.4f", ratio))
end

os.exit(T.report())
