/* The shape of a model's geom, as the collision and mass code take it, and the model's
 * compiled per-geom caches. */
#pragma once

#include "geometry/shape.h"

/* What tch_model keeps beyond its public arrays (model->internal). */
struct tch_model_internal {
    /* [geom_count] convex polyhedron of each geom for the contact-volume model (boxes exact,
     * curved primitives inscribed at the geom's resolution, meshes their hull); zeroed for
     * planes. NULL when no pair of the scene uses the volume model. */
    tch_convex_hull* geom_hull;
    /* [geom_count] each geom's body for the pressure model (contact/pressure.h); NULL when no
     * pair of the scene uses the pressure model. */
    struct tch_pressure_geom* pressure_geoms;
};

static inline tch_shape tch_model_geom_shape(const tch_model* model, int geom) {
    tch_shape shape;
    shape.type = (tch_geom_type)model->geom_type[geom];
    shape.size[0] = model->geom_size[geom][0];
    shape.size[1] = model->geom_size[geom][1];
    shape.size[2] = model->geom_size[geom][2];
    int mesh = model->geom_mesh[geom];
    shape.hull = mesh >= 0 ? &model->mesh_hull[mesh] : NULL;
    return shape;
}
