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
