--- tide.zarifi: liquids and deformable solids pushing each other, the coupled simulation step of
-- Zarifi (MMath thesis 2017) written as a recipe.
--
--   local zarifi = require "tide.zarifi"
--   local S = zarifi.new{ grid = g, particles = ps, solids = { beam }, scheme = "spd" }
--   for i = 1, n do zarifi.step(S, zarifi.max_dt(S)) end
--
-- zarifi.step reads as Algorithm 4 (thesis §5.4), one native call per line with its equation:
--   1 update solid positions (5.2)          x = x* + Δt v (the walls: a barrier inside 7, the
--                                           explicit correction of §3.7 only as its fallback)
--   2 advect fluid particles (§4.5)         g2p + particle advection through the last grid velocity
--                                           then tide.flip's volume correction (flip.separate)
--   3 advect fluid velocities (§4.3)        FLIP/APIC particle-to-grid transfer, extrapolated
--   4 add external accelerations            u += Δt g (liquid), v += Δt g (solid)
--   5 distance fields and cut cells (§5.4)  solid SDF -> face fractions (Fig. 5.2); clipping is inside 7
--   6 active pressure cells (§4.6)          labels from particles and the solid level set
--     (tension > 0, beyond the thesis)      u += the ghost-fluid jump sigma kappa of the tracked
--                                           level set (tide.flip's), continued through the solids
--   7 coupled pressure projection (ch. 5)   tide.couple.project: (5.17) / (5.25, 5.36) / (5.43-5.45)
--   8 extrapolate fluid velocities (§4.6)   u extended from the projected faces, walls closed
--                                           (tension: the tracked level set moved with this u)
-- Schemes (S.scheme):
--   "spd"        strong coupling, SPD transform (5.25) with block scaling (5.36), CG with the
--                multigrid-in-block preconditioner (default; solver = "pcg" for IC(0))
--   "indefinite" strong coupling, symmetric indefinite (5.17), BiCGSTAB + ILU(0)
--   "factored"   strong coupling, stress-like variables z = R v (5.37-5.45), CG + MG-in-block
--   "damping"    damping-only strong coupling (§6.3): the solid's implicit elastic step without
--                pressure first, then a projection coupling only M/Δt + D to the pressure
--   "weak"       weak (alternating) coupling (§6.3): the solid steps with the last pressure's
--                forces Cᵀ N p, then the liquid projects with the solid as a moving boundary
--                (its flux Nᵀ C v as a divergence target)
-- A step that leaves a solid inverted, non-finite or faster than S.max_speed raises
-- "tide.zarifi.step: the coupling became unstable ..." (the weak scheme's failure of §6.3).
local raise = require("tide.core")._raise -- errors at the scene's line
local tide = require "tide"
local flip = require "tide.flip"
local drop = require "tide.drop"
local liquid, couple = tide.liquid, tide.couple
local time = tide.time
local clock, cpu = require("tide.core").clock, os.clock -- wall; CPU of the process, all threads

local zarifi = {}

local SCHEMES = { spd = "spd", indefinite = "indefinite", factored = "factored", damping = "spd", weak = false }
zarifi.schemes = { "spd", "indefinite", "factored", "damping", "weak" }

local defaults = {
  scheme = "spd",
  rho = 1000,          -- liquid density [kg/m^3]
  tol = 1e-10,         -- relative residual of the coupled solve (the thesis: 1e-10)
  maxit = 0,           -- 0: solver default
  solver = nil,        -- default per formulation (mgpcg: PCG with the multigrid-in-block
                       -- preconditioner; bicgstab for indefinite), falling back to cholmod (ldlt)
                       -- on a step the Krylov solver does not converge (S.fallbacks)
  sigma = 0.9,         -- Z1 = sigma (1/dt + tau_M) M (5.31)
  alpha = "auto",      -- block scaling (5.36); "auto": |c1| / |c2|
  sampling = "linear", -- pressure felt by the clipped pieces: "cell" (the thesis, §5.1.2) or
                       -- "linear" (affine fit at the piece's centroid; exact Archimedes force)
  transfer = "flip",   -- "pic", "flip" or "apic" particle/grid transfer
  flip = 0.97,
  cfl = 1,
  layers = nil,        -- extrapolation sweeps (default cfl + 2)
  level_set = false,   -- "union" | "zhu_bridson": ghost-fluid free surface from a particle level set
  tension = 0,         -- surface tension [N/m] (the ghost-fluid jump sigma kappa in the coupled
                       -- projection): the surface is then tide.flip's tracked level set (initial
                       -- `phi`, or the particles' surface), continued through the solids, with
                       -- tension_options = tide.flip's surface_tension options (contact_angle
                       -- at the walls and the solids; volume: the tracked level set's volume
                       -- correction, measuring the liquid outside the solids)
  radius = nil,
  walls = true,        -- solids collide with the domain walls (and the colliders given)
  contact = "barrier", -- how: "barrier" (inside the coupled solve: IPC's barrier of each node's
                       -- distance to each wall, linearized at x*, couple.project{colliders, dhat};
                       -- Zarifi's explicit correction only for a node that still ends outside,
                       -- counted in S.contact_fallbacks) or "explicit" (the thesis, §3.7: every
                       -- node that ends outside is projected back, its normal velocity removed)
  contact_dhat = 0.25, -- the barrier's width [cells]
  contact_kappa = nil, -- its stiffness (nil: one node at dhat/2 holds the solid's weight)
  clamp = 0.15,        -- open face fractions of the solids below it are closed (0.01: the face
                       -- fractions' own default): a nearly closed face leaves a liquid pocket (under
                       -- a ball on the floor) that can only drain through it, and its squeeze
                       -- pressure (1e6 Pa) kicks the solid off the floor (docs/couple.md)
  max_speed = 1e3,     -- [m/s]: a step beyond it is reported as unstable
  separation = 0.5,    -- volume correction of the FLIP particles (tide.flip's density correction,
                       -- flip.separate; 0: off): strength per step
  band = 0.1,          -- its dead band (particles per cell / per_cell - 1; tide.flip: 0.3)
  separate_cut = true,  -- it also corrects the cut cells next to the solids, against their open
                       -- volume (tide.flip's separate_cut): the balls pool's volume change over cfl
                       -- 0.85-1 -1.7..-2.7% -> -0.1..-0.9% (6 s at cfl 0.95: -18.8% -> -0.4%, the
                       -- neutral ball on the floor); false: off; "kernel": against the density
                       -- kernel's open volume (no threshold; unbiased next to a solid), -0.4..-1.0%,
                       -- but the interior 1.2-2.2% dense at the light ball's ejection (docs/couple.md)
  mean = false,        -- correct by the mean interior density (volume control) instead of per cell
  warm = true,         -- the coupled projection's Krylov solve starts from the last step's pressure
                       -- and the solids' current velocities (tide.couple.project's warm): the same
                       -- relative-residual test, fewer iterations where the pressure changes little
  sdf_band = 6,        -- [cells] the solids' distance (node SDF, solid_phi) is exact within this band of
                       -- their surfaces, elsewhere only its sign is kept (|phi| >= band): the mesh
                       -- searches skipped far away (sloped panel at 100^3: 84% of the step was the
                       -- whole-grid SDF); false: the whole grid
  fractions = "node",  -- open face fractions of the solids: "node" (node SDF, Fig. 5.2, §5.4) or
                       -- "exact" (clipped; with sampling = "cell" the projection then conserves
                       -- liquid + solid momentum to the solver tolerance)
  solid_faces = false, -- true: the closed faces of the liquid's velocity inside a solid carry the
                       -- solid's velocity (tide.couple.solid_faces) and the linear sampling's spread
                       -- flux is taken relative to the liquid (couple.project{relative}): a solid
                       -- moving with its liquid (a filled shell) keeps its momentum.  false: 0 there
                       -- (a static wall's closing; the default, kept since the ghost-fluid
                       -- surface through the solids lets both rest a heavy solid on the floor,
                       -- docs/couple.md)
  mass_consistent = true, -- true (with transfer = "flip"): the particles receive the projection's
                       -- change by the projection's face masses rho A_f dx^d, not their kernel mass
                       -- (tide.couple.flip_increment; under a level set the liquid-air faces'
                       -- rho theta_f A_f dx^d): liquid + solid momentum through impacts.
                       -- false: the kernel-mass FLIP (leaks, docs/couple.md "Momentum")
  mass_reference = true, -- with mass_consistent: the hydrostatic part of the change (a second
                       -- coupled solve, zarifi.gravity_response; not with the weak scheme, which
                       -- has none) by the particles' kernel mass: they rest hydrostatically
                       -- (with mass_cap = 1: floating drafts within 1%)
  mass_reuse = true,   -- with mass_reference: its solve reuses line 7's system (geometry, matrix,
                       -- preconditioner or factor: tide.couple.resolve, one new right side; the
                       -- same answer to the solver tolerance); a full second projection when the
                       -- walls' barrier is active (its Hessian is in line 7's matrix, not the
                       -- reference's) or the reused solve fails; "always": there too, the
                       -- barrier's stiffness then kept in the reference (its force left out)
  mass_cap = 1,        -- its largest scale rho A_f dx^d / m_f of a face (a face the particles barely
                       -- reach)
  mass_share = true,   -- with mass_consistent: what the particles cannot take locally (capped faces)
                       -- is a uniform velocity of the liquid and the free solids (no pinned node)
                       -- together, by mass (flip_increment{ solid_mass }); false: of the liquid alone,
                       -- which the walls' next projection stops with a pressure gradient acting on the
                       -- solids too -- a buoyancy deficit in a stirred pool (docs/couple.md)
  gravity = nil,       -- default {0, -9.81[, 0]}
}
local keys = { grid = true, particles = true, solids = true, colliders = true, obstacles = true,
  solver = true, layers = true, radius = true, gravity = true, contact_kappa = true, -- (the defaults that are nil)
  tension_options = true, phi = true }
for k in pairs(defaults) do keys[k] = true end

local function check_opts(opts)
  if type(opts) ~= "table" then raise("tide.zarifi.new: table of named arguments expected") end
  for k in pairs(opts) do
    if not keys[k] then
      local list = {}
      for name in pairs(keys) do list[#list + 1] = name end
      table.sort(list)
      raise(string.format("tide.zarifi.new: unknown option '%s' (accepted: %s)", tostring(k), table.concat(list, ", ")))
    end
  end
  if SCHEMES[opts.scheme or "spd"] == nil then
    raise("tide.zarifi.new: scheme must be one of " .. table.concat(zarifi.schemes, ", ") .. ", got " .. tostring(opts.scheme))
  end
end

--- The 2*dim planes of the domain walls, as colliders pushing solids back inside.
function zarifi.walls(g)
  local lo, hi = g:bounds()
  local out = {}
  for a = 1, g.dim do
    for s = 0, 1 do
      local p, n = {}, {}
      for b = 1, g.dim do p[b], n[b] = lo[b], 0 end
      p[a] = s == 0 and lo[a] or hi[a]
      n[a] = s == 0 and 1 or -1
      out[#out + 1] = tide.solid.collider { shape = tide.shape.plane { point = p, normal = n } }
    end
  end
  return out
end

--- Surface tension (tension > 0): tide.flip's tracked level set and its options (tension_options,
-- tide.flip.new's surface_tension table).  The surface is continued through the solids, so its
-- volume correction weighs every cell by its open fraction (tide.drop.open_weights of the
-- solids' signed distance, renewed each step): the liquid outside the solids is what it keeps.
local function tension_options(S, opts)
  if type(S.tension) ~= "number" or not (S.tension >= 0 and S.tension < math.huge) then
    raise("tide.zarifi.new: tension must be a finite number >= 0 [N/m], got " .. tostring(S.tension))
  end
  local to = opts.tension_options
  if to ~= nil and type(to) ~= "table" then raise("tide.zarifi.new: tension_options must be a table") end
  if S.tension == 0 then
    if to ~= nil or opts.phi ~= nil then raise("tide.zarifi.new: tension_options and phi need tension > 0") end
    return nil
  end
  if S.level_set then
    raise("tide.zarifi.new: tension uses the tracked level set; level_set (the particle level set) excludes it")
  end
  local t = {}
  for k, v in pairs(to or {}) do
    if k == "level_set" and v ~= "tracked" then raise("tide.zarifi.new: tension_options.level_set must be \"tracked\"") end
    t[k] = v
  end
  -- the volume tracker is made here, weighted by the solids' open fractions (zarifi.new)
  local volume = t.volume ~= false
  t.volume = false
  return t, volume
end

--- Build the state.  opts: grid, particles (tide.Particles), solids (list of tide.TetMesh with a
-- material, same dimension as the grid), obstacles (a tide.Shape of static solids: their faces
-- close like the solids', with zero flux; optional), colliders (extra colliders of the solids),
-- and the defaults above.
function zarifi.new(opts)
  check_opts(opts)
  local g, ps, solids = opts.grid, opts.particles, opts.solids
  if not g or not ps then raise("tide.zarifi.new: 'grid' and 'particles' are required") end
  if type(solids) ~= "table" or #solids == 0 then raise("tide.zarifi.new: 'solids' must be a list of tide.TetMesh") end
  if #ps == 0 then raise("tide.zarifi.new: the particles are empty: there is no liquid to couple (seed with tide.liquid.seed)") end
  for i, m in ipairs(solids) do
    if m.dim ~= g.dim then raise(string.format("tide.zarifi.new: solids[%d] is %dD, the grid %dD", i, m.dim, g.dim)) end
    if not m.mass then raise(string.format("tide.zarifi.new: solids[%d] has no material", i)) end
  end
  local S = {}
  for k, v in pairs(defaults) do S[k] = v end
  for k, v in pairs(opts) do S[k] = v end
  if S.fractions ~= "node" and S.fractions ~= "exact" then
    raise("tide.zarifi.new: fractions must be \"node\" or \"exact\", got " .. tostring(S.fractions))
  end
  S.fraction_mode = S.fractions
  if S.sdf_band ~= false and not (type(S.sdf_band) == "number" and S.sdf_band >= 2 and S.sdf_band < math.huge) then
    raise("tide.zarifi.new: sdf_band must be a number of cells >= 2 or false, got " .. tostring(S.sdf_band))
  end
  if type(S.warm) ~= "boolean" then raise("tide.zarifi.new: warm must be a boolean, got " .. tostring(S.warm)) end
  if type(S.clamp) ~= "number" or S.clamp < 0 or S.clamp >= 0.5 then
    raise("tide.zarifi.new: clamp must be a number in [0, 0.5), got " .. tostring(S.clamp))
  end
  if type(S.mass_cap) ~= "number" or not (S.mass_cap > 0) then
    raise("tide.zarifi.new: mass_cap must be a positive number, got " .. tostring(S.mass_cap))
  end
  if S.contact ~= "barrier" and S.contact ~= "explicit" then
    raise("tide.zarifi.new: contact must be \"barrier\" or \"explicit\", got " .. tostring(S.contact))
  end
  if type(S.contact_dhat) ~= "number" or not (S.contact_dhat > 0) then
    raise("tide.zarifi.new: contact_dhat must be a positive number of cells, got " .. tostring(S.contact_dhat))
  end
  -- the barrier acts inside couple.project: not in the weak scheme (no coupled solve) nor the
  -- factored one (K = R^T R); those keep the explicit correction
  S.barrier = S.contact == "barrier" and S.scheme ~= "weak" and S.scheme ~= "factored"
  S.contact_fallbacks, S.resolve_fallbacks, S.inaccurate = 0, 0, 0
  S.grid, S.particles, S.solids = g, ps, solids
  S.gravity = S.gravity or (g.dim == 2 and { 0, -9.81 } or { 0, -9.81, 0 })
  S.obstacles = opts.obstacles
  S.fractions = g:mac()            -- open face fractions of the solids (Fig. 5.2)
  S.workspace = couple.workspace and couple.workspace(g) or nil -- the MG-in-block hierarchy, kept between projections
  S.solid_cells = g:cells("u8")    -- cells all of whose faces are closed (plus static walls)
  S.solid_phi = g:cells()          -- the solids' signed distance on cells
  S.pressure = g:cells()
  S.colliders = {}
  if S.walls then for _, c in ipairs(zarifi.walls(g)) do S.colliders[#S.colliders + 1] = c end end
  for _, c in ipairs(opts.colliders or {}) do S.colliders[#S.colliders + 1] = c end
  S.forces = {}                     -- the external nodal forces given by the scene, per solid
  for i, m in ipairs(solids) do S.forces[i] = m.force:clone() end
  zarifi.geometry(S)
  -- the liquid half: the FLIP state (grid velocity, labels, transfers) of tide.flip; its own
  -- projections (flip.separate's volume correction, the weak scheme's) with MGPCG: MIC(0)-PCG's
  -- correction took 0.5 s a step in the balls' pool at 100³
  local tension, tension_volume = tension_options(S, opts)
  S.liquid = flip.new { grid = g, particles = ps, scheme = S.transfer, flip = S.flip, rho = S.rho, cfl = S.cfl, method = "mgpcg",
    layers = S.layers, gravity = S.gravity, separation = S.separation, band = S.band, mean = S.mean, separate_cut = S.separate_cut, level_set = S.level_set, radius = S.radius,
    solid = S.solid_cells, fractions = S.fractions, solid_phi = S.solid_phi,
    sigma = S.tension, surface_tension = tension, phi = opts.phi }
  S.u, S.labels = S.liquid.u, S.liquid.labels
  if tension_volume then                    -- the tracked surface's volume: outside the solids
    S.open = drop.open_weights(g, S.solid_phi)
    S.liquid.tracker = tide.grid.volume_tracker { grid = g, phi = S.liquid.phi, redistance = false, weights = S.open }
  end
  -- the projection's free surface (nil: the labels' voxel surface): the particle level set
  -- (level_set) or the tracked one of the surface tension, continued through the solids (line 6)
  -- (the tracked one is S.liquid.phi, swapped with its advection's output each step)
  S.surface = S.tension > 0 or S.level_set and true or false
  S.liquid.u_old:copy(S.u) -- line 2 of the first step sees no FLIP increment
  S.t, S.steps = 0, 0
  return S
end

--- Line 5: the solids' (and obstacles') signed distance and open face fractions (node SDF,
-- Fig. 5.2, clamped as §4.6) and the cells closed by them.
function zarifi.geometry(S)
  local g = S.grid
  local shape = S.obstacles
  for _, m in ipairs(S.solids) do
    local s = tide.shape.mesh { vertices = m.x, faces = m:boundary() }
    shape = shape and shape + s or s
  end
  S.shape = shape
  local exact = S.fraction_mode == "exact"
  local band = S.sdf_band and S.sdf_band * g.dx or nil
  g:face_fractions(shape, { out = S.fractions, solid = S.solid_cells, exact = exact, clamp = { S.clamp, exact and 1 or 0.99 },
    band = not exact and band or nil })
  shape:sdf(g, { out = S.solid_phi, band = band })
end

--- The particle level set measures the free surface only where particles can be: in the cells a
-- solid covers (solid_phi < 0) it reads "air" (phi > 0) for want of particles, even under water.
-- There the pressure's free surface is the liquid's continued through the solid: phi is replaced
-- by its extension from the cells outside the solids along the solids' normals
-- (tide.grid.extrapolate, fast marching).  Without it the clipped pieces on a solid's underside
-- (phi > 0 at their centroids) felt p = 0, so a heavy ball resting on the floor lost its
-- buoyancy there and was pressed into the floor (docs/couple.md).
function zarifi.surface_through_solids(S)
  local g, phi = S.grid, S.liquid.phi
  S.outside = tide.grid.band_mask(g, S.solid_phi, 0, math.huge, S.outside)
  tide.grid.extrapolate { grid = g, phi = S.solid_phi, field = phi, valid = S.outside, direction = -1 }
  return phi
end

--- Largest stable step: the liquid's CFL step, cfl cells per step for the fastest solid node and,
-- with the walls' barrier, no node closing more than 90% of its gap to a wall or collider in
-- line 1 (tide.couple.contact_dt: the barrier is linearized, one Newton step without line search,
-- and a node that meets a wall fast would overshoot its linear model; conservative advancement,
-- exact for the walls' planes, since max_dt sees the velocity line 1 moves the nodes with).
function zarifi.max_dt(S)
  local dt = flip.max_dt(S.liquid)
  local vmax = 0
  for _, m in ipairs(S.solids) do vmax = math.max(vmax, math.max(-m.v:min(), m.v:max())) end
  if vmax > 0 then dt = math.min(dt, S.cfl * S.grid.dx / vmax) end
  if S.barrier and #S.colliders > 0 then
    dt = couple.contact_dt { solids = S.solids, colliders = S.colliders, dt = dt }
  end
  return dt
end

-- v += s c (c a vector) on every node of a solid
local function add_velocity(m, s, c)
  local v = m.v
  for a = 1, m.dim do
    if c[a] ~= 0 then v:select(2, a):axpy(s * c[a], tide.array.full(m.nv, 1)) end
  end
end

-- v += dt g on every node of a solid (pinned nodes are overwritten by the projection)
local function add_gravity(m, dt, gvec) add_velocity(m, dt, gvec) end

-- the solids' implicit elastic step (5.1) with their current external forces, keeping x
-- (the solid half of the weak and damping-only schemes): the corotated linear step, or for any
-- other material one Newton iteration of its incremental potential from x (the linearization the
-- strong coupling makes, so the schemes differ only in how they couple)
local COROTATED = { linear = true, rotated_linear = true }
local function solid_solve(S, m, dt)
  local x = m.x:clone()
  local st
  if COROTATED[m.model] then
    st = m:step_linear { dt = dt }
  else
    st = m:step_newton { dt = dt, maxit = 1, guess = "start" }
  end
  m.x:copy(x)
  return st
end

-- instability: an inverted or non-finite solid, or a speed beyond S.max_speed
local function check_stable(S)
  for i, m in ipairs(S.solids) do
    local bad = m.x:nonfinite() + m.v:nonfinite()
    local vmax = bad == 0 and math.max(-m.v:min(), m.v:max()) or math.huge
    local vol = bad == 0 and m:volumes():min() or -1
    if bad > 0 or vol < 0 or vmax > S.max_speed then
      raise(string.format("tide.zarifi.step: the coupling became unstable at t = %.4g s (step %d, scheme %s): solid %d %s",
        S.t, S.steps, S.scheme, i, bad > 0 and "holds non-finite values" or vol < 0 and
        string.format("has an inverted element (volume %.3g)", vol) or string.format("moves at %.3g m/s", vmax)))
    end
  end
  local umax = S.u:max_speed()
  if umax > S.max_speed then
    raise(string.format("tide.zarifi.step: the coupling became unstable at t = %.4g s (step %d, scheme %s): liquid at %.3g m/s",
      S.t, S.steps, S.scheme, umax))
  end
end

-- A solve's true relative residual (recomputed after it; SPD and factored: of the coupled equations
-- 5.17, SPD after its refinement against them) above 100 tol while its solver reported convergence: the
-- Krylov loop stops on its recursive residual, which keeps falling where the true one stalls at
-- the system's rounding floor (before the refinement the SPD transform with the 2D light toy:
-- 1.3e-5 at tol 1e-10, CHOLMOD 9.5e-6; docs/couple.md "The SPD form's rounding floor").  Counted in
-- S.inaccurate and said once on stderr; the step goes on.
local function check_residual(S, st, what)
  if st.converged and st.residual and st.residual > 100 * S.tol then
    S.inaccurate = (S.inaccurate or 0) + 1
    if S.inaccurate == 1 then
      io.stderr:write(string.format("tide.zarifi: the %s (%s) reported convergence at step %d but its true relative "
        .. "residual is %.3g (tol %g): the system's rounding floor (counted in S.inaccurate)\n", what, st.solver,
        S.steps + 1, st.residual, S.tol))
    end
  end
  return st
end

local project_args, run_project

--- Line 7: the pressure projection of the chosen scheme.  Returns its statistics.
function zarifi.project(S, dt)
  local L = S.liquid
  local scheme = S.scheme
  if scheme == "weak" then
    local g = S.grid
    local nc = S.pressure:size()
    local p = S.pressure:reshape(nc)
    S.flux = S.flux or g:cells()
    local flux = S.flux:reshape(nc)
    flux:fill(0)
    for i, m in ipairs(S.solids) do
      local nd = m.nv * m.dim
      -- the boundary clipped against the cells: J = Nᵀ C (Eq. 5.7-5.13)
      local J = time("clip", couple.clip, { grid = g, solid = m }).J
      -- the solid first, pushed by the last step's pressure: forces Cᵀ N p = Jᵀ p (5.13)
      m.force:copy(S.forces[i])
      m.force:reshape(nd):axpy(1, J:transpose():mul(p))
      time("solid", solid_solve, S, m, dt)
      m.force:copy(S.forces[i])
      -- its boundary flux through each cell, Nᵀ C v (5.7)
      flux:axpy(1, J:mul(m.v:reshape(nd)))
    end
    -- then the liquid with the solid as a moving boundary: div_A u = -(Nᵀ C v)/dx^d (5.10)
    S.target = S.target or g:cells()
    S.target:copy(S.flux):scale(-1 / g.dx ^ g.dim)
    return time("project", liquid.project, S.u, S.labels, { dt = dt, rho = S.rho, tol = S.tol, method = L.method,
      fractions = S.fractions, phi = S.surface and L.phi or nil, target = S.target, valid = L.valid, pressure = S.pressure,
      projector = L.projector })
  end
  if not couple.project then
    raise("tide.zarifi: scheme '" .. scheme .. "' needs tide.couple.project, which this build lacks (use scheme = \"weak\")")
  end
  local elastic = true
  if scheme == "damping" then
    for _, m in ipairs(S.solids) do time("solid", solid_solve, S, m, dt) end
    elastic = false
  end
  local args = project_args(S, dt, S.u, S.pressure, L.valid)
  args.elastic, args.relative = elastic, S.solid_faces and L.u_old or nil
  if S.barrier and #S.colliders > 0 then
    args.colliders, args.dhat, args.kappa = S.colliders, S.contact_dhat * S.grid.dx, S.contact_kappa
  end
  -- the mass reference's solve (gravity_response, right after) reuses this system
  args.keep = S.mass_consistent and S.mass_reference and S.mass_reuse and S.transfer == "flip" or nil
  local st = run_project(S, args)
  if S.kept then S.kept:free() end
  S.kept, S.kept_barrier, st.system = st.system, (st.contact_nodes or 0) > 0, nil
  return st
end

--- With mass_consistent and mass_reference: the projection's response to gravity alone, S.gravity_u
-- (liquid and solids at rest, v = dt g, the solids' elastic forces and the walls' barrier left out:
-- the hydrostatic part of line 7's change), extrapolated as line 8; flip_increment gives it to the
-- particles by their kernel mass (at rest exactly 0) and only the rest by the face masses.
function zarifi.gravity_response(S, dt)
  local g, L = S.grid, S.liquid
  S.gravity_u, S.gravity_p, S.gravity_valid = S.gravity_u or g:mac(), S.gravity_p or g:cells(), S.gravity_valid or g:mac("u8")
  local h = S.gravity_u
  h:fill(0)
  h:add_gravity(dt, S.gravity)
  local saved = {}
  for i, m in ipairs(S.solids) do
    saved[i] = m.v:clone()
    m.v:fill(0)
    add_gravity(m, dt, m.gravity)
  end
  -- the solids' stiffness kept, their elastic forces at x left out: a resting solid's nodes are
  -- held together (without K each node fell on its own and dragged the liquid along: h ~ -0.7 dt g
  -- in a pool at rest), and what its deformation exerts (an impact) goes by the face masses.
  -- The matrix is line 7's (same geometry, solids, dt, stiffness; elastic_force is on the right
  -- side only), so its kept system is solved again with this right side, warm-started from line
  -- 7's solution (at rest nearly this one); not when line 7's barrier was active
  local sys, st = S.kept, nil
  S.kept = nil
  if sys and (not S.kept_barrier or S.mass_reuse == "always") then
    st = time("couple", couple.resolve, { system = sys, u = h, solids = S.solids, pressure = S.gravity_p,
      valid = S.gravity_valid, elastic_force = false, barrier = S.kept_barrier and "stiffness" or false, tol = S.tol, maxit = S.maxit,
      must_converge = false })
    if st.converged then st.resolved = true; check_residual(S, st, "mass reference's resolve") else
      S.resolve_fallbacks = (S.resolve_fallbacks or 0) + 1                  -- (counted: redone in full below)
      st = nil
    end
  end
  if sys then sys:free() end
  if not st then
    local args = project_args(S, dt, h, S.gravity_p, S.gravity_valid)
    args.elastic, args.elastic_force = S.scheme ~= "damping", false
    st = run_project(S, args)
  end
  S.gravity_stats = st
  h:extrapolate(S.gravity_valid, L.layers, true)
  h:enforce_walls(S.solid_cells, true, S.fractions)
  -- the closed faces inside the solids: their velocity in this response (in free fall dt g)
  if S.solid_faces then couple.solid_faces { u = h, fractions = S.fractions, solids = S.solids } end
  for i, m in ipairs(S.solids) do m.v:copy(saved[i]) end
  return h
end

-- (zarifi.project's arguments of couple.project, shared with the gravity response)
function project_args(S, dt, u, pressure, valid)
  local scheme = S.scheme
  return {
    u = u, labels = S.labels, solids = S.solids, dt = dt, rho = S.rho,
    formulation = SCHEMES[scheme], solver = S.solver or (scheme ~= "indefinite" and "mgpcg" or nil),
    sigma = S.sigma, alpha = S.alpha,
    tol = S.tol, maxit = S.maxit, phi = S.surface and S.liquid.phi or nil, fractions = S.fractions, sampling = S.sampling,
    pressure = pressure, valid = valid, must_converge = S.solver ~= nil, workspace = S.workspace,
    warm = S.warm and pressure ~= nil }
end

function run_project(S, args)
  local scheme = S.scheme
  local st = time("couple", couple.project, args)
  if not st.converged then
    -- the default Krylov solver stalled (stiff solids make the SPD system ill-conditioned,
    -- Table 6.2): the step is redone with the direct solver of the formulation, and counted
    args.solver, args.must_converge = scheme == "indefinite" and "ldlt" or "cholmod", true
    S.fallbacks = (S.fallbacks or 0) + 1
    if S.fallbacks == 1 then
      io.stderr:write(string.format("tide.zarifi: %s did not reach tol %g (%s) at step %d; "
        .. "redone with %s (counted in S.fallbacks)\n", st.solver, S.tol, st.error or string.format(
          "residual %.3g after %d iterations", st.residual, st.iterations), S.steps + 1, args.solver))
    end
    st = time("couple", couple.project, args)
    st.fallback = true
  end
  return check_residual(S, st, args.u == S.u and "coupled projection" or "mass reference's projection")
end

--- With mass_consistent: the field line 2's FLIP g2p subtracts, old = u - inc - c.  inc is the
-- projection's change by its face masses (tide.couple.flip_increment, after line 7); c a uniform
-- increment per axis that returns to the particles what the PIC part of the blend,
-- (1 - r)(sum_f m_f u_f - sum_p m_p v_p - sum_f m_f inc_f), takes or gives beyond it (u from the
-- extrapolation, the walls and the solid faces on faces the particles reach): r M c = -(1 - r) E.
function zarifi.flip_old(S)
  local g, L, u, W = S.grid, S.liquid, S.u, S.weights
  local mp = S.rho * g.dx ^ g.dim / L.per_cell
  local r = S.flip
  S.ones = S.ones or g:mac()
  for a = 1, g.dim do
    local comp = a == 1 and "u" or a == 2 and "v" or "w"
    local old = L.u_old[comp]:copy(u[comp]):axpy(-1, S.increment[comp])
    local M = mp * W[comp]:sum()
    if r > 0 and M > 0 then
      local E = mp * W[comp]:dot(old) - mp * S.particles.v:select(2, a):sum()
      old:axpy((1 - r) * E / (r * M), S.ones[comp]:fill(1))
    end
  end
end

-- The solids free to move (no pinned node) and their total mass: with mass_consistent the change
-- the particles cannot take locally is a uniform velocity of the liquid and these solids together
-- (tide.couple.flip_increment{ solid_mass }), which the walls' next projection stops by a pressure
-- acting on each body by its volume.  Given to the liquid alone it was a buoyancy deficit: the
-- stirred balls pool's is upward on average, and the neutral ball sank (docs/couple.md).
local function free_solids(S)
  local free = { mass = 0 }
  for _, m in ipairs(S.mass_share and S.solids or {}) do
    if m.pinned:sum() == 0 then free[#free + 1], free.mass = m, free.mass + m.mass:sum() end
  end
  return free
end

-- v += c (per axis) on every node of the free solids
local function add_uniform(free, c)
  for _, m in ipairs(free) do add_velocity(m, 1, c) end
end

-- The step's phases (zarifi.step's stats.phases): name -> { seconds (wall), cpu (CPU seconds of
-- the process, all threads) }, in Algorithm 4's order; "reference" and "increment" are the
-- mass-consistent transfer's (zarifi.gravity_response, couple.flip_increment), 0 without it.
zarifi.phases = { "solids", "particles", "transfer", "geometry", "label", "tension", "project", "reference",
  "increment", "extrapolate" }

-- close phase `name` of ph opened at (t0, c0); returns the wall and CPU clocks now
local function lap(ph, name, t0, c0)
  local t, c = clock(), cpu()
  local e = ph[name]
  e.seconds, e.cpu = e.seconds + (t - t0), e.cpu + (c - c0)
  return t, c
end

--- Advance liquid and solids by dt (Algorithm 4).  Returns the projection statistics (tide.couple.
-- project's: unknowns, nonzeros, iterations, geometry / assembly / solve seconds and CPU seconds of
-- the coupled solve) plus the step's: seconds and cpu (the whole step, wall and CPU seconds of the
-- process), phases (zarifi.phases: { seconds, cpu } each), fallback (the Krylov solve stalled and
-- was redone with the direct solver; the phase "project" holds both), reference (the mass
-- reference's solve: zarifi.gravity_response's stats, resolved = true when it reused line 7's
-- system; nil without it), contact_fallbacks (nodes corrected by line 1's explicit projection).
function zarifi.step(S, dt)
  local L, g, ps, u = S.liquid, S.grid, S.particles, S.u
  local ph = {}
  for _, name in ipairs(zarifi.phases) do ph[name] = { seconds = 0, cpu = 0 } end
  local ts, cs = clock(), cpu()
  local t0, c0 = ts, cs
  local nfix = 0
  for _, m in ipairs(S.solids) do
    m.x:axpy(dt, m.v)                                                       -- 1. x = x* + Δt v (5.2)
    if #S.colliders > 0 then                                                 --    walls: §3.7's projection
      local n = m:collide { dt = dt, colliders = S.colliders, contact = "simple" } -- (with the barrier: its
      if S.barrier then S.contact_fallbacks, nfix = S.contact_fallbacks + n, nfix + n end --    fallback, counted)
    end
  end
  t0, c0 = lap(ph, "solids", t0, c0)
  time("g2p+advect", liquid.g2p, u, ps, { scheme = S.transfer, old = L.u_old, flip = S.flip, -- 2. particles (§4.5)
    advect = dt, order = L.order, labels = S.solid_cells, solid_phi = S.solid_phi })
  if S.separation > 0 then flip.separate(L, dt) end                        --    volume correction (flip.separate)
  t0, c0 = lap(ph, "particles", t0, c0)
  flip.transfer_to_grid(L)                                                  -- 3. velocities (§4.3)
  local consistent = S.mass_consistent and S.transfer == "flip"
  if consistent then                                                        --    (the particles' kernel mass per face)
    S.weights, S.increment = S.weights or g:mac(), S.increment or g:mac()
    liquid.p2g(ps, S.increment, { scheme = S.transfer, weights = S.weights })
  end
  if S.solid_faces then couple.solid_faces { u = u, fractions = S.fractions, solids = S.solids } end
  L.u_old:copy(u)
  u:add_gravity(dt, S.gravity)                                              -- 4. external accelerations
  if S.scheme ~= "weak" and S.scheme ~= "damping" then
    for _, m in ipairs(S.solids) do add_gravity(m, dt, m.gravity) end      --    (the solid solve adds its own)
  end
  t0, c0 = lap(ph, "transfer", t0, c0)
  time("geometry", zarifi.geometry, S)                                      -- 5. distance fields, cut cells (§5.4)
  t0, c0 = lap(ph, "geometry", t0, c0)
  time("label", liquid.label, ps, g, { solid = S.solid_cells, solid_phi = S.solid_phi, out = S.labels }) -- 6. active cells (§4.6)
  if S.level_set then
    time("level set", ps.level_set, ps, g, { method = S.level_set, radius = L.radius, reach = 2 * L.radius + g.dx, out = L.phi })
    zarifi.surface_through_solids(S)                                        --    the free surface continued through the solids
  elseif L.tension then                                                     --    (surface tension: the tracked level set,
    zarifi.surface_through_solids(S)                                        --    continued through the solids; liquid
    time("label", liquid.label_phi, g, L.phi, { solid = S.labels, out = S.labels }) -- where < 0, solid cells kept)
  end
  t0, c0 = lap(ph, "label", t0, c0)
  if L.tension then flip.tension(L, dt) end                     --    the jump sigma kappa (ghost fluid)
  t0, c0 = lap(ph, "tension", t0, c0)
  local stats = zarifi.project(S, dt)                                       -- 7. coupled projection (ch. 5)
  t0, c0 = lap(ph, "project", t0, c0)
  local href = consistent and S.mass_reference and SCHEMES[S.scheme] and zarifi.gravity_response(S, dt) or nil
  stats.reference = href and S.gravity_stats or nil
  t0, c0 = lap(ph, "reference", t0, c0)
  if consistent then                                                        --    its change by rho A_f dx^d
    local free = free_solids(S)                                             --    (what the particles cannot take:
    stats.increment = couple.flip_increment { reference = href, u = u, old = L.u_old, valid = L.valid, fractions = S.fractions,
      weights = S.weights, per_cell = L.per_cell, cap = S.mass_cap, dt = dt, gravity = S.gravity, out = S.increment,
      labels = S.surface and S.labels or nil, phi = S.surface and L.phi or nil, -- (the ghost fluid's theta_f)
      solid_mass = free.mass, rho = S.rho }                                 --    to liquid and free solids by mass)
    add_uniform(free, stats.increment.uniform)
  end
  t0, c0 = lap(ph, "increment", t0, c0)
  flip.extend(L)                                                            -- 8. extrapolate (§4.6; tide.flip's
                                                                            --    step 5: walls closed; with tension
                                                                            --    along the surface's normals)
  if S.solid_faces then couple.solid_faces { u = u, fractions = S.fractions, solids = S.solids } end
  if L.tension then                                                         --    the tracked surface moves with u
    if L.tracker then L.tracker:set_weights(drop.open_weights(g, S.solid_phi, S.open)) end -- (its volume: outside
    L.steps = S.steps                                                       --    the solids of line 5)
    flip.tension_advance(L, dt)
  end
  if consistent then zarifi.flip_old(S) end                                --    line 2's g2p adds u - old = the increment
  lap(ph, "extrapolate", t0, c0)
  S.t, S.steps = S.t + dt, S.steps + 1
  check_stable(S)
  stats.phases, stats.seconds, stats.cpu, stats.contact_fallbacks = ph, clock() - ts, cpu() - cs, nfix
  return stats
end

--- The accuracy test of §6.4 (Eq. 6.1-6.10, Fig. 6.10, Tables 6.5-6.6): a 2D solid in hydrostatic
-- equilibrium in a pool, one coupled projection, the ∞-norm errors of pressure, solid and
-- liquid velocity (the exact answer: v = 0, u = 0, p = ρ_f g (y - a)).
-- opts: dx (grid spacing of the unit square, 0.2 ... 0.0125), params = 1 (Table 6.5) or 2
-- (Table 6.6), h (solid mesh spacing, default dx; the thesis does not give it), x0 (left edge of
-- the deformed solid, default: centred), and the projection options (scheme, solver, tol, ...).
-- The solid rectangle [0, L] x [0, τ0] is meshed in its rest shape and placed by
-- φ(X, Y) = (x0 + αX, βY² + γY + y1) (6.1) with β (6.3), γ (6.4); its density is ρ_s (6.10); the
-- tractions T_L, T_R, T_T, T_B (6.6-6.9) are integrated against the hat functions of the boundary
-- nodes over the REST boundary (3-point Gauss, exact for these cubics) into m.force.
zarifi.hydrostatic_params = {
  { mu = 20, lambda = 10, L = 0.4, tau0 = 0.4, alpha = 0.9, y1 = 0.205, y2 = 0.595 },   -- Table 6.5
  { mu = 100, lambda = 100, L = 0.4, tau0 = 0.4, alpha = 1.1, y1 = 0.18, y2 = 0.62 },   -- Table 6.6
}
function zarifi.hydrostatic(opts)
  local P = zarifi.hydrostatic_params[opts.params or 1]
  if not P then raise("tide.zarifi.hydrostatic: params must be 1 (Table 6.5) or 2 (Table 6.6)") end
  local rho_f, gy, a, dt = 1, -1, 0.8, opts.dt or 0.01
  local dx = opts.dx or 0.05
  local n = math.floor(1 / dx + 0.5)
  if math.abs(n * dx - 1) > 1e-12 then raise("tide.zarifi.hydrostatic: 1/dx must be an integer") end
  local mu, lam, L, t0, al, y1, y2 = P.mu, P.lambda, P.L, P.tau0, P.alpha, P.y1, P.y2
  local beta = -al * (y2 - y1) * rho_f * gy / (2 * t0 * (2 * mu + lam))      -- (6.3)
  local gamma = (y2 - y1) / t0 - beta * t0                                   -- (6.4)
  local rho_s = al * (y2 - y1) * rho_f / t0                                  -- (6.10)
  local x0 = opts.x0 or (1 - al * L) / 2
  local g = tide.grid.new { size = { n, n }, dx = dx }
  local h = opts.h or dx
  local nx, ny = math.max(1, math.floor(L / h + 0.5)), math.max(1, math.floor(t0 / h + 0.5))
  local m = tide.solid.box { min = { 0, 0 }, max = { L, t0 }, cells = { nx, ny } }
  m:material { model = "linear", mu = mu, lambda = lam, density = rho_s, gravity = { 0, gy } }
  local X, x = m.rest, m.x
  for i = 1, m.nv do
    local Xi, Yi = X:get(i, 1), X:get(i, 2)
    x:set(i, 1, x0 + al * Xi)
    x:set(i, 2, beta * Yi * Yi + gamma * Yi + y1)                          -- (6.1)
  end
  -- tractions (6.6)-(6.9) on the rest boundary
  local function yof(Y) return beta * Y * Y + gamma * Y + y1 end
  local function TL(Y) return -(2 * mu + lam) * (al - 1) - lam * (2 * beta * Y + gamma - 1) - rho_f * gy * (yof(Y) - a) * (2 * beta * Y + gamma) end
  local TT = (2 * mu + lam) * (2 * beta * t0 + gamma - 1) + lam * (al - 1) + al * rho_f * gy * (y2 - a)
  local TB = -(2 * mu + lam) * (gamma - 1) - lam * (al - 1) - al * rho_f * gy * (y1 - a)
  local f = m.force
  f:fill(0)
  local gp = { { -math.sqrt(3 / 5), 5 / 9 }, { 0, 8 / 9 }, { math.sqrt(3 / 5), 5 / 9 } }
  local bnd = m:boundary()
  local eps = 1e-9
  for s = 1, bnd.shape[1] do
    local i, j = bnd:get(s, 1), bnd:get(s, 2)
    local Xi, Yi, Xj, Yj = X:get(i, 1), X:get(i, 2), X:get(j, 1), X:get(j, 2)
    local len = math.sqrt((Xj - Xi) ^ 2 + (Yj - Yi) ^ 2)
    for _, q in ipairs(gp) do
      local t = (q[1] + 1) / 2                      -- parameter along the segment, node j weight
      local Y = Yi + t * (Yj - Yi)
      local w = q[2] / 2 * len
      local fx, fy = 0, 0
      if Xi < eps and Xj < eps then fx = TL(Y)                              -- left (6.6)
      elseif Xi > L - eps and Xj > L - eps then fx = -TL(Y)                 -- right (6.7) = -T_L
      elseif Yi > t0 - eps and Yj > t0 - eps then fy = TT                   -- top (6.8)
      elseif Yi < eps and Yj < eps then fy = TB end                         -- bottom (6.9)
      f:set(i, 1, f:get(i, 1) + w * (1 - t) * fx)
      f:set(j, 1, f:get(j, 1) + w * t * fx)
      f:set(i, 2, f:get(i, 2) + w * (1 - t) * fy)
      f:set(j, 2, f:get(j, 2) + w * t * fy)
    end
  end
  -- the liquid: the pool below y = a, cells closed by the solid are solid, u = 0
  local shape = tide.shape.mesh { vertices = m.x, faces = bnd }
  local fr, solid = g:face_fractions(shape, { exact = opts.exact or false })
  local labels, phi, pexact = g:cells("u8"), g:cells(), g:cells()
  for i = 1, n do
    for j = 1, n do
      local y = (j - 0.5) * dx
      phi:set(i, j, y - a)
      pexact:set(i, j, rho_f * gy * (y - a))                                  -- (6.5)
      labels:set(i, j, solid:get(i, j) == liquid.SOLID and liquid.SOLID or y < a and liquid.LIQUID or liquid.AIR)
    end
  end
  local H = { grid = g, solid = m, labels = labels, phi = phi, fractions = fr, pressure_exact = pexact,
    params = P, beta = beta, gamma = gamma, rho_s = rho_s, rho_f = rho_f, dt = dt, x0 = x0, n = n, cells = { nx, ny } }
  --- One step of Alg. 4 from the equilibrium (lines 4 and 7; positions and particles do not move
  -- when v = u = 0): gravity, the projection, the errors { p, solid, liquid } (∞-norms).
  function H.run(popts)
    popts = popts or {}
    local u, valid, p = g:mac(), g:mac("u8"), g:cells()
    u.v:fill(dt * gy)
    u:enforce_walls(labels, false, fr)
    m.v:fill(0)
    add_gravity(m, dt, { 0, gy })
    local st = couple.project {
      u = u, labels = labels, solids = { m }, dt = dt, rho = rho_f,
      formulation = popts.formulation or "spd", solver = popts.solver, sigma = popts.sigma, alpha = popts.alpha,
      tol = popts.tol or 1e-12, phi = phi, fractions = fr, pressure = p, valid = valid,
      sampling = popts.sampling or "cell" }
    local ep, eu = 0, 0
    for i = 1, n do
      for j = 1, n do
        if labels:get(i, j) == liquid.LIQUID then ep = math.max(ep, math.abs(p:get(i, j) - pexact:get(i, j))) end
      end
    end
    for a = 1, 2 do
      local comp, va = a == 1 and u.u or u.v, a == 1 and valid.u or valid.v
      local flat, fv = comp:reshape(comp:size()), va:reshape(va:size())
      for k = 1, comp:size() do if fv[k] ~= 0 then eu = math.max(eu, math.abs(flat[k])) end end
    end
    local ev = math.max(-m.v:min(), m.v:max())
    return { p = ep, solid = ev, liquid = eu, stats = st, pressure = p, u = u }
  end
  return H
end

--- Output of one frame: a PNG of the liquid and the solids (2D: particles coloured by speed and
-- the triangle meshes; 3D: the liquid surface from a particle level set and the solids' surfaces)
-- and, with opts.vtk, VTK files for ParaView (solids .vtu, particles .vtp, with .pvd collections).
-- opts: png = true, vtk = false, width = 640, camera (3D), title, speed_range = {0, 3}.
function zarifi.frame(S, dir, i, t, opts)
  opts = opts or {}
  local g, ps, fio = S.grid, S.particles, tide.fileio
  local title = string.format("%s  t = %.2f s", opts.title or "zarifi", t)
  if opts.png ~= false then
    local path = string.format("%s/frame_%04d.png", dir, i)
    if g.dim == 2 then
      local n = #ps
      S.speed = (S.speed and S.speed:size() == n) and S.speed or tide.array.zeros(math.max(n, 1))
      local v = ps.v
      for p = 1, n do
        local a, b = v:get(p, 1), v:get(p, 2)
        S.speed[p] = math.sqrt(a * a + b * b)
      end
      local mesh_opts = {}
      if #S.solids == 1 then
        mesh_opts.mesh = S.solids[1]
      else -- all solids as one triangle list (1-based)
        local nv, ne, nb = 0, 0, 0
        for _, m in ipairs(S.solids) do nv, ne, nb = nv + m.nv, ne + m.ne, nb + m.nb end
        local V, T, B = tide.array.zeros { nv, 2 }, tide.array.zeros({ ne, 3 }, "i32"), tide.array.zeros({ nb, 2 }, "i32")
        local ov, oe, ob = 0, 0, 0
        for _, m in ipairs(S.solids) do
          local x, el, bd = m.x, m:elements(), m:boundary()
          for a = 1, m.nv do V:set(ov + a, 1, x:get(a, 1)); V:set(ov + a, 2, x:get(a, 2)) end
          for e = 1, m.ne do for c = 1, 3 do T:set(oe + e, c, el:get(e, c) + ov) end end
          for e = 1, m.nb do for c = 1, 2 do B:set(ob + e, c, bd:get(e, c) + ov) end end
          ov, oe, ob = ov + m.nv, oe + m.ne, ob + m.nb
        end
        mesh_opts = { vertices = V, triangles = T, segments = B, index_base = 1 }
      end
      local o = { path = path, grid = g, width = opts.width or 640, particles = n > 0 and ps.x or nil,
        particle_color = n > 0 and S.speed:slice(1, 1, n) or nil, particle_range = opts.speed_range or { 0, 3 },
        particle_colormap = "viridis", title = title }
      for k, v in pairs(mesh_opts) do o[k] = v end
      fio.png2d(o)
    else
      S.phi_draw = S.phi_draw or g:cells()
      ps:level_set(g, { radius = 0.75 * g.dx, out = S.phi_draw })
      local lo, hi = g:bounds()
      local c = { (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2, (lo[3] + hi[3]) / 2 }
      local camera = opts.camera or { position = { c[1] + 1.2 * (hi[1] - lo[1]), c[2] + 1.0 * (hi[2] - lo[2]),
        c[3] + 2.2 * (hi[3] - lo[3]) }, target = { c[1], c[2] - 0.2 * (hi[2] - lo[2]), c[3] }, fov = 40 }
      local meshes = {}
      for _, m in ipairs(S.solids) do meshes[#meshes + 1] = { mesh = m, color = { 0.85, 0.45, 0.25 } } end
      fio.png3d { path = path, grid = g, phi = S.phi_draw, meshes = meshes, width = opts.width or 640,
        camera = camera, title = title }
    end
  end
  if opts.vtk then
    for k, m in ipairs(S.solids) do
      local f = string.format("%s/solid%d_%04d.vtu", dir, k, i)
      fio.vtu { path = f, mesh = m }
      fio.pvd(string.format("%s/solid%d.pvd", dir, k), t, f)
    end
    local f = string.format("%s/particles_%04d.vtp", dir, i)
    fio.vtp { path = f, points = ps }
    fio.pvd(dir .. "/particles.pvd", t, f)
  end
end

--- Liquid particles filling a region minus the solids: region = { box = {min, max} } and/or
-- { below = y } (a pool up to height y); solids = the meshes to keep clear of.  per_cell as
-- tide.liquid.seed.  Returns the particles.
function zarifi.seed(g, region, solids, per_cell)
  if type(region) ~= "table" or not (region.box or region.below) then
    error("tide.zarifi.seed: region must give 'box' = {min =, max =} and/or 'below' = y", 2)
  end
  local phi = region.box and tide.shape.box(region.box):sdf(g) or g:cells():fill(-1e30)
  local flat = phi:reshape(phi:size())
  if region.below then
    local dx, lo = g.dx, g:bounds()
    local nj, nk = g.size[2], g.dim == 3 and g.size[3] or 1
    for c = 1, phi:size() do
      local j = ((c - 1) // nk) % nj
      flat[c] = math.max(flat[c], lo[2] + (j + 0.5) * dx - region.below)
    end
  end
  for _, m in ipairs(solids or {}) do
    local sd = tide.shape.mesh { vertices = m.x, faces = m:boundary() }:sdf(g)
    local sf = sd:reshape(sd:size())
    for c = 1, phi:size() do flat[c] = math.max(flat[c], -sf[c]) end
  end
  return tide.liquid.seed { grid = g, phi = phi, per_cell = per_cell }
end

--- The parameters every zarifi scene shares (merged under the scene's own): resolution,
-- dimension, frames, scheme, --paper, output.
function zarifi.scene_params(own, help)
  local defaults = { res = 32, dim = 2, frames = 48, fps = 24, scheme = "spd", sampling = "linear", paper = false,
    per_cell = 0, cfl = 1.0, out = "", png = true, vtk = false, image = 640, steps = 0 }
  local doc = { res = "cells across the unit tank (the tank may be wider)", dim = "2 or 3",
    scheme = "spd, indefinite, factored, damping or weak", sampling = "pressure on the solid: linear or cell (the thesis)",
    paper = "Table 6.1 sizes (3D, 100^3 or 64^3 and the thesis's solid resolution)",
    per_cell = "particles per cell (0: 2^dim)", png = "write PNG frames", vtk = "write VTK files for ParaView",
    image = "PNG width in pixels", out = "output directory",
    steps = "measure instead of run: this many CFL steps, no frames; prints the seconds per coupled projection "
      .. "beside the plain liquid projection of the same state (bench/couple_scenes.lua)" }
  for k, v in pairs(own) do defaults[k] = v end
  for k, v in pairs(help or {}) do doc[k] = v end
  local P = tide.params(defaults, doc)
  if P.dim ~= 2 and P.dim ~= 3 then error("--dim must be 2 or 3", 2) end
  if P.paper then P.dim = 3 end
  return P
end

--- The unit tank of a scene: P.res cells across (with --paper: paper_res, default 100, Table 6.1's),
-- P.dim dimensions.  Returns the grid, the dimension and dx.
function zarifi.scene_grid(P, paper_res)
  local res = P.paper and (paper_res or 100) or P.res
  local n = P.dim == 2 and { res, res } or { res, res, res }
  return tide.grid.new { size = n, dx = 1 / res }, P.dim, 1 / res
end

-- The plain liquid projection of S's state (its labels, face fractions and level set, the solids
-- static walls) after one step of gravity, with MGPCG to S.tol: the bound a coupled projection is
-- measured against (bench/couple.lua's).  Returns wall seconds, iterations; S is not changed.
local function plain_projection(S, dt)
  local u = S.u:clone()
  u:add_gravity(dt, S.gravity)
  local t0 = clock()
  local st = liquid.project(u, S.labels, { dt = dt, rho = S.rho, tol = S.tol, method = "mgpcg",
    fractions = S.fractions, phi = S.surface and S.liquid.phi or nil, projector = S.liquid.projector })
  return clock() - t0, st.iterations
end

-- --steps N (scene_params): N CFL steps of S without frames, then one line per measure: the
-- wall seconds of line 7's coupled projection ("project" phase: geometry, assembly, solve;
-- steps 2..N, the first has the allocations of a new run) and the plain liquid projection of
-- the last state (its second call: the first builds its projector).  The line starting "@projection" is bench/couple_scenes.lua's.
local function measure_scene(S, P, title)
  local g = S.grid
  local walls, iters, unknowns, worst, steptime = 0, 0, 0, 0, 0
  local phase = {}
  for _, name in ipairs(zarifi.phases) do phase[name] = 0 end
  local t0 = clock()
  for k = 1, P.steps do
    local st = zarifi.step(S, zarifi.max_dt(S))
    local w = st.phases.project.seconds
    if k > 1 or P.steps == 1 then
      walls, iters = walls + w, iters + (st.iterations or 0)
      worst = math.max(worst, w)
      steptime = steptime + st.seconds
      for _, name in ipairs(zarifi.phases) do phase[name] = phase[name] + st.phases[name].seconds end
    end
    unknowns = math.max(unknowns, st.unknowns or 0)
    local pre = st.precond_seconds or 0
    io.stderr:write(string.format("%s: step %d/%d, coupled projection %.3f s (geometry %.3f, assembly %.3f, set-up %.3f, "
      .. "solve %.3f), %s unknowns, %s interface%s, %s iterations%s\n", title, k, P.steps, w, st.geometry_seconds or 0,
      st.assembly_seconds or 0, pre, (st.solve_seconds or 0) - pre, tostring(st.unknowns or "-"), tostring(st.interface or "-"),
      st.interface_factor and string.format(" (factor %d entries, %s)", st.interface_factor, st.interface_solve or "?") or "",
      tostring(st.iterations or "-"), (st.fallback and ", redone with the direct solver" or "")
      .. (st.reference and string.format("; the mass reference %s, %s iterations", st.reference.resolved and "resolved"
        or "projected", tostring(st.reference.iterations or "-")) or "")))
  end
  local n = P.steps > 1 and P.steps - 1 or 1
  -- the plain projection warm, as the coupled steps 2..N: its first call builds its projector
  plain_projection(S, zarifi.max_dt(S))
  local pw, pit = plain_projection(S, zarifi.max_dt(S))
  print(string.format("%d steps in %.1f s; coupled projection (steps %s): %.3f s mean, %.3f s slowest, %.1f iterations, "
    .. "up to %d unknowns; the plain liquid projection of the last state %.3f s (%d iterations): %.1fx",
    P.steps, clock() - t0, P.steps > 1 and "2.." .. P.steps or "1", walls / n, worst, iters / n, unknowns, pw, pit,
    walls / n / pw))
  -- where a whole step's time goes (the same steps, wall seconds per step)
  local parts = {}
  for _, name in ipairs(zarifi.phases) do parts[#parts + 1] = string.format("%s %.4f", name, phase[name] / n) end
  print(string.format("a step (steps %s): %.3f s wall: %s", P.steps > 1 and "2.." .. P.steps or "1", steptime / n,
    table.concat(parts, ", ")))
  print(string.format("@projection grid=%s unknowns=%d mean=%.6f slowest=%.6f iterations=%.2f plain=%.6f plain_iterations=%d threads=%d step=%.6f",
    table.concat(g.size, "x"), unknowns, walls / n, worst, iters / n, pw, pit, tide.threads(), steptime / n))
  return { steps = P.steps, mean = walls / n, slowest = worst, plain = pw }
end

--- Run a scene: frames of S through tide.run with PNG/VTK output; report(S) prints the outcome,
-- on_step(S, stats) (optional) runs after every step.  With P.steps > 0 (--steps N): N steps
-- measured instead, no frames (measure_scene above).
function zarifi.run_scene(S, P, name, title, report, on_step)
  local g = S.grid
  local nodes, elems = 0, 0
  for _, m in ipairs(S.solids) do nodes, elems = nodes + m.nv, elems + m.ne end
  print(string.format("%s (%dD): %s cells, dx = %.4g m, %d particles, solids %d nodes / %d elements, scheme %s, %s sampling",
    title, g.dim, table.concat(g.size, " x "), g.dx, #S.particles, nodes, elems, S.scheme, S.sampling))
  if (P.steps or 0) ~= 0 then
    if math.type(P.steps) ~= "integer" or P.steps < 0 then
      raise("tide.zarifi.run_scene: --steps must be a whole number >= 0, got " .. tostring(P.steps))
    end
    return measure_scene(S, P, title)
  end
  local last, worst = nil, 0
  local result = tide.run {
    frames = P.frames, fps = P.fps, out = P.out, params = P, name = name,
    max_dt = function() return zarifi.max_dt(S) end,
    step = function(dt)
      last = zarifi.step(S, dt)
      if on_step then on_step(S, last) end
      if last and last.solve_seconds then worst = math.max(worst, last.solve_seconds) end
      return { iterations = last and last.iterations or 0 }
    end,
    frame = function(i, t)
      zarifi.frame(S, P.out, i, t, { png = P.png, vtk = P.vtk, width = P.image, title = title })
    end,
  }
  print(string.format("%d steps; last projection: %s unknowns, %s iterations; slowest solve %.3g s; %d direct-solver fallbacks; "
    .. "%d solves above 100 tol", result.steps, last and tostring(last.unknowns) or "-", last and tostring(last.iterations) or "-",
    worst, S.fallbacks or 0, S.inaccurate or 0))
  if report then report(S) end
  return result
end

--- Height of the free surface (2D, with a level_set): the first zero crossing of S.liquid.phi
-- going up each column, averaged over the columns whose centre x satisfies clear(x).
function zarifi.surface_level(S, clear)
  local g, phi = S.grid, S.liquid.phi
  if g.dim ~= 2 or not phi then raise("tide.zarifi.surface_level: needs a 2D state with a level_set") end
  local ni, nj = g.size[1], g.size[2]
  local lo = g:bounds()
  local tot, cnt = 0, 0
  for i = 1, ni do
    if clear(lo[1] + (i - 0.5) * g.dx) then
      for j = 1, nj - 1 do
        local a, b = phi:get(i, j), phi:get(i, j + 1)
        if a <= 0 and b > 0 then tot, cnt = tot + lo[2] + (j - 0.5 + a / (a - b)) * g.dx, cnt + 1; break end
      end
    end
  end
  return cnt > 0 and tot / cnt or nil
end

--- Momentum of liquid + solids [N s] (a table of dim numbers), the liquid's as line 2's g2p will
-- leave it: the particles' sum m_p v_p plus the grid's change since they last received it (a
-- projection's impulse is on the solids at once but reaches the particles one step later):
-- FLIP: r sum_f m_f (u - old)_f + (1 - r)(sum_f m_f u_f - sum m_p v_p) with FLIP ratio r;
-- PIC and APIC: sum_f m_f u_f in place of the particles'; m_f = m_p sum_p w_fp the particles'
-- kernel mass of face f (from p2g's weights; m_p = rho dx^d / per_cell).
function zarifi.momentum(S)
  local g, ps, L = S.grid, S.particles, S.liquid
  local mp = S.rho * g.dx ^ g.dim / L.per_cell
  S.momentum_w, S.momentum_u = S.momentum_w or g:mac(), S.momentum_u or g:mac()
  liquid.p2g(ps, S.momentum_u, { weights = S.momentum_w })
  local r = S.transfer == "flip" and S.flip or 0
  local P = {}
  for a = 1, g.dim do
    local comp = a == 1 and "u" or a == 2 and "v" or "w"
    local W, u, old = S.momentum_w[comp], S.u[comp], L.u_old[comp]
    local pp = ps.v:select(2, a):sum() * mp
    local mu = mp * W:dot(u)
    P[a] = pp + r * (mu - mp * W:dot(old)) + (1 - r) * (mu - pp)
    for _, m in ipairs(S.solids) do P[a] = P[a] + m.mass:dot(m.v:select(2, a)) end
  end
  return P
end

--- Centre of mass [m] (a table of dim numbers) and mean velocity of a solid.
function zarifi.centroid(m)
  local c, v, M = {}, {}, 0
  local mass = m.mass
  for a = 1, m.dim do c[a], v[a] = 0, 0 end
  for q = 1, m.nv do
    local w = mass[q]
    M = M + w
    for a = 1, m.dim do c[a], v[a] = c[a] + w * m.x:get(q, a), v[a] + w * m.v:get(q, a) end
  end
  for a = 1, m.dim do c[a], v[a] = c[a] / M, v[a] / M end
  return c, v
end

return zarifi
