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
--     S 4. x* = x^n + dt v^n + dt^2 g                                      Alg. 1 line 2, Eq. 5
--   Constrained optimization
--       5. (phi^{n+1}, x^{n+1}) = argmin of Eq. 22 from (phi^n, x^n): liquid and solid
--          inertia, the vertex-level-set barrier, one volume constraint per
--          component (tide.couple.liu_solve)                          Alg. 1 line 6, Alg. 2 line 5
--       6. redistance phi^{n+1} once (fast marching), keeping the cells around the
--          vertices in contact (their distances stay those of the solve)
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

local liu = {}

local defaults = {
  rho = 1000,            -- liquid density [kg/m^3]
  sigma = 0,             -- surface tension [N/m] (Eq. 8, semi-implicit)
  cfl = 1,               -- advective CFL number of max_dt
  capillary = 0.5,       -- fraction of the explicit capillary step
  interp = "quadratic",  -- distance metric: "linear" (Fig. 5) or "quadratic"
  dhat = false,          -- barrier threshold [m] (default dx / 2)
  kappa = false,         -- barrier stiffness [kg] (default rho dx^dim)
  band = false,          -- unknown band [m] (default 3 x the largest displacement, >= 2 dx + dhat)
  volume = true,         -- one volume constraint per component (Eq. 10-12)
  line_search = true,    -- backtracking + CCD filter (Sec. 4.3.5)
  hessian = "projected",  -- barrier Hessian: "projected" (full, PSD per pair) or "gauss_newton" (Eq. 20)
  ccd = "common",        -- CCD bound: "common" (time of impact at a common t) or "paper" (min(gamma, beta))
  stencil_mass = "liquid", -- inertia of the vertices' stencil cells: "liquid" (rho V_cell) or "lagged" (Eq. 13, the paper's)
  max_iter = 30,         -- Newton iterations
  tol = false,           -- Newton tolerance ||p||_inf / dt [m/s] (default 1e-3 dx / dt)
  solver = "cholmod",    -- "cholmod", "bicgstab" (+ ILU(0)) or "pcg" (CG + IC(0))
  contact_velocity = true, -- Eq. 23 faces in the projections
  air_faces = true,      -- first projection: also the air faces of the vertices within reach
  redistance = 1,        -- redistance every n steps (0: never)
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
  for k, v in pairs(defaults) do S[k] = opts[k] == nil and v or opts[k] end
  if S.interp ~= "linear" and S.interp ~= "quadratic" then raise("tide.liu.new: interp must be linear or quadratic") end
  if S.redistance_at ~= "after" and S.redistance_at ~= "prediction" then
    raise("tide.liu.new: redistance_at must be after or prediction")
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
  S.fixed_faces:fill(0)
  local nfaces = 0
  if S.nv > 0 and S.contact_velocity then
    nfaces = couple.liu_contact_faces { grid = g, phi = phi, x = S.x, v = S.v, u = u, fixed = S.fixed_faces,
      dhat = reach or S.dhat_v, interp = S.interp, air = reach ~= nil }
  end
  for _, w in ipairs(S.walls or {}) do
    local at = { table.unpack(w, 2) }
    at[#at + 1] = 1
    S.fixed_faces:component(w[1]):set(table.unpack(at))
    at[#at] = 0
    u:component(w[1]):set(table.unpack(at))
    nfaces = nfaces + 1
  end
  liquid.label_phi(g, phi, { out = S.labels })
  local st = time("project", liquid.project, u, S.labels, { dt = dt, rho = S.rho, phi = phi, tol = S.ptol,
    valid = S.valid, pressure = S.pressure, fixed = nfaces > 0 and S.fixed_faces or nil })
  -- extension along the normals to (cfl + 3) cells from the liquid (what the advection
  -- of the next step reads); the faces beyond are zeroed (no stale speeds in max_dt)
  S.ext = S.ext or { valid = S.valid }
  S.ext.phi, S.ext.field, S.ext.maxdist = phi, u, (math.max(S.cfl, 1) + 3) * g.dx
  time("extrapolate", grid.extrapolate, S.ext)
  u:extrapolate(S.valid, 0, true)
  u:enforce_walls(nil, false)
  return st, nfaces
end

--- Advance by dt (Algorithm 1); returns the statistics of the optimization.
function liu.step(S, dt)
  local g, dim = S.grid, S.dim
  -- 1. forces (Alg. 2 line 1, Eq. 8)
  if S.gravity then S.u:add_gravity(dt, S.gravity) end
  if S.sigma > 0 then
    liquid.label_phi(g, S.phi, { out = S.labels })
    time("surface tension", liquid.surface_tension, S.u, S.phi, { sigma = S.sigma, rho = S.rho, dt = dt,
      labels = S.labels, method = "liu", side = "liquid", solver = S.solver_st })
  end
  -- 2. first projection on phi^n (Alg. 2 line 2), the solid's velocity imposed in the air
  --    around the vertices the liquid can reach in this step (so that the advection below
  --    does not carry the level set across a row of vertices)
  local reach = nil
  if S.nv > 0 and S.air_faces then
    local vmax = S.u:max_speed()
    for i = 1, S.nv do
      local s = 0
      for a = 1, dim do s = s + S.v:get(i, a) ^ 2 end
      vmax = math.max(vmax, math.sqrt(s))
    end
    reach = S.dhat_v + 2 * vmax * dt
  end
  project(S, dt, S.phi, reach)
  -- 3. advection of phi and u by u‡ (Alg. 2 lines 3-4).  advect_region: only the samples
  --    the rest of the step reads are advected, the others copied (bit-identical results):
  --    u on the liquid and the air within band + maxd + 3 dx of it -- the second projection
  --    reads the faces of the liquid of phi^{n+1}, which lies in {phi* < band} (the solve's
  --    unknowns) and so in {phi^n < band + maxd}, and the extension after it rewrites every
  --    other face; phi within maxd + 7 dx of the surface when phi* is redistanced here every
  --    step (the march's cubic start reads phi up to about 5 cells beyond the new surface --
  --    a closest-point search 1.5 cells out on the 4-wide cubic stencil, and the face
  --    neighbours of the surface cells -- and needs only the signs of the cells farther out,
  --    which a displacement of at most maxd cannot change; 4 dx beyond maxd was measured to
  --    differ, 5 dx to be identical: 2 cells of margin)
  local reg_phi, reg_u = nil, nil
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
      local w = maxd + 7 * dx
      S.reg_phi = grid.band_mask(g, S.phi, -w, w, S.reg_phi)
      reg_phi = S.reg_phi
    end
  end
  time("advect phi", grid.advect_scalar, { grid = g, velocity = S.u, field = S.phi, dt = dt, scheme = S.advect,
    interp = "cubic", out = S.phi2, region = reg_phi })
  S.advect_opts.out = S.u2
  S.advect_opts.region = reg_u
  time("advect u", S.u.advect, S.u, S.u, dt, S.advect_opts)
  S.u, S.u2 = S.u2, S.u
  -- 4. solid prediction x* = x^n + dt v^n + dt^2 g (Eq. 5); the largest displacement sets the band
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
  -- (redistance_at = "prediction": redistance phi* here instead of step 6, so that the
  --  constrained volume is that of phi^{n+1} itself; the march stops 3 cells beyond the
  --  solve's band, at least 8 cells out: farther cells get +-that distance)
  if S.redistance > 0 and (S.steps + 1) % S.redistance == 0 and S.redistance_at == "prediction" then
    S.march = S.march or {}
    S.march.band = math.max(8 * g.dx, band + 3 * g.dx)
    time("redistance", grid.redistance, g, S.phi2, S.march)
  end
  -- 5. joint optimization (Eq. 22) from (phi^n, x^n); phi* in phi2
  local so = S.mesh and { solid = S.mesh } or { x = S.x, x_star = S.xs, mass = S.mass, fixed = S.fixed }
  local st = time("optimize", couple.liu_solve, { grid = g, phi = S.phi, phi_star = S.phi2, x = so.x, x_star = so.x_star,
    mass = so.mass, fixed = so.fixed, solid = so.solid, tracker = S.tracker, dt = dt, interp = S.interp, dhat = S.dhat or nil,
    kappa = S.kappa or nil, rho = S.rho, band = band, tol = S.tol or nil, max_iter = S.max_iter,
    line_search = S.line_search, solver = S.solver, ccd = S.ccd,
    hessian = S.hessian, stencil_mass = S.stencil_mass })
  -- 6. redistance once, keeping the cells around vertices in contact
  if S.redistance > 0 and (S.steps + 1) % S.redistance == 0 and S.redistance_at == "after" then
    S.phi_keep:copy(S.phi)
    time("redistance", grid.redistance, g, S.phi)
    if S.nv > 0 then liu.keep_contact(S, S.phi_keep) end
  end
  -- 7. solid velocities (Eq. 7)
  for i = 1, S.nv do
    for a = 1, dim do S.v:set(i, a, (S.x:get(i, a) - S.xn:get(i, a)) / dt) end
  end
  -- 8. second projection on phi^{n+1} with the contact faces (Alg. 1 lines 10-11, Eq. 23)
  local _, nfaces = project(S, dt, S.phi)
  st.contact_faces = nfaces
  if S.nv > 0 then
    local d = couple.liu_distance { grid = g, phi = S.phi, x = S.x, interp = S.interp }
    local md, pen = math.huge, 0
    for i = 1, S.nv do
      local di = d:get(i)
      md = math.min(md, di)
      if di <= 0 then pen = pen + 1 end
    end
    st.min_d, st.penetrating = md, pen
  end
  S.t, S.steps = S.t + dt, S.steps + 1
  S.last = st
  return st
end

--- After redistancing, put back the optimized values of the cells around every
-- vertex within 2 dhat of the liquid (the 4^dim cells of its stencils), so that
-- the distances the barrier kept positive are not changed by the march; then,
-- while a vertex's redistanced distance is below dhat and below its optimized one
-- (a sub-cell air pocket the march does not see), its cells too.  Restoring every
-- stencil gives back the optimized distances exactly, so the loop ends with
-- every vertex at least min(dhat, its optimized distance) from the liquid.
function liu.keep_contact(S, before)
  local g, dim, dx, o, n = S.grid, S.dim, S.grid.dx, S.grid.origin, S.grid.size
  local d0 = couple.liu_distance { grid = g, phi = before, x = S.x, interp = S.interp }
  local function restore(i)
    local lo = {}
    for a = 1, dim do lo[a] = math.floor((S.x:get(i, a) - o[a]) / dx - 0.5) end -- 0-based lower cell
    local kmax = dim == 3 and 2 or 0
    for di = -1, 2 do
      for dj = -1, 2 do
        for dk = (dim == 3 and -1 or 0), kmax do
          local ci, cj, ck = lo[1] + di + 1, lo[2] + dj + 1, dim == 3 and lo[3] + dk + 1 or nil
          if ci >= 1 and ci <= n[1] and cj >= 1 and cj <= n[2] and (dim == 2 or (ck >= 1 and ck <= n[3])) then
            if dim == 2 then S.phi:set(ci, cj, before:get(ci, cj)) else S.phi:set(ci, cj, ck, before:get(ci, cj, ck)) end
          end
        end
      end
    end
  end
  local kept = {}
  for i = 1, S.nv do
    if d0:get(i) < 2 * S.dhat_v then restore(i); kept[i] = true end
  end
  for _ = 1, S.nv do
    local d1 = couple.liu_distance { grid = g, phi = S.phi, x = S.x, interp = S.interp }
    local more = false
    for i = 1, S.nv do
      if not kept[i] and d1:get(i) < S.dhat_v and d1:get(i) < d0:get(i) then restore(i); kept[i] = true; more = true end
    end
    if not more then break end
  end
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

--- Run a scene: tide.run with liu.step and the invariant checked every step, a
-- PNG per frame (the level set and the solid mesh; 3D: png3d) and, with P.vtk, the
-- mesh as .vtu with a .pvd collection.  P: frames, fps, image, vtk (tide.params);
-- name: the scene's name; out: the output directory; title: the frames' caption.
-- Returns steps, Newton iterations per step.
function liu.run_scene(S, P, name, out, title)
  local g, m = S.grid, S.mesh
  local steps, iters = 0, 0
  tide.run {
    frames = P.frames, fps = P.fps, out = out, params = P, name = name,
    max_dt = function() return liu.max_dt(S) end,
    step = function(dt)
      local st = liu.step(S, dt)
      liu.check(S)
      steps, iters = steps + 1, iters + st.iterations
    end,
    frame = function(i, t)
      local caption = string.format("%s  t = %.2f s", title, t)
      local path = string.format("%s/frame_%04d.png", out, i)
      if g.dim == 2 then
        tide.fileio.png2d { path = path, grid = g, phi = S.phi, mesh = m, width = P.image, title = caption }
      else
        tide.fileio.png3d { path = path, grid = g, phi = S.phi, width = P.image, title = caption,
          meshes = m and { { mesh = m, color = { 0.85, 0.45, 0.25 } } } or nil }
      end
      if P.vtk and m then
        local f = string.format("%s/solid_%04d.vtu", out, i)
        tide.fileio.vtu { path = f, mesh = m }
        tide.fileio.pvd(out .. "/solid.pvd", t, f)
      end
    end,
  }
  local per = iters / math.max(1, steps)
  print(string.format("%d steps, %.2f Newton iterations per step", steps, per))
  return steps, per
end

return liu
