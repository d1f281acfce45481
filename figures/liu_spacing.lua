-- Liu et al. 2024 Fig. 11c: a drop on a row of fixed vertices of growing
-- spacing: where the wall stops holding the liquid.
local F = require "tide.figures"
local tide = require "tide"
local L = require "tide.cases.liu"

local fig = F.figure {
  paper = "Liu et al. 2024", number = "Fig. 11c (Sec. 5.1, particle spacing and penetration)",
  title = "A drop on a row of fixed vertices: tight wall vs porous with the spacing",
  shows = "A drop of radius 0.2 m, lowest point 0.1 m above a row of fixed vertices at y = 0.3 m spanning a 1 m box " ..
    "(spacing s dx, symmetric about the centre, plus one vertex half a cell from each wall), initial velocity " ..
    "(0, -1) m/s, gravity, CFL 1, frames of 1/60 s. tide.liu with the quadratic distance (d^ = dx/2) and Tide's " ..
    "first projection with the solid velocity on the air faces near the vertices. Leak = liquid cells more than " ..
    "a cell below the row at the end over all liquid cells; penetration = a vertex at d <= 0 after a step. " ..
    "The paper reports jittering contact from about 1.8 dx and calls 1.2 dx or less safe. Two inertias of the " ..
    "vertices' stencil cells: 'liquid' (Tide's default, rho V_cell) and 'lagged' (Eq. 13, the paper's).",
  quick = { n = 32, frames = 24, spacings = "1.0,1.8,2.0,2.2,5.0" },
  full = { n = 64, frames = 48, spacings = "1.0,1.2,1.4,1.6,1.7,1.8,1.9,2.0,2.05,2.1,2.15,2.2,2.5,3.0,5.0" },
  estimate = { quick = 6, full = 300 },
}
local P = fig.params
local sp = {}
for v in P.spacings:gmatch("[^,]+") do sp[#sp + 1] = tonumber(v) end
local rows, pics, onset, onset_lag = {}, {}, nil, nil
local leak, leak_lag, pen = {}, {}, {}
for k, s in ipairs(sp) do
  local r = L.drop_on_row { n = P.n, spacing = s, frames = P.frames }
  local q = L.drop_on_row { n = P.n, spacing = s, frames = P.frames, stencil_mass = "lagged" }
  rows[#rows + 1] = { s, r.nv, r.steps, r.pen_steps, r.min_d * P.n, r.leak, r.jitter, r.iters / r.steps, r.capped,
    q.steps, q.pen_steps, q.leak }
  leak[k], leak_lag[k], pen[k] = r.leak, q.leak, math.max(r.pen_steps, q.pen_steps)
  if not onset and r.leak > 0 then onset = s end
  if not onset_lag and q.leak > 0 then onset_lag = s end
  if s == 1.0 or s == 2.0 or s == 5.0 then
    local file = string.format("s%.1f.png", s)
    tide.fileio.png2d { path = fig:path(file), grid = r.S.grid, phi = r.S.phi, particles = r.S.x, radius_px = 2,
      particle_rgb = { 0.86, 0.12, 0.12 }, width = 200, title = string.format("%.1f dx", s) }
    pics[#pics + 1] = file
  end
  fig:progress(k, #sp)
end
fig:csv("spacing", { "spacing [dx]", "vertices", "steps", "steps penetrating", "min d [dx]", "leak", "jitter [dx]",
  "Newton it/step", "steps at cap", "lagged: steps", "lagged: steps penetrating", "lagged: leak" }, rows)
fig:plot("leak", { title = "Liquid through the row", xlabel = "vertex spacing [dx]", ylabel = "liquid below the row (fraction)",
  series = { { x = sp, y = leak, label = "stencil_mass liquid (Tide)", marker = "o" },
    { x = sp, y = leak_lag, label = "stencil_mass lagged (Eq. 13)", marker = "s" } },
  caption = "Fraction of the liquid below the row at the end against the spacing" })
if #pics > 0 then fig:row("rows", pics, "The end state at 1, 2 and 5 dx (stencil_mass liquid)") end
local maxpen = 0
for _, v in ipairs(pen) do maxpen = math.max(maxpen, v) end
fig:compare { quantity = "spacing where contact stops holding", unit = "dx", paper = 1.8, source = "Sec. 5.1 (jitter onset)",
  tide = onset or "none up to " .. sp[#sp], note = "first spacing of the sweep with liquid below the row" }
fig:compare { quantity = "the same with Eq. 13's masses in the stencils (stencil_mass = lagged)", unit = "dx", paper = 1.8,
  source = "Sec. 5.1 (jitter onset)", tide = onset_lag or "none up to " .. sp[#sp],
  note = "docs/couple.md: the volume correction lowers the air under the gaps, the barrier raises one air cell per stencil" }
fig:compare { quantity = "steps with a vertex inside the liquid (all spacings)", paper = 0, source = "Sec. 5.1",
  tide = maxpen, note = "the porous row too: each vertex stays penetration-free" }
fig:done()
