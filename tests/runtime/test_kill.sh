#!/usr/bin/env bash
# Runs that survive: tide.run killed by SIGTERM and SIGKILL mid-frame and
# mid-checkpoint.  After each death: no partial final file (every frame and the
# checkpoint read back), run.json true (SIGTERM: "failed" with the signal as
# reason; SIGKILL: the next run reports the dead run), no temporary left after
# the next start (stale ones of dead processes removed, a live process's kept),
# a resumed run keeps the history and finishes with every frame.  A second run
# into the folder of a live one is refused.
set -u
pass=0; fail=0
ok() { if eval "$1"; then pass=$((pass+1)); else fail=$((fail+1)); echo "check failed: $2" >&2; fi; }
dir=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
out=$dir/out

# the scene: 30 frames, a 4-million-value state (32 MB checkpoint each frame,
# written under a temporary name, fsynced, renamed), small .npy frames
cat > "$dir/scene.lua" <<'LUA'
local tide = require "tide"
local out, resume, n = arg[1], arg[2] == "resume", tonumber(arg[3])
local A = tide.array
local state = { x = A.zeros { n }, steps = 0 }
tide.run {
  frames = 30, fps = 10, out = out, quiet = true, resume = resume,
  max_dt = function() return 0.05 end,
  step = function()
    local s = 0
    for k = 1, 200000 do s = s + k end -- some work per step
    state.steps = state.steps + 1
  end,
  frame = function(i)
    local f = A.full({ 1000 }, i)
    tide.fileio.npy(string.format("%s/frame_%04d.npy", out, i), f)
  end,
  checkpoint = {
    save = function() state.x:fill(state.steps); return { x = state.x, steps = state.steps } end,
    every = 1,
    load = function(s) state.x, state.steps = s.x, s.steps end,
  },
}
LUA
# reads every final file back: frames (each holds its number) and
# the checkpoint; prints "<frames> <highest frame> <checkpoint frame> <bad>"
cat > "$dir/check.lua" <<'LUA'
local tide = require "tide"
local out = arg[1]
local n, hi, bad = 0, -1, 0
for i = 0, 30 do
  local p = string.format("%s/frame_%04d.npy", out, i)
  local f = io.open(p, "rb")
  if f then
    f:close()
    local a, msg = tide.fileio.npy_read(p)
    if not a or a:get(1) ~= i or a:get(1000) ~= i then bad = bad + 1; io.stderr:write(p, ": ", tostring(msg), "\n") end
    n, hi = n + 1, i
  end
end
local ok, c = pcall(tide.fileio.restore, out .. "/checkpoint.ckpt")
local cf = -1
if ok and c then
  cf = c.frame
  if c.state.steps ~= c.steps or c.state.x:get(1) ~= c.steps or c.state.x:get(c.state.x.shape[1]) ~= c.steps then bad = bad + 1 end
elseif not ok then bad = bad + 1; io.stderr:write(tostring(c), "\n") end
print(n, hi, cf, bad)
LUA
field() { # field NAME of run.json (string or number)
  sed -n "s/^  \"$1\": \"\{0,1\}\([^\",]*\)\"\{0,1\},\{0,1\}$/\1/p" "$out/run.json" | head -1
}
temps() { find "$out" -name '.*.tmp-*' | wc -l; }
wait_for() { # wait_for CMD: poll up to 60 s
  for _ in $(seq 1 6000); do eval "$1" && return 0; sleep 0.01; done; return 1
}
# `run MODE` in the foreground; in the background the tide process itself is
# started with & so that $! is its pid (a function would put a subshell there)
run() { $TIDE --threads 1 "$dir/scene.lua" "$out" "$1" 4000000; }
scene=("$TIDE" --threads 1 "$dir/scene.lua" "$out")

# a dead process's pid (and a live one: this shell)
dead=4194000
while kill -0 $dead 2>/dev/null; do dead=$((dead + 1)); done
mkdir -p "$out/sub"
echo stale > "$out/.frame_0007.npy.tmp-$dead-3"
echo stale > "$out/sub/.x.vtu.tmp-$dead-0"
echo live > "$out/.y.png.tmp-$$-1"

# 1. SIGTERM mid-frame
"${scene[@]}" fresh 4000000 > "$dir/a.log" 2>&1 &
pid=$!
ok 'wait_for "[ -f $out/frame_0003.npy ]"' "run A reaches frame 3"
ok '[ ! -e "$out/.frame_0007.npy.tmp-$dead-3" ] && [ ! -e "$out/sub/.x.vtu.tmp-$dead-0" ]' "stale temporaries of a dead process removed at start"
ok '[ -e "$out/.y.png.tmp-$$-1" ]' "a live process's temporary kept"
ok 'grep -q "removed 2 stale temporary files" "$dir/a.log"' "start reports the removed temporaries: $(cat "$dir/a.log")"
rm -f "$out/.y.png.tmp-$$-1"
sleep 0.05
kill -TERM $pid; wait $pid; rc=$?
ok '[ $rc -eq 1 ]' "SIGTERM: exit status 1 (got $rc)"
ok '[ "$(field status)" = failed ] && [ "$(field reason)" = "signal SIGTERM" ]' "SIGTERM: run.json failed, reason signal SIGTERM: $(field status) / $(field reason)"
ok 'grep -q "SIGTERM" "$out/run.json"' "SIGTERM named in the error"
ok '[ "$(temps)" -eq 0 ]' "SIGTERM: no temporary left ($(find "$out" -name '.*.tmp-*'))"
read -r n hi cf bad <<<"$($TIDE "$dir/check.lua" "$out")"
# the signal may also land between a frame's files and its checkpoint: then the
# checkpoint is the previous frame's (a resume recomputes one frame)
ok '[ "$bad" = 0 ] && [ "$hi" -ge 3 ] && [ "$n" = $((hi + 1)) ] && [ "$cf" -le "$hi" ] && [ "$cf" -ge $((hi - 1)) ]' "SIGTERM: frames 0..$hi and checkpoint $cf (= $hi or the one before) complete (bad $bad)"
# the signal may land between a frame's files and its heartbeat: one frame more
lf=$(field last_frame)
ok '[ "$lf" -le "$hi" ] && [ "$lf" -ge $((hi - 1)) ]' "run.json last_frame $lf is the last written frame $hi or the one before"

# 2. SIGKILL mid-checkpoint (while its temporary exists)
"${scene[@]}" resume 4000000 > "$dir/b.log" 2>&1 &
pid=$!
ok 'wait_for "ls -a $out | grep -q \"^\.checkpoint\.ckpt\.tmp-$pid-\""' "run B writes a checkpoint"
kill -KILL $pid; wait $pid 2>/dev/null
left=$(temps)
ok '[ "$(field status)" = running ]' "after SIGKILL run.json still says running (what the next run must see through)"
read -r n hi cf bad <<<"$($TIDE "$dir/check.lua" "$out")"
ok '[ "$bad" = 0 ] && [ "$cf" -ge 0 ]' "SIGKILL mid-checkpoint: the previous checkpoint ($cf) and all frames complete (bad $bad)"
killed_pid=$pid

# 3. SIGTERM mid-checkpoint: the writer finishes its file, then the run stops
"${scene[@]}" resume 4000000 > "$dir/c.log" 2>&1 &
pid=$!
ok 'wait_for "ls -a $out | grep -q \"^\.checkpoint\.ckpt\.tmp-$pid-\""' "run C writes a checkpoint"
kill -TERM $pid; wait $pid; rc=$?
ok '[ $rc -eq 1 ] && [ "$(field status)" = failed ] && [ "$(field reason)" = "signal SIGTERM" ]' "SIGTERM mid-checkpoint: failed with the signal ($rc, $(field status))"
ok 'grep -q "died without a word (pid $killed_pid" "$dir/c.log"' "run C reports the SIGKILLed run B as died: $(cat "$dir/c.log")"
if [ "$left" -gt 0 ]; then
  ok 'grep -q "removed $left stale temporary file" "$dir/c.log"' "run C removed B's $left stale temporary"
fi
ok '[ "$(temps)" -eq 0 ]' "no temporary after run C"
read -r n hi cf bad <<<"$($TIDE "$dir/check.lua" "$out")"
ok '[ "$bad" = 0 ]' "SIGTERM mid-checkpoint: every final file complete (bad $bad)"

# 4. resumed to the end: history of all runs kept
run resume > "$dir/d.log" 2>&1; rc=$?
ok '[ $rc -eq 0 ] && [ "$(field status)" = finished ]' "run D finishes ($rc, $(field status))"
read -r n hi cf bad <<<"$($TIDE "$dir/check.lua" "$out")"
ok '[ "$bad" = 0 ] && [ "$n" = 31 ] && [ "$cf" = 30 ]' "frames 0..30 complete after three deaths ($n frames, checkpoint $cf, bad $bad)"
hist=$(OUT=$out $TIDE -e '
local j = require "tide.json"
local f = io.open(os.getenv("OUT") .. "/run.json"); local m = j.decode(f:read("a")); f:close()
local s = {}
for _, h in ipairs(m.history or {}) do s[#s + 1] = tostring(h.status) end
print(table.concat(s, " "), m.resumed_from and m.resumed_from.frame or "none", m.first_frame)' 2>&1)
read -r h1 h2 h3 rf ff <<<"$hist"
ok '[ "$h1 $h2 $h3" = "failed died failed" ] && [ "$ff" = $((rf + 1)) ]' "history keeps the three earlier runs (failed, died, failed) and the resume point: $hist"

# 5. a second run into the folder of a live run is refused
"${scene[@]}" fresh 4000000 > "$dir/e.log" 2>&1 &
pid=$!
ok 'wait_for "[ -f $out/frame_0002.npy ] && grep -q \"\\\"pid\\\": $pid\" $out/run.json"' "run E is running"
err=$(run fresh 2>&1); rc=$?
ok '[ $rc -eq 1 ] && grep -q "is in use by a live run (pid $pid" <<<"$err"' "a second run into a live run's folder is refused: $err"
kill -TERM $pid; wait $pid
ok '[ "$(field status)" = failed ]' "run E stopped by SIGTERM"

# 6. SIGKILL mid-frame (inside a step): the next run reports it and starts clean
"${scene[@]}" fresh 4000000 > "$dir/f.log" 2>&1 &
pid=$!
ok 'wait_for "[ -f $out/frame_0004.npy ] && grep -q \"\\\"pid\\\": $pid\" $out/run.json"' "run F is running"
sleep 0.03
kill -KILL $pid; wait $pid 2>/dev/null
read -r n hi cf bad <<<"$($TIDE "$dir/check.lua" "$out")"
ok '[ "$bad" = 0 ]' "SIGKILL mid-frame: every final file complete (bad $bad)"
run resume > "$dir/g.log" 2>&1; rc=$?
ok '[ $rc -eq 0 ] && grep -q "died without a word (pid $pid" "$dir/g.log" && [ "$(temps)" -eq 0 ]' "after SIGKILL mid-frame the next run reports the death and leaves no temporary: $(cat "$dir/g.log")"
read -r n hi cf bad <<<"$($TIDE "$dir/check.lua" "$out")"
ok '[ "$bad" = 0 ] && [ "$n" = 31 ]' "and resumes to frame 30 ($n frames, bad $bad)"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
