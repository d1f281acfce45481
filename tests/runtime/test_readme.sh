#!/usr/bin/env bash
# The scene printed in README.md runs as written (2 frames) and writes its frames.
set -u
src=${TIDE_SOURCE_DIR:-.}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
awk '/^## A scene in a few lines/{f=1;next} f&&/^```lua/{g=1;next} g&&/^```/{exit} g{print}' "$src/README.md" > "$tmp/scene.lua"
fail=0
[ -s "$tmp/scene.lua" ] || { echo "check failed: no scene block in README.md" >&2; fail=1; }
$TIDE --quiet "$tmp/scene.lua" --frames 2 --out "$tmp/out" >/dev/null || { echo "check failed: README scene failed" >&2; fail=1; }
n=$(ls "$tmp/out"/*.png 2>/dev/null | wc -l)
[ "$n" -eq 3 ] || { echo "check failed: expected 3 frames, got $n" >&2; fail=1; }
grep -q '"status": "finished"' "$tmp/out/run.json" || { echo "check failed: manifest not finished" >&2; fail=1; }
for ex in "$src"/examples/*.lua; do
  $TIDE --quiet "$ex" --frames 2 --out "$tmp/ex" >/dev/null || { echo "check failed: example $ex failed" >&2; fail=1; }
done
echo "$(( fail ? 0 : 1 )) passed, $fail failed"
[ $fail -eq 0 ]
