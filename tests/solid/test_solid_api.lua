-- tide.solid from Lua: meshes, shapes, materials, pins, and argument errors.
local tide = require "tide"
local T = require "tide.testing"
local S = tide.solid
local A = tide.array

-- meshes
local m = S.box { min = { 0, 0, 0 }, max = { 1, 0.2, 0.2 }, cells = { 5, 1, 1 } }
T.check(tostring(m):find("tide.TetMesh 3D, 24 nodes, 30 tetrahedra"), tostring(m))
T.check(m.dim == 3 and m.nv == 24 and m.ne == 30 and m.nb == 44 and not m.surface, "counts")
T.near(m:volume(), 0.04, 1e-12, "volume")
T.check(m.mass == nil, "no mass before a material")
local el = m:elements()
T.check(el.dtype == "i32" and el:min() >= 1 and el:max() <= m.nv, "1-based connectivity")
local bn, ba = m:boundary_normals()
T.near(ba:sum(), 2 * (0.2 * 0.2) + 4 * (1 * 0.2), 1e-12, "boundary area")

m:material { model = "neohookean", E = 1e5, nu = 0.3, density = 500 }
T.near(m.mass:sum(), 500 * 0.04, 1e-9, "lumped mass")
T.near(m:energy(), 0, 1e-20, "no energy at rest")
-- zero-copy node arrays: write positions, see the energy change
local x = m.x
x:set(24, 1, x:get(24, 1) + 0.01)
T.check(m:energy() > 0, "m.x shares memory with the mesh")
local f = m:forces()
T.near(f:sum(), 0, 1e-9, "internal forces sum to zero")
m:reset()
T.near(m:energy(), 0, 1e-20, "reset")
T.check(m.gravity[2] == -9.81, "default gravity")

-- pins: function, list, region
T.check(m:pin(function(px) return px < 1e-9 end) == 4, "pin by function")
T.check(m.pinned:sum() == 4, "pinned flags")
T.check(m:unpin { 1, 2 } == 2 and m.pinned:sum() == 2, "unpin by list")
T.check(m:pin { min = { 0.99, -1, -1 }, max = { 2, 2, 2 } } == 4, "pin by region")
T.raises(function() m:pin { 0 } end, "node index must be in 1..24", "bad node index")
T.raises(function() m:pin(42) end, "nodes must be", "bad selection")

-- 2D
local r = S.box { min = { 0, 0 }, max = { 2, 1 }, cells = { 4, 2 } }
T.check(r.dim == 2 and r.ne == 16, "2D box")
r:material { model = "fixed_corotated", mu = 100, lambda = 200, density = 10 }
T.near(r.mass:sum(), 20, 1e-12, "2D mass per area")

-- shapes and BCC meshes
local sh = S.shape.sphere { center = { 0, 0, 0 }, radius = 1 }
local phi, g = sh:eval { 2, 0, 0 }
T.near(phi, 1, 1e-15, "sphere distance")
T.near(g[1], 1, 1e-15, "sphere gradient")
local ring = S.shape.torus { center = { 0, 0 }, R = 0.7, r = 0.2 }
local disk = S.shape.sphere { center = { 0, 0 }, radius = 1 }
local cut = disk - S.shape.sphere { center = { 0, 0 }, radius = 0.5 }
T.check(tostring(cut):find("difference 2D"), "CSG by operators: " .. tostring(cut))
local dm = S.bcc { shape = ring, h = 0.05 }
T.near(dm:volume() / (math.pi * (0.81 - 0.25)), 1, 0.02, "annulus mesh area")
T.raises(function() S.bcc { shape = S.shape.plane { point = { 0, 0 }, normal = { 0, 1 } }, h = 0.1 } end,
  "unbounded", "bcc of an unbounded shape needs bounds")

-- mesh from arrays
local nodes = A.from { { 0, 0 }, { 1, 0 }, { 0, 1 } }
local tri = S.mesh { nodes = nodes, elements = A.from({ { 1, 2, 3 } }, "i32") }
T.near(tri:volume(), 0.5, 1e-15, "mesh from arrays")
T.raises(function() S.mesh { nodes = nodes, elements = A.from({ { 1, 2, 4 } }, "i32") } end,
  "1..3", "element index range")
T.raises(function() S.mesh { nodes = nodes, elements = A.from({ { 1, 3, 2 }, { 1, 2, 3 } }, "i32") } end,
  "inverted", "mixed orientation")

-- reading: expected failures return nil, message
local mm, msg = S.read("/nonexistent/file.msh")
T.check(mm == nil and msg:find("cannot read (No such file", 1, true), "missing file: nil, message")

-- argument errors
T.raises(function() S.box { min = { 0, 0, 0 }, max = { 1, 1, 1 }, cells = { 1, 1, 1 }, cell = 3 } end,
  "unknown option 'cell'", "unknown key")
T.raises(function() S.box { min = { 0, 0, 0 }, max = { 1, 1 }, cells = { 1, 1, 1 } } end, "max", "mismatched max")
T.raises(function() S.box { min = { 0, 0, 0 }, max = { 1, 1, 1 }, cells = { 1.5, 1, 1 } } end, "integer",
  "fractional cells")
T.raises(function() S.box { min = { 0, 0, 0 }, max = { 0 / 0, 1, 1 }, cells = { 1, 1, 1 } } end, "finite",
  "NaN bound")
T.raises(function() m:material { model = "rubber", E = 1 } end, "must be one of", "unknown model")
T.raises(function() m:material { E = 1, mu = 1 } end, "either E and nu or mu and lambda", "both parameter sets")
T.raises(function() m:material { E = -1 } end, "E", "negative E")
T.raises(function() m:material { E = 1, density = 0 } end, "density", "zero density")
T.raises(function() m:plasticity { yield = 0.1, limit = 0.5 } end, "limit", "bad plastic limit")
T.raises(function() S.shape.sphere { center = { 0, 0 }, radius = -1 } end, "radius", "negative radius")
T.raises(function() S.shape.torus { center = { 0, 0, 0 }, axis = { 0, 1, 0 }, R = 0.1, r = 0.2 } end, "R > r",
  "torus radii")
T.raises(function() sh:eval { 1, 2 } end, "3..3 entries", "eval dimension")
T.raises(function() S.bcc { shape = 42, h = 0.1 } end, "tide.Shape", "shape type")
T.raises(function() m.energy(42) end, "tide.TetMesh expected", "wrong self")
T.raises(function() S.shape.union(sh, ring) end, "3D and 2D", "CSG dimension mismatch")
local tmp = S.box { min = { 0, 0 }, max = { 1, 1 }, cells = { 1, 1 } }
tmp:free()
T.raises(function() tmp:volume() end, "freed", "use after free")
T.check(tostring(tmp) == "tide.TetMesh (freed)", "tostring of freed")
local nofem = S.box { min = { 0, 0 }, max = { 1, 1 }, cells = { 1, 1 } }
T.raises(function() nofem:energy() end, "no material", "energy needs a material")

os.exit(T.report())
