/* Contact parameters: how a pair's values are found from the pair, its two geoms and the scene.
 *
 *     explicit <pair>  ->  the two geoms, combined  ->  scene default (option)  ->  built-in
 *
 * Combining two geoms' values (docs/contact-point.md):
 *   - model and law: the one both name; if only one geom names one, that one; if they differ,
 *     the scene default;
 *   - stiffness and damping: springs and dampers in series, k = k_a k_b / (k_a + k_b);
 *   - friction, static friction and margin: the larger (MuJoCo's rule for friction);
 *   - stiction velocity: the smaller; dissipation and exponent: the mean.
 *   A value set on only one geom is taken as it is.
 * Stiffness and damping that nobody sets: with the implicit and adaptive integrators (the
 * default of a scene that names none) a pair that the point model runs takes the point
 * material (1e6 N/m per point, damping 20 ms times that), whatever the masses and the step
 * (docs/contact-point.md, "Defaults"); with the explicit ones they are derived from the pair's
 * masses and the time step: the contact's natural period is 25 steps and its damping ratio 1,
 * and the point model bounds the derived values of the points that share a body, so that the
 * body's contact modes stay stable however many points carry it (docs/contact-point.md,
 * "Derived stiffness and damping"). The volume and pressure models take their own materials
 * (contact/volume.c, contact/pressure.h).
 */
#pragma once

#include "touche/model.h"

/* 1 when `integrator` has no step-size stability limit on stiff contact (the linearly implicit
 * Euler and the adaptive SDIRK): the force models then take their physical default materials
 * instead of values derived from the time step (docs/integrators.md, "The default"). */
static inline int tch_integrator_takes_physical_defaults(tch_integrator integrator) {
    return integrator == TCH_INTEGRATOR_IMPLICIT || integrator == TCH_INTEGRATOR_ADAPTIVE;
}

/* Fields of `over` that are set replace those of `base`. */
tch_contact_params tch_contact_params_overlay(tch_contact_params base, tch_contact_params over);

/* Combines the values of two geoms as described above. */
tch_contact_params tch_contact_params_combine(tch_contact_params a, tch_contact_params b);

/* Completes `c` with the scene defaults and derives the unset stiffness and damping for geoms
 * a and b of `model`. */
tch_pair_params tch_contact_params_resolve(const tch_model* model, tch_contact_params c,
                                           int geom_a, int geom_b);

/* The scene's explicit pairs by their geoms, compiled into the model: open addressing over a
 * power-of-two table at most half full, each slot an index into model->pair_params or -1, so
 * that finding a candidate's explicit pair costs a probe or two instead of a scan over every
 * pair. */
typedef struct tch_pair_table {
    int* slots;
    int capacity; /* 0 when the scene has no explicit pair */
} tch_pair_table;

/* Builds the table of model's explicit pairs (model->pair_geom_a/b). 0, or -1 when out of
 * memory. */
int tch_pair_table_build(const tch_model* model, tch_pair_table* table);
void tch_pair_table_free(tch_pair_table* table);

/* The explicit pair of geoms a and b (either order), or -1 when the scene names none. */
int tch_pair_table_find(const tch_model* model, int geom_a, int geom_b);

/* The model of geoms a and b, whose explicit pair is `explicit_pair` (-1: none):
 * tch_model_pair_params(...).model without resolving the rest. */
tch_contact_model tch_pair_model(const tch_model* model, int geom_a, int geom_b,
                                 int explicit_pair);

/* tch_model_pair_params written to *out, with the explicit pair already found (-1: none):
 * the collision stage resolves each touching pair once per evaluation, in place in its result
 * (the struct is large). */
void tch_pair_params_lookup(const tch_model* model, int geom_a, int geom_b, int explicit_pair,
                            tch_pair_params* out);

/* Effective mass of the pair for a translation of one against the other, kg (the mass of the
 * moving one when the other is static). */
tch_real tch_contact_pair_mass(const tch_model* model, int geom_a, int geom_b);

