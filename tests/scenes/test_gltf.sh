#!/usr/bin/env bash
# touche run --gltf FILE writes a glTF 2.0 animation of the bodies. Usage: test_gltf.sh TOUCHE
# SOURCE_DIR NPM_DIR. The animation matches the run's trajectory (gltf/check_animation.py), for
# .gltf and .glb, for free bodies, a robot's links and the world's geoms; the Khronos glTF
# validator (npm gltf-validator, pinned in gltf/package-lock.json, installed into NPM_DIR)
# reports no error and no warning; a bad extension is refused with exit 2 and nothing written.
# Exit 77 (skipped, with the reason printed) when node or npm is missing or the validator cannot
# be installed.
set -u
touche=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
npm_dir=$3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/check.sh"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "SKIPPED: node and npm are needed for the glTF validator"
  exit 77
fi
mkdir -p "$npm_dir"
cp "$here/gltf/package.json" "$here/gltf/package-lock.json" "$npm_dir/"
if [[ ! -d "$npm_dir/node_modules/gltf-validator" ]] &&
  ! (cd "$npm_dir" && npm ci --prefer-offline --no-audit --no-fund >npm.log 2>&1); then
  echo "SKIPPED: npm could not install gltf-validator:"
  tail -5 "$npm_dir/npm.log"
  exit 77
fi
validate() { NODE_PATH="$npm_dir/node_modules" node "$here/gltf/validate.js" "$1"; }

exports_scene() { # exports_scene SCENE FILE ARGS...
  local scene=$1 file=$2
  shift 2
  rm -rf "$work/out"
  "$touche" run "$root/examples/$scene" "$@" --out "$work/out" --gltf "$work/out/$file" &&
    validate "$work/out/$file" &&
    /usr/bin/python3 "$here/gltf/check_animation.py" "$work/out/$file" "$work/out/trajectory.csv"
}
check "stack13.xml as .gltf: valid, animation = trajectory" \
  exports_scene stack13.xml stack.gltf --duration 0.5
check "gripper_hinge.xml (links, world geoms) as .glb: valid, animation = trajectory" \
  exports_scene gripper_hinge.xml grip.glb --duration 0.2 --key grip
check "sphere_bounce.xml (a sphere, a plane) as .gltf" \
  exports_scene sphere_bounce.xml ball.gltf --duration 0.3
bad_extension() {
  exits_with 2 "$touche" run "$root/examples/sphere_bounce.xml" --duration 0.1 \
    --out "$work/bad" --gltf "$work/bad/anim.obj" || return 1
  grep -q "must end in .gltf (JSON) or .glb" "$work/err.txt" && [[ ! -e "$work/bad/anim.obj" ]]
}
check "--gltf FILE with another extension exits 2" bad_extension
finish
