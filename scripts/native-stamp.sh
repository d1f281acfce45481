#!/usr/bin/env bash
# scripts/native-stamp.sh BUILD -- keeps a build directory configured with TIDE_NATIVE
# (-march=native, the default) compiled for the CPU that `make` runs on. The objects of a
# build directory carried to another machine (a shared disk, a copied checkout) were tuned for
# the old CPU: slower there (bench_mpm 3D measured 3.9 against 6.8 M particle-substeps/s), or
# refused at start when the new CPU lacks an extension they use. When the compiler resolves
# -march=native differently from the last build's, the objects are cleaned and rebuilt.
set -u
build=${1:-build}
cache=$build/CMakeCache.txt
[ -f "$cache" ] || exit 0
grep -q '^TIDE_NATIVE:BOOL=ON' "$cache" || exit 0
cc=$(sed -n 's/^CMAKE_C_COMPILER:[A-Z]*=//p' "$cache")
command -v "$cc" >/dev/null 2>&1 || cc=cc
sig=$(echo | "$cc" -march=native -dM -E - 2>/dev/null | sort | cksum | cut -d' ' -f1)
[ -n "$sig" ] || exit 0
stamp=$build/native-cpu.stamp
if [ -f "$stamp" ] && [ "$(cat "$stamp")" != "$sig" ]; then
  cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
  echo "make: $build/ was compiled with -march=native for another CPU; rebuilding it for this one (${cpu:-unknown})"
  cmake --build "$build" --target clean >/dev/null
fi
echo "$sig" > "$stamp"
