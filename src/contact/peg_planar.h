/* peg in the planar mode (tch_model.planar, docs/planar.md): the true 2D cases of the paper
 * (eqs. 32-33, contact/peg_cases_2d.c) on the bodies' sections in the x-z plane.
 *
 * A geom's polygon is the convex hull of its posed vertices projected on the plane: exactly
 * the cross-section of a prism along y (a box with an axis along y, a mesh extruded along y),
 * which is what a planar scene's bodies are; any other polytope counts as its silhouette.
 * The 2D cases work in the plane z = 0 of their own frame, so the world is turned into it by
 * the proper rotation R (x, y, z) -> (x, z, -y) (world x-z onto 2D x-y, a turn about world y
 * onto one about -z) and the constraints' points, normals and Jacobians are turned back by
 * Rᵀ: a rotation keeps every dot and cross product, so the rows are the world's. */
#pragma once

#include "contact/peg_constraints.h"

/* Scratch for the two polygons: grown by tch_peg_constraints_build_planar, freed by the
 * caller with free(points). */
typedef struct tch_peg_planar_scratch {
    tch_vec3* points;
    int capacity;
} tch_peg_planar_scratch;

/* The constraints of geoms A and B (features at their poses, world centres of mass) in the
 * planar mode, in world coordinates. TCH_ERR_INVALID_ARGUMENT when a section is degenerate
 * (fewer than 3 vertices: a geom flat in the plane) or the proximity is bad,
 * TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_peg_constraints_build_planar(const tch_features* a, tch_transform pose_a,
                                            tch_vec3 com_a, const tch_features* b,
                                            tch_transform pose_b, tch_vec3 com_b,
                                            const tch_peg_params* params,
                                            tch_peg_planar_scratch* scratch,
                                            tch_peg_constraints* out, tch_error* err);
