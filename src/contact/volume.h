/* The contact-volume model's compile-time part (the model itself is tch_volume_ops in
 * contact/contact.h). */
#pragma once

#include "contact/pair_state.h"
#include "contact/volume_integrals.h"
#include "touche/model.h"

/* Builds the convex piece of every non-plane geom of `model` into hulls[geom_count]: boxes
 * exactly, meshes as their hull, curved primitives inscribed with segments chosen from the
 * geom's `resolution` (edge length, m; 16 segments when unset). Planes are left zeroed. */
tch_status tch_volume_build_pieces(const tch_model* model, tch_convex_hull* hulls,
                                   tch_error* err);

/* What the model used in the pair's last evaluation: its coefficients (k^N and b^N with their
 * defaults resolved for the contact area, k^S, b^S, mu, mu_0) into *k, the contact area S_c
 * and its second moment ∫_C p p^T dS about the wrench's point (the centroid of C), world
 * axes; returns 1 when its static friction springs held the contact then (a STATIC contact
 * that is not new), else 0. */
int tch_volume_pair_coefficients(const tch_pair_state* state, tch_volume_params* k,
                                 tch_real* area, tch_mat3* second_W);
