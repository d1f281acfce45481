#!/usr/bin/env bash
# PNG files written by Tide decoded by an independent reader (Python's zlib
# and struct, no libpng): every sample of an image written from an array, and
# the colours of a rendered frame.
set -euo pipefail
PY=/usr/bin/python3
if ! [ -x "$PY" ]; then
  if [ -n "${CI:-}" ]; then echo "FAIL: $PY missing (CI)"; exit 1; fi
  echo "SKIP: $PY not installed"; exit 0
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat > "$dir/w.lua" <<LUA
local tide = require "tide"
local A = tide.array
local img = A.zeros({13, 17, 3}, "u8")
for y = 1, 13 do for x = 1, 17 do
  img:set(y, x, 1, (x * 13 + y) % 256); img:set(y, x, 2, (y * 29) % 256); img:set(y, x, 3, (x * y) % 256)
end end
tide.fileio.png_write("$dir/sub/raw.png", img)
local f = A.zeros({4, 4})
for i = 3, 4 do for j = 1, 4 do f:set(i, j, 1) end end
tide.fileio.png2d{ path = "$dir/frame_0000.png", n = {4, 4}, dx = 0.25, field = f, range = {0, 1},
  colormap = "magma", width = 112, colorbar = false, frame = false }
local r, g, b = tide.fileio.colormap("magma", 0)
local r1, g1, b1 = tide.fileio.colormap("magma", 1)
print(string.format("%d %d %d %d %d %d", math.floor(r*255+0.5), math.floor(g*255+0.5), math.floor(b*255+0.5),
  math.floor(r1*255+0.5), math.floor(g1*255+0.5), math.floor(b1*255+0.5)))
LUA
colors=$("$TIDE" "$dir/w.lua")
"$PY" - "$dir" "$colors" "$TIDE_SOURCE_DIR/tests/fileio" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[3])
from pngdecode import decode
d = sys.argv[1]
c = [int(v) for v in sys.argv[2].split()]
fails = 0
w, h, ch, rows = decode(d + "/sub/raw.png")
assert (w, h, ch) == (17, 13, 3), (w, h, ch)
for y in range(h):
    for x in range(w):
        want = (((x + 1) * 13 + y + 1) % 256, ((y + 1) * 29) % 256, ((x + 1) * (y + 1)) % 256)
        got = tuple(rows[y][3 * x:3 * x + 3])
        if got != want:
            fails += 1
print("raw image: %d of %d pixels differ" % (fails, w * h))
w, h, ch, rows = decode(d + "/frame_0000.png")
assert (w, h) == (112, 112), (w, h)
left = tuple(rows[50][3 * 30:3 * 30 + 3])
right = tuple(rows[50][3 * 80:3 * 80 + 3])
ok = all(abs(a - b) <= 1 for a, b in zip(left, c[:3])) and all(abs(a - b) <= 1 for a, b in zip(right, c[3:]))
print("frame colours left %s right %s expected %s %s" % (left, right, c[:3], c[3:]))
checks = [fails == 0, ok]
print("%d passed, %d failed" % (sum(checks), len(checks) - sum(checks)))
sys.exit(0 if all(checks) else 1)
PYEOF
