--- tide.flip: the PIC / FLIP / APIC liquid step, written as a recipe.
--
--   local flip = require "tide.flip"
--   local S = flip.new{ grid = g, particles = ps, scheme = "flip", flip = 0.97 }
--   for i = 1, n do local dt = flip.max_dt(S); flip.step(S, dt) end
--
-- The step follows the hybrid particle/grid loop of the Li lecture (PIC,
-- FLIP, APIC) with Zarifi's projection and extrapolation (thesis Alg. 3,
-- Sec. 4.4-4.6).  Every line is one native operator; copy this file to
-- change the order or add an operator (viscosity, a cut-cell projection ...).

local raise = require("tide.core")._raise -- errors at the scene's line
local tide = require "tide"
local liquid = tide.liquid
local time = tide.time

local flip = {}

local defaults = {
  scheme = "flip",    -- "pic", "flip" or "apic"
  flip = 0.97,        -- FLIP blend (1 = pure FLIP, 0 = PIC), scheme "flip" only
  rho = 1000,         -- density [kg/m^3]
  tol = 1e-8,         -- relative residual of the pressure solve
  maxit = 0,          -- pressure iteration limit (0: solver default)
  method = "pcg",     -- pressure solver: "pcg" (MIC(0)-PCG on CSR), "mgpcg" or "mic0" (matrix-free)
  layers = nil,       -- extrapolation sweeps (default: enough for the CFL number + 2)
  cfl = 1,            -- CFL number of max_dt
  order = 2,          -- particle advection: 1 Euler, 2 RK2 midpoint, 3 RK3
  per_cell = nil,     -- particles per cell at rest density (default 2^dim, as seeded)
  separation = 0.5,   -- density correction strength per step (0: off), see flip.separate
  band = 0.3,         -- dead band of the density correction (per_cell units)
  mean = false,       -- correct by the mean interior density (volume control) instead of per cell
  separate_cut = false, -- the density correction also in the cut cells (open face fractions
                        -- < 1), against their open volume (tide.liquid.density_target's cut:
                        -- true = "open", the mean face fraction; "kernel", the density kernel's)
  level_set = false,  -- "zhu_bridson" or "union": rebuild a particle level set every step (S.phi)
                      -- and use it for the ghost-fluid free surface of the projection
  radius = nil,       -- particle radius of that level set (default dx / 2^(1/dim) ~ particle spacing * 1.4)
  sigma = 0,          -- surface tension [N/m] (flip.tension; surface_tension = {...} for its options)
  capillary = 0.5,    -- fraction of the explicit capillary step sqrt(rho dx^3 / (2 pi sigma)) in max_dt
}

-- surface_tension = {...}: the options of the surface-tension operator (flip.tension)
local tension_defaults = {
  method = "ghost",       -- "ghost" (pressure jump at the surface) or "liu" (Liu Eq. 8, liquid-side band)
  curvature = nil,        -- "cells" (fourth order, moved to the surface: a drop at rest stays quiet and, with the
                          -- tracked surface's linear extension, accurate frequencies; the default at 90 degrees) or
                          -- "heights" (height functions of the surface: contact angles; spurious currents grow at
                          -- rest; the default with contact_angle ~= 90; docs/liquids-physics.md, "The default")
  level_set = "tracked",  -- "tracked": a grid level set moved with the grid velocity (volume-corrected);
                          -- "particles": the particle level set (S.level_set) redistanced every step
  side = "liquid",        -- Liu's band: "liquid" or "both"
  band = nil,             -- Liu's band half-width [m] (3 dx)
  redistance = nil,       -- tracked: redistance every n steps (0: never; default 0 in 2D, and in 3D under APIC
                          -- with the cell curvature; else 1)
  redistance_options = nil, -- tracked: options of that tide.grid.redistance (default { closest = 4 } with the
                          -- cell curvature, else its defaults; docs/liquids-physics.md, "3D drop at rest")
  volume = true,          -- tracked: restore the liquid volume every step (Liu Sec. 4.2.2)
  contact_angle = nil,    -- static contact angle at the walls [degrees] (90)
}

local keys = { grid = true, particles = true, solid = true, gravity = true, layers = true, per_cell = true,
  fractions = true, solid_phi = true, reseed = true, radius = true, solid_velocity = true,
  open = true, emitters = true, sinks = true, surface_tension = true, phi = true, periodic = true }
for k in pairs(defaults) do keys[k] = true end

--- Build the simulation state.
-- opts: grid (tide.Grid), particles (tide.Particles; "apic" needs apic = true),
-- solid (u8 cell labels, TIDE solid = 2, optional), gravity ({gx, gy[, gz]},
-- default {0, -9.81[, 0]}), and the defaults above.  Cut cells: fractions
-- (open face fractions, a tide.Mac from g:face_fractions) enter the
-- projection and the walls; solid_phi (the solid's signed distance on cells)
-- keeps particles out of curved solids.
function flip.new(opts)
  if type(opts) ~= "table" then raise("tide.flip.new: table of named arguments expected") end
  for k in pairs(opts) do
    if not keys[k] then raise(string.format("tide.flip.new: unknown option '%s'", tostring(k))) end
  end
  local g, ps = opts.grid, opts.particles
  if not g or not ps then raise("tide.flip.new: 'grid' and 'particles' are required") end
  local S = {}
  for k, v in pairs(defaults) do S[k] = v end
  for k, v in pairs(opts) do S[k] = v end
  if S.scheme ~= "pic" and S.scheme ~= "flip" and S.scheme ~= "apic" then
    raise("tide.flip.new: scheme must be pic, flip or apic, got " .. tostring(S.scheme))
  end
  if S.scheme == "apic" and not ps.apic then
    raise("tide.flip.new: scheme 'apic' needs particles created with apic = true")
  end
  S.grid, S.particles, S.solid = g, ps, opts.solid
  S.fractions, S.solid_phi = opts.fractions, opts.solid_phi
  -- solid_velocity: a tide.Mac of the solids' normal velocity on the faces (moving solids)
  S.solid_velocity = opts.solid_velocity
  -- reseed = {min = 8, max = 16}: keep the particles per bulk liquid cell in range every step
  S.reseed = opts.reseed
  S.gravity = opts.gravity or (g.dim == 2 and { 0, -9.81 } or { 0, -9.81, 0 })
  flip.periodic_setup(S, opts)
  S.layers = S.layers or math.ceil(S.cfl) + 2
  S.u = g:mac()               -- grid velocity (after the last projection)
  S.u_old = g:mac()           -- grid velocity before forces (FLIP)
  S.valid = g:mac("u8")       -- faces holding a velocity
  S.labels = g:cells("u8")    -- air / liquid / solid
  S.pressure = g:cells()      -- pressure [Pa]
  S.projector = liquid.projector(g) -- solver workspace, reused every step
  S.per_cell = S.per_cell or 2 ^ g.dim
  if S.level_set then
    if S.level_set ~= "zhu_bridson" and S.level_set ~= "union" then
      raise("tide.flip.new: level_set must be false, 'zhu_bridson' or 'union'")
    end
    S.phi = g:cells()
    S.radius = S.radius or g.dx / 2 ^ (1 / g.dim)
  end
  flip.tension_setup(S, opts)
  if S.separation > 0 then
    S.density = g:cells()       -- particle density [particles per cell]
    S.target = g:cells()        -- divergence target of the density correction [1/s]
    S.u_sep = g:mac()           -- displacement velocity of the density correction
    S.valid_sep = g:mac("u8")
  end
  flip.boundaries(S, opts)
  if #S.particles == 0 and not S.emitters then
    raise("tide.flip.new: the particles are empty and there are no emitters: nothing would move (seed with tide.liquid.seed)")
  end
  S.t, S.steps = 0, 0
  flip.transfer_to_grid(S)
  return S
end

--- Periodic axes (flip.new option periodic = {true, false[, ..]}): transfers,
-- extrapolation, particle advection, the projection (ghost-fluid with the
-- tracked level set of the surface tension) and the tracked level set run on
-- the torus of a tide.liquid.periodic workspace S.P; the other axes are walls
-- (not separating).  Not with solids, cut cells, open sides, emitters, sinks,
-- the particle level set or the density correction (separation, off by
-- default here), which are not periodic yet; with surface tension the
-- initial level set phi is required.
function flip.periodic_setup(S, opts)
  if opts.periodic == nil then return end
  for _, k in ipairs { "solid", "fractions", "solid_phi", "solid_velocity", "open", "emitters", "sinks", "level_set" } do
    if opts[k] ~= nil and opts[k] ~= false then
      error(string.format("tide.flip.new: periodic axes with '%s' are not supported", k), 4)
    end
  end
  if opts.separation == nil then S.separation = 0 end
  if S.separation > 0 then error("tide.flip.new: periodic axes need separation = 0 (the density correction is not periodic)", 4) end
  local st = opts.surface_tension
  if (S.sigma or 0) > 0 and ((st and st.level_set == "particles") or opts.phi == nil) then
    error("tide.flip.new: periodic surface tension needs the tracked level set and its initial phi", 4)
  end
  local ok, P = pcall(liquid.periodic, { grid = S.grid, periodic = opts.periodic })
  if not ok then error("tide.flip.new: periodic: " .. tostring(P), 4) end
  S.P, S.periodic = P, P.periodic
end

local function choice(v, list, name)
  for _, c in ipairs(list) do if v == c then return end end
  raise(string.format("tide.flip.new: surface_tension.%s must be one of %s, got %s", name, table.concat(list, ", "),
    tostring(v)))
end

--- Surface tension (flip.new options sigma, surface_tension = {...}, phi):
-- the surface is a level set S.phi, either tracked on the grid (default:
-- advected with the grid velocity by MacCormack with monotone cubic
-- interpolation, its volume restored every step, initialised from `phi` or
-- from the particles) or the particle level set rebuilt every step and
-- redistanced; the liquid cells are then the cells with phi < 0 (solids
-- kept), and the projection uses the ghost-fluid surface of that level set,
-- so the pressure jump sigma kappa sits where the projection's surface is.
function flip.tension_setup(S, opts)
  local g = S.grid
  local st = opts.surface_tension
  if st ~= nil and type(st) ~= "table" then raise("tide.flip.new: surface_tension must be a table of options") end
  if type(S.sigma) ~= "number" or not (S.sigma >= 0 and S.sigma < math.huge) then
    raise("tide.flip.new: sigma must be a finite number >= 0")
  end
  if type(S.capillary) ~= "number" or not (S.capillary > 0 and S.capillary < math.huge) then
    raise("tide.flip.new: capillary must be a positive number")
  end
  if S.sigma == 0 then
    if st ~= nil or opts.phi ~= nil then raise("tide.flip.new: surface_tension and phi need sigma > 0") end
    return
  end
  local T = {}
  for k, v in pairs(tension_defaults) do T[k] = v end
  for k, v in pairs(st or {}) do
    if tension_defaults[k] == nil and k ~= "band" and k ~= "redistance" and k ~= "redistance_options" and k ~= "contact_angle" and k ~= "curvature" then
      raise(string.format("tide.flip.new: surface_tension: unknown option '%s'", tostring(k)))
    end
    T[k] = v
  end
  choice(T.method, { "ghost", "liu" }, "method")
  if T.curvature == nil then T.curvature = (T.contact_angle and T.contact_angle ~= 90) and "heights" or "cells" end
  choice(T.curvature, { "heights", "cells" }, "curvature")
  choice(T.level_set, { "tracked", "particles" }, "level_set")
  choice(T.side, { "liquid", "both" }, "side")
  if T.redistance_options ~= nil and type(T.redistance_options) ~= "table" then
    raise("tide.flip.new: surface_tension.redistance_options must be a table of tide.grid.redistance options")
  end
  -- with the cell curvature the redistancing keeps its zero set and the band the curvature reads
  -- (closest-point distances to the quintic interpolant within 4 cells): a 3D FLIP 0.97 drop at rest
  -- 7.0e-4 at t = 1 redistanced every step, 3.3e-2 with the plain march (docs/liquids-physics.md,
  -- "3D drop at rest")
  if T.redistance_options == nil and T.curvature == "cells" then T.redistance_options = { closest = 4 } end
  -- 3D: the tracked level set is redistanced every step, except under APIC with the cell
  -- curvature.  The cell curvature reads the plain march's moves of the surface (a 3D APIC drop at
  -- rest: 3.3e-2 redistanced every step, 6.9e-4 without; closest = 4 above: FLIP 0.97 7.0e-4), but without it the height functions
  -- blow up and FLIP 0.97's noisier velocity pumps an n = 2 oscillation (+3.5% amplitude per
  -- period; APIC -0.5%): docs/liquids-physics.md, "3D drop at rest"
  if T.redistance == nil then
    T.redistance = (g.dim == 3 and (T.curvature == "heights" or S.scheme ~= "apic")) and 1 or 0
  end
  if math.type(T.redistance) ~= "integer" and not (type(T.redistance) == "number" and T.redistance == math.floor(T.redistance)) or T.redistance < 0 then
    raise("tide.flip.new: surface_tension.redistance must be an integer >= 0")
  end
  S.tension = T
  if T.level_set == "particles" then
    if opts.phi ~= nil then raise("tide.flip.new: phi is the initial tracked level set (surface_tension.level_set = 'tracked')") end
    if not S.level_set then
      S.level_set = "zhu_bridson"
      S.phi = g:cells()
      S.radius = S.radius or g.dx / 2 ^ (1 / g.dim)
    end
    return
  end
  if S.level_set then raise("tide.flip.new: level_set (the particle level set) and a tracked surface_tension.level_set exclude each other") end
  if S.emitters or S.open then
    raise("tide.flip.new: the tracked surface does not know about emitters and open sides (use surface_tension.level_set = 'particles')")
  end
  S.phi, S.phi2 = g:cells(), g:cells()
  if opts.phi ~= nil then
    local ok, err = pcall(S.phi.copy, S.phi, opts.phi)
    if not ok then raise("tide.flip.new: phi: " .. tostring(err)) end
  else
    -- the particles' own surface: Zhu-Bridson with the radius of half the
    -- particle spacing puts the zero level set on the seeded boundary
    local r = 0.5 * g.dx / S.per_cell ^ (1 / g.dim)
    S.particles:level_set(g, { method = "zhu_bridson", radius = r, out = S.phi })
    tide.grid.redistance(g, S.phi)
  end
  if T.volume then S.tracker = tide.grid.volume_tracker { grid = g, phi = S.phi, redistance = false } end
  S.advect_phi = { grid = g, velocity = S.u, field = S.phi, dt = 0, scheme = "maccormack", interp = "cubic", out = S.phi2 }
end

--- The surface of the surface tension at the start of a step: the tracked
-- level set (moved at the end of the previous step, flip.tension_advance) or
-- the particle level set (built by step 2) redistanced; labels from it.
function flip.tension_surface(S)
  if S.tension.level_set ~= "tracked" then time("redistance", tide.grid.redistance, S.grid, S.phi) end
  -- liquid where phi < 0; the solid cells of the particle labels stay solid
  time("label", liquid.label_phi, S.grid, S.phi, { solid = S.labels, out = S.labels })
end

--- Move the tracked level set through the divergence-free grid velocity of
-- this step (after the projection and the extension, the velocity that moves
-- the particles): MacCormack with monotone cubic interpolation, redistanced
-- every T.redistance steps, its volume restored (Liu Sec. 4.2.2).  Moving it
-- with the transferred velocity of the start of the step instead (before
-- session 21) made the capillary wave 2.2% slow at 32 cells per wavelength
-- (docs/liquids-physics.md, "Surface tension with particles").
function flip.tension_advance(S, dt)
  local T, g = S.tension, S.grid
  if S.P then
    time("advect phi", S.P.advect_cells, S.P, S.u, S.phi, dt, { scheme = "maccormack", interp = "cubic", out = S.phi2 })
  else
    local a = S.advect_phi
    a.velocity, a.field, a.dt, a.out = S.u, S.phi, dt, S.phi2
    time("advect phi", tide.grid.advect_scalar, a)
  end
  S.phi, S.phi2 = S.phi2, S.phi
  if T.redistance > 0 and (S.steps + 1) % T.redistance == 0 then
    if S.P then time("redistance", S.P.redistance, S.P, S.phi)
    else time("redistance", tide.grid.redistance, g, S.phi, T.redistance_options) end
  end
  if S.tracker then time("volume", S.tracker.correct, S.tracker, S.phi) end
end

--- Surface tension on the grid velocity (before the projection, which must
-- use the same phi and labels): the ghost-fluid jump or Liu's band.  With
-- S.solid_phi (curved solids) the curvature next to them reads the level set
-- continued into them at the contact angle (tide.liquid.contact_extend).
function flip.tension(S, dt)
  local T = S.tension
  local o = { sigma = S.sigma, rho = S.rho, dt = dt, labels = S.labels, curvature = T.curvature, periodic = S.periodic,
    solid_phi = S.solid_phi }
  if T.method == "liu" then
    o.method, o.side, o.band = "liu", T.side, T.band
    S.tension_solver = S.tension_solver or liquid.viscosity_solver()
    o.solver = S.tension_solver
  end
  if T.contact_angle then o.contact_angle = T.contact_angle end
  return time("surface tension", liquid.surface_tension, S.u, S.phi, o)
end

local SIDES = { ["x-"] = 1, ["x+"] = 1, ["y-"] = 2, ["y+"] = 2, ["z-"] = 3, ["z+"] = 3 }

--- Open sides, emitters and sinks (flip.new options, docs/liquids.md):
--   open = {"x+", "y-", ...}   domain sides where liquid leaves (default: all walls)
--   emitters = { {shape = tide.Shape, velocity = {..} [, per_cell = S.per_cell]
--                 [, start = 0] [, stop = math.huge]}, ... }   (active for start <= t < stop [s])
--   sinks = { tide.Shape, ... } particles entering these shapes are deleted
-- S.emitted and S.removed count the particles added by the emitters and
-- deleted at open sides and sinks (net of the emitters' own replacement).
function flip.boundaries(S, opts)
  local g = S.grid
  local open = opts.open
  if type(open) == "string" then open = { open } end
  if open ~= nil then
    if type(open) ~= "table" then raise("tide.flip.new: open must be a list of sides like {\"x+\", \"y+\"}") end
    for k, side in pairs(open) do
      if type(k) ~= "number" or not SIDES[side] or SIDES[side] > g.dim then
        raise(string.format("tide.flip.new: open: unknown side %s (sides: x-, x+, y-, y+%s)", tostring(side),
          g.dim == 3 and ", z-, z+" or ""))
      end
    end
    if #open == 0 then open = nil end
  end
  S.open = open
  S.emitted, S.removed = 0, 0
  S.emitters = nil
  if opts.emitters ~= nil then
    if type(opts.emitters) ~= "table" then raise("tide.flip.new: emitters must be a list of {shape =, velocity =}") end
    S.emitters = {}
    for i, e in ipairs(opts.emitters) do
      if type(e) ~= "table" then raise("tide.flip.new: emitters[" .. i .. "] must be a table {shape =, velocity =}") end
      for k in pairs(e) do
        if k ~= "shape" and k ~= "velocity" and k ~= "per_cell" and k ~= "start" and k ~= "stop" then
          raise(string.format("tide.flip.new: emitters[%d]: unknown option '%s' (accepted: shape, velocity, per_cell, start, stop)", i, tostring(k)))
        end
      end
      local ok, region = pcall(liquid.region, g, e.shape, { solid = S.solid })
      if not ok then raise("tide.flip.new: emitters[" .. i .. "].shape: " .. tostring(region)) end
      if region:max() == 0 then
        raise("tide.flip.new: emitters[" .. i .. "].shape covers no (non-solid) cell centre of the grid, so it would never emit")
      end
      if type(e.velocity) ~= "table" or #e.velocity ~= g.dim then
        raise(string.format("tide.flip.new: emitters[%d].velocity must be a list of %d numbers", i, g.dim))
      end
      local pc = e.per_cell or S.per_cell
      if math.type(pc) ~= "integer" and not (type(pc) == "number" and pc == math.floor(pc)) then
        raise("tide.flip.new: emitters[" .. i .. "].per_cell must be an integer")
      end
      local start, stop = e.start or 0, e.stop or math.huge
      if type(start) ~= "number" or type(stop) ~= "number" or start ~= start or stop ~= stop or not (start < stop) then
        raise("tide.flip.new: emitters[" .. i .. "]: start and stop must be numbers with start < stop")
      end
      S.emitters[i] = { region = region, velocity = e.velocity, per_cell = math.tointeger(pc), start = start, stop = stop }
    end
    if #S.emitters == 0 then S.emitters = nil else S.fixed = g:mac("u8") end
  end
  S.sink = nil
  if opts.sinks ~= nil then
    if type(opts.sinks) ~= "table" then raise("tide.flip.new: sinks must be a list of tide.Shape") end
    local union
    for i, shape in ipairs(opts.sinks) do
      local ok, err = pcall(liquid.region, g, shape)
      if not ok then raise("tide.flip.new: sinks[" .. i .. "]: " .. tostring(err)) end
      if err:max() == 0 then raise("tide.flip.new: sinks[" .. i .. "] covers no cell centre of the grid, so it would remove nothing") end
      union = union and union + shape or shape
    end
    if union then S.sink = liquid.region(g, union) end
  end
end

--- Emitters: replace the particles of every emitter region by fresh ones at
-- its velocity (S.emitted counts the net gain).
function flip.emit(S)
  if not S.emitters then return end
  for i, e in ipairs(S.emitters) do
    if S.t < e.start or S.t >= e.stop then goto next end
    local added, removed = time("emit", liquid.emit, S.particles, S.grid, { region = e.region,
      velocity = e.velocity, per_cell = e.per_cell, stream = (S.steps + 1) * 64 + i })
    S.emitted = S.emitted + added - removed
    ::next::
  end
end

--- Prescribe the emitters' velocities on the faces of their cells (S.fixed
-- marks them for the projection).
function flip.inflow(S)
  if not S.emitters then return end
  S.fixed:fill(0)
  for _, e in ipairs(S.emitters) do
    if S.t < e.start or S.t >= e.stop then goto next end
    liquid.inflow(S.u, { region = e.region, velocity = e.velocity, fixed = S.fixed })
    ::next::
  end
end

--- Delete the particles in the open layer, outside the domain and in sinks.
function flip.drain(S)
  if not S.open and not S.sink then return end
  S.removed = S.removed + time("remove", liquid.remove, S.particles, S.grid, { open = S.open, region = S.sink })
end

--- Particle velocities onto the grid, extended into the air around them.
function flip.transfer_to_grid(S)
  if S.P then
    time("p2g", S.P.p2g, S.P, S.particles, S.u, { scheme = S.scheme, weights = S.valid })
    time("extrapolate", S.P.extrapolate, S.P, S.u, S.valid, S.layers, true)
    S.P:enforce_walls(S.u)
    return
  end
  time("p2g", liquid.p2g, S.particles, S.u, { scheme = S.scheme, weights = S.valid })
  time("extrapolate", S.u.extrapolate, S.u, S.valid, S.layers, true)
  S.u:enforce_walls(S.solid, true, S.fractions, S.open)
end

--- Largest stable step: cfl cells per step at the fastest particle or face
-- speed, plus sqrt(5 dx |g|) for gravity (Bridson 2015, Eq. 3.2).
function flip.max_dt(S)
  local vmax = math.max(S.particles:max_speed() * math.sqrt(S.grid.dim), S.u:max_speed())
  local gmag = 0
  for _, gc in ipairs(S.gravity) do gmag = gmag + gc * gc end
  for _, e in ipairs(S.emitters or {}) do
    if S.t < e.stop then
      for _, c in ipairs(e.velocity) do vmax = math.max(vmax, math.abs(c) * math.sqrt(S.grid.dim)) end
    end
  end
  local speed = vmax + math.sqrt(5 * S.grid.dx * math.sqrt(gmag))
  local dt = S.cfl * S.grid.dx / math.max(speed, 1e-12)
  if S.sigma > 0 then dt = math.min(dt, S.capillary * liquid.capillary_dt(S.grid.dx, S.sigma, S.rho)) end
  return dt
end

--- Step 5: extend the projected velocity into the air; walls stay closed.
-- With a tracked surface along its normals, linearly with the ghost-fluid
-- jump (Aslam 2004: the surface then moves at the liquid's speed there, not
-- at the last liquid face's), constant with Liu's band (as tide.drop);
-- otherwise S.layers sweeps of neighbour averages.  (tide.zarifi's line 8.)
function flip.extend(S)
  local u = S.u
  local tracked = S.tension and S.tension.level_set == "tracked"
  local linear = tracked and S.tension.method == "ghost"
  if S.P then
    if tracked then
      time("extrapolate", S.P.extend, S.P, u, S.phi, S.valid, { linear = linear })
    else
      time("extrapolate", S.P.extrapolate, S.P, u, S.valid, S.layers, true)
    end
    S.P:enforce_walls(u)
  else
    if linear then
      time("extrapolate", liquid.extend, u, S.phi, S.valid)
    elseif tracked then
      time("extrapolate", tide.grid.extrapolate, { phi = S.phi, field = u, valid = S.valid })
    else
      time("extrapolate", u.extrapolate, u, S.valid, S.layers, true)
    end
    u:enforce_walls(S.solid, true, S.fractions, S.open)
  end
end

--- Advance the state by dt.  Returns the projection statistics
-- { iterations, residual, unknowns, div_before, div_after }.
function flip.step(S, dt)
  local ps, u = S.particles, S.u
  -- 0. emitters: fresh particles at their velocity
  flip.emit(S)
  -- 1. particle velocities to the grid, extrapolated; keep a copy for FLIP
  flip.transfer_to_grid(S)
  S.u_old:copy(u)
  -- 2. which cells hold liquid
  time("label", liquid.label, ps, S.grid, { solid = S.solid, solid_phi = S.solid_phi, out = S.labels, open = S.open })
  if S.level_set then
    -- narrow band: beyond kernel + dx from every particle only the sign matters
    time("level set", ps.level_set, ps, S.grid, { method = S.level_set, radius = S.radius,
      reach = 2 * S.radius + S.grid.dx, out = S.phi })
    if S.open then liquid.open_phi(S.grid, S.phi, S.open) end
  end
  if S.tension then flip.tension_surface(S) end
  -- 3. body forces; emitter faces prescribed; surface tension
  u:add_gravity(dt, S.gravity)
  flip.inflow(S)
  if S.tension then flip.tension(S, dt) end
  -- 4. pressure projection: free surface (p = 0 in air) and solid walls
  local stats
  if S.P then
    stats = time("project", S.P.project, S.P, u, { dt = dt, rho = S.rho, labels = S.labels, phi = S.phi, tol = S.tol,
      maxit = S.maxit, valid = S.valid, pressure = S.pressure })
  else
    stats = time("project", liquid.project, u, S.labels, { dt = dt, rho = S.rho, tol = S.tol,
      maxit = S.maxit, method = S.method, projector = S.projector, fractions = S.fractions, phi = S.phi,
      solid_velocity = S.solid_velocity, valid = S.valid, pressure = S.pressure, fixed = S.fixed })
  end
  -- 5. extend the divergence-free velocity into the air; walls stay closed
  flip.extend(S)
  local tracked = S.tension and S.tension.level_set == "tracked"
  -- 5b. the tracked surface moves with the same velocity as the particles
  if tracked then flip.tension_advance(S, dt) end
  -- 6. grid velocities back to the particles (PIC / FLIP blend / APIC), and
  -- 7. the particles moved through the divergence-free grid velocity: one
  -- pass (advect = dt; the same as liquid.g2p then ps:advect(u, dt, ...))
  if S.P then
    time("g2p", S.P.g2p, S.P, u, ps, { scheme = S.scheme, old = S.u_old, flip = S.flip })
    time("advect", S.P.advect_particles, S.P, ps, u, dt, { order = S.order })
  else
    time("g2p+advect", liquid.g2p, u, ps, { scheme = S.scheme, old = S.u_old, flip = S.flip,
      advect = dt, order = S.order, labels = S.solid, solid_phi = S.solid_phi })
  end
  -- 8. spread particles out of over-full cells (positions only)
  if S.separation > 0 then flip.separate(S, dt) end
  -- 8b. particles that left through an open side or entered a sink are gone
  -- (after the last move: the density correction can push particles into the
  -- open layer or a sink too)
  flip.drain(S)
  -- 9. keep the particles per bulk cell between reseed.min and reseed.max
  if S.reseed then
    time("label", liquid.label, ps, S.grid, { solid = S.solid, solid_phi = S.solid_phi, out = S.labels, open = S.open })
    time("reseed", ps.reseed, ps, u, S.labels, { min = S.reseed.min, max = S.reseed.max, stream = S.steps + 1 })
  end
  S.t, S.steps = S.t + dt, S.steps + 1
  return stats
end

--- Density correction.  FLIP particles slowly crowd together (the mean
-- particle density of the liquid interior grows, its volume shrinks).
-- Project a zero velocity field to the divergence
--   d = separation/dt * shrink(density/per_cell - 1, band)
-- on the interior liquid cells (a dead band of +-band around the rest
-- density) and move the particles -- not their velocities -- along it for
-- dt: crowded cells expand, sparse ones gather, no momentum is added
-- (Kugelstadt et al. 2019 with the tent-kernel particle density).
-- S.mean_density is the interior density over the rest density; the liquid
-- volume is #particles * dx^dim / (per_cell * mean_density).
function flip.separate(S, dt)
  local ps = S.particles
  time("label", liquid.label, ps, S.grid, { solid = S.solid, solid_phi = S.solid_phi, out = S.labels, open = S.open })
  time("density", ps.density, ps, S.grid, S.density)
  local _, mean_density = liquid.density_target { rho = S.density, labels = S.labels,
    fractions = S.fractions, per_cell = S.per_cell, band = S.band, rate = S.separation / dt, mean = S.mean, cut = S.separate_cut,
    solid_phi = S.separate_cut == "kernel" and S.solid_phi or nil, out = S.target }
  S.mean_density = mean_density
  if S.target:max() == 0 and S.target:min() == 0 then return end -- nothing to correct
  S.u_sep:fill(0)
  time("separate", liquid.project, S.u_sep, S.labels, { dt = dt, rho = S.rho, tol = 1e-3,
    method = S.method, projector = S.projector, fractions = S.fractions, target = S.target, valid = S.valid_sep,
    fixed = S.fixed }) -- emitter faces stay closed (0): nothing is pushed into an emitter
  S.u_sep:extrapolate(S.valid_sep, 1, true)
  S.u_sep:enforce_walls(S.solid, false, S.fractions, S.open)
  time("advect", ps.advect, ps, S.u_sep, dt, { order = 1, labels = S.solid, solid_phi = S.solid_phi })
end

return flip
