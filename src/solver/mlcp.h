/* Mixed LCP with equality (bilateral) rows and complementarity rows, solved exactly by a Schur
 * complement and Lemke.
 *
 * The problem, with the first e = equality_count rows and unknowns free (u) and the other
 * c = n - e complementary (v), as in Stewart-Trinkle's MCP (peg.md eq. 8) or joints plus
 * contacts:
 *
 *     [ 0 ]   [ A  C ] [ u ]   [ a ]
 *     [ w ] = [ D  B ] [ v ] + [ b ],      u free,   0 <= v ⊥ w >= 0
 *
 * Eliminating u = -A⁻¹ (a + C v) (A must be invertible) leaves the LCP in v
 *
 *     w = (B - D A⁻¹ C) v + (b - D A⁻¹ a)
 *
 * (B - D A⁻¹ C is the Schur complement M/A of A in M), which Lemke solves (solver/lemke.h). A is factorized by
 * Cholesky when it is symmetric and definite of either sign (A = -M in Stewart-Trinkle's form is
 * negative definite), else by LU with partial pivoting; a singular A fails with
 * TCH_LCP_SINGULAR. When M is positive semi-definite and A positive definite, so is the Schur
 * complement, and Lemke's ray report keeps its meaning.
 */
#pragma once

#include "base/arena.h"
#include "solver/lemke.h"

/* Solves the MLCP above. m: [n*n] row-major, q: [n], finite; 0 <= equality_count <= n.
 * options: Lemke's for the reduced LCP (may be NULL); warm_start reads v from z[e..n).
 * arena: scratch of about e^2 + 2 e c + 3 c^2 reals plus Lemke's, released before return.
 * z: [n] = [u; v] out (and v in for a warm start). result (may be NULL): Lemke's pivots and the
 * natural-map residual of the whole MLCP (equality rows count their |row value|).
 * Returns TCH_OK, TCH_ERR_INVALID_ARGUMENT, TCH_ERR_OUT_OF_MEMORY or TCH_ERR_NUMERICAL (singular
 * A, or Lemke's failure: ray termination, pivot limit). */
tch_status tch_mlcp_solve(const tch_real* m, const tch_real* q, int n, int equality_count,
                          const tch_lemke_options* options, tch_arena* arena, tch_real* z,
                          tch_lcp_result* result, tch_error* err);
