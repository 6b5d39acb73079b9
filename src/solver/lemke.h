/* Lemke's complementary pivoting for a dense LCP(M, q) (types and conventions in solver/lcp.h).
 *
 * The method (Cottle, Pang and Stone, "The Linear Complementarity Problem", 1992, sec. 4.4):
 * add an artificial variable z0 with covering vector d > 0,
 *
 *     w = M z + q + d z0,     w, z, z0 >= 0,     z_i w_i = 0,
 *
 * start from the basis {w} with z0 = -min_i q_i (the trivial solution z = 0 when q >= 0),
 * and pivot in the complement of the variable that left, until z0 leaves (a solution) or the
 * entering column has no positive entry (a secondary ray: TCH_LCP_RAY_TERMINATION). For a
 * copositive-plus M (every positive semi-definite M is one) a ray means that no solution exists
 * (CPS sec. 4.4), so the report is never a wrong answer.
 *
 * Degeneracy: the lexicographic minimum ratio test (CPS sec. 4.9). The leaving row is the
 * lexicographic minimum of (x_i, B̄⁻¹_i) / ā_i over the rows with ā_i > 0, where x are the basic
 * values, ā the entering column and B̄⁻¹ the inverse of the current basis expressed in the
 * starting basis; its rows stay lexicographically positive, so no basis repeats and Lemke does
 * not cycle. When z0 ties for the minimum ratio it leaves (and the solve ends).
 *
 * Pivoting: revised form with the explicit n x n inverse B̄⁻¹ updated by one Gauss-Jordan step
 * per pivot, O(n^2) per pivot: the entering column is a matrix-vector product with B̄⁻¹ and the
 * update a rank-one one, row by row over the rows whose entry of the entering column is not
 * zero. From TCH_LEMKE_BLAS_MIN_N unknowns up these are CBLAS's (dgemv, daxpy per row: OpenBLAS
 * on Debian), under it hand-written loops (the measured crossover, docs/solvers.md). The library never changes OpenBLAS's thread count (docs/solvers.md,
 * "Threads and determinism"). The returned z is then recomputed from the final basis with a
 * fresh LU factorization of M_AA (A = the basic z), and the better of the two by natural-map
 * residual is kept.
 *
 * Warm start (options.warm_start): the starting basis is {z_i : z_i > 0 in the z passed in} with
 * w for the others, factorized by LU, and the covering vector is d = B0 1, so that B0⁻¹ d = 1 and
 * everything above holds in the coordinates B0⁻¹ (Lemke's "advanced start"). When that basis
 * already solves the problem, no pivot is made. A z whose column is dependent on the others of
 * the basis (coplanar contacts that all press) is taken out of it, until M_SS is regular. Since
 * this d need not be positive, a ray or a pivot limit from a warm start is retried from the cold
 * start before it is reported.
 *
 * Rounding (options.accept_residual > 0). On degenerate problems with dependent columns (the
 * Stewart-Trinkle matrix of four coplanar contacts per face: rank-deficient Delassus blocks,
 * opposite friction edges, q = 0 on the λ rows) the product-form updates drift by more than
 * the tie tolerance, and z0 can reach zero without being picked to leave; the next entering
 * column then has no positive entry, a ray that exact arithmetic would not meet (z0 = 0 there
 * makes the basic point a solution). So a ray or a pivot limit is checked: the basic point
 * without z0 is polished as below, and when its natural-map residual is at most
 * accept_residual it is returned as a solution (verified, not assumed).
 *
 * Regularized retry (options.accept_residual > 0). When that check fails too, the problem is
 * solved again from the cold start with M + δ I, δ = 1e-12, 1e-10, ..., 1e-6 times M's largest
 * diagonal entry, and the first result whose natural-map residual on the original (M, q),
 * after polishing, is at most accept_residual is returned as a solution; when none is, z is
 * the point of smallest residual found (and the status TCH_ERR_NUMERICAL). The shift makes the
 * Delassus blocks of coplanar contacts (four corners of a face, the twins of a rim: rank 3 for
 * 4 normal rows) positive definite, so their columns are no longer dependent; it moves a
 * solution by O(δ |z|), and the residual is measured without it. Measured (issue 11 item 8): a
 * 128-vertex elliptic prism dropped on its rim at 1-3 m/s spinning up to 30 rad/s, 100 drops,
 * 1100 islands: 5 Lemke problems of 24 unknowns (4 contacts, 4 cone edges) ended on a ray with
 * residuals 1e-8 to 0.24 m/s, and 2 islands were then solved without friction; with the
 * retry, none (docs/contact-lcp.md, "Left to do").
 */
#pragma once

#include "base/arena.h"
#include "solver/lcp.h"

/* tch_lemke_options and tch_lemke_options_default: touche/lcp.h. */

/* The size from which the pivots' matrix-vector product and rank-one update are CBLAS's. */
enum { TCH_LEMKE_BLAS_MIN_N = 32 };

/* Which code makes the O(n²) products of a pivot: by n (TCH_LEMKE_BLAS_MIN_N), or one path
 * for any n (the tests and the benchmark compare the two). */
typedef enum tch_lemke_kernels {
    TCH_LEMKE_KERNELS_BY_SIZE,
    TCH_LEMKE_KERNELS_LOOPS,
    TCH_LEMKE_KERNELS_BLAS
} tch_lemke_kernels;

/* Solves LCP(M, q) for n >= 0 unknowns. m: [n*n] row-major, q: [n], both finite.
 * options: may be NULL (defaults). arena: scratch of about (2n^2 + 8n) reals, released before
 * return. z: [n], the warm start on input when asked for, the solution on output.
 * result: may be NULL. Returns TCH_OK, TCH_ERR_INVALID_ARGUMENT (bad sizes, non-finite input),
 * TCH_ERR_OUT_OF_MEMORY, or TCH_ERR_NUMERICAL (ray termination, pivot limit, singular basis;
 * z then holds the last basic point, not a solution). */
tch_status tch_lemke_solve(const tch_real* m, const tch_real* q, int n,
                           const tch_lemke_options* options, tch_arena* arena, tch_real* z,
                           tch_lcp_result* result, tch_error* err);

/* tch_lemke_solve with the pivots' products made by `kernels` (tch_lemke_solve is this with
 * TCH_LEMKE_KERNELS_BY_SIZE). */
tch_status tch_lemke_solve_kernels(const tch_real* m, const tch_real* q, int n,
                                   const tch_lemke_options* options, tch_lemke_kernels kernels,
                                   tch_arena* arena, tch_real* z, tch_lcp_result* result,
                                   tch_error* err);
