-- Checkpoints of native objects (tide.Grid, tide.Mac, tide.Particles,
-- tide.TetMesh): a FLIP dam break and a neo-Hookean solid run N steps,
-- checkpoint, M more; restore + M more is bit-identical.  Damaged files and
-- tampered state tables give clear errors.
local tide = require "tide"
local T = require "tide.testing"
local flip = require "tide.flip"
local A = tide.array
local fio = tide.fileio
local U = dofile(T.source("tests/fileio/util.lua"))
local dir = U.tmpdir("ckpt_objects")

-- ------------------------------------------------------------ FLIP liquid
for _, scheme in ipairs { "flip", "apic" } do
  local g = tide.grid.new { size = { 24, 16 }, dx = 1 / 16, origin = { 0.25, -0.5 } }
  local ps = tide.liquid.seed { grid = g, box = { min = { 0.25, -0.5 }, max = { 0.75, 0.2 } }, apic = scheme == "apic" }
  local S = flip.new { grid = g, particles = ps, scheme = scheme }
  local N, M = 8, 8
  for _ = 1, N do flip.step(S, flip.max_dt(S)) end
  local path = dir .. "/flip_" .. scheme .. ".ckpt"
  -- the flip state's objects: what the next step reads (u for max_dt, pressure) and the settings
  fio.checkpoint(path, { grid = g, particles = ps, u = S.u, pressure = S.pressure, t = S.t, steps = S.steps,
    scheme = S.scheme })
  for _ = 1, M do flip.step(S, flip.max_dt(S)) end

  local r = fio.restore(path)
  T.check(getmetatable(r.grid).__name == "tide.Grid" and r.grid == g, scheme .. ": grid restored equal")
  T.check(#r.particles == #ps and r.particles.apic == (scheme == "apic"), scheme .. ": particle count and APIC flag")
  T.check(getmetatable(r.u).__name == "tide.Mac" and r.u.dtype == "f64", scheme .. ": MAC field restored")
  local S2 = flip.new { grid = r.grid, particles = r.particles, scheme = r.scheme }
  S2.u:copy(r.u)
  S2.pressure = r.pressure
  S2.t, S2.steps = r.t, r.steps
  for _ = 1, M do flip.step(S2, flip.max_dt(S2)) end
  T.check(S2.particles.x:checksum() == ps.x:checksum(), scheme .. ": positions bit-identical after restore + " .. M .. " steps")
  T.check(S2.particles.v:checksum() == ps.v:checksum(), scheme .. ": velocities bit-identical")
  if scheme == "apic" then T.check(S2.particles.c:checksum() == ps.c:checksum(), "apic: C bit-identical") end
  T.check(S2.u.u:checksum() == S.u.u:checksum() and S2.u.v:checksum() == S.u.v:checksum() and S2.t == S.t,
    scheme .. ": grid velocity and time bit-identical")
end

-- 3D grid, f32 and u8 MAC fields round-trip
do
  local g = tide.grid.new { size = { 3, 4, 5 }, dx = 0.1 }
  local m32, m8 = g:mac("f32", 1.5), g:mac("u8", 1)
  m32.w:set(2, 3, 4, -2.25)
  fio.checkpoint(dir .. "/mac3.ckpt", { a = m32, b = m8, g = g })
  local r = fio.restore(dir .. "/mac3.ckpt")
  T.check(r.a.dtype == "f32" and r.b.dtype == "u8" and r.g.dim == 3 and r.a.grid == g, "3D MAC dtypes and grid")
  T.check(r.a.w:checksum() == m32.w:checksum() and r.b.u:checksum() == m8.u:checksum(), "3D MAC values")
end

-- ------------------------------------------------------------ solid
local Sd = tide.solid
local function make_solid()
  local m = Sd.box { min = { 0, 0.02 }, max = { 0.2, 0.06 }, cells = { 8, 2 } }
  m:material { model = "neohookean", E = 2e4, nu = 0.3, density = 500, damping_beta = 2 }
  m:pin { min = { -1, -1 }, max = { 1e-9, 1 } } -- clamped at x = 0
  m.force:set(m.nv, 2, -0.5)
  m:plasticity { yield = 0.05, limit = 2, isochoric = true }
  return m
end
local ground = tide.solids.ground(0, 0.3, 2)
for _, method in ipairs { "step_newton", "step_linear" } do
  local m = make_solid()
  if method == "step_linear" then m:material { model = "rotated_linear", E = 2e4, nu = 0.3, density = 500, rayleigh_mass = 0.5 } end
  local function step(mesh) return mesh[method](mesh, { dt = 0.01, colliders = { ground } }) end
  local N, M = 10, 10
  for _ = 1, N do step(m) end
  local path = dir .. "/solid_" .. method .. ".ckpt"
  fio.checkpoint(path, { mesh = m })
  for _ = 1, M do step(m) end
  local r = fio.restore(path).mesh
  T.check(getmetatable(r).__name == "tide.TetMesh" and r.nv == m.nv and r.ne == m.ne, method .. ": mesh restored")
  T.check(r:elements():checksum() == m:elements():checksum() and r.pinned:checksum() == m.pinned:checksum(),
    method .. ": elements and pins")
  for _ = 1, M do step(r) end
  T.check(r.x:checksum() == m.x:checksum() and r.v:checksum() == m.v:checksum(),
    method .. ": positions and velocities bit-identical after restore + " .. M .. " steps")
end

-- a fibre-reinforced 3D mesh with a plasticity goal round-trips its material state
do
  local m = Sd.box { min = { 0, 0, 0 }, max = { 0.1, 0.1, 0.1 }, cells = { 1, 1, 1 } }
  m:material { model = "spline", E = 1e5, nu = 0.3, fiber_k = 1e4, fiber = { 0, 1, 0 }, gravity = { 0, 0, -1 } }
  local dirs = A.zeros { m.ne, 3 }
  for e = 1, m.ne do dirs:set(e, 1, 1); dirs:set(e, 3, e) end
  m:fibers(dirs)
  m:plasticity { yield = 0.1, limit = 3, goal = A.full({ m.ne, 3, 3 }, 0.01) }
  for _ = 1, 3 do m:step_newton { dt = 0.01 } end
  fio.checkpoint(dir .. "/fib.ckpt", { m = m })
  local r = fio.restore(dir .. "/fib.ckpt").m
  T.check(r.gravity[3] == -1 and r:energy() == m:energy(), "3D: gravity and elastic energy (fibres, Fp) identical")
  m:step_newton { dt = 0.01 }
  r:step_newton { dt = 0.01 }
  T.check(r.x:checksum() == m.x:checksum(), "3D spline + fibres + plastic goal: next step bit-identical")
end

-- ------------------------------------------------------------ errors
local g = tide.grid.new { size = { 4, 4 }, dx = 0.25 }
local ps = tide.liquid.seed { grid = g, box = { min = { 0, 0 }, max = { 1, 0.5 } } }
local good = dir .. "/good.ckpt"
fio.checkpoint(good, { g = g, ps = ps, mesh = make_solid() })
local f = assert(io.open(good, "rb"))
local bytes = f:read("a")
f:close()
local function write(name, s)
  local h = assert(io.open(dir .. "/" .. name, "wb"))
  h:write(s)
  h:close()
  return dir .. "/" .. name
end
T.raises(function() fio.restore(write("trunc.ckpt", bytes:sub(1, #bytes // 2))) end, "truncated", "truncated file")
local mid = #bytes // 2
local flipped = bytes:sub(1, mid - 1) .. string.char(bytes:byte(mid) ~ 0x10) .. bytes:sub(mid + 1)
T.raises(function() fio.restore(write("flip.ckpt", flipped)) end, "checksum", "corrupted byte")

-- tampered state tables given to the hooks directly
local function hooks(obj) local mt = getmetatable(obj); return mt.__checkpoint, mt.__restore end
local save, load = hooks(ps)
local st = save(ps)
T.check(load(st).x:checksum() == ps.x:checksum(), "Particles hooks round-trip in memory")
st.v = A.zeros { #ps + 1, 2 }
T.raises(function() load(st) end, "(tide.Particles): field 'v': extent", "particles: wrong velocity shape")
st = save(ps); st.x = A.zeros { #ps, 3 }
T.raises(function() load(st) end, "field 'x'", "particles: wrong dimension")
st = save(ps); st.x = st.x:clone(); st.x:set(1, 1, 0 / 0)
T.raises(function() load(st) end, "non-finite", "particles: NaN position")
st = save(ps); st.capacity = 1
T.raises(function() load(st) end, "capacity", "particles: capacity below count")
st = save(ps); st.extra = 1
T.raises(function() load(st) end, "unknown field 'extra'", "particles: unknown field")
st = save(ps); st.apic = true
T.raises(function() load(st) end, "field 'c'", "particles: APIC without C")

save, load = hooks(g)
st = save(g); st.size = { 4, -1 }
T.raises(function() load(st) end, "size[2]", "grid: negative size")
st = save(g); st.dx = 0 / 0
T.raises(function() load(st) end, "dx", "grid: NaN dx")
local mac = g:mac()
save, load = hooks(mac)
st = save(mac); st.u = A.zeros { 4, 4 }
T.raises(function() load(st) end, "(tide.Mac): field 'u': extent", "mac: wrong face shape")
st = save(mac); st.dtype = "c128"
T.raises(function() load(st) end, "dtype", "mac: bad dtype")

local m = make_solid()
save, load = hooks(m)
st = save(m)
T.check(load(st).x:checksum() == m.x:checksum(), "TetMesh hooks round-trip in memory")
st.elements = st.elements:clone(); st.elements:set(1, 1, m.nv + 1)
T.raises(function() load(st) end, "outside 1..", "mesh: element index out of range")
st = save(m); st.elements = A.zeros({ m.ne, 3 }, "f64")
T.raises(function() load(st) end, "i32 array expected", "mesh: elements of the wrong dtype")
st = save(m); st.v = A.zeros { m.nv - 1, 2 }
T.raises(function() load(st) end, "field 'v'", "mesh: velocity count mismatch")
st = save(m); st.material.pinned = A.full(m.nv, 7, "u8")
T.raises(function() load(st) end, "pinned", "mesh: pin flags not 0/1")
st = save(m); st.material.model = "rubber"
T.raises(function() load(st) end, "unknown model 'rubber'", "mesh: unknown material model")
st = save(m); st.material.plasticity.Fpinv = A.zeros { 2, 2, 2 }
T.raises(function() load(st) end, "Fpinv", "mesh: plastic state of the wrong shape")
st = save(m); st.material.mu = -1
T.raises(function() load(st) end, "mu", "mesh: negative mu")
T.raises(function() load(42) end, "state table expected", "a number instead of a state table")

-- ------------------------------------------------------------ shapes
do
  local sh = tide.shape
  local s3 = (sh.sphere { center = { 0.1, 0.2, 0.3 }, radius = 0.4 } + sh.torus { center = { 0, 0, 0 }, axis = { 1, 2, 3 }, R = 0.5, r = 0.1 }
    - sh.capsule { a = { 0, 0, 0 }, b = { 1, 1, 0 }, radius = 0.05 }):moved { translation = { 0.1, 0, 0 }, rotation = { axis = { 0, 1, 1 }, angle = 0.7 } }
  local s2 = -(sh.box { min = { 0, 0 }, max = { 1, 2 } } * sh.plane { point = { 0.5, 0.5 }, normal = { 1, 1 } })
  fio.checkpoint(dir .. "/shapes.ckpt", { s3 = s3, s2 = s2 })
  local r = fio.restore(dir .. "/shapes.ckpt")
  local P3, P2 = A.zeros { 50, 3 }, A.zeros { 50, 2 }
  for i = 1, 50 do for k = 1, 3 do P3:set(i, k, tide.rand(7, 3 * i + k) * 2 - 1); if k < 3 then P2:set(i, k, tide.rand(8, 3 * i + k) * 3 - 1) end end end
  T.check(r.s3:eval(P3):checksum() == s3:eval(P3):checksum() and r.s2:eval(P2):checksum() == s2:eval(P2):checksum(),
    "CSG, transformed and complemented shapes restore with identical distances")
  local save_s, load_s = hooks(s2)
  local st_s = save_s(sh.sphere { center = { 0, 0 }, radius = 1 })
  st_s.p[4] = -1
  T.raises(function() load_s(st_s) end, "radius", "shape: negative radius")
  st_s = save_s(sh.plane { point = { 0, 0 }, normal = { 0, 1 } })
  st_s.p[5] = 2
  T.raises(function() load_s(st_s) end, "inconsistent", "shape: normal not unit length")
  st_s = save_s(s2)
  st_s.a = g
  T.raises(function() load_s(st_s) end, "field 'a' must be a tide.Shape", "shape: child of the wrong type")
end

os.exit(T.report())
