/* Box-box by the separating axis test (Gottschalk, Lin, Manocha 1996, "OBBTree"; Ericson,
 * Real-Time Collision Detection 4.4.1): two boxes are apart iff one of 15 axes separates them,
 * the 3 face normals of each and the 9 cross products of their edge directions.
 *
 * Along a unit axis L (in A's frame, B at rotation R = R_AB and offset t = p_AB) the boxes'
 * projections have radii  r_A = sum_k a_k |L_k|  and  r_B = sum_j b_j |L . R e_j|,  so the
 * separation is  s(L) = |t . L| - (r_A + r_B)  and the penetration depth is -s.
 *
 * The largest s over the 15 axes decides whether the boxes are within `margin` (exact). The
 * contact itself comes from the best face axis F unless the best edge axis E beats it by
 *
 *     s_E > s_F + face_bias_relative |s_F| + face_bias_absolute * size,
 *
 * with size the smaller of the two boxes' largest half-extents (ODE's dBoxBox weighs face
 * depths by 1.05 for the same reason; Box2D's polygon test keeps the first face within 0.98
 * and an absolute slop). Two boxes lying face on face but turned about the normal have edge
 * axes (a horizontal edge of each, crossed) that are almost the face normal; a tilt of 1e-3 rad
 * lets one of them beat the face by ~1e-4 * size, and the edge axis's single point (a different
 * corner each step) let a box pivot into the one below. A face axis gives the face-clipped
 * manifold (up to 4 points); an edge axis gives one point midway between the closest points of
 * the two edges. Edge axes within edge_min_angle (1e-3 rad) of a face normal of either box
 * never give the contact: the two parallel edges of a box that could be extreme along such an
 * axis project within 2e-3 h of each other, less than the face bias, so which one touches is
 * not determined by the axis (with the boxes sharing a face normal, by rounding alone), and
 * the face axis describes that contact.
 *
 * When the face clip finds no point within `margin` (the boxes touch corner to edge, their
 * faces' footprints apart), the edge point is used if the best edge axis separates at least as
 * much as the face axis (it would have won without the bias), else there is no contact. An
 * edge axis worse than the face gives no point: its separation is not the pair's (the vertical
 * edges of two stacked boxes, crossed, gave a horizontal normal 0.13 m deep). Box-box never goes
 * to libccd, whose EPA direction has an arbitrary sign for shapes that only touch.
 */
#include <math.h>

#include "collision/collide.h"
#include "math/vec.h"

/* Face bias (see above): relative to the face separation, and absolute in units of size. */
static const tch_real face_bias_relative = 0.05;
static const tch_real face_bias_absolute = 0.01;
/* Edge axes closer than this (rad) to a face normal of either box give no contact. */
static const tch_real edge_min_angle = 1e-3;

typedef struct sat_axis {
    tch_vec3 L;       /* unit, from A towards B */
    tch_real separation;
    int edge_a, edge_b; /* edge directions of an edge axis, -1 for a face axis */
} sat_axis;

/* The axes the contact may come from, and the largest separation over all 15. */
typedef struct sat_result {
    sat_axis face;
    sat_axis edge; /* separation -INFINITY when no edge axis qualifies */
    tch_real separation;
} sat_result;

/* The projection radius along L of a box with half-extents `half`, L in the box's frame. */
static tch_real projected_radius(tch_vec3 half, tch_vec3 L) {
    return half.x * fabs(L.x) + half.y * fabs(L.y) + half.z * fabs(L.z);
}

/* The axis L (A's frame; L_B = R^T L, the same in B's frame) oriented from A towards B, with
 * its separation. */
static sat_axis make_axis(tch_vec3 L, tch_vec3 L_B, tch_vec3 a, tch_vec3 b, tch_vec3 t,
                          int edge_a, int edge_b) {
    const tch_real along = tch_v3_dot(t, L);
    const tch_real r = projected_radius(a, L) + projected_radius(b, L_B);
    return (sat_axis){along < 0 ? tch_v3_neg(L) : L, fabs(along) - r, edge_a, edge_b};
}

/* Whether unit L (in a box's frame) is farther than sin(angle) ~ angle from every face normal
 * of the box, i.e. has two components above that: |L_k| > angle for at least two k. */
static int off_face_normals(tch_vec3 L, tch_real angle) {
    return (fabs(L.x) > angle) + (fabs(L.y) > angle) + (fabs(L.z) > angle) >= 2;
}

static tch_real largest_half(tch_vec3 h) {
    return fmax(h.x, fmax(h.y, h.z));
}

/* The face and edge axes; past the face axes only when they leave the boxes within margin. */
static sat_result separating_axes(tch_vec3 a, tch_vec3 b, tch_mat3 R, tch_vec3 t,
                                  tch_real margin) {
    /* A's face normals e_k are row k of R in B's frame */
    sat_result sat = {make_axis(tch_v3(1, 0, 0), tch_m3_row(R, 0), a, b, t, -1, -1),
                      {tch_v3_zero(), -INFINITY, -1, -1}, -INFINITY};
    for (int k = 1; k < 6; ++k) {
        tch_vec3 L = k < 3 ? tch_m3_col(tch_m3_identity(), k) : tch_m3_col(R, k - 3);
        tch_vec3 L_B = k < 3 ? tch_m3_row(R, k) : tch_m3_tmul_v3(R, L);
        sat_axis axis = make_axis(L, L_B, a, b, t, -1, -1);
        if (axis.separation > sat.face.separation) {
            sat.face = axis;
        }
    }
    sat.separation = sat.face.separation;
    if (sat.face.separation > margin) {
        return sat; /* apart: the edge axes can only separate more */
    }
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            tch_vec3 L = tch_v3_cross(tch_m3_col(tch_m3_identity(), i), tch_m3_col(R, j));
            const tch_real length = tch_v3_norm(L);
            if (length < 1e-6) {
                continue; /* parallel edges: the face axes already cover this direction */
            }
            const tch_vec3 unit = tch_v3_scale(L, 1 / length);
            const tch_vec3 unit_B = tch_m3_tmul_v3(R, unit);
            sat_axis axis = make_axis(unit, unit_B, a, b, t, i, j);
            sat.separation = fmax(sat.separation, axis.separation);
            if (axis.separation > sat.edge.separation && off_face_normals(unit, edge_min_angle) &&
                off_face_normals(unit_B, edge_min_angle)) {
                sat.edge = axis;
            }
        }
    }
    return sat;
}

/* Whether the edge axis beats the face axis by the face bias (see the top of the file). */
static int edge_wins(const sat_result* sat, tch_real size) {
    const tch_real s_face = sat->face.separation;
    return sat->edge.separation >
           s_face + face_bias_relative * fabs(s_face) + face_bias_absolute * size;
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
    const sat_result sat = separating_axes(ha, hb, tch_q_to_mat3(X_AB.q), X_AB.p, margin);
    if (!(sat.separation <= margin)) {
        return 0;
    }
    const int edge_in_margin = sat.edge.edge_a >= 0 && sat.edge.separation <= margin;
    if (edge_in_margin && edge_wins(&sat, fmin(largest_half(ha), largest_half(hb)))) {
        return edge_edge_point(ha, hb, X_AB, sat.edge, out);
    }
    tch_polytope pa;
    tch_polytope pb;
    tch_polytope_init(&pa, a);
    tch_polytope_init(&pb, b);
    const int count = tch_polytope_clip(&pa, &pb, X_AB, sat.face.L, margin, 0.0, out);
    if (count > 0) {
        return count;
    }
    /* the bias gave the contact to the face; with no face point the unbiased choice stands */
    const int edge_better = sat.edge.separation >= sat.face.separation;
    return edge_in_margin && edge_better ? edge_edge_point(ha, hb, X_AB, sat.edge, out) : 0;
}
