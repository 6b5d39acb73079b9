#!/usr/bin/env bash
# touche mesh IN.obj|IN.stl OUT.vtk. Usage: test_mesh_cli.sh TOUCHE
# Always checks the usage errors and the "neither gmsh nor tetgen is installed" path (PATH
# emptied); when one of the tools is installed, also the round trip: an OBJ cube becomes a tet
# mesh with an epsilon field that a scene loads as touche:tetmesh and `touche query` presses on
# a floor. Prints one line per check and ends with "N passed, N failed".
set -u
touche=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
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
if command -v gmsh >/dev/null 2>&1 || command -v tetgen >/dev/null 2>&1; then
  check "mesh: an OBJ cube round trip (tet mesh, field, a scene that presses it)" round_trip
else
  echo "skip mesh round trip: neither gmsh nor tetgen is installed"
fi

finish
