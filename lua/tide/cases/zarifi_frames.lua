--- Frame-averaged costs of the coupled simulation (Zarifi thesis Tables 6.3-6.4, "total frame time
-- averaged over 100 frames"; issue 14): the 3D dam break against the pinned beam
-- (tide.cases.zarifi_dam_beam, the thesis's coarse or fine beam) run for `frames` frames of 1/fps s
-- through zarifi.step; the recipe's own stats (zarifi.step: the step's wall and CPU seconds, its
-- phases, the coupled solve's geometry / assembly / solve seconds, unknowns, nonzeros, iterations,
-- the mass reference's solve) summed per frame and averaged over the frames.  Shared by
-- figures/zarifi_frames.lua and tests/couple/test_zarifi_frames.lua.
--
--   local F = require "tide.cases.zarifi_frames"
--   local r = F.run { res = 10, beam = "coarse", scheme = "spd", frames = 2 }
--   r.frame.cpu, r.frame.phases.project.cpu, r.step.iterations, r.step.unknowns, r.checks
local tide = require "tide"
local zarifi = require "tide.zarifi"
local case = require "tide.cases.zarifi_dam_beam"

local M = {}

--- The thesis's Tables 6.3 (seconds per frame, 8 cores) and 6.4 (nonzeros, averaged over 100
-- frames): [grid] = { coarse spd, coarse factored, fine spd, fine factored } (the 50^3 fine
-- factored entries are missing from the text).
M.thesis_seconds = {
  [50] = { 5.33, 6.69, 14.15, nil }, [60] = { 9.51, 9.90, 19.76, 32.02 }, [70] = { 15.75, 15.32, 29.89, 36.98 },
  [80] = { 23.54, 22.21, 44.04, 47.87 }, [90] = { 35.93, 31.56, 59.09, 58.76 },
}
M.thesis_nonzeros = {
  [50] = { 317505, 814424, 624387, nil }, [60] = { 501430, 998372, 807789, 5838273 },
  [70] = { 795668, 1218020, 1095644, 6130135 }, [80] = { 1128123, 1545752, 1425174, 6456548 },
  [90] = { 1565587, 1985347, 1856102, 6890398 },
}
--- The figure's configurations (figures/zarifi_frames.lua): quick (the smallest, also the ctest's),
-- the default (about a minute on one core) and the thesis's (--paper).
M.quick = { sizes = "10", beams = "coarse", schemes = "spd,factored", frames = 2, paper = false }
M.default = { sizes = "16", beams = "coarse,fine", schemes = "spd,factored", frames = 4, paper = false }
M.paper = { sizes = "50,60,70,80,90", beams = "coarse,fine", schemes = "spd,factored", frames = 100 }

--- column of (beam, scheme) in those rows
function M.column(beam, scheme) return (beam == "fine" and 2 or 0) + (scheme == "factored" and 2 or 1) end

-- running sums
local function acc(t, k, x) t[k] = (t[k] or 0) + x end

--- Run one configuration.  o: res (cells across the tank), beam ("coarse" | "fine" | "medium"),
-- scheme ("spd" | "factored" | "indefinite"), frames, fps (24, the scenes'), solver (nil: the
-- recipe's default, mgpcg / bicgstab), maxit (nil: the solver's cap), count_labels (default: grids
-- up to 40^3; counts the LIQUID cells of every step for the consistency checks).
-- Returns r = { res, beam, scheme, nodes, elements, pinned, frames, steps, cpu, seconds (the whole
--   run), frame = { seconds, cpu, phases = { name = { seconds, cpu } }, solve = { geometry,
--   assembly, solve = { seconds, cpu } } } (per frame, averaged), step = { unknowns, liquid,
--   solid_dofs, nonzeros, iterations, reference_iterations (means over the steps), max_iterations,
--   max_reference_iterations, resolved (steps whose reference reused the system), max_residual,
--   max_reference_residual (the true ||A x - b|| / ||b|| the solves report) },
--   fallbacks, resolve_fallbacks, contact_fallbacks, inaccurate (S.inaccurate), cap (the Krylov solver's iteration cap of the
--   largest system), checks = { phase_excess (largest sum of phases minus the step's total, s),
--   label_mismatch, unknown_mismatch, unconverged (steps), reference_unconverged } }
function M.run(o)
  local res, beam_kind, scheme = o.res or 10, o.beam or "coarse", o.scheme or "spd"
  local frames, fps = o.frames or 2, o.fps or 24
  local S, beam = case.new { res = res, dim = 3, paper = beam_kind, scheme = scheme, solver = o.solver, maxit = o.maxit }
  local L = tide.liquid
  local count = o.count_labels
  if count == nil then count = res <= 40 end
  local pinned = beam.pinned:sum()
  local r = { res = res, beam = beam_kind, scheme = scheme, nodes = beam.nv, elements = beam.ne, pinned = pinned,
    frames = frames, fps = fps, steps = 0, fallbacks = 0, resolve_fallbacks = 0, contact_fallbacks = 0, cap = 0,
    checks = { phase_excess = -math.huge, label_mismatch = 0, unknown_mismatch = 0, unconverged = 0,
      reference_unconverged = 0 } }
  local fr = { seconds = 0, cpu = 0, phases = {}, solve = {} }
  for _, name in ipairs(zarifi.phases) do fr.phases[name] = { seconds = 0, cpu = 0 } end
  for _, name in ipairs { "geometry", "assembly", "solve" } do fr.solve[name] = { seconds = 0, cpu = 0 } end
  local sum, maxit, maxref, resolved, maxres, maxrres = {}, 0, 0, 0, 0, 0
  local lab = S.labels:reshape(S.labels:size())
  local ncell = S.labels:size()
  -- the solid's unknowns: 3 per free node (velocities), or 6 per tet (the factored form's z = R v)
  local solid_unknowns = scheme == "factored" and 6 * beam.ne or 3 * (beam.nv - pinned)
  local t0, c0 = tide.clock(), os.clock()
  local fdt = 1 / fps
  for _ = 1, frames do
    local t = 0
    while t < fdt - 1e-12 do
      local dt = math.min(zarifi.max_dt(S), fdt - t)
      if fdt - t - dt < 1e-3 * fdt then dt = fdt - t end
      local st = zarifi.step(S, dt)
      t = t + dt
      r.steps = r.steps + 1
      fr.seconds, fr.cpu = fr.seconds + st.seconds, fr.cpu + st.cpu
      local psum = 0
      for _, name in ipairs(zarifi.phases) do
        local e, f = st.phases[name], fr.phases[name]
        f.seconds, f.cpu = f.seconds + e.seconds, f.cpu + e.cpu
        psum = psum + e.seconds
      end
      r.checks.phase_excess = math.max(r.checks.phase_excess, psum - st.seconds)
      for _, name in ipairs { "geometry", "assembly", "solve" } do
        local f = fr.solve[name]
        f.seconds, f.cpu = f.seconds + st[name .. "_seconds"], f.cpu + st[name .. "_cpu"]
      end
      acc(sum, "unknowns", st.unknowns)
      acc(sum, "liquid", st.liquid)
      acc(sum, "solid_dofs", st.solid_dofs)
      acc(sum, "nonzeros", st.nonzeros)
      acc(sum, "iterations", st.iterations)
      maxit = math.max(maxit, st.iterations)
      maxres = math.max(maxres, st.residual)
      r.cap = math.max(r.cap, st.unknowns > 500 and 2 * st.unknowns or 1000)
      if st.fallback then r.fallbacks = r.fallbacks + 1 end
      if not st.converged then r.checks.unconverged = r.checks.unconverged + 1 end
      r.contact_fallbacks = r.contact_fallbacks + (st.contact_fallbacks or 0)
      if st.unknowns ~= st.liquid + solid_unknowns then r.checks.unknown_mismatch = r.checks.unknown_mismatch + 1 end
      if count then
        local n = 0
        for c = 1, ncell do if lab[c] == L.LIQUID then n = n + 1 end end
        if n ~= st.liquid then r.checks.label_mismatch = r.checks.label_mismatch + 1 end
      end
      local ref = st.reference
      if ref then
        acc(sum, "reference_iterations", ref.iterations)
        maxref = math.max(maxref, ref.iterations)
        maxrres = math.max(maxrres, ref.residual)
        if ref.resolved then resolved = resolved + 1 end
        if not ref.converged then r.checks.reference_unconverged = r.checks.reference_unconverged + 1 end
      end
    end
  end
  r.seconds, r.cpu = tide.clock() - t0, os.clock() - c0
  r.resolve_fallbacks = S.resolve_fallbacks or 0
  r.inaccurate = S.inaccurate or 0 -- solves reported converged with a true residual above 100 tol
  -- per frame
  fr.seconds, fr.cpu = fr.seconds / frames, fr.cpu / frames
  for _, f in pairs(fr.phases) do f.seconds, f.cpu = f.seconds / frames, f.cpu / frames end
  for _, f in pairs(fr.solve) do f.seconds, f.cpu = f.seconds / frames, f.cpu / frames end
  r.frame = fr
  local n = math.max(r.steps, 1)
  r.step = { unknowns = (sum.unknowns or 0) / n, liquid = (sum.liquid or 0) / n, solid_dofs = (sum.solid_dofs or 0) / n,
    nonzeros = (sum.nonzeros or 0) / n, iterations = (sum.iterations or 0) / n,
    reference_iterations = (sum.reference_iterations or 0) / n, max_iterations = maxit, max_reference_iterations = maxref,
    resolved = resolved, solid_unknowns = solid_unknowns, max_residual = maxres, max_reference_residual = maxrres }
  r.solver = S.solver or (scheme == "indefinite" and "bicgstab" or "mgpcg")
  return r
end

return M
