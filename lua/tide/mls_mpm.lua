--- tide.mls_mpm: the explicit MLS-MPM step of tide.mpm as a readable sequence of
-- native calls (docs/mpm.md; the file is not lua/tide/mpm.lua because
-- require "tide.mpm" is the native module).  Li's lecture, "The Material-Point Method":
-- transfer to the grid, solve du/dt = div(sigma)/rho + g on the grid,
-- transfer back, update F by the updated-Lagrangian rule.
local tide = require "tide"

local mpm = {}

--- One explicit step of length dt (Hu et al. 2018, Eq. 16-17):
--   P2G   node mass and momentum, with the MLS stress term -dt V0 D^-1 P F^T
--   grid  v_i += dt g, then walls and colliders
--   G2P   v_p, C_p, F_p <- (I + dt C_p) F_p, x_p += dt v_p, plasticity
function mpm.step(M, dt)
  tide.time("mpm.p2g", M.p2g, M, dt)
  tide.time("mpm.grid", M.grid_update, M, dt)
  tide.time("mpm.g2p", M.g2p, M, dt)
end

--- A stable step for tide.run's max_dt: cfl dx / (max|v| + elastic wave speed).
function mpm.max_dt(M, cfl) return M:max_dt(cfl or 0.5) end

--- Advance by a time span of t seconds in explicit steps of mpm.max_dt(M, cfl),
-- the last one shortened to end at t.
function mpm.advance(M, t, cfl)
  if type(t) ~= "number" or not (t >= 0 and t < math.huge) then
    error("mls_mpm.advance: time span must be a finite number >= 0, got " .. tostring(t), 2)
  end
  local done = 0
  while done < t do
    local dt = math.min(mpm.max_dt(M, cfl), t - done)
    mpm.step(M, dt)
    done = done + dt
  end
end

--- MPM against a tide.solid mesh, one way: the mesh's boundary at its current
-- positions (m:boundary(), m.x) as an exact signed distance (tide.shape.mesh:
-- bounding-volume hierarchy, winding-number sign), a grid collider moving with
-- the mean velocity of the mesh nodes (a rigid translation: the mesh's rotation
-- and deformation rates are not passed to the grid, and no force goes back).
-- Call it once per step: without i it adds the collider, with i it rebuilds
-- collider i from the moved mesh.  opts: bc ("separate"), friction (0).
-- Returns the collider index.
function mpm.solid_collider(M, mesh, opts, i)
  opts = opts or {}
  if mesh.dim ~= M.dim then
    error(string.format("mls_mpm.solid_collider: the mesh is %dD but the MPM state is %dD", mesh.dim, M.dim), 2)
  end
  local shape = tide.shape.mesh { vertices = mesh.x, faces = mesh:boundary() }
  local v, x = {}, mesh.v
  for a = 1, M.dim do v[a] = 0 end
  for k = 1, mesh.nv do
    for a = 1, M.dim do v[a] = v[a] + x:get(k, a) end
  end
  for a = 1, M.dim do v[a] = v[a] / mesh.nv end
  local spec = { shape = shape, velocity = v, bc = opts.bc or "separate", friction = opts.friction or 0 }
  if i then
    M:set_collider(i, spec)
    return i
  end
  return M:collider(spec)
end

--- Two-way coupling with tide.solid meshes (docs/mpm.md "Two-way coupling
-- with tide.solid meshes"; the operator is tide.couple.mpm_solid,
-- modules/couple/mpm_solid.h).  meshes: a tide.TetMesh with a material or a
-- list of them.  opts: bc ("separate" | "sticky"), friction (0), spacing
-- (0.5 cells between surface samples), distance (0.25 cells: "separate" contact
-- acts only where the particles' edges are within this of the mesh surface), project (true:
-- after G2P a particle behind the mesh surface where the contact acted is moved onto it), solid_step (function(mesh, dt, k):
-- the mesh's own integrator; default mesh:step_newton{dt = dt}).
-- Returns the coupled state for mpm.coupled_step / mpm.coupled_max_dt.
function mpm.solid_coupling(M, meshes, opts)
  opts = opts or {}
  for k in pairs(opts) do
    if k ~= "bc" and k ~= "friction" and k ~= "spacing" and k ~= "distance" and k ~= "solid_step" and k ~= "project" then
      error("mls_mpm.solid_coupling: unknown option '" .. tostring(k) .. "'", 2)
    end
  end
  if type(meshes) == "userdata" then meshes = { meshes } end
  if type(meshes) ~= "table" then
    error("mls_mpm.solid_coupling: meshes must be a tide.TetMesh or a list of them, got " .. type(meshes), 2)
  end
  if #meshes == 0 then error("mls_mpm.solid_coupling: no mesh given", 2) end
  local step = opts.solid_step or function(mesh, dt) return mesh:step_newton { dt = dt } end
  if type(step) ~= "function" then
    error("mls_mpm.solid_coupling: solid_step must be a function(mesh, dt, k), got " .. type(step), 2)
  end
  if opts.project ~= nil and type(opts.project) ~= "boolean" then
    error("mls_mpm.solid_coupling: project must be a boolean, got " .. type(opts.project), 2)
  end
  local S = { M = M, meshes = meshes, couplers = {}, stats = {}, solid_stats = {}, solid_step = step,
    project = opts.project ~= false, projected = {} }
  for k, mesh in ipairs(meshes) do
    if mesh.dim ~= M.dim then
      error(string.format("mls_mpm.solid_coupling: mesh %d is %dD but the MPM state is %dD", k, mesh.dim, M.dim), 2)
    end
    if not mesh.mass then
      error(string.format("mls_mpm.solid_coupling: mesh %d has no material (m:material{...})", k), 2)
    end
    S.couplers[k] = tide.couple.mpm_solid { bc = opts.bc, friction = opts.friction, spacing = opts.spacing,
      distance = opts.distance }
  end
  return S
end

--- One coupled step of length dt (the exchange explicit, after the mesh's own step):
--   each mesh: its own step from x^n, v^n (gravity, elastic forces, pins: solid_step)
--   MPM   P2G with the stresses, gravity and walls on the grid
--   each mesh: its boundary samples at x^{n+1} onto the same grid, contact where
--         both have mass, the impulses back to the mesh nodes (v += J/m, x += dt J/m)
--   MPM   walls and colliders again, G2P
--   each mesh (project = true): particles behind its surface where the contact acted moved onto it
function mpm.coupled_step(S, dt)
  local M = S.M
  for k, mesh in ipairs(S.meshes) do
    S.solid_stats[k] = tide.time("mpm.solid_step", S.solid_step, mesh, dt, k)
  end
  tide.time("mpm.p2g", M.p2g, M, dt)
  tide.time("mpm.grid", M.grid_update, M, dt)
  for k, mesh in ipairs(S.meshes) do
    S.stats[k] = tide.time("mpm.solid_exchange", S.couplers[k].exchange, S.couplers[k], M, mesh, dt)
  end
  M:grid_update(0)
  tide.time("mpm.g2p", M.g2p, M, dt)
  if S.project then
    for k in ipairs(S.meshes) do
      S.projected[k] = tide.time("mpm.solid_project", S.couplers[k].project, S.couplers[k], M)
    end
  end
end

--- A stable step of the coupled state: the MPM's, and no mesh node moving
-- more than cfl cells in it.
function mpm.coupled_max_dt(S, cfl)
  cfl = cfl or 0.5
  local dt, M = S.M:max_dt(cfl), S.M
  for _, mesh in ipairs(S.meshes) do
    local v, vmax = mesh.v, 0
    for k = 1, mesh.nv do
      local s = 0
      for a = 1, mesh.dim do s = s + v:get(k, a) ^ 2 end
      if s > vmax then vmax = s end
    end
    if vmax > 0 then dt = math.min(dt, cfl * M.dx / math.sqrt(vmax)) end
  end
  return dt
end

--- Total linear momentum of the MPM particles and the meshes' nodes [kg m/s].
function mpm.coupled_momentum(S)
  local d = S.M:diagnostics().momentum
  local p = {}
  for a = 1, S.M.dim do p[a] = d[a] end
  for _, mesh in ipairs(S.meshes) do
    local v, m = mesh.v, mesh.mass
    for k = 1, mesh.nv do
      for a = 1, mesh.dim do p[a] = p[a] + m[k] * v:get(k, a) end
    end
  end
  return p
end

--- Particle colours by material (1-based ids -> a value in [0, 1]) for png2d/png3d.
function mpm.colour_by_material(M)
  local ids = M.material_id
  local n = M.n
  local out = tide.array.zeros(n)
  local top = 1
  for p = 1, n do
    local k = ids[p] + 1
    if k > top then top = k end
  end
  for p = 1, n do out[p] = top > 1 and ids[p] / (top - 1) or 0 end
  return out
end

--- One frame of the particles: png2d (2D, on the cells of g) or png3d (3D).
-- opts: color (Array (n), default by material), range ({0, 1}), title, width (640),
-- labels (2D: u8 cell labels of g, solid cells drawn grey, e.g. from g:face_fractions(shape)).
function mpm.picture(M, g, path, opts)
  opts = opts or {}
  local color = opts.color or mpm.colour_by_material(M)
  local common = { path = path, width = opts.width or 640, particles = M.x, particle_color = color,
    particle_range = opts.range or { 0, 1 }, particle_colormap = "viridis", title = opts.title,
    grid = g, colorbar = opts.color ~= nil } -- the grid frames a 3D sequence; no bar for material ids
  if M.dim == 2 then
    common.labels = opts.labels
    return tide.fileio.png2d(common)
  end
  common.radius = 0.35 * M.dx
  return tide.fileio.png3d(common)
end

return mpm
