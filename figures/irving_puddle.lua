-- Irving 2007, thesis Fig. 2.2: a torus with zero strength collapses into a
-- puddle; when the strength is switched on, it recovers (inversion-safe FEM).
local F = require "tide.figures"
local puddle = require "tide.cases.torus_puddle"
local solids = require "tide.solids"

local fig = F.figure {
  paper = "Irving 2007 (thesis)", number = "Fig. 2.2",
  title = "A torus collapses into a puddle and recovers",
  shows = "A torus (R = 0.2 m, r = 0.08 m, BCC tetrahedra) with zero strength (E = 1 Pa) collapses on " ..
    "a frictional ground into a flat puddle in which every element is flat or inverted; then its " ..
    "strength is switched on (E = 2e4 Pa) and it stands back up. Backward Euler by Newton's method on " ..
    "the incremental potential with the ground as a constraint, rotated linear model in the " ..
    "inversion-aware diagonal frame (Irving 2.5-2.6). The thesis shows pictures; Tide plots the " ..
    "volume, the count of flat or inverted elements and the height over time.",
  quick = { h = 0.08, collapse = 40, recover = 60 }, full = { h = 0.04, collapse = 60, recover = 120 },
  estimate = { quick = 2, full = 60 },
}
local P = fig.params
local shots, pics = {}, {}
local function shot(k, m, label)
  local file = string.format("torus_%04d.png", k)
  solids.png3d(fig:path("torus_%04d.png"), k, { solids.surface(m, { 0.85, 0.55, 0.3 }) }, {
    camera = { position = { 0.55, 0.45, 0.75 }, target = { 0, 0.06, 0 }, fov = 40 }, width = 320, height = 240,
    ground_y = 0, title = label })
  pics[#pics + 1] = file
end
shots[P.collapse] = "puddle (end of collapse)"
shots[P.collapse + math.max(2, P.recover // 30)] = "recovering"
shots[P.collapse + P.recover] = "recovered"
local r
r = puddle.run { h = P.h, collapse = P.collapse, recover = P.recover,
  frame = function(k, total, m)
    if shots[k] then shot(k, m, string.format("%s, t = %.2f s", shots[k], k * puddle.dt)) end
    fig:progress(k, total)
  end }
fig:row("frames", pics, "The torus at the end of the collapse, while recovering and recovered")

local rows = {}
for k = 1, #r.t do rows[k] = { r.t[k], r.volume[k], r.inverted[k], r.inverted[k] / r.ne, r.top[k], r.bottom[k] } end
fig:csv("puddle", { "t [s]", "V/V0", "flat or inverted elements", "fraction flat or inverted", "top [m]",
  "bottom [m]" }, rows)
local frac = {}
for k = 1, #r.t do frac[k] = r.inverted[k] / r.ne end
local ton = P.collapse * puddle.dt
fig:plot("volume", { title = string.format("torus puddle (%d tetrahedra): strength on at t = %.2f s", r.ne, ton),
  xlabel = "t [s]", ylabel = "fraction", legend = "upper right",
  series = { { x = r.t, y = r.volume, label = "volume V/V0" },
    { x = r.t, y = frac, label = "flat or inverted elements" },
    { x = { ton, ton }, y = { 0, 1 }, analytic = true, dash = "dotted", label = "strength switched on" } },
  caption = "Volume and the fraction of flat or inverted elements over time" })
local rel = {}
for k = 1, #r.t do rel[k] = r.top[k] / puddle.rest_height end
fig:plot("height", { title = "height of the torus", xlabel = "t [s]", ylabel = "top / rest height", legend = "lower right",
  series = { { x = r.t, y = rel, label = "Tide" } }, caption = "Height of the highest node relative to the rest height" })

local V2, inv2, _, top2 = puddle.measure(r.mesh)
fig:compare { quantity = "puddle: flat or inverted elements", paper = "all (flat puddle)", source = "Fig. 2.2",
  tide = string.format("%d of %d", r.collapsed.inverted, r.ne), note = "" }
fig:compare { quantity = "puddle: volume V/V0", paper = 0, source = "Fig. 2.2 (flat)", tide = r.collapsed.volume, note = "" }
fig:compare { quantity = "recovered: volume V/V0", paper = 1, source = "Fig. 2.2 (recovers)", tide = V2,
  note = "sag under its weight; still settling at the end" }
fig:compare { quantity = "recovered: inverted elements", paper = 0, source = "Fig. 2.2", tide = inv2, note = "" }
fig:compare { quantity = "recovered: height", unit = "m", paper = puddle.rest_height, source = "rest height",
  tide = top2, note = "sag under its weight (E = 2e4 Pa)" }
fig:done()
