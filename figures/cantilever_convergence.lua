-- Cantilever beam under its weight: the tip deflection of Tide's
-- corotational linear tetrahedra converges to the beam-theory value as the
-- mesh is refined.
local F = require "tide.figures"
local cantilever = require "tide.cases.cantilever"
local fio = require("tide").fileio

local fig = F.figure {
  paper = "Euler-Bernoulli / Timoshenko beam theory", number = "tip deflection q L^4 / (8 E I)",
  title = "Cantilever under gravity: tip deflection vs mesh resolution",
  shows = "A 1 m cantilever with a 0.1 x 0.1 m section (E = 1e8 Pa, nu = 0, 1000 kg/m^3) clamped at x = 0 " ..
    "sags under its weight (linear regime, deflection ~1.5% of the length). Static solution by one " ..
    "corotational backward Euler step with a large dt (Zarifi Alg. 1-2), meshes of 10n x n x 1 boxes, " ..
    "5 or 6 tetrahedra each. Reference: Euler-Bernoulli q L^4 / (8 E I) and, with the shear term, " ..
    "Timoshenko's q L^4 / (8 E I) + q L^2 / (2 k G A) (k = 5/6), which a fine 3D mesh approaches.",
  quick = { sizes = "1,2,4" }, full = { sizes = "1,2,4,8,16,24" },
  estimate = { quick = 1, full = 8 },
}
local P = fig.params
local sizes = {}
for s in P.sizes:gmatch("%d+") do sizes[#sizes + 1] = math.tointeger(tonumber(s)) end
local C = cantilever
local G, A = C.E / 2, C.h * C.h -- nu = 0
local timo = C.exact + C.q * C.L ^ 2 / (2 * (5 / 6) * G * A)

local res, rows, work, done = {}, {}, 0, 0
for _, n in ipairs(sizes) do work = work + n ^ 3 end
for i, n in ipairs(sizes) do
  local r = cantilever.solve(n)
  assert(r.converged, "static solve did not converge")
  res[i] = r
  done = done + n ^ 3
  fig:progress(done, work, n .. "")
  rows[i] = { n, C.h / n, r.ne, r.tip, C.exact, timo, r.tip / C.exact - 1, r.tip / timo - 1 }
end
fig:csv("tip", { "n", "h [m]", "tetrahedra", "tip deflection [m]", "Euler-Bernoulli [m]", "Timoshenko [m]",
  "error vs EB", "error vs Timoshenko" }, rows)

local hx, err, tip = {}, {}, {}
for i, n in ipairs(sizes) do hx[i] = C.h / n; err[i] = math.abs(res[i].tip / timo - 1); tip[i] = res[i].tip end
local order, c = fio.loglog_fit(hx, err)
local fit = {}
for i = 1, #hx do fit[i] = c * hx[i] ^ order end
fig:plot("error", { title = "cantilever: tip deflection error", xlabel = "element size h [m]",
  ylabel = "|tip / Timoshenko - 1|", xlog = true, ylog = true, legend = "lower right",
  series = { { x = hx, y = err, marker = "o", label = string.format("Tide (order %.2f)", order) },
    { x = hx, y = fit, dash = "dashed", label = "least-squares fit" } },
  caption = "Relative error of the tip deflection against Timoshenko's value, over the element size" })
fig:plot("tip", { title = "cantilever: tip deflection", xlabel = "element size h [m]", ylabel = "tip deflection [m]",
  xlog = true, legend = "lower left",
  series = { { x = hx, y = tip, marker = "o", label = "Tide" },
    { x = { hx[#hx], hx[1] }, y = { C.exact, C.exact }, analytic = true, label = "Euler-Bernoulli" },
    { x = { hx[#hx], hx[1] }, y = { timo, timo }, analytic = true, dash = "dotted", label = "Timoshenko (k = 5/6)" } },
  caption = "Tip deflection over the element size: linear tetrahedra are too stiff on coarse meshes (locking in bending)" })
for i, n in ipairs(sizes) do
  fig:compare { quantity = string.format("tip deflection, %d x %d x 1 cells (%d tets)", 10 * n, n, res[i].ne),
    unit = "m", paper = timo, source = "Timoshenko", tide = res[i].tip,
    note = "linear tetrahedra: too stiff in bending on coarse meshes" }
end
fig:compare { quantity = "Timoshenko vs Euler-Bernoulli", unit = "m", paper = C.exact, source = "Euler-Bernoulli",
  tide = timo, note = "the shear deformation at L/h = 10 (not a measurement)" }
fig:done()
