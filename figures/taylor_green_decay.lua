-- Taylor-Green vortex: the viscous decay rate of the kinetic energy against
-- 4 nu k^2, over the resolution (APIC transport, implicit viscosity,
-- periodic projection).
local F = require "tide.figures"
local tg = require "tide.cases.taylor_green"
local fio = require("tide").fileio

local fig = F.figure {
  paper = "Taylor & Green 1937 (analytic)", number = "KE decay e^(-4 nu k^2 t)",
  title = "Taylor-Green vortex: viscous decay rate vs resolution",
  shows = "The 2D Taylor-Green vortex (k = 1, U = 1, nu = 0.125, Re = 8) on the periodic box [0, 2 pi]^2 " ..
    "with Tide's particle pipeline (APIC transfers, implicit per-component viscosity, periodic pressure " ..
    "projection; 4 particles per cell, CFL 0.25, t = 0..2): kinetic energy over time against " ..
    "e^(-4 nu k^2 t), and the error of the fitted decay rate against the resolution.",
  quick = { sizes = "16,32", nu = 0.125 }, full = { sizes = "16,32,64,128", nu = 0.125 },
  estimate = { quick = 1, full = 25 },
}
local P = fig.params
local sizes = {}
for s in P.sizes:gmatch("%d+") do sizes[#sizes + 1] = math.tointeger(tonumber(s)) end
local exact = 4 * P.nu

local runs, rows, work, done = {}, {}, 0, 0
for _, n in ipairs(sizes) do work = work + n end
for _, n in ipairs(sizes) do
  local r = tg.run { n = n, scheme = "apic", nu = P.nu }
  runs[#runs + 1] = r
  done = done + n
  fig:progress(done, work, n .. "^2")
  rows[#rows + 1] = { n, 2 * math.pi / n, r.rate, exact, (r.rate - exact) / exact, r.ke, r.div_max }
end
fig:csv("decay_rate", { "n", "dx [m]", "rate [1/s]", "4 nu k^2 [1/s]", "relative error", "KE(2)/KE(0)",
  "max div after projection" }, rows)

-- KE(t) of every resolution against the exact decay
local series = {}
for i, r in ipairs(runs) do
  series[#series + 1] = { x = r.t, y = r.e, label = string.format("%d^2", sizes[i]) }
end
local tx, ty = {}, {}
for k = 0, 50 do tx[#tx + 1] = 2 * k / 50; ty[#ty + 1] = math.exp(-exact * 2 * k / 50) end
series[#series + 1] = { x = tx, y = ty, analytic = true, label = "exp(-4 nu t)" }
fig:plot("energy", { title = "Taylor-Green, nu = 0.125: kinetic energy", xlabel = "t [s]", ylabel = "KE(t) / KE(0)",
  series = series, caption = "Kinetic energy over time for each resolution; black dashed: exp(-4 nu k^2 t)" })

-- rate error vs dx, with its order
local h, err = {}, {}
for i, r in ipairs(runs) do h[i] = 2 * math.pi / sizes[i]; err[i] = math.abs(r.rate - exact) / exact end
local order, c = fio.loglog_fit(h, err)
local fit = {}
for i = 1, #h do fit[i] = c * h[i] ^ order end
fig:plot("rate_error", { title = "decay rate error vs resolution", xlabel = "dx [m]", ylabel = "|rate / (4 nu k^2) - 1|",
  xlog = true, ylog = true, legend = "lower right",
  series = { { x = h, y = err, marker = "o", label = string.format("APIC + diffuse (order %.2f)", order) },
    { x = h, y = fit, dash = "dashed", label = "least-squares fit" } },
  caption = "Relative error of the fitted decay rate against the cell size (log-log)" })

for i, r in ipairs(runs) do
  fig:compare { quantity = string.format("decay rate, %d^2", sizes[i]), unit = "1/s", paper = exact,
    source = "4 nu k^2", tide = r.rate, note = "the transfers' and advection's dissipation; shrinks with dx (see the fitted order)" }
end
fig:done()
