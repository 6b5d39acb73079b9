#!/usr/bin/env bash
# touche fit on N recordings of a 1 s cube toss (docs/fit.md, bench/RESULTS.md): writes a scene
# with N random tosses of examples/cube_toss.xml's cube (bench/fit/cube_tosses.awk: a seeded
# draw of heights, tilts up to 10 degrees, speeds and spins), records each with `touche run`
# (MODEL, friction 0.4, restitution
# 0.5 or damping 20, 250 Hz), adds motion-capture noise (tools/mocap_noise.awk: 0.5 mm, 0.5
# deg, poses only), then times `touche fit` with its defaults and prints its report.
#   bench/fit/run.sh TOUCHE [N] [MODEL] [FIT OPTIONS...]
# MODEL lcp fits friction and restitution; point and volume fit friction and damping under
# semi-implicit Euler at 1e4 N/m; point:restitution and volume:restitution fit friction and
# restitution at the model's defaults (the implicit integrator, docs/contact-point.md).
set -euo pipefail
touche=$1
count=${2:-100}
model=${3:-lcp}
shift $(($# < 3 ? $# : 3))
law=damping
[[ $model == lcp || $model == *:restitution ]] && law=restitution
model=${model%:restitution}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

awk -v n="$count" -f "$root/bench/fit/cube_tosses.awk" >"$work/tosses.xml"

second="--set restitution=0.5"
params=friction,restitution
if [[ $law == damping ]]; then
  second="--set damping=20 --set stiffness=1e4 --integrator Euler"
  params=friction,damping=5:80
fi
mkdir -p "$work/recordings"
start=$(date +%s.%N)
for ((i = 0; i < count; ++i)); do
  key=$(printf "t%03d" "$i")
  # shellcheck disable=SC2086
  "$touche" run "$work/tosses.xml" --key "$key" --contact "$model" --set friction=0.4 $second \
    --duration 1 --every 2 --no-contacts --out "$work/run" 2>/dev/null
  awk -v seed="$((i + 1))" -f "$root/tools/mocap_noise.awk" "$work/run/trajectory.csv" \
    >"$work/recordings/$key.csv"
done
made=$(date +%s.%N)
echo "recorded $count tosses in $(echo "$made - $start" | bc) s"
extra=()
[[ $law == damping ]] && extra=(--set stiffness=1e4 --integrator Euler)
/usr/bin/time -f "touche fit: %e s wall, %U s user, %M kB" \
  "$touche" fit "$work/tosses.xml" --data "$work/recordings" --contact "$model" "${extra[@]}" \
  --params "$params" "$@"
