#!/usr/bin/env bash
# make install works: headers, libraries, pkg-config file and CMake package config are usable by
# a program outside the tree. Usage: test_install.sh BUILD_DIR SOURCE_DIR
set -eu
build=$1
root=$2
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
passed=0
# pkg-config, static and shared
PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig" \
  cc "$root/examples/api/drop_box.c" $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig:$prefix/lib/x86_64-linux-gnu/pkgconfig" pkg-config --cflags --libs touche) -o "$prefix/drop_box_pc"
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib/x86_64-linux-gnu" "$prefix/drop_box_pc" | grep -q "contacts"
passed=$((passed + 1))
echo "ok   pkg-config build runs"
# find_package(touche)
cmake -S "$root/examples/api" -B "$prefix/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$prefix/cmake-build" >/dev/null
LD_LIBRARY_PATH="$prefix/lib:$prefix/lib/x86_64-linux-gnu" "$prefix/cmake-build/drop_box" | grep -q "contacts"
passed=$((passed + 1))
echo "ok   find_package(touche) build runs"
echo "$passed passed, 0 failed"
