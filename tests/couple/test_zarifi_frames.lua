-- The frame-averaged costs of figures/zarifi_frames.lua (Zarifi thesis Tables 6.3-6.4, issue 14)
-- in its smallest configuration (tide.cases.zarifi_frames.quick: the 3D dam break at 10^3 with the
-- coarse beam, SPD and factored, 2 frames): what the recipe's stats must satisfy, not timings --
-- the step's phases sum to within its total, the coupled solve's geometry + assembly + solve to
-- within the phase "project", the unknowns are the LIQUID-labelled cells plus the solid's (3 per
-- free node; 6 per tet in the factored form), every solve converged under the iteration cap
-- without the direct fallback and with a true residual at the tolerance, the mass reference's
-- solve reused the step's system.
local T = require "tide.testing"
local zarifi = require "tide.zarifi"
local F = require "tide.cases.zarifi_frames"

local Q = F.quick
local res = tonumber(Q.sizes:match("%d+"))
local beam = Q.beams:match("%a+")
for scheme in Q.schemes:gmatch("%a+") do
  local r = F.run { res = res, beam = beam, scheme = scheme, frames = Q.frames }
  local tag = string.format("%d^3 %s %s", res, beam, scheme)
  local f, s, c = r.frame, r.step, r.checks
  print(string.format("%s: %d steps, %.3g CPU s per frame (project %.3g), %.0f unknowns (%.0f liquid + %d solid), "
    .. "%.0f nonzeros, iterations %.1f (max %d, cap %d), reference %.1f (max %d, %d of %d resolved), residuals %.2g / %.2g",
    tag, r.steps, f.cpu, f.phases.project.cpu, s.unknowns, s.liquid, s.solid_unknowns, s.nonzeros, s.iterations,
    s.max_iterations, r.cap, s.reference_iterations, s.max_reference_iterations, s.resolved, r.steps, s.max_residual,
    s.max_reference_residual))
  T.check(r.steps >= Q.frames, tag .. ": at least one step per frame")
  -- phases within the total (the same clock read at each phase's end; the total also holds the
  -- stability check), per step and per frame; CPU seconds likewise
  T.check(c.phase_excess <= 1e-9, string.format("%s: phases sum to %.3g s more than the step", tag, c.phase_excess))
  local pw, pc = 0, 0
  for _, name in ipairs(zarifi.phases) do
    T.check(f.phases[name].seconds >= 0 and f.phases[name].cpu >= 0, tag .. ": phase " .. name .. " not negative")
    pw, pc = pw + f.phases[name].seconds, pc + f.phases[name].cpu
  end
  T.check(pw <= f.seconds + 1e-9, string.format("%s: phases %.4g of the frame's %.4g s", tag, pw, f.seconds))
  -- and they cover it (CPU seconds: a preemption between two phases does not count)
  T.check(pc <= f.cpu + 1e-9 and pc >= 0.8 * f.cpu, string.format("%s: phases' CPU %.4g of the frame's %.4g s", tag, pc, f.cpu))
  local sw, sc = 0, 0
  for _, name in ipairs { "geometry", "assembly", "solve" } do sw, sc = sw + f.solve[name].seconds, sc + f.solve[name].cpu end
  T.check(sw > 0 and sw <= f.phases.project.seconds + 1e-9, string.format("%s: solve phases %.4g s within project's %.4g s", tag,
    sw, f.phases.project.seconds))
  T.check(sc <= f.phases.project.cpu + 1e-9, string.format("%s: solve phases %.4g CPU s within project's %.4g", tag, sc,
    f.phases.project.cpu))
  -- unknowns: the labelled liquid cells (counted every step) plus the solid's
  T.check(c.label_mismatch == 0, string.format("%s: %d steps whose liquid unknowns are not the LIQUID cells", tag, c.label_mismatch))
  T.check(c.unknown_mismatch == 0, string.format("%s: %d steps whose unknowns are not liquid + %d", tag, c.unknown_mismatch,
    s.solid_unknowns))
  T.check(s.solid_unknowns == (scheme == "factored" and 6 * r.elements or 3 * (r.nodes - r.pinned)), tag .. ": solid unknowns")
  if scheme == "spd" then
    T.check(s.solid_dofs == 3 * (r.nodes - r.pinned), string.format("%s: solid_dofs %.0f, 3 x %d free nodes", tag, s.solid_dofs,
      r.nodes - r.pinned))
  end
  T.check(s.nonzeros > s.unknowns, tag .. ": nonzeros above the unknowns")
  -- convergence: every solve of the Krylov solver itself (no direct fallback), under its cap and
  -- well under it (13-15 iterations of MG-in-block PCG measured at 10^3-16^3)
  T.check(c.unconverged == 0 and r.fallbacks == 0, string.format("%s: %d unconverged, %d fallbacks", tag, c.unconverged, r.fallbacks))
  T.check(s.max_iterations > 0 and s.max_iterations < r.cap and s.max_iterations <= 40,
    string.format("%s: at most %d iterations (cap %d)", tag, s.max_iterations, r.cap))
  T.check(c.reference_unconverged == 0 and r.resolve_fallbacks == 0 and s.resolved == r.steps,
    string.format("%s: reference solves: %d unconverged, %d resolves redone, %d of %d resolved", tag, c.reference_unconverged,
      r.resolve_fallbacks, s.resolved, r.steps))
  -- converged means the true relative residual (recomputed after the solve) meets the recipe's
  -- tolerance 1e-10 (the Krylov loop stops on its recursive residual; allowed drift 10x)
  T.check(r.inaccurate == 0, tag .. ": no solve above 100 tol (S.inaccurate)")
  T.check(s.max_residual <= 1e-9 and s.max_reference_residual <= 1e-9, string.format(
    "%s: true residuals %.3g (projection), %.3g (reference), tol 1e-10", tag, s.max_residual, s.max_reference_residual))
  T.check(s.max_reference_iterations <= 40, string.format("%s: reference at most %d iterations", tag, s.max_reference_iterations))
end
T.report()
