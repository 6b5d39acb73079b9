#!/usr/bin/env bash
# touche fit on bench/fit/run.sh's 100 noisy cube tosses recorded with `volume` at its defaults
# (friction 0.4, restitution 0.5, motion-capture noise): the fit recovers the friction within
# 0.01 and the restitution within 0.02 (docs/fit.md: a test's few recordings do not pin
# volume's restitution; point and lcp are checked on ball tosses in test_fit_cli.sh). About 20 s
# in Release; not registered under the sanitizers.
#   test_fit_cubes.sh TOUCHE ROOT
set -euo pipefail
touche=$1
root=$2
out=$(bash "$root/bench/fit/run.sh" "$touche" 100 volume:restitution --json 2>/dev/null)
json=$(grep '^{' <<<"$out")
value() {
  grep -o "\"target\":\"$1\",\"value\":[^,]*" <<<"$json" | sed 's/.*"value"://'
}
within() {
  awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'
}
friction=$(value friction)
restitution=$(value restitution)
echo "volume, 100 cube tosses: friction $friction (truth 0.4), restitution $restitution (0.5)"
within "$friction" 0.4 0.01 || { echo "FAIL: friction $friction is not within 0.01 of 0.4"; exit 1; }
within "$restitution" 0.5 0.02 || { echo "FAIL: restitution $restitution is not within 0.02 of 0.5"; exit 1; }
echo "ok"
