-- tide.linalg from Lua: matrices, every solver on a known solution, factors,
-- pattern reuse, and bad input raising errors that name the problem.
local tide = require "tide"
local T = require "tide.testing"
local A, L = tide.array, tide.linalg

-- 2D Dirichlet Laplacian (h^2-scaled) on an m x m grid from triplet arrays
local function laplacian(m)
  local I, J, V = {}, {}, {}
  local function add(i, j, v) I[#I + 1], J[#J + 1], V[#V + 1] = i, j, v end
  for a = 0, m - 1 do
    for b = 0, m - 1 do
      local r = a * m + b + 1
      add(r, r, 4)
      if a > 0 then add(r, r - m, -1) end
      if a < m - 1 then add(r, r + m, -1) end
      if b > 0 then add(r, r - 1, -1) end
      if b < m - 1 then add(r, r + 1, -1) end
    end
  end
  return L.matrix { n = m * m, i = A.from(I, "i32"), j = A.from(J), v = A.from(V) }, #V
end

local m = 24
local K, ntrip = laplacian(m)
local n = m * m
T.check(K.nrows == n and K.ncols == n and K.nnz == ntrip and K.ntriplets == ntrip, "sizes " .. tostring(K))
T.check(tostring(K):find("tide.Matrix 576 x 576"), "tostring: " .. tostring(K))
T.check(K:get(1, 1) == 4 and K:get(1, 2) == -1 and K:get(1, 3) == 0, "get")
T.check(K:diag():sum() == 4 * n, "diag")

-- manufactured solution
local u = A.zeros(n)
for k = 1, n do u[k] = math.sin(k) end
local b = K:mul(u)
T.near((K * u):norm(), b:norm(), 0, "K * u == K:mul(u)")
local y = A.zeros(n)
T.check(K:mul(u, y) == y and y:checksum() == b:checksum(), "mul into y")

local function relerr(x, ref)
  return x:clone():axpy(-1, ref):norm() / ref:norm()
end

-- every method (and every preconditioner that applies) reaches the tolerance
local cases = {
  { "pcg", "none" }, { "pcg", "jacobi" }, { "pcg", "ic0" }, { "pcg", "mic0" },
  { "minres", "none" }, { "minres", "jacobi" }, { "bicgstab", "ilu0" }, { "bicgstab", "jacobi" },
  { "cholesky" }, { "ldlt" }, { "lu" },
}
local iters = {}
for _, c in ipairs(cases) do
  local x, st = L.solve { A = K, b = b, method = c[1], precond = c[2], tol = c[2] and 1e-10 or nil }
  local name = c[1] .. (c[2] and ("-" .. c[2]) or "")
  T.check(st.converged and st.residual <= 1e-10, name .. " residual " .. st.residual)
  -- cond(K) < 8 / (pi / 25)^2 ~ 500
  T.check(relerr(x, u) <= 500 * 1e-10, name .. " error " .. relerr(x, u))
  T.check(st.method == c[1] and st.seconds >= 0, name .. " stats")
  iters[name] = st.iterations
end
T.check(iters["pcg-mic0"] < iters["pcg-ic0"] and iters["pcg-ic0"] < iters["pcg-none"],
  string.format("MIC %d < IC %d < CG %d", iters["pcg-mic0"], iters["pcg-ic0"], iters["pcg-none"]))
T.check(iters.cholesky == 0, "direct: 0 iterations")

-- initial guess and in-place output
local x0 = u:clone()
local x, st = L.solve { A = K, b = b, x = x0, method = "pcg", precond = "mic0" }
T.check(x == x0 and st.iterations == 0, "x0 = solution: 0 iterations, result in x")

-- non-convergence raises, unless asked to return
T.raises(function() L.solve { A = K, b = b, maxit = 2 } end, "did not converge", "maxit raises")
local _, st2 = L.solve { A = K, b = b, maxit = 2, must_converge = false }
T.check(not st2.converged and st2.iterations == 2, "must_converge = false returns stats")

-- Neumann problem through the null-space option
local N = L.matrix(n, n, function(r)
  local a, bb = (r - 1) // m, (r - 1) % m
  local cols, vals, d = {}, {}, 0
  for _, o in ipairs { { -1, 0 }, { 1, 0 }, { 0, -1 }, { 0, 1 } } do
    local aa, b2 = a + o[1], bb + o[2]
    if aa >= 0 and aa < m and b2 >= 0 and b2 < m then
      cols[#cols + 1], vals[#vals + 1] = aa * m + b2 + 1, -1
      d = d + 1
    end
  end
  cols[#cols + 1], vals[#vals + 1] = r, d
  return cols, vals
end)
local un = u:clone()
local mean = un:sum() / n
for k = 1, n do un[k] = un[k] - mean end
local xn = L.solve { A = N, b = N:mul(un), nullspace = true, precond = "mic0", tol = 1e-10 }
T.check(relerr(xn, un) < 1e-6, "neumann error " .. relerr(xn, un))

-- reusable factor: nnz(L), solve, refactor (symbolic reuse)
local F = L.cholesky(K)
T.check(F.nnz_L > (K.nnz + n) // 2 and F.n == n and F.kind == "cholesky", "factor " .. tostring(F))
local xf = F:solve(b)
T.check(relerr(xf, u) < 1e-12, "factor solve")
local I2, J2, V2 = K:totriplets()
T.check(I2:size() == K.nnz and I2.dtype == "i32" and I2[1] == 1, "totriplets")
local V3 = V2:clone():scale(2)
local K2 = L.matrix { n = n, i = I2, j = J2, v = V3 }
F:refactor(K2)
T.check(relerr(F:solve(b), u:clone():scale(0.5)) < 1e-12, "refactor with 2K halves x")
T.check(F:info().refactors == 2 and F:info().supernodal, "info")

-- pattern reuse from Lua
local Kc = K:clone()
local _, _, V0 = K:totriplets()
Kc:set_values(V0:clone():scale(3))
T.near(Kc:get(1, 1), 12, 0, "set_values (clone keeps the triplet map)")

-- a reusable Krylov solver
local S = L.solver { A = K, method = "pcg", precond = "mic0" }
local xs, ss = S:solve { b = b, tol = 1e-10 }
T.check(relerr(xs, u) < 5e-8 and ss.precond == "mic0", "Solver:solve")
T.check(S:refactor() == S and S.A == K, "Solver:refactor")

-- products
local P = K * K
T.check(relerr(P:mul(u), K:mul(K:mul(u))) < 1e-14, "K * K")
T.check((2 * K):get(1, 1) == 8 and (K * 0.5):get(1, 1) == 2, "scalar * matrix")
T.check(relerr((K + K):mul(u), b:clone():scale(2)) < 1e-15 and (K - K):mul(u):norm() == 0, "K + K, K - K")
local Kd = K:clone():scale(A.full(n, 2), A.full(n, 0.5))
T.check(Kd:get(1, 2) == -1 and Kd:get(1, 1) == 4, "scale left/right")
T.raises(function() return K + 1 end, "both operands must be tide.Matrix", "K + number")
local Kt = K:transpose()
T.check(Kt:get(2, 1) == K:get(1, 2), "transpose")

-- symmetric (upper) storage from full triplets
local Ks = L.matrix { n = n, i = I2, j = J2, v = V2, symmetric = true }
T.check(Ks.symmetric and Ks.nnz == (K.nnz + n) // 2 and Ks:get(2, 1) == -1, "symmetric storage")
T.check(relerr(Ks:mul(u), b) < 1e-15, "symmetric mul")

-- small matrix from a function; non-SPD errors
local S3 = L.matrix(3, 3, function(r) return { r }, { r == 2 and -1 or 1 } end)
T.raises(function() L.cholesky(S3) end, "not positive definite", "cholesky of indefinite")
local ld = L.ldlt(S3):solve(A.from { 1, 2, 3 })
T.check(ld[2] == -2 and ld[3] == 3, "ldlt of indefinite diagonal")
T.check(L.ldlt(S3):info().supernodal == false, "a tiny ldlt stays simplicial")
-- a 3D quasi-definite [H Y; Y^T -Z] (H the 16^3 Laplacian, 300 columns Y of 8 cells each): its
-- analysis finds dense fronts, so the LDL^T is supernodal (ldlt_super.c); it solves as LU does
do
  local m, nb = 16, 300
  local nh = m * m * m
  local rows = {}
  for r = 1, nh + nb do rows[r] = {} end
  local function add(r, c, v) rows[r][c] = (rows[r][c] or 0) + v end
  for x = 0, m - 1 do for y = 0, m - 1 do for z = 0, m - 1 do
    local r = (x * m + y) * m + z + 1
    add(r, r, 6)
    if x > 0 then add(r, r - m * m, -1) end
    if x < m - 1 then add(r, r + m * m, -1) end
    if y > 0 then add(r, r - m, -1) end
    if y < m - 1 then add(r, r + m, -1) end
    if z > 0 then add(r, r - 1, -1) end
    if z < m - 1 then add(r, r + 1, -1) end
  end end end
  for k = 1, nb do
    local c0 = (k * 7919) % (nh - m * m - m - 2) + 1
    for t = 0, 7 do
      local c = c0 + (t % 2) + m * ((t // 2) % 2) + m * m * (t // 4)
      local v = ((k * 31 + t * 17) % 13 - 6) / 13
      add(nh + k, c, v)
      add(c, nh + k, v)
    end
    add(nh + k, nh + k, -(0.05 + (k % 7) / 7))
  end
  local KQ = L.matrix(nh + nb, nh + nb, function(r)
    local cs, vs = {}, {}
    for c in pairs(rows[r]) do cs[#cs + 1] = c end
    table.sort(cs)
    for q, c in ipairs(cs) do vs[q] = rows[r][c] end
    return cs, vs
  end)
  local FQ = L.ldlt(KQ)
  local uq = A.zeros(nh + nb)
  for q = 1, nh + nb do uq[q] = math.sin(q) end
  local bq = KQ:mul(uq)
  local xq, xl = FQ:solve(bq), L.lu(KQ):solve(bq)
  T.check(FQ:info().supernodal == true, string.format("the 3D quasi-definite ldlt is supernodal (%.3g flops)", FQ:info().flops))
  T.check(relerr(xq, uq) < 1e-10 and relerr(xq, xl) < 1e-12, string.format(
    "supernodal ldlt solves as lu does (error %.1e, vs lu %.1e)", relerr(xq, uq), relerr(xq, xl)))
  T.check(FQ:info().blocks == 1, "one elimination tree: one block, got " .. FQ:info().blocks)
  -- one tree's solve: subtrees side by side below its top (cut by work alone), the same bits on
  -- 1 and 2 threads, the answer lu's to rounding (the top's rows summed in another order)
  T.check(FQ:info().subtrees >= 2, "one big tree: solved in subtrees below its top, got " .. FQ:info().subtrees)
  do
    local threads, xs = tide.threads(), {}
    for _, t in ipairs { 1, 2 } do
      tide.threads(t)
      xs[t] = L.ldlt(KQ):solve(bq)
    end
    tide.threads(threads)
    local d = 0
    for q = 1, xs[1]:size() do d = math.max(d, math.abs(xs[1][q] - xs[2][q])) end
    T.check(d == 0, "one tree's subtrees on 1 and 2 threads: bit-identical (max difference " .. d .. ")")
    T.check(relerr(xs[2], xl) < 1e-12, string.format("its solve is lu's to %.1e", relerr(xs[2], xl)))
  end
  -- the fill-reducing ordering: CHOLMOD's default strategy, or AMD / METIS alone; the same answer
  for _, o in ipairs { "amd", "metis" } do
    local Fo = L.ldlt(KQ, { ordering = o })
    T.check(Fo:info().ordering == o and relerr(Fo:solve(bq), xl) < 1e-12, string.format(
      "ldlt{ordering = %s}: %s, nnz(L) %d (auto: %s, %d)", o, Fo:info().ordering, Fo.nnz_L,
      FQ:info().ordering, FQ.nnz_L))
  end
  T.check(L.cholesky(K, { ordering = "amd" }):info().ordering == "amd", "cholesky{ordering = amd}")
  T.check(L.lu(KQ, { ordering = "amd" }):info().ordering == "amd", "lu{ordering = amd}")
  T.raises(function() L.ldlt(KQ, { ordering = "rcm" }) end, "ordering", "an unknown ordering")
  T.raises(function() L.ldlt(KQ, { order = "amd" }) end, "unknown option 'order'", "a misspelt option")
  -- three such systems side by side (a forest, as three solids' interfaces give): the trees are
  -- factored and solved in blocks, one thread each; the same bits on 1 and 2 threads, as LU solves
  local nq = nh + nb
  local K3 = L.matrix(3 * nq, 3 * nq, function(r)
    local k, rr = (r - 1) // nq, (r - 1) % nq + 1
    local cs, vs = {}, {}
    for c in pairs(rows[rr]) do cs[#cs + 1] = c end
    table.sort(cs)
    for q, c in ipairs(cs) do cs[q], vs[q] = c + k * nq, rows[rr][c] * (1 + 0.25 * k) end
    return cs, vs
  end)
  local u3 = A.zeros(3 * nq)
  for q = 1, 3 * nq do u3[q] = math.cos(q) end
  local b3q = K3:mul(u3)
  local threads = tide.threads()
  local x3 = {}
  for _, t in ipairs { 1, 2 } do
    tide.threads(t)
    local F3 = L.ldlt(K3)
    x3[t] = F3:solve(b3q)
    T.check(F3:info().supernodal and F3:info().blocks >= 2, string.format(
      "a forest of three trees is factored in blocks (%d on %d threads)", F3:info().blocks, t))
    F3:refactor(K3)
    T.check(F3:solve(b3q) == x3[t] or relerr(F3:solve(b3q), x3[t]) == 0, "refactor: the same bits")
  end
  tide.threads(threads)
  local d12 = 0
  for q = 1, 3 * nq do d12 = math.max(d12, math.abs(x3[1][q] - x3[2][q])) end
  T.check(d12 == 0, "blocks on 1 and 2 threads: bit-identical (max difference " .. d12 .. ")")
  T.check(relerr(x3[2], u3) < 1e-10 and relerr(x3[2], L.lu(K3):solve(b3q)) < 1e-12,
    string.format("the forest's ldlt solves as lu does (error %.1e)", relerr(x3[2], u3)))
  -- a zero pivot in one block is reported as the serial sweep reports it: an isolated zero row
  local I3, J3, V3q = K3:totriplets()
  local iz, jz, vz = {}, {}, {}
  for q = 1, I3:size() do iz[q], jz[q], vz[q] = I3[q], J3[q], V3q[q] end
  iz[#iz + 1], jz[#jz + 1], vz[#vz + 1] = 3 * nq + 1, 3 * nq + 1, 0
  local KZ = L.matrix { n = 3 * nq + 1, i = iz, j = jz, v = vz }
  T.raises(function() L.ldlt(KZ) end, "singular", "a zero pivot in a forest's block")
end

-- bad input
local b3 = A.from { 1, 2, 3 }
T.raises(function() L.matrix { n = 0, i = {}, j = {}, v = {} } end, "'n' must be in", "zero size")
T.raises(function() L.matrix { n = 3, i = { 1 }, j = { 1, 2 }, v = { 1 } } end, "same length", "lengths")
T.raises(function() L.matrix { n = 3, i = { 4 }, j = { 1 }, v = { 1 } } end, "i[1] = 4 is not an index in 1..3", "row range")
T.raises(function() L.matrix { n = 3, i = { 1.5 }, j = { 1 }, v = { 1 } } end, "not an index", "fractional index")
T.raises(function() L.matrix { n = 3, i = { 1 }, j = { 1 }, v = { 0 / 0 } } end, "v[1] is not finite", "NaN value")
T.raises(function() L.matrix { n = 3, i = { 1 }, j = { 1 } } end, "missing option 'v'", "missing v")
T.raises(function() L.matrix { n = 3, i = {}, j = {}, v = {}, bogus = 1 } end, "unknown option 'bogus'", "unknown key")
T.raises(function() L.matrix(3, 3, function() return { 1, 2 }, { 1 } end) end, "2 columns but 1 values", "row lengths")
T.raises(function() L.solve { A = K, b = b3 } end, "b has 3 entries, the matrix needs 576", "size mismatch")
local bn = b:clone(); bn[7] = 0 / 0
T.raises(function() L.solve { A = K, b = bn } end, "non-finite", "NaN in b")
T.raises(function() L.solve { A = K, b = b, method = "gmres" } end, "must be one of", "unknown method")
T.raises(function() L.solve { A = K, b = b, method = "cholesky", precond = "ic0" } end, "no preconditioner", "direct + precond")
T.raises(function() L.solve { A = K, b = b, method = "pcg", precond = "ilu0" } end, "symmetric preconditioner", "pcg-ilu0")
T.raises(function() L.solve { A = K, b = b, x = b } end, "must not share memory", "aliasing")
T.raises(function() L.solve { A = K, b = b, tol = 0 } end, "'tol' must be in", "tol 0")
T.raises(function() K:mul(b3) end, "x has 3 entries", "mul size")
T.raises(function() K:mul(u, u) end, "must not share memory", "mul aliasing")
T.raises(function() K:set_values({ 1, 2 }) end, "2 values given", "set_values count")
T.raises(function() K2:get(0, 1) end, "row must be in 1..576", "get range")
T.raises(function() return K * "x" end, "not a string", "K * string")
T.raises(function() F:solve(b3) end, "b has 3 entries", "factor size")
T.raises(function() F:refactor(S3) end, "pattern differs", "refactor pattern")
T.raises(function() F:refactor(N) end, "not positive definite", "refactor with the singular Neumann matrix")
T.raises(function() F:solve(b) end, "no valid factorization", "solve after a failed refactor")
local Kf = K:clone()
Kf:free()
T.raises(function() Kf:mul(u) end, "freed", "freed matrix")
T.check(tostring(Kf) == "tide.Matrix (freed)", "freed tostring")
local K5 = K:clone()
local S5 = L.solver { A = K5 }
K5:free()
T.raises(function() S5:solve { b = b } end, "freed", "solver with a freed matrix")

-- condition number estimate (Hager/Higham): exact for a diagonal matrix and for the 1D
-- Dirichlet Laplacian tridiag(-1, 2, -1) of size m: kappa_1 = 4 ||A^-1||_1 with the inverse
-- known in closed form (the discrete Green's function)
local D = L.matrix { n = 4, i = { 1, 2, 3, 4 }, j = { 1, 2, 3, 4 }, v = { 1, -8, 0.5, 2 } }
local cd, ci = L.condest { A = D }
T.near(cd, 16, 1e-12, "condest of a diagonal matrix")
T.check(ci.norm == 8 and math.abs(ci.inv_norm - 2) < 1e-14 and ci.solves >= 1, "condest info")
do
  local mm = 51
  local I, J, V = {}, {}, {}
  for r = 1, mm do
    I[#I + 1], J[#J + 1], V[#V + 1] = r, r, 2
    if r > 1 then I[#I + 1], J[#J + 1], V[#V + 1] = r, r - 1, -1 end
    if r < mm then I[#I + 1], J[#J + 1], V[#V + 1] = r, r + 1, -1 end
  end
  local T1 = L.matrix { n = mm, i = I, j = J, v = V }
  local best = 0 -- exact ||A^-1||_1: column j sums i(m+1-j)/(m+1) (i <= j) and j(m+1-i)/(m+1)
  for j = 1, mm do
    local s = 0
    for i = 1, mm do s = s + (i <= j and i * (mm + 1 - j) or j * (mm + 1 - i)) / (mm + 1) end
    best = math.max(best, s)
  end
  for _, how in ipairs { { method = "cholesky" }, { method = "ldlt" }, { method = "lu" }, { factor = L.cholesky(T1) } } do
    how.A = T1
    local c = L.condest(how)
    T.near(c / (4 * best), 1, 1e-12, "condest of the 1D Laplacian " .. (how.method or "factor"))
  end
end
T.raises(function() L.condest { A = D, method = "qr" } end, "method", "condest: unknown method")
T.raises(function() L.condest { A = D, factor = L.lu(K), } end, "matrix is 4 x 4, the factorization", "condest: mismatched factor")
T.raises(function() L.condest { A = D, factor = L.lu(D), method = "lu" } end, "either factor or method", "condest: both")
T.raises(function() L.condest { A = L.matrix { n = 2, m = 3, i = { 1 }, j = { 1 }, v = { 1 } } } end, "square", "condest: not square")

os.exit(T.report())
