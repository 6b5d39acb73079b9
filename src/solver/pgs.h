/* Projected Gauss-Seidel (PGS) for the LCP and the box MLCP of solver/lcp.h, over a dense or
 * CSR matrix.
 *
 * One sweep visits the rows in order i = 0 .. n-1 and, with the latest values of the other
 * unknowns (projected SOR, the splitting method of Cottle, Pang and Stone, "The Linear
 * Complementarity Problem", 1992, chapter 5, with relaxation ω):
 *
 *     w_i = (M z)_i + q_i
 *     z_i ← P_[lo_i(z), hi_i(z)] ( z_i − ω w_i / M_ii )
 *
 * where the bounds of a friction row are read from the current value of its normal row (the
 * caller orders each normal row before its friction rows). PGS converges for symmetric positive
 * definite M and 0 < ω < 2 (CPS chapter 5); for a symmetric positive semi-definite M and a
 * solvable problem its accumulation points are solutions (Mangasarian, "Solution of symmetric
 * linear complementarity problems by iterative methods", JOTA 22, 1977); for other matrices
 * (PEG's, Stewart-Trinkle's with σ rows) it may not converge: use Lemke there.
 *
 * Stop: after each sweep the natural-map components seen during the sweep, |z_i − P(z_i − w_i)|
 * before each update, give a free estimate of the residual; once it is at most `tolerance`, the
 * true residual ||z − P(z − (M z + q))||_inf of the end-of-sweep z is computed (one more product
 * with M) and the solve stops when that one is at most `tolerance`. Otherwise it stops after
 * max_iterations sweeps with TCH_ERR_NUMERICAL, reason TCH_LCP_MAX_ITERATIONS, and z holds the
 * last iterate (a time stepper may accept it; result.residual says how good it is).
 *
 * No scratch memory: the sweep works in z.
 */
#pragma once

#include "solver/lcp.h"

/* tch_pgs_options and tch_pgs_options_default: touche/lcp.h. */

/* Solves the box MLCP (bounds as in solver/lcp.h; NULL is the LCP) by PGS.
 * m: n x n with positive diagonal, finite; q: [n] finite; options: may be NULL (defaults);
 * z: [n], warm start in (when asked for) and solution out; result: may be NULL.
 * Returns TCH_OK, TCH_ERR_INVALID_ARGUMENT (non-finite input, a diagonal entry <= 0, bad bounds
 * or options, CSR column out of range) or TCH_ERR_NUMERICAL (iteration limit reached). */
tch_status tch_pgs_solve(const tch_lcp_matrix* m, const tch_real* q, const tch_lcp_bounds* bounds,
                         const tch_pgs_options* options, tch_real* z, tch_lcp_result* result,
                         tch_error* err);
