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
 * Stiffness and damping that nobody sets are derived from the pair's masses and the time step:
 * the contact's natural period is 25 steps and its damping ratio 1. With the explicit
 * integrators the point model then bounds the derived values of the points that share a body,
 * so that the body's contact modes stay stable however many points carry it
 * (docs/contact-point.md, "Derived stiffness and damping").
 */
#pragma once

#include "touche/model.h"

/* Fields of `over` that are set replace those of `base`. */
tch_contact_params tch_contact_params_overlay(tch_contact_params base, tch_contact_params over);

/* Combines the values of two geoms as described above. */
tch_contact_params tch_contact_params_combine(tch_contact_params a, tch_contact_params b);

/* Completes `c` with the scene defaults and derives the unset stiffness and damping for geoms
 * a and b of `model`. */
tch_pair_params tch_contact_params_resolve(const tch_model* model, tch_contact_params c,
                                           int geom_a, int geom_b);

/* tch_model_pair_params written to *out (the struct is large: the collision stage builds it
 * in place in the pair's result). */
void tch_pair_params_lookup(const tch_model* model, int geom_a, int geom_b,
                            tch_pair_params* out);

/* Effective mass of the pair for a translation of one against the other, kg (the mass of the
 * moving one when the other is static). */
tch_real tch_contact_pair_mass(const tch_model* model, int geom_a, int geom_b);

