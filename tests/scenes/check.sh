# Shared by the scene-level test scripts (sourced): a work directory removed on exit, `check`
# to run one named check, `exits_with` to require an exit code, and `finish` to print the
# closing "N passed, N failed" line and return the status.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0
failed=0

check() { # check NAME COMMAND...: passes when the command succeeds
  local name=$1
  shift
  if "$@" >"$work/check.log" 2>&1; then
    passed=$((passed + 1))
    echo "ok   $name"
  else
    failed=$((failed + 1))
    echo "FAIL $name"
    sed 's/^/     /' "$work/check.log" | head -20
  fi
}

exits_with() { # exits_with CODE COMMAND...: stdout in $work/out.txt, stderr in $work/err.txt
  local want=$1
  shift
  "$@" >"$work/out.txt" 2>"$work/err.txt"
  local got=$?
  [[ $got -eq $want ]] || { echo "exit $got, expected $want"; cat "$work/err.txt"; return 1; }
}

finish() {
  echo "$passed passed, $failed failed"
  [[ $failed -eq 0 ]]
}
