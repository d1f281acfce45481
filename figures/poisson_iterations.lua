-- Iterations of the MAC-grid pressure solvers against the resolution: CG,
-- MIC(0)-preconditioned CG and multigrid-preconditioned CG (MGPCG).
local F = require "tide.figures"
local pool = require "tide.cases.poisson_pool"
local tide = require "tide"
local fio = tide.fileio

local fig = F.figure {
  paper = "McAdams et al. 2010 (MGPCG); Bridson 2015 Ch. 5 (MIC(0))", number = "iterations vs resolution",
  title = "Pressure Poisson solvers: CG vs MIC(0)-PCG vs MGPCG iterations",
  shows = "The pressure Poisson equation of a pool (solid walls and bottom, a free surface at 0.6 of the " ..
    "height, a solid ball inside, right-hand side sin(i + 2j [+ 3k]) on the liquid cells) solved to a " ..
    "relative residual of 1e-6 by tide.linalg.poisson_solve with plain CG, MIC(0)-preconditioned CG " ..
    "and multigrid-preconditioned CG, in 2D and 3D, over the resolution. Theory: CG needs O(n) " ..
    "iterations (condition number O(h^-2)), MIC(0) O(n^1/2) (O(h^-1)), MGPCG a number independent of n.",
  quick = { n2 = "32,64,128", n3 = "12,16,24" }, full = { n2 = "64,128,256,512,1024", n3 = "16,32,48,64,96,128" },
  estimate = { quick = 2, full = 150 },
}
local P = fig.params
local function list(s)
  local t = {}
  for v in s:gmatch("%d+") do t[#t + 1] = math.tointeger(tonumber(v)) end
  return t
end
local methods = { "cg", "mic0", "mgpcg" }
local names = { cg = "CG", mic0 = "MIC(0)-PCG", mgpcg = "MGPCG" }
local theory = { cg = 1, mic0 = 0.5, mgpcg = 0 }
local sets = { { dim = 2, n = list(P.n2) }, { dim = 3, n = list(P.n3) } }
local work, done = 0, 0
for _, s in ipairs(sets) do for _, n in ipairs(s.n) do work = work + n ^ s.dim end end

local rows, its = {}, { [2] = {}, [3] = {} }
for _, s in ipairs(sets) do
  for _, n in ipairs(s.n) do
    local g, lab, rhs = pool.new(s.dim, n)
    for _, m in ipairs(methods) do
      local p = tide.array.zeros(lab.shape)
      local st = tide.linalg.poisson_solve { grid = g, labels = lab, rhs = rhs, p = p, method = m, tol = 1e-6,
        must_converge = false }
      its[s.dim][m] = its[s.dim][m] or { n = {}, it = {} }
      local t = its[s.dim][m]
      t.n[#t.n + 1], t.it[#t.it + 1] = n, st.iterations
      rows[#rows + 1] = { s.dim, n, m, st.iterations, st.residual, st.converged and 1 or 0 }
    end
    done = done + n ^ s.dim
    fig:progress(math.floor(done), math.floor(work), string.format("%dD %d", s.dim, n))
  end
end
fig:csv("iterations", { "dim", "n (cells per side)", "method", "iterations", "relative residual", "converged" }, rows)

for dim = 2, 3 do
  local series = {}
  for k, m in ipairs(methods) do
    local t = its[dim][m]
    local slope = fio.loglog_fit(t.n, t.it)
    series[k] = { x = t.n, y = t.it, marker = ({ "o", "s", "^" })[k],
      label = string.format("%s (iterations ~ n^%.2f)", names[m], slope) }
    fig:compare { quantity = string.format("%dD %s: growth exponent of the iterations in n", dim, names[m]),
      paper = theory[m], source = "theory", tide = slope,
      note = m == "mgpcg" and "multigrid: iterations independent of n" or
        (m == "cg" and "condition number O(h^-2)" or "modified IC: condition number O(h^-1)") }
  end
  fig:plot("iterations_" .. dim .. "d", { title = string.format("%dD pool: iterations to 1e-6", dim),
    xlabel = "cells per side n", ylabel = "iterations", xlog = true, ylog = true, legend = "upper left",
    series = series, caption = string.format("%dD: iterations to a relative residual of 1e-6 against the resolution (log-log)", dim) })
end
fig:done()
