-- Help entries of the tide.flip recipe (PIC / FLIP / APIC liquid step).
local see = "docs/liquids.md"
local S_ = { "S", "flip state", "required", "from flip.new" }
local DT = { "dt", "number > 0", "required", "time step [s]" }
return {
  ["tide.flip.new"] = {
    sig = "flip.new{ grid =, particles = [, scheme = \"flip\", flip = 0.97, rho = 1000, tol = 1e-8, maxit, method = \"pcg\", layers, cfl = 1, order = 2, per_cell, separation = 0.5, band = 0.3, mean = false, separate_cut = false, level_set = false, radius, sigma = 0, capillary = 0.5, surface_tension = {..}, phi, solid, gravity, fractions, solid_phi, solid_velocity, reseed, open, emitters, sinks] } -> S",
    does = "The state of the hybrid particle/grid liquid (Li's lecture loop with Zarifi's projection and extrapolation): velocities S.u, labels, pressure, optional cut cells, open sides, emitters, sinks and surface tension. Empty particles without emitters are an error.",
    args = {
      { "grid", "tide.Grid", "required", "" }, { "particles", "tide.Particles", "required", "apic needs apic = true" },
      { "scheme", "\"pic\" | \"flip\" | \"apic\"", "\"flip\"", "transfer" }, { "flip", "number in [0, 1]", "0.97", "FLIP blend (1 = pure FLIP)" },
      { "rho", "number > 0", "1000", "density [kg/m^3]" }, { "tol, maxit", "number, integer", "1e-8, solver default", "pressure solve" },
      { "method", "\"pcg\" | \"mgpcg\" | \"mic0\"", "\"pcg\"", "pressure solver" }, { "layers", "integer", "CFL number + 2", "extrapolation sweeps" },
      { "cfl", "number > 0", "1", "cells per step of max_dt" }, { "order", "1..3", "2", "particle advection" }, { "per_cell", "integer", "2^dim", "particles per cell at rest" },
      { "separation", "number >= 0", "0.5", "density correction strength per step (0: off)" }, { "band", "number", "0.3", "its dead band (per_cell units)" },
      { "mean", "boolean", "false", "correct by the mean interior density" }, { "separate_cut", "boolean | \"open\" | \"kernel\"", "false", "correct the cut cells (open face fractions < 1) too, against their open volume (tide.liquid.density_target's cut: true = \"open\", or \"kernel\" with S.solid_phi)" }, { "level_set", "false | \"zhu_bridson\" | \"union\"", "false", "particle level set for a ghost-fluid surface" },
      { "radius", "number", "dx / 2^(1/dim)", "its particle radius [m]" }, { "sigma", "number >= 0", "0", "surface tension [N/m]" },
      { "capillary", "number > 0", "0.5", "fraction of the capillary step in max_dt" },
      { "surface_tension", "{ method = \"ghost\" | \"liu\", curvature = \"heights\" | \"cells\", level_set = \"tracked\" | \"particles\", side, band, redistance, redistance_options, volume = true, contact_angle }", "ghost, cells (heights where contact_angle ~= 90), tracked; redistance_options { closest = 4 } with cells", "options of the tension" },
      { "phi", "f64 cells", "from the particles", "initial tracked level set" }, { "solid", "u8 cells", "none", "2 = solid" },
      { "gravity", "{gx, gy[, gz]}", "{0, -9.81[, 0]}", "[m/s^2]" }, { "fractions", "f64 tide.Mac", "none", "open face fractions (cut cells)" },
      { "solid_phi", "f64 cells", "none", "solid signed distance (keeps particles out)" }, { "solid_velocity", "f64 tide.Mac", "0", "[m/s]" },
      { "reseed", "{min =, max =}", "none", "keep particles per bulk cell in range" }, { "open", "list of sides", "all walls", "sides where liquid leaves" },
      { "emitters", "list of {shape =, velocity =, per_cell, start, stop}", "none", "inflows, active for start <= t < stop [s]" },
      { "sinks", "list of tide.Shape", "none", "particles entering them are deleted" },
    },
    returns = "the state S (S.u, S.labels, S.pressure, S.t, S.steps, S.emitted, S.removed, ...)", ref = "Li's lecture (PIC/FLIP/APIC); Zarifi thesis Alg. 3, Sec. 4.4-4.6", see = see,
  },
  ["tide.flip.step"] = {
    sig = "flip.step(S, dt) -> stats",
    does = "One step: emit, transfer to the grid (p2g, extrapolate), gravity, tension, walls, projection, g2p and advection, density correction, drain (after the last move of the particles), reseed.",
    args = { S_, DT }, returns = "projection statistics { iterations, residual, unknowns, div_before, div_after }", ref = "Zarifi thesis Alg. 3", see = see,
  },
  ["tide.flip.max_dt"] = {
    sig = "flip.max_dt(S) -> dt", does = "Largest stable step: cfl cells per step at the fastest particle or face speed, plus sqrt(5 dx |g|) for gravity, and the capillary limit.",
    args = { S_ }, returns = "dt [s]", ref = "Bridson 2015, Eq. 3.2", see = see,
  },
  ["tide.flip.transfer_to_grid"] = {
    sig = "flip.transfer_to_grid(S)", does = "Particle velocities onto the grid (p2g), extended into the air around them.",
    args = { S_ }, returns = "nothing", see = see,
  },
  ["tide.flip.separate"] = {
    sig = "flip.separate(S, dt)", does = "Density correction: project a zero field to the divergence separation/dt shrink(density/per_cell - 1, band) on interior liquid cells and move the particles (not their velocities) along it for dt.",
    args = { S_, DT }, returns = "nothing (S.mean_density updated)", ref = "Kugelstadt et al. 2019", see = see,
  },
  ["tide.flip.boundaries"] = {
    sig = "flip.boundaries(S, opts)", does = "Set up open sides, emitters and sinks from flip.new's options (regions without cells are errors).",
    args = { S_, { "opts", "table", "required", "open, emitters, sinks" } }, returns = "nothing", see = see,
  },
  ["tide.flip.emit"] = {
    sig = "flip.emit(S)", does = "Replace the particles of every active emitter region by fresh ones at its velocity (S.emitted counts the net gain).",
    args = { S_ }, returns = "nothing", see = see,
  },
  ["tide.flip.inflow"] = {
    sig = "flip.inflow(S)", does = "Prescribe the emitters' velocities on the faces of their cells (S.fixed marks them for the projection).",
    args = { S_ }, returns = "nothing", see = see,
  },
  ["tide.flip.drain"] = {
    sig = "flip.drain(S)", does = "Delete the particles in the open layer, outside the domain and in sinks (S.removed).",
    args = { S_ }, returns = "nothing", see = see,
  },
  ["tide.flip.tension_setup"] = {
    sig = "flip.tension_setup(S, opts)", does = "Surface tension set-up: the tracked grid level set (MacCormack, monotone cubic, volume restored) or the particle level set, from flip.new's sigma, surface_tension and phi.",
    args = { S_, { "opts", "table", "required", "flip.new's options" } }, returns = "nothing", see = see,
  },
  ["tide.flip.tension_surface"] = {
    sig = "flip.tension_surface(S)", does = "The tension's surface at the start of a step: the tracked level set as flip.tension_advance left it, or the particle level set redistanced; labels from it.",
    args = { S_ }, returns = "nothing", see = see,
  },
  ["tide.flip.tension_advance"] = {
    sig = "flip.tension_advance(S, dt)", does = "Move the tracked level set with the projected grid velocity after its extension (linear along the normals with the ghost jump, constant with Liu's band), the velocity the particles get; redistance every surface_tension.redistance steps and restore its volume.",
    args = { S_, DT }, returns = "nothing", ref = "Aslam 2004 (linear extension); Liu et al. 2024 Sec. 4.2.2 (volume)", see = see,
  },
  ["tide.flip.tension"] = {
    sig = "flip.tension(S, dt)", does = "Surface tension on the grid velocity before the projection (same phi and labels): the ghost-fluid jump sigma kappa or Liu's band.",
    args = { S_, DT }, returns = "nothing", ref = "Liu, Fedkiw & Kang 2000; Liu et al. 2024 Eq. 8", see = see,
  },
  ["tide.flip.extend"] = {
    sig = "flip.extend(S)", does = "Step 5: the projected velocity extended into the air (S.layers sweeps of neighbour averages; with a tracked surface along its normals, linearly with the ghost jump, constant with Liu's band), walls and cut faces closed; periodic on S.P. tide.zarifi's line 8.",
    args = { S_ }, returns = "nothing", ref = "Aslam 2004 (linear extension)", see = see,
  },
  ["tide.flip.periodic_setup"] = {
    sig = "flip.periodic_setup(S, opts)", does = "Periodic axes (flip.new option periodic = {true, false[, ..]}): transfers, extrapolation, particle advection, the projection and the tracked level set run on the torus of a tide.liquid.periodic workspace S.P; not with solids, cut cells, open sides, emitters, sinks, the particle level set or the density correction.",
    args = { { "S", "flip state", "required", "" }, { "opts", "table", "required", "flip.new's options (periodic)" } }, returns = "nothing", see = see,
  },
}
