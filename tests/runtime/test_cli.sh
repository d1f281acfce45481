#!/usr/bin/env bash
# The tide program: options, exit codes, arg table, stdin scripts, the
# stock lua5.4 interpreter loading build/tide.so.
set -u
pass=0; fail=0
ok() { if eval "$1"; then pass=$((pass+1)); else fail=$((fail+1)); echo "check failed: $2" >&2; fi; }

out=$($TIDE -v); ok '[ $? -eq 0 ]' "-v exits 0"
ok 'grep -q "^Tide" <<<"$out" && grep -q "^Lua *Lua 5.4" <<<"$out" && grep -q "^SuiteSparse" <<<"$out" && grep -q "^libpng" <<<"$out" && grep -q "^BLAS" <<<"$out" && grep -q "^threads" <<<"$out" && grep -q "^compiler *\(gcc\|clang\) [0-9]" <<<"$out" && grep -q "^flags *Release" <<<"$out" && grep -q "^CPU" <<<"$out"' "-v lists versions, compiler, flags, CPU: $out"
ok '[ "$($TIDE --threads 1 -e "print(require(\"tide\").threads())")" = 1 ]' "--threads sets the thread count"
ok '[ "$($TIDE --seed 42 -e "print(require(\"tide\").seed())")" = 42 ]' "--seed sets the seed"
$TIDE --bogus >/dev/null 2>&1; ok '[ $? -eq 2 ]' "unknown option exits 2"
$TIDE --threads >/dev/null 2>&1; ok '[ $? -eq 2 ]' "missing option argument exits 2"
$TIDE --threads x >/dev/null 2>&1; ok '[ $? -eq 2 ]' "bad thread count exits 2"
err=$($TIDE -e 'local x = nil; x.y = 1' 2>&1); rc=$?
ok '[ $rc -eq 1 ]' "script error exits 1"
ok 'grep -q "(command line):1:" <<<"$err" && grep -q "stack traceback" <<<"$err"' "error message with position and traceback: $err"
tmp=$(mktemp -d)
printf 'local a, b = ...\nprint(#arg, arg[0], a, b)\n' > "$tmp/s.lua"
ok '[ "$($TIDE "$tmp/s.lua" x y)" = "2	$tmp/s.lua	x	y" ]' "script arguments in arg and ..."
ok '[ "$(echo "print(6*7)" | $TIDE -)" = 42 ]' "- reads the script from stdin"
ok '[ "$($TIDE -l tide.array -e "print(type(array.zeros))")" = function ]' "-l requires into a global"
printf 'error("bad frame")\n' > "$tmp/e.lua"
err=$($TIDE "$tmp/e.lua" 2>&1); rc=$?
ok '[ $rc -eq 1 ] && grep -q "e.lua:1: bad frame" <<<"$err"' "script file:line in errors: $err"
# the same modules from the stock interpreter
if command -v lua5.4 >/dev/null; then
  r=$(cd "$TIDE_BUILD_DIR" && LUA_CPATH="./?.so" lua5.4 -e 'local t = require "tide"; print(t.array.linspace(0, 1, 5):sum())')
  ok '[ "$r" = 2.5 ]' "stock lua5.4 requires build/tide.so: got '$r'"
else
  echo "lua5.4 not installed: stock-interpreter check skipped" >&2
  [ -n "${CI:-}" ] && fail=$((fail+1))
fi
rm -rf "$tmp"
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
