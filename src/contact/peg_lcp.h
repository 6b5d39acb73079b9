/* One time step of peg's velocity-level subproblem: the mixed LCP of eqs. 39-49 (peg.md §7)
 * with friction from the linearized cone (§8), assembled from the constraints of
 * contact/peg_constraints.h and solved by Lemke's method.
 *
 *     bodies (velocities, external forces, inverse mass and inertia)
 *     pairs (body A, body B, their U/I/X constraints, friction mu) --tch_peg_step_velocities-->
 *         the velocities nu^{l+1} of the step (positions are the caller's to advance)
 *
 * With nu = nu~ + M⁻¹ (G_n p_n + G_nI p_I + G_f p_f), nu~ = nu^l + h M⁻¹ lambda_ext, the
 * unknowns z = [p; c; p_f; sigma] of the reduced LCP (peg.md §7, "Reduced LCP") satisfy
 *
 *     force row of U or I/X j:  0 <= p_j ⊥ J_j nu + psi_j/h + sum_{s in j} c_s >= 0   (44, 45)
 *     slack s of I/X j:         0 <= c_s ⊥ (J_1 - J_{s+1}) nu + (psi_1 - psi_{s+1})/h
 *                                          + sum_{l <= s in j} c_l >= 0               (46, 47)
 *     friction direction d:     0 <= p_d ⊥ D_d nu + sigma_j >= 0
 *     sliding speed sigma_j:    0 <= sigma_j ⊥ mu p_j - sum_d p_d >= 0
 *
 * (slacks in velocity units, c/h). The matrix is neither symmetric nor positive semi-definite
 * (the E blocks of eq. 48), so projected Gauss-Seidel is not guaranteed; Lemke's method is.
 *
 * X-constraints. Eq. 47's force-free row (21) has no complementary variable; merged with a
 * dummy multiplier (peg.md §7) its column of the matrix is zero and Lemke meets a ray as soon
 * as that multiplier must enter. So an X here is an I whose primary may carry an impulse
 * (device (c) of peg.md §4.3, the authors' 2D "heuristic PEG"): the impulse acts only when
 * every contact of the X is at or past contact (max psi = 0). Friction is attached to the U
 * contacts and the primaries of the I-constraints only (peg.md §8).
 *
 * Friction Jacobian (peg.md §8): for a unit direction d perpendicular to n at the contact,
 * body A gets (-d, r_a x (-d)) and body B (d, r_b x d), the signs of the normal row; the
 * authors' preDynamics.m gives both bodies +(d, r x d), which is wrong (their experiments ran
 * frictionless). The test of two free bodies sliding on each other checks the sign through
 * conservation of momentum.
 *
 * Gauss-Seidel (options.sweeps). Without friction, constraint j's rows reduce to one impulse
 * p_j along its primary's row J_1 and the complementarity 0 <= p_j ⊥ max_s g_s >= 0, g_s =
 * J_s nu + psi_s/h over its contacts (the slacks' forward substitution, eqs. 46-47, makes the
 * force row psi_1 + sum c = max psi, peg.md §11.1). With the other constraints' impulses held,
 * g_s is affine in p_j, g_s + (p' - p_j) a_s with a_s = J_s M⁻¹ J_1ᵀ, so the block is solved
 * exactly: its solutions are p' = 0 when max_s g_s at p' = 0 is >= 0 and the ends > 0 of the
 * interval where max_s g_s <= 0 (max is convex and a_1 > 0), and the block takes the one
 * nearest p_j (keeping an I-constraint on its branch: the sweeps cycled otherwise). Sweeps
 * over the constraints repeat that, each block's step over-relaxed by options.relaxation, the
 * velocities updated after each (matrix-free: O(contacts) per sweep, no dense matrix). The matrix is not PSD, so
 * convergence is not guaranteed: the result is accepted only when the natural-map residual of
 * every force row, |min(p, max_s g_s)|, is at most options.tolerance (the slack rows hold
 * exactly by construction), else Lemke solves the full LCP from the caller's warm start
 * (result.swept says which). The sweeps stop early when they cycle (contact/peg_lcp.c).
 *
 * The standard model (TCH_PEG_STANDARD): the same bodies and constraints with the point/plane
 * rows of Stewart and Trinkle (eqs. 8-9): a U row at every U contact and at the deepest
 * contact of each I (one row per vertex at its deepest point), X dropped. This is the model
 * whose traps (figs. 2, 3, 5) peg removes; it is here to show them.
 */
#pragma once

#include "base/arena.h"
#include "contact/peg_constraints.h"
#include "solver/lcp.h"

typedef struct tch_peg_body {
    tch_vec3 position;         /* centre of mass, world */
    tch_vec3 velocity;         /* of the centre of mass, nu^l */
    tch_vec3 angular_velocity; /* world */
    tch_vec3 force, torque;    /* external, held over the step (gravity, gyroscopic) */
    tch_real inverse_mass;     /* 0: a static body */
    tch_mat3 inverse_inertia;  /* world frame; zero for a static body */
} tch_peg_body;

typedef struct tch_peg_pair {
    int body_a, body_b;                     /* indices into the bodies */
    const tch_peg_constraints* constraints; /* built with A and B in this order */
    tch_real friction;                      /* mu; 0 for frictionless */
    tch_vec3* impulses; /* optional, [constraints->count]: out, each constraint's impulse on B
                         * at its primary (normal and friction; the opposite on A), N s */
    tch_real* unknowns; /* optional, [tch_peg_pair_unknowns]: the pair's LCP unknowns, its
                         * constraints' in order (tch_peg_constraint_unknowns each): in, the
                         * warm start (options.warm_start); out, the solution */
} tch_peg_pair;

typedef enum tch_peg_model {
    TCH_PEG_MODEL_PEG = 0,
    TCH_PEG_MODEL_STANDARD = 1,
} tch_peg_model;

typedef struct tch_peg_step_options {
    tch_real h; /* time step, s */
    tch_peg_model model;
    int friction_directions; /* n_d per contact: 2 in the plane (planar), >= 3 in 3D */
    bool planar;             /* 2D: friction along the in-plane tangent only (n_d = 2) */
    bool warm_start;         /* Lemke starts from the basis of the pairs' unknowns > 0 */
    tch_vec3 plane_normal;   /* planar: the axis the bodies turn about (unit); zero: z, the
                              * plane of the 2D cases (the engine's planar mode: y) */
    int sweeps;              /* > 0: a frictionless problem is first solved by projected
                              * Gauss-Seidel over the constraints, at most this many sweeps,
                              * and Lemke solves it (warm-started there) only when the natural
                              * residual stays above `tolerance`; 0: Lemke only */
    tch_real tolerance;      /* the sweeps' natural-map residual to accept, m/s */
    tch_real relaxation;     /* the sweeps' over-relaxation omega: each block moves its impulse
                              * omega times the way to its solution (kept >= 0); 0 or 1:
                              * plain Gauss-Seidel */
} tch_peg_step_options;

typedef struct tch_peg_step_result {
    int force_rows;     /* U rows and I/X primaries */
    int slack_rows;     /* c of eqs. 46-47 */
    int friction_rows;  /* linearized cone directions, plus one sigma per frictional contact */
    int sweeps;         /* Gauss-Seidel sweeps made (options.sweeps) */
    bool swept;         /* solved by the sweeps (no Lemke) */
    tch_real residual;  /* the sweeps' natural-map residual at their end, m/s */
    tch_lcp_result lcp; /* Lemke's report (when it ran) */
} tch_peg_step_result;

/* Solves one step's LCP and writes nu^{l+1} into velocity_out and angular_out ([body_count]).
 * Static bodies (inverse mass 0) keep their velocities. The arena serves all scratch (the
 * dense matrix: about (rows^2 + 2 rows^2 for Lemke) reals) and is released before return.
 * Returns TCH_OK; TCH_ERR_INVALID_ARGUMENT (bad sizes, h <= 0, a pair naming a bad body,
 * friction directions out of range); TCH_ERR_OUT_OF_MEMORY; TCH_ERR_NUMERICAL when Lemke
 * fails (ray termination, pivot limit: the standard model's infeasible traps, fig. 3), in
 * which case the outputs hold the unconstrained velocities nu~ and result->lcp says why. */
tch_status tch_peg_step_velocities(const tch_peg_body* bodies, int body_count,
                                   const tch_peg_pair* pairs, int pair_count,
                                   const tch_peg_step_options* options, tch_arena* arena,
                                   tch_vec3* velocity_out, tch_vec3* angular_out,
                                   tch_peg_step_result* result, tch_error* err);

/* The LCP unknowns of constraint i of the pair under the options: its force and slack
 * unknowns, then its friction directions and sliding speed (none for X, or frictionless). */
int tch_peg_constraint_unknowns(const tch_peg_pair* pair, int i, const tch_peg_step_options* o);
/* Their sum over the pair's constraints. */
int tch_peg_pair_unknowns(const tch_peg_pair* pair, const tch_peg_step_options* o);
