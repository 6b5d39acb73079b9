#!/usr/bin/env bash
# touche run --checkpoint-every S and --restore FILE. Usage: test_checkpoint_cli.sh TOUCHE
# SOURCE_DIR. A run of 0.4 s equals, byte for byte, a run of 0.2 s that wrote a checkpoint
# followed by a run restored from it for 0.2 s more (for the point, lcp and volume models and
# an articulated robot); a corrupt, truncated or foreign checkpoint is refused with exit 2 and
# a message naming the file. Prints one line per check and ends with "N passed, N failed".
set -u
touche=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
root=$2
source "$(dirname "${BASH_SOURCE[0]}")/check.sh"

cat >"$work/stack.xml" <<'XML'
<mujoco>
  <worldbody>
    <geom name="floor" type="plane" size="0 0 1"/>
    <body name="a" pos="0 0 0.1"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="b" pos="0.02 0 0.3"><freejoint/><geom type="box" size="0.1 0.1 0.1" mass="1"/></body>
    <body name="c" pos="0.1 0.05 0.6" euler="0.3 0.2 0"><freejoint/>
      <geom type="box" size="0.08 0.08 0.08" mass="0.5"/></body>
  </worldbody>
</mujoco>
XML

# continues SCENE ARGS...: the whole run's trajectory is the first half's (without its last
# state, which the restored run writes first) followed by the restored half's.
continues() {
  local scene=$1
  shift
  rm -rf "$work/full" "$work/first" "$work/second"
  "$touche" run "$scene" "$@" --duration 0.4 --out "$work/full" 2>/dev/null &&
    "$touche" run "$scene" "$@" --duration 0.2 --checkpoint-every 0.1 --out "$work/first" \
      2>/dev/null &&
    [[ -s "$work/first/checkpoint.bin" ]] &&
    ! ls "$work/first" | grep -q '\.tmp' &&
    "$touche" run "$scene" "$@" --duration 0.2 --restore "$work/first/checkpoint.bin" \
      --out "$work/second" 2>/dev/null || return 1
  local bodies=$(($(grep -c . "$work/second/trajectory.csv") - 1))
  bodies=$((bodies / 21)) # 20 written states and the final one
  {
    head -n -"$bodies" "$work/first/trajectory.csv"
    tail -n +2 "$work/second/trajectory.csv"
  } >"$work/joined.csv"
  cmp "$work/full/trajectory.csv" "$work/joined.csv"
}

check "point (implicit) continues bit-identically" continues "$work/stack.xml" --contact point
check "lcp continues bit-identically" continues "$work/stack.xml" --contact lcp
check "volume continues bit-identically" continues "$work/stack.xml" --contact volume
check "puma560 continues bit-identically" continues "$root/examples/puma560.xml"

# refused CHECKPOINT PATTERN [SCENE]: exit 2 and a message naming the file and PATTERN
refused() {
  exits_with 2 "$touche" run "${3:-$work/stack.xml}" --contact lcp --duration 0.01 \
    --restore "$1" --out "$work/refused" || return 1
  grep -q "$1" "$work/err.txt" && grep -q "$2" "$work/err.txt" || { cat "$work/err.txt"; return 1; }
}

"$touche" run "$work/stack.xml" --contact lcp --duration 0.1 --checkpoint-every 0.1 \
  --out "$work/good" 2>/dev/null
size=$(stat -c %s "$work/good/checkpoint.bin")
cp "$work/good/checkpoint.bin" "$work/flipped.bin"
printf '\x55' | dd of="$work/flipped.bin" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null
head -c $((size - 5)) "$work/good/checkpoint.bin" >"$work/truncated.bin"
check "a flipped byte is refused" refused "$work/flipped.bin" "corrupt"
check "a truncated checkpoint is refused" refused "$work/truncated.bin" "truncated"
check "another scene's checkpoint is refused" refused "$work/good/checkpoint.bin" \
  "another scene" "$root/examples/cube_drop.xml"
check "a missing checkpoint is refused" refused "$work/missing.bin" "cannot open"
check "--checkpoint-every needs a positive time" \
  exits_with 2 "$touche" run "$work/stack.xml" --checkpoint-every 0 --out "$work/x"

finish
