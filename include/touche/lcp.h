/// touche: the complementarity solvers on their own, over dense row-major matrices.
///
/// The solvers the `lcp` contact model runs, for users with their own problems (and the island
/// problems of tch_data_observe_islands; docs/solvers.md has the statements and measurements):
///
///     LCP(M, q):  find z with  w = M z + q,  0 <= z  ⊥  w >= 0
///     box MLCP:   find lo <= z <= hi with, per row i, w_i = (M z + q)_i and
///                 z_i = lo_i => w_i >= 0,  z_i = hi_i => w_i <= 0,  lo_i < z_i < hi_i => w_i = 0
///     mixed LCP:  the first e rows are equations with free unknowns, the others an LCP
///
/// measured by the natural map r(z) = z - P_[lo,hi](z - w), residual = ||r(z)||_inf, which is zero
/// exactly at a solution (Facchinei and Pang 2003, sec. 1.5). M[i*n + j] is row i, column j.
/// z is the warm start on input (when the options ask for one) and the solution on output. Each
/// call allocates its scratch and frees it before returning (the contact model's own calls use a
/// per-data arena instead). Nothing prints; a failed solve returns TCH_ERR_NUMERICAL, fills the
/// error and the result's reason, and leaves its last iterate in z.
#pragma once

#include <stdbool.h>

#include "touche/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Why a solve failed (TCH_LCP_SOLVED when it did not).
typedef enum tch_lcp_reason {
    TCH_LCP_SOLVED = 0,
    TCH_LCP_RAY_TERMINATION, ///< Lemke met a secondary ray: no solution found (none may exist)
    TCH_LCP_MAX_ITERATIONS,  ///< pivot or sweep limit reached before the tolerance
    TCH_LCP_SINGULAR,        ///< a basis or the equality block could not be factorized
    TCH_LCP_STALLED,         ///< an iterative solver's residual stopped falling: more
                             ///< iterations of it would not reach the tolerance
} tch_lcp_reason;

/// What a solver reports besides z.
typedef struct tch_lcp_result {
    tch_status status;     ///< TCH_OK, or TCH_ERR_NUMERICAL (reason says why)
    tch_lcp_reason reason;
    int iterations;        ///< Lemke: pivots; PGS: sweeps
    tch_real residual;     ///< natural-map residual ||z - P(z - w)||_inf of the returned z
} tch_lcp_result;

/// Bounds of a box MLCP, per row i:
///
///     normal_index == NULL or normal_index[i] < 0:   lo[i] <= z_i <= hi[i]
///     normal_index[i] = k >= 0:   lo[i] max(z_k, 0) <= z_i <= hi[i] max(z_k, 0)
///
/// The second form is the friction pyramid |z_f| <= mu z_n (lo = -mu, hi = mu, k = the normal
/// row), as in ODE's findex. lo may be -INFINITY and hi +INFINITY; lo <= hi. lo == NULL means all
/// zeros and hi == NULL all +INFINITY, so a struct of three NULLs is the plain LCP.
///
/// With `disc`, two consecutive rows i, i+1 scaled by the same row k are one friction disc,
/// |(z_i, z_i+1)| <= hi_i max(z_k, 0) (isotropic Coulomb friction; lo_i = -hi_i), and their
/// natural-map component is |z_t - P_disc(z_t - w_t)| (the lcp model's row solver). Only the
/// residuals take this form; the solvers refuse it.
typedef struct tch_lcp_bounds {
    const tch_real* lo;      ///< [n] or NULL
    const tch_real* hi;      ///< [n] or NULL
    const int* normal_index; ///< [n] or NULL
    bool disc;               ///< scaled row pairs are friction discs
} tch_lcp_bounds;

/// Residuals of a candidate z. For the LCP (bounds NULL or all NULL):
///
///     natural_map     max_i |min(z_i, w_i)|  (= ||z - max(0, z - w)||_inf)
///     z_dot_w         sum_i z_i w_i
///     infeasibility   max(0, -min_i z_i, -min_i w_i)
///
/// For a box MLCP natural_map is ||z - P_[lo(z),hi(z)](z - w)||_inf, z_dot_w sums z_i w_i over the
/// rows with lo = 0 and hi = +inf only, and infeasibility is the largest bound violation of z.
typedef struct tch_lcp_residual {
    tch_real natural_map;
    tch_real z_dot_w;
    tch_real infeasibility;
} tch_lcp_residual;

/// Lemke's complementary pivoting (Cottle, Pang and Stone 1992, sec. 4.4) with the
/// lexicographic degeneracy rule (sec. 4.9): exact, O(n^2) per pivot. A ray termination means,
/// for a copositive-plus M (every positive semi-definite M), that no solution exists.
typedef struct tch_lemke_options {
    int max_pivots;            ///< limit on pivots; 0 means 10 (n + 10)
    tch_real pivot_tolerance;  ///< entering-column entries <= this times the column's largest
                               ///< magnitude are treated as zero in the ratio test (1e-11)
    bool warm_start;           ///< start from the basis {i : z_i > 0} of the z passed in
    tch_real accept_residual;  ///< a ray or the pivot limit still counts as solved when the
                               ///< polished basic point has a natural-map residual at most
                               ///< this (0: never; src/solver/lemke.h, "Rounding")
} tch_lemke_options;

/// Projected Gauss-Seidel with over-relaxation (CPS 1992, chapter 5): converges for a symmetric
/// positive definite M and 0 < omega < 2.
typedef struct tch_pgs_options {
    int max_iterations;  ///< sweeps (100)
    tch_real tolerance;  ///< natural-map residual to reach (1e-8), in the units of w
    tch_real omega;      ///< relaxation, 0 < omega < 2 (1: plain Gauss-Seidel)
    bool warm_start;     ///< start from the z passed in; else from the projection of 0
} tch_pgs_options;

TCH_API tch_lemke_options tch_lemke_options_default(void);
TCH_API tch_pgs_options tch_pgs_options_default(void);

/// Solves LCP(M, q) by Lemke. M: [n*n], q: [n], finite; options may be NULL (the defaults);
/// result may be NULL. TCH_ERR_INVALID_ARGUMENT (sizes, non-finite input),
/// TCH_ERR_OUT_OF_MEMORY, or TCH_ERR_NUMERICAL (ray, pivot limit, singular basis).
TCH_API tch_status tch_lcp_solve_lemke(const tch_real* M, const tch_real* q, int n,
                                       const tch_lemke_options* options, tch_real* z,
                                       tch_lcp_result* result, tch_error* err);
/// Solves the box MLCP (bounds NULL: the LCP) by PGS. M needs a positive diagonal.
/// TCH_ERR_INVALID_ARGUMENT (non-finite input, a diagonal entry <= 0, bad bounds or options) or
/// TCH_ERR_NUMERICAL (sweep limit reached; z is the last iterate).
TCH_API tch_status tch_lcp_solve_pgs(const tch_real* M, const tch_real* q, int n,
                                     const tch_lcp_bounds* bounds, const tch_pgs_options* options,
                                     tch_real* z, tch_lcp_result* result, tch_error* err);
/// Solves the mixed LCP whose first `equality_count` rows are equations in free unknowns (their
/// block A invertible) and the others an LCP: a Schur complement, then Lemke
/// (src/solver/mlcp.h). result's residual counts the equality rows' |row value|.
TCH_API tch_status tch_lcp_solve_mixed(const tch_real* M, const tch_real* q, int n,
                                       int equality_count, const tch_lemke_options* options,
                                       tch_real* z, tch_lcp_result* result, tch_error* err);
/// The residuals of z for LCP(M, q) or the box MLCP of `bounds` (NULL: the LCP).
TCH_API tch_lcp_residual tch_lcp_residuals_dense(const tch_real* M, const tch_real* q, int n,
                                                 const tch_lcp_bounds* bounds, const tch_real* z);
/// Short name of a reason ("solved", "ray termination", ...). Never NULL.
TCH_API const char* tch_lcp_reason_name(tch_lcp_reason reason);

#ifdef __cplusplus
}
#endif
