#!/usr/bin/env bash
# ParaView reads what `touche run --vtk DIR` writes (docs/cli.md): the ball of
# examples/pressure_ball.xml dropped onto the floor with the pressure model, read back through
# ParaView's own PVD reader by pvpython (read_vtk_series.py). Usage: test_paraview.sh TOUCHE
# SOURCE_DIR. Exit 77 (shown by CTest as skipped, with the reason printed) when ParaView's
# pvpython is not installed (tools/setup.sh installs Debian's paraview and python3-paraview).
set -u
touche=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"

if ! command -v pvpython >/dev/null; then
  echo "SKIPPED: pvpython (Debian packages paraview, python3-paraview) is not installed"
  exit 77
fi

# 0.6 s at 20 written states per second: the ball lands at about 0.2 s and rests on the floor.
check "touche run --vtk on pressure_ball.xml" \
  "$touche" run "$root/examples/pressure_ball.xml" --duration 0.6 --every 100 \
  --out "$work/out" --vtk "$work/vtk"
states=$(grep -c 'part="0"' "$work/vtk/run.pvd" 2>/dev/null || echo 0)
check "ParaView reads the series ($states states)" \
  pvpython --force-offscreen-rendering "$(dirname "${BASH_SOURCE[0]}")/read_vtk_series.py" \
  "$work/vtk/run.pvd" "$states"
finish
