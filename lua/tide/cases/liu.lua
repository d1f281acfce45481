--- The 2D validations of Liu et al. Sec. 5.1 (Figs. 9, 11b, 11c, 12) with the
-- tide.liu recipe, shared by tests/couple/test_liu_*.lua and figures/liu_*.lua.
-- Every case checks the method's invariant after every step (no vertex with
-- d(phi, x) <= 0, each vertex's own stencil) and counts the steps that break it.
-- The paper gives no physical sizes for these tests: the ones below are
-- Tide's choice (a 1 m box, a 0.2 m drop, rho = 1000, no surface tension).
--
--   local L = require "tide.cases.liu"
--   local r = L.vertex_through_drop { n = 32, interp = "quadratic", cfl = 1 }     -- Fig. 9
--   local r = L.drop_on_ground { n = 32, volume = true, t_end = 0.3 }              -- Fig. 11b
--   local r = L.drop_on_row { n = 32, spacing = 1.5, cfl = 1, frames = 48 }        -- Figs. 11c, 12
--   local r = L.row_at_rest { keep_stencils = false }                             -- Fig. 11c, issue 16
--   local S = L.bands { dim = 2, n = 48 }                                          -- Fig. 13 (scene, bench)
--   local S, c = L.held_on_points { Bo = 0.2, contact = "vertices" }               -- Fig. 18 in 2D (test_liu_held)
local tide = require "tide"
local liu = require "tide.liu"
local drop = require "tide.drop"

local M = {}

--- Liquid area of a 2D phi: the bilinear interpolant's {phi < 0} by 4 x 4
-- samples per cell (the sharp volume, not the smoothed one the solve constrains).
function M.area(g, phi)
  local n, dx = g.size, g.dx
  M._pts = M._pts or {}
  local key = n[1] .. "x" .. n[2]
  local P = M._pts[key]
  if not P then
    P = { pts = tide.array.zeros({ 16 * n[1] * n[2], 2 }), vals = tide.array.zeros({ 16 * n[1] * n[2] }) }
    local q = 0
    for i = 0, n[1] - 1 do for j = 0, n[2] - 1 do for a = 0, 3 do for b = 0, 3 do
      q = q + 1
      P.pts:set(q, 1, g.origin[1] + (i + (a + .5) / 4) * dx)
      P.pts:set(q, 2, g.origin[2] + (j + (b + .5) / 4) * dx)
    end end end end
    M._pts[key] = P
  end
  g:sample(phi, P.pts, P.vals)
  local c = 0
  for q = 1, 16 * n[1] * n[2] do if P.vals[q] < 0 then c = c + 1 end end
  return c * dx * dx / 16
end

-- one step with the invariant checked; accumulates into r
local function step(S, dt, r)
  local st = liu.step(S, dt)
  r.steps = r.steps + 1
  r.iters = r.iters + st.iterations
  r.max_iters = math.max(r.max_iters, st.iterations)
  if not st.converged then r.capped = r.capped + 1 end
  if S.nv > 0 then
    r.min_d = math.min(r.min_d, st.min_d)
    if st.penetrating > 0 then r.pen_steps = r.pen_steps + 1 end
    r.rebased, r.dropped = r.rebased + st.rebased, r.dropped + st.dropped
  end
  return st
end

local function record()
  return { steps = 0, iters = 0, max_iters = 0, capped = 0, min_d = math.huge, pen_steps = 0, rebased = 0,
    dropped = 0 }
end

--- Fig. 9: a heavy free vertex (1e4 kg, 80x the drop) shot at 1 m/s through a
-- drop (radius 0.2 m at the centre of a 1 m box), zero gravity, until t_end
-- (0.9 s, the paper's last frame).  r.y, r.v: the vertex's height and speed at
-- the end (it starts at y = 0.05 m: at 1 m/s it would be at 0.95 m); r.exit_v.
function M.vertex_through_drop(o)
  local n, dx = o.n or 32, 1 / (o.n or 32)
  local g = tide.grid.new { size = { n, n }, dx = dx }
  local phi = drop.disk { grid = g, center = { 0.5, 0.5 }, radius = 0.2 }
  local S = liu.new { grid = g, phi = phi, x = tide.array.from { { 0.5 + 0.3 * dx, 0.05 } },
    v = tide.array.from { { 0, 1 } }, mass = 1e4, interp = o.interp or "quadratic", cfl = o.cfl or 1,
    max_iter = o.max_iter or 30, line_search = o.line_search ~= false, ccd = o.ccd or "common",
    hessian = o.hessian or "projected" }
  local r = record()
  local V0 = liu.volume(S)
  local t_end = o.t_end or 0.9
  r.frames = {}
  while S.t < t_end - 1e-12 do
    step(S, math.min(liu.max_dt(S), t_end - S.t), r)
    if o.frame then o.frame(S) end
  end
  r.y, r.v = S.x:get(1, 2), S.v:get(1, 2)
  r.vol = liu.volume(S) / V0 - 1
  r.S, r.dx = S, dx
  return r
end

--- Fig. 11b: a drop (radius 0.15 m, centre at 0.5 m height in a 1 m box)
-- thrown at the ground at 5 m/s under gravity, splashing up the side walls,
-- with (volume = true) or without the volume constraint of Eq. 10-12.
-- r.t, r.vol (V / V0 - 1 after each step: smoothed-Heaviside volume, the
-- constrained quantity), r.max_vol (max |V/V0 - 1|), r.max_comp (max over steps
-- of the solve's largest per-component error against the tracker's reference).
function M.drop_on_ground(o)
  local n = o.n or 32
  local dx = 1 / n
  local g = tide.grid.new { size = { n, n }, dx = dx }
  local phi = drop.disk { grid = g, center = { 0.5, 0.35 }, radius = 0.15 }
  local S = liu.new { grid = g, phi = phi, gravity = { 0, -9.81 }, volume = o.volume ~= false, cfl = o.cfl or 1,
    redistance_at = o.redistance_at }
  S.u:component(2):fill(-5)
  S.u:enforce_walls(nil, false)
  local r = record()
  local V0, A0 = liu.volume(S), M.area(g, S.phi)
  r.t, r.vol, r.area, r.max_vol, r.max_area, r.max_comp = {}, {}, {}, 0, 0, 0
  local t_end = o.t_end or 0.4
  while S.t < t_end - 1e-12 do
    local st = step(S, math.min(liu.max_dt(S), t_end - S.t), r)
    local e, a = liu.volume(S) / V0 - 1, M.area(g, S.phi) / A0 - 1
    r.t[#r.t + 1], r.vol[#r.vol + 1], r.area[#r.area + 1] = S.t, e, a
    r.max_vol, r.max_area = math.max(r.max_vol, math.abs(e)), math.max(r.max_area, math.abs(a))
    if st.components > 0 then r.max_comp = math.max(r.max_comp, st.vol_err) end
    if o.frame then o.frame(S) end
  end
  r.S = S
  return r
end

--- Figs. 11c and 12: a drop (radius 0.2 m) with initial velocity (0, -1 m/s)
-- under gravity onto a row of fixed vertices at y = 0.3 m spaced `spacing` dx
-- across the box (plus one half a cell from each wall).  frames of 1/60 s (several steps each at the given cfl);
-- the drop's lowest point starts `gap` m above the row.  r.frame_iters[k]: mean
-- Newton iterations per step in frame k; r.frame_capped[k]: steps at the cap;
-- r.contact_frame: first frame with a vertex within dhat; r.leak: liquid
-- volume below the row (y < row - dx) at the end over the total;
-- r.jitter: the RMS over the last third of the frames of the frame-to-frame
-- change of the drop's lowest interface height between the vertices, in dx.
-- Options passed to tide.liu: cfl, line_search, max_iter, ccd, interp, air_faces,
-- stencil_mass, redistance_at, advect_region; o.frame(S, f) after each frame.
function M.drop_on_row(o)
  local n = o.n or 32
  local dx = 1 / n
  local g = tide.grid.new { size = { n, n }, dx = dx }
  local row, R = o.row or 0.3, o.radius or 0.2
  local gap = o.gap or 0.1
  local phi = drop.disk { grid = g, center = { 0.5, row + gap + R }, radius = R }
  local h = (o.spacing or 1) * dx
  local pts = {}
  -- wall to wall, symmetric about the centre; the end gaps (< h) closed by a vertex half a cell
  -- from each wall, so that the liquid meets the spacing under test and not a gap at a wall
  local x0 = 0.5 - math.floor((0.5 - 0.5 * dx) / h) * h
  if x0 - 0.5 * dx > 0.1 * dx then pts[1] = { 0.5 * dx, row } end
  for x = x0, 1 - x0 + 1e-12, h do pts[#pts + 1] = { x, row } end
  if x0 - 0.5 * dx > 0.1 * dx then pts[#pts + 1] = { 1 - 0.5 * dx, row } end
  local X = tide.array.from(pts)
  local F = tide.array.zeros({ #pts }, "u8")
  F:fill(1)
  local S = liu.new { grid = g, phi = phi, x = X, fixed = F, mass = 1, gravity = { 0, -9.81 }, cfl = o.cfl or 1,
    line_search = o.line_search ~= false, max_iter = o.max_iter or 30, ccd = o.ccd or "common",
    interp = o.interp or "quadratic", air_faces = o.air_faces ~= false, stencil_mass = o.stencil_mass,
    redistance_at = o.redistance_at, advect_region = o.advect_region, keep_stencils = o.keep_stencils }
  S.u:component(2):fill(-1)
  S.u:enforce_walls(nil, false)
  local r = record()
  r.nv, r.spacing = #pts, h / dx
  r.frame_iters, r.frame_capped, r.low = {}, {}, {}
  local frame_dt = 1 / 60
  -- probe points midway between vertices, from the row down to 3 dx below it
  local probes = {}
  for k = 1, #pts - 1 do
    for j = 0, 12 do probes[#probes + 1] = { 0.5 * (pts[k][1] + pts[k + 1][1]), row - j * 0.25 * dx } end
  end
  local P = #probes > 0 and tide.array.from(probes) or nil
  for f = 1, o.frames or 48 do
    local it0, st0, cap0 = r.iters, r.steps, r.capped
    local t1 = f * frame_dt
    while S.t < t1 - 1e-12 do
      local st = step(S, math.min(liu.max_dt(S), t1 - S.t), r)
      if not r.contact_frame and st.pairs and st.pairs > 0 then r.contact_frame = f end
    end
    r.frame_iters[f] = (r.iters - it0) / math.max(1, r.steps - st0)
    r.frame_capped[f] = r.capped - cap0
    -- lowest liquid depth below the row between vertices (0: none)
    local low = 0
    if P then
      local v = g:sample(S.phi, P)
      for q = 1, #probes do
        if v[q] < 0 then low = math.max(low, (row - probes[q][2]) / dx) end
      end
    end
    r.low[f] = low
    if o.frame then o.frame(S, f) end
  end
  local nf = #r.low
  local from = math.max(2, nf - nf // 3)
  local s2, m = 0, 0
  for f = from, nf do s2, m = s2 + (r.low[f] - r.low[f - 1]) ^ 2, m + 1 end
  r.jitter = math.sqrt(s2 / math.max(1, m))
  local below, total = 0, 0
  for i = 1, n do
    for j = 1, n do
      local v = S.phi:get(i, j)
      if v < 0 then
        total = total + 1
        if (j - 0.5) * dx < row - dx then below = below + 1 end
      end
    end
  end
  r.leak = below / math.max(1, total)
  r.S = S
  return r
end

--- Fig. 11c's row at rest (issue 16; test_liu_redistance, scripts/liu_keep_rules.lua):
-- drop_on_row{n = 64, spacing = 1.8, frames = 24} with o's tide.liu options (keep_stencils, ...),
-- measured on the last step of every frame from frame 8 (the liquid is on the row from about
-- frame 8): r.restoration = mean |V(phi^{n+1}) - V(phi*)| / V0 (the solve's volume correction per
-- step), r.v_above = mean vertical velocity on the liquid faces of the three cell rows above the
-- row (0-based 19-21) [m/s].
function M.row_at_rest(o)
  local dv, m, vs, vc, V0 = 0, 0, 0, 0, nil
  local q = { n = 64, spacing = 1.8, frames = 24 }
  for k, v in pairs(o or {}) do q[k] = v end
  q.frame = function(S, f)
    local g = S.grid
    V0 = V0 or tide.grid.volume(g, S.phi)
    if f < 8 then return end
    dv, m = dv + math.abs(tide.grid.volume(g, S.phi) - tide.grid.volume(g, S.phi2)) / V0, m + 1
    local v = S.u:component(2)
    for i = 1, g.size[1] do
      for j = 20, 22 do
        if S.phi:get(i, j) < 0 then vs, vc = vs + v:get(i, j), vc + 1 end
      end
    end
  end
  local r = M.drop_on_row(q)
  r.restoration, r.v_above = dv / math.max(1, m), vs / math.max(1, vc)
  return r
end

--- Fig. 13 (Table I case a): drops falling through elastic bands pinned at
-- both ends.  o: dim (2 | 3), n (cells per side of the unit box), drops
-- (number, 1-3), cells (elements along a band), width (3D: elements across a
-- band), low (the drops start just above the top band: contact within a few
-- steps), and the tide.liu options interp, cfl, solver.  Bands: 0.7 m long at
-- three heights, 0.1 m wide in 3D: thin (default) ribbons 1 mm thick (thickness),
-- E 1e7 Pa, density 500 kg/m^3 -- rods of unit depth in 2D (EA = E h, EI = E h^3/12),
-- shells in 3D; or, with slab = true, neo-Hookean tet/triangle slabs thick cells
-- thick (E 2e5 Pa).
-- Returns the tide.liu state S (S.mesh the bands).
function M.bands(o)
  local dim, n = o.dim or 2, o.n or 48
  local dx = 1 / n
  local g = tide.grid.new { size = dim == 3 and { n, n, n } or { n, n }, dx = dx }
  local th = (o.thick or 1) * dx
  local along = o.cells or math.max(8, math.floor(0.7 / dx + 0.5)) -- nodes a cell apart: a tight band (Fig. 11c)
  local across = o.width or math.max(1, math.floor(0.1 / dx + 0.5))
  local list = {}
  for k, y in ipairs { 0.55, 0.4, 0.25 } do
    local x0 = k == 2 and 0.2 or 0.1
    if dim == 2 then
      list[#list + 1] = { min = { x0, y }, max = { x0 + 0.7, y + th }, cells = { along, 1 } }
    else
      list[#list + 1] = { min = { x0, y, 0.45 }, max = { x0 + 0.7, y + th, 0.55 }, cells = { along, 1, across } }
    end
  end
  local bands
  if o.slab then
    local parts = {}
    for _, b in ipairs(list) do
      parts[#parts + 1] = tide.solid.box(b)
      parts[#parts]:material { model = "neohookean", E = o.E or 2e5, nu = 0.3, density = o.density or 500 }
    end
    bands = tide.solid.merge(parts)
  else -- thin: rods in 2D, shell ribbons in 3D (tide.solid's shells and rods), merged into one mesh
    local parts = {}
    for _, b in ipairs(list) do
      local p
      if dim == 2 then
        p = tide.solid.rod { from = { b.min[1], b.min[2] }, to = { b.max[1], b.min[2] }, segments = along }
        -- a ribbon of unit depth, 1 mm thick: EA = E h, EI = E h^3 / 12, line density rho h
        local E, h = o.E or 1e7, o.thickness or 1e-3
        p:rod { EA = E * h, EI = E * h ^ 3 / 12, line_density = (o.density or 500) * h }
      else
        p = tide.solid.sheet { origin = b.min, u = { b.max[1] - b.min[1], 0, 0 }, v = { 0, 0, b.max[3] - b.min[3] },
          cells = { along, across } }
        p:shell { E = o.E or 1e7, thickness = o.thickness or 1e-3, density = o.density or 500 }
      end
      parts[#parts + 1] = p
    end
    bands = #parts == 1 and parts[1] or tide.solid.merge(parts)
  end
  bands:pin(function(x) return math.abs(x - 0.1) < 1e-9 or math.abs(x - 0.8) < 1e-9 or math.abs(x - 0.2) < 1e-9
    or math.abs(x - 0.9) < 1e-9 end)
  -- drops above the bands, falling at 1 m/s
  local shapes = {}
  local R = o.radius or 0.07
  -- low: the lowest of the first two drops starts 2 cells above the top band
  local lift = o.low and (0.55 + th + R + 2 * dx) - 0.8 or 0
  local centres = { { 0.35, 0.8 + lift }, { 0.62, 0.88 + lift }, { 0.5, 0.7 + lift } }
  for k = 1, math.min(o.drops or 2, 3) do
    local c = centres[k]
    if dim == 3 then c = { c[1], c[2], 0.5 } end
    shapes[#shapes + 1] = tide.grid.shape.sphere { center = c, radius = R }
  end
  local sh = shapes[1]
  for k = 2, #shapes do sh = tide.grid.shape.union(sh, shapes[k]) end
  local phi = sh:sdf(g)
  local grav = dim == 3 and { 0, -9.81, 0 } or { 0, -9.81 }
  local S = liu.new { grid = g, phi = phi, solid = bands, gravity = grav, interp = o.interp or "quadratic",
    cfl = o.cfl or 1, solver = o.solver or "cholmod", advect_region = o.advect_region }
  S.u:component(2):fill(-1)
  S.u:enforce_walls(nil, false)
  return S
end

--- Figs. 1 and 2 (Table I cases c, e): a cloth (nodes a cell apart: a tight
-- sheet, Fig. 11c) stretched across the box at height y (0.35 m) and pinned along
-- its two x ends (2D) or its four edges (3D), with liquid = "drops" (drops at
-- 2 m/s onto it, Fig. 1) or "dam" (a column collapsing onto it, Fig. 2).  The
-- cloth: 1 mm thick, E 1e7 Pa, a shell (3D) or a rod of unit depth (2D: EA = E h,
-- EI = E h^3/12), or with slab = true a neo-Hookean slab one cell thick (E 5e4 Pa).
-- o: dim, n, liquid, E, density (200 kg/m^3), cells (elements along a side),
-- slab, drops (1-3), radius (0.07 m), low (drops 2 cells above the cloth), tide.liu
-- options interp, cfl, solver, advect_region.  Returns the tide.liu state S (S.mesh
-- the cloth).
function M.cloth(o)
  local dim, n = o.dim or 2, o.n or 48
  local dx = 1 / n
  local g = tide.grid.new { size = dim == 3 and { n, n, n } or { n, n }, dx = dx }
  local y, lo, hi = o.height or 0.35, 0.1, 0.9
  local k = o.cells or math.max(8, math.floor((hi - lo) / dx + 0.5))
  local box = dim == 2 and { min = { lo, y }, max = { hi, y + dx }, cells = { k, 1 } }
    or { min = { lo, y, lo }, max = { hi, y + dx, hi }, cells = { k, 1, k } }
  local cloth
  if o.slab then
    cloth = tide.solid.box(box)
    cloth:material { model = "neohookean", E = o.E or 5e4, nu = 0.3, density = o.density or 200 }
  elseif dim == 2 then -- the 2D cloth: a rod across the box
    cloth = tide.solid.rod { from = { lo, y }, to = { hi, y }, segments = k }
    local E, h = o.E or 1e7, 1e-3 -- a sheet of unit depth, 1 mm thick
    cloth:rod { EA = E * h, EI = E * h ^ 3 / 12, line_density = (o.density or 200) * h }
  else
    cloth = tide.solid.sheet { origin = { lo, y, lo }, u = { hi - lo, 0, 0 }, v = { 0, 0, hi - lo }, cells = { k, k } }
    cloth:shell { E = o.E or 1e7, thickness = 1e-3, density = o.density or 200 }
  end
  local eps = 1e-9
  cloth:pin(function(x, _, z)
    local edge = math.abs(x - lo) < eps or math.abs(x - hi) < eps
    if dim == 3 then edge = edge or math.abs(z - lo) < eps or math.abs(z - hi) < eps end
    return edge
  end)
  local sh
  local vy = 0
  if (o.liquid or "drops") == "drops" then
    local centres = { { 0.35, 0.62 }, { 0.65, 0.75 }, { 0.5, 0.9 } }
    local r = o.radius or 0.07
    for j = 1, math.min(o.drops or 3, 3) do
      local c = centres[j]
      -- low: every drop's lowest point 2 cells above the cloth (contact within the first steps; bench/liu case c)
      if o.low then c = { c[1], y + dx + 2 * dx + r } end
      if dim == 3 then c = { c[1], c[2], j == 2 and 0.6 or 0.42 } end
      local s1 = tide.grid.shape.sphere { center = c, radius = r }
      sh = sh and tide.grid.shape.union(sh, s1) or s1
    end
    vy = -2
  else -- a column on the left, falling onto the cloth
    sh = dim == 2 and tide.grid.shape.box { min = { 0, y + 3 * dx }, max = { 0.3, 0.95 } }
      or tide.grid.shape.box { min = { 0, y + 3 * dx, 0 }, max = { 0.3, 0.95, 1 } }
  end
  local grav = dim == 3 and { 0, -9.81, 0 } or { 0, -9.81 }
  local S = liu.new { grid = g, phi = sh:sdf(g), solid = cloth, gravity = grav, interp = o.interp or "quadratic",
    cfl = o.cfl or 1, solver = o.solver or "cholmod", advect_region = o.advect_region }
  if vy ~= 0 then
    S.u:component(2):fill(vy)
    S.u:enforce_walls(nil, false)
  end
  return S
end

--- A 2D section of Fig. 18: a drop (R = 8 dx, 48^2 cells) resting on two fixed points
-- seen end-on, a gap G = R apart, 0.75 dx below the drop (test_liu_held,
-- scripts/liu_held_keep.lua).  o: Bo (rho g R^2 / sigma), contact, keep_stencils.
-- Returns the state and a table { py = the points' height, R, dx, centre = function(S):
-- the liquid's mean cell height }.
function M.held_on_points(o)
  local n = 48
  local dx = 1 / n
  local R, G = 8 * dx, 8 * dx
  local g = tide.grid.new { size = { n, n }, dx = dx }
  local cx, cy = 0.5, 0.55
  local py = cy - math.sqrt(R * R - G * G / 4) - 0.75 * dx
  local function centre(S)
    local c, sy = 0, 0
    for i = 1, n do
      for j = 1, n do
        if S.phi:get(i, j) < 0 then c, sy = c + 1, sy + (j - 0.5) * dx end
      end
    end
    return sy / math.max(c, 1)
  end
  local S = liu.new { grid = g, phi = drop.disk { grid = g, center = { cx, cy }, radius = R },
    x = tide.array.from { { cx - G / 2, py }, { cx + G / 2, py } }, fixed = tide.array.zeros({ 2 }, "u8"):fill(1),
    mass = 1, gravity = { 0, -9.81 }, sigma = 1000 * 9.81 * R * R / o.Bo, contact = o.contact or "segments",
    keep_stencils = o.keep_stencils }
  return S, { py = py, R = R, dx = dx, centre = centre, start = cy }
end

return M
