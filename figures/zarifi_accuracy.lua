-- Zarifi 2017 (thesis) section 6.4, Tables 6.5-6.6: one coupled projection of a 2D solid in
-- hydrostatic equilibrium, infinity-norm errors of pressure, solid and liquid velocity against
-- the exact rest state, with the thesis's cell-constant pressure on the solid boundary and
-- with Tide's linear sampling (the fix of the non-monotone convergence).
local F = require "tide.figures"
local zarifi = require "tide.zarifi"

local fig = F.figure {
  paper = "Zarifi 2017 (thesis)", number = "Tables 6.5-6.6 (section 6.4)",
  title = "Accuracy of the coupled projection: a submerged solid in hydrostatic equilibrium",
  shows = "The set-up of Eq. 6.1-6.10 (unit square, rho_f = 1, g = -1, surface a = 0.8, dt = 0.01; the " ..
    "deformed rectangle centred horizontally, meshed at the grid spacing; tractions integrated on the rest " ..
    "boundary). One step of Algorithm 4 from the exact equilibrium; infinity-norm errors of the liquid " ..
    "pressure, the solid velocity and the liquid face velocity. 'cell' is the thesis's discretisation " ..
    "(each clipped boundary piece feels its cell's pressure, section 5.1.2); it reproduces the tables, " ..
    "including Table 6.6 going backwards at dx = 0.025. Cause: the force error of a cell-constant " ..
    "pressure is rho g (y_centre - y_face) per unit face, a fraction of dx whose sign and size depend on " ..
    "where the solid's top and bottom cut their cells (0.2 dx at dx = 0.05, 0.6 dx at 0.025 for " ..
    "y1 = 0.18, y2 = 0.62), so the error is first order with a coefficient that jumps with dx. 'linear' " ..
    "samples the pressure at each piece's centroid from a weighted least-squares affine fit over the " ..
    "liquid cells around it (the flux spread with the same weights, so the system stays symmetric): " ..
    "exact for the hydrostatic pressure, monotone convergence.",
  quick = { finest = 4 }, full = { finest = 5 },
  estimate = { quick = 2, full = 4 },
}
local P = fig.params
local DX = { 0.2, 0.1, 0.05, 0.025, 0.0125 }
-- Tables 6.5 and 6.6 of the thesis: { p, solid v, liquid v } per dx
local thesis = {
  { { 4.19e-2, 5.68e-3, 3.75e-3 }, { 4.22e-2, 4.20e-3, 2.66e-3 }, { 1.84e-2, 1.93e-3, 2.31e-3 },
    { 6.95e-3, 9.75e-4, 1.14e-3 }, { 1.15e-3, 2.72e-4, 3.01e-4 } },
  { { 9.19e-2, 3.92e-3, 3.02e-3 }, { 3.35e-2, 1.37e-3, 1.06e-3 }, { 6.01e-3, 3.25e-4, 2.08e-4 },
    { 7.30e-3, 4.74e-4, 7.57e-4 }, { 1.21e-3, 1.07e-4, 1.92e-4 } },
}
local names = { "p", "solid", "liquid" }
local rows, series = {}, {}
local done, total = 0, 2 * 2 * P.finest
for set = 1, 2 do
  local errs = {}
  for _, smp in ipairs { "cell", "linear" } do
    errs[smp] = {}
    for k = 1, P.finest do
      errs[smp][k] = zarifi.hydrostatic { dx = DX[k], params = set }.run { sampling = smp }
      done = done + 1
      fig:progress(done, total, string.format("table %d, %s, dx %.4f", 4 + set, smp, DX[k]))
    end
  end
  for k = 1, P.finest do
    local th, c, l = thesis[set][k], errs.cell[k], errs.linear[k]
    local th_o = {}
    for q = 1, 3 do th_o[q] = k > 1 and math.log(thesis[set][k - 1][q] / th[q], 2) or nil end
    local function o(x) return x and string.format("%.2f", x) or "" end
    rows[#rows + 1] = { 4 + set, DX[k],
      th[1], o(th_o[1]), c.p, o(k > 1 and math.log(errs.cell[k - 1].p / c.p, 2)), l.p,
      o(k > 1 and math.log(errs.linear[k - 1].p / l.p, 2)),
      th[2], o(th_o[2]), c.solid, o(k > 1 and math.log(errs.cell[k - 1].solid / c.solid, 2)), l.solid,
      o(k > 1 and math.log(errs.linear[k - 1].solid / l.solid, 2)),
      th[3], o(th_o[3]), c.liquid, o(k > 1 and math.log(errs.cell[k - 1].liquid / c.liquid, 2)), l.liquid,
      o(k > 1 and math.log(errs.linear[k - 1].liquid / l.liquid, 2)) }
    for q = 1, 3 do
      fig:compare { quantity = string.format("Table 6.%d, dx = %.4f: %s error (cell sampling)", 4 + set, DX[k],
        names[q] == "p" and "pressure" or names[q] .. " velocity"), paper = th[q], source = "thesis",
        tide = c[names[q]], note = string.format("linear sampling: %.3g", l[names[q]]) }
    end
  end
  for q = 1, 3 do
    local xs, yc, yl, yt = {}, {}, {}, {}
    for k = 1, P.finest do xs[k], yc[k], yl[k], yt[k] = DX[k], errs.cell[k][names[q]], errs.linear[k][names[q]], thesis[set][k][q] end
    series[#series + 1] = { set = set, q = q, x = xs, cell = yc, linear = yl, thesis = yt }
  end
end
fig:csv("errors", { "table", "dx", "p thesis", "order", "p cell", "order", "p linear", "order",
  "solid v thesis", "order", "solid v cell", "order", "solid v linear", "order",
  "liquid v thesis", "order", "liquid v cell", "order", "liquid v linear", "order" }, rows)
for set = 1, 2 do
  local s = {}
  local marks = { "pressure", "solid v", "liquid v" }
  for _, e in ipairs(series) do
    if e.set == set then
      s[#s + 1] = { x = e.x, y = e.thesis, label = marks[e.q] .. " thesis", dash = "dotted" }
      s[#s + 1] = { x = e.x, y = e.cell, label = marks[e.q] .. " cell", dash = "dashed" }
      s[#s + 1] = { x = e.x, y = e.linear, label = marks[e.q] .. " linear", dash = "solid" }
    end
  end
  fig:plot("table6_" .. (4 + set), { title = string.format("Table 6.%d: errors after one step", 4 + set),
    xlabel = "dx", ylabel = "infinity-norm error", xlog = true, ylog = true, legend = "lower right", series = s,
    caption = string.format("Table 6.%d parameter set: the thesis (dotted), Tide with the thesis's cell-constant " ..
      "pressure (dashed) and with linear sampling (solid)", 4 + set) })
end
fig:done()
