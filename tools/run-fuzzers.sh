#!/usr/bin/env bash
# Runs every libFuzzer target of a build for a short time, from its seed corpus
# (tests/fuzz/corpus/<target>/). Any crash, leak or sanitizer report fails.
set -euo pipefail
build=$(cd "${1:?build dir}" && pwd)
seconds=${2:-10}
root=$(cd "$(dirname "$0")/.." && pwd)
shopt -s nullglob
targets=("$build"/tests/fuzz/fuzz_*)
if [[ ${#targets[@]} -eq 0 ]]; then
  echo "fuzz: no targets built" >&2
  exit 0
fi
for t in "${targets[@]}"; do
  name=$(basename "$t")
  [[ -x "$t" ]] || continue
  work=$(mktemp -d)
  cp -r "$root/tests/fuzz/corpus/$name/." "$work/" 2>/dev/null || true
  echo "fuzz: $name for ${seconds}s"
  (cd "$work" && "$t" -max_total_time="$seconds" -rss_limit_mb=1024 -print_final_stats=0 \
     "$work" >"$work.log" 2>&1) || { tail -40 "$work.log"; rm -rf "$work" "$work.log"; exit 1; }
  rm -rf "$work" "$work.log"
done
