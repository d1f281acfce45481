-- tide.fileio.png3d and tide.fileio.isosurface from Lua: pictures, arrays, errors.
local tide = require "tide"
local T = require "tide.testing"
local A = tide.array
local fio = tide.fileio

local U = dofile(T.source("tests/fileio/util.lua"))
local dir = U.tmpdir("png3d")

-- a sphere of radius 0.3 in the unit box, 16^3 cells
local n = 16
local phi = A.zeros({n, n, n})
for i = 1, n do for j = 1, n do for k = 1, n do
  local x, y, z = (i - 0.5) / n - 0.5, (j - 0.5) / n - 0.5, (k - 0.5) / n - 0.5
  phi:set(i, j, k, math.sqrt(x * x + y * y + z * z) - 0.3)
end end end

local V, N, Tr = fio.isosurface{ phi = phi, dx = 1 / n, origin = {-0.5, -0.5, -0.5} }
T.check(V.shape[2] == 3 and N.shape[1] == V.shape[1] and Tr.dtype == "i32", "isosurface arrays")
local worst = 0
for v = 1, V.shape[1] do
  local r = math.sqrt(V:get(v, 1) ^ 2 + V:get(v, 2) ^ 2 + V:get(v, 3) ^ 2)
  worst = math.max(worst, math.abs(r - 0.3))
end
T.check(worst < 0.25 / n ^ 2 / 0.3, "isosurface vertices on the sphere (off by " .. worst .. ")")
T.check(Tr:min() == 0 and Tr:max() == V.shape[1] - 1, "0-based connectivity over all vertices")

-- head-on view with a red surface: centre red, corner background
local path = dir .. "/s_0000.png"
T.check(fio.png3d{ path = path, phi = phi, dx = 1 / n, origin = {-0.5, -0.5, -0.5}, width = 160, height = 120,
  liquid_color = {1, 0, 0}, ground = false, box = false, background = {0, 0, 0},
  camera = { position = {0, 0, 3}, target = {0, 0, 0}, fov = 30 } } == path, "png3d returns the path")
local img = fio.png_read(path)
T.check(img.shape[1] == 120 and img.shape[2] == 160, "image size")
T.check(img:get(60, 80, 1) > 120 and img:get(60, 80, 2) < 30, "sphere centre is lit red: " ..
  img:get(60, 80, 1) .. "," .. img:get(60, 80, 2))
T.check(img:get(2, 2, 1) == 0 and img:get(2, 2, 3) == 0, "background black in the corner")

-- particles and a mesh, orthographic camera, with a 3D tide.Grid
local g = tide.grid.new{ size = {8, 8, 8}, dx = 1 / 8 }
local P = A.from({{0.5, 0.5, 0.5}})
path = dir .. "/p_0000.png"
fio.png3d{ path = path, grid = g, particles = P, radius = 0.2, particle_rgb = {0, 1, 0}, width = 100, height = 100,
  ground = false, box = true, background = {1, 1, 1}, shadows = false,
  camera = { position = {0.5, 0.5, 5}, target = {0.5, 0.5, 0.5}, ortho = 1.2 },
  meshes = { { vertices = A.from({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}), triangles = A.from({{0, 1, 2}}, "i32"),
    color = {0, 0, 1} } } }
img = fio.png_read(path)
T.check(img:get(50, 50, 2) > 150 and img:get(50, 50, 1) < 100, "particle in the middle (green)")
-- ortho 1.2 m over 100 px: the box edge x = 0 lies at pixel 50 - 0.5 / 1.2 * 100 = 8.3
local edge = img:get(70, 9, 1) + img:get(70, 9, 2) + img:get(70, 9, 3)
T.check(edge < 600, "domain box edge drawn at x = 0 (sum " .. edge .. ")")
-- the triangle lies behind the particle at z = 0, lower left: blue at (x = 0.2, y = 0.2)
local px, py = math.floor(50 + (0.2 - 0.5) / 1.2 * 100) + 1, math.floor(50 - (0.2 - 0.5) / 1.2 * 100) + 1
T.check(img:get(py, px, 3) > 60 and img:get(py, px, 1) < 60, "mesh triangle visible (blue)")

-- native objects: a particle set coloured by speed, a tet mesh's boundary
local g3 = tide.grid.new{ size = {8, 8, 8}, dx = 1 / 8 }
local ps = tide.liquid.seed{ grid = g3, box = { min = {0, 0, 0}, max = {0.5, 0.5, 0.5} }, velocity = {0, 2, 0} }
local tm = tide.solid.box{ min = {0.6, 0, 0.6}, max = {0.9, 0.3, 0.9}, cells = {2, 2, 2} }
path = dir .. "/native_0000.png"
T.check(fio.png3d{ path = path, grid = g3, particles = ps, particle_color = "speed", particle_range = {0, 4},
  meshes = { tm, { mesh = tm, wire = 1, color = {0, 1, 0} } }, width = 96 } == path, "particles and TetMesh drawn")
T.raises(function() fio.png3d{ path = path, particles = A.zeros({3, 3}), particle_color = "speed" } end,
  "needs a tide.Particles", "speed needs velocities")
T.raises(function() fio.png3d{ path = path, grid = g3, meshes = { { mesh = tm, vertices = A.zeros({3, 3}) } } } end,
  "not both", "mesh and vertices")

-- same frame with 1 and 2 threads
local function sum(th)
  tide.threads(th)
  local p = dir .. "/d.png"
  fio.png3d{ path = p, phi = phi, dx = 1 / n, particles = A.from({{0.2, 0.9, 0.3}, {0.8, 0.8, 0.4}}), width = 128 }
  return fio.png_read(p):checksum()
end
T.check(sum(1) == sum(2), "identical frames with 1 and 2 threads")

-- errors
local ok = { path = dir .. "/e.png", phi = phi, dx = 1 / n }
local function with(k, v)
  local t = {}
  for a, b in pairs(ok) do t[a] = b end
  t[k] = v
  return t
end
T.raises(function() fio.png3d(with("phi", A.zeros({4, 4}))) end, "3D cell array", "2D phi")
T.raises(function() fio.png3d(with("dx", -1)) end, "'dx'", "negative dx")
T.raises(function() fio.png3d(with("dx", nil)) end, "cell size is unknown", "no dx")
T.raises(function() fio.png3d(with("camera", { position = {0, 0, 0}, target = {0, 0, 0} })) end, "equals its target", "degenerate camera")
T.raises(function() fio.png3d(with("camera", { fov = 200 })) end, "'fov'", "fov range")
T.raises(function() fio.png3d(with("camera", { eye = {1, 2, 3} })) end, "unknown option 'eye'", "camera keys")
T.raises(function() fio.png3d(with("antialias", 9)) end, "'antialias'", "antialias range")
T.raises(function() fio.png3d(with("lights", { { dir = {0, 0, 0} } })) end, "zero", "zero light")
T.raises(function() fio.png3d(with("lights", { {}, {}, {} })) end, "at most 2", "three lights")
T.raises(function() fio.png3d(with("meshes", { { vertices = A.zeros({3, 3}), triangles = A.from({{0, 1, 3}}, "i32") } })) end,
  "vertex 3", "mesh index out of range")
T.raises(function() fio.png3d(with("meshes", { { vertices = A.zeros({3, 2}), triangles = A.from({{0, 1, 2}}, "i32") } })) end,
  "vertices", "2D vertices")
T.raises(function() fio.png3d(with("particles", A.from({{0, 0 / 0, 0}}))) end, "non-finite", "NaN particle")
T.raises(function() fio.png3d(with("colour", 1)) end, "unknown option 'colour'", "unknown key")
T.raises(function() fio.png3d{ path = ok.path } end, "nothing to draw", "empty scene")
local bad = phi:clone()
bad:set(1, 1, 1, 0 / 0)
T.raises(function() fio.isosurface{ phi = bad, dx = 0.1 } end, "non-finite", "NaN phi")
T.raises(function() fio.isosurface{ phi = phi, grid = tide.grid.new{ size = {4, 4}, dx = 0.1 } } end, "3D grid", "2D grid")
T.raises(function() fio.isosurface{ phi = phi, grid = tide.grid.new{ size = {4, 4, 4}, dx = 0.1 } } end, "shape", "grid mismatch")

U.cleanup(dir)
os.exit(T.report())
