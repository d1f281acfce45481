#!/usr/bin/env bash
# tide --sandbox: every escape is refused with a clear "sandbox:" error --
# process execution, native code, binary chunks, debug, reads outside the
# scene's folder / Tide's library / the output folder (also through symbolic
# links, '..', tide.fileio and tide.solid readers), writes outside the output
# folder (also through tide.fileio writers, checkpoints, tide.run's manifest),
# the memory limit and the time limit (not swallowed by pcall, not escaped in a
# coroutine, long C operators stopped) -- while an ordinary scene still runs.
set -u
pass=0; fail=0
ok() { if eval "$1"; then pass=$((pass+1)); else fail=$((fail+1)); echo "check failed: $2" >&2; fi; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/scene" "$dir/secret"
echo "secret" > "$dir/secret/key.txt"
ln -s "$dir/secret/key.txt" "$dir/scene/link.txt"
cd "$dir/scene"

cat > escapes.lua <<'LUA'
local tide = require "tide"
local n = 0
-- each f must raise (or return nil, message) with a message holding `want`
local function refused(label, want, f)
  local ok, a, b = pcall(f)
  local msg = ok and (a == nil and b) or (not ok and a)
  if type(msg) == "string" and msg:find(want, 1, true) then
    n = n + 1
  else
    print("NOT REFUSED: " .. label .. ": " .. tostring(ok) .. " " .. tostring(a) .. " " .. tostring(b))
  end
end
local secret = arg[1]
refused("os.execute", "sandbox: os.execute is not allowed", function() return os.execute("touch /tmp/pwned") end)
refused("io.popen", "sandbox: io.popen is not allowed", function() return io.popen("id") end)
refused("package.loadlib", "sandbox: package.loadlib is not allowed", function() return package.loadlib("libc.so.6", "system") end)
refused("require of a C module", "not found", function() return require "lfs" end)
refused("binary chunk", "binary chunks are not allowed", function() return load(string.dump(function() end), "x", "b") end)
refused("binary chunk (default mode)", "attempt to load a binary chunk", function() return load(string.dump(function() end)) end)
local f = assert(io.open("out/bin.luac", "wb")); f:write(string.dump(function() return 1 end)); f:close()
refused("dofile of a binary", "attempt to load a binary chunk", function() return dofile("out/bin.luac") end)
refused("loadfile mode b", "binary chunks are not allowed", function() return loadfile("out/bin.luac", "b") end)
refused("debug", "attempt to index a nil value", function() return debug.getregistry() end)
refused("require debug", "sandbox: require \"debug\" is not allowed", function() return require "debug" end)
refused("package.loaded", "attempt to index a nil value", function() return package.loaded.debug end)
refused("string metatable", "attempt to index a boolean", function() return getmetatable("").__index end)
refused("read outside", "sandbox: reading", function() return io.open(secret) end)
refused("io.lines outside", "sandbox: reading", function() return io.lines(secret) end)
refused("read via ..", "sandbox: reading", function() return io.open("../secret/key.txt") end)
refused("read via a symbolic link", "sandbox: reading", function() return io.open("link.txt") end)
refused("read /etc/passwd", "sandbox: reading '/etc/passwd' refused", function() return io.open("/etc/passwd") end)
refused("loadfile outside", "sandbox: reading", function() return loadfile(secret) end)
refused("dofile outside", "sandbox: reading", function() return dofile(secret) end)
refused("io.input outside", "sandbox: reading", function() return io.input(secret) end)
refused("npy_read outside", "sandbox: reading", function() return tide.fileio.npy_read(secret) end)
refused("png_read outside", "sandbox: reading", function() return tide.fileio.png_read(secret) end)
refused("restore outside", "sandbox: reading", function() return tide.fileio.restore(secret) end)
refused("solid.read outside", "sandbox: reading", function() return tide.solid.read(secret .. ".obj") end)
refused("write in the scene folder", "sandbox: writing", function() return io.open("notes.txt", "w") end)
refused("append outside", "sandbox: writing", function() return io.open(secret, "a") end)
refused("read-write outside", "sandbox: writing", function() return io.open(secret, "r+") end)
refused("io.output outside", "sandbox: writing", function() return io.output("x.txt") end)
refused("os.remove outside", "sandbox: writing", function() return os.remove(secret) end)
refused("os.rename out of out", "sandbox: writing", function() return os.rename("out/bin.luac", "stolen.luac") end)
refused("os.tmpname", "sandbox: os.tmpname is not allowed", function() return os.tmpname() end)
refused("write via ..", "sandbox: writing", function() return io.open("out/../escape.txt", "w") end)
refused("npy writer outside", "sandbox: writing", function() return tide.fileio.npy("/tmp/x.npy", tide.array.zeros { 3 }) end)
refused("png writer outside", "sandbox: writing", function() return tide.fileio.png_write("../secret/a.png", tide.array.zeros({ 2, 2 }, "u8")) end)
refused("checkpoint outside", "sandbox: writing", function() return tide.fileio.checkpoint("ck.ckpt", { a = 1 }) end)
refused("mkdirs outside", "sandbox: writing", function() return tide.fileio.mkdirs("/tmp/tide_sb/x") end)
refused("tide.mkdir outside", "sandbox: writing", function() return tide.mkdir("elsewhere") end)
refused("clean_temps outside", "sandbox: writing", function() return tide.fileio.clean_temps("..") end)
refused("tide.run out outside", "sandbox: writing", function() return tide.run { frames = 1, out = "../run", quiet = true, step = function() end } end)
refused("json.write outside", "sandbox: writing", function() return require("tide.json").write("/tmp/x.json", {}) end)
refused("figures' shell", "sandbox: io.popen is not allowed", function() return io.popen("git rev-parse HEAD") end)
refused("movie (ffmpeg)", "sandbox: running ffmpeg is not allowed", function() return tide.fileio.movie { frames = "out/f_%04d.png", output = "out/m.mp4" } end)
refused("disarm the limits", "sandbox: tide._sandbox_call is not allowed", function() return tide._sandbox_call(print) end)
refused("set the policy again", "already set", function() return tide._sandbox { read = { "/" }, write = { "/" } } end)
refused("sandbox.run again", "already set", function() return require("tide.sandbox").run { script = "helper.lua" } end)
if os.getenv("HOME") == nil then n = n + 1 else print("NOT REFUSED: os.getenv") end
-- what a scene needs still works, below out
tide.fileio.npy("out/a.npy", tide.array.zeros { 4 })
assert(tide.fileio.npy_read("out/a.npy"))
tide.fileio.checkpoint("out/c.ckpt", { x = tide.array.zeros { 2 } })
assert(tide.fileio.restore("out/c.ckpt"))
local h = assert(io.open("out/notes.txt", "w")); h:write("ok"); h:close()
tide.run { frames = 2, out = "out/run", quiet = true, step = function() end }
assert(require("helper").answer == 42) -- a module of the scene's own folder
print("refused " .. n)
LUA
printf 'return { answer = 42, debug = debug, io_popen = io.popen }\n' > helper.lua

res=$("$TIDE" --sandbox --out out escapes.lua "$dir/secret/key.txt" 2>&1); rc=$?
ok '[ $rc -eq 0 ] && grep -q "^refused 46$" <<<"$res" && ! grep -q "NOT REFUSED" <<<"$res"' "46 escapes refused, scene ran: $res"
ok '[ ! -e /tmp/pwned ] && [ ! -e "$dir/scene/notes.txt" ] && [ "$(cat "$dir/secret/key.txt")" = secret ]' "nothing written outside"
ok '[ -f out/run/run.json ] && [ -f out/a.npy ]' "outputs below out"
# the scene's own module sees the scene's globals (no debug, refused popen)
printf 'local h = require "helper"; print(h.debug == nil, pcall(h.io_popen, "id"))\n' > mod.lua
res=$("$TIDE" --sandbox mod.lua 2>&1)
ok 'grep -q "^true	false	sandbox: io.popen is not allowed" <<<"$res"' "a scene module runs with the sandboxed globals: $res"

# memory: Tide arrays and the Lua heap
printf 'local A = require("tide").array\nlocal t = {}\nfor i = 1, 100 do t[i] = A.zeros { 2^24 } end\n' > mem.lua
res=$("$TIDE" --sandbox --memory 300 mem.lua 2>&1); rc=$?
ok '[ $rc -eq 1 ] && grep -q "memory limit of 300 MB reached" <<<"$res"' "arrays beyond the memory limit: $res"
printf 'local t = {}\nfor i = 1, 1e9 do t[i] = ("x"):rep(1000) .. i end\n' > heap.lua
res=$("$TIDE" --sandbox --memory 100 heap.lua 2>&1); rc=$?
ok '[ $rc -eq 1 ] && grep -q "sandbox: memory limit of 100 MB reached" <<<"$res"' "Lua heap beyond the memory limit: $res"

# time: a loop, a loop that swallows errors, a coroutine, a long C operator
for body in 'while true do end' \
  'while true do pcall(function() while true do end end) end' \
  'local co = coroutine.wrap(function() while true do end end); co()' \
  'local g = require("tide").grid.new{ size = {256, 256}, dx = 1 / 256 }; local A = require("tide").array; while true do pcall(require("tide").liquid.project, { u = g:mac(), dt = 0.01, phi = A.full({256, 256}, -1) }) end'; do
  printf '%s\n' "$body" > spin.lua
  t0=$(date +%s.%N)
  res=$(timeout 60 "$TIDE" --sandbox --time 1.5 spin.lua 2>&1); rc=$?
  el=$(echo "$(date +%s.%N) - $t0" | bc)
  ok '[ $rc -eq 1 ] && grep -q "time limit" <<<"$res" && [ "$(echo "$el < 20" | bc)" = 1 ]' "time limit stops '$body' (${el}s): $(head -2 <<<"$res")"
done

# usage
"$TIDE" --sandbox -e 'print(1)' >/dev/null 2>&1; ok '[ $? -eq 2 ]' "--sandbox with -e is a usage error"
"$TIDE" --memory 10 escapes.lua >/dev/null 2>&1; ok '[ $? -eq 2 ]' "--memory without --sandbox is a usage error"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
