/* Dense LU factorization with partial pivoting, for the solver module's non-symmetric systems
 * (a Lemke warm-start basis, an MLCP equality block that is not definite, a final basis).
 * From TCH_SOLVER_LU_LAPACK_MIN_N unknowns up, LAPACK's blocked dgetrf is faster than the loops
 * below (bench/solver/bench_dense.c, docs/solvers.md) and does the work (solver/dense_lapack.h);
 * under it the hand-written elimination does. Factor and solve pick the same path from n, so
 * the factors of one are only ever read by the matching solve.
 *
 * Algorithm of the loops: Golub and Van Loan, "Matrix Computations", 4th ed., alg. 3.4.1
 * (outer-product Gaussian elimination with partial pivoting, P A = L U).
 */
#pragma once

#include "touche/base.h"

/* The size from which the LU is LAPACK's (the measured crossover, docs/solvers.md). */
enum { TCH_SOLVER_LU_LAPACK_MIN_N = 64 };

/* Factors the n x n row-major `a` in place (n ints in `pivot`), by the loops below
 * TCH_SOLVER_LU_LAPACK_MIN_N and by tch_solver_lapack_lu_factor from it up. Returns 0, or
 * 1 + a step whose pivot is at most n DBL_EPSILON times the largest entry of A (numerically
 * singular). */
int tch_solver_lu_factor(tch_real* a, int n, int* pivot);

/* Solves A x = b in place (b becomes x) with the factors from tch_solver_lu_factor.
 * `work` holds n entries. */
void tch_solver_lu_solve(const tch_real* lu, int n, const int* pivot, tch_real* b,
                         tch_real* work);

/* The hand-written path, for any n: unit lower L below the diagonal, U on and above, row i of
 * P A is row pivot[i] of A. Returns 0, or 1 + the column whose largest remaining entry is at
 * most n DBL_EPSILON times the largest entry of A. */
int tch_solver_lu_factor_loops(tch_real* a, int n, int* pivot);

/* Solves A x = b in place with the factors from tch_solver_lu_factor_loops. */
void tch_solver_lu_solve_loops(const tch_real* lu, int n, const int* pivot, tch_real* b,
                               tch_real* work);

/* max_k |a_k| over `count` entries (the scale of the singularity test). */
tch_real tch_solver_largest_magnitude(const tch_real* a, size_t count);
