#!/usr/bin/env bash
# Every export format written by Tide read back by an independent reader
# (VTK's XML readers and NumPy through /usr/bin/python3, a small PLY/OBJ
# parser) and compared value by value.
set -euo pipefail
PY=/usr/bin/python3
if ! [ -x "$PY" ] || ! "$PY" -c "import vtk, numpy" 2>/dev/null; then
  if [ -n "${CI:-}" ]; then echo "FAIL: $PY with vtk and numpy is required in CI (scripts/setup.sh installs them)"; exit 1; fi
  echo "SKIP: $PY with python3-vtk9 and python3-numpy not available (run scripts/setup.sh)"; exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$TIDE" "$TIDE_SOURCE_DIR/tests/fileio/exports_write.lua" "$dir"
"$PY" "$TIDE_SOURCE_DIR/tests/fileio/exports_check.py" "$dir"
left=$(find "$dir" -name '.*tmp*' | wc -l)
if [ "$left" -ne 0 ]; then echo "temporary files left behind: $left"; exit 1; fi
