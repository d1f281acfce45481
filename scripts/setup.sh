#!/usr/bin/env bash
# Install the Debian 12 packages Tide needs to build, test and run, if any
# are missing.  Safe to run repeatedly; does nothing when all are present.
set -euo pipefail

PACKAGES=(
  gcc make cmake pkg-config git
  liblua5.4-dev lua5.4          # Lua 5.4 (headers, library, stock interpreter)
  libsuitesparse-dev            # CHOLMOD, UMFPACK
  libopenblas0-openmp           # optimized BLAS under CHOLMOD (selected as libblas.so.3)
  libblas-dev                   # libblas.so to link the BLAS calls of the supernodal LDL^T
  libpng-dev                    # PNG output
  libedit-dev                   # REPL line editing
  python3 python3-numpy python3-vtk9   # independent readers used by the file-format tests
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing missing packages: ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    SUDO="sudo"
  else
    echo "setup: not root and no sudo; install these packages by hand: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
