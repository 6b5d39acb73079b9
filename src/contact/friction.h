/* Semi-implicit Coulomb friction over the points of one pair (docs/contact-point.md), shared by
 * the force models that want friction to hold exactly (point, pressure).
 *
 * After every normal force of the scene is applied, each body's velocity after one step is
 * predicted (tch_velocity_prediction); a pair's friction is the force that stops the predicted
 * slip at its points, each point with its 2x2 tangential inverse-mass matrix of both bodies, in
 * a few Gauss-Seidel sweeps over the points, each point's force clamped to its Coulomb disk and
 * opposing the slip when it slides. The predictions follow every change.
 *
 * Each point keeps the rows of its tangents (the Jacobian of the tangential slip with respect to
 * its bodies' velocities, and the predicted velocity change per unit of force), so that a sweep
 * reads and moves the predictions with a few dot products; the forces are applied to the
 * bodies once, when the sweeps are done.
 */
#pragma once

#include "contact/contact.h"

/* One point of the pair: where and its Coulomb bound; the rest is the solver's (tangent basis,
 * the rows below, inverse tangential mass over h, accumulated force).
 *
 * The rows, laid out for vector registers (the two tangents side by side, a pair's motion as
 * 12 contiguous reals), with sigma = -1 for side a and +1 for side b: the slip of b against a
 * along t_i is t_i . (v_b - v_a) + sum over the sides of u_i . w, with u_i = sigma r x t_i (r
 * from the side's centre of mass to the point); a force f = f_1 t_1 + f_2 t_2 on b changes
 * the pair's predicted motion (v_a, w_a, v_b, w_b) by f_1 motion[0] + f_2 motion[1], a side's
 * part of motion[i] being (sigma h t_i / m, sigma h I^-1 r x t_i). A static side (root 0) has
 * every row zero. For a link of a tree (tch_link_mobility), a side's part of motion[i] is
 * sigma h times its velocity change under the unit force t_i at the point. */
typedef struct tch_friction_point {
    tch_vec3 p_W;
    tch_real limit;      /* mu f_n, N */
    tch_vec3 t1, t2;
    int root[2];         /* the root bodies of sides a and b, 0 for a static one */
    tch_real t[3][2];    /* component k of t_1 and of t_2 */
    tch_real u[2][3][2]; /* side a's, then b's: component k of its u_1 and u_2 */
    tch_real motion[2][12]; /* the motion's change per unit force along t_1, t_2 */
    tch_real K_inv_h[2][2]; /* K^-1 / h by columns: the force that stops a slip in one step,
                             * per m/s, along t_i is sum_j K_inv_h[j][i] slip_j */
    tch_real f[2];       /* friction along t1, t2, N */
    tch_real f_entry[2]; /* f when the last tch_friction_relax began */
} tch_friction_point;

/* One pair's share of the points of several pairs solved together: points[start, start +
 * count). */
typedef struct tch_friction_pair {
    tch_pair_result* pair;
    int start, count;
} tch_friction_pair;

/* Friction coefficient at slip speed `speed`: static (mu_0) up to the stiction velocity v_s,
 * then a cubic fall to the dynamic mu at 3 v_s. */
tch_real tch_friction_coefficient(const tch_pair_params* params, tch_real speed);

/* Prepares a point at p_W with normal n_W (unit) and bound `limit` for the pair's bodies. */
void tch_friction_point_init(const tch_model* model, const tch_data* data,
                             const tch_velocity_prediction* pred, const tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 n_W, tch_real limit, tch_friction_point* fp);

/* Gauss-Seidel sweeps over the points of one pair (they share its two bodies) from the forces
 * they hold, moving the predictions only (the bodies' loads are untouched until
 * tch_friction_apply). Returns the largest change of a point's force over the call squared,
 * N^2. */
tch_real tch_friction_relax(tch_velocity_prediction* pred, tch_friction_point* points, int count);

/* The friction of several pairs solved together (each pair's points from zero after
 * tch_friction_point_init) and applied: block Gauss-Seidel over the pairs, each pass relaxing
 * every pair's points against predictions that include every other pair's latest friction,
 * until the forces settle (solving each pair alone against the predictions left by the pairs
 * before it lets a body's earlier pairs push along the slip its later pairs made: positive
 * work, docs/contact-point.md, "Friction between several pairs"). */
void tch_friction_solve_pairs(const tch_model* model, tch_data* data,
                              tch_velocity_prediction* pred, tch_friction_point* points,
                              const tch_friction_pair* pairs, int pair_count);

/* Applies each point's friction to the bodies and the pair's totals. */
void tch_friction_apply(const tch_model* model, tch_data* data, tch_pair_result* pair,
                        const tch_friction_point* points, int count);

/* Solves the points' friction (from zero after tch_friction_point_init) and applies it to the
 * bodies and the pair's totals: tch_friction_relax, then tch_friction_apply. */
void tch_friction_solve(const tch_model* model, tch_data* data, tch_velocity_prediction* pred,
                        tch_pair_result* pair, tch_friction_point* points, int count);

/* A solved point's friction force on b, world, N. */
tch_vec3 tch_friction_point_force(const tch_friction_point* fp);
