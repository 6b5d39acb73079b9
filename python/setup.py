"""Builds the `touche` extension module against the C library of a CMake build.

The library is found in $TOUCHE_LIBRARY_DIR, or else in ../build/release/src (what `make
release` makes); the extension records that directory as its run-time search path. Debian's
python3 with python3-numpy, python3-dev and python3-setuptools is enough: no network.

    make python                                      # builds, and installs for /usr/bin/python3
    TOUCHE_LIBRARY_DIR=... pip install --no-build-isolation ./python

TOUCHE_WERROR=1 makes compiler warnings errors (the project's builds set it).
"""
import os

import numpy
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LIBRARY_DIR = os.path.abspath(
    os.environ.get("TOUCHE_LIBRARY_DIR", os.path.join(ROOT, "build", "release", "src")))

if not os.path.exists(os.path.join(LIBRARY_DIR, "libtouche.so")):
    raise SystemExit(f"setup.py: no libtouche.so in {LIBRARY_DIR}: run `make release` first, "
                     "or set TOUCHE_LIBRARY_DIR to the directory that holds it")

setup(
    name="touche",
    version="0.1.0",
    description="Python binding of touche, rigid bodies in contact",
    ext_modules=[
        Extension(
            "touche",
            sources=[os.path.relpath(os.path.join(HERE, "touche.c"))],
            include_dirs=[os.path.join(ROOT, "include"), numpy.get_include()],
            library_dirs=[LIBRARY_DIR],
            runtime_library_dirs=[LIBRARY_DIR],
            libraries=["touche"],
            extra_compile_args=["-std=c11", "-Wall", "-Wextra", "-O2"]
            + (["-Werror"] if os.environ.get("TOUCHE_WERROR") else []),
        )
    ],
)
