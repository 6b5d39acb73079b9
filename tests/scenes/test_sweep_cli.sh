#!/usr/bin/env bash
# touche sweep (docs/sweeps.md). Usage: test_sweep_cli.sh TOUCHE SOURCE_DIR. A sweep killed
# with SIGKILL midway and run again writes exactly the results of an uninterrupted one; 1 and
# 2 processes, 2 shards (merged, or concatenated) and 2 MPI ranks give identical rows; the
# same sweep in TOML and JSON gives the same rows; a failing job is a row with its error and
# the others run; corrupt specs and recordings are refused naming the file and line; a run
# scored against its own recording has no trajectory error. Prints one line per check and
# ends with "N passed, N failed".
set -u
touche=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
have_mpi=${3:-}
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"

cat >"$work/slide.xml" <<'XML'
<mujoco xmlns:touche="urn:touche">
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="box" pos="0 0 0.1"><freejoint/>
      <geom name="box" type="box" size="0.1 0.1 0.1" mass="2"/></body>
  </worldbody>
  <keyframe><key name="launch" qpos="0 0 0.099995 1 0 0 0" qvel="2 0 0 0 0 0"/></keyframe>
</mujoco>
XML

# 12 jobs: 3 frictions x 2 speeds x 2 seeded draws of the box's sideways speed.
cat >"$work/sweep.toml" <<'TOML'
scene = "slide.xml"   # relative to this file
seed = 11
samples = 2
metrics = ["final_pose:box", "max_penetration", "energy_change", "time_at_rest",
           "contact_force:box"]

[run]
duration = 0.3
key = "launch"

[[parameters]]
target = "geom:*.friction"
values = [0.2, 0.5, 0.8]

[[parameters]]
target = "body:box.vel.x"
grid = { from = 0.5, to = 2.0, count = 2 }

[[parameters]]
name = "sideways"
target = "body:box.vel.y"
normal = [0.0, 0.1]
TOML

cat >"$work/sweep.json" <<'JSON'
{
  "scene": "slide.xml",
  "seed": 11,
  "samples": 2,
  "metrics": ["final_pose:box", "max_penetration", "energy_change", "time_at_rest",
              "contact_force:box"],
  "run": {"duration": 0.3, "key": "launch"},
  "parameters": [
    {"target": "geom:*.friction", "values": [0.2, 0.5, 0.8]},
    {"target": "body:box.vel.x", "grid": {"from": 0.5, "to": 2.0, "count": 2}},
    {"name": "sideways", "target": "body:box.vel.y", "normal": [0.0, 0.1]}
  ]
}
JSON

same_results() { # same_results DIR_A DIR_B [BASE_B]
  cmp "$1/results.csv" "$2/${3:-results}.csv" && cmp "$1/results.jsonl" "$2/${3:-results}.jsonl"
}

"$touche" sweep "$work/sweep.toml" --jobs 2 --out "$work/ref" 2>/dev/null

reference_is_sound() {
  [[ $(wc -l <"$work/ref/results.csv") -eq 13 && $(wc -l <"$work/ref/results.jsonl") -eq 12 ]] &&
    [[ $(grep -c ',ok,' "$work/ref/results.csv") -eq 12 ]] &&
    head -1 "$work/ref/results.csv" | grep -q '^job,id,status,error,geom:\*.friction,body:box.vel.x,sideways,final.box.x,' &&
    # more friction stops the box sooner: job 2 (mu 0.2) slides further than job 10 (mu 0.8)
    awk -F, 'NR == 4 {a = $8} NR == 12 {b = $8} END {exit !(a > b)}' "$work/ref/results.csv"
}
check "12 jobs, one row each in job order" reference_is_sound

check "one process gives the rows of two" eval \
  '"$touche" sweep "$work/sweep.toml" --jobs 1 --out "$work/one" 2>/dev/null && same_results "$work/ref" "$work/one"'
check "the JSON spec gives the rows of the TOML one" eval \
  '"$touche" sweep "$work/sweep.json" --jobs 2 --out "$work/json" 2>/dev/null && same_results "$work/ref" "$work/json"'

# The kill needs jobs long enough that an idle machine does not finish all 12 before it: the
# same sweep with 10 s runs (5000 steps a job).
sed 's/^duration = 0.3$/duration = 10.0/' "$work/sweep.toml" >"$work/slow.toml"

killed_and_resumed() {
  "$touche" sweep "$work/slow.toml" --jobs 2 --out "$work/slowref" 2>/dev/null || return 1
  "$touche" sweep "$work/slow.toml" --jobs 1 --out "$work/killed" 2>/dev/null &
  local pid=$! rows=()
  shopt -s nullglob
  # no command in the loop: a fork per look would let the 12 jobs finish before the kill
  while ((${#rows[@]} < 3)) && kill -0 $pid 2>/dev/null; do
    rows=("$work/killed/rows/"*.row)
  done
  kill -KILL $pid
  wait $pid 2>/dev/null
  rows=$(ls "$work/killed/rows" | grep -c '\.row$')
  echo "killed after $rows rows"
  [[ $rows -ge 3 && $rows -lt 12 && ! -e "$work/killed/results.csv" ]] || return 1
  "$touche" sweep "$work/slow.toml" --jobs 2 --out "$work/killed" 2>/dev/null &&
    same_results "$work/slowref" "$work/killed"
}
check "a sweep killed midway (SIGKILL) resumes to the same results" killed_and_resumed

sharded() {
  "$touche" sweep "$work/sweep.toml" --shard 0/2 --jobs 1 --out "$work/shards" 2>/dev/null &&
    "$touche" sweep "$work/sweep.toml" --shard 1/2 --jobs 1 --out "$work/shards" 2>/dev/null &&
    { head -1 "$work/shards/shard-0-of-2.csv"; tail -n +2 -q "$work/shards/shard-0-of-2.csv" \
        "$work/shards/shard-1-of-2.csv"; } >"$work/shards/concatenated.csv" &&
    cmp "$work/ref/results.csv" "$work/shards/concatenated.csv" &&
    "$touche" sweep "$work/sweep.toml" --merge --out "$work/shards" 2>/dev/null &&
    same_results "$work/ref" "$work/shards"
}
check "2 shards, merged or concatenated, give the same rows" sharded
check "merging before every shard ran names the missing jobs" eval \
  'rm -rf "$work/half" && "$touche" sweep "$work/sweep.toml" --shard 0/2 --out "$work/half" 2>/dev/null;
   exits_with 1 "$touche" sweep "$work/sweep.toml" --merge --out "$work/half" &&
   grep -q "6 of jobs 0 to 11 have no row.*the first: job 6" "$work/err.txt"'

mpi() {
  # OpenMPI's own allocations are not this test's leaks (ASan builds)
  export ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_warn_on_fork=0 \
    OMPI_MCA_btl=self,vader OMPI_MCA_plm=isolated OMPI_MCA_rmaps_base_oversubscribe=1
  timeout 120 mpirun -n 2 "$touche" sweep --mpi "$work/sweep.toml" --out "$work/mpi" &&
    same_results "$work/ref" "$work/mpi"
}
if [[ $have_mpi != 1 && $have_mpi != TRUE ]] || ! command -v mpirun >/dev/null; then
  echo "skip 2 MPI ranks give the same rows (touche built without MPI, or no mpirun)"
  check "--mpi says touche was built without MPI" eval \
    'exits_with 2 "$touche" sweep --mpi "$work/sweep.toml" --out "$work/nompi" &&
     grep -q "built without MPI" "$work/err.txt"'
else
  check "2 MPI ranks give the same rows" mpi
fi

# A bad value of one job is that job's row; divergence too; the others run.
cat >"$work/failing.json" <<'JSON'
{"scene": "slide.xml", "run": {"duration": 0.05, "key": "launch"},
 "parameters": [{"target": "geom:box.stiffness", "values": [1e5, -5, 1e30]},
                {"target": "contact", "values": ["point"]}],
 "metrics": ["final_pose:box"]}
JSON
failing_jobs() {
  "$touche" sweep "$work/failing.json" --out "$work/failing" 2>/dev/null || return 1
  local csv=$work/failing/results.csv
  sed -n 2p "$csv" | grep -q '^0,[0-9a-f]*,ok,,' &&
    sed -n 3p "$csv" | grep -q '^1,[0-9a-f]*,failed,"cannot compile the scene: .*slide.xml:6: .*stiffness must be > 0' &&
    sed -n 4p "$csv" | grep -q '^2,[0-9a-f]*,diverged,the simulation diverged' &&
    grep -q '"job":1,.*"status":"failed","error":"cannot compile' "$work/failing/results.jsonl" &&
    # run again, the failed rows are kept (not run again) and counted
    "$touche" sweep "$work/failing.json" --out "$work/failing" 2>"$work/again.txt" &&
    grep -q "ran 0 of 3 jobs" "$work/again.txt" && grep -q "3 rows, 2 not ok" "$work/again.txt"
}
check "a failing and a diverging job are rows with their errors" failing_jobs

# option: targets reach the scene: without gravity the floor holds nothing back, so the box
# slides further; a tolerance out of range is that job's error.
cat >"$work/options.json" <<'JSON'
{"scene": "slide.xml", "run": {"duration": 0.2, "key": "launch"},
 "parameters": [{"target": "option:gravity.z", "values": [-9.81, 0]},
                {"target": "option:rtol", "values": [1e-4, 5]}],
 "metrics": ["final_pose:box"]}
JSON
options_reach_the_scene() {
  "$touche" sweep "$work/options.json" --out "$work/options" 2>/dev/null || return 1
  local csv=$work/options/results.csv
  awk -F, 'NR == 2 {a = $7} NR == 4 {b = $7} END {exit !(b > a + 0.01)}' "$csv" &&
    sed -n 3p "$csv" | grep -q ',failed,.*rtol' && sed -n 5p "$csv" | grep -q ',failed,.*rtol'
}
check "option: targets reach the scene" options_reach_the_scene

# Shapes and masses are --set targets too: a box of half-size 0.05 set at z = 0.1 falls onto
# the floor (its centre ends near 0.05), one of 0.1 rests where it is; body:NAME.mass needs an
# <inertial>, so that job fails with the reason and the others run.
cat >"$work/shapes.json" <<'JSON'
{"scene": "slide.xml", "run": {"duration": 0.5},
 "parameters": [{"target": "geom:box.size", "values": [[0.05, 0.05, 0.05], [0.1, 0.1, 0.1]]},
                {"target": "geom:box.mass", "values": [0.5, 2]}],
 "metrics": ["final_pose:box"]}
JSON
shapes_reach_the_scene() {
  "$touche" sweep "$work/shapes.json" --out "$work/shapes" 2>/dev/null || return 1
  local csv=$work/shapes/results.csv
  awk -F, 'NR == 1 {for (i = 1; i <= NF; ++i) if ($i == "final.box.z") z = i}
           NR >= 2 && NR <= 3 && ($z < 0.045 || $z > 0.055) {bad = 1}
           NR >= 4 && ($z < 0.095 || $z > 0.105) {bad = 1}
           END {exit bad || NR != 5}' "$csv" || { cat "$csv"; return 1; }
  printf '{"scene": "slide.xml", "parameters": [{"target": "body:box.mass", "values": [1]}],
           "metrics": ["final_pose:box"]}' >"$work/bodymass.json"
  "$touche" sweep "$work/bodymass.json" --out "$work/bodymass" 2>/dev/null
  sed -n 2p "$work/bodymass/results.csv" | grep -q ',failed,.*inertial'
}
check "geom size and mass targets reach the scene; a body mass without <inertial> is that job's error" \
  shapes_reach_the_scene

# Gradients: a box launched at v0 slides d = v0^2 / (2 mu g), so dd/dmu = -d/mu and
# dd/dv0 = 2 d / v0; the sweep's centred differences match both to 1% (forward to 2%).
cat >"$work/gradient.toml" <<'TOML'
scene = "slide.xml"
metrics = ["final_pose:box"]
run = { duration = 0.5, key = "launch", contact = "lcp" }
[[parameters]]
name = "mu"
target = "geom:*.friction"
values = [0.5, 0.8]
[[parameters]]
name = "v0"
target = "body:box.vel.x"
values = [2.0]
[gradient]
of = ["mu", "v0"]
TOML
sed 's/^of = .*/of = ["mu", "v0"]\nscheme = "forward"\neps = 1e-4/' "$work/gradient.toml" >"$work/forward.toml"
gradients_match_the_closed_form() {
  local spec tol
  for spec in gradient:0.01 forward:0.02; do
    tol=${spec#*:}
    "$touche" sweep "$work/${spec%%:*}.toml" --out "$work/${spec%%:*}" 2>/dev/null || return 1
    awk -F, -v tol="$tol" '
      NR == 1 {for (i = 1; i <= NF; ++i) col[$i] = i; next}
      {d = $col["final.box.x"]; mu = $col["mu"]; v = $col["v0"]
       a = $col["d(final.box.x)/d(mu)"]; b = $col["d(final.box.x)/d(v0)"]
       if ($3 != "ok" || (a + d / mu) ^ 2 > (tol * d / mu) ^ 2 || (b - 2 * d / v) ^ 2 > (tol * 2 * d / v) ^ 2) bad = 1}
      END {exit bad || NR != 3}' "$work/${spec%%:*}/results.csv" || { cat "$work/${spec%%:*}/results.csv"; return 1; }
  done
}
check "sweep gradients match the sliding box's closed form (centred and forward)" gradients_match_the_closed_form

# Scored against a recording of itself, a run has no trajectory error; a corrupt recording
# is refused naming its line.
"$touche" run "$work/slide.xml" --key launch --duration 0.2 --no-contacts --out "$work/rec" 2>/dev/null
cat >"$work/traj.toml" <<'TOML'
scene = "slide.xml"
metrics = [{ kind = "trajectory_error", body = "box", recording = "rec/trajectory.csv" }]
run = { duration = 0.2, key = "launch" }
TOML
check "a run against its own recording has no trajectory error" eval \
  '"$touche" sweep "$work/traj.toml" --out "$work/traj" 2>/dev/null &&
   sed -n 2p "$work/traj/results.csv" | grep -q ",ok,,0,0,0$"'

# refused SPEC PATTERN: exit 2 and "touche sweep: SPEC:PATTERN"
refused() {
  exits_with 2 "$touche" sweep "$work/$1" --out "$work/refused" || return 1
  grep -qF "touche sweep: $work/$1:$2" "$work/err.txt" || { cat "$work/err.txt"; return 1; }
}
printf 'scene = "slide.xml"\nmetrics = ["final_pose:box"]\n[[parameters]]\ntarget = "contact"\nvalues = ["lcp"]\n[gradient]\nof = ["contact"]\n' >"$work/gradtext.toml"
check "a gradient of a text parameter is refused with its line" refused gradtext.toml \
  "7: gradient of 'contact': only a parameter of one number"
printf 'scene = "slide.xml"\nmetrics = ["final_pose:box"]\n[gradient]\nof = ["mu"]\n' >"$work/gradname.toml"
check "a gradient of an unknown parameter is refused with its line" refused gradname.toml \
  "4: gradient of 'mu': no parameter has that name"
printf 'scene = "slide.xml"\nmetrics = ["max_penetration"]\n[run]\nduration = 0.1\nduration = 0.2\n' >"$work/dup.toml"
check "a duplicate TOML key is refused with its line" refused dup.toml '5: duplicate key "duration"'
printf '{\n "scene": "slide.xml",\n "metrics": ["max_penetration",]\n}\n' >"$work/comma.json"
check "a JSON trailing comma is refused with its line" refused comma.json '3: a trailing comma'
printf '{"scene": "slide.xml",\n\n "metrics": ["bogus"]}\n' >"$work/metric.json"
check "an unknown metric is refused with its line" refused metric.json "3: unknown metric 'bogus'"
printf 'scene = "slide.xml"\nmetrics = ["max_penetration"]\n[[parameters]]\ntarget = "friction"\ngrid = {from = 0, to = 1}\n' >"$work/grid.toml"
check "a grid without a count is refused with its line" refused grid.toml '5: grid needs from, to and count'
printf 'scene = "slide.xml"\nmetrics = ["max_penetration"]\n\n[[parameters]]\ntarget = "body:box.spin"\nvalues = [1]\n' >"$work/field.toml"
check "an unknown body field is refused with its line" refused field.toml "5: unknown body field 'spin'"
printf 'scene = "slide.xml"\nmetrics = ["max_penetration"]\nmetric = 3\n' >"$work/key.toml"
check "an unknown key is refused with its line" refused key.toml '3: unknown key "metric"'
printf 'scene = "slide.xml\n' >"$work/string.toml"
check "an unterminated string is refused with its line" refused string.toml '1: unterminated string'
printf 'time,body,x,y,z,qw,qx,qy,qz\n0,box,0,0,0.1,1,0,0,0\n0.1,box,0,0,zz,1,0,0,0\n' >"$work/bad.csv"
printf '{"scene": "slide.xml",\n "metrics": [{"kind": "trajectory_error", "body": "box", "recording": "bad.csv"}]}\n' >"$work/rec.json"
check "a corrupt recording is refused naming its file and line" refused rec.json \
  "2: cannot use the recording: $work/bad.csv:3: expected numbers"
check "--shard needs I/N" exits_with 2 "$touche" sweep "$work/sweep.toml" --shard 2/2

finish
