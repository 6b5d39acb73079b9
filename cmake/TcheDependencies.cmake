# Real libraries made for the field, from Debian's packages (tools/setup.sh installs them).
find_package(PkgConfig REQUIRED)
pkg_check_modules(CCD REQUIRED IMPORTED_TARGET ccd)
pkg_check_modules(QHULL REQUIRED IMPORTED_TARGET qhull_r)
find_package(LibXml2 REQUIRED)
find_library(MATH_LIBRARY m REQUIRED)
