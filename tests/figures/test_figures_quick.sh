#!/usr/bin/env bash
# The quick figure set (tide.figures, figures/*.lua --quick): runs every figure
# twice with the same threads into two directories; every CSV and PNG must be
# byte-identical (SHA-256 in the manifests), unless the figure's manifest says
# why it cannot be ("deterministic": "<reason>").  A third run must find every
# figure up to date (content key unchanged) and recompute nothing.
set -u
src=${TIDE_SOURCE_DIR:-.}
. "$src/tests/lib/checks.sh" # $tmp, check, pass / fail
run() { $TIDE --threads 2 --no-progress "$src/scripts/figures.lua" --quick --no-docs --out "$1"; }
t0=$(date +%s)
run "$tmp/a" > "$tmp/a.log" 2>&1; check $? "quick run 1 failed: $(tail -40 "$tmp/a.log")"
t1=$(date +%s)
run "$tmp/b" > "$tmp/b.log" 2>&1; check $? "quick run 2 failed: $(tail -40 "$tmp/b.log")"
echo "quick set: $((t1 - t0)) s per run"
n=0
for fig in $(ls "$src/figures"/*.lua | sed 's|.*/||; s|\.lua$||' | grep -v '^_'); do
  n=$((n + 1))
  ma="$tmp/a/$fig/manifest.json"; mb="$tmp/b/$fig/manifest.json"
  grep -q '"status": "finished"' "$ma" 2>/dev/null; check $? "$fig: run 1 did not finish"
  nfiles=$(grep -c '"sha256"' "$ma" 2>/dev/null)
  [ "${nfiles:-0}" -gt 0 ]; check $? "$fig: no CSV or PNG written"
  if grep -q '"deterministic": true' "$ma"; then
    diff <(grep -A1 '"file"' "$ma" | grep -v '^--') <(grep -A1 '"file"' "$mb" | grep -v '^--') > /dev/null
    check $? "$fig: outputs differ between two runs with the same threads: $(cd "$tmp" && sha256sum a/$fig/*.csv a/$fig/*.png b/$fig/*.csv b/$fig/*.png)"
  else
    echo "$fig: not compared: $(grep '"deterministic"' "$ma")"
  fi
done
[ $n -gt 0 ]; check $? "no figures found in $src/figures"
# incremental: nothing recomputed, manifests untouched
cp "$tmp/a/$fig/manifest.json" "$tmp/keep.json"
run "$tmp/a" > "$tmp/c.log" 2>&1; check $? "third run failed"
grep -q ", 0 to run, $n up to date" "$tmp/c.log"; check $? "third run recomputed figures: $(head -3 "$tmp/c.log")"
cmp -s "$tmp/keep.json" "$tmp/a/$fig/manifest.json"; check $? "an up-to-date figure's manifest was rewritten"
# the figure template printed in README.md runs as written
awk '/^## Reproducing the papers/{f=1;next} f&&/^```lua/{g=1;next} g&&/^```/{exit} g{print}' "$src/README.md" > "$tmp/my_figure.lua"
[ -s "$tmp/my_figure.lua" ]; check $? "no figure template in README.md"
$TIDE --quiet "$tmp/my_figure.lua" --quick --out "$tmp/tpl" > "$tmp/tpl.log" 2>&1; check $? "README figure template failed: $(cat "$tmp/tpl.log")"
[ -s "$tmp/tpl/energy.csv" ] && [ -s "$tmp/tpl/energy.png" ] && [ -s "$tmp/tpl/figure.json" ]; check $? "README template wrote no CSV/PNG/figure.json"
echo "$n figures; $pass passed, $fail failed"
[ $fail -eq 0 ]
