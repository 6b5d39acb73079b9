/* Small dense factorizations on row-major tch_real arrays, for the systems of a few dozen
 * unknowns that contact and dynamics build (a body's 6x6 blocks, a contact island's Delassus
 * matrix). The caller owns all storage; nothing allocates, nothing prints.
 *
 * Both factorizations work in place on the lower triangle of an n x n matrix `a` (a[i*n + j],
 * row i, column j) and never read or write its strict upper triangle, so a caller may keep
 * other data there. They assume a symmetric positive definite matrix and stop at the first
 * pivot that is not positive (or is below 4 DBL_EPSILON times the original diagonal entry,
 * which is where rounding leaves a singular matrix): they then return 1 + that pivot's index,
 * with `a` partly overwritten. They return 0 on success.
 *
 * Algorithms: Golub and Van Loan, "Matrix Computations", 4th ed., alg. 4.2.2 (Cholesky,
 * gaxpy form) and section 4.1.2 (LDL^T).
 */
#pragma once

#include "touche/base.h"

/* A = L L^T; L overwrites the lower triangle (diagonal included). */
int tch_dense_cholesky(tch_real* a, int n);
/* tch_dense_cholesky(a, 6), the same bits (a body's 6x6 block, solver/block_cholesky.c). */
int tch_dense_cholesky_6(tch_real* a);
/* Solves L L^T x = b in place (b becomes x), with L from tch_dense_cholesky. */
void tch_dense_cholesky_solve(const tch_real* l, int n, tch_real* b);

/* A = L D L^T with L unit lower triangular: the strict lower triangle receives L, the
 * diagonal receives D. No square roots. */
int tch_dense_ldlt(tch_real* a, int n);
/* Solves L D L^T x = b in place (b becomes x), with the factors from tch_dense_ldlt. */
void tch_dense_ldlt_solve(const tch_real* ld, int n, tch_real* b);

/* y = A x for a rows x cols row-major A; y must not alias x. */
void tch_dense_mat_vec(const tch_real* a, int rows, int cols, const tch_real* x, tch_real* y);
