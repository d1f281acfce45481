-- Cut-cell vs voxelized walls: liquid at rest in a round container must stay
-- at rest (Zarifi 2017 Sec. 4.4, the cut-cell pressure projection).
local F = require "tide.figures"
local container = require "tide.cases.container"
local tide = require "tide"

local fig = F.figure {
  paper = "Zarifi 2017 (thesis)", number = "Sec. 4.4 (cut-cell projection)",
  title = "Hydrostatic liquid in a round container: cut cells vs voxelized walls",
  shows = "Liquid at rest in a circular (2D) and spherical (3D) container of radius 0.45 m, filled to " ..
    "0.4 m, FLIP particles seeded in the true container, CFL steps of the tide.flip recipe. With " ..
    "cut cells (face fractions from the container's signed distance enter the projection, " ..
    "Zarifi Sec. 4.4) the liquid stays at rest; with voxelized walls (cells whose centre is outside " ..
    "are solid) the liquid is shoved out of the solid voxels. Measured: the largest speed over " ..
    "sqrt(g H) and the largest particle displacement. The exact answer is rest (0).",
  quick = { n2 = 32, n3 = 16, steps = 200 }, full = { n2 = 64, n3 = 32, steps = 400 },
  estimate = { quick = 2, full = 90 },
}
local P = fig.params
local cases = {
  { dim = 2, cut = true, label = "2D cut cells" }, { dim = 2, cut = false, label = "2D voxelized" },
  { dim = 3, cut = true, label = "3D cut cells" }, { dim = 3, cut = false, label = "3D voxelized" },
}
local res, pics = {}, {}
for i, c in ipairs(cases) do
  local r = container.run { dim = c.dim, n = c.dim == 2 and P.n2 or P.n3, cut = c.cut, steps = P.steps,
    progress = function(s, n) fig:progress((i - 1) * n + s, #cases * n, c.label) end }
  res[i] = r
  if c.dim == 2 then
    -- the particles coloured by their displacement [cells]
    local np = r.ps.x.shape[1]
    local d = tide.array.zeros({ np })
    for k = 1, np do
      local dx, dy = r.ps.x:get(k, 1) - r.x0:get(k, 1), r.ps.x:get(k, 2) - r.x0:get(k, 2)
      d:set(k, math.sqrt(dx * dx + dy * dy) / r.g.dx)
    end
    local file = c.cut and "cut.png" or "voxel.png"
    tide.fileio.png2d { path = fig:path(file), grid = r.g, labels = r.solid, particles = r.ps.x,
      particle_color = d, particle_range = { 0, 0.5 }, width = 400,
      title = string.format("%s, t = %.1f s", c.label, r.S.t) }
    pics[#pics + 1] = file
  end
end
fig:row("particles", pics, "2D: particles at the end coloured by their displacement (0 to 0.5 cells, viridis) " ..
  "with cut cells (left) and voxelized walls (right); grey: solid cells")

local series = {}
for i, c in ipairs(cases) do
  local y = {}
  for k, v in ipairs(res[i].speed) do y[k] = math.max(v, 1e-16) end
  series[i] = { x = res[i].t, y = y, label = c.label, dash = c.cut and "solid" or "dashed" }
end
fig:plot("speed", { title = "liquid at rest in a round container", xlabel = "t [s]", ylabel = "max |u| / sqrt(g H)",
  ylog = true, legend = "lower right", series = series,
  caption = "Largest speed over time (log scale): exact answer 0; cut cells stay at round-off level" })
local rows = {}
for i, c in ipairs(cases) do
  rows[i] = { c.dim, c.cut and "cut cells" or "voxelized", c.dim == 2 and P.n2 or P.n3, P.steps, res[i].S.t,
    res[i].vmax, res[i].disp }
  fig:compare { quantity = c.label .. ": max |u| / sqrt(g H) at the end", paper = 0, source = "rest",
    tide = res[i].vmax, note = c.cut and "round-off and solver tolerance" or "the liquid settles into the voxel staircase" }
  fig:compare { quantity = c.label .. ": largest particle displacement", unit = "cells", paper = 0, source = "rest",
    tide = res[i].disp, note = c.cut and "" or "particles shoved out of the solid voxels" }
end
fig:csv("container", { "dim", "walls", "cells per side", "steps", "t [s]", "max|u|/sqrt(gH)", "max displacement [cells]" },
  rows)
fig:done()
