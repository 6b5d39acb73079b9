#!/usr/bin/env bash
# touche mesh IN.obj|IN.stl OUT.vtk. Usage: test_mesh_cli.sh TOUCHE SOURCE_DIR
# Always checks the usage errors and the "neither gmsh nor tetgen is installed" path (PATH
# emptied). With one of the tools installed (tools/setup.sh installs tetgen), also the round
# trips: an OBJ cube becomes a tet mesh with an epsilon field that a scene loads as
# touche:tetmesh and `touche query` presses on a floor; examples/torus.obj, not convex, becomes
# the tet mesh of examples/torus_ball.xml, whose ball settles on the torus's inner rim. Without
# either tool it ends with exit 77, which CTest reports as skipped (SKIP_RETURN_CODE). Prints
# one line per check and ends with "N passed, N failed".
set -u
touche=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"

# A cube of edge 0.1 m centred at the origin, faces counter-clockwise seen from outside.
cat >"$work/cube.obj" <<'OBJ'
v -0.05 -0.05 -0.05
v 0.05 -0.05 -0.05
v -0.05 0.05 -0.05
v 0.05 0.05 -0.05
v -0.05 -0.05 0.05
v 0.05 -0.05 0.05
v -0.05 0.05 0.05
v 0.05 0.05 0.05
f 1 3 4 2
f 5 6 8 7
f 1 2 6 5
f 3 7 8 4
f 1 5 7 3
f 2 4 8 6
OBJ

no_tools() {
  env PATH=/nonexistent "$touche" mesh "$work/cube.obj" "$work/none.vtk" >/dev/null 2>"$work/err.txt"
  local got=$?
  [[ $got -eq 2 ]] || { echo "exit $got, expected 2"; return 1; }
  grep -q "neither gmsh nor tetgen is installed" "$work/err.txt" &&
    [[ ! -e "$work/none.vtk" ]]
}
check "mesh: a clear message and exit 2 when neither gmsh nor tetgen is installed" no_tools
check "mesh: a missing output file is a usage error" exits_with 2 "$touche" mesh "$work/cube.obj"
check "mesh: an input that is neither .obj nor .stl is refused" \
  exits_with 2 "$touche" mesh "$work/cube.txt" "$work/out.vtk"
check "mesh: an output that is neither .vtk nor .msh is refused" \
  exits_with 2 "$touche" mesh "$work/cube.obj" "$work/out.stl"

round_trip() {
  "$touche" mesh "$work/cube.obj" "$work/cube.vtk" >"$work/out.txt" 2>"$work/err.txt" ||
    { cat "$work/err.txt"; return 1; }
  grep -q "DATASET UNSTRUCTURED_GRID" "$work/cube.vtk" &&
    grep -q "SCALARS epsilon" "$work/cube.vtk" &&
    grep -q "volume 0.001 m^3" "$work/out.txt" || { cat "$work/out.txt"; return 1; }
  cat >"$work/scene.xml" <<XML
<mujoco model="meshed_cube" xmlns:touche="urn:touche">
  <option touche:contact="pressure"/>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="cube" pos="0 0 0.049">
      <freejoint/>
      <geom name="cube" type="box" size="0.05 0.05 0.05" mass="1" touche:modulus="1e6"
            touche:tetmesh="cube.vtk"/>
    </body>
  </worldbody>
</mujoco>
XML
  "$touche" query "$work/scene.xml" >"$work/query.json" 2>"$work/err.txt" ||
    { cat "$work/err.txt"; return 1; }
  grep -q '"pressure"' "$work/query.json" || { cat "$work/query.json"; return 1; }
}
# The torus example end to end: `touche mesh` on the OBJ, the VTK's Laplace field, and 0.15 s
# of the scene (the ball settles within 0.1 s). The ball's centre must end on the inner rim:
# sqrt((0.08 + 0.04)^2 - 0.1^2) = 0.0663 m above the torus's middle plane at z = 0.04, less up
# to 3 mm for the faceted torus (tube decagon, 24 segments) and the compliant contact, and far
# from the 0.16 m where the torus's convex hull would hold it; centred, at rest, and no warning.
torus_round_trip() {
  cp "$root/examples/torus.obj" "$root/examples/torus_ball.xml" "$work/" &&
    "$touche" mesh "$work/torus.obj" "$work/torus.vtk" >"$work/out.txt" 2>"$work/err.txt" ||
    { cat "$work/err.txt"; return 1; }
  grep -q "SCALARS epsilon" "$work/torus.vtk" || return 1
  "$touche" run "$work/torus_ball.xml" --duration 0.15 --out "$work/torus" --strict \
    2>"$work/err.txt" || { cat "$work/err.txt"; return 1; }
  /usr/bin/python3 - "$work/torus/trajectory.csv" "$work/out.txt" <<'PY'
import csv, math, re, sys
last = list(csv.DictReader(open(sys.argv[1])))[-1]
x, y, z, vz = (float(last[k]) for k in ("x", "y", "z", "vz"))
rim = 0.04 + math.sqrt(0.12 ** 2 - 0.1 ** 2)
assert rim - 0.004 < z < rim, (z, rim)
assert math.hypot(x, y) < 1e-3 and abs(vz) < 1e-2, (x, y, vz)
volume = float(re.search(r"volume ([0-9.e-]+) m\^3", open(sys.argv[2]).read()).group(1))
exact = 2 * math.pi ** 2 * 0.1 * 0.04 ** 2
assert 0.9 * exact < volume < exact, (volume, exact)   # the faceted torus, inscribed
PY
}

if command -v gmsh >/dev/null 2>&1 || command -v tetgen >/dev/null 2>&1; then
  check "mesh: an OBJ cube round trip (tet mesh, field, a scene that presses it)" round_trip
  check "mesh: the torus example (non-convex tet mesh, Laplace field, the ball on its rim)" \
    torus_round_trip
else
  echo "SKIP the round trips: neither gmsh nor tetgen is installed (tools/setup.sh installs tetgen)"
  finish || exit 1
  exit 77
fi

finish
