# Real libraries made for the field, from Debian's packages (tools/setup.sh installs them).
find_package(PkgConfig REQUIRED)
pkg_check_modules(CCD REQUIRED IMPORTED_TARGET ccd)
pkg_check_modules(QHULL REQUIRED IMPORTED_TARGET qhull_r)
find_package(LibXml2 REQUIRED)
find_library(MATH_LIBRARY m REQUIRED)
# LAPACKE (Debian's, over the system LAPACK: OpenBLAS when installed) for the solver module's
# large dense LU and Cholesky factorizations (solver/dense_lapack.c).
pkg_check_modules(LAPACKE REQUIRED IMPORTED_TARGET lapacke)
# CBLAS for Lemke's per-pivot products (solver/lemke.c): OpenBLAS's cblas.h and library
# (Debian's libopenblas-dev; its liblapack.so.3 does not export cblas_*). It rides on the LAPACKE
# target, which every target linking the library already names, so LAPACKE and CBLAS share
# the one OpenBLAS (and its one thread pool).
pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)
set_property(TARGET PkgConfig::LAPACKE APPEND PROPERTY INTERFACE_LINK_LIBRARIES
  PkgConfig::OPENBLAS)
# POSIX threads for the worker pool (base/workers.c).
find_package(Threads REQUIRED)
# SuiteSparse CHOLMOD (sparse Cholesky for the Laplace pressure fields) and AMD (the
# elimination order of the implicit integrator's block Cholesky, solver/block_cholesky.c);
# Debian ships no pkg-config file for them.
find_path(CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse REQUIRED)
find_library(CHOLMOD_LIBRARY cholmod REQUIRED)
find_library(AMD_LIBRARY amd REQUIRED)
find_library(SUITESPARSE_CONFIG_LIBRARY suitesparseconfig REQUIRED)
set(CHOLMOD_LIBRARIES ${CHOLMOD_LIBRARY} ${AMD_LIBRARY} ${SUITESPARSE_CONFIG_LIBRARY})
# SUNDIALS (Debian's libsundials-dev, 6.x): ARKODE's implicit Runge-Kutta for the adaptive
# integrator (engine/integrator_adaptive.c), with its serial vectors and dense linear algebra.
find_path(SUNDIALS_INCLUDE_DIR arkode/arkode_arkstep.h REQUIRED)
set(SUNDIALS_LIBRARIES)
foreach(component arkode nvecserial sunmatrixdense sunlinsoldense)
  find_library(SUNDIALS_${component}_LIBRARY sundials_${component} REQUIRED)
  list(APPEND SUNDIALS_LIBRARIES ${SUNDIALS_${component}_LIBRARY})
endforeach()
