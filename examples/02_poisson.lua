-- 02: assemble and solve a sparse system from Lua.
--   build/tide examples/02_poisson.lua --n 64
-- The 2D Poisson problem -Δu = f on the unit square with u = 0 on the boundary
-- and the exact solution u = sin(πx) sin(πy), discretised by the 5-point
-- stencil; solved by MIC(0)-PCG and by CHOLMOD, compared with the exact field.
local tide = require "tide"
local L, A = tide.linalg, tide.array
local P = tide.params { n = 64, frames = 0, out = "out/02_poisson" }

local n, h = P.n, 1 / (P.n + 1)
local N = n * n
local function id(i, j) return (i - 1) * n + j end
-- triplets of the 5-point Laplacian (1-based indices)
local I, J, V = {}, {}, {}
local function add(r, c, v) I[#I + 1], J[#J + 1], V[#V + 1] = r, c, v end
for i = 1, n do
  for j = 1, n do
    local r = id(i, j)
    add(r, r, 4 / h ^ 2)
    if i > 1 then add(r, id(i - 1, j), -1 / h ^ 2) end
    if i < n then add(r, id(i + 1, j), -1 / h ^ 2) end
    if j > 1 then add(r, id(i, j - 1), -1 / h ^ 2) end
    if j < n then add(r, id(i, j + 1), -1 / h ^ 2) end
  end
end
local K = L.matrix { n = N, i = I, j = J, v = V }
local b, exact = A.zeros(N), A.zeros(N)
for i = 1, n do
  for j = 1, n do
    local x, y = i * h, j * h
    exact[id(i, j)] = math.sin(math.pi * x) * math.sin(math.pi * y)
    b[id(i, j)] = 2 * math.pi ^ 2 * exact[id(i, j)]
  end
end

local x1, s1 = L.solve { A = K, b = b, method = "pcg", precond = "mic0", tol = 1e-10 }
local x2, s2 = L.solve { A = K, b = b, method = "cholesky" }
local err = x1:clone():axpy(-1, exact)
print(string.format("%d unknowns, %d nonzeros", N, K.nnz))
print(string.format("MIC(0)-PCG: %d iterations, residual %.2e, %.3f s", s1.iterations, s1.residual, s1.seconds))
print(string.format("CHOLMOD:    residual %.2e, %.3f s", s2.residual, s2.seconds))
print(string.format("max |PCG - CHOLMOD| = %.2e", x1:clone():axpy(-1, x2):norm()))
print(string.format("discretisation error max|u - exact| ~ %.2e (O(h^2), h = %.4f)", math.max(-err:min(), err:max()), h))
