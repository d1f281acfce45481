#!/usr/bin/env bash
# Build Tide with warnings as errors for targets and compilers other than the
# default one, so a warning that another CPU or compiler raises is caught here
# and not in a user's build (which never turns warnings into errors).
#   scripts/check-builds.sh            gcc -march=x86-64-v2, gcc -march=x86-64-v4, clang
# Each build goes to build-check/<name>/ and compiles everything (core, bindings,
# tests, benchmarks).  Exit status non-zero on the first warning or error.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v clang >/dev/null 2>&1; then
  echo "check-builds: installing clang"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends clang libomp-dev
fi

jobs=$(nproc)
run() {
  local name=$1 cc=$2 flags=$3
  local dir=build-check/$name
  echo "check-builds: $name ($cc $flags, -Werror)"
  CC=$cc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DTIDE_WERROR=ON -DTIDE_NATIVE=OFF \
    -DCMAKE_C_FLAGS="$flags" >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
  cmake --build "$dir" -j "$jobs" >>"$dir.log" 2>&1 || { grep -E -B2 -A6 'warning|error' "$dir.log" | head -60; echo "check-builds: $name FAILED"; exit 1; }
  cmake --build "$dir" --target benchmarks -j "$jobs" >>"$dir.log" 2>&1 || { grep -E -B2 -A6 'warning|error' "$dir.log" | head -60; echo "check-builds: $name (benchmarks) FAILED"; exit 1; }
}
mkdir -p build-check
run gcc-x86-64-v2 gcc "-march=x86-64-v2"
run gcc-x86-64-v4 gcc "-march=x86-64-v4"
run clang-native clang "-march=native"
echo "check-builds: all builds clean"
