#!/usr/bin/env bash
# The OpenMP wait policy (runtime/core.c tide_omp_wait_default, docs/performance.md): the tide
# program runs with Tide's default unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT, and
# the OpenMP runtime itself got it -- libgomp reads the variables when it is loaded, so tide
# re-executes itself; OMP_DISPLAY_ENV=verbose makes libgomp print what it read, once per
# process start (the last print is the process that runs the script).  The user's setting
# wins, the script's arguments survive the re-execution, and tide --version /
# tide.versions().omp_wait say whose setting it is.
set -u
src=${TIDE_SOURCE_DIR:-.}
. "$src/tests/lib/checks.sh" # $tmp, check, pass / fail
# Tide's default, as runtime/tide.h defines it
var=$(sed -n 's/^#define TIDE_OMP_WAIT_VAR "\(.*\)"/\1/p' "$src/runtime/tide.h")
val=$(sed -n 's/^#define TIDE_OMP_WAIT_VALUE "\(.*\)"/\1/p' "$src/runtime/tide.h")
[ -n "$var" ] && [ -n "$val" ]; check $? "no TIDE_OMP_WAIT_VAR / VALUE in runtime/tide.h"
# run tide with the given environment (OMP_WAIT_POLICY / GOMP_SPINCOUNT cleared first);
# stdout in $out, libgomp's last report of a variable by last NAME
run() { out=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose "$@" 2>"$tmp/err"); }
last() { grep "^ *$1 = " "$tmp/err" | tail -1 | sed "s/.*= '\(.*\)'/\1/"; }
lua='print(require("tide").versions().omp_wait); print(os.getenv("OMP_WAIT_POLICY"), os.getenv("GOMP_SPINCOUNT"), os.getenv("TIDE_OMP_WAIT_DEFAULT"))'

# no setting: Tide's default, applied to the runtime
run "$TIDE" -e "$lua"; check $? "tide -e failed: $(cat "$tmp/err")"
case "$val" in passive) spin=0 ;; active) spin=30000000000 ;; *) spin=$val ;; esac
[ "$(last GOMP_SPINCOUNT)" = "$spin" ]; check $? "the default did not reach libgomp (GOMP_SPINCOUNT '$(last GOMP_SPINCOUNT)', want $spin): $(cat "$tmp/err")"
[ "$(grep -c "GOMP_SPINCOUNT = " "$tmp/err")" = 2 ]; check $? "not exactly one re-execution: $(cat "$tmp/err")"
echo "$out" | head -1 | grep -qF "$var=$val (Tide's default)"; check $? "versions().omp_wait does not name Tide's default: $out"
[ "$(echo "$out" | sed -n 2p | awk '{print $3}')" = nil ]; check $? "the re-execution marker leaks to the script: $out"
v=$(env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT "$TIDE" --version 2>&1)
echo "$v" | grep -q "^omp wait .*$var=$val (Tide's default)"; check $? "tide --version names no wait policy: $v"

# the user's OMP_WAIT_POLICY wins, and tide does not re-execute
run OMP_WAIT_POLICY=active "$TIDE" -e "$lua"; check $? "tide -e failed: $(cat "$tmp/err")"
[ "$(last OMP_WAIT_POLICY)" = ACTIVE ] && [ "$(last GOMP_SPINCOUNT)" = 30000000000 ]
check $? "OMP_WAIT_POLICY=active was overridden: $(cat "$tmp/err")"
[ "$(grep -c "GOMP_SPINCOUNT = " "$tmp/err")" = 1 ]; check $? "re-executed although the user chose: $(cat "$tmp/err")"
echo "$out" | head -1 | grep -qF "OMP_WAIT_POLICY=active (from the environment)"; check $? "omp_wait: $out"

# so does a GOMP_SPINCOUNT alone (OMP_WAIT_POLICY stays unset)
run GOMP_SPINCOUNT=1234 "$TIDE" -e "$lua"; check $? "tide -e failed: $(cat "$tmp/err")"
[ "$(last GOMP_SPINCOUNT)" = 1234 ]; check $? "GOMP_SPINCOUNT=1234 was overridden: $(cat "$tmp/err")"
[ "$(echo "$out" | sed -n 2p | awk '{print $1, $2}')" = "nil 1234" ]; check $? "the environment was changed: $out"
echo "$out" | head -1 | grep -qF "GOMP_SPINCOUNT=1234 (from the environment)"; check $? "omp_wait: $out"

# a script and its arguments survive the re-execution
printf 'print(#arg, arg[1], arg[2])\n' > "$tmp/args.lua"
run "$TIDE" "$tmp/args.lua" "a b" "-e"
[ "$out" = "$(printf '2\ta b\t-e')" ]; check $? "arguments changed in the re-execution: '$out'"

# the Lua module for a stock interpreter: libgomp was loaded with the interpreter's environment
# before luaopen_tide ran, so Tide cannot change it -- it says so (docs/performance.md)
if command -v lua5.4 >/dev/null && [ -n "${TIDE_BUILD_DIR:-}" ]; then
  r=$(cd "$TIDE_BUILD_DIR" && env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT LUA_CPATH="./?.so" lua5.4 -e 'print(require("tide").versions().omp_wait)')
  case "$r" in "OpenMP runtime's default"*) r=0 ;; *) r=1 ;; esac
  check $r "the module reports no runtime default without a setting"
  r=$(cd "$TIDE_BUILD_DIR" && OMP_WAIT_POLICY=passive LUA_CPATH="./?.so" lua5.4 -e 'print(require("tide").versions().omp_wait)')
  [ "$r" = "OMP_WAIT_POLICY=passive (from the environment)" ]; check $? "module with OMP_WAIT_POLICY=passive: $r"
fi

echo "omp wait: $pass checks passed, $fail failed"
[ "$fail" = 0 ]
