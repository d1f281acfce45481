-- Help entries of Liu et al.'s coupling: tide.couple.liu_* and the recipe tide.liu.
local see = "docs/couple.md (Liu)"
return {
  ["tide.couple.liu_distance"] = {
    sig = "tide.couple.liu_distance{ grid = g, phi = phi, x = X, interp = \"quadratic\" } -> d",
    does = "Vertex-to-liquid distance d(phi, x) = sum_c w_c(x) phi_c interpolated from the cell-centred level set at each row of X ({nv, dim}), > 0 outside the liquid.",
    args = {
      { "grid, phi", "tide.Grid, cell array", "required", "the level set (liquid: phi < 0)" },
      { "x", "{nv, dim} f64", "required", "vertex positions [m]" },
      { "interp", "\"linear\" | \"quadratic\"", "\"quadratic\"", "multilinear over the dual cell (Fig. 5) or the quadratic B-spline (C1)" },
    },
    returns = "{nv} f64 distances [m]",
    ref = "Liu et al. 2024 Eq. 14-16, 21",
    see = see,
  },
  ["tide.couple.liu_solve"] = {
    sig = "tide.couple.liu_solve{ grid, phi, phi_star, x, x_star, mass, dt, fixed | solid = m, tracker, interp, dhat, kappa, rho, band, tol, vol_tol, max_iter = 30, line_search = true, solver = \"cholmod\", ccd = \"common\", hessian = \"projected\" } -> stats",
    does = "The joint Newton solve of Eq. 22 over the narrow-band level-set values and the free vertex positions: liquid and solid inertia, the vertex-level-set barrier, one volume constraint per component of the tracker. phi (phi^n in) and x (x^n in, penetration-free) are updated in place.",
    args = {
      { "phi_star, x_star", "cells, {nv, dim}", "required", "the predictions phi*, x*" },
      { "mass", "number or {nv}", "required", "lumped vertex masses [kg]" },
      { "solid", "tide.TetMesh with a material", "none", "instead of x, x_star, mass, fixed: the mesh's nodes, its incremental potential as the solid term" },
      { "fixed", "{nv} u8", "none", "1: vertex held at x*" },
      { "tracker", "tide.grid.volume_tracker", "none (no constraint)", "components and reference volumes" },
      { "dhat, kappa", "numbers", "dx/2, rho dx^dim", "barrier threshold [m] and stiffness [kg]" },
      { "band", "number", "3 dx", "level-set unknowns: |phi*| or |phi^n| below it [m]" },
      { "line_search", "boolean", "true", "backtracking + CCD bound + feasibility; false: full Newton steps" },
      { "ccd", "\"common\" | \"paper\"", "\"common\"", "CCD bound: time at a common t, or the paper's min(gamma, beta)" },
      { "hessian", "\"projected\" | \"gauss_newton\"", "\"projected\"", "full barrier Hessian projected to PSD per pair, or Eq. 20" },
      { "solver", "\"cholmod\" | \"pcg\" | \"bicgstab\"", "\"cholmod\"", "linear solver of the SPD block: supernodal Cholesky, CG + IC(0), BiCGSTAB + ILU(0)" },
    },
    returns = "stats: iterations, converged, diverged, nphi, nx, pairs, rebased, dropped, penetrating, halvings, ccd_limited, shifted, components, krylov_iterations, min_d, step, alpha, vol_err, t_assemble, t_solve, t_ccd, t_search",
    ref = "Liu et al. 2024 Eq. 10-13, 18-22, Sec. 4.3.4-4.3.5",
    see = see,
  },
  ["tide.couple.liu_contact_faces"] = {
    sig = "tide.couple.liu_contact_faces{ grid, phi, x, v, u, fixed, dhat = dx/2, interp = \"quadratic\", air = false } -> n",
    does = "Eq. 23 / Fig. 8: the liquid-air faces (air = true: also the air faces) of the dual cells of the vertices within dhat of the liquid get the weighted vertex velocity in u and 1 in fixed (for tide.liquid.project{fixed = ...}).",
    args = {
      { "x, v", "{nv, dim} f64", "required", "vertex positions [m] and velocities [m/s]" },
      { "u, fixed", "f64 Mac, u8 Mac", "required", "written on the faces set only" },
    },
    returns = "number of faces set",
    ref = "Liu et al. 2024 Sec. 4.3.6, Eq. 23",
    see = see,
  },
  ["tide.liu.new"] = {
    sig = "tide.liu.new{ grid, phi, x, v, mass, fixed, gravity, walls, rho = 1000, sigma = 0, cfl = 1, interp = \"quadratic\", dhat, kappa, band, volume = true, line_search = true, hessian = \"projected\", ccd = \"common\", max_iter = 30, solver = \"cholmod\", air_faces = true, redistance_at = \"prediction\", ... } -> state",
    does = "State of Liu et al.'s coupled step (Algorithms 1-2) for a level-set liquid and solid vertices.",
    args = {
      { "x, v, mass, fixed", "{nv, dim}, {nv, dim}, number or {nv}, {nv} u8", "none", "the solid vertices" },
      { "air_faces", "boolean", "true", "first projection: solid velocity also on the air faces of the vertices within reach" },
      { "redistance_at", "\"prediction\" | \"after\"", "\"prediction\"", "redistance phi* before the solve, or phi^{n+1} after it (the paper)" },
    },
    returns = "state S (S.phi, S.u, S.x, S.v, S.t, S.last = stats of the last step)",
    ref = "Liu et al. 2024 Alg. 1-2",
    see = see,
  },
  ["tide.liu.step"] = {
    sig = "tide.liu.step(S, dt) -> stats",
    does = "One step: forces, projection, advection, prediction, the joint solve, velocities, projection with the contact faces; stats of the solve plus min_d, penetrating (vertices at d <= 0 after the step) and contact_faces.",
    returns = "stats (see tide.couple.liu_solve)",
    see = see,
  },
  ["tide.liu.max_dt"] = { sig = "tide.liu.max_dt(S) -> dt", does = "cfl cells per step at the fastest face or vertex, the gravity and capillary limits.", see = see },
  ["tide.liu.check"] = { sig = "tide.liu.check(S)", does = "Raise if a vertex ended the last step inside the liquid (the method's invariant).", see = see },
  ["tide.liu.run_scene"] = { sig = "tide.liu.run_scene(S, P, name, out, title) -> steps, iterations per step", does = "A scene's run: tide.run with liu.step and liu.check every step, PNG frames (level set and solid mesh) and, with P.vtk, the mesh as .vtu + .pvd.", see = see },
  ["tide.liu.volume"] = { sig = "tide.liu.volume(S) -> V", does = "Liquid volume (smoothed Heaviside, the constrained quantity) [m^dim].", see = see },
}
