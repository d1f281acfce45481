-- Floating bodies in SPH: boxes of different densities dropped into a tank
-- (two-way coupling, tide.sph_body: the fluid's wall terms pushed back on each
-- body as pair-wise reactions, S:wall_force; docs/sph.md "Rigid bodies").  The
-- tank is an SDF box (Harada et al. 2007's wall weight), each box a density-map
-- wall (Koschier & Bender 2017) moving and turning with its body.
--   build/tide scenes/sph_floating.lua [--res 40] [--dim 3] [--method wcsph] [--frames 60]
-- DFSPH by default: each body is coupled inside the Jacobi iterations of both
-- pressure solves (sph.dfsph_step, coupling "iterated"), so the heavy box
-- lands on the floor and stays there (about 8x less CPU than WCSPH here);
-- WCSPH kicks the body by the force of the same force pass (no lag either).
-- Contact with the tank and between the boxes: speculative, friction 0.5
-- (the 1500 box lands on the 1800 one, off centre, and slides off it at
-- about 1.5 s).  Frames are
-- out/sph_floating/frame_%04d.png, particles coloured by speed.
local tide = require "tide"
local sph = require "tide.sph_step"
local SB = require "tide.sph_body"

local P = tide.params({
  res = 40, dim = 2, frames = 60, fps = 30, method = "dfsph", out = "out/sph_floating", image = 640, cfl = 0.4,
}, {
  res = "particles per metre", dim = "2 or 3", method = "wcsph or dfsph", image = "PNG width in pixels",
  cfl = "Courant number of the step",
})
assert(P.method == "wcsph" or P.method == "dfsph", "--method must be wcsph or dfsph")
assert(P.dim == 2 or P.dim == 3, "--dim must be 2 or 3")

local d, dx = P.dim, 1 / P.res
local W, Ht, D, depth = 1.6, 1.0, 0.5, 0.45 -- tank [0, W] x [0, Ht] (x [0, D] in 3D), water depth [m]
local function vec(x, y, z) return d == 3 and { x, y, z } or { x, y } end
local n = function(L) return math.floor(L * P.res + 0.5) end
local g = tide.grid.new { size = d == 3 and { n(W) + 4, n(Ht) + 4, n(D) + 4 } or { n(W) + 4, n(Ht) + 4 },
  dx = dx, origin = vec(-2 * dx, -2 * dx, -2 * dx) }
local S = tide.sph.new { grid = g, kernel = "cubic", support = 2, sound_speed = 10 * math.sqrt(2 * 9.81 * depth),
  viscosity = 0.05, gravity = vec(0, -9.81, 0), wall_pressure = "hydrostatic", renormalize = true }
local tank = tide.shape.box { min = vec(0, 0, 0), max = vec(W, Ht, D) }
S:sdf_boundary { shape = tank, side = "outside" }
-- boxes: x centre, drop height of the bottom, size, density [kg/m^d]
local specs = {
  { x = 0.28, y = 0.62, w = 0.22, h = 0.12, rho = 300, tilt = 0.3 },
  { x = 0.64, y = 0.72, w = 0.2, h = 0.14, rho = 600, tilt = -0.2 },
  { x = 0.98, y = 0.62, w = 0.24, h = 0.12, rho = 900, tilt = 0.1 },
  { x = 1.32, y = 0.70, w = 0.16, h = 0.14, rho = 1800, tilt = 0.0 },
  { x = 1.32, y = 0.88, w = 0.12, h = 0.08, rho = 1500, tilt = 0.0 }, -- lands on the 1800 box
}
S:seed { shape = tide.shape.box { min = vec(0, 0, 0), max = vec(W, depth, D) } }
local bodies = {}
for k, b in ipairs(specs) do
  local z0, z1 = 0.5 * D - 0.5 * b.w, 0.5 * D + 0.5 * b.w
  local box = tide.shape.box { min = vec(b.x - 0.5 * b.w, b.y, z0), max = vec(b.x + 0.5 * b.w, b.y + b.h, z1) }
  bodies[k] = SB.new(S, { shape = box, density = b.rho, container = { shape = tank, side = "outside" },
    angular_velocity = d == 2 and b.tilt or { 0, 0, b.tilt }, map_resolution = d == 3 and 2 or nil,
    sample = d == 3 and dx / 2 or nil })
end
print(string.format("sph floating: %dD, %s, %d fluid particles, %d boxes (densities %s kg/m^%d)", d, P.method, S.n,
  #bodies, "300, 600, 900, 1800, 1500", d))

local function speed() return sph.speeds(S) end

local colors = { { 0.95, 0.85, 0.4 }, { 0.85, 0.55, 0.3 }, { 0.7, 0.35, 0.25 }, { 0.45, 0.25, 0.2 }, { 0.3, 0.3, 0.5 } }
local function frame(i, t)
  local path = string.format("%s/frame_%04d.png", P.out, i)
  local title = string.format("SPH floating boxes (%s)  t = %.2f s", P.method, t)
  if d == 2 then
    -- each box exactly where it is (its corners through the body's pose), two filled triangles
    local V, T = tide.array.zeros({ 4 * #bodies, 2 }), tide.array.zeros({ 2 * #bodies, 3 }, "i32")
    for k, b in ipairs(bodies) do
      local c, R = b:pose()
      local sp = specs[k]
      local x0, x1, y0, y1 = sp.x - 0.5 * sp.w, sp.x + 0.5 * sp.w, sp.y, sp.y + sp.h
      for m, y in ipairs { { x0, y0 }, { x1, y0 }, { x1, y1 }, { x0, y1 } } do
        local w = b:to_world(y, c, R)
        V:set(4 * (k - 1) + m, 1, w[1]); V:set(4 * (k - 1) + m, 2, w[2])
      end
      local o = 4 * (k - 1)
      for a, tri in ipairs { { o, o + 1, o + 2 }, { o, o + 2, o + 3 } } do
        for e = 1, 3 do T:set(2 * (k - 1) + a, e, tri[e]) end
      end
    end
    tide.fileio.png2d { path = path, grid = g, vertices = V, triangles = T, mesh_color = { 0.55, 0.55, 0.55 },
      edge_width = 0, width = P.image, particles = S.x,
      particle_color = speed(), particle_range = { 0, 2 }, particle_colormap = "viridis",
      radius_px = math.max(1, P.image / P.res / W / 2.5), title = title }
  else
    local meshes = {}
    for k, b in ipairs(bodies) do
      local V, N, T = tide.fileio.isosurface { phi = b:world_shape():sdf(g), grid = g }
      meshes[k] = { vertices = V, normals = N, triangles = T, color = colors[k] }
    end
    tide.fileio.png3d { path = path, width = P.image, particles = S.x, particle_color = speed(),
      particle_range = { 0, 2 }, particle_colormap = "viridis", radius = 0.45 * dx, title = title, meshes = meshes }
  end
end

local unconverged = 0
tide.run {
  frames = P.frames, fps = P.fps, out = P.out, params = P, name = "sph_floating",
  max_dt = function() return sph.max_dt(S, P.method, P.cfl, P.method == "dfsph" and 2e-3 or nil) end,
  step = function(dt)
    if P.method == "wcsph" then
      sph.wcsph_step(S, dt, bodies)
    else
      local r = sph.dfsph_step(S, dt, { bodies = bodies, tol = 1e-3 })
      if not r.converged then unconverged = unconverged + 1 end
    end
  end,
  frame = frame,
}
for k, b in ipairs(bodies) do
  local c, R = b:pose()
  print(string.format("box %d (%g kg/m^%d): centre %s, speed %.3f m/s, %s", k, specs[k].rho, d,
    table.concat((function() local s = {} for a = 1, d do s[a] = string.format("%.3f", c[a]) end return s end)(), ", "),
    math.sqrt(b.v[1] ^ 2 + b.v[2] ^ 2 + (d == 3 and b.v[3] ^ 2 or 0)),
    d == 2 and string.format("angle %.3f rad", R) or "turned"))
end
local D_ = S:diagnostics()
print(string.format("kinetic %.4g J, mean density error %.3f%%, projected out of walls by the last drift %d%s",
  D_.kinetic, 100 * D_.density_error, D_.projected,
  P.method == "dfsph" and string.format(", %d steps with a solve at its iteration limit", unconverged) or ""))
