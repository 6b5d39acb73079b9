/* The contact-volume model's compile-time part (the model itself is tch_volume_ops in
 * contact/contact.h). */
#pragma once

#include "contact/pair_state.h"
#include "contact/volume_integrals.h"
#include "touche/data.h"
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

/* The coefficient of the pair's impact damper in its last evaluation (contact/restitution.h:
 * along the normal at the centroid of C, in place of the normal spring and damper along n; 0
 * while it is clamped), NaN when the pair was not in an impact. */
tch_real tch_volume_pair_impact_damping(const tch_pair_state* state);

/* A volume pair's friction at the step's start lumped at the centroid of C, for the haptic
 * pointer's local model (docs/haptics.md, "The volume pointer"): where it acts, the contact
 * normal, the displacement r of B over A that the static springs hold (notes §6.4; for a
 * sliding contact the springs matched to the dynamic friction), the friction force on B, the
 * load bounding it, the mode, whether the linearize op carries the static springs and dampers,
 * and the coefficients. 0 when the pair is not a volume pair or carries no load. */
typedef struct tch_volume_friction_lump {
    tch_vec3 centre, normal, spring, force; /* world */
    tch_real load;                          /* N */
    int sliding;                            /* dynamic friction */
    int linearized;                         /* the static springs are in the linearization */
    tch_volume_params k;
} tch_volume_friction_lump;
int tch_volume_lump_friction(const tch_data* data, const tch_pair_result* pair,
                             const tch_pair_state* state, tch_volume_friction_lump* out);

/* The model's friction law (the static springs and dampers, the mode switch of the limit
 * surface and the dynamic Coulomb friction with the springs matched to it, notes §6.4) at one
 * point of load `load` with no spin: the friction force on B for B's tangential slip `slip`
 * over A and the springs' displacement *spring, which, with the mode *sliding, it advances
 * (a slip past mu_0 load goes dynamic, a dynamic one whose springs fall inside mu load sticks).
 * Its magnitude is at most mu_0 load while static (plus 1e-9 of it), mu load while sliding. */
tch_vec3 tch_volume_point_friction(const tch_volume_params* k, tch_real load, tch_vec3 slip,
                                   tch_vec3* spring, int* sliding);
