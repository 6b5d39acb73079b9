/* One interface for all contact models (docs/design.md, "The pipeline of one step").
 *
 *     collision stage:  candidate pairs -> narrow phase -> data->contacts, grouped per pair in
 *                       data->pair_results (points with normal and depth, forces zero)
 *     forces stage:     (1) for each pair result, its model's normal forces
 *                       (2) every body's velocity after one step under the loads so far
 *                           (gravity, applied, normal forces): tch_contact_predict_velocities
 *                       (3) for each pair result, its model's friction forces, which see
 *                           those predicted velocities
 *
 * Splitting normal and friction forces makes friction semi-implicit: it opposes the slip the
 * step is about to produce, so it can hold a body still against gravity exactly instead of
 * letting it creep at the speed one step of gravity gives (see docs/contact-point.md).
 *
 * The engine never looks inside a model: it calls the table below. A model that this build
 * does not offer has a NULL entry and the compiler refuses scenes that use it, so the step
 * never meets one. Constraint models (lcp, peg) will add rows to a solver instead of wrenches;
 * their entries arrive with them.
 */
#pragma once

#include "touche/data.h"

typedef struct tch_contact_ops {
    /* Sets f_W of the pair's points to their normal forces and applies them to both bodies
     * through tch_contact_apply_force. */
    void (*normal_forces)(const tch_model* model, tch_data* data, tch_pair_result* pair,
                          const tch_pair_params* params);
    /* Adds the friction forces to f_W and applies them. `h` is the integrator's time step. */
    void (*friction_forces)(const tch_model* model, tch_data* data, tch_pair_result* pair,
                            const tch_pair_params* params, tch_real h);
} tch_contact_ops;

/* The ops of `model`, or NULL when this build does not offer it. */
const tch_contact_ops* tch_contact_model_ops(tch_contact_model model);

/* Adds force f_W (on geom b's body, -f_W on a's) acting at p_W: to the bodies' totals (about
 * their centres of mass) and to the pair's net force and torque about the world origin. */
void tch_contact_apply_force(const tch_model* model, tch_data* data, tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 f_W);

/* Velocity of the material point at p_W of geom g's body, world (zero for static bodies). */
tch_vec3 tch_contact_point_velocity(const tch_model* model, const tch_data* data, int geom,
                                    tch_vec3 p_W);

/* Predicted velocity of the material point at p_W of geom g's body after one step of h under
 * the body's current total force and torque (zero for static bodies). */
tch_vec3 tch_contact_predicted_point_velocity(const tch_model* model, const tch_data* data,
                                              int geom, tch_vec3 p_W, tch_real h);

/* Inverse effective mass of geom g's body for a unit force along unit t_W at p_W:
 * 1/m + (r x t) . I_W^-1 (r x t), zero for static bodies. */
tch_real tch_contact_inverse_mass(const tch_model* model, const tch_data* data, int geom,
                                  tch_vec3 p_W, tch_vec3 t_W);

/* The point model (contact/point.c). */
extern const tch_contact_ops tch_point_ops;
