#!/usr/bin/env bash
# tide.fileio.movie: a clear message with the command line when ffmpeg is
# missing; with ffmpeg (a stand-in recording its arguments) the movie is
# written under a temporary name and moved into place.
set -euo pipefail
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/bin" "$dir/frames"
cat > "$dir/m.lua" <<LUA
local tide = require "tide"
local img = tide.array.zeros({8, 8, 3}, "u8")
for k = 0, 2 do tide.fileio.png_write(string.format("$dir/frames/f_%04d.png", k), img) end
local out, msg = tide.fileio.movie{ frames = "$dir/frames/f_%04d.png", output = "$dir/movies/m.mp4", fps = 24 }
print(out or "nil")
print(msg or "")
local ok = pcall(tide.fileio.movie, { frames = "$dir/frames/g_%04d.png", output = "$dir/x.mp4" })
print(ok and "no error for missing frames" or "missing frames rejected")
ok = pcall(tide.fileio.movie, { frames = "$dir/frames/f_%s.png", output = "$dir/x.mp4" })
print(ok and "bad pattern accepted" or "bad pattern rejected")
LUA
fail=0
# 1. no ffmpeg on PATH
out=$(PATH="$dir/bin:/usr/bin:/bin" && [ -x /usr/bin/ffmpeg ] && echo skip || PATH="$dir/bin:/usr/bin:/bin" "$TIDE" "$dir/m.lua")
if [ "$out" != skip ]; then
  echo "$out" | grep -q "^nil$" || { echo "FAIL: expected nil without ffmpeg"; fail=1; }
  echo "$out" | grep -q "ffmpeg is not installed" || { echo "FAIL: no clear message"; fail=1; }
  echo "$out" | grep -q "ffmpeg -y -loglevel error -framerate 24.0 -start_number 0 -i '$dir/frames/f_%04d.png'" || { echo "FAIL: command line missing: $out"; fail=1; }
  echo "$out" | grep -q "missing frames rejected" || { echo "FAIL: missing frames"; fail=1; }
  echo "$out" | grep -q "bad pattern rejected" || { echo "FAIL: bad pattern"; fail=1; }
fi
# 2. a stand-in ffmpeg: records its arguments, writes the output file
cat > "$dir/bin/ffmpeg" <<'SH'
#!/bin/sh
printf '%s\n' "$@" > "$(dirname "$0")/args"
for last; do :; done
printf 'movie' > "$last"
SH
chmod +x "$dir/bin/ffmpeg"
out=$(PATH="$dir/bin:$PATH" "$TIDE" "$dir/m.lua")
[ "$(echo "$out" | head -1)" = "$dir/movies/m.mp4" ] || { echo "FAIL: movie path not returned: $out"; fail=1; }
[ "$(cat "$dir/movies/m.mp4")" = movie ] || { echo "FAIL: movie not moved into place"; fail=1; }
grep -qx -- "-framerate" "$dir/bin/args" && grep -qx "24.0" "$dir/bin/args" && grep -qx "yuv420p" "$dir/bin/args" \
  || { echo "FAIL: ffmpeg arguments: $(tr '\n' ' ' < "$dir/bin/args")"; fail=1; }
left=$(ls -A "$dir/movies" | wc -l)
[ "$left" -eq 1 ] || { echo "FAIL: temporary files left: $(ls -A "$dir/movies")"; fail=1; }
if [ $fail -eq 0 ]; then echo "5 passed, 0 failed"; else echo "some checks failed"; fi
exit $fail
