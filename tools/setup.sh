#!/usr/bin/env bash
# Installs the Debian packages touche needs that are missing, and only those.
#   tools/setup.sh          build and test dependencies
#   tools/setup.sh bench    also the anchors compared against in bench/ (MuJoCo, ODE, Bullet)
set -euo pipefail

# Build: compilers, CMake, the libraries touche links (libccd, qhull, libxml2; SuiteSparse
# CHOLMOD and LAPACKE/OpenBLAS for the pressure fields and dense solves). Tests: clang's
# sanitizer and fuzzer runtimes, and Siconos numerics as the LCP cross-check oracle. tetgen:
# the tet mesher `touche mesh` runs to give any closed surface a pressure field. Python: the
# headers, numpy and setuptools the `touche` module builds with, and pytest that tests it.
# NLopt: the derivative-free search of `touche fit`.
packages=(build-essential cmake pkg-config clang libclang-rt-14-dev
          libccd-dev libqhull-dev libxml2-dev libsuitesparse-dev liblapacke-dev libopenblas-dev
          libsiconos-numerics-dev tetgen libsundials-dev libnlopt-dev
          python3-dev python3-numpy python3-setuptools python3-pytest)
if [[ "${1:-}" == "bench" ]]; then
  packages+=(libmujoco-dev libode-dev libbullet-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
echo "setup: installing ${missing[*]}" >&2
if [[ $(id -u) -ne 0 ]]; then
  echo "setup: need root to install ${missing[*]} (run: sudo $0 $*)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
