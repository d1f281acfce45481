-- Zarifi 2017 (thesis) section 6.3, Fig. 6.8: stability of the coupling schemes with a stiff,
-- light solid, high gravity and large steps: weak (alternating) coupling fails, damping-only
-- strong coupling runs but the solid is pushed up to float, the full coupling runs with and
-- without damping.
local F = require "tide.figures"
local tide = require "tide"
local zarifi = require "tide.zarifi"

local fig = F.figure {
  paper = "Zarifi 2017 (thesis)", number = "Fig. 6.8 (section 6.3)",
  title = "Weak, damping-only and full coupling of a stiff light solid",
  shows = "A stiff (E = 1e6 Pa) light (200 kg/m^3) block held half under water in a tank, gravity 3 g, fixed " ..
    "steps of dt = 2 ms and 8 ms up to T = 0.2 s. Schemes of lua/tide/zarifi.lua: " ..
    "'weak' (solid step with the last pressure, then the projection with the solid as a moving boundary), " ..
    "'damping' (the solid's implicit elastic step, then only M/dt + D coupled), 'spd' (the full coupling) " ..
    "with Rayleigh mass damping tau_M = 2 and without. A run fails when the recipe detects an inverted " ..
    "element, a non-finite value or a speed above 1000 m/s (reported as an error, never a NaN frame). The " ..
    "thesis: weak coupling blows up, damping-only completes but the solid floats up, full coupling is stable. " ..
    "With --setup dam (3D) the solid and liquid are instead the thesis's own set-up: the dam break of " ..
    "lua/tide/cases/zarifi_dam_beam.lua with the pinned beam of 2 x 20 x 2 cubes (189 nodes / 480 tets), " ..
    "same material, gravity and steps.",
  quick = { dim = 2, n = 24, T = 0.2, dts = "0.002,0.008", setup = "pool" },
  full = { dim = 3, n = 35, T = 0.2, dts = "0.002,0.008", setup = "pool" }, -- the thesis's 35^3
  estimate = { quick = 3, full = 600 },
}
local P = fig.params
local function pool(tau)
  local n, dim = P.n, P.dim
  local g = tide.grid.new { size = dim == 2 and { n, n } or { n, n, n }, dx = 1 / n }
  local lo = dim == 2 and { 0.35, 0.4 } or { 0.35, 0.4, 0.35 }
  local hi = dim == 2 and { 0.65, 0.6 } or { 0.65, 0.6, 0.65 }
  local m = tide.solid.box { min = lo, max = hi, cells = dim == 2 and { 6, 4 } or { 4, 3, 4 } }
  m:material { model = "corotational", E = 1e6, nu = 0.3, density = 200, rayleigh_mass = tau, gravity = dim == 2 and
    { 0, -3 * 9.81 } or { 0, -3 * 9.81, 0 } }
  local ps = zarifi.seed(g, { below = 0.5 }, { m })
  return g, ps, m
end
-- the thesis's section 6.3 set-up: the dam break against the pinned beam of 189 nodes / 480 tets
local function dam(scheme, tau)
  if P.dim ~= 3 then error("zarifi_stability: setup = \"dam\" needs dim = 3", 0) end
  local case = require "tide.cases.zarifi_dam_beam"
  local S, m = case.new { res = P.n, dim = 3, paper = "stability", E = 1e6, density = 200, tau_m = tau, tau_k = 0,
    gravity = { 0, -3 * 9.81, 0 }, scheme = scheme }
  return S, m
end
if P.setup ~= "pool" and P.setup ~= "dam" then error("zarifi_stability: setup must be \"pool\" or \"dam\"", 0) end
local dts = {}
for v in tostring(P.dts):gmatch("[%d%.e%-]+") do dts[#dts + 1] = tonumber(v) end
local cases = { { "weak", 2 }, { "damping", 2 }, { "spd", 2 }, { "spd", 0 } }
local thesis = { weak = "blows up", damping = "runs, solid floats up", spd = "stable" }
local rows, done, units = {}, 0, 0
for _, dt in ipairs(dts) do units = units + #cases * math.floor(P.T / dt + 0.5) end
for _, dt in ipairs(dts) do
  local nsteps = math.floor(P.T / dt + 0.5)
  for _, c in ipairs(cases) do
    local S, m
    if P.setup == "dam" then S, m = dam(c[1], c[2]) else
      local g, ps
      g, ps, m = pool(c[2])
      S = zarifi.new { grid = g, particles = ps, solids = { m }, scheme = c[1],
        gravity = P.dim == 2 and { 0, -3 * 9.81 } or { 0, -3 * 9.81, 0 } }
    end
    local y0, X0 = zarifi.centroid(m)[2], m.x:clone()
    local steps = 0
    local ok, e = pcall(function()
      for k = 1, nsteps do
        zarifi.step(S, dt)
        steps = k
        done = done + 1
        fig:progress(done, units, string.format("%s, dt %g", c[1], dt))
      end
    end)
    local err = not ok and tostring(e):gsub("^.-tide%.zarifi%.step: ", "") or nil
    done = done + (nsteps - steps)
    local y = ok and zarifi.centroid(m)[2] or 0 / 0
    -- the largest node displacement (the pinned beam of the dam set-up bends sideways)
    local umax = 0
    for q = 1, m.nv do
      local d2 = 0
      for k = 1, P.dim do d2 = d2 + (m.x:get(q, k) - X0:get(q, k)) ^ 2 end
      umax = math.max(umax, math.sqrt(d2))
    end
    local label = string.format("%s, tau_M = %g, dt = %g s", c[1], c[2], dt)
    -- one line per case on stderr, so a run stopped part-way still reports what it measured
    io.stderr:write(string.format("stability: %s: %s after %d steps%s\n", label, ok and "ran" or "failed", steps,
      ok and string.format(", centre moved %+.4f m, largest node displacement %.4f m", y - y0, umax) or ": " .. err))
    rows[#rows + 1] = { c[1], c[2], dt, ok and "ran" or "failed", steps, steps * dt, ok and y - y0 or "", ok and umax or "", err or "" }
    fig:compare { quantity = label, paper = thesis[c[1]], source = "thesis", tide = ok and string.format(
      "ran %d steps, solid centre moved %+.3f m (largest node displacement %.3f m)", steps, y - y0, umax) or string.format("failed at step %d: %s", steps + 1, err),
      note = "" }
  end
end
fig:csv("stability", { "scheme", "tau_M [1/s]", "dt [s]", "outcome", "steps", "t [s]", "solid centre rise [m]", "largest node displacement [m]", "error" }, rows)
fig:done()
