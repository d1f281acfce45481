-- tide.liu with an elastic solid (solid = a tide.solid mesh): the solid term of
-- Eq. 22 is the mesh's incremental potential.  (1) Far from any liquid the joint
-- solve is the mesh's own backward-Euler step: a cantilever strip (triangles) and
-- a rod (tide.solid's thin solids), pinned at one end and released under gravity,
-- follow TetMesh:step_newton to the solver tolerance over 20 steps; so does a rod with Rayleigh damping.  (2) Drops on elastic bands (scene liu_bands, 2D, 32^2):
-- no band vertex inside the liquid at any step, and the drops rest on the bands
-- (vertices within dhat of the liquid) at the end.
local tide = require "tide"
local T = require "tide.testing"
local L = require "tide.cases.liu"

local function strip()
  local m = tide.solid.box { min = { 0.2, 0.6 }, max = { 0.6, 0.65 }, cells = { 16, 2 } }
  m:material { model = "neohookean", E = 1e5, nu = 0.3, density = 500 }
  m:pin(function(x) return x < 0.2 + 1e-9 end)
  return m
end
local function rod() -- a thin solid (tide.solid rods): stretching and bending energies
  local m = tide.solid.rod { from = { 0.2, 0.6 }, to = { 0.6, 0.6 }, segments = 16 }
  m:rod { EA = 1e4, EI = 1e-2, line_density = 0.5 }
  m:pin(function(x) return x < 0.2 + 1e-9 end)
  return m
end
local function damped_rod() -- with Rayleigh damping: H(x^n) prepared at each solve's start, as step_newton does
  local m = tide.solid.rod { from = { 0.2, 0.6 }, to = { 0.6, 0.6 }, segments = 16 }
  m:rod { EA = 1e4, EI = 1e-2, line_density = 0.5, damping = 0.01 }
  m:pin(function(x) return x < 0.2 + 1e-9 end)
  return m
end
local names = { [strip] = "strip", [rod] = "rod", [damped_rod] = "damped rod" }
for _, make in ipairs { strip, rod, damped_rod } do
  local g = tide.grid.new { size = { 32, 32 }, dx = 1 / 32 }
  local phi = g:cells():fill(1) -- no liquid
  local dt, worst = 2e-3, 0
  local c, d = make(), make()
  local xn = tide.array.zeros { d.nv, 2 }
  for _ = 1, 20 do
    c:step_newton { dt = dt, tol = 1e-10 }
    xn:copy(d.x)
    tide.couple.liu_solve { grid = g, phi = phi, phi_star = phi, solid = d, dt = dt, tol = 1e-10 * 1 / 32 / dt }
    for i = 1, d.nv do
      for k = 1, 2 do d.v:set(i, k, (d.x:get(i, k) - xn:get(i, k)) / dt) end
    end
    for i = 1, d.nv do
      for k = 1, 2 do worst = math.max(worst, math.abs(c.x:get(i, k) - d.x:get(i, k))) end
    end
  end
  local tip, R = 0, c.rest
  for i = 1, c.nv do tip = math.max(tip, R:get(i, 2) - c.x:get(i, 2)) end
  print(string.format("%s under gravity, 20 steps: tip drop %.4f m, largest difference to step_newton %.2e m",
    names[make], tip, worst))
  T.check(tip > 1e-3, "the strip bends")
  T.check(worst < 1e-7, string.format("the joint solve is the mesh's backward Euler step (%.2e m)", worst))
end

do
  local S = L.bands { dim = 2, n = 32 }
  local m = S.mesh
  local liu = require "tide.liu"
  local pen, steps, minsag = 0, 0, 0
  local y0 = {}
  for i = 1, m.nv do y0[i] = m.x:get(i, 2) end
  while S.t < 0.35 do
    local st = liu.step(S, liu.max_dt(S))
    steps = steps + 1
    pen = pen + (st.penetrating > 0 and 1 or 0)
  end
  for i = 1, m.nv do minsag = math.max(minsag, y0[i] - m.x:get(i, 2)) end
  print(string.format("bands: %d steps, %d with a vertex inside, largest sag %.3f m, last min d %.3f dx, %d pairs",
    steps, pen, minsag, S.last.min_d * 32, S.last.pairs))
  T.check(pen == 0, "no band vertex inside the liquid at any step")
  T.check(S.last.pairs > 0, "the drops rest on the bands at the end")
end
os.exit(T.report())
