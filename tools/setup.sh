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
# ParaView (pvpython) reads the `--vtk` series back in a test. Viewer (docs/viewer.md): node
# and npm bundle it (and run the glTF validator), civetweb serves the live mode, and Debian's
# chromium runs its browser tests. OpenMPI: `touche sweep --mpi` (docs/sweeps.md; built
# without it when absent). NLopt: the derivative-free search of `touche fit`. libspnav: the
# SpaceMouse as a 6-DOF haptic input (`touche haptic --device spacemouse`).
packages=(build-essential cmake pkg-config clang libclang-rt-14-dev
          libccd-dev libqhull-dev libxml2-dev libsuitesparse-dev liblapacke-dev libopenblas-dev
          libsiconos-numerics-dev tetgen libsundials-dev libnlopt-dev
          python3-dev python3-numpy python3-setuptools python3-pytest
          paraview python3-paraview libcivetweb-dev chromium libopenmpi-dev openmpi-bin
          libspnav-dev)
# node and npm: Debian's packages unless a newer Node.js is already there (this machine's).
command -v npm >/dev/null || packages+=(nodejs npm)
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
