-- Checkpoints: N steps, checkpoint, M more == restore + M more (bit for bit);
-- every value type round-trips; truncated/corrupted files give clear errors;
-- a failed checkpoint leaves the previous one intact.
local tide = require "tide"
local T = require "tide.testing"
local A = tide.array
local fio = tide.fileio
local U = dofile(T.source("tests/fileio/util.lua"))
local dir = U.tmpdir("ckpt")

-- A small nonlinear evolution on arrays: explicit diffusion with a reaction
-- term on a 24 x 24 grid, and particles advected (RK2) in a rotating flow.
local n, np = 24, 50
local function init()
  local u = A.zeros({n, n})
  for i = 1, n do for j = 1, n do u:set(i, j, tide.rand(11, i * n + j)) end end
  local x = A.zeros({np, 2})
  for p = 1, np do x:set(p, 1, tide.rand(12, p)); x:set(p, 2, tide.rand(13, p)) end
  return { u = u, x = x, t = 0.0, step = 0, name = "reaction-diffusion", params = { D = 0.2, k = 0.7, dt = 0.1 },
    labels = A.full({n, n}, 1, "u8"), ids = A.from({1, 2, 3}, "i32"), w32 = A.full(4, 0.1, "f32"), flags = { true, false } }
end
local function step(s)
  local u, D, k, dt = s.u, s.params.D, s.params.k, s.params.dt
  local v = u:clone()
  for i = 1, n do for j = 1, n do
    local c = u:get(i, j)
    local l = u:get(i % n + 1, j) + u:get((i - 2) % n + 1, j) + u:get(i, j % n + 1) + u:get(i, (j - 2) % n + 1) - 4 * c
    v:set(i, j, c + dt * (D * l + k * c * (1 - c) * math.sin(c + s.t)))
  end end
  s.u = v
  for p = 1, np do
    local x, y = s.x:get(p, 1), s.x:get(p, 2)
    local function vel(a, b) return -(b - 0.5) * math.cos(s.t), (a - 0.5) * math.cos(s.t) end
    local ux, uy = vel(x, y)
    local mx, my = vel(x + 0.5 * dt * ux, y + 0.5 * dt * uy)
    s.x:set(p, 1, x + dt * mx); s.x:set(p, 2, y + dt * my)
  end
  s.t = s.t + dt
  s.step = s.step + 1
  s.labels:set(s.step % n + 1, 1, s.step % 3)
  s.w32:scale(1.1)
end

local N, M = 7, 9
local s = init()
for _ = 1, N do step(s) end
local path = dir .. "/sim/ckpt.tide"
T.check(fio.checkpoint(path, s) == path, "checkpoint returns the path")
for _ = 1, M do step(s) end

local r, info = fio.restore(path)
T.check(info.tide == tide.version, "info names the Tide version: " .. tostring(info.tide))
T.check(r.step == N and math.type(r.step) == "integer", "integer restored as integer")
T.check(r.name == "reaction-diffusion" and r.params.k == 0.7 and r.flags[1] == true and r.flags[2] == false,
  "strings, nested tables, booleans")
T.check(r.labels.dtype == "u8" and r.ids.dtype == "i32" and r.w32.dtype == "f32" and r.u.dtype == "f64",
  "array dtypes kept")
T.check(r.u.shape[1] == n and r.u.shape[2] == n and r.x.shape[2] == 2, "array shapes kept")
for _ = 1, M do step(r) end
T.check(r.u:checksum() == s.u:checksum() and r.x:checksum() == s.x:checksum(), "N + M steps == restore + M steps (field, particles)")
T.check(r.t == s.t and r.labels:checksum() == s.labels:checksum() and r.w32:checksum() == s.w32:checksum(),
  "time, labels and f32 state bit-identical")
local same = true
for i = 1, n do for j = 1, n do if r.u:get(i, j) ~= s.u:get(i, j) then same = false end end end
T.check(same, "every value identical")

-- special values survive exactly
local sp = { inf = math.huge, ninf = -math.huge, tiny = 5e-324, big = math.maxinteger, neg0 = -0.0, [3] = "three",
  [-7] = "neg", nan_arr = A.from({0 / 0, 1}) }
fio.checkpoint(dir .. "/sp.tide", sp)
local q = fio.restore(dir .. "/sp.tide")
T.check(q.inf == math.huge and q.ninf == -math.huge and q.tiny == 5e-324 and q.big == math.maxinteger, "inf, denormal, maxinteger")
T.check(1 / q.neg0 == -math.huge and q[3] == "three" and q[-7] == "neg", "negative zero, integer keys")
T.check(q.nan_arr:get(1) ~= q.nan_arr:get(1) and q.nan_arr:get(2) == 1, "NaN in arrays")
-- a strided view is stored as its values
local m = A.zeros({3, 4})
for i = 1, 3 do for j = 1, 4 do m:set(i, j, 10 * i + j) end end
fio.checkpoint(dir .. "/view.tide", { col = m:slice(2, 2, 2) })
local col = fio.restore(dir .. "/view.tide").col
T.check(col.shape[1] == 3 and col:get(2, 1) == 22, "view stored as a contiguous copy")

-- native objects contribute their state through __checkpoint / __restore
-- (shown here on Lua's FILE* type, whose metatable is registered by name)
local fmt = getmetatable(io.stdout)
fmt.__checkpoint = function(f) return { which = f == io.stdout and "stdout" or "stderr" } end
fmt.__restore = function(st) return st.which == "stdout" and io.stdout or io.stderr end
fio.checkpoint(dir .. "/obj.tide", { out = io.stdout, err = io.stderr })
local o = fio.restore(dir .. "/obj.tide")
T.check(o.out == io.stdout and o.err == io.stderr, "objects restored through __restore")
fmt.__restore = nil
T.raises(function() fio.restore(dir .. "/obj.tide") end, "no __restore", "missing __restore named")
fmt.__checkpoint, fmt.__restore = nil, nil

-- bad values raise before any file is touched; the previous checkpoint stays
local before = io.open(path, "rb"):read("a")
T.raises(function() fio.checkpoint(path, { f = print }) end, "function at data.f cannot be stored", "function value")
T.raises(function() fio.checkpoint(path, { a = { io.stdout } }) end, "FILE* at data.a[1] cannot be stored", "userdata without __checkpoint")
local cyc = {}
cyc.self = cyc
T.raises(function() fio.checkpoint(path, { c = cyc }) end, "contains itself", "cycle")
T.raises(function() fio.checkpoint(path, { [1.5] = 1 }) end, "key of type float", "float key")
local freed = A.zeros(3)
freed:free()
T.raises(function() fio.checkpoint(path, { a = freed }) end, "freed", "freed array")
T.raises(function() fio.checkpoint(path, 42) end, "table of values", "not a table")
T.raises(function() fio.checkpoint(dir, {}) end, "tide.fileio.checkpoint", "path is a directory")
T.check(io.open(path, "rb"):read("a") == before, "previous checkpoint intact after failures")
T.check(not U.listing(dir .. "/sim"):find("tmp"), "no temporary files left")

-- damaged files
local function damaged(name, bytes)
  local f = assert(io.open(dir .. "/" .. name, "wb"))
  f:write(bytes)
  f:close()
  return dir .. "/" .. name
end
T.raises(function() fio.restore(damaged("trunc.tide", before:sub(1, #before // 2))) end, "truncated", "truncated file")
T.raises(function() fio.restore(damaged("short.tide", before:sub(1, 20))) end, "truncated", "header cut")
local mid = #before // 2
local flipped = before:sub(1, mid - 1) .. string.char((before:byte(mid) + 1) % 256) .. before:sub(mid + 1)
T.raises(function() fio.restore(damaged("flip.tide", flipped)) end, "checksum mismatch", "flipped byte")
T.raises(function() fio.restore(damaged("hdr.tide", before:sub(1, 17) .. "\255" .. before:sub(19))) end,
  "header checksum", "corrupted header")
T.raises(function() fio.restore(damaged("png.tide", "\137PNG\r\n\26\n....")) end, "not a Tide checkpoint", "other file")
local none, why = fio.restore(dir .. "/missing.tide")
T.check(none == nil and why:find("no checkpoint"), "missing file: nil, message")

U.cleanup(dir)
os.exit(T.report())
