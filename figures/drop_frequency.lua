-- Drop oscillation: the n = 2 frequency against Rayleigh's formula, over the
-- resolution, 2D (a liquid column) and 3D.
local F = require "tide.figures"
local D = require "tide.cases.drop_oscillation"

local fig = F.figure {
  paper = "Rayleigh 1879 / Lamb 1932 Sec. 275", number = "n = 2 mode, linear theory",
  title = "Drop oscillation frequency vs resolution against Rayleigh",
  shows = "An inviscid water drop (R = 1 cm, sigma = 0.07 N/m, rho = 1000 kg/m^3, zero gravity, air " ..
    "density 0) perturbed by 5% in the n = 2 mode rings under surface tension, with the tide.drop " ..
    "recipe (MacCormack level set with volume correction, ghost-fluid surface tension with " ..
    "height-function curvature, ghost-fluid projection), in a box of 1.5 diameters. The frequency " ..
    "is measured between zero crossings 1 and 3 of the mode's moment and compared with the linear " ..
    "theory: omega^2 = 6 sigma / (rho R^3) for the 2D column, 8 sigma / (rho R^3) for the 3D drop.",
  quick = { cpd2 = "8,12,16", cpd3 = "8,10", periods = 1.6 },
  full = { cpd2 = "8,12,16,24,32,48,64", cpd3 = "8,12,16,20,24", periods = 1.6 },
  estimate = { quick = 3, full = 200 },
}
local P = fig.params
local function list(s)
  local t = {}
  for v in s:gmatch("%d+") do t[#t + 1] = math.tointeger(tonumber(v)) end
  return t
end
local sets = { { dim = 2, cpd = list(P.cpd2) }, { dim = 3, cpd = list(P.cpd3) } }
-- work estimate: steps ~ cpd^1.5, cells ~ cpd^dim
local work, done = 0, 0
for _, s in ipairs(sets) do for _, c in ipairs(s.cpd) do work = work + c ^ (s.dim + 1.5) end end

local rows, series, last = {}, {}, {}
for _, s in ipairs(sets) do
  local x, y = {}, {}
  for _, c in ipairs(s.cpd) do
    local unit = c ^ (s.dim + 1.5)
    local r = D.run { dim = s.dim, cpd = c, periods = P.periods,
      progress = function(k, n) fig:progress(math.floor(done + unit * k / n), math.floor(work),
        string.format("%dD %d cpd", s.dim, c)) end }
    done = done + unit
    rows[#rows + 1] = { s.dim, c, r.n, r.steps, r.exact, r.omega or "nan", r.err or "nan", r.drift }
    if r.omega then x[#x + 1], y[#y + 1] = c, r.omega / r.exact end
    last[s.dim] = { r = r, cpd = c }
    fig:compare { quantity = string.format("%dD, %d cells per diameter: omega", s.dim, c), unit = "rad/s",
      paper = r.exact, source = s.dim == 2 and "6 sigma / (rho R^3)" or "8 sigma / (rho R^3)",
      tide = r.omega or "no 3 crossings", note = r.omega and string.format("volume drift %.3f%%", 100 * r.drift) or
        string.format("the oscillation broke down before its third zero crossing (moment plot; volume drift %.2f%%)", 100 * r.drift) }
  end
  series[#series + 1] = { x = x, y = y, marker = s.dim == 2 and "o" or "s", label = s.dim .. "D, ghost fluid" }
end
local all = {}
for _, s in ipairs(sets) do for _, c in ipairs(s.cpd) do all[#all + 1] = c end end
table.sort(all)
series[#series + 1] = { x = { all[1], all[#all] }, y = { 1, 1 }, analytic = true, label = "Rayleigh (linear theory)" }
fig:csv("frequency", { "dim", "cells per diameter", "cells per side", "steps", "omega Rayleigh [rad/s]",
  "omega Tide [rad/s]", "omega / Rayleigh - 1", "max volume drift" }, rows)
fig:plot("frequency", { title = "n = 2 drop oscillation frequency", xlabel = "cells per diameter", xlog = true,
  ylabel = "omega / omega_Rayleigh", legend = "lower right", series = series,
  caption = "Measured frequency over Rayleigh's, against the resolution (2D column and 3D drop)" })

-- the moment over time at the finest resolution against the linear theory
local mseries = {}
for dim = 2, 3 do
  local L = last[dim]
  if L then
    local y, yt = {}, {}
    for k, t in ipairs(L.r.t) do
      y[k] = L.r.q[k] / L.r.q0
      yt[k] = math.cos(L.r.exact * t)
    end
    mseries[#mseries + 1] = { x = L.r.t, y = y, label = string.format("%dD, %d cpd", dim, L.cpd) }
    mseries[#mseries + 1] = { x = L.r.t, y = yt, analytic = true, dash = dim == 2 and "dashed" or "dotted",
      label = string.format("cos(omega t), %dD", dim) }
  end
end
fig:plot("moment", { title = "n = 2 moment over time (finest resolution)", xlabel = "t [s]", ylabel = "moment / initial",
  legend = "lower left", series = mseries,
  caption = "The mode's moment over time at the finest resolution against cos(omega t) of the linear theory" })
fig:done()
