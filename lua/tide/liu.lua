--- tide.liu: a level-set liquid coupled with solid vertices without
-- penetration (Liu et al., Algorithms 1-2, Eq. 8-23), written as a recipe.
--
--   local liu = require "tide.liu"
--   local S = liu.new{ grid = g, phi = phi, x = X, v = V, mass = 1e-3, fixed = F,
--                      gravity = {0, -9.81} }
--   for i = 1, n do liu.step(S, liu.max_dt(S)) end
--
-- The liquid is {phi < 0}; the solid is a set of vertices (rows of X, {nv, dim},
-- with velocities V, lumped masses and an optional u8 `fixed` flag per vertex).
-- One step (Algorithm 1, with the liquid's lines from Algorithm 2):
--   Position prediction
--     F 1. u† = u^n + dt g, semi-implicit surface tension (Eq. 8, Liu's band on the
--          liquid side)                                                 Alg. 2 line 1
--     F 2. u‡ = projection of u† on phi^n (contact faces from x^n, v^n)   Alg. 2 line 2
--     F 3. u* = advection of u‡, phi* = advection of phi^n by u‡           Alg. 2 lines 3-4
--       3b. films of phi* thinner than the grid gathered (keep; Tide's, not the paper's)
--     S 4. x* = x^n + dt v^n + dt^2 g                                      Alg. 1 line 2, Eq. 5
--   Constrained optimization
--       5. (phi^{n+1}, x^{n+1}) = argmin of Eq. 22 from (phi^n, x^n): liquid and solid
--          inertia, the vertex-level-set barrier, one volume constraint per
--          component (tide.couple.liu_solve)                          Alg. 1 line 6, Alg. 2 line 5
--       6. redistance phi^{n+1} once (fast marching), keeping the cells around the
--          vertices in contact (their distances stay those of the solve); with the default
--          redistance_at = "prediction" phi* is redistanced in step 3 instead, the stencil
--          cells of resting vertices keeping the barrier's raise of the last solve (keep_stencils)
--   Velocity correction
--     S 7. v^{n+1} = (x^{n+1} - x^n) / dt                                  Alg. 1 line 9, Eq. 7
--     F 8. u^{n+1} = projection of u* on phi^{n+1} with the faces near contact
--          prescribed to the solid's velocity (Eq. 23)      Alg. 1 lines 10-11, Alg. 2 line 6
-- After each projection the velocity is extended into the air (tide.grid.extrapolate).
-- The invariant is checked after every solve: every vertex has d(phi^{n+1}, x) > 0
-- (S.last.penetrating counts the vertices that do not; liu.check raises).
local raise = require("tide.core")._raise -- errors at the scene's line
local tide = require "tide"
local liquid, grid, couple = tide.liquid, tide.grid, tide.couple
local time = tide.time
local timers = require "tide.timers"

local liu = {}

local defaults = {
  rho = 1000,            -- liquid density [kg/m^3]
  sigma = 0,             -- surface tension [N/m] (Eq. 8, semi-implicit)
  tension_width = "local", -- Eq. 8's band: "local" (narrowed where the liquid is thinner than it:
                         -- the whole jump sigma kappa) or "fixed" (3 dx)
  cfl = 1,               -- advective CFL number of max_dt
  capillary = 0.5,       -- fraction of the explicit capillary step
  interp = "quadratic",  -- distance metric: "linear" (Fig. 5) or "quadratic"
  dhat = false,          -- barrier threshold [m] (default dx / 2)
  kappa = false,         -- barrier stiffness [kg] (default rho dx^dim)
  band = false,          -- unknown band [m] (default 3 x the largest displacement, >= 2 dx + dhat)
  volume = true,         -- one volume constraint per component (Eq. 10-12)
  keep = true,           -- gather films thinner than the grid into their deepest cells (step 3b)
  line_search = true,    -- backtracking + CCD filter (Sec. 4.3.5)
  hessian = "projected",  -- barrier Hessian: "projected" (full, PSD per pair) or "gauss_newton" (Eq. 20)
  ccd = "common",        -- CCD bound: "common" (time of impact at a common t) or "paper" (min(gamma, beta))
  stencil_mass = "liquid", -- inertia of the vertices' stencil cells: "liquid" (rho V_cell) or "lagged" (Eq. 13, the paper's)
  max_iter = 30,         -- Newton iterations
  tol = false,           -- Newton tolerance ||p||_inf / dt [m/s] (default 1e-3 dx / dt)
  solver = "cholmod",    -- "cholmod", "bicgstab" (+ ILU(0)) or "pcg" (CG + IC(0))
  contact_velocity = true, -- Eq. 23 faces in the projections
  contact_slip = false,  -- impose only the normal part of the solid velocity on those faces (free slip)
  contact = "vertices",  -- the faces of Eq. 23: "vertices" (the paper's: the liquid-air faces of the contacting
                         -- vertices' dual cells) or "segments" (every face within contact_radius of a rod
                         -- segment or a vertex, any phase: the solid as an obstacle in the projections)
  contact_radius = false, -- reach of "segments" [m] (default dhat + dx / 2)
  air_faces = true,      -- first projection: also the air faces of the vertices within reach
  redistance = 1,        -- redistance every n steps (0: never)
  keep_stencils = "raised", -- redistance_at = "prediction": the stencil cells of a vertex that stays in place keep,
                         -- of what the march would lower, what the last solve left them above its march ("raised";
                         -- true: every value the march lowers, which bounces a drop held on isolated points;
                         -- false: none, the liquid on a row of vertices falls in u; docs/couple.md)
  redistance_at = "prediction", -- redistance the "prediction" phi* before the optimization, or "after" it (the paper)
  advect = "maccormack", -- level-set advection
  advect_region = true,  -- advect u and phi only near the liquid (bit-identical results, see step 3)
  ptol = 1e-8,           -- pressure solve tolerance
}

local keys = { grid = true, phi = true, x = true, v = true, mass = true, fixed = true, gravity = true, walls = true,
  solid = true }
for k in pairs(defaults) do keys[k] = true end

--- Build the state.  opts: grid, phi (copied), x ({nv, dim} f64, copied; may be
-- omitted for a liquid alone), v (velocities, default 0), mass (number or {nv}
-- array [kg]), fixed ({nv} u8), gravity ({gx, gy[, gz]}), walls (a list of faces
-- {axis, i, j[, k]}, 1-based, held at zero velocity in both projections: a plain
-- Neumann condition, the comparison of Fig. 11a), and the defaults above.
-- Or solid = m, a tide.solid volume mesh with a material (instead of x, v, mass,
-- fixed): its nodes are the vertices, m.x and m.v are advanced in place, and its
-- incremental potential (elasticity, damping, gravity, pinned nodes) is the solid
-- term of the optimization (Eq. 22).  A mesh's own gravity applies to it.
function liu.new(opts)
  if type(opts) ~= "table" then raise("tide.liu.new: table of named arguments expected") end
  for k in pairs(opts) do
    if not keys[k] then raise(string.format("tide.liu.new: unknown option '%s'", tostring(k))) end
  end
  local g, phi = opts.grid, opts.phi
  if not g or not phi then raise("tide.liu.new: 'grid' and 'phi' are required") end
  local S = {}
  for k, v in pairs(defaults) do -- (not `opts[k] == nil and v or opts[k]`: a false default would become nil)
    if opts[k] == nil then S[k] = v else S[k] = opts[k] end
  end
  if S.interp ~= "linear" and S.interp ~= "quadratic" then raise("tide.liu.new: interp must be linear or quadratic") end
  if S.redistance_at ~= "after" and S.redistance_at ~= "prediction" then
    raise("tide.liu.new: redistance_at must be after or prediction")
  end
  if S.tension_width ~= "local" and S.tension_width ~= "fixed" then raise("tide.liu.new: tension_width must be local or fixed") end
  if S.contact ~= "vertices" and S.contact ~= "segments" then raise("tide.liu.new: contact must be vertices or segments") end
  if type(S.keep_stencils) ~= "boolean" and S.keep_stencils ~= "raised" then
    raise("tide.liu.new: keep_stencils must be \"raised\", true or false")
  end
  if S.solver ~= "cholmod" and S.solver ~= "bicgstab" and S.solver ~= "pcg" then
    raise("tide.liu.new: solver must be cholmod, bicgstab or pcg")
  end
  for _, k in ipairs { "rho", "sigma", "cfl", "capillary", "max_iter", "redistance" } do
    local v = S[k]
    if type(v) ~= "number" or v ~= v or v < 0 or v == math.huge then
      raise(string.format("tide.liu.new: %s must be a finite number >= 0", k))
    end
  end
  S.grid, S.dim = g, g.dim
  S.gravity = opts.gravity
  S.walls = opts.walls
  S.phi, S.phi2, S.phi_keep = g:cells(), g:cells(), g:cells()
  S.phi:copy(phi)
  S.u, S.u2 = g:mac(), g:mac()
  S.valid, S.fixed_faces = g:mac("u8"), g:mac("u8")
  S.labels = liquid.label_phi(g, S.phi)
  S.pressure = g:cells()
  S.solver_st = liquid.viscosity_solver()
  S.advect_opts = { out = S.u2, work = grid.advect_work() }
  S.dhat_v = S.dhat or 0.5 * g.dx
  local nv = opts.x and opts.x.shape[1] or 0
  if opts.solid then
    if opts.x or opts.v or opts.mass or opts.fixed then
      raise("tide.liu.new: give 'solid' (a tide.solid mesh) or the vertices x, v, mass, fixed, not both")
    end
    S.mesh = opts.solid
    nv = S.mesh.nv
  end
  S.nv = nv
  -- "segments": the rod segments of a mesh (its elements when they are segments); free
  -- vertices and the vertices of other meshes count as points
  if S.contact == "segments" then
    S.contact_rc = S.contact_radius or S.dhat_v + 0.5 * g.dx
    if not (type(S.contact_rc) == "number" and S.contact_rc > 0) then raise("tide.liu.new: contact_radius must be > 0 [m]") end
    local e = S.mesh and S.mesh:elements()
    S.segments = e and e.shape[2] == 2 and e or nil
  end
  if S.mesh then
    S.x, S.v = S.mesh.x, S.mesh.v -- views: the mesh's own positions and velocities
    S.xs, S.xn = tide.array.zeros({ nv, g.dim }), tide.array.zeros({ nv, g.dim })
    S.mass = 1
  elseif nv > 0 then
    S.x = tide.array.zeros({ nv, g.dim }) ; S.x:copy(opts.x)
    S.v = tide.array.zeros({ nv, g.dim }) ; if opts.v then S.v:copy(opts.v) end
    S.xs, S.xn = tide.array.zeros({ nv, g.dim }), tide.array.zeros({ nv, g.dim })
    S.mass = opts.mass or 1
    S.fixed = opts.fixed
  else
    S.x = tide.array.zeros({ 0, g.dim })
    S.v, S.xs, S.xn = S.x, S.x, S.x
    S.mass = 1
  end
  if S.volume then S.tracker = grid.volume_tracker { grid = g, phi = S.phi } end
  S.t, S.steps = 0, 0
  S.last = nil
  S.history = {}
  return S
end

--- Largest stable step: cfl cells per step at the fastest liquid face or vertex,
-- the gravity bound, and the capillary limit times `capillary`.
function liu.max_dt(S)
  local dx = S.grid.dx
  local vmax = S.u:max_speed()
  for i = 1, S.nv do
    local s = 0
    for a = 1, S.dim do s = s + S.v:get(i, a) ^ 2 end
    vmax = math.max(vmax, math.sqrt(s))
  end
  local dt = S.cfl * dx / math.max(vmax, 1e-12)
  if S.sigma > 0 then dt = math.min(dt, S.capillary * liquid.capillary_dt(dx, S.sigma, S.rho)) end
  if S.gravity then
    local gm = 0
    for _, c in ipairs(S.gravity) do gm = gm + c * c end
    if gm > 0 then dt = math.min(dt, S.cfl * math.sqrt(dx / math.sqrt(gm))) end
  end
  return dt
end

-- projection with the contact faces of the vertices at (x, v) prescribed (Eq. 23);
-- reach (the first projection): the air faces of the vertices within reach too
local function project(S, dt, phi, reach)
  local g, u = S.grid, S.u
  local tc = timers.start("contact faces")
  S.fixed_faces:fill(0)
  local nfaces = 0
  if S.nv > 0 and S.contact_velocity and S.contact == "segments" then
    nfaces = couple.liu_contact_segments { grid = g, x = S.x, v = S.v, u = u, fixed = S.fixed_faces,
      radius = S.contact_rc, segments = S.segments, slip = S.contact_slip }
  elseif S.nv > 0 and S.contact_velocity then
    nfaces = couple.liu_contact_faces { grid = g, phi = phi, x = S.x, v = S.v, u = u, fixed = S.fixed_faces,
      dhat = reach or S.dhat_v, interp = S.interp, air = reach ~= nil, slip = S.contact_slip }
  end
  for _, w in ipairs(S.walls or {}) do
    local at = { table.unpack(w, 2) }
    at[#at + 1] = 1
    S.fixed_faces:component(w[1]):set(table.unpack(at))
    at[#at] = 0
    u:component(w[1]):set(table.unpack(at))
    nfaces = nfaces + 1
  end
  timers.stop(tc)
  time("labels", liquid.label_phi, g, phi, { out = S.labels })
  local st = time("project", liquid.project, u, S.labels, { dt = dt, rho = S.rho, phi = phi, tol = S.ptol,
    valid = S.valid, pressure = S.pressure, fixed = nfaces > 0 and S.fixed_faces or nil })
  -- extension along the normals to (cfl + 3) cells from the liquid (what the advection
  -- of the next step reads); the faces beyond are zeroed (no stale speeds in max_dt)
  S.ext = S.ext or { valid = S.valid }
  S.ext.phi, S.ext.field, S.ext.maxdist = phi, u, (math.max(S.cfl, 1) + 3) * g.dx
  local te = timers.start("extrapolate")
  grid.extrapolate(S.ext)
  u:extrapolate(S.valid, 0, true)
  u:enforce_walls(nil, false)
  timers.stop(te)
  return st, nfaces
end

--- Advance by dt (Algorithm 1); returns the statistics of the optimization.
function liu.step(S, dt)
  local g, dim = S.grid, S.dim
  -- 1. forces (Alg. 2 line 1, Eq. 8)
  if S.gravity then time("forces", S.u.add_gravity, S.u, dt, S.gravity) end
  if S.sigma > 0 then
    time("labels", liquid.label_phi, g, S.phi, { out = S.labels })
    time("surface tension", liquid.surface_tension, S.u, S.phi, { sigma = S.sigma, rho = S.rho, dt = dt,
      labels = S.labels, method = "liu", side = "liquid", width = S.tension_width, solver = S.solver_st })
  end
  -- 2. first projection on phi^n (Alg. 2 line 2), the solid's velocity imposed in the air
  --    around the vertices the liquid can reach in this step (so that the advection below
  --    does not carry the level set across a row of vertices)
  local reach = nil
  local tr = timers.start("contact faces")
  if S.nv > 0 and S.air_faces then
    local vmax = S.u:max_speed()
    for i = 1, S.nv do
      local s = 0
      for a = 1, dim do s = s + S.v:get(i, a) ^ 2 end
      vmax = math.max(vmax, math.sqrt(s))
    end
    reach = S.dhat_v + 2 * vmax * dt
  end
  timers.stop(tr)
  project(S, dt, S.phi, reach)
  -- 3. advection of phi and u by u‡ (Alg. 2 lines 3-4).  advect_region: only the samples
  --    the rest of the step reads are advected, the others copied (bit-identical results):
  --    u on the liquid and the air within band + maxd + 3 dx of it -- the second projection
  --    reads the faces of the liquid of phi^{n+1}, which lies in {phi* < band} (the solve's
  --    unknowns) and so in {phi^n < band + maxd}, and the extension after it rewrites every
  --    other face; phi within maxd + 6 dx of the surface when phi* is redistanced here every
  --    step (the march's cubic start reads phi some cells beyond the new surface -- kink
  --    flags, a closest-point search 1.5 cells out on the 4-wide cubic stencil, the face
  --    neighbours of the surface cells -- and needs only the signs of the cells farther out,
  --    which a displacement of at most maxd cannot change; 4 dx beyond maxd was measured to
  --    differ, 5 dx to be identical).  Both widths stay below the march's band (the cells
  --    it does not reach hold exactly +-band, outside the strict masks) up to about CFL 1;
  --    beyond, the masks cover the grid: correct, no faster.
  local reg_phi, reg_u = nil, nil
  local ta = timers.start("advect region")
  if S.advect_region then
    local dx = g.dx
    local vmax = S.u:max_speed()
    local gm = 0
    for _, c in ipairs(S.gravity or {}) do gm = gm + c * c end
    for i = 1, S.nv do
      local s = 0
      for a = 1, dim do s = s + S.v:get(i, a) ^ 2 end
      vmax = math.max(vmax, math.sqrt(s) + dt * math.sqrt(gm))
    end
    local maxd = vmax * dt
    local band = S.band or math.max(3 * maxd, 2 * dx + S.dhat_v)
    S.reg_u = grid.band_mask(g, S.phi, -math.huge, band + maxd + 3 * dx, S.reg_u)
    reg_u = S.reg_u
    if S.redistance == 1 and S.redistance_at == "prediction" and S.advect ~= "bfecc" then
      local w = maxd + 6 * dx
      S.reg_phi = grid.band_mask(g, S.phi, -w, w, S.reg_phi)
      reg_phi = S.reg_phi
    end
  end
  timers.stop(ta)
  time("advect phi", grid.advect_scalar, { grid = g, velocity = S.u, field = S.phi, dt = dt, scheme = S.advect,
    interp = "cubic", out = S.phi2, region = reg_phi })
  S.advect_opts.out = S.u2
  S.advect_opts.region = reg_u
  time("advect u", S.u.advect, S.u, S.u, dt, S.advect_opts)
  S.u, S.u2 = S.u2, S.u
  -- 3b. keep: a component the advection left without a liquid cell, or with none a
  --     quarter cell deep (a film thinner than the grid can carry: a puddle spread below
  --     half a cell, a sheet between rods; its smoothed volume sits in cells around
  --     phi = 0) gathers into its round(V0 / V_cell) deepest cells, so that the tracker
  --     holds it to its reference volume in step 5 instead of dropping it
  --     (tide.VolumeTracker:keep, before the redistancing would erase it)
  local kept = S.tracker and S.keep and time("keep", S.tracker.keep, S.tracker, S.phi2) or 0
  -- 4. solid prediction x* = x^n + dt v^n + dt^2 g (Eq. 5); the largest displacement sets the band
  local tp = timers.start("solid prediction")
  local gv = S.gravity or {}
  local maxdisp = S.u:max_speed() * dt
  for i = 1, S.nv do
    local free = not (S.fixed and S.fixed:get(i) ~= 0)
    local s = 0
    for a = 1, dim do
      local xa = S.x:get(i, a)
      S.xn:set(i, a, xa)
      local dxa = free and (dt * S.v:get(i, a) + dt * dt * (gv[a] or 0)) or 0
      S.xs:set(i, a, xa + dxa)
      s = s + dxa * dxa
    end
    maxdisp = math.max(maxdisp, math.sqrt(s))
  end
  local band = S.band or math.max(3 * maxdisp, 2 * g.dx + S.dhat_v)
  timers.stop(tp)
  -- (redistance_at = "prediction": redistance phi* here instead of step 6, so that the
  --  constrained volume is that of phi^{n+1} itself; the march stops 3 cells beyond the
  --  solve's band, at least 8 cells out: farther cells get +-that distance.  keep_stencils:
  --  the stencil cells of the vertices near the liquid that stay in place keep the values the
  --  march would lower, the air the last solve's barrier raised under them; reset to distances,
  --  the barrier held the liquid off the solid on a layer of air cells, free faces in the
  --  projections, and the resting liquid kept falling in u -- Fig. 11c's drop on a row lost
  --  1.2% of its volume per step to the advection for the constraint to put back.  "raised"
  --  (default): a cell keeps only up to what the last solve left it above that step's march
  --  (step 5b), the barrier's raise; true kept every value the march lowers, also the liquid
  --  flowing around an isolated point, and pumped a drop held on two points up and down, docs/couple.md)
  if S.redistance > 0 and (S.steps + 1) % S.redistance == 0 and S.redistance_at == "prediction" then
    S.march = S.march or {}
    S.march.band = math.max(8 * g.dx, band + 3 * g.dx)
    local keep = S.nv > 0 and S.keep_stencils
    if keep then
      -- the vertices that stay within a quarter cell in this step (x* against x^n): their
      -- stencils' values, the last solve's advected, are what the barrier set up there
      S.still = S.still or {}
      keep = false
      for i = 1, S.nv do
        local s = 0
        for a = 1, dim do s = s + (S.xs:get(i, a) - S.xn:get(i, a)) ^ 2 end
        S.still[i] = s < (0.25 * g.dx) ^ 2
        keep = keep or S.still[i]
      end
    end
    if keep then S.phi_keep:copy(S.phi2) end
    time("redistance", grid.redistance, g, S.phi2, S.march)
    local raised = S.keep_stencils == "raised"
    if raised then
      S.phi_march = S.phi_march or g:cells()
      S.phi_march:copy(S.phi2)
    end
    if keep then
      time("keep contact", liu.keep_contact, S, S.phi_keep, S.phi2, S.still, true, raised and (S.raised or {}) or nil)
    end
    S.marched = raised
  else
    S.marched = false
  end
  -- 5. joint optimization (Eq. 22) from (phi^n, x^n); phi* in phi2
  local so = S.mesh and { solid = S.mesh } or { x = S.x, x_star = S.xs, mass = S.mass, fixed = S.fixed }
  local st = time("optimize", couple.liu_solve, { grid = g, phi = S.phi, phi_star = S.phi2, x = so.x, x_star = so.x_star,
    mass = so.mass, fixed = so.fixed, solid = so.solid, tracker = S.tracker, dt = dt, interp = S.interp, dhat = S.dhat or nil,
    kappa = S.kappa or nil, rho = S.rho, band = band, tol = S.tol or nil, max_iter = S.max_iter,
    line_search = S.line_search, solver = S.solver, ccd = S.ccd,
    hessian = S.hessian, stencil_mass = S.stencil_mass })
  -- 5b. keep_stencils = "raised": what the solve left each stencil cell above the march
  if S.marched and S.nv > 0 then time("keep record", liu.record_raise, S) end
  -- 6. redistance once, keeping the cells around vertices in contact
  if S.redistance > 0 and (S.steps + 1) % S.redistance == 0 and S.redistance_at == "after" then
    S.phi_keep:copy(S.phi)
    time("redistance", grid.redistance, g, S.phi)
    if S.nv > 0 then time("keep contact", liu.keep_contact, S, S.phi_keep) end
  end
  -- 7. solid velocities (Eq. 7)
  local tv = timers.start("solid velocity")
  for i = 1, S.nv do
    for a = 1, dim do S.v:set(i, a, (S.x:get(i, a) - S.xn:get(i, a)) / dt) end
  end
  timers.stop(tv)
  -- 8. second projection on phi^{n+1} with the contact faces (Alg. 1 lines 10-11, Eq. 23)
  local _, nfaces = project(S, dt, S.phi)
  st.contact_faces = nfaces
  st.kept = kept
  if S.nv > 0 then
    local tk = timers.start("check")
    local d = couple.liu_distance { grid = g, phi = S.phi, x = S.x, interp = S.interp }
    local md, pen = math.huge, 0
    for i = 1, S.nv do
      local di = d:get(i)
      md = math.min(md, di)
      if di <= 0 then pen = pen + 1 end
    end
    st.min_d, st.penetrating = md, pen
    timers.stop(tk)
  end
  S.t, S.steps = S.t + dt, S.steps + 1
  S.last = st
  return st
end

-- calls f(ci, cj, ck, idx) for the 4^dim cells around vertex i of S (1-based; ck nil in 2D;
-- idx the 0-based linear index): the cells of its stencils (linear and quadratic)
local function each_stencil_cell(S, i, f)
  local g, dim, dx, o, n = S.grid, S.dim, S.grid.dx, S.grid.origin, S.grid.size
  local lo = {}
  for a = 1, dim do lo[a] = math.floor((S.x:get(i, a) - o[a]) / dx - 0.5) end -- 0-based lower cell
  local k0, k1 = 0, 0
  if dim == 3 then k0, k1 = -1, 2 end
  for di = -1, 2 do
    for dj = -1, 2 do
      for dk = k0, k1 do
        local ci, cj = lo[1] + di + 1, lo[2] + dj + 1
        local ck = dim == 3 and lo[3] + dk + 1 or nil
        if ci >= 1 and ci <= n[1] and cj >= 1 and cj <= n[2] and (dim == 2 or (ck >= 1 and ck <= n[3])) then
          f(ci, cj, ck, (ci - 1) + n[1] * ((cj - 1) + n[2] * ((ck or 1) - 1)))
        end
      end
    end
  end
end

local function cell_get(phi, ci, cj, ck)
  if ck then return phi:get(ci, cj, ck) end
  return phi:get(ci, cj)
end

local function cell_set(phi, ci, cj, ck, v)
  if ck then phi:set(ci, cj, ck, v) else phi:set(ci, cj, v) end
end

--- After redistancing, put back the optimized values of the cells around every
-- vertex within 2 dhat of the liquid (the 4^dim cells of its stencils), so that
-- the distances the barrier kept positive are not changed by the march; then,
-- while a vertex's redistanced distance is below dhat and below its optimized one
-- (a sub-cell air pocket the march does not see), its cells too.  Restoring every
-- stencil gives back the optimized distances exactly, so the loop ends with
-- every vertex at least min(dhat, its optimized distance) from the liquid.
-- cap (keep_stencils = "raised", issue 16): a table of per-cell bounds (0-based linear index ->
-- [m]): a cell is put back only up to cap above its redistanced value, one not in it not at all
-- (so the distances above are not restored; used before the solve, whose barrier keeps d > 0).
function liu.keep_contact(S, before, phi, only, raise_only, cap)
  phi = phi or S.phi
  local g = S.grid
  local d0 = couple.liu_distance { grid = g, phi = before, x = S.x, interp = S.interp }
  local function restore(i)
    each_stencil_cell(S, i, function(ci, cj, ck, idx)
      local b, cur = cell_get(before, ci, cj, ck), cell_get(phi, ci, cj, ck)
      if cap then b = math.min(b, cur + (cap[idx] or 0)) end
      if not raise_only or b > cur then cell_set(phi, ci, cj, ck, b) end
    end)
  end
  local kept = {}
  for i = 1, S.nv do
    if only and not only[i] then kept[i] = true -- not restored, and not in the loop below
    elseif d0:get(i) < 2 * S.dhat_v then restore(i); kept[i] = true end
  end
  for _ = 1, S.nv do
    local d1 = couple.liu_distance { grid = g, phi = phi, x = S.x, interp = S.interp }
    local more = false
    for i = 1, S.nv do
      if not kept[i] and d1:get(i) < S.dhat_v and d1:get(i) < d0:get(i) then restore(i); kept[i] = true; more = true end
    end
    if not more then break end
  end
end

--- keep_stencils = "raised": after the solve, S.raised[idx] = what the solve left each
-- stencil cell of a vertex within the barrier's reach (d(phi^{n+1}, x) < dhat) above phi*'s
-- march (S.phi_march), phi^{n+1} - march(phi*) where positive: the barrier's raise (and
-- the keep's, which it carried), which the next step's keep may put back; a vertex the liquid
-- has left (d >= dhat, no barrier) records nothing, and its cells go back to the march
function liu.record_raise(S)
  local d = couple.liu_distance { grid = S.grid, phi = S.phi, x = S.x, interp = S.interp }
  local r = {}
  for i = 1, S.nv do
    if d:get(i) < S.dhat_v then
      each_stencil_cell(S, i, function(ci, cj, ck, idx)
        local up = cell_get(S.phi, ci, cj, ck) - cell_get(S.phi_march, ci, cj, ck)
        if up > 0 then r[idx] = up end
      end)
    end
  end
  S.raised = r
end

--- Raise if a vertex is inside the liquid (the invariant of the method).
function liu.check(S)
  if S.last and S.last.penetrating and S.last.penetrating > 0 then
    raise(string.format("tide.liu: %d vertices inside the liquid at step %d (min d %.3g m)", S.last.penetrating,
      S.steps, S.last.min_d))
  end
end

--- Liquid volume [m^dim] (smoothed Heaviside, as the constraint).
function liu.volume(S) return grid.volume(S.grid, S.phi) end

-- the volume of a redistanced copy of phi (what the step's redistancing and
-- the volume tracker's references see; a fresh analytic distance field and its
-- redistanced copy differ in smoothed volume by O(dx) per unit area)
local function settled_volume(S)
  S.vscratch = S.vscratch or S.grid:cells()
  S.vscratch:copy(S.phi)
  grid.redistance(S.grid, S.vscratch, { band = 8 * S.grid.dx })
  return grid.volume(S.grid, S.vscratch)
end

--- Add a drop to the liquid of S: a disc (2D) or ball (3D) of the given
-- centre and radius [m], phi = min(phi, |x - c| - r) on the cells within r + 4 dx
-- of c, and `velocity` on the faces within r + dx.  Refused -- returns nil and
-- the reason, S unchanged -- when the drop would leave the box, come within
-- 2 dx of liquid already there (it must be a new component of the volume
-- constraint, Eq. 10-11, not a merge the tracker would share out), or within
-- dhat + 2 dx of a solid vertex (the invariant).  Returns the volume added
-- [m^dim] (smoothed Heaviside of the redistanced field, as the volume
-- tracker's reference), which the tracker holds as a new component's
-- reference (tide.VolumeTracker:add).
function liu.add_drop(S, o)
  if type(o) ~= "table" then raise("tide.liu.add_drop: table {center =, radius =, velocity =} expected") end
  local g, dim, dx = S.grid, S.dim, S.grid.dx
  local c, r, vel = o.center, o.radius, o.velocity or {}
  if type(c) ~= "table" or #c ~= dim then raise(string.format("tide.liu.add_drop: center must be a list of %d numbers", dim)) end
  if type(r) ~= "number" or not (r >= dx) then raise("tide.liu.add_drop: radius must be a number >= dx [m]") end
  local org, n = g.origin, g.size
  for a = 1, dim do
    if c[a] - r < org[a] + dx or c[a] + r > org[a] + n[a] * dx - dx then return nil, "outside the box" end
  end
  local clear = r + S.dhat_v + 2 * dx
  for i = 1, S.nv do
    local s = 0
    for a = 1, dim do s = s + (S.x:get(i, a) - c[a]) ^ 2 end
    if s < clear * clear then return nil, "a solid vertex" end
  end
  local lo, hi = {}, {}
  for a = 1, dim do
    lo[a] = math.max(1, math.floor((c[a] - r - 4 * dx - org[a]) / dx))
    hi[a] = math.min(n[a], math.ceil((c[a] + r + 4 * dx - org[a]) / dx) + 1)
  end
  if dim == 2 then lo[3], hi[3] = 1, 1 end
  local phi = S.phi
  local function each(f) -- f(i, j, k, d): cells of the box, d the drop's distance at the centre
    for i = lo[1], hi[1] do
      local px = org[1] + (i - 0.5) * dx - c[1]
      for j = lo[2], hi[2] do
        local py = org[2] + (j - 0.5) * dx - c[2]
        for k = lo[3], hi[3] do
          local s = px * px + py * py
          if dim == 3 then s = s + (org[3] + (k - 0.5) * dx - c[3]) ^ 2 end
          if f(i, j, k, math.sqrt(s) - r) then return true end
        end
      end
    end
  end
  local get = dim == 2 and function(i, j) return phi:get(i, j) end or function(i, j, k) return phi:get(i, j, k) end
  local set = dim == 2 and function(i, j, _, v) phi:set(i, j, v) end or function(i, j, k, v) phi:set(i, j, k, v) end
  if each(function(i, j, k, d) return d < 2 * dx and get(i, j, k) < 2 * dx end) then return nil, "liquid" end
  local V0 = settled_volume(S)
  each(function(i, j, k, d) if d < get(i, j, k) then set(i, j, k, d) end end)
  -- the drop's velocity on its faces (face a of cell (i, j, k) at its lower side along a)
  for a = 1, dim do
    local va = vel[a] or 0
    local comp = S.u:component(a)
    local sh = comp.shape
    for i = lo[1], math.min(hi[1] + (a == 1 and 1 or 0), sh[1]) do
      for j = lo[2], math.min(hi[2] + (a == 2 and 1 or 0), sh[2]) do
        for k = lo[3], dim == 3 and math.min(hi[3] + (a == 3 and 1 or 0), sh[3]) or 1 do
          local p = { i - 0.5, j - 0.5, k - 0.5 }
          p[a] = p[a] - 0.5
          local s = 0
          for b = 1, dim do s = s + (org[b] + p[b] * dx - c[b]) ^ 2 end
          if math.sqrt(s) < r + dx then
            if dim == 2 then comp:set(i, j, va) else comp:set(i, j, k, va) end
          end
        end
      end
    end
  end
  S.u:enforce_walls(nil, false)
  local dv = settled_volume(S) - V0
  if S.tracker then
    -- a component of its own for the volume constraint: the tracker's labels reach
    -- 3 dx into the air, and a drop placed in another component's band would
    -- otherwise share that one's reference volume and bring none of its own
    S.body = S.body or g:cells()
    S.body:fill(1e30)
    local bset = dim == 2 and function(i, j, _, v) S.body:set(i, j, v) end
      or function(i, j, k, v) S.body:set(i, j, k, v) end
    each(function(i, j, k, d) bset(i, j, k, d) end)
    S.tracker:add(S.body, dv)
  end
  return dv
end

--- Rain: drops of radii uniform in `radius` = {rmin, rmax} [m] with centres
-- uniform in the box `box` = {min =, max =} and velocity `velocity` [m/s]
-- (each component plus a uniform jitter in +-`jitter`; a centre is moved into the
-- grid's box by what the drop needs), due every 1/rate s from
-- `start` on (at most `count` drops).  R:emit(S) adds the drops that are due at
-- S.t (liu.add_drop); a drop refused at 8 drawn places (liquid or a solid vertex
-- there) waits for the next call.  Positions come from tide.rand(stream, .),
-- so a run is the same with any thread count.  R.drops, R.volume (added,
-- [m^dim]), R.waits count what happened.
function liu.rain(o)
  if type(o) ~= "table" or type(o.box) ~= "table" or type(o.radius) ~= "table" then
    raise("tide.liu.rain: table {box = {min =, max =}, radius = {rmin, rmax}, rate =, velocity =} expected")
  end
  local R = { box = o.box, radius = o.radius, rate = o.rate or 10, velocity = o.velocity or {}, jitter = o.jitter or 0,
    stream = o.stream or 7, start = o.start or 0, count = o.count or math.huge, drops = 0, volume = 0, waits = 0 }
  if not (R.rate > 0) then raise("tide.liu.rain: rate must be > 0 [drops/s]") end
  function R.emit(self, S)
    local added = 0
    while self.drops < self.count and S.t >= self.start + self.drops / self.rate do
      local k, placed = self.drops, false
      for try = 0, 7 do
        local q = 16 * (8 * k + try)
        local function u(m) return tide.rand(self.stream, q + m) end
        local c, v = {}, {}
        for a = 1, S.dim do
          c[a] = self.box.min[a] + u(a) * (self.box.max[a] - self.box.min[a])
          v[a] = (self.velocity[a] or 0) + self.jitter * (2 * u(4 + a) - 1)
        end
        local r = self.radius[1] + u(8) * (self.radius[2] - self.radius[1])
        for a = 1, S.dim do -- inside the grid's box, a cell from its walls
          local lo = S.grid.origin[a] + S.grid.dx + r
          local hi = S.grid.origin[a] + (S.grid.size[a] - 1) * S.grid.dx - r
          c[a] = math.max(lo, math.min(hi, c[a]))
        end
        local dv = liu.add_drop(S, { center = c, radius = r, velocity = v })
        if dv then
          self.drops, self.volume, added, placed = self.drops + 1, self.volume + dv, added + dv, true
          break
        end
      end
      if not placed then self.waits = self.waits + 1; break end
    end
    return added
  end
  return R
end

--- Run a scene: tide.run with liu.step and the invariant checked every step, a
-- PNG per frame (the level set and the solid mesh; 3D: png3d, rods as tubes)
-- and, with P.vtk, the mesh as .vtu with a .pvd collection.  P: frames, fps,
-- image, vtk (tide.params); name: the scene's name; out: the output directory;
-- title: the frames' caption.  opts (optional): rain (a liu.rain, emitting after
-- each step), after_step(S, dt) (called after each checked step), points() (an
-- Array (n, dim) drawn as particles: dirt, markers), tube (rod radius drawn in
-- 3D [m]), color.  Prints and returns a summary: steps, Newton iterations per
-- step, steps at the cap, penetrating vertices (0: liu.check raises otherwise),
-- the smallest vertex distance, the largest |V / (V0 + rain) - 1| over the steps
-- (V0 and the drops' volumes on the redistanced level set, as the tracker's)
-- and the seconds per step (wall, and CPU summed over the threads: os.clock).
function liu.run_scene(S, P, name, out, title, opts)
  opts = opts or {}
  local g, m = S.grid, S.mesh
  local solids = require "tide.solids"
  local r = { steps = 0, iters = 0, capped = 0, penetrating = 0, min_d = math.huge, max_drift = 0, wall = 0, cpu = 0, added = 0 }
  local V0 = settled_volume(S)
  local view = {}
  tide.run {
    frames = P.frames, fps = P.fps, out = out, params = P, name = name,
    max_dt = function() return liu.max_dt(S) end,
    step = function(dt)
      local t0, c0 = tide.clock(), os.clock()
      local st = liu.step(S, dt)
      r.wall, r.cpu = r.wall + tide.clock() - t0, r.cpu + os.clock() - c0
      liu.check(S)
      r.steps, r.iters = r.steps + 1, r.iters + st.iterations
      if not st.converged then r.capped = r.capped + 1 end
      if S.nv > 0 then
        r.penetrating = r.penetrating + st.penetrating
        r.min_d = math.min(r.min_d, st.min_d)
      end
      r.max_drift = math.max(r.max_drift, math.abs(liu.volume(S) / (V0 + r.added) - 1))
      if opts.after_step then opts.after_step(S, dt) end
      if opts.rain then r.added = r.added + opts.rain:emit(S) end
      return { iterations = st.iterations }
    end,
    frame = function(i, t)
      local caption = string.format("%s  t = %.2f s", title, t)
      local path = string.format("%s/frame_%04d.png", out, i)
      local pts = opts.points and opts.points() or nil
      if g.dim == 2 then
        if not m and S.nv > 0 then pts = pts or S.x end
        tide.fileio.png2d { path = path, grid = g, phi = S.phi, mesh = m, width = P.image, title = caption,
          particles = pts, particle_rgb = { 0.45, 0.3, 0.15 }, radius = 0.4 * g.dx, edge_width = 2 }
      else
        local color = opts.color or { 0.85, 0.45, 0.25 }
        local meshes = nil
        if m then
          meshes = { m.kind == "rod" and solids.tubes(m, opts.tube or 0.3 * g.dx, color) or { mesh = m, color = color } }
        end
        if not m and S.nv > 0 then pts = pts or S.x end
        tide.fileio.png3d { path = path, grid = g, phi = S.phi, width = P.image, title = caption, meshes = meshes,
          particles = pts, particle_rgb = { 0.45, 0.3, 0.15 }, radius = 0.3 * g.dx, view = view }
      end
      if P.vtk and m then
        local f = string.format("%s/solid_%04d.vtu", out, i)
        tide.fileio.vtu { path = f, mesh = m }
        tide.fileio.pvd(out .. "/solid.pvd", t, f)
      end
    end,
  }
  r.per_iter = r.iters / math.max(1, r.steps)
  r.per_step, r.cpu_per_step = r.wall / math.max(1, r.steps), r.cpu / math.max(1, r.steps)
  local drops = opts.rain and string.format(", %d rain drops", opts.rain.drops) or ""
  print(string.format("%s: %d steps, %.2f Newton iterations per step (%d at the cap), %d penetrating vertices "
    .. "(closest %.3g dx), max |V/V0 - 1| %.2e%s, %.3f s per step (%.3f s CPU, all threads)", name, r.steps, r.per_iter,
    r.capped, r.penetrating, r.min_d / g.dx, r.max_drift, drops, r.per_step, r.cpu_per_step))
  return r.steps, r.per_iter, r
end

return liu
