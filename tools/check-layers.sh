#!/usr/bin/env bash
# Checks the layering of docs/design.md: a module uses only itself and the modules below it.
# Order, lowest first (solver knows nothing of contacts; the engine alone knows the stage order;
# io compiles specs into models with every module's help):
#   base math geometry collision solver contact dynamics engine haptics io
# Two checks, each violation printed as file:line, exit 1 when there is any:
#   1. includes: a module includes only its own headers and those of the modules below it;
#   2. public functions: every include/touche/*.h is mapped below to the module that implements
#      it; each function it declares must be defined in that module or one below it, and a
#      module may call a public function only when the module defining it is not above its own
#      (the public headers are included everywhere for their types, so an upward call through
#      them escapes check 1).
set -u
cd "$(dirname "$0")/.."
order=(base math geometry collision solver contact dynamics engine haptics io)
declare -A header_module=(
  [base.h]=base [contact_space.h]=dynamics [data.h]=engine [haptics.h]=haptics [io.h]=io [lcp.h]=solver [model.h]=io
  [spec.h]=io [step.h]=engine [derivatives.h]=engine [tetmesh.h]=contact [touche.h]=io [watch.h]=engine [checkpoint.h]=engine
)
rank() { local i; for i in "${!order[@]}"; do [[ ${order[$i]} == "$1" ]] && echo "$i" && return; done; echo -1; }
module_of() { basename "$(dirname "$1")"; }
status=0

for file in src/*/*.c src/*/*.h; do
  own=$(rank "$(module_of "$file")")
  while IFS=: read -r line target; do
    if [[ $(rank "${target%%/*}") -gt $own ]]; then
      echo "$file:$line: $(module_of "$file") includes $target, a module above it"
      status=1
    fi
  done < <(grep -n '^#include "' "$file" | sed -E 's/^([0-9]+):#include "([^"]+)".*/\1:\2/')
done

for header in include/touche/*.h; do
  name=$(basename "$header")
  if [[ -z ${header_module[$name]:-} ]]; then
    echo "$header: not mapped to a module in tools/check-layers.sh"
    status=1
    continue
  fi
  mapped=$(rank "${header_module[$name]}")
  for fn in $(grep -oE 'TCH_API[^;(]*\btch_[a-z0-9_]+ *\(' "$header" | grep -oE 'tch_[a-z0-9_]+'); do
    definition=$(grep -lE "^[A-Za-z_].*[ *]$fn\(" src/*/*.c | head -1)
    [[ -z $definition ]] && continue # declared, not built (e.g. an optional part)
    defined_in=$(module_of "$definition")
    if [[ $(rank "$defined_in") -gt $mapped ]]; then
      echo "$definition: $fn (touche/$name, module ${header_module[$name]}) is defined in $defined_in, above it"
      status=1
    fi
    while IFS=: read -r file line text; do
      [[ $text =~ ^[[:space:]]*(\*|/\*|//) ]] && continue # a comment that names it
      if [[ $(rank "$defined_in") -gt $(rank "$(module_of "$file")") ]]; then
        echo "$file:$line: $(module_of "$file") calls $fn (touche/$name), implemented in $defined_in, a module above it"
        status=1
      fi
    done < <(grep -nE "\b$fn *\(" src/*/*.c src/*/*.h)
  done
done

[[ $status -eq 0 ]] && echo "layers: every include and every call of a public function goes down the module order"
exit $status
