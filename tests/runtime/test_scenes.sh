#!/usr/bin/env bash
# Every scene under scenes/ runs at a tiny size: exit 0, run.json "finished",
# frames written.  Keeps the paper/demo scenes from rotting; their
# paper-resolution runs are not tests.  A new scene must be added to the list
# below (the test fails on a scene it does not know).
set -u
src=${TIDE_SOURCE_DIR:-.}
. "$src/tests/lib/checks.sh" # $tmp, check, pass / fail
declare -A args=(
  [dam_break]="--res 16 --frames 2 --image 96"
  [dam_break_3d]="--res 8 --frames 2 --image 96"
  [drop]="--res 16 --frames 2 --image 96"
  [drop_oscillation]="--res 12 --frames 2 --periods 1 --image 96"
  [obstacle]="--res 16 --frames 2 --image 96"
  [open_channel]="--res 12 --frames 2 --image 96"
  [mpm_jelly]="--res 16 --frames 2 --image 96"
  [mpm_snowball]="--res 16 --frames 2 --image 96"
  [mpm_sand_column]="--res 24 --frames 2 --image 96"
  [mpm_in_water]="--res 16 --frames 2 --image 96"
  [mpm_solid_twoway]="--res 16 --frames 2 --image 96"
  [sph_dam_break]="--res 16 --frames 2 --image 96"
  [sph_floating]="--res 20 --frames 2 --image 96"
  [dam_break_compare]="--res 16 --frames 2 --image 96"
  [solid_plastic_sphere]="--h 0.1 --frames 2"
  [solid_stairs]="--h 0.08 --frames 2"
  [solid_swinging_beam]="--cells 4 --frames 2"
  [solid_torus_collapse]="--h 0.1 --frames 3"
  [shell_drape]="--cells 6 --frames 2"
  [shell_layers]="--cells 4 --frames 2"
  [shell_kirigami]="--cells 8 --frames 2"
  [shell_spin]="--cells 6 --frames 2"
  [shell_plastic_torus]="--ring 8 --tube 6 --frames 2"
  [shell_incline]="--around 10 --along 2 --frames 2"
  [rod_cylinder]="--segments 8 --frames 2"
  [rod_spring]="--per_turn 8 --turns 2 --frames 2"
  [zarifi_dam_beam]="--res 12 --frames 2 --image 96 --vtk"
  [zarifi_balls]="--res 12 --frames 2 --image 96"
  [zarifi_compressed_cube]="--res 12 --frames 2 --image 96"
  [zarifi_soft_platform]="--res 12 --frames 2 --image 96"
  [zarifi_sloped_panel]="--res 12 --frames 2 --image 96"
  [zarifi_hollow_sphere]="--res 12 --frames 2 --image 96 --uneven"
  [zarifi_light_toy]="--res 12 --frames 2 --image 96"
  [liu_bands]="--res 16 --frames 2 --image 96 --vtk"
  [liu_cloth]="--res 16 --frames 2 --image 96 --liquid dam --vtk"
  [liu_leaf]="--res 16 --frames 2 --image 96 --vtk"
  [liu_drift]="--res 16 --frames 2 --image 96"
  [liu_kirigami]="--res 16 --frames 2 --image 96"
  [liu_lotus]="--res 16 --frames 2 --image 96"
  [liu_rod]="--res 12 --frames 1 --image 96 --vtk"
  [liu_sliding]="--res 12 --frames 1 --image 96"
  [liu_bundles]="--res 12 --frames 1 --image 96"
  [liu_web]="--res 12 --frames 1 --image 96 --vtk"
)
# 3D variants of the scenes that take --dim (the other dimension of the 3D-first liu rod scenes)
declare -A args3=(
  [drop]="--dim 3 --res 10 --frames 1 --image 96"
  [drop_oscillation]="--dim 3 --res 10 --frames 1 --periods 1 --image 96"
  [obstacle]="--dim 3 --res 10 --frames 1 --image 96"
  [open_channel]="--dim 3 --res 8 --frames 1 --image 96"
  [mpm_jelly]="--dim 3 --res 12 --frames 1 --image 96"
  [zarifi_dam_beam]="--dim 3 --res 8 --frames 1 --image 96"
  [zarifi_balls]="--dim 3 --res 8 --frames 1 --image 96"
  [zarifi_sloped_panel]="--dim 3 --res 8 --frames 1 --image 96"
  [zarifi_hollow_sphere]="--dim 3 --res 10 --frames 1 --image 96"
  [zarifi_light_toy]="--dim 3 --res 10 --frames 1 --image 96"
  [mpm_snowball]="--dim 3 --res 12 --frames 1 --image 96"
  [mpm_sand_column]="--dim 3 --res 16 --frames 1 --image 96"
  [mpm_in_water]="--dim 3 --res 16 --frames 1 --image 96"
  [mpm_solid_twoway]="--dim 3 --res 12 --frames 1 --image 96"
  [sph_dam_break]="--dim 3 --res 10 --frames 1 --image 96 --method dfsph"
  [liu_bands]="--dim 3 --res 10 --frames 1 --image 96"
  [liu_cloth]="--dim 3 --res 10 --frames 1 --image 96"
  [liu_leaf]="--dim 3 --res 10 --frames 1 --image 96"
  [liu_drift]="--dim 3 --res 10 --frames 1 --image 96 --vtk"
  [liu_kirigami]="--dim 3 --res 16 --frames 1 --image 96"
  [liu_lotus]="--dim 3 --res 16 --frames 1 --image 96"
  [liu_rod]="--dim 2 --res 16 --frames 2 --image 96"
  [liu_sliding]="--dim 2 --res 16 --frames 2 --image 96"
)
one() { # $1 name, $2 tag, $3 args
  local out="$tmp/$1$2"
  # shellcheck disable=SC2086
  if ! $TIDE --threads 2 --quiet --no-progress "$src/scenes/$1.lua" $3 --out "$out" >"$out.log" 2>&1; then
    check 1 "scene $1$2 failed: $(tail -3 "$out.log")"; return
  fi
  check 0 ""
  grep -q '"status": *"finished"' "$out/run.json" 2>/dev/null; check $? "scene $1$2: run.json not finished"
  n=$(ls "$out"/*.png 2>/dev/null | wc -l)
  [ "$n" -ge 1 ]; check $? "scene $1$2: no PNG frames written"
}
for f in "$src"/scenes/*.lua; do
  name=$(basename "$f" .lua)
  if [ -z "${args[$name]+x}" ]; then check 1 "scene $name is not in tests/runtime/test_scenes.sh"; continue; fi
  one "$name" "" "${args[$name]}"
  if [ -n "${args3[$name]+x}" ]; then one "$name" "_3d" "${args3[$name]}"; fi
done
echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
