-- Help entries of tide.couple: Zarifi's clipped boundary and coupled pressure
-- projection, Liu's distance metric, joint solve and contact faces.
local see = "docs/couple.md"
return {
  ["tide.couple.clip"] = {
    sig = "tide.couple.clip{ grid = g, solid = m [, x = Array (nv, d)] } -> { n, cell, face, area, normal, bary, centroid, outside, total, N, C, J }",
    does = "Zarifi's clipped solid boundary: boundary triangles/segments split by the grid planes into per-cell pieces (area, normal into the solid, barycentric centroid) and the matrices N (pieces x cells), C (pieces x vertex dofs) and J = N^T C.",
    args = { { "grid", "tide.Grid", "required", "" }, { "solid", "tide.TetMesh (volume, same dim)", "required", "" }, { "x", "f64 Array (nv, d)", "m.x", "vertex positions [m]" } },
    returns = "table of piece arrays (cell 1-based, area [m^2 or m], normal, centroid [m]) and tide.Matrix N, C, J", ref = "Zarifi thesis Sec. 5.1.1, Eq. 5.7-5.13, Fig. 5.1", see = see,
  },
  ["tide.couple.project"] = {
    sig = "tide.couple.project{ u =, labels =, solids = {m, ...} | m, dt = [, rho = 1000, phi, fractions, formulation = \"spd\", solver, sigma = 0.9, alpha = \"auto\", tol = 1e-10, maxit, rotate = true, theta_min = 0.01, pressure, valid, matrix = false, must_converge = true] } -> stats",
    does = "Zarifi's strongly coupled pressure projection: liquid pressure and solid velocities in one system, as the symmetric indefinite system (5.17), its SPD transform (5.18-5.36) or the stress-variable factored form (5.37-5.45); u projected and the solids' velocities updated in place.",
    args = { { "u", "tide.Mac", "required", "u*, projected in place [m/s]" }, { "labels", "u8 cells", "required", "" }, { "solids", "tide.TetMesh or list", "required", "with materials" },
      { "dt", "number > 0", "required", "[s]" }, { "rho", "number > 0", "1000", "liquid density [kg/m^3]" }, { "phi", "f64 cells", "none", "ghost-fluid surface" },
      { "fractions", "f64 tide.Mac", "none", "open face fractions" }, { "formulation", "\"spd\" | \"indefinite\" | \"factored\"", "\"spd\"", "" },
      { "solver", "\"pcg\" | \"cholmod\" | \"bicgstab\" | \"minres\" | \"ldlt\"", "pcg (bicgstab for indefinite)", "" }, { "sigma", "number in (0, 1)", "0.9", "Z1 = sigma (1/dt + tau_M) M" },
      { "alpha", "\"auto\" | number > 0", "\"auto\" (|c1|/|c2|)", "block scaling" }, { "tol", "number", "1e-10", "" }, { "maxit", "integer", "automatic", "" },
      { "rotate", "boolean", "true", "corotated stiffness" }, { "theta_min", "number", "0.01", "" }, { "pressure", "f64 cells", "none", "receives p [Pa]" },
      { "valid", "u8 tide.Mac", "none", "receives the projected faces" }, { "matrix", "boolean", "false", "return the system matrix in stats" }, { "must_converge", "boolean", "true", "" } },
    returns = "{ unknowns, liquid, solid_dofs, nonzeros, pieces, iterations, residual, converged, alpha, geometry_seconds, assembly_seconds, solve_seconds, formulation, solver [, matrix] }",
    ref = "Zarifi thesis Eq. 5.17, 5.25-5.36, 5.37-5.45; Alg. 4 line 7", see = see,
  },
  ["tide.couple.liu_distance"] = {
    sig = "tide.couple.liu_distance{ grid = g, phi = phi, x = X [, interp = \"quadratic\"] } -> d",
    does = "The distance of Liu Eq. 14-16 of every vertex (rows of X) to the liquid {phi < 0}, > 0 outside it; linear (fixed dual-cell stencil) or quadratic B-spline (C1) interpolation.",
    args = { { "grid", "tide.Grid", "required", "" }, { "phi", "f64 cells", "required", "" }, { "x", "f64 Array (n, dim)", "required", "[m]" }, { "interp", "\"linear\" | \"quadratic\"", "\"quadratic\"", "" } },
    returns = "f64 Array (n) [m]", ref = "Liu et al. 2024, Eq. 14-16, 21, Fig. 5", see = see,
  },
  ["tide.couple.liu_solve"] = {
    sig = "tide.couple.liu_solve{ grid, phi, phi_star, x, x_star, mass, dt [, fixed, tracker, interp, dhat, kappa, rho = 1000, band, tol, vol_tol = 1e-4, max_iter = 30, line_search = true, solver = \"cholmod\"] } -> stats",
    does = "Liu's joint Newton solve of Eq. 22: the level-set band and the vertex positions under the barrier between them, one volume constraint per liquid component (KKT Schur complement), l1-merit backtracking filtered by the CCD bound; phi and x updated in place; the iteration cap is reported.",
    args = { { "grid", "tide.Grid", "required", "" }, { "phi", "f64 cells", "required", "phi^n in, phi^{n+1} out" }, { "phi_star", "f64 cells", "required", "advected level set" },
      { "x, x_star", "f64 Arrays (nv, dim)", "required", "x^n in, x^{n+1} out; predicted positions [m]" }, { "mass", "number or f64 Array (nv)", "required", "vertex masses [kg]" },
      { "dt", "number > 0", "required", "[s]" }, { "fixed", "u8 Array (nv)", "none", "vertices held" }, { "tracker", "tide.VolumeTracker", "none (no volume constraint)", "" },
      { "interp", "\"linear\" | \"quadratic\"", "\"quadratic\"", "" }, { "dhat", "number >= 0", "0.5 dx", "barrier distance [m]" }, { "kappa", "number >= 0", "rho * cell volume", "barrier stiffness" },
      { "rho", "number", "1000", "[kg/m^3]" }, { "band", "number >= 0", "3 dx", "[m]" }, { "tol", "number >= 0", "1e-2 dx / dt", "" }, { "vol_tol", "number in [0, 1]", "1e-4", "relative volume tolerance" },
      { "max_iter", "integer 1..10000", "30", "" }, { "line_search", "boolean", "true", "" }, { "solver", "\"cholmod\" | \"bicgstab\"", "\"cholmod\"", "" } },
    returns = "{ iterations, converged, nphi, nx, pairs, dropped, penetrating, halvings, ccd_limited, components, krylov_iterations, min_d, step, alpha, vol_err, t_assemble, t_solve, t_ccd, t_search }", ref = "Liu et al. 2024, Eq. 20-22, Sec. 4.3.5", see = see,
  },
  ["tide.couple.liu_contact_faces"] = {
    sig = "tide.couple.liu_contact_faces{ grid, phi, x, v, u, fixed [, dhat = 0.5 dx, interp = \"quadratic\"] } -> n",
    does = "The velocity correction with contact (Eq. 23, Fig. 8): the liquid-air faces around the vertices within dhat of the liquid get the weighted vertex velocity in u and 1 in fixed, for tide.liquid.project{fixed = ...}.",
    args = { { "grid", "tide.Grid", "required", "" }, { "phi", "f64 cells", "required", "" }, { "x, v", "f64 Arrays (nv, dim)", "required", "vertex positions [m], velocities [m/s]" },
      { "u", "f64 tide.Mac", "required", "receives face velocities" }, { "fixed", "u8 tide.Mac", "required", "receives the marks" }, { "dhat", "number >= 0", "0.5 dx", "[m]" },
      { "interp", "\"linear\" | \"quadratic\"", "\"quadratic\"", "" } },
    returns = "number of faces set", ref = "Liu et al. 2024, Eq. 23, Fig. 8", see = see,
  },
}
