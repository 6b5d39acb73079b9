/* Narrow phase: contact points between two shapes.
 *
 * Pair kernels are pure functions of the two shapes and X_AB (B's pose in A's frame), and they
 * return contact points expressed in A's frame. The engine transforms them to the world. A
 * static const table [type_a][type_b] dispatches them; a pair the table holds only as (b, a) is
 * run swapped and its points flipped. Analytic kernels for sphere, plane, box and capsule
 * combinations; libccd's GJK/EPA (MPR where more robust) for the general convex pair; a
 * multi-point manifold by face clipping for box-box and box/convex-on-plane so that a box
 * resting on a face has 4 points, not 1.
 */
#pragma once

#include "geometry/shape.h"

/* Most points one pair can produce. */
#define TCH_MANIFOLD_CAPACITY 8

typedef struct tch_manifold_point {
    tch_vec3 p_A;    /* point midway between the two surfaces, in A's frame */
    tch_vec3 n_A;    /* unit normal pointing from A into B, in A's frame */
    tch_real depth;  /* penetration depth, m; > 0 overlapping, in [-margin, 0] separated */
} tch_manifold_point;

/* Contact points of a and b when they overlap or are within `margin` (>= 0) of each other.
 * Writes at most TCH_MANIFOLD_CAPACITY points to `out` and returns their count (0 when apart).
 * Both shapes may be any type except plane-plane (returns 0). */
int tch_collide(const tch_shape* a, const tch_shape* b, tch_transform X_AB, tch_real margin,
                tch_manifold_point out[TCH_MANIFOLD_CAPACITY]);

/* Whether two boxes of half-extents half_a and half_b (B at pose X_AB in A's frame, unit
 * quaternion) are apart by more than `margin` along one of their 15 separating axes: exact,
 * the boxes are then at least that far apart (collide_box.c). */
int tch_boxes_apart(tch_vec3 half_a, tch_vec3 half_b, tch_transform X_AB, tch_real margin);
