/* Shapes as the collision and mass code see them: a geom type, its MJCF size and, for meshes,
 * its convex hull. All quantities are in the geom frame G (z is the axis of capsules and
 * cylinders; a plane is the half-space z <= 0, its surface z = 0, outward normal +z).
 */
#pragma once

#include "touche/model.h"

typedef struct tch_shape {
    tch_geom_type type;
    tch_real size[3];              /* as tch_geom_type documents */
    const tch_convex_hull* hull;   /* TCH_GEOM_MESH only, else NULL */
} tch_shape;

/* Axis-aligned box; lo/hi may be infinite (planes). */
typedef struct tch_aabb {
    tch_vec3 lo, hi;
} tch_aabb;

/* The shape's bounding box in the world given its pose X_WG, inflated by `margin` on each
 * side. A plane gets infinite bounds except where its normal is axis-aligned, where the
 * finite side is kept. */
tch_aabb tch_shape_aabb(const tch_shape* shape, tch_transform X_WG, tch_real margin);

/* Radius of the smallest sphere about the geom origin that contains the shape
 * (INFINITY for a plane). */
tch_real tch_shape_bounding_radius(const tch_shape* shape);

/* Support point: the point of the shape farthest along dir_G (need not be unit, must not be
 * zero). For a plane the result is not defined: callers never ask. */
tch_vec3 tch_shape_support(const tch_shape* shape, tch_vec3 dir_G);

/* Checks the size for the type: every needed size positive and finite, the mesh present.
 * Returns 0 when valid, else fills `why` (a phrase like "sphere radius must be > 0, got -1"). */
int tch_shape_validate(const tch_shape* shape, char* why, size_t why_size);
