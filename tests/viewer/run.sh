#!/usr/bin/env bash
# Runs one of the viewer's browser tests, or exits 77 (skipped) saying why it cannot.
# Usage: run.sh playback|live TOUCHE SOURCE_DIR VIEWER_DIR NODE VIEWER_BUILT LIVE_BUILT
set -u
test=$1 touche=$2 source=$3 viewer=$4 node=$5 viewer_built=$6 live_built=$7
chromium=${TOUCHE_CHROMIUM:-/usr/bin/chromium}
skip() { echo "skipped: $1"; exit 77; }
[[ $viewer_built == yes ]] || skip "the viewer was not built (node or npm missing at configure time)"
[[ -x $chromium ]] || skip "no Chromium at $chromium (tools/setup.sh installs Debian's chromium)"
[[ $test != live || $live_built == yes ]] || skip "touche was built without civetweb (libcivetweb-dev)"
exec "$node" "$source/tests/viewer/test_$test.mjs" "$touche" "$source" "$viewer"
