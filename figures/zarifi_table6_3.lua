-- Zarifi 2017 (thesis) Tables 6.3-6.4: the SPD transform (5.25) vs the stress-variable factored
-- form (5.43-5.45) with a coarse and a fine beam on the 3D dam break: nonzeros of the system and
-- seconds per coupled projection, on the same projections.
local F = require "tide.figures"
local tide = require "tide"
local zarifi = require "tide.zarifi"
local case = require "tide.cases.zarifi_dam_beam"

local fig = F.figure {
  paper = "Zarifi 2017 (thesis)", number = "Tables 6.3-6.4",
  title = "SPD transform vs factored form: nonzeros and seconds per projection, coarse and fine solid",
  shows = "The 3D dam break against the pinned beam (lua/tide/cases/zarifi_dam_beam.lua) with the thesis's " ..
    "coarse beam (135 nodes / 336 tets) and fine beam (725 / 2688). After 'warmup' SPD steps the same " ..
    "projection input (velocities plus one step of gravity) is solved with the SPD transform and with the " ..
    "factored form, both with the supernodal Cholesky (CHOLMOD; IC(0) of the factored matrix, whose rows hold " ..
    "hundreds of entries, costs seconds already at 10^3): nonzeros of the full matrix and seconds of the whole " ..
    "projection (clipping, assembly, solve), wall and process CPU seconds. The thesis reports frame times averaged over 100 " ..
    "frames (4.42 steps each) on 8 cores; Tide reports one projection, so only the ratios compare.",
  quick = { sizes = "10", beams = "coarse", warmup = 2 }, full = { sizes = "50,60,70,80,90", beams = "coarse,fine", warmup = 10 },
  estimate = { quick = 4, full = 1200 },
  deterministic = "the seconds are wall-clock timings (the nonzeros are reproducible)",
}
local P = fig.params
local sizes = {}
for s in tostring(P.sizes):gmatch("%d+") do sizes[#sizes + 1] = tonumber(s) end
-- thesis: { time coarse SPD, coarse factored, fine SPD, fine factored, nnz coarse SPD, coarse fact., fine SPD, fine fact. }
local thesis = {
  [50] = { 5.33, 6.69, 14.15, nil, 317505, 814424, 624387, nil },
  [60] = { 9.51, 9.90, 19.76, 32.02, 501430, 998372, 807789, 5838273 },
  [70] = { 15.75, 15.32, 29.89, 36.98, 795668, 1218020, 1095644, 6130135 },
  [80] = { 23.54, 22.21, 44.04, 47.87, 1128123, 1545752, 1425174, 6456548 },
  [90] = { 35.93, 31.56, 59.09, 58.76, 1565587, 1985347, 1856102, 6890398 },
}
local beams = {}
for b in tostring(P.beams):gmatch("%a+") do beams[#beams + 1] = b end
local rows, done = {}, 0
local units = #sizes * #beams
for _, n in ipairs(sizes) do
  local r = { n .. "^3" }
  local res = {}
  for _, beam_kind in ipairs(beams) do
    local S, beam = case.new { res = n, dim = 3, paper = beam_kind, scheme = "spd" }
    for _ = 1, P.warmup do zarifi.step(S, math.min(zarifi.max_dt(S), 1 / 60)) end
    local dt = math.min(zarifi.max_dt(S), 1 / 60)
    local v0 = beam.v:clone()
    res[beam_kind] = {}
    for _, form in ipairs { "spd", "factored" } do
      local u = S.u:clone()
      u:add_gravity(dt, S.gravity)
      beam.v:copy(v0)
      for q = 1, beam.nv do beam.v:set(q, 2, v0:get(q, 2) - 9.81 * dt) end
      local t0, c0 = tide.clock(), os.clock()
      local st = tide.couple.project { u = u, labels = S.labels, solids = { beam }, dt = dt, rho = S.rho,
        formulation = form, solver = "cholmod", tol = 1e-10, phi = S.liquid.phi, fractions = S.fractions, sampling = "cell",
        must_converge = false }
      -- wall seconds, and the process's CPU seconds (all threads; on a shared machine the CPU time
      -- of a 1-thread run is what the projection costs, the wall time also counts the waiting)
      res[beam_kind][form] = { seconds = tide.clock() - t0, cpu = os.clock() - c0, nnz = st.nonzeros }
      -- one line per projection on stderr, so a run stopped part-way still reports what it measured
      io.stderr:write(string.format("table6_3: %d^3 %s %s: %d nonzeros, %.3f s wall, %.3f s CPU\n", n, beam_kind, form,
        st.nonzeros, res[beam_kind][form].seconds, res[beam_kind][form].cpu))
    end
    beam.v:copy(v0)
    done = done + 1
    fig:progress(done, units, string.format("%d^3 %s", n, beam_kind))
  end
  local c, f = res.coarse, res.fine
  local function cell(x, k) return x and x[k] or "" end
  rows[#rows + 1] = { n .. "^3", cell(c and c.spd, "seconds"), cell(c and c.factored, "seconds"), cell(f and f.spd, "seconds"),
    cell(f and f.factored, "seconds"), cell(c and c.spd, "nnz"), cell(c and c.factored, "nnz"), cell(f and f.spd, "nnz"),
    cell(f and f.factored, "nnz"), cell(c and c.spd, "cpu"), cell(c and c.factored, "cpu"), cell(f and f.spd, "cpu"),
    cell(f and f.factored, "cpu") }
  local th = thesis[n]
  for _, b in ipairs { { c, "coarse", 1, 5 }, { f, "fine", 3, 7 } } do
    local x, name, ti, ni = b[1], b[2], b[3], b[4]
    if th and x and th[ni + 1] then
      fig:compare { quantity = string.format("%d^3: nnz factored / SPD, %s solid", n, name), paper = th[ni + 1] / th[ni],
        source = "thesis", tide = x.factored.nnz / x.spd.nnz, note = "" }
      fig:compare { quantity = string.format("%d^3: time factored / SPD, %s solid", n, name), paper = th[ti + 1] / th[ti],
        source = "thesis (frame times)", tide = x.factored.seconds / x.spd.seconds, note = string.format(
        "one projection, CHOLMOD, wall; CPU seconds ratio %.3g", x.factored.cpu / x.spd.cpu) }
    end
  end
end
fig:csv("table6_3_4", { "grid", "s coarse SPD", "s coarse factored", "s fine SPD", "s fine factored",
  "nnz coarse SPD", "nnz coarse factored", "nnz fine SPD", "nnz fine factored", "CPU s coarse SPD", "CPU s coarse factored",
  "CPU s fine SPD", "CPU s fine factored" }, rows)
fig:done()
