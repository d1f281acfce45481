-- tide.linalg.poisson_*: the MAC-grid pressure Poisson solvers from Lua.
local tide = require "tide"
local T = require "tide.testing"
local A = tide.array
local la = tide.linalg

-- Dirichlet ring: air cells on the border of an (n+2)^2 box, liquid inside;
-- -lap p = 2 pi^2 sin(pi x) sin(pi y) with the boundary at the air centres.
local function dirichlet(n)
  local m, h = n + 2, 1 / (n + 1)
  local lab, rhs, exact = A.zeros({m, m}, "u8"), A.zeros({m, m}), A.zeros({m, m})
  for i = 1, m do
    for j = 1, m do
      local edge = i == 1 or j == 1 or i == m or j == m
      local s = math.sin(math.pi * (i - 1) * h) * math.sin(math.pi * (j - 1) * h)
      lab:set(i, j, edge and 0 or 1)
      if not edge then
        rhs:set(i, j, 2 * math.pi ^ 2 * s)
        exact:set(i, j, s)
      end
    end
  end
  return { n = { m, m }, dx = h, labels = lab }, rhs, exact
end

local function maxdiff(a, b)
  local d = a:clone():axpy(-1, b)
  return math.max(-d:min(), d:max())
end

local prob, rhs, exact = dirichlet(63)
local m = 65
for _, method in ipairs { "mgpcg", "mic0", "cg" } do
  local p = A.zeros({ m, m })
  local st = la.poisson_solve { n = prob.n, dx = prob.dx, labels = prob.labels, rhs = rhs, p = p,
    method = method, tol = 1e-10 }
  T.check(st.converged and st.residual <= 1e-10, method .. " converged: " .. st.residual)
  T.check(st.method == method, "stats name the method")
  T.near(maxdiff(p, exact), 0, 3e-4, method .. ": second-order accurate Dirichlet solution")
  if method == "mgpcg" then
    T.check(st.iterations >= 5 and st.iterations <= 20, "MGPCG iterations " .. st.iterations)
    T.check(st.levels >= 3, "multigrid levels " .. st.levels)
  end
end

-- a tide.Grid instead of n/dx, and the residual through poisson_apply
do
  local g = tide.grid.new { size = { m, m }, dx = prob.dx }
  local p = A.zeros({ m, m })
  local st = la.poisson_solve { grid = g, labels = prob.labels, rhs = rhs, p = p, tol = 1e-8 }
  local y = A.zeros({ m, m })
  T.check(la.poisson_apply { grid = g, labels = prob.labels, x = p, y = y } == y, "apply returns y")
  local r = rhs:clone():axpy(-1, y)
  T.near(r:norm() / rhs:norm(), 0, 1e-8, "poisson_apply agrees with the solver's residual")
  T.check(st.iterations > 0, "iterations reported")
end

-- 3D pool with a sphere, face weights as a tide.Mac, reusable solver object
do
  local n = 24
  local g, lab, rhs3 = require("tide.cases.poisson_pool").new(3, n) -- shared with figures/poisson_iterations.lua
  local w = g:mac()
  w:fill(0.7)
  local solver = la.poisson_solver { grid = g, labels = lab, weights = w }
  T.check(tostring(solver):find("tide.PoissonSolver mgpcg 24x24x24", 1, true), tostring(solver))
  local info = solver:info()
  T.check(info.levels >= 3 and info.liquid[1] > 1000 and info.floating == 0, "solver info")
  local p = A.zeros({ n, n, n })
  local st = solver:solve { rhs = rhs3, p = p, tol = 1e-8 }
  T.check(st.converged and st.iterations <= 25, "3D weighted MGPCG: " .. st.iterations .. " iterations")
  local y = A.zeros({ n, n, n })
  la.poisson_apply { grid = g, labels = lab, weights = w, x = p, y = y }
  T.near(rhs3:clone():axpy(-1, y):norm() / rhs3:norm(), 0, 1e-8, "weighted residual")
  -- the same problem assembled: tide.Matrix and the liquid-cell numbering
  local Am, rows = la.poisson_matrix { grid = g, labels = lab, weights = w }
  T.check(rows.dtype == "i32" and rows:get(1, 1, 1) == 0 and rows:max() == Am.nrows,
    "rows number the liquid cells 1..n")
  local xs = A.zeros(Am.nrows)
  for i = 1, n do
    for j = 1, n do
      for k = 1, n do
        local r = rows:get(i, j, k)
        if r > 0 then xs:set(r, p:get(i, j, k)) end
      end
    end
  end
  local ys = Am:mul(xs)
  local yc = A.zeros(Am.nrows)
  for i = 1, n do
    for j = 1, n do
      for k = 1, n do
        local r = rows:get(i, j, k)
        if r > 0 then yc:set(r, y:get(i, j, k)) end
      end
    end
  end
  T.near(maxdiff(ys, yc), 0, 1e-9 * yc:norm(), "matrix-free == assembled from Lua")
  -- next step: new labels on the same solver
  lab:set(5, 5, 5, 0)
  solver:update { grid = g, labels = lab, weights = w }
  st = solver:solve { rhs = rhs3, p = p }
  T.check(st.converged, "solve after update")
  -- not converging within maxit: an error, or stats with converged = false
  T.raises(function() solver:solve { rhs = rhs3, p = A.zeros({ n, n, n }), tol = 1e-12, maxit = 2 } end,
    "reached relative residual", "maxit exceeded raises")
  st = solver:solve { rhs = rhs3, p = A.zeros({ n, n, n }), tol = 1e-12, maxit = 2, must_converge = false }
  T.check(not st.converged and st.iterations == 2, "must_converge = false returns the stats")
  solver:free()
  T.raises(function() solver:solve { rhs = rhs3, p = p } end, "freed", "use after free")
  T.check(tostring(solver) == "tide.PoissonSolver (freed)", "tostring of a freed solver")
end

-- ghost-fluid free surface from a level set: a liquid column on a solid
-- floor, -p'' = 1, p(H) = 0, p'(0) = 0 => p = (H^2 - y^2) / 2
do
  local n, H = 64, 0.63
  local h = 1 / n
  local lab, rhs, phi, p = A.zeros({ 4, n + 1 }, "u8"), A.zeros({ 4, n + 1 }), A.zeros({ 4, n + 1 }), A.zeros({ 4, n + 1 })
  local err, errv = 0, 0
  for i = 1, 4 do
    lab:set(i, 1, 2)
    for j = 2, n + 1 do
      local y = (j - 1.5) * h
      phi:set(i, j, y - H)
      lab:set(i, j, y < H and 1 or 0)
      if y < H then rhs:set(i, j, 1) end
    end
  end
  local pv = A.zeros({ 4, n + 1 })
  la.poisson_solve { n = { 4, n + 1 }, dx = h, labels = lab, phi = phi, rhs = rhs, p = p, tol = 1e-12 }
  la.poisson_solve { n = { 4, n + 1 }, dx = h, labels = lab, rhs = rhs, p = pv, tol = 1e-12 }
  for j = 2, n + 1 do
    local y = (j - 1.5) * h
    if y < H then
      err = math.max(err, math.abs(p:get(2, j) - (H * H - y * y) / 2))
      errv = math.max(errv, math.abs(pv:get(2, j) - (H * H - y * y) / 2))
    end
  end
  T.check(err < 2e-4, "ghost fluid from phi: error " .. err)
  T.check(errv > 10 * err, "voxel surface is worse: " .. errv)
  T.raises(function()
    la.poisson_solve { n = { 4, n + 1 }, dx = h, labels = lab, phi = phi, rhs = rhs, p = p,
      theta = { A.full({ 5, n + 1 }, 1), A.full({ 4, n + 2 }, 1) } }
  end, "either theta or phi", "theta and phi together")
end

-- bad arguments raise errors naming the problem
do
  local lab, r, p = prob.labels, rhs, A.zeros({ m, m })
  local function solve(t)
    local args = { n = { m, m }, dx = prob.dx, labels = lab, rhs = r, p = p }
    for k, v in pairs(t) do args[k] = v end
    return la.poisson_solve(args)
  end
  T.raises(function() solve { bogus = 1 } end, "bogus", "unknown key")
  T.raises(function() solve { method = "sor" } end, "method", "unknown method")
  T.raises(function() solve { labels = A.zeros({ m, m }) } end, "u8", "labels dtype")
  T.raises(function() solve { labels = A.zeros({ m, m + 1 }, "u8") } end, "extent", "labels shape")
  T.raises(function() solve { rhs = A.zeros({ m, 3 }) } end, "rhs", "rhs shape")
  T.raises(function() solve { p = r } end, "share memory", "rhs and p alias")
  T.raises(function() solve { rhs = false } end, "rhs", "rhs wrong type")
  T.raises(function() la.poisson_solve { n = { m, m }, dx = prob.dx, labels = lab, p = p } end,
    "missing option 'rhs'", "missing rhs")
  T.raises(function() solve { dx = -1 } end, "dx", "negative dx")
  T.raises(function() solve { n = { m, m, 0 } } end, "n[3]", "zero extent")
  T.raises(function() solve { tol = 2 } end, "tol", "tol out of range")
  T.raises(function() solve { weights = { A.zeros({ m + 1, m }) } } end, "weights", "one weight array in 2D")
  T.raises(function() solve { weights = { A.zeros({ m, m }), A.zeros({ m, m + 1 }) } } end,
    "weights[1]", "weight shape")
  local wneg = { A.full({ m + 1, m }, -1), A.zeros({ m, m + 1 }) }
  T.raises(function() solve { weights = wneg } end, ">= 0", "negative weight")
  local bad = lab:clone()
  bad:set(3, 3, 7)
  T.raises(function() solve { labels = bad } end, "label 7", "bad label value")
  local nanr = r:clone()
  nanr:set(5, 5, 0 / 0)
  T.raises(function() solve { rhs = nanr } end, "non-finite", "NaN in rhs")
  local g = tide.grid.new { size = { m, m }, dx = 1 }
  T.raises(function() la.poisson_solve { grid = g, dx = 1, labels = lab, rhs = r, p = p } end,
    "either grid or n", "grid and dx")
  T.raises(function() la.poisson_solve { grid = 3, labels = lab, rhs = r, p = p } end,
    "tide.Grid", "grid wrong type")
  T.raises(function() la.poisson_solver { n = { m, m }, dx = 1, labels = lab, smooth = 0 } end,
    "smooth", "smooth out of range")
  local sv <close> = la.poisson_solver { n = { m, m }, dx = 1, labels = lab, method = "mic0" }
  T.raises(function() sv:update { n = { m - 1, m - 1 }, dx = 1, labels = A.zeros({ m - 1, m - 1 }, "u8") } end,
    "differs", "update on another grid")
  T.raises(function() sv:solve { rhs = r, p = p, bogus = true } end, "bogus", "unknown solve key")
  T.raises(function() la.poisson_apply { n = { m, m }, dx = 1, labels = lab, x = p, y = p } end,
    "different arrays", "apply aliasing")
  T.raises(function() la.poisson_matrix { n = { m, m }, dx = 1, labels = lab, upper = 3 } end,
    "upper", "upper not a boolean")
end

-- A dead-end pocket behind a closed face inside one coarse cell (the cells under a ball resting
-- on the floor, scenes/zarifi_balls.lua): liquid cells (4,0), (5,0) (0-based) walled off from
-- each other (face weight 0) and from above (solid cells), opening to the left and right through
-- faces of weight 0.07 and 0.05.  The coarse face conductance through the closed link must be 0:
-- it was 1e-300, whose 1/diag made the V-cycle return 1e290 and PCG stop at a non-finite iterate.
do
  local n = 32 -- two levels at least (the bottom solve takes <= 256 cells)
  local g = tide.grid.new { size = { n, n }, dx = 1 / n }
  local lab, w = g:cells("u8"), g:mac()
  w.u:fill(1)
  w.v:fill(1)
  for i = 1, n do for j = 1, n do lab:set(i, j, j == n and 0 or 1) end end
  lab:set(5, 2, 2)
  lab:set(6, 2, 2)
  w.u:set(5, 1, 0.07) -- face (3|4), row 0
  w.u:set(6, 1, 0)    -- face (4|5)
  w.u:set(7, 1, 0.05) -- face (5|6)
  local rhs, p = g:cells(), g:cells()
  local rf = rhs:reshape(rhs:size())
  for c = 1, rhs:size() do rf[c] = math.sin(1.7 * c) end
  local ok, st = pcall(la.poisson_solve, { grid = g, labels = lab, weights = w, rhs = rhs, p = p, tol = 1e-10 })
  T.check(ok and st.converged and p:nonfinite() == 0, "MGPCG with a walled-off pocket inside a coarse cell: " ..
    (ok and string.format("%d iterations, residual %.1e", st.iterations, st.residual) or tostring(st)))
end

os.exit(T.report())
