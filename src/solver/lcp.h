/* Linear complementarity problems over plain matrices: the types every solver shares.
 *
 * This module knows nothing of bodies or contacts. Contact and time-stepping code assembles a
 * matrix M and a vector q and calls one of:
 *
 *     solver/lemke.h   Lemke's complementary pivoting, dense LCP(M, q): exact, O(n^3)
 *     solver/pgs.h     projected Gauss-Seidel over a dense or CSR matrix, LCP or box MLCP
 *                      (bounds, equality rows, friction bounds scaled by a normal variable)
 *     solver/mlcp.h    mixed LCP with equality rows: Schur complement, then Lemke
 *
 * The problems (docs/solvers.md has the full statement):
 *
 *     LCP(M, q):   find z with  w = M z + q,  0 <= z  ⊥  w >= 0           (z_i w_i = 0)
 *     box MLCP:    find lo <= z <= hi with, for each row i, w_i = (M z + q)_i and
 *                      z_i = lo_i  =>  w_i >= 0,   z_i = hi_i  =>  w_i <= 0,
 *                      lo_i < z_i < hi_i  =>  w_i = 0
 *                  (lo = 0, hi = +inf is the LCP; lo = -inf, hi = +inf is an equality row)
 *
 * Both are measured by the natural map (Facchinei and Pang, "Finite-Dimensional Variational
 * Inequalities and Complementarity Problems", 2003, sec. 1.5):
 *
 *     r(z) = z - P_[lo,hi](z - w),   residual = ||r(z)||_inf
 *
 * which is zero exactly at a solution. For the LCP, r_i = z_i - max(0, z_i - w_i) = min(z_i, w_i).
 *
 * Conventions. Dense matrices are row-major, M[i*n + j] is row i, column j. Every solver takes z
 * as its warm start (when its options ask for one) and returns the solution in it. Scratch memory
 * comes from the caller's arena (base/arena.h) inside a mark/release bracket, so a solver called
 * every step allocates nothing once the arena has grown. Nothing prints; a failed solve returns
 * TCH_ERR_NUMERICAL, fills the tch_error and the result's reason, and leaves its last iterate in z
 * (not a solution: result.residual says how far it is).
 *
 * Rejected: a callback per matrix row for PGS. A CSR matrix serves the sparse and banded
 * problems of contact islands at the speed of a loop; a matrix-free form (velocities updated
 * per impulse, as sequential impulses do) belongs with the bodies, not here.
 */
#pragma once

#include <stdbool.h>

#include "touche/base.h"
#include "touche/lcp.h" /* the shared types: reason, result, bounds, residual, options */

/* A square matrix for the solvers that only need its rows (PGS, residuals): dense row-major,
 * or compressed sparse rows (row i holds value[k] at column[k] for row_start[i] <= k <
 * row_start[i+1]; columns need not be sorted; a missing diagonal entry counts as zero).
 * Storage is the caller's; build one with tch_lcp_matrix_dense / tch_lcp_matrix_csr. */
typedef enum tch_lcp_storage { TCH_LCP_DENSE, TCH_LCP_CSR } tch_lcp_storage;

typedef struct tch_lcp_matrix {
    tch_lcp_storage storage;
    int n;                  /* rows = columns */
    const tch_real* dense;  /* [n*n], row-major (dense storage) */
    const int* row_start;   /* [n+1] (CSR) */
    const int* column;      /* [row_start[n]] (CSR) */
    const tch_real* value;  /* [row_start[n]] (CSR) */
} tch_lcp_matrix;

tch_lcp_matrix tch_lcp_matrix_dense(const tch_real* m, int n);
tch_lcp_matrix tch_lcp_matrix_csr(int n, const int* row_start, const int* column,
                                  const tch_real* value);

/* (M z)_i, row i of M times z; also M_ii into *diagonal when it is not NULL (zero when a CSR
 * row stores no diagonal entry, the sum when it stores several). */
tch_real tch_lcp_matrix_row_dot(const tch_lcp_matrix* m, int i, const tch_real* z,
                                tch_real* diagonal);
/* M_ii (zero when a CSR row stores no diagonal entry). */
tch_real tch_lcp_matrix_diagonal(const tch_lcp_matrix* m, int i);

/* Checks a matrix: n >= 0, finite entries, CSR row starts non-decreasing from 0 and columns in
 * [0, n). TCH_ERR_INVALID_ARGUMENT otherwise. */
tch_status tch_lcp_matrix_check(const tch_lcp_matrix* m, tch_error* err);

/* The bounds of row i at the point z (the scaled form reads z[normal_index[i]]). */
void tch_lcp_bounds_at(const tch_lcp_bounds* bounds, int i, const tch_real* z, tch_real* lo,
                       tch_real* hi);

/* Checks a box MLCP's bounds: finite-or-infinite values with lo <= hi, normal indices in
 * [-1, n) and not pointing at a scaled row themselves. TCH_ERR_INVALID_ARGUMENT otherwise. */
tch_status tch_lcp_bounds_check(const tch_lcp_bounds* bounds, int n, tch_error* err);

/* The residuals of z (touche/lcp.h, tch_lcp_residual). */
tch_lcp_residual tch_lcp_residuals(const tch_lcp_matrix* m, const tch_real* q,
                                   const tch_lcp_bounds* bounds, const tch_real* z);

/* Checks that the first count entries of values are finite; the error names the array (`name`)
 * and the first bad entry. */
tch_status tch_lcp_check_finite(const tch_real* values, int count, const char* name,
                                tch_error* err);
