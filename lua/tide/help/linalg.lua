-- Help entries of tide.linalg (sparse matrices, Krylov and direct solvers,
-- the matrix-free MAC Poisson operator and MGPCG) and its object types.
local see = "docs/linalg.md"
local seep = "docs/performance.md"
local PROBLEM = {
  { "grid | n, dx", "tide.Grid | {ni, nj[, nk]}, number", "required", "extents and cell size [m]" },
  { "labels", "u8 cells", "required", "0 air, 1 liquid, 2 solid" },
  { "weights", "{wu, wv[, ww]} or tide.Mac", "1", "face weights (open fractions of cut cells)" },
  { "theta", "{tu, tv[, tw]} or tide.Mac", "1", "ghost-fluid fractions on liquid-air faces" },
  { "phi", "f64 cells", "none", "liquid level set: theta = phi_l / (phi_l - phi_a) (instead of theta)" },
  { "theta_min", "number in [0, 1]", "0.01", "clamp of theta" },
}
local SOLVE = {
  { "tol", "number > 0", "1e-8 (Poisson: 1e-6)", "relative residual ||b - A x|| / ||b||" },
  { "maxit", "integer", "max(1000, 2 n)", "iteration limit" },
  { "must_converge", "boolean", "true", "false: return stats.converged = false instead of raising" },
}
local function cat(...)
  local t = {}
  for _, l in ipairs { ... } do for _, a in ipairs(l) do t[#t + 1] = a end end
  return t
end
local STATS = "{ iterations, residual, seconds, converged }"
return {
  ["tide.linalg.matrix"] = {
    sig = "tide.linalg.matrix{ n =, m = n, i =, j =, v = [, symmetric = false] } -> Matrix | tide.linalg.matrix(n, m, function(row) return cols, vals end)",
    does = "A sparse n x m matrix (CSR) from triplets (duplicates summed) or row by row; symmetric = true takes the full symmetric matrix and stores the upper triangle.",
    args = { { "n", "integer >= 1", "required", "rows" }, { "m", "integer >= 1", "n", "columns" },
      { "i, j", "tide.Array or list (1-based)", "required", "row and column of each triplet" }, { "v", "tide.Array or list", "required", "values" },
      { "symmetric", "boolean", "false", "store the upper triangle only" } },
    returns = "tide.Matrix (fields nrows, ncols, nnz, symmetric, ntriplets, bytes)", see = see,
  },
  ["tide.linalg.solve"] = {
    sig = "tide.linalg.solve{ A =, b = [, x, method = \"pcg\", precond, tol, maxit, nullspace = false, must_converge = true] } -> x, stats",
    does = "Solve A x = b once: pcg, minres, bicgstab (preconditioned Krylov) or cholesky, ldlt, lu (CHOLMOD / UMFPACK). nullspace = true projects the constant null space out (pure Neumann).",
    args = cat({ { "A", "tide.Matrix", "required", "" }, { "b", "f64 Array (n)", "required", "" }, { "x", "f64 Array (n)", "new (zeros)", "initial guess, receives the result" },
      { "method", "\"pcg\" | \"minres\" | \"bicgstab\" | \"cholesky\" | \"ldlt\" | \"lu\"", "\"pcg\"", "" },
      { "precond", "\"none\" | \"jacobi\" | \"ic0\" | \"mic0\" | \"ilu0\"", "ic0 (pcg), jacobi (minres), ilu0 (bicgstab)", "" },
      { "nullspace", "boolean", "false", "constant null space" } }, SOLVE),
    returns = "x, " .. STATS, ref = "Saad 2003 (Krylov, IC/ILU); Bridson 2015 ch. 5 (MIC(0))", see = see,
  },
  ["tide.linalg.solver"] = {
    sig = "tide.linalg.solver{ A =, method = \"pcg\", precond = } -> Solver",
    does = "A reusable solver: pattern analysis, preconditioner and work vectors kept across steps (S:refactor after new values, S:solve per right-hand side).",
    args = { { "A", "tide.Matrix", "required", "" }, { "method", "\"pcg\" | \"minres\" | \"bicgstab\"", "\"pcg\"", "" },
      { "precond", "\"none\" | \"jacobi\" | \"ic0\" | \"mic0\" | \"ilu0\"", "as tide.linalg.solve", "" } },
    returns = "tide.Solver", see = see,
  },
  ["tide.linalg.cholesky"] = {
    sig = "tide.linalg.cholesky(A [, { ordering = \"auto\" }]) -> Factor", does = "Supernodal Cholesky factorization (CHOLMOD) of an SPD matrix; errors name the non-positive pivot.",
    args = { { "A", "tide.Matrix (SPD)", "required", "" }, { "ordering", "string", "\"auto\"", "fill-reducing ordering: \"auto\" (AMD, and METIS too when the fill is high), \"amd\" (the cheap analysis for a pattern analysed anew each step) or \"metis\"; info().ordering says which ran" } }, returns = "tide.Factor", see = see,
  },
  ["tide.linalg.ldlt"] = {
    sig = "tide.linalg.ldlt(A [, { ordering = \"auto\" }]) -> Factor", does = "LDL^T factorization without pivoting of a symmetric quasi-definite matrix [H B^T; B -C]: CHOLMOD simplicial, or supernodal (BLAS-3 fronts, ldlt_super.c) when the analysis finds dense fronts and >= 50 MFlop of work; info().supernodal says which.",
    args = { { "A", "tide.Matrix (symmetric)", "required", "" }, { "ordering", "string", "\"auto\"", "fill-reducing ordering: \"auto\" (AMD, and METIS too when the fill is high), \"amd\" (the cheap analysis for a pattern analysed anew each step) or \"metis\"; info().ordering says which ran" } }, returns = "tide.Factor", see = see,
  },
  ["tide.linalg.lu"] = {
    sig = "tide.linalg.lu(A [, { ordering = \"auto\" }]) -> Factor", does = "LU factorization (UMFPACK) of a square matrix.",
    args = { { "A", "tide.Matrix", "required", "" }, { "ordering", "string", "\"auto\"", "fill-reducing ordering: \"auto\" (AMD, and METIS too when the fill is high), \"amd\" (the cheap analysis for a pattern analysed anew each step) or \"metis\"; info().ordering says which ran" } }, returns = "tide.Factor", see = see,
  },
  ["tide.linalg.condest"] = {
    sig = "tide.linalg.condest{ A = [, factor = F | method = \"lu\"] } -> cond, info",
    does = "Estimate of kappa_1(A) = ||A||_1 ||A^-1||_1: ||A||_1 exactly, ||A^-1||_1 by Hager's method with Higham's refinements (at most 11 solves through the factorization).",
    args = { { "A", "tide.Matrix", "required", "" }, { "factor", "tide.Factor", "new", "a factorization of A" },
      { "method", "\"lu\" | \"cholesky\" | \"ldlt\"", "\"lu\"", "factorization made when none is given" } },
    returns = "estimate (a lower bound), { norm, inv_norm, solves, seconds }", ref = "Higham 1988, ACM TOMS 14, Alg. 4.1 (LAPACK dlacn2)", see = see,
  },
  ["tide.linalg.poisson_solve"] = {
    sig = "tide.linalg.poisson_solve{ problem..., rhs =, p = [, method = \"mgpcg\", tol = 1e-6, maxit, must_converge, smooth = 1, boundary_sweeps = 4, band = 1] } -> stats",
    does = "Solve the MAC pressure Poisson problem A p = rhs on the liquid cells, matrix-free (ghost-fluid free surface, cut-cell weights); p is the initial guess and receives the result.",
    args = cat(PROBLEM, { { "rhs", "f64 cells", "required", "" }, { "p", "f64 cells", "required", "guess and result (0 off the liquid)" },
      { "method", "\"mgpcg\" | \"mic0\" | \"cg\"", "\"mgpcg\"", "multigrid-preconditioned CG, MIC(0)-PCG, CG" },
      { "smooth, boundary_sweeps, band", "integers", "1, 4, 1", "MGPCG: Jacobi sweeps, boundary sweeps, boundary band" } }, SOLVE),
    returns = "{ iterations, residual, seconds, setup_seconds, converged, levels, method }", ref = "McAdams, Sifakis & Teran 2010 (MGPCG); Gibou et al. 2002", see = seep,
  },
  ["tide.linalg.poisson_solver"] = {
    sig = "tide.linalg.poisson_solver{ problem..., method = \"mgpcg\", smooth, boundary_sweeps, band } -> PoissonSolver",
    does = "A reusable Poisson solver keeping its multigrid hierarchy and work vectors (s:update per time step, s:solve per right-hand side).",
    args = cat(PROBLEM, { { "method", "\"mgpcg\" | \"mic0\" | \"cg\"", "\"mgpcg\"", "" }, { "smooth, boundary_sweeps, band", "integers", "1, 4, 1", "MGPCG parameters" } }),
    returns = "tide.PoissonSolver", ref = "McAdams, Sifakis & Teran 2010", see = seep,
  },
  ["tide.linalg.poisson_apply"] = {
    sig = "tide.linalg.poisson_apply{ problem..., x =, y = } -> y", does = "y = A x with the matrix-free MAC Poisson operator.",
    args = cat(PROBLEM, { { "x", "f64 cells", "required", "" }, { "y", "f64 cells", "required", "result" } }), returns = "y", see = seep,
  },
  ["tide.linalg.poisson_matrix"] = {
    sig = "tide.linalg.poisson_matrix{ problem..., upper = false } -> Matrix, rows",
    does = "The assembled Poisson matrix over the liquid cells (same coefficients as the matrix-free operator).",
    args = cat(PROBLEM, { { "upper", "boolean", "false", "store the upper triangle only" } }),
    returns = "tide.Matrix, i32 cells rows (1-based row of each liquid cell, 0 elsewhere)", see = seep,
  },
  ["tide.Matrix:mul"] = {
    sig = "A:mul(x [, y]) -> y", does = "y = A x (also A * x; A * B is a sparse product, s * A a scaled copy).",
    args = { { "x", "f64 Array (ncols)", "required", "" }, { "y", "f64 Array (nrows)", "new", "must not share memory with x" } }, returns = "y", see = see,
  },
  ["tide.Matrix:diag"] = { sig = "A:diag() -> Array", does = "The diagonal as a new array.", args = {}, returns = "f64 Array (n)", see = see },
  ["tide.Matrix:transpose"] = { sig = "A:transpose() -> Matrix", does = "A new transposed matrix.", args = {}, returns = "tide.Matrix", see = see },
  ["tide.Matrix:clone"] = { sig = "A:clone() -> Matrix", does = "A copy.", args = {}, returns = "tide.Matrix", see = see },
  ["tide.Matrix:get"] = { sig = "A:get(i, j) -> value", does = "One entry (0 if not stored), 1-based.", args = { { "i, j", "integers", "required", "" } }, returns = "number", see = see },
  ["tide.Matrix:totriplets"] = { sig = "A:totriplets() -> i, j, v", does = "The stored entries as arrays (i, j 1-based i32).", args = {}, returns = "three Arrays", see = see },
  ["tide.Matrix:set_values"] = {
    sig = "A:set_values(v) -> A", does = "Pattern reuse: new values for the triplets A was built from, in the same order (one per triplet, duplicates included).",
    args = { { "v", "f64 Array (ntriplets)", "required", "" } }, returns = "A", see = see,
  },
  ["tide.Matrix:scale"] = {
    sig = "A:scale(left [, right]) -> A", does = "In place A <- diag(left) A diag(right); either may be nil (identity).",
    args = { { "left", "f64 Array (nrows) or nil", "required", "" }, { "right", "f64 Array (ncols)", "nil", "" } }, returns = "A", see = see,
  },
  ["tide.Matrix:free"] = { sig = "A:free()", does = "Release the matrix now.", args = {}, returns = "nothing", see = see },
  ["tide.Solver:solve"] = {
    sig = "S:solve{ b = [, x, tol, maxit, nullspace, must_converge] } -> x, stats", does = "Solve with the kept preconditioner and work vectors (warm start from x).",
    args = cat({ { "b", "f64 Array (n)", "required", "" }, { "x", "f64 Array (n)", "new", "guess and result" }, { "nullspace", "boolean", "false", "" } }, SOLVE),
    returns = "x, " .. STATS, see = see,
  },
  ["tide.Solver:refactor"] = {
    sig = "S:refactor([A]) -> S", does = "Recompute the preconditioner for new values (same pattern); A replaces the solver's matrix when given.",
    args = { { "A", "tide.Matrix", "the solver's", "same pattern" } }, returns = "S", see = see,
  },
  ["tide.Solver:free"] = { sig = "S:free()", does = "Release the solver now.", args = {}, returns = "nothing", see = see },
  ["tide.Factor:solve"] = {
    sig = "F:solve(b [, x]) -> x", does = "Solve with the factorization (forward and back substitution).",
    args = { { "b", "f64 Array (n)", "required", "" }, { "x", "f64 Array (n)", "new", "result" } }, returns = "x", see = see,
  },
  ["tide.Factor:refactor"] = {
    sig = "F:refactor(A) -> F", does = "Numeric factorization of new values with the same pattern (the analysis is kept).",
    args = { { "A", "tide.Matrix", "required", "same pattern" } }, returns = "F", see = see,
  },
  ["tide.Factor:info"] = {
    sig = "F:info() -> { kind, n, nnz_A, nnz_L, flops, bytes, analyze_seconds, factor_seconds, supernodal, refactors, blocks, ordering }",
    does = "Fill and work of the factorization (nnz_L is nnz(L) + nnz(U) for LU; blocks: the supernodal LDL^T's blocks of whole elimination trees run side by side, 1 for one sweep, 0 for the other methods; ordering: \"amd\" or \"metis\", the one the analysis used).", args = {}, returns = "table", see = see,
  },
  ["tide.Factor:free"] = { sig = "F:free()", does = "Release the factorization now.", args = {}, returns = "nothing", see = see },
  ["tide.PoissonSolver:solve"] = {
    sig = "s:solve{ rhs =, p = [, tol = 1e-6, maxit, must_converge = true] } -> stats", does = "Solve A p = rhs with the kept hierarchy (p: guess and result).",
    args = cat({ { "rhs", "f64 cells", "required", "" }, { "p", "f64 cells", "required", "" } }, SOLVE),
    returns = "{ iterations, residual, seconds, converged, levels, method }", see = seep,
  },
  ["tide.PoissonSolver:update"] = {
    sig = "s:update{ labels =, weights =, theta =, phi =, theta_min = } -> s", does = "The next time step's problem on the same grid extents: re-analyses labels and weights without reallocating.",
    args = PROBLEM, returns = "s", see = seep,
  },
  ["tide.PoissonSolver:info"] = {
    sig = "s:info() -> { method, levels, cells, liquid, band, bottom, floating, wavefronts, bytes, setup_seconds }",
    does = "The multigrid hierarchy: cells, liquid and band cells per level, bottom size, floating regions, memory.", args = {}, returns = "table", see = seep,
  },
  ["tide.PoissonSolver:free"] = { sig = "s:free()", does = "Release the solver now.", args = {}, returns = "nothing", see = seep },
}
