-- Help entries of the tide.liu recipe (Liu et al. 2024: level-set liquid and
-- solid vertices without penetration).
local see = "docs/couple.md"
local S_ = { "S", "liu state", "required", "from liu.new" }
return {
  ["tide.liu.new"] = {
    sig = "liu.new{ grid =, phi = [, x, v, mass, fixed, gravity, walls, rho = 1000, sigma = 0, cfl = 1, capillary = 0.5, interp = \"quadratic\", dhat, kappa, band, volume = true, line_search = true, max_iter = 30, tol, solver = \"cholmod\", contact_velocity = true, redistance = 1, advect = \"maccormack\", ptol = 1e-8] } -> S",
    does = "The state of Liu's coupled step: the liquid {phi < 0} on the grid and a set of solid vertices (rows of x with velocities, masses and fixed flags).",
    args = { { "grid", "tide.Grid", "required", "" }, { "phi", "f64 cells", "required", "copied" }, { "x", "f64 Array (nv, dim)", "none (liquid alone)", "vertex positions [m]" },
      { "v", "f64 Array (nv, dim)", "0", "[m/s]" }, { "mass", "number or Array (nv)", "required with x", "[kg]" }, { "fixed", "u8 Array (nv)", "none", "" },
      { "gravity", "{gx, gy[, gz]}", "none", "[m/s^2]" }, { "walls", "list of faces {axis, i, j[, k]}", "none", "held at zero velocity (Fig. 11a)" },
      { "rho", "number", "1000", "[kg/m^3]" }, { "sigma", "number >= 0", "0", "[N/m] (Eq. 8)" }, { "cfl, capillary", "numbers", "1, 0.5", "of max_dt" },
      { "interp", "\"linear\" | \"quadratic\"", "\"quadratic\"", "distance metric (Fig. 5)" }, { "dhat", "number", "dx / 2", "barrier threshold [m]" },
      { "kappa", "number", "rho dx^dim", "barrier stiffness [kg]" }, { "band", "number", "3 x the largest displacement, >= 2 dx + dhat", "[m]" },
      { "volume", "boolean", "true", "one volume constraint per component" }, { "line_search", "boolean", "true", "backtracking + CCD filter" },
      { "max_iter", "integer", "30", "Newton" }, { "tol", "number", "1e-3 dx / dt", "[m/s]" }, { "solver", "\"cholmod\" | \"bicgstab\"", "\"cholmod\"", "" },
      { "contact_velocity", "boolean", "true", "Eq. 23 faces in the projections" }, { "redistance", "integer", "1", "every n steps" }, { "advect", "string", "\"maccormack\"", "level-set advection" },
      { "ptol", "number", "1e-8", "pressure solve" } },
    returns = "the state S", ref = "Liu et al. 2024, Algorithms 1-2", see = see,
  },
  ["tide.liu.step"] = {
    sig = "liu.step(S, dt) -> stats",
    does = "Algorithm 1: position prediction (gravity and tension, projection with contact faces, advection; x* = x + dt v + dt^2 g), the constrained optimization of Eq. 22 (tide.couple.liu_solve), redistancing that keeps the contact cells, velocity correction (v = (x^{n+1} - x^n)/dt, projection with Eq. 23 faces).",
    args = { S_, { "dt", "number > 0", "required", "[s]" } }, returns = "statistics of the optimization (S.last)", ref = "Liu et al. 2024, Alg. 1-2, Eq. 5-7, 22-23", see = see,
  },
  ["tide.liu.max_dt"] = {
    sig = "liu.max_dt(S) -> dt", does = "Largest stable step: cfl cells per step at the fastest face or vertex, the gravity bound and the capillary limit.",
    args = { S_ }, returns = "dt [s]", see = see,
  },
  ["tide.liu.keep_contact"] = {
    sig = "liu.keep_contact(S, before)", does = "After redistancing, put back the optimized values of the cells around every vertex within dhat of the liquid (the barrier's distances stay).",
    args = { S_, { "before", "f64 cells", "required", "phi before the redistancing" } }, returns = "nothing", see = see,
  },
  ["tide.liu.check"] = {
    sig = "liu.check(S)", does = "Raise if a vertex is inside the liquid (the invariant of the method).",
    args = { S_ }, returns = "nothing", see = see,
  },
  ["tide.liu.volume"] = {
    sig = "liu.volume(S) -> V", does = "Liquid volume with the smoothed Heaviside of the constraint.", args = { S_ }, returns = "[m^dim]", ref = "Liu et al. 2024 Eq. 10-11", see = see,
  },
}
