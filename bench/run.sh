#!/usr/bin/env bash
# The comparison benchmark: touche's point model against MuJoCo, ODE and Bullet on the same
# scenes, in one run so that the ratios come from one machine state (docs/benchmarks.md); and
# every contact model of touche on the shared comparison scenes (../shared/bench-scenes,
# plain MJCF used unmodified: MuJoCo loads the very files), beside the three anchors.
#
#   bench/run.sh              build (build/bench), run every engine on every scene, print tables
#   BUILD=dir bench/run.sh    use another build directory
#   COMMIT=rev bench/run.sh   build and measure that commit's tree exactly (exported with git
#                             archive into bench/out/<date>/tree, built in bench/out/<date>/build)
#                             instead of the working tree, which may hold uncommitted changes
#   QUICK=1 bench/run.sh      a tenth of the steps, to check the driver
#   ROUNDS=n bench/run.sh     run every scene n times (default 3); the tables keep each engine's
#                             fastest round per scene, to filter out other load on the machine
#   ENGINES="a b" bench/run.sh  run only these engines (default: touche touche-lcp mujoco ode
#                             bullet; touche-<model> is touche with --contact <model>, e.g.
#                             touche-volume)
#   SHARED_ENGINES="a b" bench/run.sh  engines on the shared scenes (default: touche
#                             touche-volume touche-pressure touche-lcp mujoco ode bullet; touche
#                             alone is the point model, the scenes' default)
#   SHARED=dir bench/run.sh   the shared scenes' folder (default: ../shared/bench-scenes from the
#                             repository; none there: only the generated scenes run)
#   SCENES="a b" bench/run.sh run only these scenes (names as below, e.g. "stack13 pile100", or
#                             a shared scene's file name without .xml, e.g. "stack_13 pile_100")
#   TIMEOUT=s bench/run.sh   stop a program after s seconds (default 600)
#   REALTIME=0 bench/run.sh   do not raise the programs to SCHED_FIFO (by default they run under
#                             `chrt -f 1` when allowed, so that other processes do not preempt
#                             them in the middle of a step; the kernel still keeps 5% for others)
#
# Writes bench/out/results-<date>.csv (one line per engine and scene), the cube drop's angular
# momentum per engine (bench/out/<date>/lz-<engine>-cube_drop.csv) and
# bench/out/results-<date>.md (the tables for bench/RESULTS.md, also printed on stdout).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
stamp=$(date -u +%Y-%m-%dT%H%M%SZ)
out=$root/bench/out
work=$out/$stamp
src=$root  # the tree that is built and whose generator and examples make the scenes
build=${BUILD:-$root/build/bench}
if [[ -n "${COMMIT:-}" ]]; then
  src=$work/tree
  build=${BUILD:-$work/build}
fi
csv=$out/results-$stamp.csv
md=$out/results-$stamp.md
scale=$([[ -n "${QUICK:-}" ]] && echo 0.1 || echo 1)
# touche-<model>: touche with that contact model forced on every pair (bench_touche --contact).
read -r -a engines <<<"${ENGINES:-touche touche-lcp mujoco ode bullet}"
read -r -a only_scenes <<<"${SCENES:-}"
read -r -a shared_engines <<<"${SHARED_ENGINES:-touche touche-volume touche-pressure touche-lcp mujoco ode bullet}"
shared=${SHARED:-$root/../shared/bench-scenes}
rounds=${ROUNDS:-3}
runner=(timeout "${TIMEOUT:-600}")
# One OpenBLAS thread (touche's dense LU/Cholesky and Lemke's pivots): the anchors run on one
# thread, and an idle OpenBLAS worker spins in sched_yield on the second core of this 2-CPU VM.
export OPENBLAS_NUM_THREADS=${OPENBLAS_NUM_THREADS:-1}
if [[ ${REALTIME:-1} == 1 ]] && chrt -f 1 true 2>/dev/null; then
  runner+=(chrt -f 1)
fi

log() { echo "bench: $*" >&2; }

export_commit() {
  mkdir -p "$src"
  git -C "$root" archive "$COMMIT" | tar -x -C "$src"
}

build_programs() {
  cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DTCH_BUILD_BENCH=ON \
    -DTCH_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j "$(nproc)" --target touche_cli bench_touche bench_mujoco bench_ode \
    bench_bullet >/dev/null
}

# Scenes: name, generator arguments (or an example file), simulated seconds.
make_scenes() {
  mkdir -p "$work/scenes" "$work/mjcf"
  local n
  for n in 1 2 3 6 13 25 50; do
    /usr/bin/python3 "$src/tools/gen_scenes.py" stack "$n" >"$work/scenes/stack$n.xml"
  done
  /usr/bin/python3 "$src/tools/gen_scenes.py" pile 100 --dt 0.002 >"$work/scenes/pile100.xml"
  /usr/bin/python3 "$src/tools/gen_scenes.py" pile 100 --dt 0.001 >"$work/scenes/pile100-1ms.xml"
  /usr/bin/python3 "$src/tools/gen_scenes.py" pile 1000 --dt 0.002 >"$work/scenes/pile1000.xml"
  cp "$src/examples/cube_drop.xml" "$work/scenes/cube_drop.xml"
  local scene
  for scene in "$work"/scenes/*.xml; do
    "$build/cli/touche" export-mjcf "$scene" "$work/mjcf/$(basename "$scene")" >/dev/null
  done
  # The shared scenes, copied as they are: every engine (MuJoCo too) reads the same bytes.
  mkdir -p "$work/shared"
  if [[ -d $shared ]]; then
    cp "$shared"/*.xml "$work/shared/"
  else
    log "no shared scenes at $shared: only the generated scenes run"
  fi
}

duration_of() {
  case $1 in
    stack*) echo 10 ;;     # the standing check is after 10 s
    cube_drop) echo 10 ;;  # at rest after 10 s?
    pile1000 | pile_1000) echo 2 ;;  # the most expensive scenes: 2 s
    pile*) echo 5 ;;
    haptic_100 | drop) echo 2 ;;     # as the shared scenes' README says
  esac
}

run_engine() {
  local engine=$1 file=$2 seconds=$3 round=$4
  local name extra=() program=$engine
  name=$(basename "$file" .xml)
  [[ $engine == mujoco && $file == "$work/scenes/"* ]] && file=$work/mjcf/$name.xml
  if [[ $engine == touche-* ]]; then
    program=touche
    extra=(--contact "${engine#touche-}")
  fi
  [[ $name == cube_drop && $round == 1 ]] && extra+=(--lz "$work/lz-$engine-cube_drop.csv")
  log "round $round/$rounds: $engine on $name ($seconds s simulated)"
  if ! "${runner[@]}" "$build/bench/anchors/bench_$program" "$file" --name "$name" --duration "$seconds" \
      "${extra[@]}" >>"$csv" 2>>"$work/stderr-$engine.log"; then
    log "$engine failed on $name (see $work/stderr-$engine.log)"
  fi
}

# run_scenes ROUND SCENE... -- ENGINE...: every engine on every scene (of SCENES, when set).
run_scenes() {
  local round=$1 scenes=() scene name seconds engine
  shift
  while [[ $1 != -- ]]; do
    [[ -f $1 ]] && scenes+=("$1")
    shift
  done
  shift
  for scene in "${scenes[@]}"; do
    name=$(basename "$scene" .xml)
    if [[ ${#only_scenes[@]} -gt 0 && " ${only_scenes[*]} " != *" $name "* ]]; then
      continue
    fi
    seconds=$(/usr/bin/python3 -c "print($(duration_of "$name") * $scale)")
    for engine in "$@"; do
      run_engine "$engine" "$scene" "$seconds" "$round"
    done
  done
}

describe_machine() {
  local cc_flags
  cc_flags=$(grep -E '^CMAKE_C_FLAGS_RELEASE:' "$build/CMakeCache.txt" | cut -d= -f2-)
  echo "date=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  if [[ -n "${COMMIT:-}" ]]; then
    echo "commit=$(git -C "$root" rev-parse --short "$COMMIT") (exported tree)"
  else
    echo "commit=$(git -C "$root" rev-parse --short HEAD)$(git -C "$root" diff --quiet HEAD -- src include cli || echo '+uncommitted changes in src, include or cli')"
  fi
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//') ($(nproc) logical CPUs)"
  echo "load=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "scheduling=$([[ ${#runner[@]} -gt 2 ]] && echo "SCHED_FIFO priority 1 (chrt -f 1)" || echo "normal scheduling")"
  echo "compiler=$(cc --version | head -1); $(c++ --version | head -1)"
  echo "flags=touche and bench programs: $cc_flags -ffp-contract=off (CMake Release); anchors: Debian's builds"
  echo "anchors=$(dpkg-query -W -f='${Package} ${Version}; ' libmujoco-dev libode-dev libbullet-dev 2>/dev/null)"
}

main() {
  if [[ -n "${COMMIT:-}" ]]; then
    log "exporting $COMMIT to $src"
    export_commit
  fi
  log "building $src in $build"
  build_programs
  make_scenes
  "$build/bench/anchors/bench_touche" --csv-header >"$csv"
  describe_machine >"$work/machine.txt"
  local round
  for ((round = 1; round <= rounds; ++round)); do
    run_scenes "$round" "$work"/scenes/*.xml -- "${engines[@]}"
    run_scenes "$round" "$work"/shared/*.xml -- "${shared_engines[@]}"
  done
  echo "load_end=$(cut -d' ' -f1-3 /proc/loadavg)" >>"$work/machine.txt"
  /usr/bin/python3 "$root/bench/anchors/results_table.py" "$csv" "$work/machine.txt" | tee "$md"
  log "results: $csv and $md"
}

main "$@"
