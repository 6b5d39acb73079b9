#!/usr/bin/env bash
# Checks the layering of docs/design.md: a module includes only its own headers and those of
# the modules below it. Order, lowest first (solver knows nothing of contacts; the engine alone
# knows the stage order; io compiles specs into models with every module's help):
#   base math geometry collision solver contact dynamics engine io
# Prints each violation as file:line and exits 1 when there is any.
set -u
cd "$(dirname "$0")/.."
order=(base math geometry collision solver contact dynamics engine io)
rank() { local i; for i in "${!order[@]}"; do [[ ${order[$i]} == "$1" ]] && echo "$i" && return; done; echo -1; }
status=0
for file in src/*/*.c src/*/*.h; do
  module=$(basename "$(dirname "$file")")
  own=$(rank "$module")
  while IFS=: read -r line target; do
    other=${target%%/*}
    theirs=$(rank "$other")
    if [[ $theirs -gt $own ]]; then
      echo "$file:$line: $module includes $target, a module above it"
      status=1
    fi
  done < <(grep -n '^#include "' "$file" | sed -E 's/^([0-9]+):#include "([^"]+)".*/\1:\2/')
done
[[ $status -eq 0 ]] && echo "layers: every include goes down the module order"
exit $status
