-- Writes one file of every export format with values given by formulas that
-- tests/fileio/exports_check.py recomputes (run by test_exports.sh).
local tide = require "tide"
local A = tide.array
local fio = tide.fileio
local dir = assert(arg[1], "output directory")

-- 3D grid 5 x 4 x 3, dx 0.5, origin (1, 2, 3)
local g = tide.grid.new{ size = {5, 4, 3}, dx = 0.5, origin = {1, 2, 3} }
local c = A.zeros({5, 4, 3})
local cv = A.zeros({5, 4, 3, 2}, "f32")
local lab = A.zeros({5, 4, 3}, "u8")
for i = 1, 5 do for j = 1, 4 do for k = 1, 3 do
  c:set(i, j, k, 100 * i + 10 * j + k)
  cv:set(i, j, k, 1, i - j); cv:set(i, j, k, 2, k * 0.5)
  lab:set(i, j, k, (i + j + k) % 3)
end end end
local p = A.zeros({6, 5, 4}, "i32")
for i = 1, 6 do for j = 1, 5 do for k = 1, 4 do p:set(i, j, k, i * j - k) end end end
local u = g:mac()
local ux, uy, uz = u:component(1), u:component(2), u:component(3)
for i = 1, 6 do for j = 1, 4 do for k = 1, 3 do ux:set(i, j, k, i) end end end
for i = 1, 5 do for j = 1, 5 do for k = 1, 3 do uy:set(i, j, k, 2 * j) end end end
for i = 1, 5 do for j = 1, 4 do for k = 1, 4 do uz:set(i, j, k, -k) end end end
fio.vti{ path = dir .. "/grid.vti", grid = g, cells = { c = c, cv = cv, label = lab }, points = { p = p },
  velocity = u }

-- 2D grid from n/dx
local c2 = A.zeros({3, 2})
for i = 1, 3 do for j = 1, 2 do c2:set(i, j, i + 0.25 * j) end end
fio.vti{ path = dir .. "/grid2d.vti", n = {3, 2}, dx = 0.1, origin = {-1, 0}, cells = { c2 = c2 } }

-- particles with attributes (vtp, ply)
local n = 7
local x = A.zeros({n, 3})
local speed, id = A.zeros(n, "f32"), A.zeros(n, "i32")
local vel = A.zeros({n, 3})
for q = 1, n do
  x:set(q, 1, q); x:set(q, 2, q * q); x:set(q, 3, -q)
  speed:set(q, q / 4); id:set(q, 10 * q)
  vel:set(q, 1, q); vel:set(q, 2, 0); vel:set(q, 3, 1 / q)
end
fio.vtp{ path = dir .. "/particles.vtp", points = x, point_data = { speed = speed, id = id, velocity = vel } }
fio.ply{ path = dir .. "/particles.ply", points = x, attributes = { speed = speed, id = id, velocity = vel } }

-- a surface mesh: two triangles (vtp, ply, obj), 2D segments (vtp)
local V = A.from({{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0.5}})
local Tr = A.from({{0, 1, 2}, {0, 2, 3}}, "i32")
local Nn = A.from({{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}})
fio.vtp{ path = dir .. "/surface.vtp", points = V, triangles = Tr, point_data = { h = A.from({1, 2, 3, 4}) },
  cell_data = { area = A.from({0.5, 0.5}) } }
fio.ply{ path = dir .. "/surface.ply", points = V, triangles = Tr, attributes = { normal = Nn } }
fio.obj{ path = dir .. "/surface.obj", vertices = V, normals = Nn, triangles = A.from({{1, 2, 3}, {1, 3, 4}}, "i32"),
  index_base = 1 }
fio.vtp{ path = dir .. "/rod.vtp", points = A.from({{0, 0}, {1, 0}, {2, 1}}), segments = A.from({{0, 1}, {1, 2}}, "i32") }

-- tets (vtu)
local P = A.from({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {1, 1, 1}})
local Te = A.from({{0, 1, 2, 3}, {1, 2, 3, 4}}, "i32")
fio.vtu{ path = dir .. "/tets.vtu", points = P, cells = Te, point_data = { T = A.from({0, 1, 2, 3, 4}) },
  cell_data = { E = A.from({1e4, 2e4}), stress = A.from({{1, 2, 3, 4, 5, 6}, {7, 8, 9, 10, 11, 12}}) } }
fio.vtu{ path = dir .. "/tris.vtu", points = V, cells = Tr }

-- a time collection of 3 frames written out of order, one rewritten
for _, fr in ipairs { 2, 0, 1, 1 } do
  local f = string.format("%s/series/frame_%04d.vtp", dir, fr)
  fio.vtp{ path = f, points = x:clone():scale(fr + 1) }
  fio.pvd(dir .. "/series.pvd", fr * 0.04, f)
end

-- npy of every dtype and of a strided view
local m = A.zeros({3, 4})
for i = 1, 3 do for j = 1, 4 do m:set(i, j, i * 10 + j + 0.5) end end
fio.npy(dir .. "/m.npy", m)
fio.npy(dir .. "/col.npy", m:slice(2, 2, 2))
fio.npy(dir .. "/f32.npy", A.linspace(0, 1, 5):clone())
fio.npy(dir .. "/i32.npy", A.from({-1, 2, 3}, "i32"))
fio.npy(dir .. "/u8.npy", A.from({{1, 2}, {254, 255}}, "u8"))
fio.npy(dir .. "/cube.npy", c)
-- native objects: a particle set (positions + velocity) and a tet mesh
local g3 = tide.grid.new{ size = {4, 4, 4}, dx = 0.25 }
local ps = tide.liquid.seed{ grid = g3, box = { min = {0, 0, 0}, max = {0.5, 0.5, 0.5} }, velocity = {1, 2, 3} }
fio.vtp{ path = dir .. "/native_particles.vtp", points = ps }
local tm = tide.solid.box{ min = {0, 0, 0}, max = {1, 2, 3}, cells = {1, 2, 3} }
fio.vtu{ path = dir .. "/native_mesh.vtu", mesh = tm }
local ef = assert(io.open(dir .. "/native.txt", "w"))
ef:write(string.format("%d %d\n", #ps, tm:elements().shape[1]))
ef:close()

-- npy round trip through our own reader
local back = assert(fio.npy_read(dir .. "/m.npy"))
assert(back:checksum() == m:checksum(), "npy_read round trip")
print("written")
