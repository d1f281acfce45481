--- tide.sph recipes: the WCSPH and DFSPH steps as readable sequences of the
-- native operators of tide.sph (docs/sph.md).  `require "tide.sph"` is the
-- native module; this file is `require "tide.sph_step"`.
local tide = require "tide"

local sph = {}

--- Weakly compressible SPH, one symplectic Euler step (Becker & Teschner 2007):
--   neighbours, densities, Tait pressures, accelerations (gravity, symmetric
--   pressure gradient, artificial viscosity), v += dt a, x += dt v.
-- bodies (optional): rigid bodies of lua/tide/sph_body.lua, kicked by the
-- fluid's force of this pass (S:wall_force) and gravity before the drift moves
-- fluid and walls (symplectic Euler for both: no lag).
function sph.wcsph_step(S, dt, bodies)
  tide.time("sph.search", S.search, S)
  tide.time("sph.density", S.density, S)
  tide.time("sph.tait", S.tait, S)
  tide.time("sph.forces", S.forces, S)
  for _, b in ipairs(bodies or {}) do
    b:kick_fluid(dt, true, true)
    b:contact(dt)
  end
  if bodies and bodies[2] and bodies[1].collide then bodies[1].collide(bodies, dt) end -- body-body
  S:kick(dt)
  S:drift(dt)
  for _, b in ipairs(bodies or {}) do b:kick_fluid(dt, false, false) end -- projections
end

--- Divergence-free SPH, one step (Bender & Koschier 2015, Algorithm 1):
--   non-pressure forces, v* = v + dt a, constant-density solve on v*,
--   x += dt v*, neighbours, densities and factors, divergence-free solve on v.
-- opts: tol (mean density error, 1e-4), tol_v (divergence, 1e-3), maxit (100),
-- warm_start (0.5: that fraction of the last step's stiffness where compressed).
-- bodies: rigid bodies of lua/tide/sph_body.lua.  opts.coupling = "iterated"
-- (default): a body is kicked by gravity and the non-pressure wall forces,
-- then coupled into both solves (S:set_sdf_dynamics): every Jacobi iteration
-- updates its velocity by that iteration's reaction, so the fluid is made
-- incompressible around the body as it moves (docs/sph.md, "Rigid bodies in
-- the DFSPH solves").  "lagged": the solves see the wall at the body's
-- velocity before them, the body is kicked by their final reactions after
-- them (one step behind: unstable for heavy bodies near a wall, the
-- squeeze film's added mass exceeds the body's).
-- Returns {density_iterations, density_error, divergence_iterations,
-- divergence_error, converged}; a solve at its iteration limit says so.
function sph.dfsph_step(S, dt, opts)
  opts = opts or {}
  local coupling = opts.coupling or "iterated"
  assert(coupling == "iterated" or coupling == "lagged",
    "sph.dfsph_step: coupling must be \"iterated\" or \"lagged\", got " .. tostring(coupling))
  if not S.valid then -- first step: neighbourhoods, densities, factors
    S:search()
    S:density()
    S:dfsph_factor()
  end
  tide.time("sph.forces", S.forces, S, { pressure = false })
  S:kick(dt)
  local bodies = opts.bodies or {}
  local iter = coupling == "iterated"
  if iter then
    for _, b in ipairs(bodies) do
      b:kick_fluid(dt, true, true) -- gravity and the non-pressure wall forces
      b:couple()
    end
  end
  local it, err, ok = tide.time("sph.density_solve", S.density_solve, S, dt,
    { tol = opts.tol or 1e-4, maxit = opts.maxit or 100, warm_start = opts.warm_start or 0.5 })
  for _, b in ipairs(bodies) do
    if iter then b:sync(dt) else b:kick_fluid(dt, true, true) end
    b:contact(dt)
  end
  if bodies[2] and bodies[1].collide then bodies[1].collide(bodies, dt) end -- body-body
  S:drift(dt)
  tide.time("sph.search", S.search, S)
  tide.time("sph.density", S.density, S)
  tide.time("sph.factor", S.dfsph_factor, S)
  if iter then
    for _, b in ipairs(bodies) do
      b:kick_fluid(dt, false, false) -- the drift's projections
      b:couple()
    end
  end
  local itv, errv, okv = tide.time("sph.divergence_solve", S.divergence_solve, S, dt,
    { tol = opts.tol_v or 1e-3, maxit = opts.maxit or 100 })
  -- the drift's projections and the divergence solve's reactions
  for _, b in ipairs(bodies) do
    if iter then b:sync(dt) else b:kick_fluid(dt, false, false) end
  end
  return { density_iterations = it, density_error = err, divergence_iterations = itv,
    divergence_error = errv, converged = ok and okv }
end

--- A stable step: WCSPH cfl h/(c + max|v|), DFSPH cfl dx/max|v| capped at max_dt.
function sph.max_dt(S, method, cfl, max_dt)
  local dt = S:max_dt { cfl = cfl or 0.4, method = method or "wcsph" }
  if max_dt and dt > max_dt then dt = max_dt end
  return dt
end

--- Boundary particles in the outer `layers` cells of the grid (the tank's walls).
function sph.walls(S, g, layers)
  layers = layers or math.ceil(S.H / S.dx - 1e-9)
  local lo, hi = {}, {}
  for a = 1, g.dim do
    lo[a] = g.origin[a] + layers * g.dx
    hi[a] = g.origin[a] + (g.size[a] - layers) * g.dx
  end
  return S:boundary { shape = tide.shape.box { min = lo, max = hi }, layers = layers, side = "outside" }
end

--- The particles' speeds |v_i| (an array of S.n), e.g. to colour frames.
function sph.speeds(S)
  local v, d = S.v, S.dim
  local out = tide.array.zeros(S.n)
  for p = 1, S.n do
    local s = 0
    for a = 1, d do s = s + v[p][a] ^ 2 end
    out[p] = math.sqrt(s)
  end
  return out
end

--- The liquid surface for rendering: the particle level set of tide.grid
-- (Zhu & Bridson 2005) of the fluid particles on the cells of g.
function sph.level_set(S, g, radius)
  return tide.grid.particle_sdf { grid = g, points = S.x, radius = radius or 0.6 * S.dx,
    method = "zhu_bridson", kernel = 2 * S.dx }
end

return sph
