--- tide.solids: recipes for deformable solids built on tide.solid, in Lua so
-- they can be read, copied and changed (see docs/solids.md).
--
--   local solids = require "tide.solids"      -- or tide.solids
--   local m = tide.solid.bcc{ shape = tide.shape.sphere{ center = {0, .3, 0}, radius = .1 }, h = .02 }
--   m:material{ model = "neohookean", E = 1e5, nu = .3, density = 1000 }
--   local step = solids.stepper(m, { method = "newton", colliders = { solids.ground() } })
--   tide.run{ frames = 60, step = step, frame = function(i) solids.png(m, "out/f_%04d.png", i) end }
local raise = require("tide.core")._raise -- errors at the scene's line
local S = require "tide.solid"

local M = {}

local methods = { linear = "step_linear", newmark = "step_newmark", newton = "step_newton" }

--- A step function for tide.run: `stepper(mesh, opts)` returns
-- function(dt) that advances the mesh by dt with opts.method ("newton",
-- "linear" or "newmark"; the other options go to the integrator) and returns
-- its stats.  opts.before(dt), if given, runs first (move colliders, set
-- targets); colliders listed in opts.advance are advanced by dt before the
-- step (kinematic bodies moving with their velocity); opts.after(stats), if
-- given, receives the integrator's stats of every step (e.g. min_distance).
function M.stepper(mesh, opts)
  opts = opts or {}
  local name = methods[opts.method or "newton"]
  if not name then raise("tide.solids.stepper: method must be newton, linear or newmark") end
  local before, advance, after = opts.before, opts.advance or {}, opts.after
  local args = {}
  for k, v in pairs(opts) do
    if k ~= "method" and k ~= "before" and k ~= "advance" and k ~= "after" then args[k] = v end
  end
  return function(dt)
    if before then before(dt) end
    for _, c in ipairs(advance) do c:advance(dt) end
    args.dt = dt
    local st = mesh[name](mesh, args)
    if after then after(st) end
    return { iterations = st.iterations }
  end
end

--- The contact options of a stepper (opts, changed and returned) for a
-- scene's choice: contact = "barrier" is IPC (docs/shells.md): the
-- colliders and, in 3D, the mesh's own primitives are barriers at distance
-- dhat [m] (friction mu between the primitives, the colliders' own mu
-- against them) and the CCD line search keeps every iterate free of
-- penetration; "friction" (or "simple") are the colliders' projected-Newton
-- constraints, no self-contact.
function M.contact(opts, contact, dhat, mu)
  if contact == "barrier" then
    if not (type(dhat) == "number" and dhat > 0) then raise("tide.solids.contact: barrier contact needs dhat > 0") end
    opts.contact, opts.dhat, opts.mu = "barrier", dhat, mu
  elseif contact == "friction" or contact == "simple" then
    opts.contact = contact
  else
    raise("tide.solids.contact: contact must be barrier, friction or simple, got " .. tostring(contact))
  end
  return opts
end

--- A frictional ground plane y = height (a collider).
function M.ground(height, mu, dim)
  dim = dim or 3
  local p, n = { 0, height or 0, 0 }, { 0, 1, 0 }
  if dim == 2 then p, n = { 0, height or 0 }, { 0, 1 } end
  return S.collider { shape = S.shape.plane { point = p, normal = n }, mu = mu or 0.5 }
end

--- Stairs of n boxes (3D): step k spans x in [x0 + k w, x0 + (k+1) w] up to
-- height (n - k) * rise; returns the union shape and a list of {min, max}
-- boxes (for drawing).
function M.stairs(o)
  local n, w, rise, depth = o.steps or 3, o.width or 0.2, o.rise or 0.1, o.depth or 0.4
  local x0 = o.x0 or 0
  local shape, boxes
  boxes = {}
  for k = 0, n - 1 do
    local lo = { x0 + k * w, -0.5, -depth / 2 }
    local hi = { x0 + (k + 1) * w, (n - k) * rise, depth / 2 }
    boxes[#boxes + 1] = { lo, hi }
    local b = S.shape.box { min = lo, max = hi }
    shape = shape and (shape + b) or b
  end
  return shape, boxes
end

--- Boundary surface of a mesh for tide.fileio.png3d's `meshes` list.
function M.surface(mesh, color, extra)
  local t = { vertices = mesh.x, triangles = mesh:boundary(), index_base = 1, color = color or { 0.85, 0.45, 0.3 } }
  for k, v in pairs(extra or {}) do t[k] = v end
  return t
end

--- Rods of a segment mesh as render tubes for tide.fileio.png3d: each
-- segment a prism of `sides` (default 6) faces and the given radius [m]
-- (3D meshes).
function M.tubes(mesh, radius, color, sides)
  local A = require "tide.array"
  sides = sides or 6
  local seg, x = mesh:elements(), mesh.x
  local ns = seg.shape[1]
  local V = A.zeros({ 2 * sides * ns, 3 })
  local T = A.zeros({ 2 * sides * ns, 3 }, "i32")
  for s = 1, ns do
    local a, b = seg:get(s, 1), seg:get(s, 2)
    local p, q = { x:get(a, 1), x:get(a, 2), x:get(a, 3) }, { x:get(b, 1), x:get(b, 2), x:get(b, 3) }
    local t = { q[1] - p[1], q[2] - p[2], q[3] - p[3] }
    local l = math.sqrt(t[1] ^ 2 + t[2] ^ 2 + t[3] ^ 2)
    t = { t[1] / l, t[2] / l, t[3] / l }
    local e = math.abs(t[1]) < 0.9 and { 1, 0, 0 } or { 0, 1, 0 }
    local dp = e[1] * t[1] + e[2] * t[2] + e[3] * t[3]
    e = { e[1] - dp * t[1], e[2] - dp * t[2], e[3] - dp * t[3] }
    local le = math.sqrt(e[1] ^ 2 + e[2] ^ 2 + e[3] ^ 2)
    e = { e[1] / le, e[2] / le, e[3] / le }
    local f = { t[2] * e[3] - t[3] * e[2], t[3] * e[1] - t[1] * e[3], t[1] * e[2] - t[2] * e[1] }
    local v0 = (s - 1) * 2 * sides
    for k = 0, sides - 1 do
      local c, sn = math.cos(2 * math.pi * k / sides), math.sin(2 * math.pi * k / sides)
      for j = 1, 3 do
        local o = radius * (c * e[j] + sn * f[j])
        V:set(v0 + 2 * k + 1, j, p[j] + o)
        V:set(v0 + 2 * k + 2, j, q[j] + o)
      end
      local k1 = (k + 1) % sides
      local i0, i1, j0, j1 = v0 + 2 * k + 1, v0 + 2 * k + 2, v0 + 2 * k1 + 1, v0 + 2 * k1 + 2
      T:set(v0 + 2 * k + 1, 1, i0); T:set(v0 + 2 * k + 1, 2, j0); T:set(v0 + 2 * k + 1, 3, j1)
      T:set(v0 + 2 * k + 2, 1, i0); T:set(v0 + 2 * k + 2, 2, j1); T:set(v0 + 2 * k + 2, 3, i1)
    end
  end
  return { vertices = V, triangles = T, index_base = 1, color = color or { 0.8, 0.7, 0.3 } }
end

--- A box (min, max) as a render mesh (its boundary triangles).
function M.box_surface(lo, hi, color)
  local b = S.box { min = lo, max = hi, cells = { 1, 1, 1 } }
  return { vertices = b.x:clone(), triangles = b:boundary(), index_base = 1, color = color or { 0.6, 0.6, 0.65 } }
end

--- Write a 3D frame of some meshes (tables from solids.surface / box_surface):
-- png3d(path_pattern, i, meshes, options for tide.fileio.png3d).  The frames
-- of one pattern are a sequence: unless the options give a camera, a view or
-- bounds, the camera and box of its frame 0 (or first frame written) stay
-- for the later frames, so a falling body is seen falling.
local views = {}
function M.png3d(pattern, i, meshes, o)
  local fileio = require "tide.fileio"
  local args = { path = string.format(pattern, i), meshes = meshes }
  for k, v in pairs(o or {}) do args[k] = v end
  if args.camera == nil and args.view == nil and args.bounds == nil then
    if i == 0 or not views[pattern] then views[pattern] = {} end
    args.view = views[pattern]
  end
  return fileio.png3d(args)
end

--- Energies of a mesh with a material: kinetic, elastic, total (with gravity).
function M.energies(mesh)
  local k, e = mesh:kinetic_energy(), mesh:energy()
  return { kinetic = k, elastic = e, total = mesh:total_energy() }
end

--- Volume of the mesh relative to its rest volume.
function M.volume_ratio(mesh)
  return mesh:volume() / mesh.rest_volume:sum()
end

return M
