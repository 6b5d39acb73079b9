/* The mixed complementarity problem of a contact island's Jacobian rows, solved in body-velocity
 * form by projected Gauss-Seidel with subspace minimization (docs/contact-lcp.md, "Matrix-free
 * PGS", "Friction discs", "Subspace minimization").
 *
 * Unknowns: one impulse per row; a contact's normal row has z_n >= 0, its two friction rows
 * z_t = (z_t1, z_t2) lie in the disc |z_t| <= μ z_n. The row velocities are w = J ν + rhs, ν
 * the bodies' velocities with the impulses applied (ν = ν0 + M⁻¹ Jᵀ z); the problem is
 *
 *     z_n >= 0 ⊥ w_n >= 0,    z_t = P_disc(μ z_n)(z_t - w_t)
 *
 * (isotropic Coulomb friction with maximal dissipation; Stewart-Trinkle's normal rows,
 * reference/peg.md eqs. 5-9). A contact has 0 or 2 friction rows. A *bounded* contact (bound
 * b > 0: a joint's Coulomb friction) has no friction rows and its one row's impulse lies in
 * [-b, b] instead of [0, inf): z = P_[-b, b](z - w).
 */
#pragma once

#include <stdbool.h>

#include "base/arena.h"
#include "contact/rows.h"
#include "solver/lcp.h"
#include "solver/sparse_spd.h"

typedef struct tch_row_problem {
    int nc;                         /* contacts; their normal rows are rows 0 .. nc-1 */
    int nr;                         /* rows */
    const int* friction_start;      /* [nc] first friction row of each contact */
    const int* edges;               /* [nc] its friction rows (0 or 2) */
    const tch_real* mu;             /* [nc] friction coefficient */
    const tch_jacobian_row* rows;   /* [nr] */
    const tch_real* rhs;            /* [nr] */
    int body_count;                 /* the rows' bodies are below this */
    const tch_real* carried;        /* [nr] the velocity error the last step left on each row
                                     * (tch_row_errors), or NULL */
    tch_real* steady;               /* [nr] out, or NULL: the impulses for the next step's warm
                                     * start (tch_row_solve) */
    const tch_real* bound;          /* [nc] b > 0 for a bounded contact, else 0; or NULL (none) */
} tch_row_problem;

typedef struct tch_row_solve_options {
    int sweeps;                     /* sweep limit */
    tch_real tolerance;             /* stop when the natural-map residual is within this */
    tch_real accept;                /* stop short of the tolerance when the residual is within
                                     * this and stalls (see constraint_pgs.c) */
    tch_sparse_spd* subspace;       /* sparse Cholesky context for subspace minimization, or
                                     * NULL for plain PGS */
    bool give_up_when_slow;         /* stop when 64 sweeps in a row have not halved the
                                     * residual (when an exact solver can take over cheaply);
                                     * reason TCH_LCP_STALLED when the last 32 barely moved it */
    bool budget;                    /* a solve within a budget of a few sweeps: a subspace
                                     * step at every check that has not halved the residual */
    bool kept_factor_only;          /* subspace steps only with the context's kept factor, no
                                     * new factorization */
    bool iterate_only;              /* the caller applies the last iterate whatever its residual:
                                     * none is measured (result->residual is INFINITY); the
                                     * sweeps stop at the limit or when a sweep's components were
                                     * all within the tolerance */
} tch_row_solve_options;

/* Solves from the impulses z (warm start; zero for a cold one) on the velocities (v, w)
 * [body_count each], which do not include them yet; the solver's impulses stay applied to
 * (v, w). With problem->steady, also gives the impulses to warm-start the next step from: z,
 * except after a final subspace step whose factor still fits the free set, when the part of z
 * that only corrected the last step's leftover velocity error (problem->carried) is taken out,
 * z + A_FF⁻¹ e_F (docs/contact-lcp.md, "The warm start's two-step cycle"). Returns TCH_OK
 * when the residual is within the tolerance, TCH_ERR_NUMERICAL at the sweep limit or a stall,
 * TCH_ERR_OUT_OF_MEMORY; `result` has the reason, sweeps and residual. */
tch_status tch_row_solve(const tch_row_problem* problem, const tch_row_solve_options* options,
                         tch_arena* arena, tch_vec3* v, tch_vec3* w, tch_real* z,
                         tch_lcp_result* result);

/* The velocity error w_i = J_i ν + rhs_i of each row strictly inside its bounds, zero on the
 * others (their w_i is a complementary velocity, not an error), into errors[nr]: what a step that
 * accepts z leaves in the bodies' velocities, for the next step's `carried`. */
void tch_row_errors(const tch_row_problem* problem, const tch_vec3* v, const tch_vec3* w,
                    const tch_real* z, tch_real* errors);

/* The natural-map residual max_i |z_i − P_[lo_i, hi_i](z_i − w_i)| at the velocities (v, w). */
tch_real tch_row_residual(const tch_row_problem* problem, const tch_vec3* v, const tch_vec3* w,
                          const tch_real* z);
