/* Semi-implicit Coulomb friction over the points of one pair (docs/contact-point.md), shared by
 * the force models that want friction to hold exactly (point, pressure).
 *
 * After every normal force of the scene is applied, each body's velocity after one step is
 * predicted (tch_velocity_prediction); a pair's friction is the force that stops the predicted
 * slip at its points, each point with its 2x2 tangential inverse-mass matrix of both bodies, in
 * a few Gauss-Seidel sweeps over the points, each point's force clamped to its Coulomb disk and
 * opposing the slip when it slides. The predictions follow every change.
 */
#pragma once

#include "contact/contact.h"

/* One point of the pair: where, along which normal, and its Coulomb bound; the rest is the
 * solver's (tangent basis, inverse tangential mass, accumulated force). */
typedef struct tch_friction_point {
    tch_vec3 p_W, n_W;
    tch_real limit;      /* mu f_n, N */
    tch_vec3 t1, t2;
    tch_real K_inv[2][2];
    tch_real f1, f2;     /* friction along t1, t2, N */
} tch_friction_point;

/* Friction coefficient at slip speed `speed`: static (mu_0) up to the stiction velocity v_s,
 * then a cubic fall to the dynamic mu at 3 v_s. */
tch_real tch_friction_coefficient(const tch_pair_params* params, tch_real speed);

/* Prepares a point at p_W with normal n_W (unit) and bound `limit` for the pair's bodies. */
void tch_friction_point_init(const tch_model* model, const tch_data* data,
                             const tch_velocity_prediction* pred, const tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 n_W, tch_real limit, tch_friction_point* fp);

/* Solves the points' friction and applies it to the bodies and the pair's totals. */
void tch_friction_solve(const tch_model* model, tch_data* data, tch_velocity_prediction* pred,
                        tch_pair_result* pair, tch_friction_point* points, int count);

/* A solved point's friction force on b, world, N. */
tch_vec3 tch_friction_point_force(const tch_friction_point* fp);
