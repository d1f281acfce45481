-- Help entries of the tide.drop recipe (grid-only level-set liquid with
-- surface tension and viscosity); tide.drop.new is in help/liquid.lua.
local see = "docs/liquids-physics.md"
local S_ = { "S", "drop state", "required", "from drop.new" }
return {
  ["tide.drop.step"] = {
    sig = "drop.step(S, dt) -> stats",
    does = "One step: advect phi (MacCormack, monotone cubic), redistance (with curvature = \"heights\": every step in 3D, every 10 in 2D; never with the default \"cells\"), restore each component's volume, advect the velocity, gravity and labels, variational viscosity, surface tension (ghost-fluid jump or Liu Eq. 8), ghost-fluid projection, extension into the air (extend: linear, constant, or linear_phi -- constant for u and a linearly extended copy that moves phi).",
    args = { S_, { "dt", "number > 0", "required", "[s]" } }, returns = "projection statistics",
    ref = "Selle et al. 2008; Liu et al. 2024 Sec. 4.2.2; Batty & Bridson 2008; Aslam 2004", see = see,
  },
  ["tide.drop.max_dt"] = {
    sig = "drop.max_dt(S) -> dt", does = "Largest stable step: cfl cells per step at the fastest face and the capillary limit sqrt(rho dx^3 / (2 pi sigma)) times `capillary`.",
    args = { S_ }, returns = "dt [s]", ref = "Brackbill, Kothe & Zemach 1992", see = see,
  },
  ["tide.drop.volume"] = {
    sig = "drop.volume(S) -> V", does = "Liquid volume with the smoothed Heaviside of the volume correction (tide.grid.volume).",
    args = { S_ }, returns = "[m^dim]", see = see,
  },
  ["tide.drop.open_weights"] = {
    sig = "drop.open_weights(grid, solid_phi [, out]) -> w",
    does = "Open (fluid) fraction of every cell cut by the solids of solid_phi (signed distance at the cell centres, < 0 inside): 2D the area on the open side of the plane through the centre value with the normal of grad solid_phi (exact for a straight wall), 3D clamp(1/2 + solid_phi / dx, 0, 1). The volume weights of tide.drop's and tide.zarifi's volume correction.",
    args = { { "grid", "tide.Grid", "required", "" }, { "solid_phi", "f64 cells", "required", "[m]" }, { "out", "f64 cells", "a new array", "filled and returned" } },
    returns = "f64 cells in [0, 1]", see = see,
  },
  ["tide.drop.disk"] = {
    sig = "drop.disk{ grid =, center = {x, y}, radius =, eps = 0, mode = 2, angle = 0 } -> phi",
    does = "Level set of a perturbed disk (2D): phi = |x - c| - R (1 + eps cos(mode (theta - angle))); close to a signed distance for small eps.",
    args = { { "grid", "tide.Grid (2D)", "required", "" }, { "center", "{x, y}", "required", "[m]" }, { "radius", "number > 0", "required", "R [m]" },
      { "eps", "number", "0", "relative amplitude" }, { "mode", "integer >= 0", "2", "" }, { "angle", "number", "0", "[rad]" } },
    returns = "f64 cells", see = see,
  },
  ["tide.drop.sphere"] = {
    sig = "drop.sphere{ grid =, center = {x, y, z}, radius =, eps = 0, mode = 2, axis = {0, 0, 1} } -> phi",
    does = "Level set of a perturbed ball (3D): phi = |x - c| - R (1 + eps P_mode(cos t)), t the angle to the axis, P_n the Legendre polynomial (the axisymmetric Rayleigh-Lamb mode).",
    args = { { "grid", "tide.Grid (3D)", "required", "" }, { "center", "{x, y, z}", "required", "[m]" }, { "radius", "number > 0", "required", "R [m]" },
      { "eps", "number in (-1, 1)", "0", "" }, { "mode", "integer >= 0", "2", "" }, { "axis", "{x, y, z}", "{0, 0, 1}", "nonzero" } },
    returns = "f64 cells", ref = "Lamb 1932, Art. 275", see = see,
  },
  ["tide.drop.quadrupole"] = {
    sig = "drop.quadrupole(S, c [, axis]) -> q1, q2 (2D) | q (3D)",
    does = "Second moments of the liquid about c with the cell fractions clamp(1/2 - phi/dx, 0, 1): 2D Ixx - Iyy and 2 Ixy [m^4] (pi R^4 a / 2 (cos, sin 2 theta0) for r = R (1 + a cos 2(theta - theta0))); 3D the P2 moment along the axis [m^5] (4 pi R^5 a / 5).",
    args = { S_, { "c", "{x, y[, z]}", "required", "centre [m]" }, { "axis", "{x, y, z}", "{0, 0, 1}", "3D only" } },
    returns = "numbers", see = see,
  },
}
