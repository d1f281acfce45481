-- PIC vs FLIP vs APIC in one dam break: the kinetic and mechanical energy
-- over time, and a picture row of the three at the same time.
local F = require "tide.figures"
local dam = require "tide.cases.dam_break"
local flip = require "tide.flip"
local tide = require "tide"

local fig = F.figure {
  paper = "Li, lecture 16 (CMU 15-769)", number = "PIC / FLIP / APIC transfers",
  title = "PIC vs FLIP vs APIC: energy of a dam break",
  shows = "The same 2D dam break (a 0.5 x 0.75 m water column in a 1.5 x 1 m tank, 4 particles per " ..
    "cell, tide.flip recipe: advect, P2G, gravity, pressure projection, G2P) with the three " ..
    "particle-grid transfers of the lecture: PIC (dissipative), FLIP (blend 0.97: energetic, noisy) " ..
    "and APIC (affine: conserves angular momentum, little dissipation). Plotted: the kinetic energy " ..
    "of the particles and the mechanical energy (kinetic + potential) relative to the initial " ..
    "potential energy above the final rest level; the pictures show the three at the same time.",
  quick = { res = 32, T = 1.0 }, full = { res = 128, T = 3.0 },
  estimate = { quick = 3, full = 240 },
}
local P = fig.params
local schemes = { "pic", "flip", "apic" }
local snap = P.T / 2
local series_k, series_e, pics, rows, final = {}, {}, {}, {}, {}
local fill = 0.5 * 0.75 / 1.5 -- the rest depth
for si, scheme in ipairs(schemes) do
  local g, ps, S = dam.setup(scheme, P.res)
  local e0 = dam.energy(S)
  local m = S.rho * g.dx ^ 2 / S.per_cell
  local rest = #ps * m * 9.81 * fill / 2 -- potential energy of the still liquid
  local avail = e0.potential - rest
  local t, k, e = { 0 }, { 0 }, { 1 }
  local shot = false
  while S.t < P.T - 1e-12 do
    local dt = math.min(flip.max_dt(S), P.T - S.t)
    if not shot and S.t + dt >= snap - 1e-12 then dt = snap - S.t end
    flip.step(S, dt)
    local en = dam.energy(S)
    t[#t + 1], k[#k + 1], e[#e + 1] = S.t, en.kinetic / avail, (en.kinetic + en.potential - rest) / avail
    rows[#rows + 1] = { scheme, S.t, en.kinetic, en.potential, en.kinetic / avail, (en.kinetic + en.potential - rest) / avail }
    if not shot and S.t >= snap - 1e-12 then
      shot = true
      local file = scheme .. ".png"
      tide.fileio.png2d { path = fig:path(file), grid = g, particles = ps, particle_color = "speed",
        particle_range = { 0, 3 }, width = 360, title = string.format("%s, t = %.2f s", scheme:upper(), S.t) }
      pics[#pics + 1] = file
    end
    fig:progress(math.floor(1000 * ((si - 1) * P.T + S.t) / (#schemes * P.T)), 1000, scheme)
  end
  series_k[si] = { x = t, y = k, label = scheme:upper() }
  series_e[si] = { x = t, y = e, label = scheme:upper() }
  final[scheme] = { k = k[#k], e = e[#e], steps = S.steps }
end
fig:row("frames", pics, string.format("PIC, FLIP and APIC at t = %.2f s, particles coloured by speed (0-3 m/s)", snap))
fig:csv("energy", { "scheme", "t [s]", "kinetic [J/m]", "potential [J/m]", "kinetic / available",
  "mechanical / available" }, rows)
fig:plot("kinetic", { title = "dam break: kinetic energy", xlabel = "t [s]",
  ylabel = "KE / available potential energy", series = series_k,
  caption = "Kinetic energy of the particles over time, relative to the potential energy the column can release" })
fig:plot("mechanical", { title = "dam break: mechanical energy", xlabel = "t [s]",
  ylabel = "(KE + PE - PE_rest) / available", legend = "upper right", series = series_e,
  caption = "Mechanical energy over time: what the transfers (and the projection) dissipate" })
local note = { pic = "PIC averages the velocity on every transfer",
  flip = "FLIP transfers only the grid's change (blend 0.97)",
  apic = "APIC carries an affine velocity per particle" }
for _, s in ipairs(schemes) do
  fig:compare { quantity = string.format("%s: mechanical energy left at t = %g s (of the available)", s:upper(), P.T),
    paper = "-", source = "", tide = final[s].e, note = note[s] }
end
local pic_most = final.pic.e < final.flip.e and final.pic.e < final.apic.e
fig:compare { quantity = "PIC dissipates the most", paper = "yes", source = "Jiang et al. 2015 (APIC paper)",
  tide = pic_most and "yes" or "no", note = "" }
fig:done()
