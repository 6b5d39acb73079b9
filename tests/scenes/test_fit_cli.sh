#!/usr/bin/env bash
# touche fit (docs/fit.md). Usage: test_fit_cli.sh TOUCHE SOURCE_DIR. Synthetic recordings of
# examples/ball_toss.xml made by touche run itself, with motion-capture noise added
# (tools/mocap_noise.awk: 0.5 mm, 0.5 deg, poses only): the fit recovers the friction within
# 0.01 and the restitution within 0.02 (lcp and point), and the friction within 0.01
# and the damping within 10% (point and volume under Euler); a noiseless run with
# its velocity columns is a valid recording that the true parameters match to round-off; corrupt
# recordings are refused with exit 2 and a message naming the file and line; query
# --derivatives prints the step's derivatives. Short tosses,
# two recordings and small budgets keep each fit near a second. Ends with "N passed, N failed".
set -u
touche=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"
scene=$root/examples/ball_toss.xml

# record MODEL DIR "KEYS" SETTINGS...: DIR/KEY.csv for each toss, 0.6 s at 250 Hz, with noise
record() {
  local model=$1 dir=$2 keys=$3
  shift 3
  mkdir -p "$dir"
  for key in $keys; do
    "$touche" run "$scene" --key $key --contact "$model" "$@" --duration 0.6 --every 2 \
      --no-contacts --out "$work/run" 2>/dev/null || return 1
    awk -v seed=${#key}${key: -1} -f "$root/tools/mocap_noise.awk" "$work/run/trajectory.csv" \
      >"$dir/$key.csv"
  done
}

# value NAME: the fitted value of parameter NAME in $work/fit.json
value() {
  grep -o "\"target\":\"$1\",\"value\":[^,]*" "$work/fit.json" | sed 's/.*"value"://'
}

# near A B TOLERANCE: |A - B| <= TOLERANCE
near() {
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }' ||
    { echo "got $1, expected $2 within $3"; return 1; }
}

# recovers MODEL "KEYS" SECOND TOLERANCE SETTINGS...: friction 0.4 and SECOND (restitution 0.5
# or damping 20) fitted back from noisy recordings of the tosses KEYS
recovers() {
  local model=$1 keys=$2 second=$3 tolerance=$4
  shift 4
  local truth=0.5 range=0.2:0.8
  [[ $second == damping ]] && truth=20 range=10:40
  record "$model" "$work/$model" "$keys" "$@" --set friction=0.4 --set $second=$truth || return 1
  "$touche" fit "$scene" --data "$work/$model" --contact "$model" "$@" \
    --params friction=0.2:0.8,$second=$range --holdout 0 --sweep 4 --evals 60 --json \
    >"$work/fit.json" || return 1
  near "$(value friction)" 0.4 0.01 && near "$(value $second)" $truth "$tolerance"
}

# (The point model's bounce at this step depends on where in a step the ball lands: a noisy
# start of toss1 alone puts its damping 20% off in one noise draw of six, so it fits the
# skidding tosses; docs/fit.md, "What the fit can tell".)
check "lcp: friction and restitution recovered" recovers lcp "toss1 toss3" restitution 0.02
check "point: friction and damping recovered" recovers point "toss2 toss3" damping 2 \
  --integrator Euler --set stiffness=1e4
check "volume: friction and damping recovered" recovers volume "toss1 toss3" damping 2 \
  --integrator Euler --set stiffness=1e4 --set resolution=0.03
# The point model's restitution (contact/restitution.h) at its default material and
# integrator: a velocity target, so the same recovery as lcp's. (volume's is recovered from
# bench/fit/run.sh's 100 cube tosses, not from the few recordings a test can afford: its
# impact acts where the step first finds the contact, and its faceted sphere chatters once
# rolling; docs/fit.md, "What the fit can tell".)
check "point: friction and restitution recovered" recovers point "toss1 toss3" restitution 0.02

# A run's own trajectory.csv (velocity columns included, no noise) is a recording the true
# parameters reproduce to round-off (the objective log(1 + loss / 1e-4) below 1e-8: a mean
# squared error below 1e-12), and the held-out split reports it.
exact() {
  mkdir -p "$work/exact"
  for key in toss1 toss2; do
    "$touche" run "$scene" --key $key --contact lcp --set friction=0.4 --set restitution=0.5 \
      --duration 0.4 --every 5 --no-contacts --out "$work/run" 2>/dev/null || return 1
    cp "$work/run/trajectory.csv" "$work/exact/$key.csv"
  done
  "$touche" fit "$scene" --data "$work/exact" --contact lcp --threads 2 --holdout 0.5 \
    --params friction=0.4:0.4000001,restitution=0.5:0.5000001 --sweep 1 --evals 2 --json \
    >"$work/fit.json" || return 1
  grep -q '"held_out":{"count":1' "$work/fit.json" &&
    near "$(grep -o '"loss":[^,]*' "$work/fit.json" | head -1 | cut -d: -f2)" 0 1e-8
}
check "a run's trajectory.csv is an exact recording" exact

# The same fit on 1 and 3 threads: the same report, to the last digit (wall time aside).
same_on_threads() {
  for n in 1 3; do
    "$touche" fit "$scene" --data "$work/lcp" --contact lcp --params friction,restitution \
      --holdout 0.5 --sweep 2 --evals 6 --threads $n --json |
      sed 's/"wall_seconds":[^}]*//' >"$work/threads$n.json" || return 1
  done
  cmp "$work/threads1.json" "$work/threads3.json"
}
check "the fit is the same on 1 and 3 threads" same_on_threads

# touche query --derivatives: the step's A and B as JSON (docs/derivatives.md)
derivatives() {
  "$touche" query "$scene" --key toss1 --derivatives >"$work/query.json" || return 1
  grep -q '"derivatives":{"scheme":"centered","eps":1e-06,"nx":12,"nu":0,"A":\[\[1\.0000000' \
    "$work/query.json"
}
check "query --derivatives prints A and B" derivatives

# refused NAME PATTERN: the recording $work/bad/NAME.csv is refused with exit 2, naming
# its file and line and saying PATTERN
refused() {
  exits_with 2 "$touche" fit "$scene" --data "$work/bad" --params friction || return 1
  grep -q "$1.csv:$2" "$work/err.txt" && grep -q "$3" "$work/err.txt" ||
    { cat "$work/err.txt"; return 1; }
}
bad() { # bad NAME: $work/bad holds only NAME.csv, from stdin
  rm -rf "$work/bad" && mkdir -p "$work/bad" && cat >"$work/bad/$1.csv"
}
good_rows='0,ball,0,0,0.25,1,0,0,0
0.01,ball,0.01,0,0.25,1,0,0,0'
bad header <<<"time,body,x,y,z
$good_rows"
check "a wrong header is refused" refused header 1 "expected the header"
bad fields <<<"time,body,x,y,z,qw,qx,qy,qz
$good_rows
0.02,ball,0.02,0,0.25,1,0,0"
check "a short row is refused" refused fields 4 "wrong number of fields"
bad number <<<"time,body,x,y,z,qw,qx,qy,qz
0,ball,0,0,zero,1,0,0,0"
check "a field that is not a number is refused" refused number 2 "not a finite number"
bad quaternion <<<"time,body,x,y,z,qw,qx,qy,qz
$good_rows
0.02,ball,0.02,0,0.25,2,0,0,0"
check "a quaternion that is not a unit one is refused" refused quaternion 4 "unit quaternion"
bad time <<<"time,body,x,y,z,qw,qx,qy,qz
$good_rows
0.005,ball,0.02,0,0.25,1,0,0,0"
check "a time that goes back is refused" refused time 4 "does not increase"
bad body <<<"time,body,x,y,z,qw,qx,qy,qz
0,cube,0,0,0.25,1,0,0,0"
check "an unknown body is refused" refused body 2 "no body named"
bad floor <<<"time,body,x,y,z,qw,qx,qy,qz
0,world,0,0,0,1,0,0,0"
check "a body that is not free is refused" refused floor 2 "only free bodies"
bad resting <<<"time,body,x,y,z,qw,qx,qy,qz
0,ball,0,0,0.05,1,0,0,0
0.01,ball,0,0,0.05,1,0,0,0"
check "a recording without free flight or velocities is refused" \
  exits_with 2 "$touche" fit "$scene" --data "$work/bad" --params friction
check "an unknown parameter is refused" \
  exits_with 2 "$touche" fit "$scene" --data "$work/lcp" --params grip
check "a parameter without a default range needs one" \
  exits_with 2 "$touche" fit "$scene" --data "$work/lcp" --params resolution
check "an unknown optimizer is refused" \
  exits_with 2 "$touche" fit "$scene" --data "$work/lcp" --params friction --optimizer best
check "--data is required" exits_with 2 "$touche" fit "$scene" --params friction

finish
