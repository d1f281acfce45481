-- Zarifi 2017 (thesis) Tables 6.3-6.4 as the thesis measured them: the 3D dam break against the
-- pinned beam run for N frames with the recipe (lua/tide/zarifi.lua, zarifi.step), the step's own
-- stats (wall and CPU seconds per phase, the coupled solve's geometry / assembly / solve,
-- unknowns, nonzeros, iterations) averaged per frame, beside the thesis's rows.
--   build/tide figures/zarifi_frames.lua                  (16^3, coarse + fine, SPD + factored, 4 frames: ~1 min)
--   build/tide figures/zarifi_frames.lua --paper          (the thesis: 50^3-90^3, 100 frames; tens of CPU hours)
--   build/tide figures/zarifi_frames.lua --sizes 24 --beams fine --schemes spd --frames 8
-- The set-up and the averaging are tide.cases.zarifi_frames (shared with tests/couple/test_zarifi_frames.lua).
local F = require "tide.figures"
local tide = require "tide"
local zarifi = require "tide.zarifi"
local frames_case = require "tide.cases.zarifi_frames"

local fig = F.figure {
  paper = "Zarifi 2017 (thesis)", number = "Tables 6.3-6.4 (frame times)",
  title = "Seconds per frame of the coupled simulation, per phase, SPD transform vs factored form",
  shows = "The 3D dam break against the pinned beam (lua/tide/cases/zarifi_dam_beam.lua, the thesis's coarse " ..
    "beam 135 nodes / 336 tets and fine beam 725 / 2688) run for 'frames' frames of 1/24 s with zarifi.step " ..
    "(scheme spd or factored, the recipe's defaults: MG-in-block PCG to 1e-10, mass-consistent transfer with " ..
    "its reference solve). Per frame, averaged over the frames: wall and process CPU seconds of the whole " ..
    "frame and of each phase of Algorithm 4, the coupled solve's geometry / assembly / solve, and per step the " ..
    "unknowns, nonzeros, iterations. The thesis's Table 6.3 is the total frame time averaged over 100 frames " ..
    "(4.42 steps each) on 8 cores of an AMD FX-8370E; this machine is shared, so CPU seconds are the cost. " ..
    "--paper runs the thesis's grids and frame count.",
  quick = frames_case.quick, full = frames_case.default,
  estimate = { quick = 6, full = 60 },
  deterministic = "the seconds are timings (unknowns, nonzeros and iterations are reproducible)",
}
local P = fig.params
if P.paper then for k, v in pairs(frames_case.paper) do P[k] = v end end
local function list(s, pat)
  local t = {}
  for x in tostring(s):gmatch(pat) do t[#t + 1] = x end
  return t
end
local sizes, beams, schemes = list(P.sizes, "%d+"), list(P.beams, "%a+"), list(P.schemes, "%a+")
local cpuinfo = io.open("/proc/cpuinfo")
local cpu_model = cpuinfo and (cpuinfo:read("a"):match("model name%s*:%s*([^\n]+)")) or "unknown CPU"
if cpuinfo then cpuinfo:close() end
print(string.format("zarifi_frames: %s, %d thread(s) (thesis: AMD FX-8370E 3.3 GHz, 8 cores, Eigen); %d frame(s) of 1/24 s each",
  cpu_model, tide.threads and tide.threads() or 1, P.frames))

local header = { "grid", "beam", "scheme", "frames", "steps", "steps/frame", "frame s", "frame CPU s" }
for _, name in ipairs(zarifi.phases) do header[#header + 1] = name .. " CPU s" end
for _, name in ipairs { "solve geometry", "solve assembly", "solve solve" } do header[#header + 1] = name .. " CPU s" end
for _, k in ipairs { "unknowns", "nonzeros", "iterations", "max iterations", "reference iterations", "fallbacks",
  "thesis frame s", "thesis nonzeros" } do header[#header + 1] = k end
local rows = {}
local units, done = #sizes * #beams * #schemes, 0
local md = {}
local curves = {} -- [beam .. " " .. scheme] = { x = grids, y = CPU s per frame }
for _, n in ipairs(sizes) do
  n = tonumber(n)
  for _, beam in ipairs(beams) do
    for _, scheme in ipairs(schemes) do
      local r = frames_case.run { res = n, beam = beam, scheme = scheme, frames = P.frames }
      local f, s, ph = r.frame, r.step, r.frame.phases
      local col = frames_case.column(beam, scheme)
      local th_s = frames_case.thesis_seconds[n] and frames_case.thesis_seconds[n][col]
      local th_n = frames_case.thesis_nonzeros[n] and frames_case.thesis_nonzeros[n][col]
      local row = { n .. "^3", beam, scheme, r.frames, r.steps, r.steps / r.frames, f.seconds, f.cpu }
      for _, name in ipairs(zarifi.phases) do row[#row + 1] = ph[name].cpu end
      for _, name in ipairs { "geometry", "assembly", "solve" } do row[#row + 1] = f.solve[name].cpu end
      for _, x in ipairs { s.unknowns, s.nonzeros, s.iterations, s.max_iterations, s.reference_iterations, r.fallbacks,
        th_s or "", th_n or "" } do row[#row + 1] = x end
      rows[#rows + 1] = row
      local key = beam .. " " .. scheme
      curves[key] = curves[key] or { x = {}, y = {}, beam = beam, scheme = scheme }
      table.insert(curves[key].x, n)
      table.insert(curves[key].y, f.cpu)
      md[#md + 1] = string.format("| %d³ %s, %s | %d / %.2f | %.3g (%.3g wall), %.3g per step | %.3g / %.3g / %.3g | %.3g / %.3g / %.3g | %.0f / %.0f | %.1f (max %d), ref %.1f | %s | %s |",
        n, beam, scheme, r.steps, r.steps / r.frames, f.cpu, f.seconds, f.cpu * r.frames / r.steps, ph.project.cpu, ph.reference.cpu,
        f.cpu - ph.project.cpu - ph.reference.cpu, f.solve.geometry.cpu, f.solve.assembly.cpu, f.solve.solve.cpu,
        s.unknowns, s.nonzeros, s.iterations, s.max_iterations, s.reference_iterations,
        th_s and string.format("%.4g", th_s) or "-", th_n and string.format("%d", th_n) or "-")
      io.stderr:write(string.format("zarifi_frames: %d^3 %s %s: %d steps in %d frames, %.3g CPU s per frame, %.0f unknowns, %.0f nonzeros, %.1f iterations, %d fallbacks, %d solves above 100 tol, residual <= %.2g\n",
        n, beam, scheme, r.steps, r.frames, f.cpu, s.unknowns, s.nonzeros, s.iterations, r.fallbacks, r.inaccurate,
        math.max(s.max_residual, s.max_reference_residual)))
      if th_s then
        fig:compare { quantity = string.format("%d^3 %s %s: seconds per frame", n, beam, scheme), paper = th_s,
          source = "thesis Table 6.3 (8 cores, wall)", tide = f.cpu,
          note = string.format("CPU s, %d frames, %.2f steps/frame (wall %.3g s)", r.frames, r.steps / r.frames, f.seconds) }
      end
      if th_n then
        fig:compare { quantity = string.format("%d^3 %s %s: nonzeros", n, beam, scheme), paper = th_n,
          source = "thesis Table 6.4", tide = s.nonzeros, note = "mean over the steps" }
      end
      if not th_s then
        fig:compare { quantity = string.format("%d^3 %s %s: CPU s per frame (project + reference of it)", n, beam, scheme),
          paper = "-", tide = string.format("%.3g (%.3g + %.3g)", f.cpu, ph.project.cpu, ph.reference.cpu),
          note = string.format("%d frames, %.2f steps/frame; not a thesis size", r.frames, r.steps / r.frames) }
      end
      done = done + 1
      fig:progress(done, units, string.format("%d^3 %s %s", n, beam, scheme))
    end
  end
end
print("| grid, solid, scheme | steps / per frame | CPU s per frame (wall), per step | of it: project / reference / rest | solve geometry / assembly / solve CPU s | unknowns / nonzeros | iterations per step | thesis s per frame | thesis nonzeros |")
print("|---|---|---|---|---|---|---|---|---|")
for _, l in ipairs(md) do print(l) end
fig:csv("frames", header, rows)
-- CPU seconds per frame over the grid, per beam and form, with the thesis's wall seconds (8 cores)
local series, keys = {}, {}
for k in pairs(curves) do keys[#keys + 1] = k end
table.sort(keys)
for i, k in ipairs(keys) do
  local c = curves[k]
  series[#series + 1] = { x = c.x, y = c.y, marker = ({ "o", "s", "^", "v" })[(i - 1) % 4 + 1], label = "Tide " .. k .. " (CPU, 1 thread)" }
  local tx, ty = {}, {}
  for _, n in ipairs { 50, 60, 70, 80, 90 } do
    local v = frames_case.thesis_seconds[n][frames_case.column(c.beam, c.scheme)]
    if v then tx[#tx + 1], ty[#ty + 1] = n, v end
  end
  series[#series + 1] = { x = tx, y = ty, paper = true, marker = ({ "o", "s", "^", "v" })[(i - 1) % 4 + 1], label = k .. " (wall, 8 cores)" }
end
fig:plot("frame_seconds", { title = "Seconds per frame, dam break + beam", xlabel = "cells per side n",
  ylabel = "seconds per frame", xlog = true, ylog = true, legend = "upper left", series = series,
  caption = "CPU seconds per frame (Tide, averaged over the frames run) and the thesis's Table 6.3 (wall, 8 cores, 100 frames), per beam and form" })
fig:done()
