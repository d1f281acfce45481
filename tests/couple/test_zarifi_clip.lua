-- tide.couple.clip (Zarifi section 5.1.1, Eq. 5.7-5.13) from Lua: the pieces of a box
-- partition its boundary, C^T N = (N^T C)^T = J^T, the pressure forces of p = 1 sum to
-- zero on the closed boundary, and J v of a rigid translation is the flux sum of a n . V.
local tide = require "tide"
local T = require "tide.testing"
local A = tide.array

for _, dim in ipairs { 2, 3 } do
  local n = 8
  local g = tide.grid.new { size = dim == 2 and { n, n } or { n, n, n }, dx = 1 / n }
  local m = tide.solid.box { min = dim == 2 and { 0.21, 0.33 } or { 0.21, 0.33, 0.27 },
    max = dim == 2 and { 0.77, 0.61 } or { 0.77, 0.61, 0.92 }, cells = dim == 2 and { 3, 2 } or { 3, 2, 4 } }
  local c = tide.couple.clip { grid = g, solid = m }
  T.check(c.n > 0 and c.outside == 0, dim .. "D: pieces inside the grid")
  T.near(c.area:sum(), c.total, 1e-13, dim .. "D: pieces partition the boundary")
  local nv = m.x.shape[1]
  -- J = N^T C and its transpose C^T N
  local J = c.J
  local NtC = c.N:transpose() * c.C
  local D = NtC - J
  local worst = 0
  local i, j, v = D:totriplets()
  for q = 1, v:size() do worst = math.max(worst, math.abs(v[q])) end
  T.check(worst < 1e-15, dim .. "D: J = N^T C (" .. worst .. ")")
  -- forces of p = 1 (C^T N p) sum to zero per axis; the flux of a translation sums to zero
  local ncell = dim == 2 and n * n or n * n * n
  local p = A.zeros { ncell }
  p:fill(1)
  local f = J:transpose():mul(p)
  for k = 1, dim do
    local s = 0
    for q = 0, nv - 1 do s = s + f[q * dim + k] end
    T.check(math.abs(s) < 1e-14, dim .. "D: sum of constant-pressure forces along " .. k)
  end
  local V = A.zeros { nv * dim }
  for q = 0, nv - 1 do V[q * dim + 1] = 0.3; V[q * dim + 2] = -0.2 end
  local flux = J:mul(V)
  T.near(flux:sum(), 0, 1e-14, dim .. "D: a translation moves no net volume")
  -- each piece: unit normal, barycentrics >= 0 summing to 1, cell indices 1-based in range
  local ok = true
  for q = 1, c.n do
    local nn, sb = 0, 0
    for k = 1, dim do
      nn = nn + c.normal:get(q, k) ^ 2
      sb = sb + c.bary:get(q, k)
      ok = ok and c.bary:get(q, k) >= 0 and c.cell:get(q, k) >= 1 and c.cell:get(q, k) <= n
    end
    ok = ok and math.abs(nn - 1) < 1e-12 and math.abs(sb - 1) < 1e-12
  end
  T.check(ok, dim .. "D: pieces well formed")
  -- errors
  T.raises(function() tide.couple.clip { grid = g } end, "solid", "missing solid")
  T.raises(function() tide.couple.clip { grid = g, solid = m, x = A.zeros { 2, 2 } } end, "x", "bad x")
end
os.exit(T.report())
