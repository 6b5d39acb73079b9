#!/usr/bin/env bash
# touche haptic through the command: the example with a scripted hand and the model device,
# JSON, bit-identical force logs, playback of a force log, and bad input.
# Usage: test_haptic_cli.sh TOUCHE SOURCE_DIR [SANITIZED (1: a sanitizer build)]
set -u
touche=$1
root=$2
sanitized=${3:-0}
source "$root/tests/scenes/check.sh"
scene="$root/examples/haptic_coupling.xml"
script="$root/examples/haptic_press.csv"

json_has_ledger() {
  "$touche" haptic "$scene" --device "scripted:$script" --duration 1.6 --out "$work/a" --json \
    >"$work/a.json" 2>/dev/null || return 1
  /usr/bin/python3 - "$work/a.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for key in ("energy_in_J", "energy_out_J", "energy_dissipated_J", "ticks", "tick_p99_us",
            "overruns", "faults"):
    assert key in r, key
assert r["ticks"] == 1600 and r["energy_in_J"] > 0 and r["faults"] == 0, r
PY
}
check "haptic --json prints the ledger and tick statistics" json_has_ledger

identical_logs() {
  "$touche" haptic "$scene" --device "scripted:$script" --duration 1.6 --out "$work/b" \
    >/dev/null 2>&1 || return 1
  head -1 "$work/a/forces.csv" | grep -q "^time,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,fx,fy,fz" || return 1
  [[ $(wc -l <"$work/a/forces.csv") -eq 1601 ]] && cmp "$work/a/forces.csv" "$work/b/forces.csv"
}
check "the same scene, script and rate give bit-identical force logs" identical_logs

playback_repeats() {
  "$touche" haptic "$scene" --device "playback:$work/a/forces.csv" --duration 1.6 \
    --out "$work/c" >/dev/null 2>&1 || return 1
  cmp "$work/a/forces.csv" "$work/c/forces.csv"
}
check "playing back a force log gives the same force log" playback_repeats

model_device_runs() {
  "$touche" haptic "$scene" --device model --rate 2000 --duration 0.5 --out "$work/d" \
    >"$work/d.txt" 2>/dev/null && grep -q "^energy" "$work/d.txt"
}
check "the model device runs at 2 kHz" model_device_runs

# --realtime refused: the requests run without CAP_SYS_NICE and CAP_IPC_LOCK (dropped from the
# bounding set, so even root lacks them) and with RLIMIT_RTPRIO and RLIMIT_MEMLOCK at 0; both
# refusals are printed with their reasons and the loop runs on the normal scheduler. (AddressSanitizer
# makes mlockall a no-op that succeeds: there only the SCHED_FIFO refusal is checked.)
refusals_are_reported() {
  local run=(prlimit --memlock=0 --rtprio=0)
  if setpriv --bounding-set -sys_nice,-ipc_lock true 2>/dev/null; then
    run+=(setpriv --bounding-set -sys_nice,-ipc_lock --inh-caps=-all)
  elif [[ $(id -u) -eq 0 ]]; then
    echo "skipped: root that cannot drop capabilities"
    return 0
  fi
  "${run[@]}" "$touche" haptic "$scene" --device "scripted:$script" --duration 0.05 --realtime \
    --out "$work/rt" >"$work/rt.txt" 2>/dev/null || return 1
  grep "^real time" "$work/rt.txt"
  if [[ $sanitized != 1 ]]; then
    grep -q "^real time *SCHED_FIFO 80 off, memory not locked; refused: " "$work/rt.txt" &&
      grep -q "mlockall: not permitted (needs CAP_IPC_LOCK" "$work/rt.txt" || return 1
  fi
  grep -q "^real time *SCHED_FIFO 80 off, .*SCHED_FIFO: not permitted (needs CAP_SYS_NICE" \
    "$work/rt.txt" &&
    grep -q "^ticks *50 at" "$work/rt.txt" && [[ $(wc -l <"$work/rt/forces.csv") -eq 51 ]] &&
    "${run[@]}" "$touche" haptic "$scene" --device "scripted:$script" --duration 0.05 \
      --realtime --json --out "$work/rt" 2>/dev/null |
    /usr/bin/python3 -c '
import json, sys
r = json.load(sys.stdin)
assert not r["sched_fifo"] and r["ticks"] == 50, r
assert sys.argv[1] == "1" or not r["memory_locked"], r
assert "SCHED_FIFO: not permitted" in r["realtime_refused"], r' "$sanitized"
}
if command -v prlimit >/dev/null && command -v setpriv >/dev/null; then
  check "refused SCHED_FIFO and mlockall are reported and the loop runs on" refusals_are_reported
fi

# The proxy pushing a free box on two threads (the wall clock): the box's pose between steps is
# extrapolated from the step ahead of the ticks, so the push is felt as on the simulated clock
# (about 11 N at its peak) whatever the wall clock's offset from the scene's time.
proxy_pushes_a_box_on_threads() {
  cat >"$work/push.xml" <<'XML'
<mujoco xmlns:touche="urn:touche"><option gravity="0 0 0" timestep="0.005"/><worldbody>
<body name="box" pos="0.05 0 0"><freejoint/><geom type="box" size="0.02 0.02 0.02" mass="0.5"/></body>
<body name="hand" pos="-0.05 0 0" mocap="true" touche:haptic="proxy" touche:proxy_radius="0.005"
 touche:linear_stiffness="1000"/></worldbody></mujoco>
XML
  printf 'time,x,y,z\n0,-0.05,0,0\n0.2,0.06,0,0.005\n' >"$work/push.csv"
  "$touche" haptic "$work/push.xml" --device "scripted:$work/push.csv" --duration 0.3 \
    --realtime --out "$work/push" >/dev/null 2>&1 || return 1
  awk -F, 'NR > 1 && $15 < -8 { felt = 1 } END { exit !felt }' "$work/push/forces.csv"
}
check "the proxy pushes a free box on two threads" proxy_pushes_a_box_on_threads

printf 'time,x,y,z\n0,0,0,0.12\n0.1,0,0\n' >"$work/bad.csv"
bad_script_names_line() {
  exits_with 2 "$touche" haptic "$scene" --device "scripted:$work/bad.csv" --out "$work/e" &&
    grep -q "bad.csv:3" "$work/err.txt" && [[ ! -e "$work/e/forces.csv" ]]
}
check "a bad script fails with its file and line" bad_script_names_line
check "an unknown device exits 2" exits_with 2 "$touche" haptic "$scene" --device glove
spacemouse_fails_clearly() { # without libspnav in the build or a spacenavd daemon: at once
  exits_with 2 timeout 10 "$touche" haptic "$scene" --device spacemouse --realtime &&
    grep -Eq "spacemouse: .*(built without libspnav|spacenavd daemon)" "$work/err.txt"
}
if [[ ! -S /var/run/spnav.sock ]]; then
  check "--device spacemouse without libspnav or spacenavd fails with the reason" \
    spacemouse_fails_clearly
fi
check "a missing device exits 2" exits_with 2 "$touche" haptic "$scene"
proxy_example_runs() {
  "$touche" haptic "$root/examples/haptic_proxy.xml" \
    --device "scripted:$root/examples/haptic_proxy_path.csv" --duration 1.8 --out "$work/p" \
    --json >"$work/p.json" 2>/dev/null || return 1
  /usr/bin/python3 - "$work/p.json" "$work/p/forces.csv" <<'PY'
import csv, json, sys
r = json.load(open(sys.argv[1]))
assert r["ticks"] == 1800 and r["faults"] == 0, r
rows = list(csv.DictReader(open(sys.argv[2])))
# at 0.2 s the hand is 2 mm into the block's top: 4000 N/m (the scripted spec) x 2 mm up
row = rows[200]
assert abs(float(row["fz"]) - 8) < 1e-6 and abs(float(row["fx"])) < 1e-9, row
PY
}
check "the proxy example renders k times the depth on the block" proxy_example_runs
check "a scene without a haptic body exits 2" \
  exits_with 2 "$touche" haptic "$root/examples/stack13.xml" --device model --out "$work/f"
check "a rate that does not divide the step exits 2" \
  exits_with 2 "$touche" haptic "$scene" --device model --rate 300 --out "$work/g"
finish
