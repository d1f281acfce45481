-- Help entries of the tide.zarifi recipe (Zarifi 2017: FLIP/APIC liquids and
-- corotational FEM solids coupled through one pressure solve).
local see = "docs/couple.md"
local S_ = { "S", "zarifi state", "required", "from zarifi.new" }
return {
  ["tide.zarifi.max_dt"] = {
    sig = "zarifi.max_dt(S) -> dt", does = "Largest stable step: the liquid's CFL step and cfl cells per step for the fastest solid node.", args = { S_ }, returns = "dt [s]", see = see,
  },
  ["tide.zarifi.geometry"] = {
    sig = "zarifi.geometry(S)", does = "Line 5: the solids' and obstacles' signed distance and open face fractions (node SDF, Fig. 5.2, clamped as Sec. 4.6) and the cells closed by them.",
    args = { S_ }, returns = "nothing", ref = "Zarifi Fig. 5.2, Sec. 4.6", see = see,
  },
  ["tide.zarifi.surface_through_solids"] = {
    sig = "zarifi.surface_through_solids(S) -> phi", does = "Line 6 with a level_set (or with tension: the tracked level set): S.liquid.phi continued through the solids. In the cells a solid covers (solid_phi < 0) no particle can be, so the particle level set reads air there even under water; phi is replaced by its extension from the cells outside the solids along their normals (tide.grid.extrapolate), so the clipped pieces of a solid's underside feel the liquid's pressure and the ghost-fluid surface is the liquid-air one.",
    args = { S_ }, returns = "S.liquid.phi (in place)", see = see,
  },
  ["tide.zarifi.project"] = {
    sig = "zarifi.project(S, dt) -> stats", does = "Line 7: the pressure projection of the chosen scheme (tide.couple.project, or the weak scheme's alternation).",
    args = { S_, { "dt", "number > 0", "required", "[s]" } }, returns = "projection statistics", ref = "Zarifi ch. 5, Sec. 6.3", see = see,
  },
  ["tide.zarifi.walls"] = {
    sig = "zarifi.walls(g) -> colliders", does = "The 2 dim planes of the domain walls as colliders pushing solids back inside.",
    args = { { "g", "tide.Grid", "required", "" } }, returns = "list of tide.solid.Collider", ref = "Zarifi Sec. 7.1", see = see,
  },
  ["tide.zarifi.scene_params"] = {
    sig = "zarifi.scene_params(own [, help]) -> P", does = "tide.params with the parameters every zarifi scene shares (res, dim, frames, fps, scheme, sampling, paper, per_cell, cfl, out, png, vtk, image, steps) under the scene's own; --steps N measures instead of running frames (run_scene).",
    args = { { "own", "table", "required", "the scene's defaults" }, { "help", "table", "none", "descriptions" } }, returns = "parameter table", see = see,
  },
  ["tide.zarifi.scene_grid"] = {
    sig = "zarifi.scene_grid(P [, paper_res]) -> grid, dim, dx", does = "The unit tank of a scene: P.res cells across (paper_res with --paper: Table 6.1's grid) in P.dim dimensions.",
    args = { { "P", "table", "required", "from scene_params" }, { "paper_res", "integer", "100", "cells across with --paper (the soft platform: 64)" } }, returns = "tide.Grid, dimension, dx [m]", see = see,
  },
  ["tide.zarifi.run_scene"] = {
    sig = "zarifi.run_scene(S, P, name, title [, report [, on_step]]) -> result", does = "Run a scene's frames through tide.run with PNG/VTK output; report(S) prints the outcome, on_step(S, stats) runs after every step. With P.steps = N > 0 (--steps N): N CFL steps and no frames, printing each step's coupled projection (geometry, assembly, set-up, solve seconds, unknowns, interface, iterations; the mass reference's iterations), then the mean and slowest over steps 2..N beside the plain liquid MGPCG projection of the last state, the wall seconds per step of each of zarifi.phases, and an '@projection key=value ...' line (bench/couple_scenes.lua reads it); returns { steps, mean, slowest, plain }.",
    args = { { "S", "zarifi state", "required", "" }, { "P", "table", "required", "scene parameters" }, { "name, title", "strings", "required", "" },
      { "report", "function(S)", "none", "" }, { "on_step", "function(S, stats)", "none", "" } },
    returns = "tide.run's summary", see = see,
  },
  ["tide.zarifi.surface_level"] = {
    sig = "zarifi.surface_level(S, clear) -> y", does = "Height of the free surface (2D, level_set on): the first zero crossing of the particle level set S.liquid.phi going up each column, averaged over the columns whose centre x satisfies clear(x) (those clear of the solids).",
    args = { S_, { "clear", "function(x) -> boolean", "required", "which columns count" } }, returns = "y [m] (nil if no column counts)", see = see,
  },
  ["tide.zarifi.momentum"] = {
    sig = "zarifi.momentum(S) -> P", does = "Momentum of liquid + solids, the liquid's as line 2's g2p will leave it: the particles' sum m_p v_p plus the grid's change since they last received it (a projection's impulse is on the solids at once, on the particles one step later). FLIP: r sum_f m_f (u - old)_f + (1 - r)(sum_f m_f u_f - sum_p m_p v_p) added; PIC/APIC: sum_f m_f u_f; m_f = m_p sum_p w_fp.",
    args = { S_ }, returns = "list of dim numbers [N s]", see = see,
  },
  ["tide.zarifi.flip_old"] = {
    sig = "zarifi.flip_old(S)", does = "With mass_consistent, after line 8: S.liquid.u_old = u - inc - c, the field line 2's FLIP g2p subtracts; inc from tide.couple.flip_increment, c a uniform increment per axis returning what the blend's PIC part takes or gives beyond inc (r M c = -(1 - r) E).",
    args = { S_ }, returns = "nothing", see = see,
  },
  ["tide.zarifi.gravity_response"] = {
    sig = "zarifi.gravity_response(S, dt) -> h", does = "With mass_consistent and mass_reference, after line 7: the same coupled projection (labels, level set, fractions, solids) from rest under gravity alone (liquid u = dt g, solids v = dt g, their stiffness kept but their elastic forces at x (couple.project{ elastic_force = false }) and the walls' barrier left out; the solids' velocities restored after it), its velocity extrapolated and walled as line 8, in S.gravity_u: the hydrostatic part of line 7's change, which tide.couple.flip_increment{ reference = h } gives the particles by their kernel mass (at rest exactly 0). Its matrix is line 7's (the same geometry, solids, dt and stiffness: elastic_force is on the right side only), so with mass_reuse it solves line 7's kept system again (tide.couple.resolve, warm-started from line 7's solution); a full projection when line 7's barrier was active. Its statistics in S.gravity_stats.",
    args = { S_, { "dt", "number", "required", "the step [s]" } }, returns = "h (f64 tide.Mac, S.gravity_u)", ref = "docs/couple.md Momentum (issue 14)", see = see,
  },
  ["tide.zarifi.centroid"] = {
    sig = "zarifi.centroid(m) -> c, v", does = "Centre of mass and mean velocity of a solid (mass-weighted over its nodes).",
    args = { { "m", "tide.TetMesh", "required", "with a material" } }, returns = "two lists of dim numbers [m], [m/s]", see = see,
  },
}
