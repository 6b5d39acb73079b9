/* The contact-volume model's compile-time part (the model itself is tch_volume_ops in
 * contact/contact.h). */
#pragma once

#include "touche/model.h"

/* Builds the convex piece of every non-plane geom of `model` into hulls[geom_count]: boxes
 * exactly, meshes as their hull, curved primitives inscribed with segments chosen from the
 * geom's `resolution` (edge length, m; 16 segments when unset). Planes are left zeroed. */
tch_status tch_volume_build_pieces(const tch_model* model, tch_convex_hull* hulls,
                                   tch_error* err);
