--- Rigid bodies in a tide.sph fluid: two-way coupling of an SDF boundary
-- (S:sdf_boundary) with a rigid body (docs/sph.md, "Rigid bodies").
--
-- The fluid's force and torque on the body are the negated wall terms of the
-- fluid particles' forces (S:wall_force: pair-wise reactions, so fluid + body
-- conserve linear and angular momentum).  The body is integrated by
-- symplectic Euler -- v += dt (g + F/M), omega += dt I^-1 (T - omega x I
-- omega), then the position with the new velocity -- and drives the wall's
-- velocity and angular velocity, which the next drift applies to the shape.
-- `require "tide.sph_body"`; lua/tide/sph_step.lua steps the bodies with the
-- fluid (sph.wcsph_step(S, dt, bodies), sph.dfsph_step(S, dt, {bodies = ...})).
local tide = require "tide"

local M = {}

local function cross3(a, b)
  return { a[2] * b[3] - a[3] * b[2], a[3] * b[1] - a[1] * b[3], a[1] * b[2] - a[2] * b[1] }
end

local function matvec(A, v)
  local r = {}
  for i = 1, 3 do r[i] = A[i][1] * v[1] + A[i][2] * v[2] + A[i][3] * v[3] end
  return r
end

local function inv3(A)
  local a, b, c = A[1][1], A[1][2], A[1][3]
  local d, e, f = A[2][1], A[2][2], A[2][3]
  local g, h, k = A[3][1], A[3][2], A[3][3]
  local det = a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g)
  assert(det ~= 0 and det == det, "rigid body: singular inertia tensor")
  return {
    { (e * k - f * h) / det, (c * h - b * k) / det, (b * f - c * e) / det },
    { (f * g - d * k) / det, (a * k - c * g) / det, (c * d - a * f) / det },
    { (d * h - e * g) / det, (b * g - a * h) / det, (a * e - b * d) / det },
  }
end

--- Volume (2D: area [m^2], 3D [m^3]), centroid and inertia per unit density
-- of a bounded shape, by sampling its SDF at the centres of a lattice of about
-- spacing h over its bounds (a cell counts when phi < 0; each cell adds its own
-- inertia h_x h_y (h_x^2 + h_y^2)/12 too: exact for an axis-aligned box).
-- Inertia about the centroid: 2D the polar moment int |r|^2 dA [m^4]; 3D the
-- tensor int (|r|^2 I - r r^T) dV [m^5] as a 3 x 3 table.
-- Returns volume, centroid {..}, inertia, surface points (a list of {..}:
-- the centres of the counted cells with a neighbour cell outside, for contacts).
function M.mass_properties(shape, h)
  local lo, hi = shape:bounds()
  assert(lo, "rigid body: the shape must be bounded")
  local d = #lo
  local n, hs = {}, {}
  for a = 1, d do
    n[a] = math.max(2, math.ceil((hi[a] - lo[a]) / h))
    hs[a] = (hi[a] - lo[a]) / n[a]
  end
  local nz = d == 3 and n[3] or 1
  local pts = {}
  for k = 0, nz - 1 do
    for j = 0, n[2] - 1 do
      for i = 0, n[1] - 1 do
        local p = { lo[1] + (i + 0.5) * hs[1], lo[2] + (j + 0.5) * hs[2] }
        if d == 3 then p[3] = lo[3] + (k + 0.5) * hs[3] end
        pts[#pts + 1] = p
      end
    end
  end
  local phi = shape:eval(tide.array.from(pts))
  local cv = hs[1] * hs[2] * (d == 3 and hs[3] or 1)
  local cnt, c = 0, { 0, 0, 0 }
  for q = 1, #pts do
    if phi[q] < 0 then
      cnt = cnt + 1
      for a = 1, d do c[a] = c[a] + pts[q][a] end
    end
  end
  assert(cnt > 0, "rigid body: the shape holds no sample (lower the sampling spacing)")
  for a = 1, d do c[a] = c[a] / cnt end
  if d == 2 then c[3] = nil end
  local V = cnt * cv
  local own = {} -- a cell's own second moments h_a^2 / 12
  for a = 1, 3 do own[a] = a <= d and hs[a] ^ 2 / 12 or 0 end
  local I
  if d == 2 then
    I = 0
    for q = 1, #pts do
      if phi[q] < 0 then I = I + (pts[q][1] - c[1]) ^ 2 + (pts[q][2] - c[2]) ^ 2 + own[1] + own[2] end
    end
    I = I * cv
  else
    I = { { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } }
    for q = 1, #pts do
      if phi[q] < 0 then
        local r = { pts[q][1] - c[1], pts[q][2] - c[2], pts[q][3] - c[3] }
        local r2 = r[1] ^ 2 + r[2] ^ 2 + r[3] ^ 2
        for a = 1, 3 do
          for b = 1, 3 do
            local v = -r[a] * r[b]
            if a == b then v = v + r2 + (own[1] + own[2] + own[3]) - own[a] end
            I[a][b] = I[a][b] + v * cv
          end
        end
      end
    end
  end
  -- surface samples: counted cells with an uncounted (or outside) lattice neighbour
  local surf = {}
  local function inside(i, j, k)
    if i < 0 or j < 0 or k < 0 or i >= n[1] or j >= n[2] or k >= nz then return false end
    return phi[(k * n[2] + j) * n[1] + i + 1] < 0
  end
  for k = 0, nz - 1 do
    for j = 0, n[2] - 1 do
      for i = 0, n[1] - 1 do
        if inside(i, j, k) and (not inside(i - 1, j, k) or not inside(i + 1, j, k) or not inside(i, j - 1, k)
              or not inside(i, j + 1, k) or (d == 3 and (not inside(i, j, k - 1) or not inside(i, j, k + 1)))) then
          surf[#surf + 1] = pts[(k * n[2] + j) * n[1] + i + 1]
        end
      end
    end
  end
  return V, c, I, surf
end

local Body = {}
Body.__index = Body
Body.collide = function(bodies, dt, opts) return M.collide(bodies, dt, opts) end

--- A rigid body in the SPH state S: its shape becomes an SDF boundary (side
-- "inside", S:sdf_boundary) rotating about the body's centre of mass.
-- opts: shape (bounded, required); density [kg/m^d] or mass [kg (2D: per unit
-- length)]; inertia (about the centroid: 2D a number [kg m^2 per m], 3D a 3 x 3
-- table [kg m^2]; default from the sampled shape); velocity {..} [m/s];
-- angular_velocity (2D a number, 3D {..}) [rad/s]; gravity (default S.gravity);
-- fixed (true: the wall stays where it is, the fluid's force is only measured);
-- rotation (false: translation only); method ("auto" | "harada" | "map", as
-- S:sdf_boundary); map_resolution; sample (the sampling spacing of the mass
-- properties, default S.dx / 4); particles (true: the body is a skin of
-- boundary particles as thick as the kernel support, Akinci et al. 2012,
-- moved rigidly by S:set_boundary_velocity, its force S:boundary_force;
-- DFSPH kicks it after each solve, not inside it); container {shape =,
-- side = "outside"}: a tank
-- the body must not leave (speculative contact, see body:contact).
function M.new(S, opts)
  assert(type(opts) == "table" and opts.shape, "sph_body.new: a shape is required")
  local d = S.dim
  assert(opts.shape.dim == d, "sph_body.new: the shape's dimension differs from the SPH state's")
  assert((opts.density == nil) ~= (opts.mass == nil), "sph_body.new: give density or mass (one of them)")
  local V, c, I1, surf = M.mass_properties(opts.shape, opts.sample or S.dx / 4)
  local mass = opts.mass or opts.density * V
  assert(mass > 0 and mass < math.huge, "sph_body.new: the mass must be > 0 and finite")
  local I = opts.inertia
  if I == nil then
    if d == 2 then
      I = I1 * mass / V
    else
      I = {}
      for a = 1, 3 do I[a] = {}; for b = 1, 3 do I[a][b] = I1[a][b] * mass / V end end
    end
  end
  local v = {}
  for a = 1, d do v[a] = opts.velocity and opts.velocity[a] or 0 end
  local om = opts.angular_velocity or (d == 2 and 0 or { 0, 0, 0 })
  if opts.rotation == false or opts.fixed then om = d == 2 and 0 or { 0, 0, 0 } end
  if opts.fixed then for a = 1, d do v[a] = 0 end end
  local idx, set
  if opts.particles then
    -- boundary particles (Akinci et al. 2012): a skin as thick as the kernel
    -- support inside the shape (Psi = m), moving rigidly about c
    local n
    n, set = S:boundary { shape = opts.shape, side = "inside", layers = math.ceil(S.H / S.dx - 1e-9) }
    assert(n > 0, "sph_body.new: the shape holds no boundary particle (smaller than the lattice?)")
    S:set_boundary_velocity(set, v, om, c)
  else
    idx = S:sdf_boundary { shape = opts.shape, side = "inside", method = opts.method or "auto",
      map_resolution = opts.map_resolution, velocity = v, angular_velocity = om, centre = c }
  end
  local b = setmetatable({
    S = S, dim = d, boundary = idx, set = set, shape = opts.shape, volume = V, mass = mass, inertia = I,
    centre0 = c, v = v, omega = om, fixed = opts.fixed or false, rotation = opts.rotation ~= false,
    gravity = opts.gravity or S.gravity, container = opts.container, surface = surf,
    force = {}, torque = d == 2 and 0 or { 0, 0, 0 }, impulses = 0,
  }, Body)
  if d == 3 then b.inverse0 = inv3(I) end
  for a = 1, d do b.force[a] = 0 end
  return b
end

--- The centre of mass {..} (simulation frame) and rotation (2D the angle, 3D
-- the row-major matrix as 9 numbers) of the body now.
function Body:pose()
  if self.set then return self.S:boundary_pose(self.set) end
  return self.S:sdf_pose(self.boundary)
end

--- Body-frame point y -> simulation frame.
function Body:to_world(y, c, R)
  local d, c0 = self.dim, self.centre0
  if d == 2 then
    local cs, sn = math.cos(R), math.sin(R)
    local rx, ry = y[1] - c0[1], y[2] - c0[2]
    return { c[1] + cs * rx - sn * ry, c[2] + sn * rx + cs * ry }
  end
  local r = { y[1] - c0[1], y[2] - c0[2], y[3] - c0[3] }
  local p = {}
  for a = 1, 3 do p[a] = c[a] + R[3 * a - 2] * r[1] + R[3 * a - 1] * r[2] + R[3 * a] * r[3] end
  return p
end

--- The body's shape where it is now (for rendering): x = R y + (c - R c0).
function Body:world_shape()
  local c, R = self:pose()
  local c0, t = self.centre0, {}
  if self.dim == 2 then
    local cs, sn = math.cos(R), math.sin(R)
    t = { c[1] - (cs * c0[1] - sn * c0[2]), c[2] - (sn * c0[1] + cs * c0[2]) }
    return self.shape:moved { translation = t, rotation = R }
  end
  local rows = {}
  for a = 1, 3 do
    rows[a] = { R[3 * a - 2], R[3 * a - 1], R[3 * a] }
    t[a] = c[a] - (rows[a][1] * c0[1] + rows[a][2] * c0[2] + rows[a][3] * c0[3])
  end
  return self.shape:moved { translation = t, rotation = rows }
end

-- the world inverse inertia applied to w (3D: R I0^-1 R^T w)
function Body:inv_inertia(w, R)
  if self.dim == 2 then return w / self.inertia end
  local u = { 0, 0, 0 }
  for a = 1, 3 do u[a] = R[a] * w[1] + R[3 + a] * w[2] + R[6 + a] * w[3] end -- R^T w
  u = matvec(self.inverse0, u)
  local r = {}
  for a = 1, 3 do r[a] = R[3 * a - 2] * u[1] + R[3 * a - 1] * u[2] + R[3 * a] * u[3] end
  return r
end

function Body:world_inertia(w, R) -- R I0 R^T w
  local u = { 0, 0, 0 }
  for a = 1, 3 do u[a] = R[a] * w[1] + R[3 + a] * w[2] + R[6 + a] * w[3] end
  u = matvec(self.inertia, u)
  local r = {}
  for a = 1, 3 do r[a] = R[3 * a - 2] * u[1] + R[3 * a - 1] * u[2] + R[3 * a] * u[3] end
  return r
end

--- Symplectic Euler kick by the force F {..} and torque T (2D a number, 3D {..})
-- over dt (gravity added when with_gravity), then the wall's velocities set.
function Body:kick(dt, F, T, with_gravity)
  if self.fixed then return end
  local d = self.dim
  for a = 1, d do
    self.v[a] = self.v[a] + dt * (F[a] / self.mass + (with_gravity and self.gravity[a] or 0))
  end
  if self.rotation then
    if d == 2 then
      self.omega = self.omega + dt * T / self.inertia
    else
      local _, R = self:pose()
      local Iw = self:world_inertia(self.omega, R)
      local gyro = cross3(self.omega, Iw)
      local dw = self:inv_inertia({ T[1] - gyro[1], T[2] - gyro[2], T[3] - gyro[3] }, R)
      for a = 1, 3 do self.omega[a] = self.omega[a] + dt * dw[a] end
    end
  end
  self:apply()
end

function Body:apply()
  if self.set then
    self.S:set_boundary_velocity(self.set, self.v, self.omega)
  else
    self.S:set_sdf_velocity(self.boundary, self.v, self.omega)
  end
end

--- Couple the body into the next DFSPH solve (S:set_sdf_dynamics): its mass
-- and its inertia in the simulation frame now (3D R I0 R^T; a body with
-- rotation = false gets 1e12 times its inertia: it does not turn), so every
-- Jacobi iteration of the solve updates the wall's velocity by that
-- iteration's reaction (docs/sph.md, "Rigid bodies in the DFSPH solves").
function Body:couple()
  if self.fixed or self.set then return end -- boundary particles: lagged (sync)
  local d, S = self.dim, self.S
  local lock = self.rotation and 1 or 1e12
  if d == 2 then
    S:set_sdf_dynamics(self.boundary, self.mass, lock * self.inertia)
    return
  end
  local _, R = self:pose()
  local I = {}
  for a = 1, 3 do
    local e = { 0, 0, 0 }
    e[a] = 1
    I[a] = self:world_inertia(e, R) -- column a of R I0 R^T (symmetric: row a)
    for b = 1, 3 do I[a][b] = lock * I[a][b] end
  end
  S:set_sdf_dynamics(self.boundary, self.mass, I)
end

--- After a coupled solve: the body's velocities from the wall's (the solve
-- integrated its reactions), and the reaction so far marked as seen (the
-- next kick_fluid takes only what comes after).
function Body:sync(dt)
  if self.set then return self:kick_fluid(dt, false, false) end -- not coupled: kicked after
  local d = self.dim
  local F, T = self:fluid_force()
  if not self.seen then self.seen = { F = {}, T = d == 2 and 0 or { 0, 0, 0 } } end
  for a = 1, d do self.seen.F[a] = F[a] end
  if d == 2 then self.seen.T = T else for a = 1, 3 do self.seen.T[a] = T[a] end end
  if self.fixed then return end
  local v, om = self.S:sdf_velocity(self.boundary)
  for a = 1, d do self.v[a] = v[a] end
  if not self.rotation then
    om = d == 2 and 0 or { 0, 0, 0 }
    self:apply()
  end
  self.omega = om
end

--- Read the fluid's force and torque of the current force pass (S:wall_force)
-- into self.force / self.torque and return them.
function Body:fluid_force()
  local r
  if self.set then r = { self.S:boundary_force(self.set) } else r = { self.S:wall_force(self.boundary) } end
  local d = self.dim
  for a = 1, d do self.force[a] = r[a] end
  self.torque = r[d + 1]
  return self.force, self.torque
end

--- Kick by what the fluid added to the body's reaction accumulator since the
-- last call (restart: since the force pass, which restarted it): the wall
-- terms of the forces pass, the DFSPH pressure updates and the momentum of
-- particles projected out of the wall by the drift (S:wall_force).
function Body:kick_fluid(dt, restart, with_gravity)
  local d = self.dim
  if restart or not self.seen then
    self.seen = { F = {}, T = d == 2 and 0 or { 0, 0, 0 } }
    for a = 1, d do self.seen.F[a] = 0 end
  end
  local F, T = self:fluid_force()
  local dF, dT = {}, nil
  for a = 1, d do dF[a] = F[a] - self.seen.F[a]; self.seen.F[a] = F[a] end
  if d == 2 then
    dT = T - self.seen.T
    self.seen.T = T
  else
    dT = {}
    for a = 1, 3 do dT[a] = T[a] - self.seen.T[a]; self.seen.T[a] = T[a] end
  end
  self:kick(dt, dF, dT, with_gravity)
end

-- 1/m_eff of an impulse along the unit vector n at arm r (rotation R):
-- 1/M + (r x n) . I^-1 (r x n)
function Body:inv_mass_along(r, n, R)
  local k = 1 / self.mass
  if not self.rotation then return k end
  if self.dim == 2 then
    local rn = r[1] * n[2] - r[2] * n[1]
    return k + rn * rn / self.inertia
  end
  local rn = cross3(r, n)
  local u = self:inv_inertia(rn, R)
  return k + rn[1] * u[1] + rn[2] * u[2] + rn[3] * u[3]
end

--- The body's velocity at arm r from its centre: v + omega x r.
function Body:point_velocity(r)
  if self.dim == 2 then return { self.v[1] - self.omega * r[2], self.v[2] + self.omega * r[1] } end
  local wr = cross3(self.omega, r)
  return { self.v[1] + wr[1], self.v[2] + wr[2], self.v[3] + wr[3] }
end

--- Apply the impulse J {..} at arm r (rotation R): v += J/M, omega += I^-1 (r x J).
function Body:impulse(J, r, R)
  for a = 1, self.dim do self.v[a] = self.v[a] + J[a] / self.mass end
  if not self.rotation then return end
  if self.dim == 2 then
    self.omega = self.omega + (r[1] * J[2] - r[2] * J[1]) / self.inertia
  else
    local u = self:inv_inertia(cross3(r, J), R)
    for a = 1, 3 do self.omega[a] = self.omega[a] + u[a] end
  end
end

--- One speculative contact between body a (sample at arm ra) and body b (arm
-- rb; nil: a static wall), unit normal n pushing a away from b, relative
-- velocity vrel of a's sample over b's, gap g: when the step would leave a
-- gap below gmin, an inelastic normal impulse j raises the normal velocity
-- to (gmin - g)/dt (deeper: no approach, a tenth of the overlap undone per
-- step), with Coulomb friction up to mu j against the sliding velocity; a
-- gets +J, b -J.  Returns true when it acted.
function M.resolve(a, b, ra, rb, Ra, Rb, n, vrel, g, gmin, mu, dt)
  local d = a.dim
  local vn = 0
  for k = 1, d do vn = vn + vrel[k] * n[k] end
  local target = g >= gmin and (gmin - g) / dt or 0.1 * (gmin - g) / dt
  if vn >= target then return false end
  local function k_along(dir)
    return a:inv_mass_along(ra, dir, Ra) + (b and b:inv_mass_along(rb, dir, Rb) or 0)
  end
  local j = (target - vn) / k_along(n)
  local vt, st, J = {}, 0, {}
  for k = 1, d do vt[k] = vrel[k] - vn * n[k]; st = st + vt[k] ^ 2; J[k] = j * n[k] end
  st = math.sqrt(st)
  if mu > 0 and st > 0 then
    local tdir = {}
    for k = 1, d do tdir[k] = vt[k] / st end
    local jt = math.min(st / k_along(tdir), mu * j)
    for k = 1, d do J[k] = J[k] - jt * tdir[k] end
  end
  a:impulse(J, ra, Ra)
  if b then
    local mJ = {}
    for k = 1, d do mJ[k] = -J[k] end
    b:impulse(mJ, rb, Rb)
  end
  return true
end

--- Speculative contact between the bodies of a list, pair by pair (before
-- the drift, after each body's contact with its container): the surface
-- samples of each body against the other's shape where it is now (its SDF,
-- outward normal), the same impulses as the container's (M.resolve; gap
-- opts.gap, default dx: one fluid layer between the bodies; friction 0.5),
-- equal and opposite on the two bodies (a fixed body takes none), 4
-- Gauss-Seidel passes.  Returns the number of impulses.
function M.collide(bodies, dt, opts)
  opts = opts or {}
  local n = #bodies
  if n < 2 then return 0 end
  local S = bodies[1].S
  local gmin, mu = opts.gap or S.dx, opts.friction or 0.5
  local reach = gmin + 2 * S.dx
  local poses, shapes = {}, {}
  for k, b in ipairs(bodies) do
    local c, R = b:pose()
    poses[k] = { c = c, R = R }
    shapes[k] = b:world_shape()
  end
  local hits = 0
  for _ = 1, 4 do
    local any = false
    for ia = 1, n do
      local A, pa = bodies[ia], poses[ia]
      local P = {}
      for q, y in ipairs(A.surface) do P[q] = A:to_world(y, pa.c, pa.R) end
      for ib = 1, n do
        local B, pb = bodies[ib], poses[ib]
        if ib ~= ia and not (A.fixed and B.fixed) then
          local phi = shapes[ib]:eval(tide.array.from(P))
          for q = 1, #P do
            if phi[q] < reach then
              local _, nrm = shapes[ib]:eval(P[q])
              local ra, rb = {}, {}
              for a = 1, A.dim do ra[a] = P[q][a] - pa.c[a]; rb[a] = P[q][a] - pb.c[a] end
              local va, vb = A:point_velocity(ra), B:point_velocity(rb)
              local vrel = {}
              for a = 1, A.dim do vrel[a] = va[a] - vb[a] end
              -- a fixed body is a static wall; a fixed A: push B the other way
              local ok
              if A.fixed then
                local m = {}
                for a = 1, A.dim do m[a] = -nrm[a]; vrel[a] = -vrel[a] end
                ok = M.resolve(B, nil, rb, nil, pb.R, nil, m, vrel, phi[q], gmin, mu, dt)
              else
                ok = M.resolve(A, not B.fixed and B or nil, ra, rb, pa.R, pb.R, nrm, vrel, phi[q], gmin, mu, dt)
              end
              if ok then hits, any = hits + 1, true end
            end
          end
        end
      end
    end
    if not any then break end
  end
  if hits > 0 then for _, b in ipairs(bodies) do if not b.fixed then b:apply() end end end
  return hits
end

--- Speculative contact with the container before the drift: for every surface
-- sample p of the body with gap g = distance to the container's wall (>= 0
-- inside) and normal velocity v_n (into the fluid), an inelastic impulse
-- raises v_n to (gmin - g)/dt when the step would bring p closer than gmin
-- (container.gap, default dx: one particle layer of the fluid, at dx/2 from
-- either wall, stays between body and wall; a closer gap traps particles the
-- lagged pressure coupling then expels violently) -- a few Gauss-Seidel
-- passes, with Coulomb friction (container.friction, default 0.5: the
-- tangential impulse at a sample at most mu times its normal impulse).
-- Returns the number of impulses.
function Body:contact(dt)
  local C = self.container
  if not C or self.fixed then return 0 end
  local d, S = self.dim, self.S
  local c, R = self:pose()
  local side = (C.side or "outside") == "outside" and -1 or 1
  local P = {}
  for q, y in ipairs(self.surface) do P[q] = self:to_world(y, c, R) end
  local phi = C.shape:eval(tide.array.from(P))
  local gmin = C.gap or S.dx
  local mu = C.friction or 0.5
  local reach = gmin + 2 * S.dx
  local hits = 0
  for _ = 1, 4 do
    local any = false
    for q = 1, #P do
      local g = side * phi[q]
      if g < reach then
        local _, nrm = C.shape:eval(P[q])
        local n = {}
        for a = 1, d do n[a] = side * nrm[a] end
        local r = {}
        for a = 1, d do r[a] = P[q][a] - c[a] end
        if M.resolve(self, nil, r, nil, R, nil, n, self:point_velocity(r), g, gmin, mu, dt) then
          hits, any = hits + 1, true
        end
      end
    end
    if not any then break end
  end
  if hits > 0 then self:apply() end
  self.impulses = self.impulses + hits
  return hits
end

--- Momentum of the body: linear {..} and angular about the origin (2D a number).
function Body:momentum()
  local d, c = self.dim, self:pose()
  local p = {}
  for a = 1, d do p[a] = self.mass * self.v[a] end
  if d == 2 then
    return p, c[1] * p[2] - c[2] * p[1] + self.inertia * self.omega
  end
  local _, R = self:pose()
  local L = cross3(c, p)
  local Iw = self:world_inertia(self.omega, R)
  for a = 1, 3 do L[a] = L[a] + Iw[a] end
  return p, L
end

M.Body = Body
return M
