--- tide.drop: a grid-only level-set liquid step with surface tension and
-- viscosity (drops, jets, capillary waves), written as a recipe.
--
--   local drop = require "tide.drop"
--   local S = drop.new{ grid = g, phi = phi, rho = 1000, sigma = 0.07 }
--   for i = 1, n do drop.step(S, drop.max_dt(S)) end
--
-- The liquid is the region phi < 0 of a level set carried on the grid; the
-- velocity lives on the MAC grid and is extended into the air after every
-- projection.  One step (every line one native operator):
--   1. advect phi (MacCormack, monotone cubic; Selle et al. 2008); in 3D
--      (or with `redistance = n`) redistance it (second-order fast marching)
--   2. restore each component's volume (Liu et al. 2024, Sec. 4.2.2)
--   3. advect the velocity (semi-Lagrangian RK2, Zarifi Eq. 4.29-4.30, by
--      default; `advect_u = "maccormack" | "bfecc"` for the corrected schemes)
--   4. gravity; labels from phi
--   5. viscosity: variational with a traction-free surface (Batty & Bridson 2008)
--   6. surface tension: ghost-fluid jump sigma kappa (default; kappa from the
--      cell curvatures at the interface crossings, or by height functions) or
--      Liu Eq. 8
--   7. ghost-fluid projection (tide.liquid.project with phi; both 6 and 7 clamp the
--      fractions theta at theta_min = 1e-3 with the ghost jump)
--   8. extend the velocity along the normals (constant, or linear with the
--      height-function curvature: tide.liquid.extend; with the cell curvature
--      and surface tension u constant and, in 2D, a linearly extended copy for step 1)
-- With `periodic = {true, false}` the same steps run on the torus: the
-- advections, the projection (with the same ghost-fluid surface), the
-- extension and the redistancing of a tide.liquid.periodic workspace (S.P).
-- Redistancing (default: never with the cell curvature, which reads the
-- redistance's moves of the surface and keeps a drop at rest ringing, 2D and
-- 3D; with the height functions every step in 3D, every 10 steps in 2D):
-- without it the height functions' level set degrades near the surface (3D: |grad phi| 0.2-3 within 3 cells
-- after 2 periods, blow-up after 2.6-2.9 periods; 2D with heights: the n = 2
-- drop blows up after about 3 periods at 32 cells per diameter, 1.5 at 64); with
-- the cell curvature a 2D drop at rest is quieter without it
-- (docs/liquids-physics.md, docs/levelsets.md).

local raise = require("tide.core")._raise -- errors at the scene's line
local tide = require "tide"
local liquid, grid = tide.liquid, tide.grid
local time = tide.time

local drop = {}

-- the 3D default of tension_ahead (below)
drop.TENSION_AHEAD_3D = 0.1

local defaults = {
  rho = 1000,              -- density [kg/m^3]
  sigma = 0,               -- surface tension [N/m]
  nu = 0,                  -- kinematic viscosity [m^2/s]
  tension = "ghost",       -- "ghost" (pressure jump) or "liu" (semi-implicit band, Eq. 8)
  curvature = false,       -- "cells" (fourth-order cell curvature moved to the surface, interpolated to the
                           -- crossing: the default, a drop at rest stays at rest to ~1.5e-4 sqrt(sigma/(rho D)) over
                           -- 10 capillary times with the constant extension; with the default extend = "linear_phi"
                           -- the capillary wave is -0.36% at 32 cells per wavelength (constant: -2.5%), the n = 2
                           -- drop -0.14% / +0.67% along x / diagonal (constant: +2.4% / +2.9%)) or "heights"
                           -- (height functions at the crossings: accurate
                           -- oscillation frequencies and contact angles, but spurious currents grow around a
                           -- drop at rest at 25 cells per diameter; the default where contact_angle ~= 90:
                           -- docs/liquids-physics.md, "The default")
  side = "liquid",         -- Liu's band: "liquid" (one-sided) or "both" (as in the paper)
  cfl = 1,                 -- advective CFL number of max_dt
  capillary = 0.5,         -- fraction of the explicit capillary step sqrt(rho dx^3 / (2 pi sigma))
  advect = "maccormack",   -- level-set advection: "sl", "maccormack", "bfecc"
  advect_u = "sl",         -- velocity self-advection: "sl", "maccormack", "bfecc"
  volume = true,           -- volume correction every step
  redistance = false,      -- redistance phi every n steps (0: never; default 0 with curvature "cells";
                           -- with "heights" 1 in 3D, 10 in 2D)
  redistance_options = false, -- options of that tide.grid.redistance, e.g. { closest = 4 } (docs/liquids-physics.md,
                           -- "3D drop at rest"); false: its defaults
  tol = 1e-10,             -- pressure solve (relative residual; 1e-8 left divergence 9e-5 1/s in the cells with
                           -- theta < 0.01 once theta_min is 1e-3: their rows dominate the norm of the right-hand side)
  theta_min = false,       -- clamp of the ghost-fluid fractions theta (jump and projection); default 1e-3 with
                           -- tension "ghost" (the operators' 0.01 let a 3D drop at rest grow tangential currents
                           -- at the faces of cells within 0.01 dx of the surface: docs/liquids-physics.md,
                           -- "The theta clamp"; a later exponential growth from t ~ 1.75 is not the clamp's), 0.01
                           -- with "liu"
  contact_angle = 90,      -- static contact angle at the walls and solids [degrees]
  tension_ahead = false,   -- beta: the ghost jump's curvature read from phi moved beta dt further with the current
                           -- velocity (tide.liquid.surface_tension's kappa_phi), a partly implicit surface tension
                           -- that damps a capillary wave of frequency omega by exp(-pi beta omega dt) per period --
                           -- the grid-scale waves (omega dt ~ 0.7) strongly, the drop's modes (omega dt ~ 0.01)
                           -- hardly; default TENSION_AHEAD_3D in 3D with tension "ghost", 0 in 2D and with "liu"
                           -- (docs/liquids-physics.md, "Damping the shortest capillary waves")
  kappa_redistance = false, -- options of tide.grid.redistance (e.g. { closest = 4 }) for a copy of phi that the
                           -- ghost jump reads its curvature from (phi itself, its fractions and labels untouched;
                           -- with tension_ahead the copy moved ahead); false: the curvature of phi.  The cell
                           -- curvature then reads a signed distance with no kink at the surface: the 2D n = 2
                           -- drop's orientations move closer (docs/liquids-physics.md, "The energy budget of the
                           -- jump"); not with periodic axes
  extend = false,          -- velocity into the air: "linear" (Aslam 2004; default with tension "ghost" and
                           -- curvature "heights"), "constant" along the normals (default with tension "liu":
                           -- linear made Liu's drop 2% orientation-dependent; without surface tension; and with
                           -- solid_phi: linear slid a sessile drop on a 35 degree cut-cell floor 5 cells) or
                           -- "linear_phi" (default in 2D with tension "ghost", curvature "cells" and sigma > 0; 3D:
                           -- constant, linear_phi grows the grid-scale capillary waves of a 3D drop at rest): the
                           -- velocity extended constant, the level set moved with a linearly extended copy --
                           -- the capillary wave -0.36% at 32 cells per wavelength (constant -2.5%), a drop at
                           -- rest 2.7e-5 sqrt(sigma/(rho D)) at t = 1, 2e-4 to t = 5, 1.4e-3 by t = 10 ("linear":
                           -- 2.4e-3 at t = 10, "constant": 1.5e-4)
}

local keys = { grid = true, phi = true, solid = true, gravity = true, open = true, solid_phi = true, fractions = true, periodic = true }
for k in pairs(defaults) do keys[k] = true end

local function check_choice(v, list, name)
  for _, c in ipairs(list) do if v == c then return end end
  raise(string.format("tide.drop.new: %s must be one of %s, got %s", name, table.concat(list, ", "), tostring(v)))
end

-- Open (fluid) fraction of every cell cut by the solids of solid_phi (the signed distance at
-- the cell centres, < 0 inside): in 2D the area of the cell on the open side of the plane
-- through the centre value with the normal of grad solid_phi (exact for a straight wall: the
-- box spline of the two cell widths along the normal), in 3D clamp(1/2 + solid_phi / dx, 0, 1).
-- The volume correction and drop.volume count w H(phi), so that the level set's continuation
-- into the solid is not liquid.  out: the cells array to fill (default a new one).  (Also
-- tide.zarifi's, for the tracked surface of its surface tension.)
function drop.open_weights(g, sphi, out)
  local w, dx, n = out or g:cells(), g.dx, g.size
  local function r2(x) return x > 0 and 0.5 * x * x or 0 end
  if g.dim == 3 then
    for i = 1, n[1] do
      for j = 1, n[2] do
        for k = 1, n[3] do w:set(i, j, k, math.max(0, math.min(1, 0.5 + sphi:get(i, j, k) / dx))) end
      end
    end
    return w
  end
  local function at(i, j) return sphi:get(math.max(1, math.min(n[1], i)), math.max(1, math.min(n[2], j))) end
  for i = 1, n[1] do
    for j = 1, n[2] do
      local s = sphi:get(i, j) / dx
      local v
      if s >= 0.75 then v = 1 elseif s <= -0.75 then v = 0 else
        local gx = (at(i + 1, j) - at(i - 1, j)) / ((math.min(n[1], i + 1) - math.max(1, i - 1)) * dx)
        local gy = (at(i, j + 1) - at(i, j - 1)) / ((math.min(n[2], j + 1) - math.max(1, j - 1)) * dx)
        local gl = math.sqrt(gx * gx + gy * gy)
        local a, b = gl > 0 and math.abs(gx) / gl or 1, gl > 0 and math.abs(gy) / gl or 0
        if a * b < 1e-6 then v = 0.5 + s
        else
          local c1, c2 = 0.5 * (a + b), 0.5 * (a - b)
          v = (r2(s + c1) - r2(s + c2) - r2(s - c2) + r2(s - c1)) / (a * b)
        end
        v = math.max(0, math.min(1, v))
      end
      w:set(i, j, v)
    end
  end
  return w
end

--- Build the state.  opts: grid (tide.Grid), phi (f64 cells, < 0 in the
-- liquid; copied), solid (u8 cell labels with 2 = solid, optional), solid_phi
-- (f64 cells, the solids' signed distance, < 0 inside) with fractions (f64 Mac,
-- open face fractions: g:face_fractions) for cut-cell walls, gravity
-- ({gx, gy[, gz]}, default none), and the defaults above.
function drop.new(opts)
  if type(opts) ~= "table" then raise("tide.drop.new: table of named arguments expected") end
  for k in pairs(opts) do
    if not keys[k] then raise(string.format("tide.drop.new: unknown option '%s'", tostring(k))) end
  end
  local g, phi = opts.grid, opts.phi
  if not g or not phi then raise("tide.drop.new: 'grid' and 'phi' are required") end
  local S = {}
  for k, v in pairs(defaults) do S[k] = opts[k] == nil and v or opts[k] end
  -- open = {"x+", ...}: open domain sides (docs/liquids.md); the liquid that
  -- leaves is gone, so the volume correction is off unless asked for
  if opts.open ~= nil then
    S.open = type(opts.open) == "string" and { opts.open } or opts.open
    local ok, err = pcall(liquid.open_cells, g, g:cells("u8"), S.open)
    if not ok then raise("tide.drop.new: " .. tostring(err)) end
    if opts.volume then raise("tide.drop.new: the volume correction would restore the liquid that leaves through the open sides") end
    S.volume = false
  end
  if type(S.contact_angle) ~= "number" or not (S.contact_angle > 0 and S.contact_angle < 180) then
    raise("tide.drop.new: contact_angle must be in (0, 180) degrees")
  end
  for _, k in ipairs { "rho", "sigma", "nu", "cfl", "capillary", "tol", "redistance" } do
    local v = S[k]
    if k == "redistance" and not v then v = 0 end -- the default depends on the curvature (below)
    if type(v) ~= "number" or v ~= v or v < 0 or v == math.huge then
      raise(string.format("tide.drop.new: %s must be a finite number >= 0", k))
    end
  end
  if not (S.rho > 0 and S.cfl > 0 and S.capillary > 0) then raise("tide.drop.new: rho, cfl and capillary must be positive") end
  check_choice(S.tension, { "ghost", "liu" }, "tension")
  -- the ghost-fluid fraction clamp: 0.01 (the operators' default) clamps the faces of the cells
  -- within 0.01 dx of the surface, and the 3D drop at rest grows tangential currents there (6.6e-4
  -- sqrt(sigma/(rho D)) at t = 1, 1.2e-3 at 1.75 at 25 cells per diameter); 1e-3: 1.1e-4 and 1.0e-4
  if not S.theta_min then S.theta_min = S.tension == "ghost" and 1e-3 or 0.01 end
  if type(S.theta_min) ~= "number" or not (S.theta_min >= 1e-6 and S.theta_min <= 1) then
    raise("tide.drop.new: theta_min must be a number in [1e-6, 1]")
  end
  -- the cell curvature reads the contact angle only through first-order ghost
  -- cells (a 60 degree sessile drop stops 2.8 cells high, area -6%): heights there
  if not S.curvature then S.curvature = S.contact_angle ~= 90 and "heights" or "cells" end
  check_choice(S.curvature, { "heights", "cells" }, "curvature")
  -- redistancing with the height functions: every step in 3D, every 10 steps
  -- in 2D (without it the level set steepens at the surface, |grad phi| ~ 3
  -- across the crossing faces, and the n = 2 drop blows up after about 3 periods at
  -- 32 cells per diameter, 1.5 at 64); never with the cell curvature, 2D or 3D (it
  -- keeps a drop at rest ringing: 3D 9.5e-2 vs 6.6e-4 without; docs/liquids-physics.md,
  -- "The default", "3D drop at rest")
  if not S.redistance then S.redistance = S.curvature == "heights" and (g.dim == 3 and 1 or 10) or 0 end
  if S.redistance_options and type(S.redistance_options) ~= "table" then
    raise("tide.drop.new: redistance_options must be a table of tide.grid.redistance options")
  end
  check_choice(S.side, { "liquid", "both" }, "side")
  check_choice(S.advect, { "sl", "maccormack", "bfecc" }, "advect")
  check_choice(S.advect_u, { "sl", "maccormack", "bfecc" }, "advect_u")
  -- the velocity into the air: with the ghost jump linear for the height
  -- functions; with the cell curvature and surface tension "linear_phi" (u
  -- extended constant, phi moved with a linearly extended copy: the capillary
  -- wave -0.36% at 32 cells per wavelength where constant is -2.5%, and a drop
  -- at rest stays below 1e-3 sqrt(sigma/(rho D)) to t = 9 where "linear" grows
  -- after t = 5: docs/liquids-physics.md, "The default")
  if not S.extend then
    if S.tension ~= "ghost" then S.extend = "constant"
    -- cut-cell solids (solid_phi): constant.  The linear extension carries the normal derivative
    -- of the faces beside the cut wall into the air wedge of a contact line; on a floor at 35
    -- degrees it pointed the velocity there into the wall (v -0.09 m/s above the cell whose centre
    -- is 0.05 dx off the wall, +0.10 constant), the upper contact line stayed put and a 60 degree
    -- drop slid 5.2 cells (constant: 0.08; docs/liquids-physics.md, "Cut-cell walls")
    elseif opts.solid_phi then S.extend = "constant"
    elseif S.curvature == "heights" then S.extend = "linear"
    -- in 3D constant: "linear_phi" pumps the grid-scale capillary waves (l ~ 30 on the 25-cells-
    -- per-diameter rest drop, +6% per period: x3 per 0.25 capillary times after t ~ 1.75; from the
    -- same state at t = 2 "constant" decays, 4.2e-4 at 2.25 against 6.0e-4: docs/liquids-physics.md,
    -- "What grows after t ~ 1.75")
    else S.extend = (S.sigma > 0 and g.dim == 2) and "linear_phi" or "constant" end
  end
  check_choice(S.extend, { "linear", "constant", "linear_phi" }, "extend")
  if not S.tension_ahead then S.tension_ahead = (S.tension == "ghost" and g.dim == 3) and drop.TENSION_AHEAD_3D or 0 end
  if type(S.tension_ahead) ~= "number" or not (S.tension_ahead >= 0 and S.tension_ahead <= 1) then
    raise("tide.drop.new: tension_ahead must be a number in [0, 1]")
  end
  if S.tension_ahead > 0 and S.tension ~= "ghost" then raise("tide.drop.new: tension_ahead belongs to tension \"ghost\"") end
  if S.kappa_redistance then
    if type(S.kappa_redistance) ~= "table" then raise("tide.drop.new: kappa_redistance must be a table of tide.grid.redistance options or false") end
    if S.tension ~= "ghost" then raise("tide.drop.new: kappa_redistance belongs to tension \"ghost\"") end
    if opts.periodic then raise("tide.drop.new: kappa_redistance is not available with periodic axes") end
  end
  S.grid, S.solid, S.gravity = g, opts.solid, opts.gravity
  -- periodic = {true, false[, ..]}: periodic axes (the others are walls); every
  -- grid operator of the step then runs on the torus (tide.liquid.periodic)
  if opts.periodic ~= nil then
    if S.open then error("tide.drop.new: open sides and periodic axes exclude each other", 2) end
    local ok, P = pcall(liquid.periodic, { grid = g, periodic = opts.periodic })
    if not ok then error("tide.drop.new: periodic: " .. tostring(P), 2) end
    S.periodic, S.P = P.periodic, P
  end
  -- solid_phi: the solids' signed distance on the cells (< 0 inside; curved
  -- walls): phi is continued into them by the contact angle before every
  -- advection and for the curvature, and the volume counts only their open part
  S.solid_phi = opts.solid_phi
  -- fractions: the open face fractions of cut-cell solids (g:face_fractions), the projection's
  -- face weights and the faces the walls close
  S.fractions = opts.fractions
  if S.fractions and S.P then raise("tide.drop.new: fractions (cut cells) are not available with periodic axes") end
  S.phi = g:cells()
  S.phi:copy(phi) -- checks the shape
  S.phi2 = g:cells()
  S.u, S.u2 = g:mac(), g:mac()
  S.valid = g:mac("u8")
  S.labels = liquid.label_phi(g, S.phi, { solid = S.solid, open = S.open })
  S.pressure = g:cells()
  S.advect_opts = S.P and { scheme = S.advect_u, out = S.u2 } or { scheme = S.advect_u, out = S.u2, work = grid.advect_work() }
  S.solver = liquid.viscosity_solver() -- matrices kept between steps (viscosity, Liu's band)
  -- the open fraction of the cells cut by solid_phi: the volume counts only the liquid outside the solids
  if S.solid_phi then S.weights = drop.open_weights(g, S.solid_phi) end
  if S.volume then S.tracker = grid.volume_tracker { grid = g, phi = S.phi, redistance = false, weights = S.weights } end
  S.t, S.steps = 0, 0
  return S
end

--- Largest stable step: cfl cells per step at the fastest face, and the
-- capillary limit times `capillary` (ghost method; Liu's semi-implicit band
-- relaxes it, the same bound is kept for accuracy).
function drop.max_dt(S)
  local dx = S.grid.dx
  local dt = S.cfl * dx / math.max(S.u:max_speed(), 1e-12)
  if S.sigma > 0 then dt = math.min(dt, S.capillary * liquid.capillary_dt(dx, S.sigma, S.rho)) end
  if S.gravity then
    local gm = 0
    for _, c in ipairs(S.gravity) do gm = gm + c * c end
    if gm > 0 then dt = math.min(dt, S.cfl * math.sqrt(dx / math.sqrt(gm))) end
  end
  return dt
end

--- Advance by dt; returns the projection statistics.
-- field extended from its valid faces into the air along the normals of S.phi (linearly: Aslam,
-- tide.liquid.extend; else constant), then the walls closed
local function extend_into_air(S, field, valid, linear)
  local P = S.P
  if P then
    time("extrapolate", P.extend, P, field, S.phi, valid, { linear = linear })
    P:enforce_walls(field, S.solid)
    return
  end
  if linear then
    time("extrapolate", liquid.extend, field, S.phi, valid)
  else
    time("extrapolate", grid.extrapolate, { phi = S.phi, field = field, valid = valid })
  end
  field:enforce_walls(S.solid, false, S.fractions, S.open)
end

function drop.step(S, dt)
  local g, u, P = S.grid, S.u, S.P
  -- 1-2. move the surface, keep the volume
  local us = S.us or u -- extend = "linear_phi": the linearly extended copy of step 8
  -- solid_phi: phi continued into the solids by the contact angle (the mirror point's value,
  -- tide.liquid.contact_extend) before it moves, so that the advection's stencils at the wall
  -- read the contact angle, not the level set the solid cells were left with (a 60 degree drop on a
  -- floor cut at 25 degrees otherwise stops 1 cell too high with the liquid in the solid growing)
  if S.solid_phi then
    S.phi2 = time("contact extend", liquid.contact_extend, g, S.phi, { solid_phi = S.solid_phi,
      contact_angle = S.contact_angle, periodic = S.periodic, out = S.phi2 })
    S.phi, S.phi2 = S.phi2, S.phi
  end
  if P then
    time("advect phi", P.advect_cells, P, us, S.phi, dt, { scheme = S.advect, interp = "cubic", out = S.phi2 })
  else
    time("advect phi", grid.advect_scalar, { grid = g, velocity = us, field = S.phi, dt = dt, scheme = S.advect,
      interp = "cubic", out = S.phi2 })
  end
  S.phi, S.phi2 = S.phi2, S.phi
  if S.phi:nonfinite() > 0 then
    raise(string.format("tide.drop.step: the level set is not finite at t = %g s (step %d): the run blew up", S.t, S.steps + 1))
  end
  if S.open then liquid.open_phi(g, S.phi, S.open) end -- continued linearly out of the domain
  if S.redistance > 0 and (S.steps + 1) % S.redistance == 0 then
    if P then time("redistance", P.redistance, P, S.phi)
    else time("redistance", grid.redistance, g, S.phi, S.redistance_options or nil) end
  end
  if S.tracker then time("volume", S.tracker.correct, S.tracker, S.phi) end
  -- 3. velocity self-advection
  S.advect_opts.out = S.u2
  if P then time("advect u", P.advect, P, u, u, dt, S.advect_opts) else time("advect u", u.advect, u, u, dt, S.advect_opts) end
  S.u, S.u2 = S.u2, S.u
  u = S.u
  -- 4. forces and labels
  if S.gravity then u:add_gravity(dt, S.gravity) end
  time("label", liquid.label_phi, g, S.phi, { solid = S.solid, out = S.labels, open = S.open })
  -- 5. viscosity (traction-free surface)
  if S.nu > 0 then
    time("viscosity", liquid.viscosity, u, { nu = S.nu, rho = S.rho, dt = dt, phi = S.phi, labels = S.labels,
      solver = S.solver, periodic = S.periodic })
  end
  -- 6. surface tension
  if S.sigma > 0 then
    if S.tension == "ghost" then
      -- tension_ahead: the curvature of phi moved beta dt ahead with the velocity of this step
      -- (semi-Lagrangian, cubic), the labels and fractions of phi itself
      local kphi
      if S.tension_ahead > 0 then
        S.phi_ahead = S.phi_ahead or g:cells()
        if P then
          time("tension ahead", P.advect_cells, P, u, S.phi, S.tension_ahead * dt, { scheme = "sl", interp = "cubic", out = S.phi_ahead })
        else
          time("tension ahead", grid.advect_scalar, { grid = g, velocity = u, field = S.phi, dt = S.tension_ahead * dt,
            scheme = "sl", interp = "cubic", out = S.phi_ahead })
        end
        kphi = S.phi_ahead
      end
      if S.kappa_redistance then -- the curvature of a redistanced copy (phi itself untouched)
        S.phi_kappa = S.phi_kappa or g:cells()
        S.phi_kappa:copy(kphi or S.phi)
        time("kappa redistance", grid.redistance, g, S.phi_kappa, S.kappa_redistance)
        kphi = S.phi_kappa
      end
      time("surface tension", liquid.surface_tension, u, S.phi, { sigma = S.sigma, rho = S.rho, dt = dt,
        labels = S.labels, curvature = S.curvature, contact_angle = S.contact_angle, solid_phi = S.solid_phi,
        periodic = S.periodic, theta_min = S.theta_min, kappa_phi = kphi })
    else
      time("surface tension", liquid.surface_tension, u, S.phi, { sigma = S.sigma, rho = S.rho, dt = dt,
        labels = S.labels, method = "liu", side = S.side, curvature = S.curvature, solver = S.solver,
        contact_angle = S.contact_angle, solid_phi = S.solid_phi, periodic = S.periodic })
    end
  end
  -- 7. projection with the ghost-fluid free surface (same phi and theta as step 6)
  local stats
  if P then
    stats = time("project", P.project, P, u, { dt = dt, rho = S.rho, labels = S.labels, phi = S.phi, tol = S.tol,
      valid = S.valid, pressure = S.pressure, theta_min = S.theta_min })
  else
    stats = time("project", liquid.project, u, S.labels, { dt = dt, rho = S.rho, phi = S.phi, tol = S.tol,
      valid = S.valid, pressure = S.pressure, theta_min = S.theta_min, fractions = S.fractions })
  end
  -- 8. extend the velocity into the air along the normals; walls closed.
  -- "linear_phi": a linearly extended copy moves phi (step 1), u itself is
  -- extended constant (the linear extension of u rings a drop at rest up)
  if S.extend == "linear_phi" then
    S.us = S.us or g:mac()
    S.valid_s = S.valid_s or g:mac("u8")
    S.us:copy(u)
    S.valid_s:copy(S.valid)
    extend_into_air(S, S.us, S.valid_s, true)
  end
  extend_into_air(S, u, S.valid, S.extend == "linear")
  local vmax = u:max_speed()
  if vmax ~= vmax or vmax == math.huge then
    raise(string.format("tide.drop.step: the velocity is not finite at t = %g s (step %d): the run blew up", S.t, S.steps + 1))
  end
  S.t, S.steps = S.t + dt, S.steps + 1
  return stats
end

--- Level set of a perturbed disk (2D): phi = |x - c| - R (1 + eps cos(mode
-- (theta - angle))), theta the polar angle around c, angle in radians.  Close
-- to a signed distance for small eps and smooth (no redistancing: see above).
function drop.disk(opts)
  if type(opts) ~= "table" then raise("tide.drop.disk: table of named arguments expected") end
  local known = { grid = true, center = true, radius = true, eps = true, mode = true, angle = true }
  for k in pairs(opts) do
    if not known[k] then raise(string.format("tide.drop.disk: unknown option '%s'", tostring(k))) end
  end
  local g, c, R = opts.grid, opts.center, opts.radius
  if not g or type(c) ~= "table" or type(R) ~= "number" or not (R > 0) then
    raise("tide.drop.disk: grid, center = {x, y} and radius > 0 are required")
  end
  if g.dim ~= 2 then raise("tide.drop.disk: a 2D grid is required") end
  local eps, m, a = opts.eps or 0, opts.mode or 2, opts.angle or 0
  local dx, o, n = g.dx, g.origin, g.size
  local phi = g:cells()
  for i = 1, n[1] do
    for j = 1, n[2] do
      local x, y = o[1] + (i - 0.5) * dx - c[1], o[2] + (j - 0.5) * dx - c[2]
      phi:set(i, j, math.sqrt(x * x + y * y) - R * (1 + eps * math.cos(m * (math.atan(y, x) - a))))
    end
  end
  return phi
end

--- Level set of a perturbed ball (3D): phi = |x - c| - R (1 + eps P_mode(cos t)),
-- t the angle between x - c and the unit axis (default z), P_n the Legendre
-- polynomial (the axisymmetric Rayleigh-Lamb mode n).  Smooth, close to a
-- signed distance for small eps.
function drop.sphere(opts)
  if type(opts) ~= "table" then raise("tide.drop.sphere: table of named arguments expected") end
  local known = { grid = true, center = true, radius = true, eps = true, mode = true, axis = true }
  for k in pairs(opts) do
    if not known[k] then raise(string.format("tide.drop.sphere: unknown option '%s'", tostring(k))) end
  end
  local g, c, R = opts.grid, opts.center, opts.radius
  if not g or type(c) ~= "table" or type(R) ~= "number" or not (R > 0) then
    raise("tide.drop.sphere: grid, center = {x, y, z} and radius > 0 are required")
  end
  if g.dim ~= 3 then raise("tide.drop.sphere: a 3D grid is required") end
  local eps, m = opts.eps or 0, opts.mode or 2
  if type(eps) ~= "number" or eps ~= eps or math.abs(eps) >= 1 then raise("tide.drop.sphere: eps must be in (-1, 1)") end
  if math.type(m) ~= "integer" or m < 0 then raise("tide.drop.sphere: mode must be an integer >= 0") end
  local a = opts.axis or { 0, 0, 1 }
  local al = type(a) == "table" and math.sqrt((a[1] or 0) ^ 2 + (a[2] or 0) ^ 2 + (a[3] or 0) ^ 2) or 0
  if not (al > 0 and al < math.huge) then raise("tide.drop.sphere: axis must be a nonzero {x, y, z}") end
  local ax, ay, az = a[1] / al, a[2] / al, a[3] / al
  local dx, o, n = g.dx, g.origin, g.size
  local phi = g:cells()
  for i = 1, n[1] do
    local x = o[1] + (i - 0.5) * dx - c[1]
    for j = 1, n[2] do
      local y = o[2] + (j - 0.5) * dx - c[2]
      for k = 1, n[3] do
        local z = o[3] + (k - 0.5) * dx - c[3]
        local r = math.sqrt(x * x + y * y + z * z)
        local mu = r > 0 and (x * ax + y * ay + z * az) / r or 0
        -- P_m(mu) by the three-term recurrence
        local p0, p1 = 1, mu
        if m == 0 then p1 = 1 end
        for l = 1, m - 1 do p0, p1 = p1, ((2 * l + 1) * mu * p1 - l * p0) / (l + 1) end
        phi:set(i, j, k, r - R * (1 + eps * p1))
      end
    end
  end
  return phi
end

--- Liquid volume [m^dim] (smoothed Heaviside, as the volume correction).
function drop.volume(S) return grid.volume(S.grid, S.phi, S.weights and { weights = S.weights } or nil) end

--- Second moments of the liquid about the point c (the centre, given) with
-- the cell liquid fractions clamp(1/2 - phi/dx, 0, 1).  2D: returns Ixx - Iyy
-- and 2 Ixy [m^4]; for a drop r = R (1 + a cos 2(theta - theta0)) these are
-- pi R^4 a / 2 (cos, sin 2 theta0).  3D: returns the P2 moment along the unit
-- axis (default z), int r^2 P2(cos t) dV = int (3 (x.axis)^2 - |x|^2) / 2 dV
-- [m^5]; for a ball r = R (1 + a P2(cos t)) it is 4 pi R^5 a / 5.
function drop.quadrupole(S, c, axis)
  local g, phi = S.grid, S.phi
  if type(c) ~= "table" or type(c[1]) ~= "number" or type(c[2]) ~= "number" or (g.dim == 3 and type(c[3]) ~= "number") then
    raise("tide.drop.quadrupole: centre {x, y[, z]} expected")
  end
  local dx = g.dx
  if g.dim == 3 then
    local a = axis or { 0, 0, 1 }
    local al = type(a) == "table" and math.sqrt((a[1] or 0) ^ 2 + (a[2] or 0) ^ 2 + (a[3] or 0) ^ 2) or 0
    if not (al > 0 and al < math.huge) then raise("tide.drop.quadrupole: axis must be a nonzero {x, y, z}") end
    local ax, ay, az = a[1] / al, a[2] / al, a[3] / al
    local n, o, q = g.size, g.origin, 0
    for i = 1, n[1] do
      local x = o[1] + (i - 0.5) * dx - c[1]
      for j = 1, n[2] do
        local y = o[2] + (j - 0.5) * dx - c[2]
        for k = 1, n[3] do
          local f = 0.5 - phi:get(i, j, k) / dx
          if f > 0 then
            if f > 1 then f = 1 end
            local z = o[3] + (k - 0.5) * dx - c[3]
            local p = x * ax + y * ay + z * az
            q = q + f * (1.5 * p * p - 0.5 * (x * x + y * y + z * z))
          end
        end
      end
    end
    return q * dx * dx * dx
  end
  if axis ~= nil then raise("tide.drop.quadrupole: axis is for 3D grids") end
  local n1, n2 = phi.shape[1], phi.shape[2]
  local o = g.origin
  local q1, q2 = 0, 0
  for i = 1, n1 do
    local x = o[1] + (i - 0.5) * dx - c[1]
    for j = 1, n2 do
      local y = o[2] + (j - 0.5) * dx - c[2]
      local f = 0.5 - phi:get(i, j) / dx
      if f > 1 then f = 1 elseif f < 0 then f = 0 end
      q1, q2 = q1 + f * (x * x - y * y), q2 + f * 2 * x * y
    end
  end
  return q1 * dx * dx, q2 * dx * dx
end

return drop
