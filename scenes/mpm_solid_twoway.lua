-- An MPM jelly cube dropped on a soft FEM beam pinned at both ends, two-way coupled
-- on the MPM's momentum grid (tide.couple.mpm_solid through mls_mpm.solid_coupling;
-- docs/mpm.md "Two-way coupling with tide.solid meshes"): the beam bends under the
-- impact and the cube's weight, the cube bounces and settles on it.  Prints, per frame,
-- the beam's mid-span deflection, the cube's lowest point and the force the beam
-- received over the frame against the cube's weight.  2D.
--   build/tide scenes/mpm_solid_twoway.lua [--res 64] [--frames 60] [--E 3e6] [--paper] (res 128, 120 frames)
local tide = require "tide"
local mpm = require "tide.mls_mpm"

local P = tide.params({
  res = 64, frames = 60, fps = 30, out = "out/mpm_solid_twoway", image = 640, E = 3e6, jelly = 2e4,
  friction = 0.4, paper = false,
}, {
  res = "MPM cells across the box", E = "Young's modulus of the beam [Pa]", jelly = "Young's modulus of the cube [Pa]",
  friction = "Coulomb friction between cube and beam", image = "PNG width in pixels",
  paper = "bigger run: res 128, 120 frames",
})
if P.paper then P.res, P.frames = math.max(P.res, 128), math.max(P.frames, 120) end

local n = P.res
local g = tide.grid.new { size = { n, n }, dx = 1 / n }
local M = tide.mpm.new { grid = g, gravity = { 0, -9.81 }, walls = "separate", friction = 0.2 }
local jelly = M:material { model = "neohookean", E = P.jelly, nu = 0.3, density = 1000 }
M:seed { shape = tide.shape.box { min = { 0.4, 0.6 }, max = { 0.6, 0.8 } }, material = jelly, stream = 1 }

local y0, y1 = 0.3, 0.36
local beam = tide.solid.box { min = { 0.1, y0 }, max = { 0.9, y1 }, cells = { math.max(8, n // 2), math.max(2, n // 32 * 2) } }
beam:material { model = "neohookean", E = P.E, nu = 0.3, density = 1000, rayleigh_mass = 2, plane_stress = true }
beam:pin(function(x) return x < 0.1 + 1e-9 or x > 0.9 - 1e-9 end)
local S = mpm.solid_coupling(M, beam, { friction = P.friction,
  solid_step = function(m, dt) return m:step_linear { dt = dt } end })
local W = M:diagnostics().mass * 9.81
print(string.format("mpm_solid_twoway: %d MPM particles (%.1f N per m), beam %d triangles (E %g Pa), %d cells across",
  M.n, W, beam.ne, P.E, n))

local J, tJ = 0, 0
local function mid()
  local s, c = 0, 0
  for k = 1, beam.nv do
    if math.abs(beam.rest:get(k, 1) - 0.5) < 1e-9 then s = s + beam.x:get(k, 2) - beam.rest:get(k, 2); c = c + 1 end
  end
  return s / c
end

local function frame(i, t)
  local lo = math.huge
  for p = 1, M.n do lo = math.min(lo, M.x[p][2]) end
  print(string.format("t = %.2f s: beam mid-span %.4f m, cube bottom %.4f m, force on the beam %.1f N (weight %.1f N)",
    t, mid(), lo, tJ > 0 and -J / tJ or 0, W))
  J, tJ = 0, 0
  tide.fileio.png2d { path = string.format("%s/frame_%04d.png", P.out, i), grid = g, width = P.image, mesh = beam,
    particles = M.x, particle_color = mpm.colour_by_material(M), particle_range = { 0, 1 }, particle_colormap = "viridis",
    title = string.format("MPM jelly on an FEM beam  t = %.2f s", t) }
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
