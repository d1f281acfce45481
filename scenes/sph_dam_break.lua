-- SPH dam break against an obstacle: a water column released in a tank of
-- boundary particles (Akinci et al. 2012) hits a block on the floor; with
-- --boundary sdf the tank and the block are SDF walls (S:sdf_boundary: Harada
-- et al. 2007's wall weight for the box tank, a density map for the block) instead.
-- WCSPH (Tait, Becker & Teschner 2007) or DFSPH (Bender & Koschier 2015).
--   build/tide scenes/sph_dam_break.lua [--res 64] [--dim 3] [--method dfsph] [--boundary sdf] [--frames 60]
-- The steps are lua/tide/sph_step.lua; frames are out/sph_dam_break/frame_%04d.png,
-- particles coloured by speed.
local tide = require "tide"
local sph = require "tide.sph_step"

local P = tide.params({
  res = 64, dim = 2, frames = 60, fps = 30, method = "wcsph", kernel = "cubic", out = "out/sph_dam_break",
  image = 640, cfl = 0.4, boundary = "particles",
}, {
  boundary = "particles (Akinci et al. 2012) or sdf (SDF walls: wall weight for the box tank, density map for the block)",
  res = "particles per metre", dim = "2 or 3", method = "wcsph or dfsph", kernel = "cubic or wendland",
  image = "PNG width in pixels", cfl = "Courant number of the step",
})
assert(P.method == "wcsph" or P.method == "dfsph", "--method must be wcsph or dfsph")
assert(P.boundary == "particles" or P.boundary == "sdf", "--boundary must be particles or sdf")

local d, dx = P.dim, 1 / P.res
local W, Hh, D = 1.6, 0.8, 0.6 -- tank [0, W] x [0, H] (x [0, D] in 3D) [m]
local function vec(x, y, z) return d == 3 and { x, y, z } or { x, y } end
local n = function(L) return math.floor(L * P.res + 0.5) end
local g = tide.grid.new { size = d == 3 and { n(W) + 4, n(Hh) + 4, n(D) + 4 } or { n(W) + 4, n(Hh) + 4 },
  dx = dx, origin = vec(-2 * dx, -2 * dx, -2 * dx) }
local S = tide.sph.new { grid = g, kernel = P.kernel, support = 2, sound_speed = 10 * math.sqrt(2 * 9.81 * 0.6),
  viscosity = 0.05, gravity = vec(0, -9.81, 0) }
local tank = tide.shape.box { min = vec(0, 0, 0), max = vec(W, Hh, D) }
local obstacle = tide.shape.box { min = vec(1.0, 0, 0.2), max = vec(1.12, 0.16, 0.4) }
if P.boundary == "sdf" then
  S:sdf_boundary { shape = tank, side = "outside" }
  S:sdf_boundary { shape = obstacle, side = "inside" }
else
  S:boundary { shape = tank, layers = 2, side = "outside" }
  S:boundary { shape = obstacle, layers = 2, side = "inside" }
end
S:seed { shape = tide.shape.box { min = vec(0, 0, 0), max = vec(0.4, 0.6, D) } }
print(string.format("sph dam break: %dD, %s, %d fluid + %d boundary particles, %d SDF wall surfaces", d, P.method,
  S.n, S.nb, S.nwall))

local function speed() return sph.speeds(S) end

local bx = S.boundary_x
local obstacle_mesh -- 3D frames draw the block as a mesh (the tank's walls would hide the water)
local obstacle_cells = d == 2 and select(2, g:face_fractions(obstacle)) or nil -- 2D frames: the block's cells
if d == 3 then
  local V, N, T = tide.fileio.isosurface { phi = obstacle:sdf(g), grid = g }
  obstacle_mesh = { vertices = V, normals = N, triangles = T, color = { 0.8, 0.45, 0.3 } }
end
local function frame(i, t)
  local path = string.format("%s/frame_%04d.png", P.out, i)
  local title = string.format("SPH (%s)  t = %.2f s", P.method, t)
  if d == 2 then
    tide.fileio.png2d { path = path, grid = g, labels = obstacle_cells, width = P.image,
      particles = S.x, particle_color = speed(), particle_range = { 0, 4 }, particle_colormap = "viridis",
      radius_px = math.max(1, P.image / P.res / W / 2.5), title = title }
  else
    tide.fileio.png3d { path = path, width = P.image, particles = S.x, particle_color = speed(),
      particle_range = { 0, 4 }, particle_colormap = "viridis", radius = 0.45 * dx, title = title,
      meshes = { obstacle_mesh } }
  end
end
assert(bx.shape[1] == S.nb)

local unconverged = 0
tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "sph_dam_break",
  max_dt = function() return sph.max_dt(S, P.method, P.cfl, P.method == "dfsph" and 2e-3 or nil) end,
  step = function(dt)
    if P.method == "wcsph" then
      sph.wcsph_step(S, dt)
    else
      local r = sph.dfsph_step(S, dt)
      if not r.converged then unconverged = unconverged + 1 end
    end
  end,
  frame = frame,
}
local D_ = S:diagnostics()
print(string.format("kinetic %.4g J, mean density error %.3f%%, particles clamped at the box %d, projected out of SDF walls %d%s",
  D_.kinetic, 100 * D_.density_error, D_.clamped, D_.projected,
  P.method == "dfsph" and string.format(", %d steps with a solve at its iteration limit", unconverged) or ""))
