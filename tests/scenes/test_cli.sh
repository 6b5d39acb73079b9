#!/usr/bin/env bash
# Scene-level tests of the touche command. Usage: test_cli.sh TOUCHE SOURCE_DIR
# Prints one line per check and ends with "N passed, N failed".
set -u
touche=$1
root=$2
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"

# ---- usage ----
check "help exits 0" exits_with 0 "$touche" --help
check "command help exits 0" exits_with 0 "$touche" run --help
check "unknown command exits 2" exits_with 2 "$touche" fly
check "missing scene exits 2" exits_with 2 "$touche" run
check "bad option value exits 2" exits_with 2 "$touche" run "$root/examples/stack13.xml" --dt -1
check "unknown contact model exits 2" exits_with 2 "$touche" run "$root/examples/stack13.xml" --contact rubber
check "missing file exits 2" exits_with 2 "$touche" info "$work/no-such-scene.xml"

# Each command's help lists its own options only.
help_is_per_command() {
  "$touche" mesh --help >"$work/help.txt" || return 1
  ! grep -q -- "--duration" "$work/help.txt" || { cat "$work/help.txt"; return 1; }
  "$touche" run --help >"$work/help.txt" || return 1
  grep -q -- "--duration" "$work/help.txt" && grep -q -- "--integrator" "$work/help.txt" &&
    ! grep -q -- "--device" "$work/help.txt" || { cat "$work/help.txt"; return 1; }
  "$touche" haptic --help >"$work/help.txt" || return 1
  grep -q -- "--device" "$work/help.txt" && ! grep -q -- "--vtk" "$work/help.txt"
}
check "each command's help lists its own options only" help_is_per_command
inapplicable_option_rejected() {
  exits_with 2 "$touche" info "$root/examples/stack13.xml" --vtk "$work/d" --steps 3 || return 1
  grep -q "does not apply" "$work/err.txt" || { cat "$work/err.txt"; return 1; }
  exits_with 2 "$touche" export-mjcf "$root/examples/stack13.xml" "$work/e.xml" --contact pressure &&
    [[ ! -e "$work/e.xml" ]]
}
check "an option that does not apply to the command exits 2" inapplicable_option_rejected
check "an extra argument to run exits 2" exits_with 2 "$touche" run "$root/examples/stack13.xml" extra
check "an unknown option exits 2" exits_with 2 "$touche" query "$root/examples/stack13.xml" --frobnicate
check "an unknown integrator exits 2" exits_with 2 "$touche" run "$root/examples/stack13.xml" --integrator leapfrog
# sphere_bounce uses RK4, which the lcp model cannot: --integrator is the fix the error offers.
integrator_overrides_scene() {
  exits_with 2 "$touche" run "$root/examples/sphere_bounce.xml" --contact lcp --duration 0.01 \
    --out "$work/rk4" || return 1
  grep -q -- "--integrator" "$work/err.txt" || { cat "$work/err.txt"; return 1; }
  "$touche" run "$root/examples/sphere_bounce.xml" --contact lcp --integrator Euler \
    --duration 0.01 --out "$work/rk4" 2>/dev/null || return 1
  "$touche" info "$root/examples/sphere_bounce.xml" --integrator Euler | grep -q "integrator semi-implicit Euler"
}
check "--integrator overrides the scene's integrator" integrator_overrides_scene

# ---- the bad-input corpus: exit 2, a message naming the file, no output file ----
bad_input_fails_cleanly() {
  local file=$1 out="$work/bad-out"
  rm -rf "$out"
  exits_with 2 "$touche" run "$file" --duration 0.01 --out "$out" || return 1
  grep -q "$(basename "$file")" "$work/err.txt" || { echo "message does not name the file:"; cat "$work/err.txt"; return 1; }
  if [[ -e "$out/trajectory.csv" || -e "$out/contacts.jsonl" ]]; then
    echo "an output file was left behind"; return 1
  fi
  ! grep -qE "<([a-z]+)> <\1>" "$work/err.txt" || { echo "the element is named twice:"; cat "$work/err.txt"; return 1; }
  ! grep -qiE "sanitizer|segmentation|core dumped" "$work/err.txt"
}
manifest="$root/tests/scenes/bad/MANIFEST"
if [[ -f "$manifest" ]]; then
  while read -r name _; do
    [[ -z "$name" || "$name" == \#* ]] && continue
    check "bad input $name" bad_input_fails_cleanly "$root/tests/scenes/bad/$name"
  done <"$manifest"
fi

# ---- runs ----
runs_and_writes() {
  local out="$work/run1"
  "$touche" run "$root/examples/pile100.xml" --duration 0.2 --out "$out" 2>/dev/null || return 1
  head -1 "$out/trajectory.csv" | grep -qx "time,body,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,wx_B,wy_B,wz_B" || return 1
  [[ $(wc -l <"$out/trajectory.csv") -gt 100 ]] || return 1
  /usr/bin/python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$out/contacts.jsonl"
}
check "run writes trajectory and contacts" runs_and_writes

angular_velocity_frames() { # keyframes give w in the body frame: wx_B..wz_B, wx..wz the world's
  cat >"$work/spin.xml" <<'XML'
<mujoco>
  <option gravity="0 0 0"/>
  <worldbody>
    <body name="spinner" pos="0 0 1" euler="0 0 90"><freejoint/><geom type="box" size="0.1 0.2 0.3" mass="1"/></body>
  </worldbody>
  <keyframe><key name="spin" qpos="0 0 1 0.70710678118654757 0 0 0.70710678118654746" qvel="0 0 0 1 0 0"/></keyframe>
</mujoco>
XML
  "$touche" run "$work/spin.xml" --key spin --duration 0.01 --out "$work/spin" 2>/dev/null || return 1
  /usr/bin/python3 - "$work/spin/trajectory.csv" <<'PY'
import csv, sys
row = next(csv.DictReader(open(sys.argv[1])))
w = [float(row[k]) for k in ("wx", "wy", "wz")]
w_B = [float(row[k]) for k in ("wx_B", "wy_B", "wz_B")]
assert max(abs(a - b) for a, b in zip(w, [0, 1, 0])) < 1e-12, w
assert max(abs(a - b) for a, b in zip(w_B, [1, 0, 0])) < 1e-12, w_B
PY
}
check "trajectory gives the angular velocity in the world and the body frame (as keyframes)" angular_velocity_frames

deterministic() {
  "$touche" run "$root/examples/pile100.xml" --duration 0.2 --out "$work/run2" 2>/dev/null || return 1
  cmp "$work/run1/trajectory.csv" "$work/run2/trajectory.csv" &&
    cmp "$work/run1/contacts.jsonl" "$work/run2/contacts.jsonl"
}
check "two runs give byte-identical outputs" deterministic

query_json() {
  "$touche" query "$root/examples/stack13.xml" >"$work/query.json" || return 1
  /usr/bin/python3 - "$work/query.json" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))
pairs = q["pairs"]
assert len(pairs) == 13, len(pairs)          # floor-block1 and 12 block-block pairs
for p in pairs:
    assert p["model"] == "point"
    assert len(p["points"]) == 4, p["points"]
PY
}
check "query prints the stack's 13 pairs with 4 points each" query_json

# The PUMA's joints at pose qs: the bias force is the reference's static gravity torque
# (shared/reference/puma560.md), joint after joint in MuJoCo's order.
query_joints() {
  "$touche" query "$root/examples/puma560.xml" --key qs >"$work/joints.json" || return 1
  /usr/bin/python3 - "$work/joints.json" <<'PY'
import json, sys
q = json.load(open(sys.argv[1]))
joints = q["joints"]
assert [j["name"] for j in joints] == ["joint%d" % i for i in range(1, 7)], joints
expected = [0, 46.0069, 8.7722, 0, 0.0283, 0]
for j, tau in zip(joints, expected):
    assert abs(j["bias"][0] - tau) < 1e-4, (j, tau)
    assert j["qvel"] == [0] and j["passive"] == [0] and j["actuator"] == [0]
assert abs(joints[2]["qpos"][0] + 1.5707963267949) < 1e-12
PY
}
check "query lists the PUMA's joints with their gravity torques" query_joints

# --ctrl: the servos follow a control file (linear in time); errors name the file and line.
ctrl_file_drives_the_servos() {
  "$touche" run "$root/examples/puma560.xml" --key qn --ctrl "$root/examples/puma560_wave.csv" \
    --duration 1 --every 500 --no-contacts --out "$work/ctrl" >/dev/null 2>&1 || return 1
  # link1 turned toward the file's 0.5 rad at t = 1 (its servo lags): quaternion z above 0.15
  awk -F, '$2 == "link1" && $1 > 0.99 && $9 > 0.15 { found = 1 } END { exit !found }' \
    "$work/ctrl/trajectory.csv" || return 1
  printf 'time,servo1\n0,1\n0,2\n' >"$work/bad_ctrl.csv"
  "$touche" run "$root/examples/puma560.xml" --ctrl "$work/bad_ctrl.csv" --out "$work/ctrl2" \
    2>"$work/ctrl_err.txt" >/dev/null
  [ $? -eq 2 ] && grep -q "bad_ctrl.csv:3: time must increase" "$work/ctrl_err.txt" || return 1
  printf 'time,servo9\n0,1\n' >"$work/bad_ctrl.csv"
  "$touche" run "$root/examples/puma560.xml" --ctrl "$work/bad_ctrl.csv" --out "$work/ctrl2" \
    2>"$work/ctrl_err.txt" >/dev/null
  [ $? -eq 2 ] && grep -q "bad_ctrl.csv:1: no actuator named 'servo9'" "$work/ctrl_err.txt"
}
check "--ctrl drives the servos from a CSV file; its errors name file and line" ctrl_file_drives_the_servos

box_slide_stops() {
  "$touche" run "$root/examples/box_slide.xml" --key launch --duration 2 --out "$work/slide" 2>/dev/null || return 1
  /usr/bin/python3 - "$work/slide/trajectory.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
x, vx = float(rows[-1]["x"]), float(rows[-1]["vx"])
expected = 3.0 ** 2 / (2 * 0.4 * 9.81)       # v^2 / (2 mu g)
assert abs(vx) < 1e-3, vx
assert abs(x - expected) < 0.05 * expected, (x, expected)
PY
}
check "the launched box stops after v^2/(2 mu g)" box_slide_stops

# --set geom:*.friction=0.2 on every geom: the box now slides v^2/(2 mu g) with mu 0.2, with no
# contacts.jsonl under --no-contacts.
set_changes_friction() {
  "$touche" run "$root/examples/box_slide.xml" --key launch --duration 2 --out "$work/set" \
    --set 'geom:*.friction=0.2' --no-contacts 2>/dev/null || return 1
  [[ -f "$work/set/trajectory.csv" && ! -e "$work/set/contacts.jsonl" ]] || return 1
  /usr/bin/python3 - "$work/set/trajectory.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
x, vx = float(rows[-1]["x"]), float(rows[-1]["vx"])
expected = 3.0 ** 2 / (2 * 0.2 * 9.81)
assert abs(vx) < 1e-3 and abs(x - expected) < 0.05 * expected, (x, vx, expected)
PY
}
check "--set geom:*.friction=0.2 halves the friction, --no-contacts skips contacts.jsonl" set_changes_friction
set_targets() {
  "$touche" info "$root/examples/box_slide.xml" --set friction=0.3 --set geom:box.stiffness=2e5 \
    >"$work/set.txt" 2>"$work/set-err.txt" || { cat "$work/set-err.txt"; return 1; }
  grep -q "scene default 'point', friction 0.3" "$work/set.txt" &&
    grep -q "own: stiffness 200000 damping 200 friction 0.4" "$work/set.txt" &&
    grep -q "1 pair like floor / box: point stiffness 200000 damping 200 .* friction 0.4 " "$work/set.txt" &&
    grep -q "geoms or pairs set their own friction" "$work/set-err.txt" || return 1
  local bad
  for bad in fric=1 friction=abc geom:nope.friction=1 class:main.friction=1 class:x=1 pair:floor/box.friction=1 \
    geom:box=1 "geom:box.model=rubber"; do
    exits_with 2 "$touche" info "$root/examples/box_slide.xml" --set "$bad" || { echo "$bad"; return 1; }
  done
  exits_with 2 "$touche" run "$root/examples/box_slide.xml" --set geom:box.stiffness=-1 --out "$work/neg"
}
check "--set reaches the scene default and named geoms (info shows per geom and per pair), and rejects what it cannot set" set_targets
set_shapes() { # --set geom:NAME.size|mass|density and body:NAME.mass change what compiles
  "$touche" info "$root/examples/cube_drop.xml" --set geom:cube.size=0.2,0.3,0.1 --set geom:cube.mass=3 \
    >"$work/shape.txt" 2>&1 || { cat "$work/shape.txt"; return 1; }
  # a 3 kg box of half-extents (0.2, 0.3, 0.1): Ixx = m (b^2 + c^2) / 3 = 0.1, Iyy 0.05, Izz 0.13
  grep -q "cube .* mass 3 kg, .* inertia diag (0.1 0.05 0.13)" "$work/shape.txt" &&
    grep -q "cube .*box .* size (0.2 0.3 0.1)" "$work/shape.txt" || { cat "$work/shape.txt"; return 1; }
  "$touche" info "$root/examples/cube_drop.xml" --set geom:cube.density=100 >"$work/density.txt" 2>&1 &&
    grep -q "cube .* mass 800 kg" "$work/density.txt" || { cat "$work/density.txt"; return 1; }
  cat >"$work/inertial.xml" <<'XML'
<mujoco><worldbody><body name="b" pos="0 0 1"><freejoint/>
<inertial pos="0 0 0" mass="2" diaginertia="0.1 0.2 0.3"/><geom name="g" type="sphere" size="0.1"/>
</body></worldbody></mujoco>
XML
  "$touche" info "$work/inertial.xml" --set body:b.mass=4 >"$work/inertial.txt" 2>&1 &&
    grep -q "b .* mass 4 kg, .* inertia diag (0.2 0.4 0.6)" "$work/inertial.txt" || { cat "$work/inertial.txt"; return 1; }
  local bad
  for bad in geom:cube.size=-1 geom:cube.size=a geom:cube.size=1,2,3,4 geom:nope.size=1 geom:cube.mass=1,2 \
    body:cube.mass=2 body:nope.mass=1 body:cube.pos=1; do
    exits_with 2 "$touche" info "$root/examples/cube_drop.xml" --set "$bad" || { echo "$bad"; return 1; }
  done
  exits_with 2 "$touche" info "$work/inertial.xml" --set body:b.mass=0 || return 1
  exits_with 2 "$touche" run "$root/examples/cube_drop.xml" --set geom:cube.mass=-1 --out "$work/negmass"
}
check "--set geom:NAME.size|mass|density and body:NAME.mass change the compiled scene, and bad values exit 2" set_shapes

set_classes() { # --set class:NAME.PARAM acts as the class's <geom> default in the file
  cat >"$work/classes.xml" <<'XML'
<mujoco xmlns:touche="urn:touche">
  <default>
    <geom friction="0.4"/>
    <default class="rubber"><geom friction="0.9"/></default>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="a" pos="0 0 0.1"><freejoint/><geom name="a" class="rubber" type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="b" pos="1 0 0.1"><freejoint/><geom name="b" class="rubber" type="box" size="0.1 0.1 0.1" mass="1" touche:stiffness="1e5"/></body>
    <body name="c" pos="2 0 0.1"><freejoint/><geom name="c" type="box" size="0.1 0.1 0.1" mass="1"/></body>
  </worldbody>
</mujoco>
XML
  "$touche" info "$work/classes.xml" --set class:rubber.stiffness=5e4 --set class:main.damping=7 \
    --set class:rubber.friction=0.8 >"$work/classes.txt" 2>&1 || { cat "$work/classes.txt"; return 1; }
  grep -A1 "^  a  " "$work/classes.txt" | grep -q "own: stiffness 50000 damping 7 friction 0.8" &&
    grep -A1 "^  b  " "$work/classes.txt" | grep -q "own: stiffness 100000 damping 7 friction 0.8" &&
    grep -A1 "^  c  " "$work/classes.txt" | grep -q "own: damping 7 friction 0.4" ||
    { cat "$work/classes.txt"; return 1; }
  exits_with 2 "$touche" info "$work/classes.xml" --set class:nope.friction=1 &&
    grep -q "class 'nope': the scene has no default class" "$work/err.txt" &&
    exits_with 2 "$touche" info "$root/examples/puma560.urdf" --set class:main.friction=1 &&
    grep -q "a URDF robot has no default classes" "$work/err.txt"
}
check "--set class:NAME.PARAM reaches the class's geoms and nested classes, not a geom's own" set_classes

peg_refuses_joints() {
  exits_with 2 "$touche" run "$root/examples/gripper.xml" --contact peg --duration 0.01 \
    --out "$work/peg-joints" &&
    grep -q "the peg contact model with joints (articulated bodies) is not supported yet" "$work/err.txt"
}
check "peg on an articulated scene is refused with exit 2" peg_refuses_joints

keyframes_noted() { # a scene run without --key says which keyframes it has
  "$touche" run "$root/examples/newton_cradle.xml" --duration 0.01 --out "$work/cradle" \
    2>"$work/cradle.txt" >/dev/null &&
    grep -q "the scene's keyframes: launch (--key NAME starts from one)" "$work/cradle.txt" &&
    "$touche" run "$root/examples/newton_cradle.xml" --key launch --duration 0.01 \
      --out "$work/cradle" 2>"$work/cradle.txt" >/dev/null &&
    ! grep -q "keyframes" "$work/cradle.txt"
}
check "run without --key names the scene's keyframes" keyframes_noted

progress_on_stderr() {
  TOUCHE_PROGRESS_DELAY=0 "$touche" run "$root/examples/sphere_bounce.xml" --duration 0.5 \
    --out "$work/progress" 2>"$work/progress.txt" >/dev/null || return 1
  grep -q "^touche run: 50% (" "$work/progress.txt" &&
    grep -q "^touche run: 100% (" "$work/progress.txt" || { cat "$work/progress.txt"; return 1; }
  ! grep -q "%" "$work/progress/trajectory.csv" || return 1
  TOUCHE_PROGRESS_DELAY=0 "$touche" run "$root/examples/sphere_bounce.xml" --duration 0.5 \
    --quiet --out "$work/progress" 2>"$work/quiet.txt" >/dev/null || return 1
  ! grep -q "%" "$work/quiet.txt" || { cat "$work/quiet.txt"; return 1; }
  TOUCHE_PROGRESS_DELAY=0 "$touche" speed "$root/examples/sphere_bounce.xml" --steps 2000 \
    2>"$work/speed.txt" >"$work/speed-out.txt" || return 1
  grep -q "^touche speed: 100% (2000 of 2000 steps" "$work/speed.txt" &&
    ! grep -q "%" "$work/speed-out.txt"
}
check "a progress line per tenth on stderr (not a terminal), none with --quiet or in data" progress_on_stderr

duration_rounding_stated() {
  "$touche" run "$root/examples/box_slide.xml" --dt 0.001 --duration 0.0105 --out "$work/dur" \
    2>"$work/dur.txt" || return 1
  grep -q "the 0.0105 s asked are not a whole number of 0.001 s steps: .* at 0.011 s" "$work/dur.txt" &&
    [[ $(tail -1 "$work/dur/trajectory.csv" | cut -d, -f1) == 0.011* ]] || { cat "$work/dur.txt"; return 1; }
  "$touche" run "$root/examples/box_slide.xml" --dt 0.001 --duration 0.01 --out "$work/dur" \
    2>"$work/dur.txt" && ! grep -q "whole number" "$work/dur.txt"
}
check "a duration that is not a whole number of steps says where the run ended" duration_rounding_stated

# ---- the watch (touche/watch.h) ----
# box_slide's set stiffness outruns the explicit step at dt 0.01: the energy grows from 1.96 J
# to over 1000 J without input. One warning naming the box, the pair and the time.
watch_warns_once() {
  "$touche" run "$root/examples/box_slide.xml" --dt 0.01 --duration 5 --out "$work/bs" \
    2>"$work/bs.txt" || { cat "$work/bs.txt"; return 1; }
  [[ $(grep -c "warning: t = " "$work/bs.txt") -eq 1 ]] || { cat "$work/bs.txt"; return 1; }
  grep -q "warning: t = .* s: the energy grew .* body 'box' .* pair 'floor'/'box'" "$work/bs.txt" &&
    grep -q "warnings 1; energy gain: 1" "$work/bs.txt" || { cat "$work/bs.txt"; return 1; }
}
check "the watch warns once when box_slide gains energy at dt 0.01" watch_warns_once

strict_exits_3() {
  exits_with 3 "$touche" run "$root/examples/box_slide.xml" --dt 0.01 --duration 5 --strict \
    --out "$work/strict" || return 1
  grep -q "the energy grew" "$work/err.txt" && grep -q -- "--strict" "$work/err.txt" &&
    [[ ! -e "$work/strict/trajectory.csv" && -s "$work/strict/trajectory.partial.csv" ]] &&
    [[ -s "$work/strict/contacts.partial.jsonl" ]] && grep -q "trajectory.partial.csv" "$work/err.txt"
}
check "run --strict exits 3 at the watch's warning and keeps what it wrote as .partial" strict_exits_3

# SIGINT part-way: exit 130, the trajectory up to the state it stopped at kept as .partial, a
# stale complete trajectory of an earlier run removed.
interrupt_keeps_partial() {
  local out="$work/int" pid i
  mkdir -p "$out" && echo stale >"$out/trajectory.csv"
  "$touche" run "$root/examples/pile100.xml" --duration 1000 --out "$out" 2>"$work/int.txt" &
  pid=$!
  for i in $(seq 100); do
    ls "$out"/trajectory.csv.tmp* >/dev/null 2>&1 && break
    sleep 0.1
  done
  sleep 0.3
  kill -INT "$pid"
  wait "$pid"
  [[ $? -eq 130 ]] || { cat "$work/int.txt"; return 1; }
  grep -q "interrupted at t = " "$work/int.txt" && grep -q "trajectory.partial.csv" "$work/int.txt" &&
    [[ ! -e "$out/trajectory.csv" && $(wc -l <"$out/trajectory.partial.csv") -gt 100 ]] &&
    ! ls "$out"/*.tmp* >/dev/null 2>&1 || { cat "$work/int.txt"; ls "$out"; return 1; }
  /usr/bin/python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' "$out/contacts.partial.jsonl"
}
check "an interrupted run exits 130 and keeps what it wrote as .partial" interrupt_keeps_partial
# A stiffness of 1e12 N/m at dt 0.01 with the explicit step throws the box away at once.
diverged_keeps_partial() {
  exits_with 3 "$touche" run "$root/examples/box_slide.xml" --key launch --integrator Euler \
    --set 'geom:*.stiffness=1e12' --set 'geom:*.damping=0' --dt 0.01 --out "$work/dv" || return 1
  grep -q "diverged" "$work/err.txt" && grep -q "trajectory.partial.csv" "$work/err.txt" &&
    [[ $(wc -l <"$work/dv/trajectory.partial.csv") -ge 2 && -e "$work/dv/contacts.partial.jsonl" ]]
}
check "a diverged run exits 3 and keeps what it wrote as .partial" diverged_keeps_partial

# Every example at its own settings, long enough for its first impacts (the pressure scenes,
# slow to step, for 0.1 s); --strict makes a warning fail. torus_ball needs its tet mesh made
# first: test_mesh_cli runs it with --strict.
examples_are_silent() {
  local scene name seconds key keys
  for scene in "$root"/examples/*.xml; do
    name=$(basename "$scene" .xml)
    case $name in
      torus_ball) continue ;;
      pressure_boxes | pressure_spheres) seconds=0.1 ;;
      pile100 | pressure_ball | newton_cradle) seconds=0.5 ;;
      *) seconds=1.5 ;;
    esac
    keys=$(grep -o '<key name="[A-Za-z0-9_]*"' "$scene" | cut -d'"' -f2)
    for key in "" $keys; do
      "$touche" run "$scene" ${key:+--key "$key"} --duration "$seconds" --strict \
        --out "$work/silent" 2>"$work/silent.txt" ||
        { echo "$name ${key:+(key $key)}:"; cat "$work/silent.txt"; return 1; }
    done
  done
}
check "the watch stays silent on every example" examples_are_silent

cradle_passes_momentum() {
  "$touche" run "$root/examples/newton_cradle.xml" --key launch --duration 0.5 --out "$work/cradle" \
    2>/dev/null || return 1
  /usr/bin/python3 - "$work/cradle/trajectory.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
last = {r["body"]: float(r["vx"]) for r in rows}
assert abs(last["ball5"] - 1.0) < 0.03, last        # the last ball leaves at the first's speed
assert all(abs(last[b]) < 0.03 for b in ("ball1", "ball2", "ball3", "ball4")), last
PY
}
check "the lcp Newton's cradle passes the first ball's momentum to the last" cradle_passes_momentum

islands_residuals_recompute() {
  "$touche" islands "$root/examples/stack13.xml" "$work/islands.jsonl" --steps 2 --contact lcp \
    2>/dev/null || return 1
  /usr/bin/python3 - "$work/islands.jsonl" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert [(p["step"], p["island"]) for p in lines] == [(1, 0), (2, 0)], lines
for p in lines:
    n, M, q, z = p["n"], p["M"], p["q"], p["z"]
    assert p["path"] == "pgs" and n == 156 and len(M) == n * n
    worst = 0.0
    for i in range(n):
        w = q[i] + sum(M[i * n + j] * z[j] for j in range(n))
        k = p["normal_index"][i]
        scale = max(z[k], 0.0) if k >= 0 else 1.0
        lo = p["lo"][i] * scale
        hi = float("inf") if p["hi"][i] is None else p["hi"][i] * scale
        worst = max(worst, abs(z[i] - min(max(z[i] - w, lo), hi)))
    assert abs(worst - p["residual"]) <= 1e-12, (worst, p["residual"])
PY
}
check "islands writes the lcp problems, whose residual recomputes" islands_residuals_recompute
check "islands without an output file exits 2" exits_with 2 "$touche" islands "$root/examples/stack13.xml"
islands_without_lcp_pairs() {
  exits_with 2 "$touche" islands "$root/examples/stack13.xml" "$work/none.jsonl" || return 1
  grep -q "no pair that uses the lcp model" "$work/err.txt" && [[ ! -e "$work/none.jsonl" ]]
}
check "islands on a scene without lcp pairs exits 2 and writes nothing" islands_without_lcp_pairs
islands_bad_scene_leaves_nothing() {
  echo "<mujoco><worldbody><body>" >"$work/broken.xml"
  "$touche" islands "$work/broken.xml" "$work/never.jsonl" 2>/dev/null
  [[ $? -eq 2 && ! -e "$work/never.jsonl" ]] && ! ls "$work"/never.jsonl.tmp* >/dev/null 2>&1
}
check "islands on a broken scene exits 2 and writes nothing" islands_bad_scene_leaves_nothing

export_round_trip() {
  "$touche" export-mjcf "$root/examples/stack13.xml" "$work/plain.xml" 2>/dev/null || return 1
  ! grep -q "touche" "$work/plain.xml" || return 1
  "$touche" info "$work/plain.xml" >/dev/null
}
check "export-mjcf writes a file without touche attributes that loads again" export_round_trip

pressure_patches() {
  sed 's/pos="0 0 0.3"/pos="0 0 0.095"/' "$root/examples/pressure_ball.xml" >"$work/pb.xml"
  "$touche" query "$work/pb.xml" >"$work/pq.json" || return 1
  /usr/bin/python3 - "$work/pq.json" <<'PY' || return 1
import json, sys
pair = json.load(open(sys.argv[1]))["pairs"][0]
assert pair["model"] == "pressure", pair["model"]
assert pair["polygon_count"] > 10 and pair["area"] > 0 and pair["max_pressure"] > 0
assert pair["elastic_energy"] > 0 and pair["force"][2] > 0
assert len(pair["polygons"]) == pair["polygon_count"]
PY
  "$touche" run "$work/pb.xml" --duration 0.01 --every 10 --out "$work/pr" --vtk "$work/vtk" 2>/dev/null || return 1
  [[ -f "$work/vtk/run.pvd" ]] && grep -q 'Name="pressure"' "$work/vtk/patches_000000.vtp"
}
check "pressure query reports the patch, run --vtk writes it" pressure_patches

rigid_pairs_fall_back() {
  cat >"$work/rr.xml" <<'XML'
<mujoco xmlns:touche="urn:touche">
  <option touche:contact="pressure"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" touche:rigid="true"/></body>
  </worldbody>
</mujoco>
XML
  "$touche" info "$work/rr.xml" | grep -q "1 pressure pairs of two rigid geoms use the point model"
}
check "info says when rigid pressure pairs fall back to point" rigid_pairs_fall_back

same_for_every_thread_count() {
  local scene="$root/examples/pressure_spheres.xml" n
  for n in 1 2 3; do
    "$touche" run "$scene" --duration 0.01 --every 1 --threads "$n" --out "$work/threads$n" \
      2>/dev/null || return 1
  done
  for n in 2 3; do
    cmp "$work/threads1/trajectory.csv" "$work/threads$n/trajectory.csv" &&
      cmp "$work/threads1/contacts.jsonl" "$work/threads$n/contacts.jsonl" || return 1
  done
}
check "pressure pairs on 1, 2 or 3 threads give byte-identical outputs" same_for_every_thread_count
check "a bad thread count exits 2" exits_with 2 "$touche" run "$root/examples/stack13.xml" --threads 0

finish
