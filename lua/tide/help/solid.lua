-- Help entries of tide.solid (meshes, materials, integrators, colliders) and
-- the tide.TetMesh / tide.solid.Collider methods.
local see = "docs/solids.md"
local COLL = { "colliders", "list of tide.solid.Collider", "none", "rigid bodies the nodes may not enter" }
local CONTACT = { "contact", "\"friction\" | \"simple\"", "\"friction\"", "Irving's Gamma with friction / Zarifi's projection" }
return {
  ["tide.solid.box"] = {
    sig = "tide.solid.box{ min = {x0, y0[, z0]}, max = {..}, cells = {nx, ny[, nz]} } -> TetMesh",
    does = "A regular box mesh: each cube split into 6 tetrahedra around its main diagonal (Kuhn, conforming), each square into 2 triangles.",
    args = { { "min, max", "lists of 2 or 3 numbers", "required", "corners [m]" }, { "cells", "list of dim integers 1..4096", "required", "cells per axis" } },
    returns = "tide.TetMesh (no material yet)", see = see,
  },
  ["tide.solid.bcc"] = {
    sig = "tide.solid.bcc{ shape = Shape, h = spacing [, min =, max =, quality = 0.1] } -> TetMesh",
    does = "A body-centred cubic lattice (cube corners and centres; 2D: square centres with 4 triangles per square) cut by a signed distance: elements inside kept, boundary nodes snapped to the surface, slivers below `quality` removed.",
    args = { { "shape", "tide.Shape", "required", "the body (phi < 0)" }, { "h", "number > 0", "required", "lattice spacing [m]" },
      { "min, max", "lists of dim numbers", "the shape's bounds", "lattice box [m]" }, { "quality", "number in [0, 0.9]", "0.1", "smallest element quality kept" } },
    returns = "tide.TetMesh", ref = "Molino, Bridson, Teran & Fedkiw 2003 (BCC lattice)", see = see,
  },
  ["tide.solid.mesh"] = {
    sig = "tide.solid.mesh{ nodes = Array (nv, d), elements = Array (ne, d+1) } -> TetMesh", does = "A mesh from arrays (copied); elements hold 1-based node indices.",
    args = { { "nodes", "tide.Array (nv, d)", "required", "[m]" }, { "elements", "tide.Array (ne, d+1)", "required", "1-based node indices" } },
    returns = "tide.TetMesh", see = see,
  },
  ["tide.solid.read"] = {
    sig = "tide.solid.read(path) -> mesh | nil, message",
    does = "Read a mesh: .msh Gmsh ASCII v2 and v4, TetGen/Triangle .node/.ele (a stem or either file; 0- or 1-based), .obj (a triangle surface in 3D).",
    args = { { "path", "string", "required", "" } }, returns = "tide.TetMesh, or nil and a message (missing or malformed file)", see = see,
  },
  ["tide.solid.lame"] = {
    sig = "tide.solid.lame(E, nu) -> lambda, mu", does = "Lame parameters lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = E / (2 (1 + nu)).",
    args = { { "E", "number >= 0", "required", "Young's modulus [Pa]" }, { "nu", "number in (-1, 0.5)", "required", "Poisson's ratio" } },
    returns = "lambda, mu [Pa]", ref = "Zarifi Eq. 3.9-3.10", see = see,
  },
  ["tide.solid.collider"] = {
    sig = "tide.solid.collider{ shape = Shape | grid = Grid, phi = Array, mu = 0, position =, velocity =, omega =, thickness = 0 } -> Collider",
    does = "A rigid body given by a signed distance in its own frame (an analytic shape or cell samples on a grid, trilinear), placed by x = R y + p and moving with a linear and angular velocity.",
    args = { { "shape | grid, phi", "tide.Shape | tide.Grid and f64 cells", "required", "the body (phi < 0 inside)" }, { "mu", "number >= 0", "0", "Coulomb friction coefficient" },
      { "position", "list of dim numbers", "0", "p [m]" }, { "velocity", "list of dim numbers", "0", "[m/s]" }, { "omega", "number (2D) or {wx, wy, wz}", "0", "angular velocity [rad/s]" },
      { "thickness", "number >= 0", "0", "offset of the surface [m]" } },
    returns = "tide.solid.Collider", ref = "Irving thesis 3.2", see = see,
  },
  ["tide.solid.Collider:advance"] = { sig = "c:advance(dt) -> c", does = "Move the body with its current velocities for dt.", args = { { "dt", "number", "required", "[s]" } }, returns = "c", see = see },
  ["tide.solid.Collider:set"] = {
    sig = "c:set{ position =, velocity =, omega =, mu =, thickness = } -> c", does = "Change the body's placement, motion or friction (absent keys unchanged).",
    args = { { "position, velocity, omega, mu, thickness", "as tide.solid.collider", "unchanged", "" } }, returns = "c", see = see,
  },
  ["tide.solid.Collider:phi"] = {
    sig = "c:phi(x) -> distance, {normal}, {body velocity}", does = "Signed distance, outward normal and the body's velocity at point x.",
    args = { { "x", "list of dim numbers", "required", "[m]" } }, returns = "number [m], list, list [m/s]", see = see,
  },
  ["tide.solid.Collider:free"] = { sig = "c:free()", does = "Release the collider now.", args = {}, returns = "nothing", see = see },
  ["tide.TetMesh:material"] = {
    sig = "m:material{ model = \"neohookean\", E =, nu = 0.3 | mu =, lambda =, density = 1000, gravity, gamma, spline_lo, spline_hi, spline_klo, spline_khi, fiber_k, fiber, damping_alpha, damping_beta, rayleigh_mass, rayleigh_stiffness, plane_stress = false } -> m",
    does = "Give the mesh a hyperelastic material: lumped masses, forces and the integrators' energy Psi(F); 2D is plane strain unless plane_stress.",
    args = { { "model", "\"linear\" | \"rotated_linear\" (\"corotational\") | \"neohookean\" | \"neohookean_j\" | \"stvk\" | \"spline\" | \"fixed_corotated\"", "\"neohookean\"", "" },
      { "E, nu", "numbers", "E required, nu 0.3", "Young's modulus [Pa], Poisson's ratio (or mu, lambda [Pa])" }, { "density", "number >= 0", "1000", "[kg/m^3] (kg/m^2 in 2D)" },
      { "gravity", "list of dim numbers", "{0, -9.81[, 0]}", "[m/s^2]" }, { "gamma", "number in (0, 1)", "0.1", "neo-Hookean: J below which the volume term is extrapolated" },
      { "spline_lo, spline_hi", "numbers", "0.7, 1.4", "spline: compression / elongation thresholds on the singular values" },
      { "spline_klo, spline_khi", "numbers >= 0", "20 mu", "spline: stress slopes beyond them [Pa]" }, { "fiber_k, fiber", "number [Pa], unit vector", "0, none", "anisotropic fibre stiffness and direction" },
      { "damping_alpha, damping_beta", "numbers >= 0", "0", "damping in the rotated frame, volumetric and shear [Pa s] (Irving 2.6.2)" },
      { "rayleigh_mass, rayleigh_stiffness", "numbers >= 0", "0", "D = tau_M M + tau_K K [1/s], [s] (Zarifi 3.50)" }, { "plane_stress", "boolean", "false", "2D: exact plane-stress condensation" } },
    returns = "m", ref = "Zarifi ch. 3; Irving thesis ch. 2; Stomakhin et al. 2012 (fixed corotated)", see = see,
  },
  ["tide.TetMesh:fibers"] = {
    sig = "m:fibers(Array (ne, d) | nil) -> m", does = "Per-element fibre directions of the anisotropic term (nil: the material's one direction).",
    args = { { "dirs", "tide.Array (ne, d) or nil", "required", "unit vectors" } }, returns = "m", see = see,
  },
  ["tide.TetMesh:plasticity"] = {
    sig = "m:plasticity{ yield = gamma, limit = 3 [, goal = Array (ne, d, d), isochoric] } -> m",
    does = "Plasticity F = F_e F_p: after each position update the return mapping scales log F_e back to |log F_e| = yield, F_p's singular values clamped to [1/limit, limit]; isochoric acts on the deviatoric part only (volume kept); a goal steers the plastic stretch.",
    args = { { "yield", "number >= 0", "required", "gamma, yield log stretch" }, { "limit", "number >= 1", "3", "bound of F_p's singular values" },
      { "goal", "tide.Array (ne, d, d)", "none", "symmetric log goal plastic stretch per element" }, { "isochoric", "boolean", "true without a goal", "" } },
    returns = "m", ref = "Irving thesis 2.6.3, 2.7", see = see,
  },
  ["tide.TetMesh:plastic_flow"] = { sig = "m:plastic_flow() -> count", does = "Run the plastic return mapping at the current positions by hand.", args = {}, returns = "number of elements that yielded", see = see },
  ["tide.TetMesh:pin"] = {
    sig = "m:pin(selection) -> count",
    does = "Selected nodes become kinematic, their target is their current position (write m.target to move them). A selection holding no node is an error.",
    args = { { "selection", "function(x, y[, z]) -> bool, list of 1-based indices, index Array or {min =, max =}", "required", "" } }, returns = "number of nodes selected", see = see,
  },
  ["tide.TetMesh:unpin"] = {
    sig = "m:unpin(selection) -> count", does = "Selected nodes become free again (selection as m:pin).",
    args = { { "selection", "as m:pin", "required", "" } }, returns = "number of nodes selected", see = see,
  },
  ["tide.TetMesh:reset"] = { sig = "m:reset() -> m", does = "Positions back to rest, zero velocity (targets to rest for pinned nodes).", args = {}, returns = "m", see = see },
  ["tide.TetMesh:elements"] = { sig = "m:elements() -> Array (ne, d+1)", does = "Element node indices, a 1-based i32 copy (VTK order).", args = {}, returns = "i32 tide.Array", see = see },
  ["tide.TetMesh:boundary"] = { sig = "m:boundary() -> Array (nb, d)", does = "Boundary faces (triangles in 3D, segments in 2D), 1-based i32, outward oriented.", args = {}, returns = "i32 tide.Array", see = see },
  ["tide.TetMesh:boundary_nodes"] = { sig = "m:boundary_nodes() -> Array (nv)", does = "u8 flags, 1 on the boundary.", args = {}, returns = "u8 tide.Array", see = see },
  ["tide.TetMesh:boundary_normals"] = { sig = "m:boundary_normals() -> normals, areas", does = "Outward unit normals (nb, d) and areas (nb) of the boundary faces at the current positions.", args = {}, returns = "two tide.Arrays", see = see },
  ["tide.TetMesh:volume"] = { sig = "m:volume() -> V", does = "Current total signed volume (area in 2D).", args = {}, returns = "[m^3] ([m^2] in 2D)", see = see },
  ["tide.TetMesh:volumes"] = { sig = "m:volumes() -> Array (ne)", does = "Current signed element volumes.", args = {}, returns = "f64 tide.Array", see = see },
  ["tide.TetMesh:energy"] = { sig = "m:energy() -> E", does = "Elastic energy sum V_e Psi(F_e) at the current positions.", args = {}, returns = "[J]", see = see },
  ["tide.TetMesh:kinetic_energy"] = { sig = "m:kinetic_energy() -> E", does = "1/2 v^T M v with the lumped masses.", args = {}, returns = "[J]", see = see },
  ["tide.TetMesh:total_energy"] = { sig = "m:total_energy() -> E", does = "Kinetic + elastic + gravitational potential energy.", args = {}, returns = "[J]", see = see },
  ["tide.TetMesh:forces"] = { sig = "m:forces() -> Array (nv, d)", does = "Elastic nodal forces -dE/dx at the current positions.", args = {}, returns = "[N]", see = see },
  ["tide.TetMesh:step_linear"] = {
    sig = "m:step_linear{ dt =, corotational = true, solver = \"auto\", tol = 1e-8, maxit, colliders, contact = \"friction\", reuse = true } -> stats",
    does = "Zarifi's linearly implicit backward Euler (M/dt + D + dt K) v = M v*/dt - K x* + b + f with element rotations from the signed SVD, K = sum R K_t R^T, b = sum R K_t X; one linear solve per step; corotational = false is the pure linear model.",
    args = { { "dt", "number > 0", "required", "[s]" }, { "corotational", "boolean", "true", "" }, { "solver", "\"auto\" | \"cholmod\" | \"ldlt\" | \"pcg\"", "\"auto\"", "LDL^T below 1000 unknowns, supernodal Cholesky above" },
      { "tol", "number", "1e-8", "pcg tolerance" }, { "maxit", "integer", "automatic", "pcg iterations" }, COLL, CONTACT, { "reuse", "boolean", "true", "keep the symbolic factorization" } },
    returns = "{ iterations, residual, contacts, ... }", ref = "Zarifi Eq. 3.53-3.55", see = see,
  },
  ["tide.TetMesh:step_newmark"] = {
    sig = "m:step_newmark{ dt =, colliders, tol = 1e-10, maxit } -> stats",
    does = "Irving's Newmark scheme: half-step backward Euler for damping with explicit elasticity (matrix-free CG), position update, collisions (collision point, friction-corrected velocity), trapezoidal velocity update with constrained contact normals.",
    args = { { "dt", "number > 0", "required", "[s] (limited by the explicit elasticity)" }, COLL, { "tol", "number", "1e-10", "CG tolerance" }, { "maxit", "integer", "automatic", "" } },
    returns = "stats table", ref = "Irving thesis 3.1", see = see,
  },
  ["tide.TetMesh:step_newton"] = {
    sig = "m:step_newton{ dt =, tol = 1e-6, maxit = 50, project = true, reuse = true, solver = \"auto\", colliders, contact, eps_v = 1e-4, friction_iterations = 2, friction_tol = 0.02 } -> stats",
    does = "Backward Euler as minimisation of the incremental potential 1/2 |x - xhat|_M^2 + dt^2 sum V psi(F) + damping + IPC's smoothed lagged friction, subject to the colliders: projected Newton with PSD-projected element Hessians, CHOLMOD, Armijo line search. converged is true only when |dx|_inf/dt < tol.",
    args = { { "dt", "number > 0", "required", "[s]" }, { "tol", "number > 0", "1e-6", "|dx|_inf / dt [m/s]" }, { "maxit", "integer", "50", "Newton iterations" },
      { "project", "boolean", "true", "PSD-project element Hessians" }, { "reuse", "boolean", "true", "keep the symbolic analysis" }, { "solver", "\"auto\" | \"cholmod\" | \"ldlt\"", "\"auto\"", "" },
      COLL, CONTACT, { "eps_v", "number > 0", "1e-4", "friction: static/sliding speed [m/s]" }, { "friction_iterations", "integer 1..1000", "2", "lagged friction solves" },
      { "friction_tol", "number > 0", "0.02", "relative change of mu lambda that triggers another solve" } },
    returns = "{ converged, iterations, residual, friction_iterations, friction_change, ... }", ref = "Li et al. 2020 (IPC) Sec. 5; Bertsekas 1982 (projected Newton)", see = see,
  },
  ["tide.TetMesh:collide"] = {
    sig = "m:collide{ dt =, colliders =, contact = \"friction\" } -> count", does = "Project penetrating nodes out of the colliders and fix their velocities (what step_linear does after its update).",
    args = { { "dt", "number", "required", "[s]" }, COLL, CONTACT }, returns = "number of nodes in contact", ref = "Irving 2.9", see = see,
  },
  ["tide.TetMesh:stiffness"] = {
    sig = "m:stiffness{ rotate = true } -> K, b", does = "Zarifi's corotated K = sum R K_t R^T (nv d square) and b = sum R K_t X at the current positions (M is m.mass).",
    args = { { "rotate", "boolean", "true", "false: the linear K" } }, returns = "tide.Matrix, f64 Array (nv, d)", ref = "Zarifi Eq. 3.53-3.54", see = see,
  },
  ["tide.TetMesh:ip_hessian"] = {
    sig = "m:ip_hessian{ dt =, xhat = Array (nv, d) [, project = true, pinned = false] } -> H, E, g",
    does = "The incremental potential's value, gradient and (PSD-projected) Hessian at the current positions (upper storage); the solid part of Liu's joint solve.",
    args = { { "dt", "number >= 0", "required", "[s]" }, { "xhat", "tide.Array (nv, d)", "required", "predicted positions [m]" }, { "project", "boolean", "true", "" }, { "pinned", "boolean", "false", "keep pinned rows" } },
    returns = "tide.Matrix, number [J], tide.Array", ref = "Liu et al. 2024 Eq. 22", see = see,
  },
  ["tide.TetMesh:free"] = { sig = "m:free()", does = "Release the mesh now.", args = {}, returns = "nothing", see = see },
}
