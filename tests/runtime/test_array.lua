-- tide.array from Lua: construction, views, bulk operations, errors.
local tide = require "tide"
local T = require "tide.testing"
local A = tide.array

local a = A.zeros({4, 3})
T.check(tostring(a):find("tide.Array f64 %(4, 3%)"), "tostring shows type and shape: " .. tostring(a))
T.check(#a == 4 and a:size() == 12 and a.ndim == 2 and a.dtype == "f64", "len, size, ndim, dtype")
a:set(2, 3, 5.5)
T.check(a:get(2, 3) == 5.5, "set/get are 1-based")
local row = a[2]
T.check(row[3] == 5.5, "a[i] is a view of row i")
row[1] = 7
T.check(a:get(2, 1) == 7, "views share memory")
local col = a:slice(2, 3, 3)
T.check(col:sum() == 5.5, "strided column view sum")

local x = A.linspace(0, 1, 11)
T.near(x:sum(), 5.5, 1e-12, "linspace sum")
T.near(x:dot(x), 3.85, 1e-12, "dot")
local y = x:clone():scale(2):axpy(-1, x)
T.near(y:norm(), x:norm(), 1e-12, "clone/scale/axpy")
T.check(x:min() == 0 and x:max() == 1, "min/max")

local f = A.from({{1, 2}, {3, 4}}, "i32")
T.check(f.dtype == "i32" and f:get(2, 1) == 3 and math.type(f:get(2, 1)) == "integer", "from nested table")
T.check(A.from({1, 2, 3}):totable()[3] == 3, "totable")
T.check(A.full(5, 2):reshape(5, 1):get(5, 1) == 2, "reshape")
T.check(x:checksum() == A.linspace(0, 1, 11):checksum(), "checksum is a function of the values")

-- errors name the problem, never crash
T.raises(function() A.zeros(-1) end, "shape", "negative size")
T.raises(function() A.zeros({2, 2}, "f16") end, "unknown dtype", "bad dtype")
T.raises(function() a:get(5, 1) end, "index 1 must be in 1..4", "out of range")
T.raises(function() a:get(1.5, 1) end, "integer", "non-integral index")
T.raises(function() a:fill(0 / 0) end, "finite", "NaN fill")
T.raises(function() x:dot(a) end, "elements", "size mismatch")
T.raises(function() a.dot(42) end, "tide.Array expected, got number", "wrong self")
T.raises(function() A.from({{1, 2}, {3}}) end, "ragged", "ragged table")
T.raises(function() a:reshape(5, 5) end, "elements", "reshape mismatch")
do
  local tmp <close> = A.zeros(1000)
  T.check(tmp:size() == 1000, "to-be-closed array")
end
local z = A.zeros(10)
z:free()
T.raises(function() z:sum() end, "freed", "use after free")
T.check(tostring(z) == "tide.Array (freed)", "tostring of freed")

local before = tide.memory()
do
  local big = A.zeros(1000000)
  T.check(tide.memory() >= before + 8000000, "external memory counted")
  big:free()
end
T.check(tide.memory() == before, "memory returned by free")

-- the freed 8 MB array went to the pool of freed blocks (held, not counted in tide.memory)
local limit, held = tide.memory_pool()
T.check(limit >= 1 << 28 and held >= 8000000, "pool: the array's block held")
T.check(select(2, tide.memory_pool(0)) == 0, "pool off: nothing held")
do
  local big = A.zeros(1000000)
  big:free()
end
T.check(select(2, tide.memory_pool()) == 0, "pool off: a freed block is not kept")
T.check(tide.memory_pool(12345678) == 12345678, "pool limit set")
T.check(tide.memory_pool("auto") == limit, "pool limit back to the default")
T.raises(function() tide.memory_pool(-1) end, "bytes must be in", "negative pool limit refused")
T.raises(function() tide.memory_pool("big") end, 'or "auto"', "pool limit: bytes or auto")

os.exit(T.report())
