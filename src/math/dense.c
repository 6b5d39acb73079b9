#include "math/dense.h"

#include <float.h>
#include <math.h>

/* A pivot is accepted when positive, finite and above rounding noise of its diagonal entry. */
static int pivot_is_positive(tch_real pivot, tch_real diagonal) {
    return isfinite(pivot) && pivot > 0 && pivot > 4 * DBL_EPSILON * fabs(diagonal);
}

/* sum_{k < count} x[k] y[k] */
static tch_real dot(const tch_real* x, const tch_real* y, int count) {
    tch_real s = 0;
    for (int k = 0; k < count; ++k) {
        s += x[k] * y[k];
    }
    return s;
}

/* Row j of L: L_jk = (a_jk - sum_{m<k} L_jm L_km) / L_kk, then L_jj = sqrt(a_jj - sum L_jm^2). */
static inline int cholesky(tch_real* a, int n) {
    for (int j = 0; j < n; ++j) {
        tch_real* row_j = a + j * n;
        for (int k = 0; k < j; ++k) {
            const tch_real* row_k = a + k * n;
            row_j[k] = (row_j[k] - dot(row_j, row_k, k)) / row_k[k];
        }
        tch_real pivot = row_j[j] - dot(row_j, row_j, j);
        if (!pivot_is_positive(pivot, row_j[j])) {
            return j + 1;
        }
        row_j[j] = sqrt(pivot);
    }
    return 0;
}

int tch_dense_cholesky(tch_real* a, int n) {
    return cholesky(a, n);
}

/* The same operations with n = 6 known to the compiler (unrolled). */
int tch_dense_cholesky_6(tch_real* a) {
    return cholesky(a, 6);
}

/* Forward substitution L y = b, then back substitution L^T x = y. */
void tch_dense_cholesky_solve(const tch_real* l, int n, tch_real* b) {
    for (int i = 0; i < n; ++i) {
        b[i] = (b[i] - dot(l + i * n, b, i)) / l[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) {
            b[i] -= l[k * n + i] * b[k];
        }
        b[i] /= l[i * n + i];
    }
}

/* Row j: with w_k = L_jk d_k, w_k = a_jk - sum_{m<k} w_m L_km, L_jk = w_k / d_k,
 * d_j = a_jj - sum_k w_k L_jk. The w_k are kept in row j while it is built. */
int tch_dense_ldlt(tch_real* a, int n) {
    for (int j = 0; j < n; ++j) {
        tch_real* row_j = a + j * n;
        for (int k = 0; k < j; ++k) {
            row_j[k] -= dot(row_j, a + k * n, k);
        }
        tch_real pivot = row_j[j];
        for (int k = 0; k < j; ++k) {
            tch_real w = row_j[k];
            row_j[k] = w / a[k * n + k];
            pivot -= w * row_j[k];
        }
        if (!pivot_is_positive(pivot, row_j[j])) {
            return j + 1;
        }
        row_j[j] = pivot;
    }
    return 0;
}

/* L y = b (unit diagonal), z = D^-1 y, L^T x = z. */
void tch_dense_ldlt_solve(const tch_real* ld, int n, tch_real* b) {
    for (int i = 0; i < n; ++i) {
        b[i] -= dot(ld + i * n, b, i);
    }
    for (int i = 0; i < n; ++i) {
        b[i] /= ld[i * n + i];
    }
    for (int i = n - 1; i >= 0; --i) {
        for (int k = i + 1; k < n; ++k) {
            b[i] -= ld[k * n + i] * b[k];
        }
    }
}

void tch_dense_mat_vec(const tch_real* a, int rows, int cols, const tch_real* x, tch_real* y) {
    for (int i = 0; i < rows; ++i) {
        y[i] = dot(a + i * cols, x, cols);
    }
}
