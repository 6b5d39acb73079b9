#include "solver/lu.h"

#include <float.h>
#include <math.h>

#include "solver/dense_lapack.h"

tch_real tch_solver_largest_magnitude(const tch_real* a, size_t count) {
    tch_real m = 0;
    for (size_t k = 0; k < count; ++k) {
        m = fmax(m, fabs(a[k]));
    }
    return m;
}

static void swap_rows(tch_real* a, int n, int r, int s) {
    tch_real* row_r = a + (size_t)r * (size_t)n;
    tch_real* row_s = a + (size_t)s * (size_t)n;
    for (int j = 0; j < n; ++j) {
        const tch_real t = row_r[j];
        row_r[j] = row_s[j];
        row_s[j] = t;
    }
}

/* Step k: pick the largest |a_ik|, i >= k, swap it to row k, then
 * l_ik = a_ik / a_kk and a_ij -= l_ik a_kj for i, j > k. */
int tch_solver_lu_factor_loops(tch_real* a, int n, int* pivot) {
    const tch_real tiny = n * DBL_EPSILON * tch_solver_largest_magnitude(a, (size_t)n * (size_t)n);
    for (int i = 0; i < n; ++i) {
        pivot[i] = i;
    }
    for (int k = 0; k < n; ++k) {
        int best = k;
        for (int i = k + 1; i < n; ++i) {
            if (fabs(a[(size_t)i * n + k]) > fabs(a[(size_t)best * n + k])) {
                best = i;
            }
        }
        const tch_real* row_best = a + (size_t)best * n;
        if (!(fabs(row_best[k]) > tiny)) {
            return k + 1;
        }
        if (best != k) {
            swap_rows(a, n, k, best);
            const int t = pivot[k];
            pivot[k] = pivot[best];
            pivot[best] = t;
        }
        const tch_real* row_k = a + (size_t)k * n;
        for (int i = k + 1; i < n; ++i) {
            tch_real* row_i = a + (size_t)i * n;
            const tch_real l = row_i[k] / row_k[k];
            row_i[k] = l;
            for (int j = k + 1; j < n; ++j) {
                row_i[j] -= l * row_k[j];
            }
        }
    }
    return 0;
}

/* P A = L U: y = P b, L c = y (forward), U x = c (backward). */
void tch_solver_lu_solve_loops(const tch_real* lu, int n, const int* pivot, tch_real* b,
                               tch_real* work) {
    for (int i = 0; i < n; ++i) {
        work[i] = b[pivot[i]];
    }
    for (int i = 0; i < n; ++i) {
        const tch_real* row = lu + (size_t)i * n;
        tch_real s = work[i];
        for (int j = 0; j < i; ++j) {
            s -= row[j] * work[j];
        }
        work[i] = s;
    }
    for (int i = n - 1; i >= 0; --i) {
        const tch_real* row = lu + (size_t)i * n;
        tch_real s = work[i];
        for (int j = i + 1; j < n; ++j) {
            s -= row[j] * work[j];
        }
        work[i] = s / row[i];
    }
    for (int i = 0; i < n; ++i) {
        b[i] = work[i];
    }
}

int tch_solver_lu_factor(tch_real* a, int n, int* pivot) {
    return n >= TCH_SOLVER_LU_LAPACK_MIN_N ? tch_solver_lapack_lu_factor(a, n, pivot)
                                           : tch_solver_lu_factor_loops(a, n, pivot);
}

void tch_solver_lu_solve(const tch_real* lu, int n, const int* pivot, tch_real* b,
                         tch_real* work) {
    if (n >= TCH_SOLVER_LU_LAPACK_MIN_N) {
        tch_solver_lapack_lu_solve(lu, n, pivot, b);
    } else {
        tch_solver_lu_solve_loops(lu, n, pivot, b, work);
    }
}
