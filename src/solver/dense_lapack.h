/* Dense LU and Cholesky through LAPACKE (OpenBLAS on Debian), on the solver module's row-major
 * arrays, with the same storage and failure tests as the hand-written factorizations
 * (solver/lu.h, math/dense.h). Nothing allocates: the *_work LAPACKE entry points are called
 * in column-major order, which reads a row-major array as its transpose.
 *
 * Threads: these calls never change OpenBLAS's thread setting. OpenBLAS decides how many threads
 * a dgetrf or dpotrf uses from OPENBLAS_NUM_THREADS (or openblas_set_num_threads in the
 * application); the library leaves that choice to the application. Results are the same bits run
 * to run for the same input and thread count (test_dense_lapack checks it in one process).
 */
#pragma once

#include "touche/base.h"

/* The size from which a Cholesky in the solver module is LAPACK's (the measured crossover,
 * docs/solvers.md). */
enum { TCH_SOLVER_CHOLESKY_LAPACK_MIN_N = 16 };

/* The size from which tch_solver_cholesky_solve_many uses LAPACK (measured with n right-hand
 * sides, as the contact space's consistent inverse has at least: bench_dense "cholesky n rhs"). */
enum { TCH_SOLVER_CHOLESKY_SOLVE_MANY_LAPACK_MIN_N = 8 };

/* P Aᵀ = L U of the transpose of the n x n row-major `a` (LAPACK dgetrf on the column-major
 * view), in place. `pivot` receives LAPACK's row interchanges (1-based). Returns 0, or 1 + the
 * first k whose pivot u_kk is at most n DBL_EPSILON times the largest entry of A (numerically
 * singular, as tch_solver_lu_factor_loops). */
int tch_solver_lapack_lu_factor(tch_real* a, int n, int* pivot);

/* Solves A x = b in place (b becomes x) with the factors from tch_solver_lapack_lu_factor
 * (LAPACK dgetrs on the transpose). */
void tch_solver_lapack_lu_solve(const tch_real* lu, int n, const int* pivot, tch_real* b);

/* A = L Lᵀ for a symmetric positive definite n x n row-major `a` (LAPACK dpotrf, upper factor
 * of the column-major view). As tch_dense_cholesky, L overwrites the lower triangle and the
 * strict upper triangle is neither read nor written, so the factor can be used with
 * tch_dense_cholesky_solve. `diagonal` (n reals) receives A's diagonal, which the failure test
 * needs: returns 0, or 1 + the first j whose pivot L_jj² is not above 4 DBL_EPSILON |a_jj|
 * (or is not positive, where LAPACK stops). */
int tch_solver_lapack_cholesky(tch_real* a, int n, tch_real* diagonal);

/* Solves L Lᵀ x = b in place with L from tch_solver_lapack_cholesky (LAPACK dpotrs). */
void tch_solver_lapack_cholesky_solve(const tch_real* l, int n, tch_real* b);

/* Solves L Lᵀ X = B in place for `count` right-hand sides stored one after the other
 * (b + k n is the k-th), with L from tch_solver_lapack_cholesky (one dpotrs call: two
 * triangular solves with many right-hand sides, blocked). */
void tch_solver_lapack_cholesky_solve_many(const tch_real* l, int n, tch_real* b, int count);

/* The solver module's Cholesky by size: tch_solver_lapack_cholesky from
 * TCH_SOLVER_CHOLESKY_LAPACK_MIN_N up, tch_dense_cholesky (math/dense.h) under it, with the
 * same storage (L in the lower triangle) and failure test; `diagonal` (n reals) is scratch.
 * Returns 0 or 1 + the failing pivot. */
int tch_solver_cholesky(tch_real* a, int n, tch_real* diagonal);

/* Solves L Lᵀ X = B in place for `count` right-hand sides stored one after the other, with L
 * from tch_solver_cholesky: tch_solver_lapack_cholesky_solve_many from
 * TCH_SOLVER_CHOLESKY_SOLVE_MANY_LAPACK_MIN_N up, tch_dense_cholesky_solve per right-hand side
 * under it (either reads either factor; the split is by speed). */
void tch_solver_cholesky_solve_many(const tch_real* l, int n, tch_real* b, int count);
