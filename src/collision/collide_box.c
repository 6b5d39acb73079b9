/* Box-box by the separating axis test (Gottschalk, Lin, Manocha 1996, "OBBTree"; Ericson,
 * Real-Time Collision Detection 4.4.1): two boxes are apart iff one of 15 axes separates them,
 * the 3 face normals of each and the 9 cross products of their edge directions.
 *
 * Along a unit axis L (in A's frame, B at rotation R = R_AB and offset t = p_AB) the boxes'
 * projections have radii  r_A = sum_k a_k |L_k|  and  r_B = sum_j b_j |L . R e_j|,  so the
 * separation is  s(L) = |t . L| - (r_A + r_B)  and the penetration depth is -s. The axis of
 * largest s gives the normal. A face axis then gives a face-clipped manifold (up to 4
 * points); an edge axis gives one point midway between the closest points of the two edges.
 * Edge axes must beat the best face axis by a small tolerance, so that face contact (the
 * stable, multi-point case) wins ties.
 */
#include <math.h>

#include "collision/collide.h"
#include "math/vec.h"

typedef struct sat_axis {
    tch_vec3 L;       /* unit, from A towards B */
    tch_real separation;
    int edge_a, edge_b; /* edge directions of an edge axis, -1 for a face axis */
} sat_axis;

static tch_real projected_radius(tch_vec3 half, tch_mat3 R, tch_vec3 L) {
    const tch_vec3 L_B = tch_m3_tmul_v3(R, L);
    return half.x * fabs(L_B.x) + half.y * fabs(L_B.y) + half.z * fabs(L_B.z);
}

static sat_axis make_axis(tch_vec3 L, tch_vec3 a, tch_vec3 b, tch_mat3 R, tch_vec3 t,
                          int edge_a, int edge_b) {
    const tch_real along = tch_v3_dot(t, L);
    const tch_real r = projected_radius(a, tch_m3_identity(), L) + projected_radius(b, R, L);
    return (sat_axis){along < 0 ? tch_v3_neg(L) : L, fabs(along) - r, edge_a, edge_b};
}

/* The separating axis of largest separation among the 15. */
static sat_axis best_axis(tch_vec3 a, tch_vec3 b, tch_mat3 R, tch_vec3 t) {
    const tch_real edge_tolerance = 1e-9 * (1 + fmax(tch_v3_norm(a), tch_v3_norm(b)));
    sat_axis best = make_axis(tch_v3(1, 0, 0), a, b, R, t, -1, -1);
    for (int k = 0; k < 6; ++k) {
        tch_vec3 L = k < 3 ? tch_m3_col(tch_m3_identity(), k) : tch_m3_col(R, k - 3);
        sat_axis axis = make_axis(L, a, b, R, t, -1, -1);
        if (axis.separation > best.separation) {
            best = axis;
        }
    }
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            tch_vec3 L = tch_v3_cross(tch_m3_col(tch_m3_identity(), i), tch_m3_col(R, j));
            const tch_real length = tch_v3_norm(L);
            if (length < 1e-6) {
                continue; /* parallel edges: the face axes already cover this direction */
            }
            sat_axis axis = make_axis(tch_v3_scale(L, 1 / length), a, b, R, t, i, j);
            if (axis.separation > best.separation + edge_tolerance) {
                best = axis;
            }
        }
    }
    return best;
}

/* The edge of a box (half-extents h) along axis k that is extreme along dir: its ends. */
static void extreme_edge(tch_vec3 h, int k, tch_vec3 dir, tch_vec3* e0, tch_vec3* e1) {
    tch_vec3 c = tch_v3_zero();
    for (int m = 0; m < 3; ++m) {
        if (m != k) {
            tch_v3_set(&c, m, tch_v3_get(dir, m) >= 0 ? tch_v3_get(h, m) : -tch_v3_get(h, m));
        }
    }
    *e0 = c;
    *e1 = c;
    tch_v3_set(e0, k, -tch_v3_get(h, k));
    tch_v3_set(e1, k, tch_v3_get(h, k));
}

static int edge_edge_point(tch_vec3 a, tch_vec3 b, tch_transform X_AB, sat_axis axis,
                           tch_manifold_point* out) {
    tch_vec3 pa0, pa1, qb0, qb1;
    extreme_edge(a, axis.edge_a, axis.L, &pa0, &pa1);
    extreme_edge(b, axis.edge_b, tch_q_inv_rotate(X_AB.q, tch_v3_neg(axis.L)), &qb0, &qb1);
    const tch_vec3 q0 = tch_x_apply(X_AB, qb0);
    const tch_vec3 q1 = tch_x_apply(X_AB, qb1);
    tch_real s = 0;
    tch_real t = 0;
    tch_segment_closest(pa0, pa1, q0, q1, &s, &t);
    const tch_vec3 midway = tch_v3_lerp(tch_v3_lerp(pa0, pa1, s), tch_v3_lerp(q0, q1, t), 0.5);
    out[0] = (tch_manifold_point){midway, axis.L, -axis.separation};
    return 1;
}

int tch_collide_box_box(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                        tch_real margin, tch_manifold_point* out) {
    const tch_vec3 ha = tch_v3(a->size[0], a->size[1], a->size[2]);
    const tch_vec3 hb = tch_v3(b->size[0], b->size[1], b->size[2]);
    const sat_axis axis = best_axis(ha, hb, tch_q_to_mat3(X_AB.q), X_AB.p);
    if (!(axis.separation <= margin)) {
        return 0;
    }
    if (axis.edge_a >= 0) {
        return edge_edge_point(ha, hb, X_AB, axis, out);
    }
    tch_polytope pa;
    tch_polytope pb;
    tch_polytope_init(&pa, a);
    tch_polytope_init(&pb, b);
    const int count = tch_polytope_clip(&pa, &pb, X_AB, axis.L, margin, 0.0, out);
    return count > 0 ? count : tch_collide_convex(a, b, X_AB, margin, out);
}
