#!/usr/bin/env bash
# Long fuzzing of every file reader (tests/fuzz/fuzz_readers.c: .npy, PNG,
# checkpoints -- container and payload with repaired checksums, restoring
# Grid/Mac/Particles/TetMesh/Shape --, TetGen .node/.ele, Gmsh 2.2/4.1, OBJ)
# in a build with AddressSanitizer and UndefinedBehaviorSanitizer, so reads
# past a buffer, use after free, leaks and undefined arithmetic show up
# that the ctest run (fuzz/readers: 3000 inputs per reader, release build)
# would survive.
#
#   scripts/fuzz.sh [N [SEEDS]]    N inputs per reader and seed (default 100000),
#                                  seeds 1..SEEDS (default 4)
#
# The sanitizer build goes to build-asan/ with
#   CMAKE_BUILD_TYPE=RelWithDebInfo
#   CMAKE_C_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
#   CMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
# and the run uses ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 and
# UBSAN_OPTIONS=print_stacktrace=1, so the first report stops it with a
# stack trace.  A failing input is reproduced from its reader, seed and
# number alone (mutations come from a stateless hash):
#   build-asan/fuzz_readers N SEED READER
# Every input must be read, or refused with nil, message / a Lua error that
# names the file, using at most 64 MiB (the harness checks Tide's counted
# memory; RLIMIT_AS is not set under ASan, which reserves large shadow maps).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
SEEDS=${2:-4}
dir=build-asan
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
mkdir -p "$dir"
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTIDE_NATIVE=OFF \
  -DCMAKE_C_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >"$dir/fuzz-build.log" 2>&1 ||
  { cat "$dir/fuzz-build.log"; exit 1; }
cmake --build "$dir" --target fuzz_readers -j "$(nproc)" >>"$dir/fuzz-build.log" 2>&1 ||
  { tail -40 "$dir/fuzz-build.log"; exit 1; }
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2} OMP_WAIT_POLICY=passive TIDE_LUA_DIR="$PWD/lua"
for seed in $(seq 1 "$SEEDS"); do
  echo "fuzz: seed $seed, $N inputs per reader"
  "$dir/fuzz_readers" "$N" "$seed"
done
echo "fuzz: all readers clean"
