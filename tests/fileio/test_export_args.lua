-- Argument checking of the data writers (npy, ply, obj, vti, vtp, vtu, pvd).
local tide = require "tide"
local T = require "tide.testing"
local A = tide.array
local fio = tide.fileio

local U = dofile(T.source("tests/fileio/util.lua"))
local dir = U.tmpdir("exports")
local X = A.zeros({4, 3})
local Tr = A.from({{0, 1, 2}}, "i32")

T.raises(function() fio.npy(dir .. "/a.npy", {}) end, "tide.Array expected", "npy of a table")
T.raises(function() fio.npy(42, X) end, "path must be a string", "npy path type")
local a, msg = fio.npy_read(dir .. "/missing.npy")
T.check(a == nil and msg:find("cannot read"), "npy_read of a missing file: nil, message")

T.raises(function() fio.ply{ path = dir .. "/a.ply", points = A.zeros({4, 4}) } end, "(n, 2) or (n, 3)", "ply point shape")
T.raises(function() fio.ply{ path = dir .. "/a.ply", points = X, attributes = { s = A.zeros(3) } } end, "shape (4)",
  "ply attribute length")
T.raises(function() fio.ply{ path = dir .. "/a.ply", points = X, attributes = { s = 1 } } end, "tide.Array", "ply attr type")
T.raises(function() fio.ply{ path = dir .. "/a.ply", points = X, attributes = { "x" } } end, "map names", "ply attr list")
T.raises(function() fio.ply{ path = dir .. "/a.ply", points = X, triangles = A.from({{0, 1, 4}}, "i32") } end,
  "vertex 4", "ply index range")
T.raises(function() fio.ply{ path = dir .. "/a.ply", points = X, triangles = Tr, segments = A.from({{0, 1}}, "i32") } end,
  "not both", "ply faces and segments")
T.raises(function() fio.ply{ path = dir .. "/a.ply", points = X, attributes = { ["bad name"] = A.zeros(4) } } end,
  "space", "ply attribute name with a space")
T.raises(function() fio.obj{ path = dir .. "/a.obj", vertices = X, normals = A.zeros({3, 3}) } end, "normals", "obj normals")
T.raises(function() fio.obj{ path = dir .. "/a.obj", vertices = A.from({{0, 0 / 0, 0}}) } end, "non-finite", "obj NaN")

local g = tide.grid.new{ size = {3, 2}, dx = 0.5 }
T.raises(function() fio.vti{ path = dir .. "/a.vti", grid = g, cells = { c = A.zeros({2, 3}) } } end, "extent",
  "vti cell shape")
T.raises(function() fio.vti{ path = dir .. "/a.vti", grid = g, points = { p = A.zeros({3, 2}) } } end, "extent",
  "vti point shape")
T.raises(function() fio.vti{ path = dir .. "/a.vti", n = {3, 2} } end, "missing option 'dx'", "vti without dx")
T.raises(function() fio.vti{ path = dir .. "/a.vti", grid = g, dx = 1 } end, "not both", "vti grid and dx")
T.raises(function() fio.vti{ path = dir .. "/a.vti", cells = {} } end, "grid is unknown", "vti without grid")
T.raises(function()
  fio.vti{ path = dir .. "/a.vti", grid = g, velocity = tide.grid.new{ size = {4, 4}, dx = 0.5 }:mac() }
end, "another grid", "vti velocity grid")
T.raises(function() fio.vtp{ path = dir .. "/a.vtp", points = X, point_data = { ['a"b'] = A.zeros(4) } } end, "markup",
  "vtp attribute name with a quote")
T.raises(function() fio.vtp{ path = dir .. "/a.vtp", points = X, cell_data = { c = A.zeros(3) } } end, "shape (4)",
  "vtp cell data count (one vertex cell per point)")
T.raises(function() fio.vtu{ path = dir .. "/a.vtu", points = X, cells = A.zeros({1, 5}, "i32") } end, "(m, 4)",
  "vtu cell size")
T.raises(function() fio.vtu{ path = dir .. "/a.vtu", points = X } end, "missing option 'cells'", "vtu without cells")
T.raises(function() fio.pvd(dir .. "/a.pvd", 0 / 0, "x.vtp") end, "finite", "pvd NaN time")
T.raises(function() fio.pvd(dir .. "/a.pvd", 0, 'x".vtp') end, "bad data file name", "pvd quote in name")

-- valid calls write files atomically and leave no temporary behind
T.check(fio.vtu{ path = dir .. "/ok/t.vtu", points = X, cells = A.from({{0, 1, 2, 3}}, "i32") }, "vtu written")
T.check(fio.ply{ path = dir .. "/ok/t.ply", points = X, triangles = Tr, double = true }, "ply written")
local listing = U.listing(dir .. "/ok")
T.check(listing == "t.ply\nt.vtu\n", "only the two files: " .. listing)
U.cleanup(dir)
os.exit(T.report())
