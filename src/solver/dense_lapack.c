#include "solver/dense_lapack.h"

#include <float.h>
#include <lapacke.h>
#include <math.h>

#include "math/dense.h"
#include "solver/lu.h"

_Static_assert(sizeof(lapack_int) == sizeof(int), "LAPACKE must use 32-bit integers (LP64)");
_Static_assert(sizeof(tch_real) == sizeof(double), "the LAPACK path is for double precision");

/* dgetrf on the column-major view factors Aᵀ; its U has the same diagonal magnitudes test as
 * the row-major elimination (the pivot of step k is u_kk). */
int tch_solver_lapack_lu_factor(tch_real* a, int n, int* pivot) {
    const tch_real tiny = n * DBL_EPSILON * tch_solver_largest_magnitude(a, (size_t)n * (size_t)n);
    LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, a, n, pivot);
    for (int k = 0; k < n; ++k) {
        if (!(fabs(a[(size_t)k * (size_t)n + (size_t)k]) > tiny)) {
            return k + 1;
        }
    }
    return 0;
}

/* A x = b is (Aᵀ)ᵀ x = b: dgetrs with trans = 'T' on the factors of Aᵀ. */
void tch_solver_lapack_lu_solve(const tch_real* lu, int n, const int* pivot, tch_real* b) {
    LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', n, 1, lu, n, pivot, b, n);
}

/* The row-major lower triangle is the column-major upper one, so dpotrf with uplo = 'U'
 * (A = Uᵀ U) leaves U = Lᵀ exactly where tch_dense_cholesky leaves L. */
int tch_solver_lapack_cholesky(tch_real* a, int n, tch_real* diagonal) {
    for (int j = 0; j < n; ++j) {
        diagonal[j] = a[(size_t)j * (size_t)n + (size_t)j];
    }
    const lapack_int info = LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', n, a, n);
    const int checked = info > 0 ? info - 1 : n;
    for (int j = 0; j < checked; ++j) {
        const tch_real l_jj = a[(size_t)j * (size_t)n + (size_t)j];
        if (!(isfinite(l_jj) && l_jj * l_jj > 4 * DBL_EPSILON * fabs(diagonal[j]))) {
            return j + 1;
        }
    }
    return info > 0 ? info : 0;
}

void tch_solver_lapack_cholesky_solve(const tch_real* l, int n, tch_real* b) {
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', n, 1, l, n, b, n);
}

/* B is n x count column-major with leading dimension n: right-hand side k at b + k n. */
void tch_solver_lapack_cholesky_solve_many(const tch_real* l, int n, tch_real* b, int count) {
    LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, 'U', n, count, l, n, b, n);
}

int tch_solver_cholesky(tch_real* a, int n, tch_real* diagonal) {
    return n >= TCH_SOLVER_CHOLESKY_LAPACK_MIN_N ? tch_solver_lapack_cholesky(a, n, diagonal)
                                                 : tch_dense_cholesky(a, n);
}

void tch_solver_cholesky_solve_many(const tch_real* l, int n, tch_real* b, int count) {
    if (n >= TCH_SOLVER_CHOLESKY_SOLVE_MANY_LAPACK_MIN_N) {
        tch_solver_lapack_cholesky_solve_many(l, n, b, count);
        return;
    }
    for (int k = 0; k < count; ++k) {
        tch_dense_cholesky_solve(l, n, b + (size_t)k * (size_t)n);
    }
}
