--- The 3D examples of Liu et al. 2024 (Sec. 5.2, Figs. 3, 10, 14-19) as tide.liu
-- states: level-set liquids against shells and rods (tide.solid), shared by
-- scenes/liu_*.lua.  Each builder takes o.dim (2 | 3), o.n (cells per side of
-- the unit box), o.cfl and the tide.liu options interp, solver, and returns the
-- state S (S.mesh the solid, or S.x the fixed vertices) plus the scene's extras
-- (rain emitter, an after-step hook, marker points).  The paper gives no
-- physical sizes: the unit box, the drops, the moduli and surface tensions below
-- are Tide's choices, stated at each builder.  In 2D a shell is seen in section:
-- a rod of unit depth 1 m with EA = E h, EI = E h^3 / 12, line density rho h.
-- Only the vertices meet the liquid (Sec. 4.3.3), so every mesh has its nodes
-- at most a cell apart (o.refine: nodes per cell, default 1).
--
--   local T = require "tide.cases.liu_thin"
--   local S, X = T.leaf { dim = 2, n = 48 }       -- Fig. 3, Table I g
--   liu.run_scene(S, P, "liu_leaf", out, "a drop on a leaf", X)
local tide = require "tide"
local liu = require "tide.liu"
local solid = tide.solid

local M = {}

local function box_grid(dim, n)
  return tide.grid.new { size = dim == 3 and { n, n, n } or { n, n }, dx = 1 / n }
end

-- the grid of a builder: o.dim (default dim0), o.n (default n0) cells per side of
-- the unit box; `only3`: the scene's name when it has no 2D form.  Returns the
-- grid, dx and h = dx / o.refine (the largest node spacing of the solid).
local function setup(o, dim0, n0, only3)
  local dim = o.dim or dim0
  if only3 and dim ~= 3 then error(only3 .. ": 3D only (--dim 3)", 0) end
  local g = box_grid(dim, o.n or n0)
  return g, g.dx, g.dx / (o.refine or 1)
end

local function gravity(dim) return dim == 3 and { 0, -9.81, 0 } or { 0, -9.81 } end

-- the tide.liu state of a scene: grid, level set, solid (a mesh) or fixed vertices
local function state(g, phi, o, extra)
  local args = { grid = g, phi = phi, gravity = gravity(g.dim), interp = o.interp or "quadratic", cfl = o.cfl or 1,
    solver = o.solver or "cholmod", sigma = o.sigma or 0, tension_width = o.tension_width }
  for k, v in pairs(extra) do args[k] = v end
  return liu.new(args)
end

-- the level set of a list of tide.grid.shape solids (their union)
local function union_sdf(g, shapes)
  local sh = shapes[1]
  for k = 2, #shapes do sh = tide.grid.shape.union(sh, shapes[k]) end
  return sh:sdf(g)
end

local function ball(dim, c, r)
  return tide.grid.shape.sphere { center = dim == 3 and c or { c[1], c[2] }, radius = r }
end

-- a uniform initial velocity on every face (a single drop thrown into still air)
local function throw(S, v)
  for a = 1, S.dim do if (v[a] or 0) ~= 0 then S.u:component(a):fill(v[a]) end end
  S.u:enforce_walls(nil, false)
end

-- a 2D thin strip of unit depth through the points (a polyline subdivided to at
-- most h between nodes): EA = E t, EI = E t^3 / 12, line density rho t
local function strip2d(points, h, o)
  local pts = {}
  for k = 1, #points - 1 do
    local p, q = points[k], points[k + 1]
    local len = math.sqrt((q[1] - p[1]) ^ 2 + (q[2] - p[2]) ^ 2)
    local m = math.max(1, math.ceil(len / h - 1e-9))
    for s = 0, m - 1 do pts[#pts + 1] = { p[1] + (q[1] - p[1]) * s / m, p[2] + (q[2] - p[2]) * s / m } end
  end
  pts[#pts + 1] = points[#points]
  local r = solid.polyline { points = pts }
  local t = o.thickness
  r:rod { EA = o.E * t, EI = o.E * t ^ 3 / 12, line_density = o.density * t, damping = o.damping or 0 }
  return r
end

-- nodes (rows {x, y[, z]}) and elements (rows of 1-based indices) as a tide.solid mesh
local function mesh_of(nodes, elems)
  return solid.mesh { nodes = tide.array.from(nodes), elements = tide.array.from(elems, "i32") }
end

-- a mesh's nodes and elements as Lua lists
local function lists(m)
  local x, e = m.x, m:elements()
  local nodes, elems = {}, {}
  for i = 1, m.nv do
    local row = {}
    for a = 1, m.dim do row[a] = x:get(i, a) end
    nodes[i] = row
  end
  for k = 1, e.shape[1] do
    local row = {}
    for a = 1, e.shape[2] do row[a] = e:get(k, a) end
    elems[k] = row
  end
  return nodes, elems
end

-- a segment network with every segment split into pieces no longer than h
local function subdivide(nodes, segs, h)
  local out, oseg = {}, {}
  for i, p in ipairs(nodes) do out[i] = p end
  for _, s in ipairs(segs) do
    local p, q = nodes[s[1]], nodes[s[2]]
    local len = 0
    for a = 1, #p do len = len + (q[a] - p[a]) ^ 2 end
    local m = math.max(1, math.ceil(math.sqrt(len) / h - 1e-9))
    local prev = s[1]
    for k = 1, m - 1 do
      local r = {}
      for a = 1, #p do r[a] = p[a] + (q[a] - p[a]) * k / m end
      out[#out + 1] = r
      oseg[#oseg + 1] = { prev, #out }
      prev = #out
    end
    oseg[#oseg + 1] = { prev, s[2] }
  end
  return out, oseg
end

-- rain drop radii {lo, hi} [m], at least 1.5 and 2 cells (a drop must span cells)
local function radii(g, r)
  return { math.max(r[1], 1.5 * g.dx), math.max(r[2], 2 * g.dx) }
end

local function pin_where(m, f)
  local n = m:pin(f)
  if n == 0 then error("tide.cases.liu_thin: no node pinned", 2) end
  return n
end

--- Fig. 3 (Table I g): a drop (radius 0.1 m, sigma 2 N/m) thrown at 4 m/s onto
-- a stiff, hydrophobic leaf: 3D a 0.6 x 0.36 m shell with an arched rest shape
-- (its midrib 5 cm above its edges), 5 mm thick, E 5e9 Pa, 700 kg/m^3, pinned
-- along its midrib (the vein that carries it); 2D its cross-section, pinned at
-- the three midrib nodes.  CFL 0.5 (the paper's).  o: dim, n, speed, sigma, E,
-- refine.
function M.leaf(o)
  local g, dx, h = setup(o, 2, 48)
  local dim = g.dim
  local mat = { E = o.E or 5e9, thickness = 5e-3, density = 700 }
  local y0, arch, W, L = 0.42, 0.05, 0.36, 0.6
  local leaf
  if dim == 2 then
    local pts = {}
    local k = 2 * math.ceil(1.15 * W / (2 * h)) -- the arch's slope is at most 4 arch / W = 0.55: nodes <= h apart
    for s = 0, k do
      local t = s / k
      pts[#pts + 1] = { 0.5 - W / 2 + W * t, y0 + arch * (1 - (2 * t - 1) ^ 2) }
    end
    leaf = strip2d(pts, h, mat)
    pin_where(leaf, function(x) return math.abs(x - 0.5) < 1.01 * W / k end)
  else
    local nu, nv = 2 * math.ceil(W / (2 * h)), math.ceil(L / h)
    -- u across (z), v along (x): u x v = +y, the bulge arches the leaf up about its midrib
    leaf = solid.sheet { origin = { 0.5 - L / 2, y0, 0.5 - W / 2 }, u = { 0, 0, W }, v = { L, 0, 0 }, cells = { nu, nv },
      bulge = { arch, 0 } }
    leaf:shell { E = mat.E, thickness = mat.thickness, density = mat.density }
    pin_where(leaf, function(_, _, z) return math.abs(z - 0.5) < 1e-6 end)
  end
  local R, v = o.radius or 0.1, o.speed or 4
  local c = { 0.47, y0 + arch + R + 0.06, 0.53 }
  local S = state(g, ball(dim, c, R):sdf(g), { interp = o.interp, cfl = o.cfl or 0.5, solver = o.solver,
    sigma = o.sigma or 2 }, { solid = leaf })
  throw(S, { 0, -v, 0 })
  return S, {}
end

--- Fig. 14 (Table I f): a light, soft cloth hung by one side falls onto a tank of
-- water (0.3 m deep) and floats after it is released at t = release (0.35 s).
-- 3D: a 0.5 x 0.5 m shell, 1 mm thick, E 1e6 Pa, 300 kg/m^3, Rayleigh damping
-- 1e-4 s (the paper's stand-in for air drag), its edge x = 0.2 m pinned at
-- y = 0.45 m until the release; 2D its section, a strip pinned at its left end.
-- CFL 0.7.  Returns S and {after_step = the release}.
function M.drift(o)
  local g, _, h = setup(o, 2, 48)
  local dim = g.dim
  local mat = { E = o.E or 1e6, thickness = 1e-3, density = 300, damping = 1e-4 }
  local x0, y, L = 0.2, 0.45, 0.5
  local cloth
  if dim == 2 then
    cloth = strip2d({ { x0, y }, { x0 + L, y } }, h, mat)
  else
    local k = math.ceil(L / h)
    cloth = solid.sheet { origin = { x0, y, 0.25 }, u = { L, 0, 0 }, v = { 0, 0, L }, cells = { k, k } }
    cloth:shell { E = mat.E, thickness = mat.thickness, density = mat.density, damping = mat.damping }
  end
  local hung = function(x) return math.abs(x - x0) < 1e-6 end
  pin_where(cloth, hung)
  local tank = dim == 3 and tide.grid.shape.box { min = { 0, 0, 0 }, max = { 1, o.depth or 0.3, 1 } }
    or tide.grid.shape.box { min = { 0, 0 }, max = { 1, o.depth or 0.3 } }
  local S = state(g, tank:sdf(g), { interp = o.interp, cfl = o.cfl or 0.7, solver = o.solver }, { solid = cloth })
  local release, released = o.release or 0.35, false
  return S, {
    after_step = function(St)
      if not released and St.t >= release then
        St.mesh:unpin(hung)
        released = true
      end
    end,
  }
end

-- the kirigami's cut pattern in cells: rows of slots parallel to the crease
-- (along v), staggered; true where cell (i, j) (0-based) is cut out
local function kirigami_cut(nu, nv, dx)
  local w = math.max(3, math.floor(0.05 / dx + 0.5))  -- slot width (>= 3 cells: liquid passes, Fig. 11c)
  local b = math.max(2, math.floor(0.04 / dx + 0.5))  -- band between slot rows
  local len = math.max(4, math.floor(0.16 / dx + 0.5)) -- slot length
  local lig = math.max(2, math.floor(0.05 / dx + 0.5)) -- ligament between slots of a row
  local half = nu // 2
  return function(i, j)
    -- distance from the crease in cells; a band of width b straddles the crease
    local a = i < half and half - 1 - i or i - half
    local q = a - (b // 2 + 1)
    if q < 0 or a >= half - 2 then return false end -- the crease band and the pinned outer edges stay
    local row = q // (w + b)
    if q % (w + b) >= w then return false end
    local shift = (row % 2) * ((len + lig) // 2)
    local p = (j + shift) % (len + lig)
    local start = (lig + 1) // 2
    return p >= start and p < start + len and j >= 1 and j < nv - 1
  end
end

--- Fig. 15 (Table I i): a V-shaped kirigami with a central crease (rest angle
-- 110.6 deg between its halves, the paper's) in a rain of drops (radii 0.035-0.06 m
-- at 8 per second from 0.8-0.87 m, 2 m/s down).  3D: a 0.7 x 0.7 m shell, 1 mm
-- thick, E 1e7 Pa, 300 kg/m^3, with staggered rows of slots parallel to the
-- crease (at least 3 cells wide, so that liquid can pass between their nodes),
-- folded along the crease and pinned along its two upper edges; 2D its section
-- across the slots: strips of unit depth with the slots as gaps, each strip
-- pinned at its ends.  CFL 0.5, sigma 1 N/m.  Returns S and {rain =}.
function M.kirigami(o)
  local g, dx = setup(o, 2, 48)
  local dim = g.dim
  local W, y0 = 0.7, 0.3
  local th = math.rad((180 - 110.6) / 2) -- each half rises by this from the horizontal
  local nu = 2 * math.ceil(W / (2 * dx))
  local nv = math.ceil(W / dx)
  local cut = kirigami_cut(nu, nv, W / nu)
  local function fold(a) -- a in [-W/2, W/2] across the crease -> x, y
    return 0.5 + a * math.cos(th), y0 + math.abs(a) * math.sin(th)
  end
  local mat = { E = o.E or 1e7, thickness = 1e-3, density = 300 }
  local kiri
  if dim == 2 then
    -- the section at j = middle of a slot of the even rows: strips between the gaps
    local jm = 0
    for j = 0, nv - 1 do
      local any = false
      for i = 0, nu - 1 do if cut(i, j) then any = true; break end end
      if any then jm = j; break end
    end
    local parts, run = {}, nil
    for i = 0, nu do
      local solid_here = (i < nu and not cut(i, jm)) or (i > 0 and not cut(i - 1, jm))
      if solid_here then run = run or {}; run[#run + 1] = i else
        if run and #run >= 2 then parts[#parts + 1] = run end
        run = nil
      end
    end
    if run and #run >= 2 then parts[#parts + 1] = run end
    local meshes = {}
    for _, r in ipairs(parts) do
      local pts = {}
      for _, i in ipairs(r) do
        local x, y = fold(-W / 2 + W * i / nu)
        pts[#pts + 1] = { x, y }
      end
      local s = strip2d(pts, 2 * dx, mat)
      local a, b = pts[1], pts[#pts]
      s:pin(function(x, y) return (math.abs(x - a[1]) < 1e-9 and math.abs(y - a[2]) < 1e-9)
        or (math.abs(x - b[1]) < 1e-9 and math.abs(y - b[2]) < 1e-9) end)
      meshes[#meshes + 1] = s
    end
    kiri = #meshes == 1 and meshes[1] or solid.merge(meshes)
  else
    local sheet = solid.sheet { origin = { 0, 0, 0 }, u = { W, 0, 0 }, v = { 0, 0, W }, cells = { nu, nv } }
    local nodes, tris = lists(sheet)
    -- drop the triangles of cut cells (node (i, j) is index i (nv + 1) + j + 1), then the unused nodes
    local keep, used = {}, {}
    for _, t in ipairs(tris) do
      local imin, jmin = math.huge, math.huge
      for _, v in ipairs(t) do
        imin, jmin = math.min(imin, (v - 1) // (nv + 1)), math.min(jmin, (v - 1) % (nv + 1))
      end
      if not cut(imin, jmin) then
        keep[#keep + 1] = t
        for _, v in ipairs(t) do used[v] = true end
      end
    end
    local map, pts = {}, {}
    for v, p in ipairs(nodes) do
      if used[v] then
        local x, y = fold(p[1] - W / 2)
        pts[#pts + 1] = { x, y, 0.5 - W / 2 + p[3] }
        map[v] = #pts
      end
    end
    for _, t in ipairs(keep) do for a = 1, 3 do t[a] = map[t[a]] end end
    kiri = mesh_of(pts, keep)
    kiri:shell { E = mat.E, thickness = mat.thickness, density = mat.density }
    local xl, xr = fold(-W / 2), fold(W / 2)
    pin_where(kiri, function(x) return math.abs(x - xl) < 1e-6 or math.abs(x - xr) < 1e-6 end)
  end
  local S = state(g, g:cells():fill(1), { interp = o.interp, cfl = o.cfl or 0.5, solver = o.solver,
    sigma = o.sigma or 1 }, { solid = kiri })
  local lo = dim == 3 and { 0.2, 0.8, 0.2 } or { 0.2, 0.8 }
  local hi = dim == 3 and { 0.8, 0.87, 0.8 } or { 0.8, 0.87 }
  local rain = liu.rain { box = { min = lo, max = hi }, radius = radii(g, o.radius or { 0.035, 0.06 }), rate = o.rate or 8,
    velocity = dim == 3 and { 0, -2, 0 } or { 0, -2 }, jitter = 0.3, stream = 15 }
  rain:emit(S)
  return S, { rain = rain }
end

--- Fig. 16 (Table I h): lotus-like self-cleaning.  A stiff leaf tilted by 15 deg
-- with a shallow basin (rest shape y = 0.25 r^2 / R over its radius R = 0.2 m,
-- 3 mm thick, E 5e9 Pa, 700 kg/m^3, clamped at its centre by the stem: the
-- nodes within 1.5 cells of it), dirt grains resting 1 dx above it, a drop
-- (radius 0.07 m) placed on its upper side and a light rain (4 drops/s).
-- The grains are passive markers, not the paper's model (which it does not
-- give): a grain stays on the leaf (its triangle's or segment's barycentric
-- point, lifted 1 dx along +y) until the liquid wets it (phi < 0 at the grain:
-- it is picked up), then moves with the liquid velocity (Mac:sample) while it
-- is in the liquid or within a cell of it; left by the liquid it lands on the
-- leaf's nearest node if one is within 2.5 dx (1 dx above it), else falls freely
-- until it comes within 1.5 dx of a leaf node (it lands) or into liquid (it is
-- carried again).  The count of picked and washed-off grains (below the
-- leaf's lowest point) is the outcome.  sigma 2 N/m, CFL 0.5.  2D: the leaf's
-- section, grains along it.  Returns S and {rain, after_step, points, grains =
-- function() -> picked, off, total}.
function M.lotus(o)
  local g, dx, h = setup(o, 2, 48)
  local dim = g.dim
  local R, tilt, cup = o.leaf_radius or 0.2, math.rad(o.tilt or 15), 0.25
  local ctr = { 0.5, 0.45, 0.5 }
  local ct, st = math.cos(tilt), math.sin(tilt)
  local function place(a, b) -- leaf coordinates (a across x, b across z) -> world, tilted about z (down to +x)
    local y = cup * (a * a + b * b) / R
    return ctr[1] + a * ct + y * st, ctr[2] - a * st + y * ct, ctr[3] + b
  end
  local mat = { E = o.E or 5e9, thickness = 3e-3, density = 700 }
  local leaf
  if dim == 2 then
    local k = 2 * math.ceil(1.1 * R / h)
    local pts = {}
    for s = 0, k do
      local x, y = place(-R + 2 * R * s / k, 0)
      pts[#pts + 1] = { x, y }
    end
    leaf = strip2d(pts, h, mat)
  else
    local disc = solid.disc { center = { 0, 0, 0 }, normal = { 0, 1, 0 }, radius = R, rings = math.ceil(R / h) }
    local nodes, tris = lists(disc)
    for i, p in ipairs(nodes) do nodes[i] = { place(p[1], p[3]) } end
    leaf = mesh_of(nodes, tris)
    leaf:shell { E = mat.E, thickness = mat.thickness, density = mat.density }
  end
  pin_where(leaf, function(x, y, z)
    local d2 = (x - ctr[1]) ^ 2 + (y - ctr[2]) ^ 2 + (dim == 3 and (z - ctr[3]) ^ 2 or 0)
    return d2 < (1.5 * h) ^ 2
  end)
  -- dirt: grains on random elements of the upper half (a > 0 toward the low side too: all of it)
  local ngr = o.dirt or 40
  local elems = leaf:elements()
  local ne, nper = elems.shape[1], elems.shape[2]
  local grains = {}
  for k = 1, ngr do
    local e = 1 + math.floor(tide.rand(23, 4 * k) * ne)
    local w1, w2 = tide.rand(23, 4 * k + 1), tide.rand(23, 4 * k + 2)
    if nper == 3 and w1 + w2 > 1 then w1, w2 = 1 - w1, 1 - w2 end
    local w = nper == 3 and { w1, w2, 1 - w1 - w2 } or { w1, 1 - w1 }
    grains[k] = { elem = e, w = w, state = "on", v = { 0, 0, 0 } }
  end
  local node_elem = {} -- an element of each node (where a grain left by the liquid lands)
  for e = 1, ne do for c = 1, nper do node_elem[elems:get(e, c)] = node_elem[elems:get(e, c)] or e end end
  local X = tide.array.zeros({ ngr, dim })
  local lowest = math.huge
  local function update_attached()
    local x = leaf.x
    for k, gr in ipairs(grains) do
      if gr.state == "on" then
        for a = 1, dim do
          local s = 0
          for c = 1, nper do s = s + gr.w[c] * x:get(elems:get(gr.elem, c), a) end
          if a == 2 then s = s + dx end
          X:set(k, a, s)
        end
      end
    end
  end
  for i = 1, leaf.nv do lowest = math.min(lowest, leaf.x:get(i, 2)) end
  update_attached()
  local S = state(g, g:cells():fill(1), { interp = o.interp, cfl = o.cfl or 0.5, solver = o.solver,
    sigma = o.sigma or 2 }, { solid = leaf })
  -- a drop on the upper side of the leaf, at rest
  -- the drop just above the leaf's upper half: raised until it clears the vertices
  -- (on a coarse grid, nearer the centre; none if it fits nowhere)
  local dr = math.max(o.radius or 0.07, 1.5 * dx)
  local ok, why
  for _, a in ipairs { -0.5, -0.3, 0 } do
    local ux, uy, uz = place(a * R, 0)
    for k = 0, 20 do
      local cy = uy + dr + (2 + 0.5 * k) * dx
      ok, why = liu.add_drop(S, { center = dim == 3 and { ux, cy, uz } or { ux, cy }, radius = dr })
      if ok or why == "outside the box" then break end
    end
    if ok then break end
  end
  if not ok then print("tide.cases.liu_thin.lotus: no room for the first drop on this grid (" .. why .. "): rain only") end
  local lo = dim == 3 and { 0.35, 0.8, 0.35 } or { 0.35, 0.8 }
  local hi = dim == 3 and { 0.65, 0.87, 0.65 } or { 0.65, 0.87 }
  local rain = liu.rain { box = { min = lo, max = hi }, radius = radii(g, { 0.035, 0.055 }), rate = o.rate or 4,
    velocity = dim == 3 and { 0, -1.5, 0 } or { 0, -1.5 }, jitter = 0.2, stream = 16, start = 0.1 }
  local P1, gv = tide.array.zeros({ 1, dim }), gravity(dim)
  -- a grain within r of a leaf node (1 dx above it) lands there: true if it did
  local function land(k, gr, r)
    local best, bd = nil, r * r
    for i = 1, leaf.nv do
      local d2 = 0
      for a = 1, dim do d2 = d2 + (leaf.x:get(i, a) + (a == 2 and dx or 0) - X:get(k, a)) ^ 2 end
      if d2 < bd then best, bd = i, d2 end
    end
    if not best or not node_elem[best] then return false end
    local e = node_elem[best]
    gr.elem, gr.state = e, "on"
    for c = 1, nper do gr.w[c] = elems:get(e, c) == best and 1 or 0 end
    return true
  end
  local function after_step(St, dt)
    update_attached()
    for k, gr in ipairs(grains) do
      for a = 1, dim do P1:set(1, a, X:get(k, a)) end
      local phi = g:sample(St.phi, P1):get(1)
      if gr.state ~= "carried" and phi < 0 then gr.state, gr.picked = "carried", true end
      if gr.state == "carried" and phi > dx then
        -- left by the liquid: back on the leaf at the nearest node within 2.5 dx, else falling
        if not land(k, gr, 2.5 * dx) then
          gr.state = "falling"
          local u = St.u:sample(P1)
          for a = 1, dim do gr.v[a] = u:get(1, a) end
        end
      end
      if gr.state == "carried" then
        local u = St.u:sample(P1)
        for a = 1, dim do X:set(k, a, X:get(k, a) + dt * u:get(1, a)) end
      elseif gr.state == "falling" then
        for a = 1, dim do
          gr.v[a] = gr.v[a] + dt * gv[a]
          local xa = X:get(k, a) + dt * gr.v[a]
          X:set(k, a, math.max(g.origin[a] + 0.5 * dx, math.min(g.origin[a] + g.size[a] * dx - 0.5 * dx, xa)))
        end
        land(k, gr, 1.5 * dx) -- a falling grain does not pass through the leaf
      end
    end
  end
  local function count()
    local picked, off = 0, 0
    for k, gr in ipairs(grains) do
      if gr.picked then picked = picked + 1 end
      if X:get(k, 2) < lowest - 2 * dx then off = off + 1 end
    end
    return picked, off, ngr
  end
  rain:emit(S)
  return S, { rain = rain, after_step = after_step, points = function() return X end, grains = count }
end

--- Fig. 17 (Table I j): a drop (radius 0.12 m, sigma 0.5 N/m) falling at 1 m/s
-- onto an elastic rod (radius 5 mm, E 1e8 Pa, 1000 kg/m^3) pinned at both ends;
-- the liquid closes around it and leaves a thin air tube.  3D: the rod across
-- the box along z at y = 0.45 m; 2D: its in-plane analogue, a 0.16 m rod (of unit
-- depth, the rod's EA and EI) pinned at both ends, narrower than the drop.
-- CFL 1.
function M.rod(o)
  local g, _, h = setup(o, 3, 32)
  local dim = g.dim
  local y, r, E = 0.45, o.rod_radius or 5e-3, o.E or 1e8
  local rod
  if dim == 2 then
    rod = solid.rod { from = { 0.42, y }, to = { 0.58, y }, segments = math.ceil(0.16 / h) }
  else
    rod = solid.rod { from = { 0.5, y, g.dx }, to = { 0.5, y, 1 - g.dx }, segments = math.ceil((1 - 2 * g.dx) / h) }
  end
  rod:rod { E = E, radius = r, density = 1000 }
  local ends = function(x, _, z)
    if dim == 2 then return math.abs(x - 0.42) < 1e-9 or math.abs(x - 0.58) < 1e-9 end
    return math.abs(z - g.dx) < 1e-9 or math.abs(z - (1 - g.dx)) < 1e-9
  end
  pin_where(rod, ends)
  local R = o.radius or 0.12
  local S = state(g, ball(dim, { 0.5, y + R + 0.05, 0.5 }, R):sdf(g), { interp = o.interp, cfl = o.cfl or 1,
    solver = o.solver, sigma = o.sigma or 0.5 }, { solid = rod })
  throw(S, { 0, -(o.speed or 1), 0 })
  return S, { tube = r > 0.3 * g.dx and r or nil }
end

--- Fig. 18 (Table I k-m): a drop (radius o.radius, default 0.1 m) set down at the
-- upper end of two parallel rods o.gap (0.08 m) apart inclined by o.slope (15 deg)
-- (radius 4 mm, E o.E (1e9 Pa), pinned at both ends 0.87 m apart); with a larger
-- sigma (the paper increases it from top to bottom: --sigma, default 20 N/m) the
-- drop holds together over the gap and slides further along them.  3D: o.box
-- "unit" is the unit box of o.n cells per side, "rods" (the default) only the part
-- of it around the rods and the drop -- the same cells (dx = 1 / o.n, aligned with
-- the unit box's), x 0-1, y 0.3 m below the rods' lower end to 0.06 m above the
-- drop, z 0.25 m either side of the rods' mid-plane: 64 x 41 x 32 cells at n = 64,
-- 0.31 of the unit box.  2D: the cross-section in the unit box, the two rods seen
-- end-on as two fixed vertices (sigma decides whether the drop passes between
-- them; the sliding is out of the plane).  CFL 0.7.
function M.sliding(o)
  local g, dx, h = setup(o, 3, 32)
  local dim = g.dim
  local gap, R, slope = o.gap or 0.08, o.radius or 0.1, math.rad(o.slope or 15)
  local x0, x1, ytop = 0.08, 0.92, 0.62
  local function yrod(x) return ytop - (x - x0) * math.tan(slope) end
  local xc = x0 + 0.12
  local lift = math.sqrt(math.max(0, (R + 2 * dx) ^ 2 - (gap / 2) ^ 2))
  if dim == 3 and (o.box or "rods") == "rods" then
    -- the unit box's cells around the rods and the drop (whole cells of the unit box's lattice)
    local lo = { 0, yrod(x1) - 0.095, 0.25 }
    local hi = { 1, yrod(xc) + lift + R + 0.06, 0.75 }
    local size, org = {}, {}
    for a = 1, 3 do
      local i0, i1 = math.max(0, math.floor(lo[a] / dx + 1e-9)), math.min(o.n or 32, math.ceil(hi[a] / dx - 1e-9))
      size[a], org[a] = i1 - i0, i0 * dx
    end
    g = tide.grid.new { size = size, dx = dx, origin = org }
  elseif dim == 3 and o.box ~= "unit" then
    error("tide.cases.liu_thin.sliding: box must be 'rods' or 'unit'", 0)
  end
  local common = { interp = o.interp, cfl = o.cfl or 0.7, solver = o.solver, sigma = o.sigma or 20,
    tension_width = o.tension_width }
  local contact = { contact = o.contact, contact_radius = o.contact_radius, contact_slip = o.slip }
  if dim == 2 then
    local X = tide.array.from { { 0.5 - gap / 2, 0.5 }, { 0.5 + gap / 2, 0.5 } }
    local F = tide.array.zeros({ 2 }, "u8"):fill(1)
    local S = state(g, ball(2, { 0.5, 0.5 + R + 2 * dx }, R):sdf(g), common,
      { x = X, fixed = F, mass = 1, contact = contact.contact, contact_radius = contact.contact_radius })
    return S, {}
  end
  local L = (x1 - x0) / math.cos(slope)
  local seg = math.ceil(L / h)
  local rods = {}
  for s = -1, 1, 2 do
    local z = 0.5 + s * gap / 2
    local r = solid.rod { from = { x0, yrod(x0), z }, to = { x1, yrod(x1), z }, segments = seg }
    r:rod { E = o.E or 1e9, radius = 4e-3, density = 1000 }
    rods[#rods + 1] = r
  end
  local both = solid.merge(rods)
  pin_where(both, function(x) return math.abs(x - x0) < 1e-9 or math.abs(x - x1) < 1e-9 end)
  -- the drop resting between the rods near their upper end (xc): its centre above
  -- the rods' mid-line by the height (lift) at which the ball meets both
  local S = state(g, ball(3, { xc, yrod(xc) + lift, 0.5 }, R):sdf(g), common, { solid = both,
    contact = contact.contact, contact_radius = contact.contact_radius, contact_slip = contact.contact_slip })
  return S, { tube = 4e-3 > 0.3 * dx and 4e-3 or nil, yrod = yrod }
end

--- Fig. 10 (Table I n): a drop (radius 0.09 m, sigma 5 N/m) falling through two
-- staggered cantilever bundles of stiff rods: each 3 x 3 rods 4 cm apart, 0.55 m
-- long, sloping 15 deg down from a side wall where their first two nodes are
-- clamped (radius 5 mm, E 1e10 Pa), the upper from the left wall, the lower from
-- the right.  3D only (a bundle seen in section is a set of points).  CFL 0.7.
function M.bundles(o)
  local g, dx, h = setup(o, 3, 32, "liu_bundles")
  local L, slope, sp = 0.55, math.rad(15), o.spacing or 0.04
  local seg = math.ceil(L / h)
  local parts = {}
  local ca, sa = math.cos(slope), math.sin(slope)
  local beams = { { x = dx + sp, y = 0.62, dir = 1 }, { x = 1 - dx - sp, y = 0.36, dir = -1 } }
  for k, b in ipairs(beams) do
    local to = { b.x + b.dir * L * ca, b.y - L * sa, 0.5 }
    local m = solid.bundle { from = { b.x, b.y, 0.5 }, to = to, segments = seg, count = { 3, 3 }, spacing = sp }
    m:rod { E = o.E or 1e10, radius = 5e-3, density = 1000 }
    parts[k] = m
  end
  local both = solid.merge(parts)
  -- clamp: the nodes within 1.01 segments of a beam's wall end, along its axis
  local reach = 1.01 * L / seg
  pin_where(both, function(x, y)
    local b = beams[x < 0.5 and 1 or 2]
    local t = b.dir * (x - b.x) * ca - (y - b.y) * sa
    return t < reach
  end)
  local R = o.radius or 0.09
  local S = state(g, ball(3, { 0.28, 0.62 + sp + R + 0.04, 0.5 }, R):sdf(g), { interp = o.interp, cfl = o.cfl or 0.7,
    solver = o.solver, sigma = o.sigma or 5 }, { solid = both })
  throw(S, { 0, -1, 0 })
  return S, { tube = 5e-3 > 0.3 * dx and 5e-3 or nil }
end

--- Fig. 19 (Table I o): a soft spider web in the rain.  tide.solid.web (radius
-- 0.4 m, rings, 12 spokes; rings and spokes share their junctions: non-manifold)
-- with every thread split into pieces of at most a cell, tilted 30 deg from the
-- horizontal, its outer ring pinned; silk radius 2 mm, E 1e7 Pa, 1000 kg/m^3.
-- Rain: radii 0.035-0.06 m, 8 per second, 2 m/s down with 0.5 m/s jitter.
-- sigma 1 N/m, CFL 0.7.  3D only.  Returns S and {rain =}.
function M.web(o)
  local g, _, h = setup(o, 3, 32, "liu_web")
  local Rw, tilt = 0.4, math.rad(30)
  local w = solid.web { center = { 0, 0, 0 }, radius = Rw, rings = o.rings or 4, spokes = o.spokes or 12,
    per_arc = 1 }
  local nodes, segs = lists(w)
  nodes, segs = subdivide(nodes, segs, h)
  local c, s = math.cos(tilt), math.sin(tilt)
  for i, p in ipairs(nodes) do nodes[i] = { 0.5 + p[1], 0.45 + p[2] * s, 0.5 - p[2] * c } end -- rising to the back
  local web = mesh_of(nodes, segs)
  local r = 2e-3
  web:rod { E = o.E or 1e7, radius = r, density = 1000 }
  pin_where(web, function(x, y, z)
    local a, b = x - 0.5, ((y - 0.45) * s - (z - 0.5) * c)
    return a * a + b * b > (Rw * math.cos(math.pi / (o.spokes or 12)) - 1e-6) ^ 2 -- the outer ring's chords
  end)
  local S = state(g, g:cells():fill(1), { interp = o.interp, cfl = o.cfl or 0.7, solver = o.solver,
    sigma = o.sigma or 1 }, { solid = web })
  local rain = liu.rain { box = { min = { 0.2, 0.8, 0.2 }, max = { 0.8, 0.87, 0.8 } }, radius = radii(g, o.radius or { 0.035, 0.06 }),
    rate = o.rate or 8, velocity = { 0, -2, 0 }, jitter = 0.5, stream = 19 }
  rain:emit(S)
  return S, { rain = rain }
end

--- The parameters of a scene (tide.params): the common res, dim, frames, fps,
-- cfl, paper, vtk, image, out plus the scene's own (defaults, help); `paper`
-- describes what --paper sets.
function M.params(name, own, help, paper)
  local d = { res = 48, dim = 2, frames = 48, fps = 60, cfl = 1, paper = false, vtk = false, image = 480,
    out = "out/" .. name }
  local hlp = { res = "cells across the unit box", dim = "2 or 3", cfl = "cells per step at the fastest face or vertex",
    paper = paper, vtk = "write VTK files for ParaView", image = "PNG width in pixels" }
  for k, v in pairs(own) do d[k] = v end
  for k, v in pairs(help or {}) do hlp[k] = v end
  return tide.params(d, hlp)
end

return M
