-- Help entries of tide.liquid's periodic free surfaces, probes and the tide.drop recipe's options.
local see = "docs/liquids-physics.md"
return {
  ["tide.Periodic:project"] = {
    sig = "P:project(u, { dt =, rho = [, labels, phi, theta_min = 0.01, tol = 1e-8, maxit, valid, pressure] }) -> u, stats",
    does = "Pressure projection on the torus: wrap-around neighbours, p = 0 at the air cell centres, or with phi on the interface (ghost fluid, theta = phi_l / (phi_l - phi_a) >= theta_min, the theta of tide.liquid.project and of the surface_tension jump).",
    args = {
      { "u", "tide.Mac (f64)", "required", "velocity, projected in place" },
      { "dt, rho", "numbers > 0", "required", "time step [s], density [kg/m^3]" },
      { "labels", "u8 cells", "all liquid", "0 air, 1 liquid, 2 solid" },
      { "phi", "f64 cells", "none", "liquid level set (< 0 inside): ghost-fluid free surface" },
      { "theta_min", "number in (0, 1]", "0.01", "clamp of theta" },
      { "valid", "u8 tide.Mac", "none", "receives the projected faces (for P:extend)" },
      { "pressure", "f64 cells", "none", "receives p [Pa]" },
    },
    returns = "u and {iterations, residual, unknowns, div_before, div_after}",
    ref = "Gibou et al. 2002; Bridson 2015 ch. 5",
    see = see,
  },
  ["tide.Periodic:extend"] = {
    sig = "P:extend(u, phi, valid [, { linear = true, maxdist = 0 }]) -> u",
    does = "Extend u from the valid faces into the air along the normals of phi on the torus: linear (tide.liquid.extend, Aslam 2004) or constant (tide.grid.extrapolate); valid updated.",
    args = {
      { "u", "tide.Mac (f64)", "required", "velocity" },
      { "phi", "f64 cells", "required", "level set, < 0 in the liquid" },
      { "valid", "u8 tide.Mac", "required", "source faces (e.g. from P:project)" },
      { "linear", "boolean", "true", "linear (true) or constant extension" },
      { "maxdist", "number >= 0", "0 (no limit)", "extend only to phi < maxdist [m]" },
    },
    returns = "u",
    see = see,
  },
  ["tide.Periodic:enforce_walls"] = {
    sig = "P:enforce_walls(u [, labels]) -> u",
    does = "Zero normal velocity on the walls of the non-periodic axes and on the faces of solid cells (wrap faces included); face n of a periodic axis copies face 0.",
    args = { { "u", "tide.Mac (f64)", "required", "velocity" }, { "labels", "u8 cells", "none", "2 = solid" } },
    returns = "u",
    see = see,
  },
  ["tide.Periodic:redistance"] = {
    sig = "P:redistance(phi [, { band = 0 }]) -> phi",
    does = "Signed distance on the torus (tide.grid.redistance on the grid padded by 8 cells per periodic axis).",
    args = { { "phi", "f64 cells", "required", "level set, redistanced in place" }, { "band", "number >= 0", "0 (whole grid)", "band [m]" } },
    returns = "phi",
    see = see,
  },
  ["tide.drop.new"] = {
    sig = "drop.new{ grid =, phi =, rho = 1000, sigma = 0, nu = 0, tension = \"ghost\", curvature = \"heights\", contact_angle = 90, periodic = {..}, gravity, solid, solid_phi, open, ... } -> state",
    does = "The grid-only level-set liquid with surface tension and viscosity; periodic = {true, false[, ..]} runs its operators on the torus (tide.liquid.periodic: advection, ghost-fluid projection, extension, redistancing).",
    args = {
      { "grid, phi", "tide.Grid, f64 cells", "required", "grid and liquid level set (< 0 inside)" },
      { "periodic", "list of dim booleans", "none (walls)", "periodic axes; excludes open" },
      { "contact_angle", "degrees in (0, 180)", "90", "static contact angle at walls and solids" },
    },
    returns = "state table (S.u, S.phi, S.pressure, S.labels, S.t, S.P)",
    see = see,
  },
}
