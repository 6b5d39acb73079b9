/* Closed-form kernels: plane against everything, spheres and capsules against each other and
 * against boxes.
 *
 * Spheres and capsules are "rounded" shapes: a segment (zero length for a sphere) swept by a
 * ball of radius r. Their contacts reduce to the closest points of segments, or to the signed
 * distance of a box, evaluated at points of the segment and offset by r.
 *
 * Plane kernels see the plane as A (the half-space z <= 0 of A's frame) and B's pose in it: a
 * point x of B below z = 0 has depth -x.z, the point midway between the surfaces is
 * (x.x, x.y, x.z / 2), and the normal from the plane into B is +z.
 */
#include <math.h>

#include "collision/collide.h"
#include "math/vec.h"

static const tch_vec3 plane_normal = {0, 0, 1};

/* Half-length of the segment of a sphere (0) or capsule. */
static tch_real segment_half_length(const tch_shape* s) {
    return s->type == TCH_GEOM_CAPSULE ? s->size[1] : 0;
}

/* End k (0: -z, 1: +z) of a rounded shape's segment, at pose X. */
static tch_vec3 segment_end(const tch_shape* s, tch_transform X, int k) {
    const tch_real h = segment_half_length(s);
    return tch_x_apply(X, tch_v3(0, 0, k ? h : -h));
}

/* ---- plane ---- */

/* Point x of B (in the plane's frame) as a contact with the plane. */
static tch_manifold_point plane_point(tch_vec3 x) {
    return (tch_manifold_point){tch_v3(x.x, x.y, 0.5 * x.z), plane_normal, -x.z};
}

/* Points of B (frame of B, pose X_AB) as a source of candidates against the plane. */
typedef struct points_on_plane {
    const tch_vec3* points_B;
    tch_transform X_AB;
    tch_real margin;
} points_on_plane;

static bool plane_candidate(const void* source, int k, tch_manifold_point* out) {
    const points_on_plane* s = source;
    *out = plane_point(tch_x_apply(s->X_AB, s->points_B[k]));
    return out->depth >= -s->margin;
}

/* The points of points_B[0..count) below the plane + margin, reduced by the manifold rules. */
static int plane_points(const tch_vec3* points_B, int count, tch_transform X_AB,
                        tch_real margin, tch_manifold_point* out) {
    const points_on_plane source = {points_B, X_AB, margin};
    return tch_manifold_select(plane_candidate, &source, count, out);
}

int tch_collide_plane_rounded(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                              tch_real margin, tch_manifold_point* out) {
    const tch_real r = b->size[0];
    const int ends = segment_half_length(b) > 0 ? 2 : 1;
    tch_vec3 lowest_B[2];
    const tch_vec3 down_B = tch_q_inv_rotate(X_AB.q, tch_v3(0, 0, -r));
    for (int k = 0; k < ends; ++k) {
        lowest_B[k] = tch_v3_add(segment_end(b, tch_x_identity(), k), down_B);
    }
    return plane_points(lowest_B, ends, X_AB, margin, out);
}

int tch_collide_plane_ellipsoid(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                                tch_real margin, tch_manifold_point* out) {
    const tch_vec3 down_B = tch_q_inv_rotate(X_AB.q, tch_v3_neg(plane_normal));
    const tch_vec3 lowest_B = tch_shape_support(b, down_B);
    return plane_points(&lowest_B, 1, X_AB, margin, out);
}

/* Candidates on each rim (radius r at z = +-h): the point deepest along -z of the plane, the
 * opposite one and the two between. A cylinder standing on a face gives the 4 points of that
 * rim; lying on its side, the deepest point of each rim (2 points). */
int tch_collide_plane_cylinder(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                               tch_real margin, tch_manifold_point* out) {
    const tch_real r = b->size[0];
    const tch_real h = b->size[1];
    const tch_vec3 down_B = tch_q_inv_rotate(X_AB.q, tch_v3_neg(plane_normal));
    tch_vec3 radial = tch_v3(down_B.x, down_B.y, 0);
    if (tch_v3_norm2(radial) < 1e-24) {
        radial = tch_v3(1, 0, 0); /* standing: every rim point is equally deep */
    }
    const tch_vec3 d = tch_v3_normalize(radial);
    const tch_vec3 e = tch_v3(-d.y, d.x, 0);
    tch_vec3 rim_B[8];
    for (int cap = 0; cap < 2; ++cap) {
        const tch_vec3 c = tch_v3(0, 0, cap ? h : -h);
        rim_B[4 * cap + 0] = tch_v3_madd(c, r, d);
        rim_B[4 * cap + 1] = tch_v3_madd(c, -r, d);
        rim_B[4 * cap + 2] = tch_v3_madd(c, r, e);
        rim_B[4 * cap + 3] = tch_v3_madd(c, -r, e);
    }
    return plane_points(rim_B, 8, X_AB, margin, out);
}

int tch_collide_plane_box(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                          tch_real margin, tch_manifold_point* out) {
    tch_polytope box;
    tch_polytope_init(&box, b);
    return plane_points(box.vertices, box.vertex_count, X_AB, margin, out);
}

int tch_collide_plane_mesh(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                           tch_real margin, tch_manifold_point* out) {
    return plane_points(b->hull->vertices_G, b->hull->vertex_count, X_AB, margin, out);
}

/* ---- rounded against rounded ---- */

/* Contact of balls (centre ca, radius ra) and (cb, rb), both in A's frame. */
static tch_manifold_point ball_point(tch_vec3 ca, tch_real ra, tch_vec3 cb, tch_real rb) {
    const tch_vec3 d = tch_v3_sub(cb, ca);
    const tch_real dist = tch_v3_norm(d);
    const tch_vec3 n = tch_v3_normalize(d); /* +z when the centres coincide */
    const tch_real depth = ra + rb - dist;
    /* A's surface point ca + ra n, moved half the depth back towards A */
    return (tch_manifold_point){tch_v3_madd(ca, ra - 0.5 * depth, n), n, depth};
}

/* Two capsules with parallel segments lying side by side: the ends of the overlap of B's
 * segment projected on A's that are within the margin, written to out. Returns their count, or
 * -1 when the projections do not overlap. */
static int parallel_segment_points(tch_vec3 pa0, tch_vec3 pa1, tch_real ra, tch_vec3 pb0,
                                   tch_vec3 pb1, tch_real rb, tch_real margin,
                                   tch_manifold_point* out) {
    const tch_vec3 da = tch_v3_sub(pa1, pa0);
    const tch_real len2 = tch_v3_norm2(da);
    const tch_real s0 = tch_v3_dot(tch_v3_sub(pb0, pa0), da) / len2;
    const tch_real s1 = tch_v3_dot(tch_v3_sub(pb1, pa0), da) / len2;
    const tch_real lo = fmax(0.0, fmin(s0, s1));
    const tch_real hi = fmin(1.0, fmax(s0, s1));
    if (!(hi > lo)) {
        return -1;
    }
    const tch_real ends[2] = {lo, hi};
    int count = 0;
    for (int k = 0; k < 2; ++k) {
        const tch_vec3 on_a = tch_v3_madd(pa0, ends[k], da);
        tch_real s = 0;
        tch_real t = 0;
        tch_segment_closest(on_a, on_a, pb0, pb1, &s, &t);
        const tch_manifold_point p = ball_point(on_a, ra, tch_v3_lerp(pb0, pb1, t), rb);
        if (p.depth >= -margin) {
            out[count++] = p;
        }
    }
    return count;
}

int tch_collide_rounded_rounded(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                                tch_real margin, tch_manifold_point* out) {
    const tch_real ra = a->size[0];
    const tch_real rb = b->size[0];
    const tch_vec3 pa0 = segment_end(a, tch_x_identity(), 0);
    const tch_vec3 pa1 = segment_end(a, tch_x_identity(), 1);
    const tch_vec3 pb0 = segment_end(b, X_AB, 0);
    const tch_vec3 pb1 = segment_end(b, X_AB, 1);
    tch_real s = 0;
    tch_real t = 0;
    tch_segment_closest(pa0, pa1, pb0, pb1, &s, &t);
    const tch_manifold_point closest =
        ball_point(tch_v3_lerp(pa0, pa1, s), ra, tch_v3_lerp(pb0, pb1, t), rb);
    if (!(closest.depth >= -margin)) {
        return 0;
    }
    const tch_vec3 da = tch_v3_sub(pa1, pa0);
    const tch_vec3 db = tch_v3_sub(pb1, pb0);
    const tch_real cross2 = tch_v3_norm2(tch_v3_cross(da, db));
    const int parallel = cross2 <= 1e-12 * tch_v3_norm2(da) * tch_v3_norm2(db) &&
                         segment_half_length(a) > 0 && segment_half_length(b) > 0;
    const int ends = parallel ? parallel_segment_points(pa0, pa1, ra, pb0, pb1, rb, margin, out)
                              : -1;
    if (ends >= 0) {
        return ends;
    }
    out[0] = closest;
    return 1;
}

/* ---- rounded against box ---- */

/* Signed distance from p to the box of half-extents h (negative inside) and its gradient, the
 * outward unit normal of the nearest surface point. */
static tch_real box_signed_distance(tch_vec3 h, tch_vec3 p, tch_vec3* gradient) {
    const tch_vec3 q = tch_v3_sub(tch_v3_abs(p), h);
    const tch_vec3 outside = tch_v3_max(q, tch_v3_zero());
    if (outside.x > 0 || outside.y > 0 || outside.z > 0) {
        const tch_vec3 clamped = tch_v3_min(tch_v3_max(p, tch_v3_neg(h)), h);
        *gradient = tch_v3_normalize(tch_v3_sub(p, clamped));
        return tch_v3_norm(tch_v3_sub(p, clamped));
    }
    int k = 0;
    for (int m = 1; m < 3; ++m) {
        if (tch_v3_get(q, m) > tch_v3_get(q, k)) {
            k = m;
        }
    }
    *gradient = tch_v3_zero();
    tch_v3_set(gradient, k, tch_v3_get(p, k) >= 0 ? 1 : -1);
    return tch_v3_get(q, k);
}

/* The t in [0, 1] minimizing the box's signed distance along p0 + t (p1 - p0): that distance
 * is convex (the signed distance of a convex set is convex), so golden-section search
 * converges to the minimum (Kiefer 1953). */
static tch_real deepest_on_segment(tch_vec3 h, tch_vec3 p0, tch_vec3 p1) {
    const tch_real ratio = 0.5 * (sqrt(5.0) - 1.0);
    tch_real lo = 0;
    tch_real hi = 1;
    tch_vec3 unused;
    for (int iteration = 0; iteration < 80; ++iteration) {
        const tch_real m1 = hi - ratio * (hi - lo);
        const tch_real m2 = lo + ratio * (hi - lo);
        if (box_signed_distance(h, tch_v3_lerp(p0, p1, m1), &unused) <=
            box_signed_distance(h, tch_v3_lerp(p0, p1, m2), &unused)) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    return 0.5 * (lo + hi);
}

/* Contact of a ball (centre c_B, radius r) with the box, in the box frame B. */
static tch_manifold_point ball_box_point(tch_vec3 h, tch_vec3 c_B, tch_real r) {
    tch_vec3 g;
    const tch_real d = box_signed_distance(h, c_B, &g);
    /* ball surface c - r g and box surface c - d g; midway between them */
    return (tch_manifold_point){tch_v3_madd(c_B, -0.5 * (r + d), g), tch_v3_neg(g), r - d};
}

int tch_collide_rounded_box(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                            tch_real margin, tch_manifold_point* out) {
    const tch_vec3 h = tch_v3(b->size[0], b->size[1], b->size[2]);
    const tch_real r = a->size[0];
    const tch_transform X_BA = tch_x_inverse(X_AB);
    const tch_vec3 p0_B = segment_end(a, X_BA, 0);
    const tch_vec3 p1_B = segment_end(a, X_BA, 1);
    tch_manifold_point candidates[3];
    int count = 0;
    candidates[count++] = ball_box_point(h, p0_B, r);
    if (segment_half_length(a) > 0) {
        candidates[count++] = ball_box_point(h, p1_B, r);
        const tch_real t = deepest_on_segment(h, p0_B, p1_B);
        const tch_manifold_point inner = ball_box_point(h, tch_v3_lerp(p0_B, p1_B, t), r);
        const tch_real tolerance = 1e-9 * (r + segment_half_length(a));
        if (inner.depth > fmax(candidates[0].depth, candidates[1].depth) + tolerance) {
            candidates[count++] = inner;
        }
    }
    int kept = 0;
    for (int k = 0; k < count; ++k) {
        if (candidates[k].depth >= -margin) {
            out[kept++] = (tch_manifold_point){tch_x_apply(X_AB, candidates[k].p_A),
                                               tch_q_rotate(X_AB.q, candidates[k].n_A),
                                               candidates[k].depth};
        }
    }
    return kept;
}
