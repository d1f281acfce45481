-- Irving 2007, thesis Figs. 3.2-3.3: a particle and a damped elastic
-- tetrahedron on an incline (tan theta = 0.5) with Coulomb friction,
-- accelerating (mu = 0.3), decelerating to rest (mu = 0.6, u0 = 1 m/s) and
-- sticking (mu = 0.6 from rest), against the analytic motion.
local F = require "tide.figures"
local incline = require "tide.cases.incline"

local fig = F.figure {
  paper = "Irving 2007 (thesis)", number = "Figs. 3.2-3.3",
  title = "Particle and tetrahedron sliding down an incline with friction",
  shows = "Downhill displacement and speed over time of a particle (Fig. 3.2) and of a damped " ..
    "neo-Hookean tetrahedron (Fig. 3.3) on a plane with tan(theta) = 0.5, accelerating (mu = 0.3) " ..
    "and decelerating to rest (mu = 0.6, u0 = 1 m/s), integrated by Tide's Newmark scheme with " ..
    "Irving's collision and friction algorithm (thesis Sec. 3.1-3.2) and by the Newton integrator, " ..
    "against the analytic motion s = u0 t + g (sin - mu cos) t^2 / 2. A body at rest with mu = 0.6 " ..
    "must stick (the static case of Fig. 3.4, which the thesis shows with cloth).",
  quick = { dt = 2e-3, T = 1.3 }, full = { dt = 1e-3, T = 1.3 },
  estimate = { quick = 1, full = 2 },
}
local P = fig.params
local steps = math.floor(P.T / P.dt + 0.5)
local E, beta = 1e5, 5

local cases = {
  { key = "particle_acc", label = "particle, mu 0.3", E = 0, mu = 0.3, u0 = 0 },
  { key = "particle_dec", label = "particle, mu 0.6, u0 1", E = 0, mu = 0.6, u0 = 1 },
  { key = "tet_acc", label = "tetrahedron, mu 0.3", E = E, mu = 0.3, u0 = 0 },
  { key = "tet_dec", label = "tetrahedron, mu 0.6, u0 1", E = E, mu = 0.6, u0 = 1 },
  { key = "particle_stick", label = "particle at rest, mu 0.6", E = 0, mu = 0.6, u0 = 0 },
  { key = "tet_stick", label = "tetrahedron at rest, mu 0.6", E = E, mu = 0.6, u0 = 0 },
}
local res = {}
local njobs, done = 2 * #cases, 0
for _, method in ipairs { "step_newmark", "step_newton" } do
  for _, c in ipairs(cases) do
    res[method .. c.key] = incline.run { method = method, E = c.E, beta = c.E > 0 and beta or 0, mu = c.mu,
      u0 = c.u0, steps = steps, dt = P.dt, rest = method == "step_newton" and 1e-4 or nil }
    done = done + 1
    fig:progress(done, njobs, c.key)
  end
end

-- data: every step of every case
local rows = {}
for _, method in ipairs { "step_newmark", "step_newton" } do
  for _, c in ipairs(cases) do
    local r = res[method .. c.key]
    for k, t in ipairs(r.t) do
      local se, ve = incline.exact(c.mu, c.u0, t)
      rows[#rows + 1] = { method:sub(6), c.key, t, r.s[k], r.v[k], se, ve }
    end
  end
end
fig:csv("incline", { "integrator", "case", "t [s]", "s [m]", "v [m/s]", "s analytic [m]", "v analytic [m/s]" }, rows)

-- plots (Newmark, the thesis' integrator): Tide's curves and the analytic ones
local function exact_series(mu, u0, what)
  local x, y = {}, {}
  for k = 0, 130 do
    local t = k * P.T / 130
    local s, v = incline.exact(mu, u0, t)
    x[#x + 1], y[#y + 1] = t, what == "s" and s or v
  end
  return x, y
end
for _, what in ipairs { "s", "v" } do
  local series = {}
  for _, c in ipairs { cases[1], cases[2], cases[3], cases[4] } do
    local r = res["step_newmark" .. c.key]
    series[#series + 1] = { x = r.t, y = what == "s" and r.s or r.v, label = c.label,
      dash = c.E > 0 and "dashed" or "solid" }
  end
  for i, mu in ipairs { 0.3, 0.6 } do
    local x, y = exact_series(mu, i - 1, what)
    series[#series + 1] = { x = x, y = y, analytic = true, dash = "dotted", width = 2,
      label = i == 1 and "analytic" or nil }
  end
  fig:plot(what == "s" and "displacement" or "speed", {
    title = what == "s" and "downhill displacement (Newmark + friction)" or "downhill speed (Newmark + friction)",
    xlabel = "t [s]", ylabel = what == "s" and "s [m]" or "v [m/s]", legend = "upper left", series = series,
    caption = what == "s" and "Downhill displacement of the particle (solid) and the tetrahedron (dashed) against the analytic motion (black dotted): Figs. 3.2-3.3 (left)"
      or "Downhill speed: the decelerating bodies come to rest at the analytic time and stay there (Figs. 3.2-3.3, right)",
  })
end

-- paper vs Tide: the analytic motion is the thesis' reference ("coincident")
local ts = incline.stop_time(0.6, 1.0)
for _, method in ipairs { "step_newmark", "step_newton" } do
  local tag = method == "step_newmark" and "Newmark" or "Newton"
  for _, body in ipairs { "particle", "tet" } do
    local r = res[method .. body .. "_acc"]
    local worst = 0
    for k, t in ipairs(r.t) do
      if t >= 0.25 then worst = math.max(worst, math.abs(r.s[k] / incline.exact(0.3, 0, t) - 1)) end
    end
    fig:compare { quantity = string.format("%s, %s, mu 0.3: max rel. error of s(t), t >= 0.25 s", tag,
      body == "tet" and "tetrahedron" or body), paper = 0, source = "thesis: coincident with analytic",
      tide = worst, note = body == "tet" and "the tetrahedron's elastic settling and damping under its weight" or
        (worst < 1e-6 and "exact to round-off" or "implicit Newton step: first order in dt") }
    local rd = res[method .. body .. "_dec"]
    fig:compare { quantity = string.format("%s, %s, mu 0.6, u0 1 m/s: stop time", tag,
      body == "tet" and "tetrahedron" or body), unit = "s", paper = ts, source = "analytic u0 / (g (mu cos - sin))",
      tide = rd.stop or -1, note = method == "step_newmark" and string.format("first step with zero speed (dt = %g s)", P.dt)
        or string.format("first step slower than eps_v = 1e-4 m/s (smoothed static friction; dt = %g s)", P.dt) }
    local rs = res[method .. body .. "_stick"]
    fig:compare { quantity = string.format("%s, %s at rest, mu 0.6: displacement after %g s", tag,
      body == "tet" and "tetrahedron" or body, P.T), unit = "m", paper = 0, source = "static friction: sticks",
      tide = rs.s[#rs.s], note = body == "tet" and "elastic settling of the element under its weight, no sliding" or "" }
  end
end
fig:done()
