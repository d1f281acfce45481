-- Help entries of tide.grid (grids, MAC fields, level sets, advection, volume
-- correction), tide.shape and the tide.Grid / tide.Mac / tide.Shape /
-- tide.VolumeTracker / tide.AdvectWork methods.
local see = "docs/levelsets.md"
local seeg = "docs/liquids.md"
local DT = "\"f64\" | \"f32\" | \"i32\" | \"u8\""
local ADV = {
  { "rk", "2 | 3", "2", "backtrace: explicit midpoint (Zarifi Eq. 4.29-4.30) or Ralston's RK3" },
  { "interp", "\"linear\" | \"cubic\"", "\"linear\"", "interpolation; cubic = monotone Hermite (Fritsch-Carlson)" },
  { "scheme", "\"sl\" | \"maccormack\" | \"bfecc\"", "\"sl\"", "semi-Lagrangian, MacCormack (Selle 2008), BFECC (Kim 2005)" },
  { "clamp", "\"revert\" | \"extrema\" | \"none\" (or boolean)", "\"revert\"", "limiter against the stencil's extrema" },
  { "work", "tide.AdvectWork", "none", "reused scratch of MacCormack/BFECC" },
  { "region", "u8 cells", "all", "advect only these cells (faces: a region cell on either side), copy the rest; SL or MacCormack; the values in it bit-identical to a whole-grid advection" },
}
local VC = {
  { "band", "number > 0", "3 dx", "unknowns and air band [m]" },
  { "k", "number > 0", "3 / band", "Heaviside sharpness [1/m]" },
  { "air_density", "number in (0, 1]", "1e-3", "rho_a / rho_l of the mass M (Eq. 13)" },
  { "tol", "number > 0", "1e-12", "relative volume tolerance" },
  { "max_iter", "integer", "30", "Newton iterations" },
  { "redistance", "boolean", "true", "redistance after the correction" },
  { "redistance_band", "number >= 0", "whole grid", "band of that redistancing [m]" },
  { "passes", "integer >= 1", "1", "correct + redistance passes" },
  { "weights", "f64 cells in [0, 1]", "none (1)", "each cell counts w H(phi) dx^dim and its update is scaled by w (0: left alone): the open fraction of cells cut by a solid, so that phi continued into the solid is not liquid; a tracker keeps a copy" },
}
local function with(base, extra)
  local t = {}
  for _, a in ipairs(extra) do t[#t + 1] = a end
  for _, a in ipairs(base) do t[#t + 1] = a end
  return t
end
return {
  ["tide.grid.new"] = {
    sig = "tide.grid.new{ size = {ni, nj[, nk]}, dx = h [, origin = {x, y[, z]}] } -> Grid",
    does = "A uniform 2D or 3D grid of ni x nj[ x nk] square cells of size dx; cell (i, j, k) (1-based) has its centre at origin + (i - 1/2, j - 1/2, k - 1/2) dx.",
    args = { { "size", "list of 2 or 3 integers >= 1", "required", "cells per axis" }, { "dx", "number > 0", "required", "cell size [m]" },
      { "origin", "list of dim numbers", "{0, 0[, 0]}", "lower corner [m]" } },
    returns = "tide.Grid (fields g.dim, g.size, g.dx, g.origin)", see = seeg,
  },
  ["tide.grid.mac"] = {
    sig = "tide.grid.mac(g [, dtype [, value]]) -> Mac", does = "The same as g:mac: a MAC field (one face array per axis) on g.",
    args = { { "g", "tide.Grid", "required", "" }, { "dtype", DT, "\"f64\"", "" }, { "value", "number", "0", "initial value" } },
    returns = "tide.Mac", see = seeg,
  },
  ["tide.Grid:cells"] = {
    sig = "g:cells([dtype [, value]]) -> Array", does = "A new cell array of shape {ni, nj[, nk]}.",
    args = { { "dtype", DT, "\"f64\"", "" }, { "value", "number", "0", "initial value" } }, returns = "tide.Array", see = seeg,
  },
  ["tide.Grid:mac"] = {
    sig = "g:mac([dtype [, value]]) -> Mac", does = "A new MAC field: u (ni+1, nj[, nk]), v (ni, nj+1[, nk])[, w], zero or value on every face.",
    args = { { "dtype", DT, "\"f64\"", "" }, { "value", "number", "0", "initial value" } }, returns = "tide.Mac", see = seeg,
  },
  ["tide.Grid:centers"] = {
    sig = "g:centers() -> Array", does = "Cell centres, an array {ni, nj[, nk], dim} [m].", args = {}, returns = "tide.Array", see = seeg,
  },
  ["tide.Grid:center"] = {
    sig = "g:center(i, j[, k]) -> x, y[, z]", does = "Centre of cell (i, j[, k]) (1-based) [m].",
    args = { { "i, j[, k]", "integers", "required", "1-based cell" } }, returns = "dim numbers [m]", see = seeg,
  },
  ["tide.Grid:cell"] = {
    sig = "g:cell(x, y[, z]) -> i, j[, k]", does = "1-based indices of the cell holding the point (clamped to the grid).",
    args = { { "x, y[, z]", "numbers", "required", "point [m]" } }, returns = "dim integers", see = seeg,
  },
  ["tide.Grid:bounds"] = {
    sig = "g:bounds() -> {lo}, {hi}", does = "Lower and upper corners of the domain [m].", args = {}, returns = "two lists", see = seeg,
  },
  ["tide.Grid:sample"] = {
    sig = "g:sample(field, points [, out]) -> Array (n)", does = "Multilinear interpolation of a cell field at points (n, dim) (clamped at the walls).",
    args = { { "field", "tide.Array (cells)", "required", "" }, { "points", "tide.Array (n, dim)", "required", "[m]" }, { "out", "tide.Array (n)", "new", "" } },
    returns = "tide.Array (n)", see = seeg,
  },
  ["tide.Grid:advect"] = {
    sig = "g:advect(field, vel, dt [, out]) -> Array", does = "Semi-Lagrangian RK2 advection of a cell field by the MAC velocity (multilinear; tide.grid.advect_scalar has the other schemes).",
    args = { { "field", "tide.Array (cells)", "required", "" }, { "vel", "tide.Mac", "required", "[m/s]" }, { "dt", "number", "required", "[s]" }, { "out", "tide.Array", "new", "" } },
    returns = "the advected field", see = see,
  },
  ["tide.Grid:face_fractions"] = {
    sig = "g:face_fractions(solid [, { clamp = {0.01, 0.99}, exact = false, depth = 5, out = Mac, solid = u8 cells, band }]) -> fractions, labels",
    does = "Open (non-solid) fraction of every face (the cut-cell weights of the projection) and solid cell labels; solid is a tide.Shape or its signed distance at the nodes (ni+1, nj+1[, nk+1]); exact (shapes only) clips the faces adaptively `depth` levels; a shape of meshes only (polygons in 2D, closed triangle surfaces in 3D, through CSG and transforms) gets exact fractions instead: in 2D each cut face is split at its crossings with the polygons, in 3D each cut face is integrated exactly along one axis between the events of the surfaces' cross-section with its plane (more than 64 segments per face fall back to the subdivision), so the fractions are the exact lengths (areas) outside them and close every cell against the boundary pieces clipped from the same meshes (Zarifi Sec. 5.4) to round-off.",
    args = { { "solid", "tide.Shape or node Array", "required", "phi < 0 inside the solid" }, { "clamp", "{lo, hi}", "{0.01, 0.99}", "fractions below lo become 0, above hi 1" }, { "band", "number > 0", "none", "a Shape with exact = false: its node distances exact only within band [m] (Shape:sdf band)" },
      { "exact", "boolean", "false", "adaptive clipping instead of the node-SDF formula" }, { "depth", "integer 0..12", "5", "subdivision levels of exact (unused for shapes of meshes only, 2D and 3D)" },
      { "out", "tide.Mac (f64)", "new", "fractions" }, { "solid (option)", "u8 cell Array", "new", "receives the labels" } },
    returns = "tide.Mac of fractions in [0, 1], u8 cell labels (2 = solid)", ref = "Batty, Bertails, Bridson 2007; Ng, Min, Gibou 2009", see = seeg,
  },
  ["tide.Grid:free"] = { sig = "g:free()", does = "Release the grid now (later use is an error).", args = {}, returns = "nothing", see = seeg },
  ["tide.Mac:sample"] = {
    sig = "m:sample(points [, out]) -> Array (n, dim)", does = "Velocities at points, each component interpolated on its face lattice.",
    args = { { "points", "tide.Array (n, dim)", "required", "[m]" }, { "out", "tide.Array (n, dim)", "new", "" } }, returns = "tide.Array", see = seeg,
  },
  ["tide.Mac:advect"] = {
    sig = "m:advect(vel, dt [, out | { rk, interp, scheme, clamp, valid, work, region, out }]) -> Mac",
    does = "Advection of m by vel (m may be vel): semi-Lagrangian RK2 multilinear by default, the options of tide.grid.advect_mac with a table.",
    args = with(ADV, { { "vel", "tide.Mac", "required", "[m/s]" }, { "dt", "number", "required", "[s]" }, { "out", "tide.Mac", "new", "" } }),
    returns = "the advected field (new or out)", see = see,
  },
  ["tide.Mac:add_gravity"] = {
    sig = "m:add_gravity(dt [, g]) -> m", does = "u += dt g on every face.",
    args = { { "dt", "number", "required", "[s]" }, { "g", "{gx, gy[, gz]}", "{0, -9.81[, 0]}", "[m/s^2]" } }, returns = "m", see = seeg,
  },
  ["tide.Mac:max_speed"] = { sig = "m:max_speed() -> number", does = "Largest |face value| over all components [m/s].", args = {}, returns = "number", see = seeg },
  ["tide.Mac:divergence"] = {
    sig = "m:divergence([out]) -> Array", does = "Discrete divergence of every cell, sum of (u_right - u_left) / dx [1/s].",
    args = { { "out", "tide.Array (cells)", "new", "" } }, returns = "cell array", see = seeg,
  },
  ["tide.Mac:enforce_walls"] = {
    sig = "m:enforce_walls([labels [, separating = false [, fractions [, open]]]]) -> m",
    does = "Zero normal velocity on the domain walls, on faces of solid cells and on faces of open fraction 0; separating keeps velocities pointing away from a wall (u.n >= 0); open sides copy the next face inward instead.",
    args = { { "labels", "u8 cells", "none", "2 = solid" }, { "separating", "boolean", "false", "" }, { "fractions", "tide.Mac (f64)", "none", "open face fractions" },
      { "open", "side or list of sides (\"x+\", ...)", "none", "open domain sides" } },
    returns = "m", see = seeg,
  },
  ["tide.Mac:extrapolate"] = {
    sig = "m:extrapolate(valid [, layers = 2 [, clear = false]]) -> m",
    does = "Neighbour-average extrapolation from the faces marked in valid (updated in place) for `layers` layers; clear zeroes the faces still invalid.",
    args = { { "valid", "u8 tide.Mac", "required", "" }, { "layers", "integer >= 0", "2", "" }, { "clear", "boolean", "false", "" } },
    returns = "m", ref = "Bridson 2015, 4.4", see = seeg,
  },
  ["tide.Mac:copy"] = { sig = "m:copy(src) -> m", does = "Copy src's faces into m (same grid).", args = { { "src", "tide.Mac", "required", "" } }, returns = "m", see = seeg },
  ["tide.Mac:clone"] = { sig = "m:clone([dtype]) -> Mac", does = "A copy, optionally converted.", args = { { "dtype", DT, "m's", "" } }, returns = "tide.Mac", see = seeg },
  ["tide.Mac:fill"] = { sig = "m:fill(v) -> m", does = "Set every face to v.", args = { { "v", "number", "required", "" } }, returns = "m", see = seeg },
  ["tide.Mac:axpy"] = { sig = "y:axpy(alpha, x) -> y", does = "y <- y + alpha x on every face.", args = { { "alpha", "number", "required", "" }, { "x", "tide.Mac", "required", "" } }, returns = "y", see = seeg },
  ["tide.Mac:component"] = {
    sig = "m:component(a) -> Array", does = "The face array of axis a (1..dim), a view sharing memory (also m.u, m.v, m.w).",
    args = { { "a", "integer 1..dim", "required", "" } }, returns = "tide.Array", see = seeg,
  },
  ["tide.Mac:free"] = { sig = "m:free()", does = "Release the field now.", args = {}, returns = "nothing", see = seeg },
  ["tide.grid.sample_cubic"] = {
    sig = "tide.grid.sample_cubic(g, field, points [, out]) -> Array (n)",
    does = "Monotone cubic interpolation of a cell field at points: tensor-product Hermite cubics with Fritsch-Carlson limited slopes (no new extrema, exact for linear data).",
    args = { { "g", "tide.Grid", "required", "" }, { "field", "tide.Array (cells)", "required", "" }, { "points", "tide.Array (n, dim)", "required", "[m]" }, { "out", "tide.Array (n)", "new", "" } },
    returns = "tide.Array (n)", ref = "Fritsch & Carlson 1980", see = see,
  },
  ["tide.grid.advect_scalar"] = {
    sig = "tide.grid.advect_scalar{ grid = g, velocity = Mac, field = Array, dt = s [, rk, interp, scheme, clamp, valid, work, region, out] } -> out",
    does = "Advect a cell field: backtrace x0 through the MAC velocity, then semi-Lagrangian I f(x0), MacCormack f1 + (f - f0)/2 or BFECC, limited against the stencil's extrema.",
    args = with(ADV, { { "grid", "tide.Grid", "required", "" }, { "velocity", "tide.Mac", "required", "[m/s]" }, { "field", "tide.Array (cells)", "required", "" },
      { "dt", "number", "required", "[s]" }, { "valid", "u8 cells", "all", "cells whose values may be used" }, { "out", "tide.Array", "new", "" } }),
    returns = "out", ref = "Selle et al. 2008 (MacCormack); Kim et al. 2005 (BFECC)", see = see,
  },
  ["tide.grid.advect_mac"] = {
    sig = "tide.grid.advect_mac{ velocity = Mac, field = Mac, dt = s [, rk, interp, scheme, clamp, valid = u8 Mac, work, region = u8 cells, out = Mac] } -> out",
    does = "The options of advect_scalar applied to every face lattice of a MAC field.",
    args = with(ADV, { { "velocity", "tide.Mac", "required", "[m/s]" }, { "field", "tide.Mac", "required", "" }, { "dt", "number", "required", "[s]" },
      { "valid", "u8 tide.Mac", "all", "" }, { "out", "tide.Mac", "new", "" } }),
    returns = "out", see = see,
  },
  ["tide.grid.advect_work"] = {
    sig = "tide.grid.advect_work() -> AdvectWork", does = "Scratch memory of the MacCormack/BFECC advections, passed as `work` and reused between calls.",
    args = {}, returns = "tide.AdvectWork", see = see,
  },
  ["tide.AdvectWork:bytes"] = { sig = "W:bytes() -> n", does = "Bytes of scratch memory held.", args = {}, returns = "integer", see = see },
  ["tide.AdvectWork:free"] = { sig = "W:free()", does = "Release the scratch memory now.", args = {}, returns = "nothing", see = see },
  ["tide.grid.redistance"] = {
    sig = "tide.grid.redistance(g, phi [, { band = 0, order = 1 | 2, init = \"linear\" | \"cubic\" | \"subcell\", closest = 0, method = \"fmm\" | \"russo_smereka\", iterations = 10, work }]) -> phi",
    does = "phi becomes the signed distance to its zero level: interface cells initialised from the zero crossing, then fast marching (first or second order), in place. closest = n (cubic init): the cells within n dx take the distance to the closest point of the cubic interpolant's zero set too, with a defect correction that keeps that zero set in place over repeated calls (100 calls on a circle of 10 cells: crossings move 2.5e-4 dx, 1.1e-2 without). method = \"russo_smereka\": the reinitialisation PDE with the subcell fix instead of the march (first-order Godunov; drifts, docs/levelsets.md).",
    args = { { "g", "tide.Grid", "required", "" }, { "phi", "tide.Array (cells)", "required", "level set, < 0 inside" }, { "band", "number >= 0", "0 (whole grid)", "march only to |phi| < band [m]" },
      { "order", "1 | 2", "2", "upwind order of the marching" }, { "init", "\"linear\" | \"cubic\" | \"subcell\"", "\"cubic\"", "interface initialisation (subcell: Russo-Smereka's phi / |grad phi|)" },
      { "closest", "number >= 0", "0", "band of closest-point distances [cells], cubic init" },
      { "method", "\"fmm\" | \"russo_smereka\"", "\"fmm\"", "fast marching or the PDE with the subcell fix" }, { "iterations", "integer >= 1", "10", "pseudo-time steps dx / 2 of russo_smereka" },
      { "work", "tide.AdvectWork", "none", "scratch" } },
    returns = "phi", ref = "Sethian 1996; Chopp 2001 (second order, closest points); Russo & Smereka 2000 (subcell fix)", see = see,
  },
  ["tide.grid.extrapolate"] = {
    sig = "tide.grid.extrapolate{ phi =, field = cell Array | Mac, valid = u8 cells | u8 Mac [, grid = g, direction = 1 | -1, maxdist = 0] } -> field",
    does = "Extend field from the valid samples along the normal of phi (fast-marching order, upwind in the direction of increasing phi, or decreasing with direction = -1); valid is updated.",
    args = { { "phi", "tide.Array (cells)", "required", "level set" }, { "field", "cell Array or tide.Mac", "required", "extended in place" }, { "valid", "u8 cells or u8 Mac", "required", "source samples" },
      { "grid", "tide.Grid", "required for cell fields", "" }, { "direction", "1 | -1", "1", "towards phi > 0 or phi < 0" }, { "maxdist", "number >= 0", "0 (no limit)", "[m]" } },
    returns = "field", ref = "Adalsteinsson & Sethian 1999", see = see,
  },
  ["tide.grid.band_mask"] = {
    sig = "tide.grid.band_mask(g, phi, lo, hi [, out]) -> u8 cells",
    does = "1 where lo < phi < hi, else 0: e.g. the region of an advection, |phi| < w (lo = -w, hi = w) or the liquid and the air within w (lo = -math.huge).",
    args = { { "g", "tide.Grid", "required", "" }, { "phi", "tide.Array (cells)", "required", "" }, { "lo, hi", "numbers", "required", "[m]" },
      { "out", "u8 cells", "new", "" } }, returns = "u8 tide.Array (cells)", see = see,
  },
  ["tide.grid.valid_faces"] = {
    sig = "tide.grid.valid_faces(g, phi [, out]) -> Mac", does = "u8 MAC field, 1 on faces next to a cell with phi < 0.",
    args = { { "g", "tide.Grid", "required", "" }, { "phi", "tide.Array (cells)", "required", "" }, { "out", "u8 tide.Mac", "new", "" } }, returns = "u8 tide.Mac", see = see,
  },
  ["tide.grid.constrain_mac"] = {
    sig = "tide.grid.constrain_mac{ mac = u, keep = u8 Mac, solid_phi = Array [, solid_velocity = Mac] }",
    does = "Zarifi's constrained extrapolation: on faces with keep == 0 inside the solid, u_a <- u_a - ((u - u_s) . n) n_a with n = grad phi_s / |grad phi_s| (in place).",
    args = { { "mac", "tide.Mac", "required", "velocity" }, { "keep", "u8 tide.Mac", "required", "faces left unchanged" }, { "solid_phi", "Array at cells or nodes", "required", "< 0 in the solid" },
      { "solid_velocity", "tide.Mac", "0", "u_s [m/s]" } },
    returns = "nothing", ref = "Zarifi thesis Sec. 4.6", see = see,
  },
  ["tide.grid.particle_sdf"] = {
    sig = "tide.grid.particle_sdf{ grid = g, points = Array (n, dim), radius = r [, method = \"union\" | \"zhu_bridson\", kernel = R, reach, out] } -> phi",
    does = "Level set of a particle set at the cell centres: union of balls, or Zhu & Bridson's weighted average |x - x_avg| - r_avg with kernel radius R.",
    args = { { "grid", "tide.Grid", "required", "" }, { "points", "tide.Array (n, dim)", "required", "[m]" }, { "radius", "number >= 0", "required", "particle radius [m]" },
      { "method", "\"union\" | \"zhu_bridson\"", "\"union\"", "" }, { "kernel", "number >= 0", "2 radius", "kernel radius R [m]" }, { "reach", "number >= 0", "3 dx + kernel (union: + radius)", "distance up to which phi is computed [m]" },
      { "out", "tide.Array (cells)", "new", "" } },
    returns = "cell Array", ref = "Zhu & Bridson 2005", see = see,
  },
  ["tide.grid.volume"] = {
    sig = "tide.grid.volume(g, phi [, { band = 3 dx, k = 3 / band, weights }]) -> V",
    does = "The smoothed volume sum w H(phi) dx^dim, H = 1 / (1 + exp(2 k phi)), over the liquid cells and the air cells within band of them (what the volume correction measures; w = 1 without weights).",
    args = { { "g", "tide.Grid", "required", "" }, { "phi", "tide.Array (cells)", "required", "" }, { "band", "number > 0", "3 dx", "[m]" }, { "k", "number > 0", "3 / band", "[1/m]" },
      { "weights", "f64 cells in [0, 1]", "none (1)", "per-cell weights (the open fraction of cut cells)" } },
    returns = "volume [m^dim]", ref = "Liu et al. 2024, Eq. 10-11", see = see,
  },
  ["tide.grid.components"] = {
    sig = "tide.grid.components(g, phi [, { band = 3 dx }]) -> labels, n",
    does = "Connected components of the liquid (face-connected cells with phi < 0) plus the air cells within band joined breadth first to the nearest one.",
    args = { { "g", "tide.Grid", "required", "" }, { "phi", "tide.Array (cells)", "required", "" }, { "band", "number >= 0", "3 dx", "[m]" }, { "k", "number", "", "accepted for symmetry with tide.grid.volume" } },
    returns = "i32 cell labels 1..n (0 = far air), n", ref = "Liu et al. 2024 Sec. 4.2.2", see = see,
  },
  ["tide.grid.correct_volume"] = {
    sig = "tide.grid.correct_volume{ grid = g, phi = phi, target = V0 | {V1, ..., Vn} [, labels, band, k, air_density, tol, max_iter, redistance, redistance_band, passes, weights] } -> stats",
    does = "Liu's volume correction (in place): min 1/2 phi^T M phi - phi^T M phi* subject to sum H(phi) dx^d = V0 per component, by Newton on the KKT system (a scalar per component), then redistancing.",
    args = with(VC, { { "grid", "tide.Grid", "required", "" }, { "phi", "tide.Array (cells)", "required", "corrected in place" }, { "target", "number or list", "required", "volume(s) [m^dim]" },
      { "labels", "i32 cells", "one body", "components (tide.grid.components) for a list of targets" } }),
    returns = "{ iterations, passes, components, error_before, error_newton, error }", ref = "Liu et al. 2024, Eq. 10-13", see = see,
  },
  ["tide.grid.volume_tracker"] = {
    sig = "tide.grid.volume_tracker{ grid = g, phi = phi [, band, k, air_density, tol, max_iter, redistance, redistance_band, passes, weights] } -> VolumeTracker",
    does = "Records the liquid components of phi and their reference volumes (measured on a redistanced copy); vt:correct(phi) restores them after advection, following merges and splits.",
    args = with(VC, { { "grid", "tide.Grid", "required", "" }, { "phi", "tide.Array (cells)", "required", "initial level set" } }),
    returns = "tide.VolumeTracker", ref = "Liu et al. 2024 Sec. 4.2.2", see = see,
  },
  ["tide.VolumeTracker:correct"] = {
    sig = "vt:correct(phi) -> stats", does = "Relabel phi, give every new component the share of the old references it overlaps (merges add, splits divide), correct (tide.grid.correct_volume), redistance; the targets become the new references.",
    args = { { "phi", "tide.Array (cells)", "required", "corrected in place" } }, returns = "{ iterations, passes, components, error_before, error_newton, error }", ref = "Liu et al. 2024 Sec. 4.2.2", see = see,
  },
  ["tide.VolumeTracker:keep"] = {
    sig = "vt:keep(phi [, depth = dx / 4]) -> n", does = "Gather (in place) the tracked components that phi (advected, not yet redistanced) has lost or is losing: an old component none of whose cells is liquid now (a film whose cell centres are all in the air), and a component with no cell depth deep; its round(V0 / V_cell) deepest cells become liquid half a cell deep, its other cells air half a cell out, so that the next correct() holds it to its reference instead of dropping it. A minimum-thickness film of about a cell: the smoothed volume of a sheet thinner than that sits in cells around phi = 0 and no liquid cell is left to label it.",
    args = { { "phi", "tide.Array (cells)", "required", "changed in place" }, { "depth", "number in [0, dx]", "dx / 4", "[m]; 0: only the vanished ones" } }, returns = "the number of components gathered", ref = "Liu et al. 2024 Sec. 4.2.2 (Tide's addition)", see = see,
  },
  ["tide.VolumeTracker:add"] = {
    sig = "vt:add(body, volume)", does = "A body of liquid written into phi since the last correction (a drop) becomes a component with the given reference volume: the cells where body (its own level set) is below the band are labelled as it, so that the next correct() matches the new liquid to it. Without it a body placed within the air band of a tracked component gets a share of that component's reference and brings none of its own. A component whose every cell the body takes is merged into it.",
    args = { { "body", "tide.Array (cells)", "required", "the body's level set (large where it is far)" }, { "volume", "number >= 0", "required", "its reference volume [m^dim]" } }, returns = "nothing", ref = "Tide's addition", see = see,
  },
  ["tide.VolumeTracker:set_weights"] = {
    sig = "vt:set_weights(w | nil)", does = "Replace the cells' volume weights (a copy of w, f64 cells in [0, 1]; nil: none) that every later correct() uses: the open fractions of solids that moved since the tracker was made (tide.zarifi's surface tension renews them every step).",
    args = { { "w", "f64 cells in [0, 1] or nil", "required", "weights (nil: every cell 1)" } }, returns = "nothing", see = see,
  },
  ["tide.VolumeTracker:volumes"] = { sig = "vt:volumes() -> { V1, ..., Vn }", does = "The reference volumes of the tracked components [m^dim].", args = {}, returns = "list of numbers", see = see },
  ["tide.VolumeTracker:free"] = { sig = "vt:free()", does = "Release the tracker now.", args = {}, returns = "nothing", see = see },
  ["tide.shape.box"] = {
    sig = "tide.shape.box{ min = {x, y[, z]}, max = {..} } -> Shape", does = "Axis-aligned box; exact signed distance |max(q, 0)| + min(max_a q_a, 0), q = |x - c| - h.",
    args = { { "min, max", "lists of dim numbers", "required", "corners [m], min < max" } }, returns = "tide.Shape", see = see,
  },
  ["tide.shape.sphere"] = {
    sig = "tide.shape.sphere{ center = {x, y[, z]}, radius = r } -> Shape", does = "Ball (disk in 2D): |x - c| - r.",
    args = { { "center", "list of dim numbers", "required", "[m]" }, { "radius", "number > 0", "required", "[m]" } }, returns = "tide.Shape", see = see,
  },
  ["tide.shape.cylinder"] = {
    sig = "tide.shape.cylinder{ a = {..}, b = {..}, radius = r } -> Shape", does = "Capped cylinder with axis a -> b (2D: the rectangle around segment ab).",
    args = { { "a, b", "lists of dim numbers", "required", "axis end points [m]" }, { "radius", "number > 0", "required", "[m]" } }, returns = "tide.Shape", see = see,
  },
  ["tide.shape.capsule"] = {
    sig = "tide.shape.capsule{ a = {..}, b = {..}, radius = r } -> Shape", does = "Segment ab swept by a ball: dist(x, [a, b]) - r.",
    args = { { "a, b", "lists of dim numbers", "required", "[m]" }, { "radius", "number > 0", "required", "[m]" } }, returns = "tide.Shape", see = see,
  },
  ["tide.shape.plane"] = {
    sig = "tide.shape.plane{ point = {..}, normal = {..} } -> Shape", does = "Half space behind the normal: (x - p) . n / |n| (unbounded).",
    args = { { "point", "list of dim numbers", "required", "[m]" }, { "normal", "list of dim numbers", "required", "outward, nonzero" } }, returns = "tide.Shape", see = see,
  },
  ["tide.shape.torus"] = {
    sig = "tide.shape.torus{ center = {..}, axis = {..} (3D), R = major, r = minor } -> Shape", does = "Torus |(rho - R, h)| - r (3D), annulus ||x - c| - R| - r (2D); R > r.",
    args = { { "center", "list of dim numbers", "required", "[m]" }, { "axis", "{x, y, z}", "required in 3D", "" }, { "R", "number > 0", "required", "major radius [m]" }, { "r", "number > 0", "required", "minor radius [m]" } },
    returns = "tide.Shape", see = see,
  },
  ["tide.shape.mesh"] = {
    sig = "tide.shape.mesh{ vertices = Array (nv, dim), faces = Array (nf, dim) } -> Shape",
    does = "A closed triangle mesh (3D, counter-clockwise seen from outside) or polygon (2D): exact distance through a bounding-volume hierarchy, sign from the winding number (s.closed: the faces are a cycle, so grid evaluations carry the sign along each line wherever no face is near).",
    args = { { "vertices", "tide.Array (nv, dim)", "required", "[m]" }, { "faces", "tide.Array (nf, dim)", "required", "1-based vertex indices (i32 or f64)" } },
    returns = "tide.Shape", see = see,
  },
  ["tide.shape.union"] = {
    sig = "tide.shape.union(a, b, ...) -> Shape", does = "Union: min of the distances (also a + b).",
    args = { { "a, b, ...", "tide.Shape", "required", "" } }, returns = "tide.Shape", see = see,
  },
  ["tide.shape.intersection"] = {
    sig = "tide.shape.intersection(a, b, ...) -> Shape", does = "Intersection: max of the distances (also a * b).",
    args = { { "a, b, ...", "tide.Shape", "required", "" } }, returns = "tide.Shape", see = see,
  },
  ["tide.shape.difference"] = {
    sig = "tide.shape.difference(a, b, ...) -> Shape", does = "a minus the others: max(a, -b) (also a - b).",
    args = { { "a, b, ...", "tide.Shape", "required", "" } }, returns = "tide.Shape", see = see,
  },
  ["tide.shape.complement"] = {
    sig = "tide.shape.complement(a) -> Shape", does = "The outside of a: -a (also -a).",
    args = { { "a", "tide.Shape", "required", "" } }, returns = "tide.Shape", see = see,
  },
  ["tide.Shape:union"] = { sig = "s:union(b, ...) -> Shape", does = "Union with the others (tide.shape.union).", args = { { "b, ...", "tide.Shape", "required", "" } }, returns = "tide.Shape", see = see },
  ["tide.Shape:intersection"] = { sig = "s:intersection(b, ...) -> Shape", does = "Intersection with the others.", args = { { "b, ...", "tide.Shape", "required", "" } }, returns = "tide.Shape", see = see },
  ["tide.Shape:difference"] = { sig = "s:difference(b, ...) -> Shape", does = "s minus the others.", args = { { "b, ...", "tide.Shape", "required", "" } }, returns = "tide.Shape", see = see },
  ["tide.Shape:eval"] = {
    sig = "s:eval(x, y[, z]) -> phi | s:eval({x, y[, z]}) -> phi, normal | s:eval(points) -> Array (n)",
    does = "Signed distance (negative inside) at a point, with the outward normal for a table, or at every row of an array.",
    args = { { "point", "numbers, a list or an Array (n, >= dim)", "required", "[m]" } }, returns = "phi [m] (and the normal)", see = see,
  },
  ["tide.Shape:normal"] = { sig = "s:normal(x, y[, z]) -> nx, ny[, nz]", does = "Outward unit normal grad phi.", args = { { "x, y[, z]", "numbers", "required", "[m]" } }, returns = "dim numbers", see = see },
  ["tide.Shape:sdf"] = {
    sig = "s:sdf(g [, { at = \"cells\" | \"nodes\" | \"u\" | \"v\" | \"w\", out = Array, band }]) -> Array",
    does = "phi at the samples of grid g: cell centres {ni, nj[, nk]}, nodes (n + 1 per axis) or the faces of one MAC component. With band: bit for bit the same where |phi| < band, elsewhere a value of the right sign with |phi| >= band (mesh shapes skip their search far from their faces: ~5x faster for a solid in a 100^3 grid).",
    args = { { "g", "tide.Grid", "required", "" }, { "at", "string", "\"cells\"", "where" }, { "out", "tide.Array", "new", "" },
      { "band", "number > 0", "none (exact everywhere)", "[m]" } }, returns = "tide.Array [m]", see = see,
  },
  ["tide.Shape:bounds"] = { sig = "s:bounds() -> {lo}, {hi} | nil", does = "A box containing the inside, nil when unbounded (planes, complements).", args = {}, returns = "two lists or nil", see = see },
  ["tide.Shape:moved"] = {
    sig = "s:moved{ translation = {..}, rotation = R } -> Shape", does = "The shape rotated about the origin, then translated: a(R^T (x - t)).",
    args = { { "translation", "list of dim numbers", "0", "[m]" }, { "rotation", "dim rows, an angle (2D) or {axis =, angle =} (3D)", "none", "orthonormal, det +1; angles [rad], counter-clockwise / right-hand" } },
    returns = "tide.Shape", see = see,
  },
  ["tide.Shape:free"] = { sig = "s:free()", does = "Release the shape now.", args = {}, returns = "nothing", see = see },
}
