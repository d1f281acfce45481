#!/usr/bin/env bash
# scripts/native-stamp.sh (called by `make build`): a build directory configured with
# TIDE_NATIVE whose objects were compiled for another CPU (its stamp differs from what this
# machine's compiler resolves -march=native to) is cleaned, once, with a message; a matching
# stamp, a first build (no stamp) and a portable build (TIDE_NATIVE=OFF) are left alone.
# Also: the tide program built here runs here (tide --version names no missing extension).
set -u
src=${TIDE_SOURCE_DIR:-.}
. "$src/tests/lib/checks.sh" # $tmp, check, pass / fail
# a cmake that records its arguments instead of cleaning
mkdir -p "$tmp/bin" "$tmp/b"
printf '#!/bin/sh\necho "$@" >> "%s/cmake.log"\n' "$tmp" > "$tmp/bin/cmake"
chmod +x "$tmp/bin/cmake"
printf 'CMAKE_C_COMPILER:FILEPATH=cc\nTIDE_NATIVE:BOOL=ON\n' > "$tmp/b/CMakeCache.txt"
stamp() { PATH="$tmp/bin:$PATH" bash "$src/scripts/native-stamp.sh" "$tmp/b"; }

out=$(stamp); check $? "first run failed"
[ -z "$out" ] && [ ! -f "$tmp/cmake.log" ]; check $? "a first build (no stamp) was cleaned: $out"
[ -s "$tmp/b/native-cpu.stamp" ]; check $? "no stamp written"
out=$(stamp)
[ -z "$out" ] && [ ! -f "$tmp/cmake.log" ]; check $? "a matching stamp was cleaned: $out"
echo 42 > "$tmp/b/native-cpu.stamp"
out=$(stamp)
case "$out" in *"compiled with -march=native for another CPU"*) r=0;; *) r=1;; esac
check $r "a foreign stamp gave no message: $out"
grep -q -- "--build $tmp/b --target clean" "$tmp/cmake.log" 2>/dev/null; check $? "a foreign stamp did not clean: $(cat "$tmp/cmake.log" 2>/dev/null)"
[ "$(cat "$tmp/b/native-cpu.stamp")" != 42 ]; check $? "the stamp was not renewed"
rm -f "$tmp/cmake.log"; out=$(stamp)
[ -z "$out" ] && [ ! -f "$tmp/cmake.log" ]; check $? "cleaned twice: $out"
printf 'CMAKE_C_COMPILER:FILEPATH=cc\nTIDE_NATIVE:BOOL=OFF\n' > "$tmp/b/CMakeCache.txt"
echo 42 > "$tmp/b/native-cpu.stamp"
out=$(stamp)
[ -z "$out" ] && [ ! -f "$tmp/cmake.log" ]; check $? "a portable build was cleaned: $out"

v=$($TIDE --version 2>&1); check $? "tide --version failed: $v"
echo "$v" | grep -q "^built for "; check $? "tide --version names no build target: $v"
echo "$v" | grep -q "this build of Tide was compiled for a CPU"; [ $? != 0 ]; check $? "the build refuses its own machine: $v"

echo "native stamp: $pass checks passed, $fail failed"
[ "$fail" = 0 ]
