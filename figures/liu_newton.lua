-- Liu et al. 2024 Fig. 12: Newton iterations per step per frame with and
-- without backtracking line search + CCD, CFL 0.7 / 1.2 / 2.0, cap 30.
local F = require "tide.figures"
local L = require "tide.cases.liu"

local fig = F.figure {
  paper = "Liu et al. 2024", number = "Fig. 12 (Sec. 5.1, line search and convergence)",
  title = "Newton iterations per step with and without line search + CCD",
  shows = "The Fig. 11c top set-up (row of fixed vertices spaced dx) with the drop (radius 0.15 m) dropped from 0.45 m " ..
    "above the row at y = 0.2 m so that it hits at about 3 m/s, the paper's plain first projection (no solid velocity " ..
    "in the air), frames of 1/60 s, CFL 0.7 / 1.2 / 2.0, 30 iterations at most; mean Newton iterations per step in " ..
    "each frame. 'Full steps' takes the Newton step without backtracking or CCD (the barrier then clamped at " ..
    "1e-3 d^ so it stays finite). The paper's contact starts at frame 32; here at the frame printed.",
  quick = { n = 32, frames = 30 }, full = { n = 64, frames = 48 },
  estimate = { quick = 4, full = 120 },
}
local P = fig.params
local rows, series, res = {}, {}, {}
local k = 0
for _, ls in ipairs { false, true } do
  for _, cfl in ipairs { 0.7, 1.2, 2.0 } do
    local r = L.drop_on_row { n = P.n, spacing = 1, frames = P.frames, cfl = cfl, line_search = ls, air_faces = false,
      row = 0.2, radius = 0.15, gap = 0.45 }
    res[#res + 1] = { ls = ls, cfl = cfl, r = r }
    local fx = {}
    for f = 1, #r.frame_iters do
      fx[f] = f
      rows[#rows + 1] = { ls and "line search + CCD" or "full steps", cfl, f, r.frame_iters[f], r.frame_capped[f] }
    end
    series[#series + 1] = { x = fx, y = r.frame_iters, label = string.format("%s, CFL %.1f", ls and "LS+CCD" or "full", cfl),
      dash = ls and "solid" or "dashed" }
    k = k + 1
    fig:progress(k, 6)
  end
end
fig:csv("iterations", { "Newton", "CFL", "frame", "mean iterations per step", "steps at the cap" }, rows)
fig:plot("iterations", { title = "Newton iterations per step (cap 30)", xlabel = "frame", ylabel = "iterations per step",
  legend = "upper left", series = series,
  caption = "Dashed: full Newton steps; solid: backtracking line search with the CCD bound" })
for _, c in ipairs(res) do
  local r = c.r
  local paper
  if c.ls then paper = "converges, no penetration"
  elseif c.cfl == 0.7 then paper = "converges, no penetration"
  elseif c.cfl == 1.2 then paper = "some steps at the cap, no visible penetration"
  else paper = "fails after contact, penetrates" end
  fig:compare { quantity = string.format("%s CFL %.1f: steps at the cap / penetrating", c.ls and "LS+CCD" or "full steps", c.cfl),
    paper = paper, source = "Fig. 12 / Sec. 5.1", tide = string.format("%d / %d", r.capped, r.pen_steps),
    note = string.format("%.2f it/step, max %d, contact from frame %s", r.iters / r.steps, r.max_iters, tostring(r.contact_frame)) }
end
fig:done()
