-- Help entries of tide.solid: static equilibrium, loads, selections, pins and energies.
local see = "docs/solids.md"
local selection = "a function(x, y[, z]) -> boolean, a tide.Shape (phi <= 0), a region {min =, max =}, or a list / Array of 1-based node indices"
return {
  ["tide.TetMesh:solve_static"] = {
    sig = "m:solve_static{ steps = 1, loads =, body_force =, gravity = true, fix =, colliders =, tol = 1e-6, xtol = 1e-8, maxit = 50, project = false, solver = \"auto\", raise = true } -> stats",
    does = "Static equilibrium from the current positions: load-stepped Newton on the total potential sum V psi(F) - lambda f.(x - X) (+ follower pressure work) with a backtracking line search; pinned nodes move to m.target over the load steps; converged when the relative residual force <= tol AND the relative increment <= xtol.",
    args = {
      { "steps", "integer >= 1", "1", "load steps lambda = k/steps (loads, gravity, body force, prescribed displacements)" },
      { "loads", "list of {faces =, traction = {..}} | {faces =, pressure = p, follower = false}", "none", "surface loads [Pa] on boundary faces (indices or a node selection)" },
      { "body_force", "{bx, by[, bz]}", "0", "[N/m^3] (N/m^2 in 2D), consistent nodal integration" },
      { "gravity", "boolean", "true", "include m_i g" },
      { "fix", "node selection | { {nodes =, components = {..}}, ... }", "none", "extra fixed degrees of freedom, held where they are" },
      { "colliders", "collider or list", "none", "frictionless bound constraints" },
      { "tol, xtol", "numbers in [0, 1]", "1e-6, 1e-8", "relative residual force and relative increment" },
      { "maxit", "integer >= 1", "50", "Newton iterations per load step" },
      { "project", "boolean", "false", "PSD-project every element Hessian (else only where needed)" },
      { "solver", "\"auto\" | \"ldlt\" | \"cholmod\"", "\"auto\"", "direct solver (LU with follower pressure)" },
      { "raise", "boolean", "true", "raise an error naming the load step that does not converge; false returns converged = false" },
    },
    returns = "stats {converged, steps, failed_step, iterations, line_search, projected, residual, increment, stagnated, contacts, seconds}",
    ref = "docs/solids.md 'Static equilibrium'",
    see = see,
  },
  ["tide.TetMesh:surface_forces"] = {
    sig = "m:surface_forces{ loads = {...} } -> Array (nv, d)",
    does = "Consistent nodal forces [N] of surface loads: load * face area / d on each face node (follower pressures on the current surface).",
    args = { { "loads", "list", "required", "as in solve_static" } },
    returns = "tide.Array (nv, d)",
    see = see,
  },
  ["tide.TetMesh:select_nodes"] = {
    sig = "m:select_nodes(selection) -> Array (k) i32",
    does = "1-based indices of the selected nodes.",
    args = { { "selection", selection, "required", "at the current positions" } },
    returns = "tide.Array (k) i32",
    see = see,
  },
  ["tide.TetMesh:select_faces"] = {
    sig = "m:select_faces(selection) -> Array (k) i32",
    does = "1-based boundary faces (rows of m:boundary()) whose nodes are all selected.",
    args = { { "selection", selection, "required", "a node selection" } },
    returns = "tide.Array (k) i32",
    see = see,
  },
  ["tide.TetMesh:pin"] = {
    sig = "m:pin(selection) -> count",
    does = "Make the selected nodes kinematic: integrators move them to m.target (set to their current position); solve_static prescribes them.",
    args = { { "selection", selection, "required", "" } },
    returns = "number of selected nodes",
    see = see,
  },
  ["tide.TetMesh:unpin"] = {
    sig = "m:unpin(selection) -> count",
    does = "Free the selected nodes.",
    args = { { "selection", selection, "required", "" } },
    returns = "number of selected nodes",
    see = see,
  },
  ["tide.TetMesh:energy"] = { sig = "m:energy() -> J", does = "Elastic energy sum V_e psi(F_e) at the current positions.", see = see },
  ["tide.TetMesh:total_energy"] = { sig = "m:total_energy() -> J", does = "Kinetic + elastic - sum m_i g . x_i.", see = see },
  ["tide.TetMesh:forces"] = { sig = "m:forces() -> Array (nv, d)", does = "Elastic nodal forces -dE/dx [N] at the current positions.", see = see },
}
