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
}
