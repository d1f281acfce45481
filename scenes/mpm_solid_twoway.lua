-- An MPM jelly cube dropped on a soft FEM beam pinned at both ends, two-way coupled
-- on the MPM's momentum grid (tide.couple.mpm_solid through mls_mpm.solid_coupling;
-- docs/mpm.md "Two-way coupling with tide.solid meshes"): the beam bends under the
-- impact and the cube's weight, the cube bounces and settles on it.  Prints, per frame,
-- the beam's mid-span deflection, the cube's lowest point, (2D) the gap between the
-- cube's lowest particle and the beam's top surface under it, and the force the beam
-- received over the frame against the cube's weight.  2D frames colour the jelly by speed.  2D, or 3D with --dim 3 (a plate
-- strip 0.3 m deep of tetrahedra, pinned at both ends).
--   build/tide scenes/mpm_solid_twoway.lua [--res 64] [--frames 60] [--E 3e6] [--dim 3] [--paper] (res 128, 120 frames)
local tide = require "tide"
local mpm = require "tide.mls_mpm"

local P = tide.params({
  res = 64, dim = 2, frames = 60, fps = 30, out = "out/mpm_solid_twoway", image = 640, E = 3e6, jelly = 2e4,
  friction = 0.4, distance = 0.25, paper = false,
}, {
  distance = "contact distance [cells]: the contact acts where the jelly is within it of the beam",
  dim = "2 or 3",
  res = "MPM cells across the box", E = "Young's modulus of the beam [Pa]", jelly = "Young's modulus of the cube [Pa]",
  friction = "Coulomb friction between cube and beam", image = "PNG width in pixels",
  paper = "bigger run: res 128, 120 frames",
})
if P.paper then P.res, P.frames = math.max(P.res, 128), math.max(P.frames, 120) end

local n, d = P.res, P.dim
assert(d == 2 or d == 3, "--dim must be 2 or 3")
local g = tide.grid.new { size = d == 3 and { n, n, n // 2 } or { n, n }, dx = 1 / n }
local function lohi(lo, hi, zh) -- a box, 2D or centred in z (depth 2 zh) in 3D
  if d == 2 then return { min = lo, max = hi } end
  return { min = { lo[1], lo[2], 0.25 - zh }, max = { hi[1], hi[2], 0.25 + zh } }
end
local M = tide.mpm.new { grid = g, gravity = d == 3 and { 0, -9.81, 0 } or { 0, -9.81 }, walls = "separate", friction = 0.2 }
local jelly = M:material { model = "neohookean", E = P.jelly, nu = 0.3, density = 1000 }
M:seed { shape = tide.shape.box(lohi({ 0.4, 0.6 }, { 0.6, 0.8 }, 0.1)), material = jelly, stream = 1 }

local y0, y1 = 0.3, 0.36
local cells = { math.max(8, n // 2), math.max(2, n // 32 * 2) }
if d == 3 then cells[3] = math.max(2, n // 8) end
local box = lohi({ 0.1, y0 }, { 0.9, y1 }, 0.15)
box.cells = cells
local beam = tide.solid.box(box)
beam:material { model = "neohookean", E = P.E, nu = 0.3, density = 1000, rayleigh_mass = 2, plane_stress = d == 2 or nil }
beam:pin(function(x) return x < 0.1 + 1e-9 or x > 0.9 - 1e-9 end)
local S = mpm.solid_coupling(M, beam, { friction = P.friction, distance = P.distance,
  solid_step = function(m, dt) return m:step_linear { dt = dt } end })
local W = M:diagnostics().mass * 9.81
print(string.format("mpm_solid_twoway: %dD, %d MPM particles (weight %.1f N%s), beam %d elements (E %g Pa), %d cells across",
  d, M.n, W, d == 2 and " per m" or "", beam.ne, P.E, n))

local J, tJ = 0, 0
local function mid()
  local s, c = 0, 0
  for k = 1, beam.nv do
    if math.abs(beam.rest:get(k, 1) - 0.5) < 1e-9 and beam.rest:get(k, 2) < y0 + 1e-9 then s = s + beam.x:get(k, 2) - beam.rest:get(k, 2); c = c + 1 end
  end
  return s / c
end

-- min over the particles of y_p - (the beam's top surface at x_p, linear between its
-- current top nodes) [cells]; 2D
local top = {}
for k = 1, beam.nv do if beam.rest:get(k, 2) > y1 - 1e-9 then top[#top + 1] = k end end
table.sort(top, function(a, b) return beam.rest:get(a, 1) < beam.rest:get(b, 1) end)
local function gap()
  local lo = math.huge
  for p = 1, M.n do
    local px, py = M.x[p][1], M.x[p][2]
    for i = 1, #top - 1 do
      local a, b = top[i], top[i + 1]
      local xa, xb = beam.x:get(a, 1), beam.x:get(b, 1)
      if px >= xa and px <= xb then
        local ya, yb = beam.x:get(a, 2), beam.x:get(b, 2)
        lo = math.min(lo, py - (ya + (yb - ya) * (px - xa) / (xb - xa)))
        break
      end
    end
  end
  return lo / M.dx
end
local speed = d == 2 and tide.array.zeros(M.n) or nil

local function frame(i, t)
  local lo = math.huge
  for p = 1, M.n do lo = math.min(lo, M.x[p][2]) end
  print(string.format("t = %.2f s: beam mid-span %.4f m, cube bottom %.4f m%s, force on the beam %.1f N (weight %.1f N)",
    t, mid(), lo, d == 2 and string.format(" (gap to the beam %.2f cells)", gap()) or "", tJ > 0 and -J / tJ or 0, W))
  J, tJ = 0, 0
  local path, title = string.format("%s/frame_%04d.png", P.out, i), string.format("MPM jelly on an FEM beam  t = %.2f s", t)
  if d == 3 then
    return tide.fileio.png3d { path = path, grid = g, width = P.image, meshes = { beam }, particles = M.x,
      radius = 0.35 * M.dx, title = title }
  end
  for p = 1, M.n do
    local v = M.v[p]
    speed[p] = math.sqrt(v[1] * v[1] + v[2] * v[2])
  end
  tide.fileio.png2d { path = path, grid = g, width = P.image, mesh = beam,
    particles = M.x, particle_color = speed, particle_range = { 0, 2.5 }, particle_colormap = "viridis",
    colorbar_label = "speed [m/s]", title = title }
end

tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "mpm_solid_twoway",
  max_dt = function() return mpm.coupled_max_dt(S, 0.4) end,
  step = function(dt)
    mpm.coupled_step(S, dt)
    J, tJ = J + S.stats[1].impulse[2], tJ + dt
  end,
  frame = frame,
}
