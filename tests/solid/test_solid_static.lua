-- Static equilibrium (issue 12): m:solve_static{...}.
--  1. A linear material: the static solve equals a direct solve K u = f with
--     the stiffness of m:stiffness{rotate = false} (an independent assembly,
--     Zarifi's K_t) to 1e-10, 2D and 3D, with pins and gravity.
--  2. Patch tests on irregular meshes (interior nodes moved by a fixed hash):
--     (a) displacement patch: boundary nodes prescribed by u = A X (pins
--         moved to their targets in load steps), interior nodes land on A X,
--         for the linear and the neo-Hookean model (a homogeneous
--         deformation is an equilibrium of any hyperelastic material);
--     (b) traction patch: a constant stress sigma applied as tractions
--         sigma n on every boundary face, rigid motions removed by fixing
--         three (2D) / six (3D) degrees of freedom: the displacement is the
--         linear field of the constant strain, so the consistent nodal
--         integration of the loads is exact.
--  3. Honesty: a case that cannot converge in the limit returns
--     converged = false (raise = false) or raises naming the load step.
local tide = require "tide"
local T = require "tide.testing"
local S = tide.solid
local LA = tide.linalg

-- a deterministic hash in [-1, 1]
local function hash(i, k)
  local h = (i * 73856093 ~ k * 19349663) & 0x7fffffff
  h = (h * 1103515245 + 12345) & 0x7fffffff
  return (h % 20001) / 10000 - 1
end

-- move the interior nodes by up to frac of the spacing h (irregular mesh)
local function perturb(m, h, frac)
  local b = m:boundary_nodes()
  local d = m.dim
  for i = 1, m.nv do
    if b:get(i) == 0 then
      for k = 1, d do
        local v = m.rest:get(i, k) + frac * h * hash(i, k)
        m.rest:set(i, k, v)
        m.x:set(i, k, v)
      end
    end
  end
  -- rebuild the rest state from the moved nodes
  return S.mesh { nodes = m.rest, elements = m:elements() }
end

---------------------------------------------------------------- 1. K u = f
local function direct_check(m, label)
  local d = m.dim
  m:material { model = "linear", E = 2e5, nu = 0.3, density = 50 }
  m:pin(function(x) return x < 1e-9 end)
  for i = 1, m.nv do
    if m.rest:get(i, 1) > 1 - 1e-9 then m.force:set(i, 2, -3.0) end
  end
  local st = m:solve_static {}
  -- the direct solve: K u = f + m g on the free degrees of freedom
  local K = m:stiffness { rotate = false }
  local ki, kj, kv = K:totriplets()
  local map, nf = {}, 0
  for i = 1, m.nv do
    for k = 1, d do
      local q = (i - 1) * d + k
      if m.pinned:get(i) == 0 then nf = nf + 1; map[q] = nf end
    end
  end
  local I, J, V = {}, {}, {}
  for t = 1, #kv do
    local a, b = map[ki:get(t)], map[kj:get(t)]
    if a and b then I[#I + 1] = a; J[#J + 1] = b; V[#V + 1] = kv:get(t) end
  end
  local A = LA.matrix { n = nf, i = I, j = J, v = V }
  local f = {}
  for i = 1, m.nv do
    for k = 1, d do
      local q = (i - 1) * d + k
      if map[q] then f[map[q]] = m.force:get(i, k) + m.mass:get(i) * (k == 2 and -9.81 or 0) end
    end
  end
  local u = LA.solve { A = A, b = tide.array.from(f), method = "lu" }
  local err, umax = 0, 0
  for i = 1, m.nv do
    for k = 1, d do
      local q = (i - 1) * d + k
      if map[q] then
        local us = m.x:get(i, k) - m.rest:get(i, k)
        err = math.max(err, math.abs(us - u:get(map[q])))
        umax = math.max(umax, math.abs(u:get(map[q])))
      end
    end
  end
  print(string.format("%s: |u_static - K\\f|_inf / |u|_inf = %.2e (%d iterations, residual %.1e, increment %.1e)",
    label, err / umax, st.iterations, st.residual, st.increment))
  T.check(st.converged, label .. ": converged")
  T.check(err / umax < 1e-10, label .. ": static solve equals K u = f to 1e-10")
  T.check(umax > 1e-4, label .. ": the load deflects the beam")
end

direct_check(S.box { min = { 0, 0 }, max = { 1, 0.2 }, cells = { 12, 3 } }, "2D linear")
direct_check(S.box { min = { 0, 0, 0 }, max = { 1, 0.2, 0.2 }, cells = { 8, 2, 2 } }, "3D linear")

------------------------------------------------------ 2a. displacement patch
local function grad_field(d)
  if d == 2 then return { { 0.02, -0.01 }, { 0.015, -0.03 } } end
  return { { 0.02, -0.01, 0.005 }, { 0.015, -0.03, 0.01 }, { -0.012, 0.004, 0.025 } }
end

local function patch_displacement(m0, model, label)
  local d = m0.dim
  local m = perturb(m0, 1 / 4, 0.3)
  m:material { model = model, E = 1e4, nu = 0.35 }
  local A = grad_field(d)
  local b = m:boundary_nodes()
  local bn = {}
  for i = 1, m.nv do if b:get(i) == 1 then bn[#bn + 1] = i end end
  m:pin(bn)
  for _, i in ipairs(bn) do
    for k = 1, d do
      local u = 0
      for l = 1, d do u = u + A[k][l] * m.rest:get(i, l) end
      m.target:set(i, k, m.rest:get(i, k) + u)
    end
  end
  local st = m:solve_static { steps = 2, gravity = false }
  local err = 0
  for i = 1, m.nv do
    for k = 1, d do
      local u = 0
      for l = 1, d do u = u + A[k][l] * m.rest:get(i, l) end
      err = math.max(err, math.abs(m.x:get(i, k) - m.rest:get(i, k) - u))
    end
  end
  print(string.format("%s displacement patch (%d interior nodes): max node error %.2e m, %d iterations",
    label, m.nv - #bn, err, st.iterations))
  T.check(st.converged, label .. " displacement patch converged")
  T.check(m.nv - #bn > 4, label .. " the mesh has interior nodes")
  T.check(err < 1e-12, label .. " displacement patch reproduces u = A X exactly")
end

local box2 = function() return S.box { min = { 0, 0 }, max = { 1, 1 }, cells = { 4, 4 } } end
local box3 = function() return S.box { min = { 0, 0, 0 }, max = { 1, 1, 1 }, cells = { 4, 4, 4 } } end
patch_displacement(box2(), "linear", "2D linear")
patch_displacement(box2(), "neohookean", "2D neo-Hookean")
patch_displacement(box3(), "linear", "3D linear")
patch_displacement(box3(), "neohookean", "3D neo-Hookean")

---------------------------------------------------------- 2b. traction patch
-- sigma constant; linear isotropic strain eps = ((1+nu) sigma - nu tr(sigma) I) / E
-- (3D; 2D plane strain uses the 3D law with eps_zz = 0: eps = (sigma - lambda/(2(lambda+mu)) tr sigma I)/(2 mu))
local function patch_traction(m0, label)
  local d = m0.dim
  local m = perturb(m0, 1 / 4, 0.3)
  local E, nu = 1e4, 0.3
  m:material { model = "linear", E = E, nu = nu }
  local sig = d == 2 and { { 120, 35 }, { 35, -60 } } or { { 120, 35, -20 }, { 35, -60, 15 }, { -20, 15, 80 } }
  local mu, lam = E / (2 * (1 + nu)), E * nu / ((1 + nu) * (1 - 2 * nu))
  local tr = 0
  for k = 1, d do tr = tr + sig[k][k] end
  local c = lam / (2 * mu + d * lam) -- eps = (sigma - c tr(sigma) I) / (2 mu) inverts sigma = 2 mu eps + lam tr(eps) I
  local eps = {}
  for k = 1, d do
    eps[k] = {}
    for l = 1, d do eps[k][l] = (sig[k][l] - (k == l and c * tr or 0)) / (2 * mu) end
  end
  -- one load per boundary face: traction sigma n
  local nrm = m:boundary_normals()
  local loads = {}
  for f = 1, m.nb do
    local t = {}
    for k = 1, d do
      t[k] = 0
      for l = 1, d do t[k] = t[k] + sig[k][l] * nrm:get(f, l) end
    end
    loads[#loads + 1] = { faces = { f }, traction = t }
  end
  -- remove rigid motions: node at the origin fixed; in 2D node (1,0) fixed
  -- in y; in 3D node (1,0,0) fixed in y, z and node (0,1,0) in z.  The
  -- exact field u = eps X - omega X with omega chosen by these conditions:
  -- with u(0) = 0 and the other conditions, u = eps X + W X, W skew making
  -- u_y(1,0,0) = 0 etc.
  local fix
  local function at(p)
    return function(x, y, z)
      local r = (x - p[1]) ^ 2 + (y - p[2]) ^ 2 + (d == 3 and (z - p[3]) ^ 2 or 0)
      return r < 1e-18
    end
  end
  if d == 2 then
    fix = { { nodes = at { 0, 0 } }, { nodes = at { 1, 0 }, components = { 2 } } }
  else
    fix = { { nodes = at { 0, 0, 0 } }, { nodes = at { 1, 0, 0 }, components = { 2, 3 } },
      { nodes = at { 0, 1, 0 }, components = { 3 } } }
  end
  local st = m:solve_static { loads = loads, fix = fix, gravity = false }
  -- W: u_y(1,0,0) = eps_yx + W_yx = 0 -> W_yx = -eps_yx; u_z(1,0,0): W_zx = -eps_zx;
  -- u_z(0,1,0): W_zy = -eps_zy
  local W = {}
  for k = 1, d do W[k] = {} for l = 1, d do W[k][l] = 0 end end
  W[2][1] = -eps[2][1]; W[1][2] = eps[2][1]
  if d == 3 then
    W[3][1] = -eps[3][1]; W[1][3] = eps[3][1]
    W[3][2] = -eps[3][2]; W[2][3] = eps[3][2]
  end
  local err, umax = 0, 0
  for i = 1, m.nv do
    for k = 1, d do
      local u = 0
      for l = 1, d do u = u + (eps[k][l] + W[k][l]) * m.rest:get(i, l) end
      err = math.max(err, math.abs(m.x:get(i, k) - m.rest:get(i, k) - u))
      umax = math.max(umax, math.abs(u))
    end
  end
  print(string.format("%s traction patch: max node error %.2e of |u| %.2e, %d iterations", label, err, umax,
    st.iterations))
  T.check(st.converged, label .. " traction patch converged")
  T.check(err < 1e-10 * umax, label .. " traction patch reproduces the constant strain exactly")
end

patch_traction(box2(), "2D (plane strain)")
patch_traction(box3(), "3D")

------------------------------------------------- 2c. a collider as support
-- a block on a frictionless ground collider, pressed by a dead pressure p on
-- its top face, its left edge held in x only: uniaxial stress -p in y, so
-- (plane strain) u_y = -p (1 - nu^2) / E y and u_x = p nu (1 + nu) / E x,
-- exact for linear elements; the ground carries the load.
do
  local m = perturb(box2(), 1 / 4, 0.3)
  local E, nu, p = 1e4, 0.3, 50
  m:material { model = "linear", E = E, nu = nu }
  local ground = S.collider { shape = S.shape.plane { point = { 0, 0 }, normal = { 0, 1 } } }
  local st = m:solve_static { gravity = false, colliders = ground,
    loads = { { faces = { min = { -1, 1 - 1e-9 }, max = { 2, 2 } }, pressure = p } },
    fix = { { nodes = { min = { -1, -1 }, max = { 1e-9, 2 } }, components = { 1 } } } }
  local err = 0
  for i = 1, m.nv do
    local X, Y = m.rest:get(i, 1), m.rest:get(i, 2)
    err = math.max(err, math.abs(m.x:get(i, 2) - Y * (1 - p * (1 - nu * nu) / E)),
      math.abs(m.x:get(i, 1) - X * (1 + p * nu * (1 + nu) / E)))
  end
  print(string.format("block on a ground collider: max node error %.2e m (|u| %.1e), %d contact nodes, %d iterations",
    err, p / E, st.contacts, st.iterations))
  T.check(st.converged, "collider support converged")
  T.check(st.contacts == 5, "the 5 bottom nodes are in contact")
  T.check(err < 1e-12, "collider support: the uniaxial solution exactly")
end

-- a block resting on a frictionless ground under its weight, nothing fixed:
-- it may slide along the ground (rigid motions the stiffness cannot fix);
-- the solve converges to the equilibrium nearest the start, without drift
for _, dim in ipairs { 2, 3 } do
  local m = dim == 2 and S.box { min = { 0, 0 }, max = { 1, 0.5 }, cells = { 8, 4 } }
      or S.box { min = { 0, 0, 0 }, max = { 1, 0.5, 1 }, cells = { 4, 2, 4 } }
  m:material { model = "linear", E = 1e6, nu = 0.3 }
  local ground = S.collider { shape = S.shape.plane { point = dim == 2 and { 0, 0 } or { 0, 0, 0 },
    normal = dim == 2 and { 0, 1 } or { 0, 1, 0 } } }
  local st = m:solve_static { colliders = ground }
  -- the regularization picks the equilibrium with the least displacement:
  -- its mean displacement along the ground (the free rigid motion) is 0
  local ux, uz, low, umax = 0, 0, 0, 0
  for i = 1, m.nv do
    ux = ux + (m.x:get(i, 1) - m.rest:get(i, 1)) / m.nv
    if dim == 3 then uz = uz + (m.x:get(i, 3) - m.rest:get(i, 3)) / m.nv end
    umax = math.max(umax, math.abs(m.x:get(i, 2) - m.rest:get(i, 2)))
    low = math.min(low, m.x:get(i, 2))
  end
  print(string.format("%dD block on the ground: converged %s in %d iterations, %d contacts, mean u along the ground %.1e m (|u| %.1e m), lowest y %.1e",
    dim, tostring(st.converged), st.iterations, st.contacts, math.max(math.abs(ux), math.abs(uz)), umax, low))
  T.check(st.converged, dim .. "D block on a frictionless ground converges")
  T.check(st.contacts == (dim == 2 and 9 or 25), dim .. "D: the bottom nodes rest on the ground")
  T.check(math.abs(ux) < 1e-6 * umax and math.abs(uz) < 1e-6 * umax, dim .. "D: no drift along the ground")
  T.check(low > -1e-12, dim .. "D: nothing below the ground")
end

------------------------------------------- 2d. consistent nodal integration
-- a traction t on the top edge of a 2D box (4 segments of 0.25 m) and on
-- the top face of a 3D box (8 triangles): every face node gets t A_f / d,
-- so the forces sum to t times the loaded area, corner nodes get half (2D)
do
  local m = box2()
  local f = m:surface_forces { loads = { { faces = m:select_faces { min = { -1, 1 - 1e-9 }, max = { 2, 2 } }, traction = { 10, -100 } } } }
  local sx, sy, corner, mid = 0, 0, 0, 0
  for i = 1, m.nv do
    sx, sy = sx + f:get(i, 1), sy + f:get(i, 2)
    local x, y = m.rest:get(i, 1), m.rest:get(i, 2)
    if y > 1 - 1e-9 and x < 1e-9 then corner = f:get(i, 2) end
    if y > 1 - 1e-9 and math.abs(x - 0.5) < 1e-9 then mid = f:get(i, 2) end
  end
  T.near(sx, 10, 1e-12, "2D traction: total x force = t_x * length")
  T.near(sy, -100, 1e-12, "2D traction: total y force = t_y * length")
  T.near(corner, -12.5, 1e-12, "2D traction: a corner node gets half a segment's share")
  T.near(mid, -25, 1e-12, "2D traction: an inner node gets t h")
  local m3 = box3()
  local f3 = m3:surface_forces { loads = { { faces = m3:select_faces { min = { -1, 1 - 1e-9, -1 }, max = { 2, 2, 2 } }, pressure = 7 } } }
  local s3 = 0
  for i = 1, m3.nv do s3 = s3 + f3:get(i, 2) end
  T.near(s3, -7, 1e-12, "3D pressure on the top face: total force = -p n A")
end

---------------------------------------------------------------- selections
do
  local m = box2() -- 5 x 5 nodes on [0, 1]^2
  T.check(m:select_nodes { min = { -1, -1 }, max = { 0.3, 2 } }:size() == 10, "box: two columns of nodes")
  T.check(m:select_nodes(S.shape.sphere { center = { 0, 0 }, radius = 0.3 }):size() == 3,
    "shape: the nodes inside or on a disk of radius 0.3 at a corner")
  T.check(m:select_nodes(function(x, y) return x + y < 0.3 end):size() == 3, "predicate")
  T.check(m:select_nodes { 1, 2, 25 }:size() == 3, "index list")
  local f = m:select_faces { min = { -1, -1 }, max = { 2, 1e-9 } }
  T.check(f:size() == 4, "the bottom edge has 4 boundary segments")
  T.check(m:select_faces { 1, 7, 13 }:size() == 0, "faces need all their nodes selected (a diagonal: none)")
  T.check(m:select_faces { 1, 2, 3 }:size() == 2, "three bottom nodes: two segments")
  T.raises(function() m:select_nodes { 0 } end, "node index", "indices are checked")
end

--------------------------------------------------------------- 3. honesty
local function plate()
  local m = S.box { min = { 0, 0 }, max = { 1, 0.1 }, cells = { 20, 2 } }
  m:material { model = "neohookean", E = 1e6, nu = 0.3, density = 100, gravity = { 0, 0 } }
  m:pin(function(x) return x < 1e-9 end)
  return m
end
local m = plate()
local st = m:solve_static { loads = { { faces = { min = { 1 - 1e-9, -1 }, max = { 2, 1 } }, traction = { 0, -1e5 } } },
  maxit = 2, raise = false }
print(string.format("maxit = 2: converged %s, iterations %d, residual %.2e, increment %.2e, failed step %d",
  tostring(st.converged), st.iterations, st.residual, st.increment, st.failed_step))
T.check(st.converged == false, "the iteration limit is not convergence")
T.check(st.failed_step == 1 and st.iterations == 2, "reports the failed load step and the iterations")
T.check(st.residual > 1e-8 or st.increment > 1e-8, "reports a residual or increment above tolerance")
m = plate()
T.raises(function()
  m:solve_static { loads = { { faces = { min = { 1 - 1e-9, -1 }, max = { 2, 1 } }, traction = { 0, -1e5 } } },
    maxit = 2, steps = 4 }
end, "load step 1 of 4 did not converge", "raises naming the load step")
-- the same load converges with enough iterations; load steps reach the same state
m = plate()
st = m:solve_static { loads = { { faces = { min = { 1 - 1e-9, -1 }, max = { 2, 1 } }, traction = { 0, -1e5 } } } }
local tip1 = m.x:get(m.nv, 2)
print(string.format("converged %s in %d iterations: residual %.1e, increment %.1e, tip y %.6f",
  tostring(st.converged), st.iterations, st.residual, st.increment, tip1))
T.check(st.converged and st.residual <= 1e-6 and st.increment <= 1e-8, "converges: both criteria reported below tol")
T.check(tip1 < 0, "the tip moves along the load")
m = plate()
st = m:solve_static { loads = { { faces = { min = { 1 - 1e-9, -1 }, max = { 2, 1 } }, traction = { 0, -1e5 } } }, steps = 5 }
T.near(m.x:get(m.nv, 2), tip1, 1e-9, "load stepping reaches the same equilibrium")
-- a tolerance below the rounding floor: stopped as stagnated, not converged
m = plate()
st = m:solve_static { loads = { { faces = { min = { 1 - 1e-9, -1 }, max = { 2, 1 } }, traction = { 0, -1e5 } } },
  tol = 1e-18, raise = false }
print(string.format("tol = 1e-18: converged %s, stagnated %s after %d iterations, residual %.1e",
  tostring(st.converged), tostring(st.stagnated), st.iterations, st.residual))
T.check(not st.converged and st.stagnated and st.iterations < 50, "a residual at its rounding floor is reported, not claimed")
-- a body with free rigid motions
m = S.box { min = { 0, 0 }, max = { 1, 0.1 }, cells = { 4, 1 } }
m:material { model = "linear", E = 1e6, nu = 0.3 }
T.raises(function() m:solve_static {} end, "a free body has 3 rigid motions", "a free body is an error")
T.raises(function() m:solve_static { stepz = 2 } end, "stepz", "unknown options are errors")

os.exit(T.report())
