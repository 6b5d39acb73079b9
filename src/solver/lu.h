/* Dense LU factorization with partial pivoting, for the solver module's non-symmetric systems
 * (a Lemke warm-start basis, an MLCP equality block that is not definite, a final basis).
 * Hand-written on purpose: a LAPACK dgetrf build is not linked yet (docs/solvers.md).
 *
 * Algorithm: Golub and Van Loan, "Matrix Computations", 4th ed., alg. 3.4.1 (outer-product
 * Gaussian elimination with partial pivoting, P A = L U).
 */
#pragma once

#include "touche/base.h"

/* Factors the n x n row-major `a` in place: unit lower L below the diagonal, U on and above,
 * row i of P A is row pivot[i] of A. Returns 0, or 1 + the column whose largest remaining entry
 * is at most n DBL_EPSILON times the largest entry of A (numerically singular). */
int tch_solver_lu_factor(tch_real* a, int n, int* pivot);

/* Solves A x = b in place (b becomes x) with the factors from tch_solver_lu_factor.
 * `work` holds n entries. */
void tch_solver_lu_solve(const tch_real* lu, int n, const int* pivot, tch_real* b,
                         tch_real* work);
