/* Convex pieces and poses for the contact-volume tests (tests/contact and
 * tests/collision/test_polyhedron.c): boxes and random hulls built with tch_hull_build, a
 * seeded generator so every run sees the same cases. */
#pragma once

#include <stdlib.h>

#include "geometry/hull.h"
#include "math/vec.h"

static inline double fixture_uniform(unsigned long long* state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

static inline tch_vec3 fixture_unit_vector(unsigned long long* state) {
    for (;;) {
        tch_vec3 v = tch_v3(2 * fixture_uniform(state) - 1, 2 * fixture_uniform(state) - 1,
                            2 * fixture_uniform(state) - 1);
        if (tch_v3_norm2(v) > 1e-4 && tch_v3_norm2(v) <= 1) {
            return tch_v3_normalize(v);
        }
    }
}

static inline tch_quat fixture_rotation(unsigned long long* state) {
    return tch_q_axis_angle(fixture_unit_vector(state), 2 * TCH_PI * fixture_uniform(state));
}

/* Box with half-extents h centred at c, as a hull of its 8 corners. */
static inline tch_convex_hull fixture_box(tch_vec3 h, tch_vec3 c) {
    tch_vec3 corners[8];
    for (int i = 0; i < 8; ++i) {
        corners[i] = tch_v3(c.x + (i & 1 ? h.x : -h.x), c.y + (i & 2 ? h.y : -h.y),
                            c.z + (i & 4 ? h.z : -h.z));
    }
    tch_convex_hull hull;
    tch_hull_build(corners, 8, &hull, NULL);
    return hull;
}

/* Hull of `count` random points on an ellipsoid-like blob of radius about `radius`. */
static inline tch_convex_hull fixture_random_hull(unsigned long long* state, int count, double radius) {
    tch_vec3* points = malloc((size_t)count * sizeof *points);
    for (int i = 0; i < count; ++i) {
        points[i] = tch_v3_scale(fixture_unit_vector(state),
                                 radius * (0.7 + 0.3 * fixture_uniform(state)));
    }
    tch_convex_hull hull;
    tch_hull_build(points, count, &hull, NULL);
    free(points);
    return hull;
}
