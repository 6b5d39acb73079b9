/* The shape of a model's geom, as the collision and mass code take it. (The model's compiled
 * per-geom data of each contact model is the model's own: tch_contact_ops.build_geoms.) */
#pragma once

#include "geometry/shape.h"

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
