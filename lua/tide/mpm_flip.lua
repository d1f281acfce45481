--- tide.mpm_flip: an MPM body in a FLIP liquid, two-way coupled through one
-- momentum grid and one pressure projection (docs/mpm.md, "MPM in a FLIP
-- liquid"; the operator is tide.couple.mpm_project, modules/couple/mpm_flip.h).
--
--   local mf = require "tide.mpm_flip"
--   local M = tide.mpm.new { grid = g, node_volume = true, walls = "slip" }
--   ... M:material{...}; M:seed{...}
--   local S = mf.new { grid = g, particles = ps, mpm = M }
--   for i = 1, n do mf.step(S, mf.max_dt(S)) end
--
-- The liquid state is that of tide.flip (S.u, S.labels, S.phi ...); the MPM
-- state is S.mpm.  Every line of mf.step is one native operator.
local raise = require("tide.core")._raise
local tide = require "tide"
local flip = require "tide.flip"
local liquid = tide.liquid
local time = tide.time

local mf = {}

--- Build the coupled state.  opts: mpm (a tide.MPM made with node_volume =
-- true on the liquid's grid), body_radius (the MPM particles' level-set
-- radius [m], default dx/4), cfl_mpm (CFL of the MPM's elastic step, 0.4),
-- and the options of tide.flip.new (grid, particles, scheme, rho, cfl, tol,
-- maxit, radius, solid, gravity ...).  The liquid is where its Zhu-Bridson
-- level set S.phi (radius: one particle spacing dx / per_cell^(1/dim)) is
-- negative: labels and the ghost-fluid surface of the projection come from
-- the same phi, so the pressure's free surface is the level set's (a stray
-- particle above it does not lift the surface by a cell); the density
-- correction is off unless separation is given.
function mf.new(opts)
  if type(opts) ~= "table" then raise("tide.mpm_flip.new: table of named arguments expected") end
  local M = opts.mpm
  if type(M) ~= "userdata" or not tostring(M):find("^tide.MPM") then
    raise("tide.mpm_flip.new: 'mpm' must be a tide.MPM (tide.mpm.new{..., node_volume = true})")
  end
  if M.node_volume == nil then raise("tide.mpm_flip.new: the tide.MPM needs node_volume = true") end
  local fo = {}
  for k, v in pairs(opts) do
    if k ~= "mpm" and k ~= "body_radius" and k ~= "cfl_mpm" then fo[k] = v end
  end
  for _, k in ipairs { "periodic", "open", "emitters", "sinks", "fractions", "solid_phi", "solid_velocity", "sigma",
    "surface_tension", "level_set" } do
    if fo[k] ~= nil then raise(string.format("tide.mpm_flip.new: option '%s' is not supported with an MPM body", k)) end
  end
  if fo.separation == nil then fo.separation = 0 end
  local g = fo.grid
  if g and g.dim ~= M.dim then raise("tide.mpm_flip.new: the grid and the MPM state differ in dimension") end
  local S = flip.new(fo)
  S.mpm = M
  S.body_radius = opts.body_radius
  S.cfl_mpm = opts.cfl_mpm or 0.4
  S.phi = g:cells()
  S.radius = opts.radius or g.dx / S.per_cell ^ (1 / g.dim)
  S.density = S.density or g:cells()
  S.body_phi = g:cells() -- the body's level set: liquid particles are kept out of it
  return S
end

--- Largest stable step: the FLIP CFL step and the MPM's elastic step.
function mf.max_dt(S)
  return math.min(flip.max_dt(S), S.mpm:max_dt(S.cfl_mpm))
end

--- Advance liquid and body by dt.  Returns the statistics of the coupled
-- projection { iterations, residual, unknowns, body_cells, div_before, div_after }.
function mf.step(S, dt)
  local ps, u, g, M = S.particles, S.u, S.grid, S.mpm
  -- 1. liquid velocities to the faces (extrapolated, walls); FLIP keeps a copy
  flip.transfer_to_grid(S)
  S.u_old:copy(u)
  -- 2. liquid cells, the liquid's surface and its particles per cell
  time("level set", ps.level_set, ps, g, { method = "zhu_bridson", radius = S.radius,
    reach = 2 * S.radius + g.dx, out = S.phi })
  time("label", liquid.label_phi, g, S.phi, { solid = S.solid, out = S.labels })
  time("density", ps.density, ps, g, S.density)
  -- 3. gravity on the liquid; the body's P2G with its elastic forces, gravity, walls
  u:add_gravity(dt, S.gravity)
  time("mpm.p2g", M.p2g, M, dt)
  time("mpm.grid", M.grid_update, M, dt)
  -- 4. one momentum grid, one projection; increments back to the MPM nodes
  local st = time("couple", tide.couple.mpm_project, { mpm = M, u = u, density = S.density, labels = S.labels,
    dt = dt, rho = S.rho, per_cell = S.per_cell, phi = S.phi, body_radius = S.body_radius, tol = S.tol,
    maxit = S.maxit, valid = S.valid, pressure = S.pressure, body_phi = S.body_phi })
  -- 5. the body: its walls and colliders again, G2P (F update, advection, plasticity)
  time("mpm.grid", M.grid_update, M, 0)
  time("mpm.g2p", M.g2p, M, dt)
  -- 6. the liquid: extend the coupled velocity, G2P and advection
  time("extrapolate", u.extrapolate, u, S.valid, S.layers, true)
  u:enforce_walls(S.solid, true)
  time("g2p+advect", liquid.g2p, u, ps, { scheme = S.scheme, old = S.u_old, flip = S.flip,
    advect = dt, order = S.order, labels = S.solid, solid_phi = S.body_phi })
  if S.separation > 0 then flip.separate(S, dt) end
  S.t, S.steps = S.t + dt, S.steps + 1
  return st
end

--- Liquid momentum sum_p m v (m = rho dx^dim / per_cell per particle) and the
-- body's sum_p m_p v_p: two lists of dim numbers [kg m/s (per m in 2D)].
function mf.momentum(S)
  local g, ps = S.grid, S.particles
  local mq = S.rho * g.dx ^ g.dim / S.per_cell
  local pl, pb = {}, S.mpm:diagnostics().momentum
  for a = 1, g.dim do pl[a] = mq * ps.v:select(2, a):sum() end
  return pl, pb
end

return mf
