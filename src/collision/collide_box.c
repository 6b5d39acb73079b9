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
 * its separation, written to *axis. */
static void make_axis(tch_vec3 L, tch_vec3 L_B, tch_vec3 a, tch_vec3 b, tch_vec3 t, int edge_a,
                      int edge_b, sat_axis* axis) {
    const tch_real along = tch_v3_dot(t, L);
    const tch_real r = projected_radius(a, L) + projected_radius(b, L_B);
    axis->L = along < 0 ? tch_v3_neg(L) : L;
    axis->separation = fabs(along) - r;
    axis->edge_a = edge_a;
    axis->edge_b = edge_b;
}

/* Whether unit L (in a box's frame) is farther than sin(angle) ~ angle from every face normal
 * of the box, i.e. has two components above that: |L_k| > angle for at least two k. */
static int off_face_normals(tch_vec3 L, tch_real angle) {
    return (fabs(L.x) > angle) + (fabs(L.y) > angle) + (fabs(L.z) > angle) >= 2;
}

static tch_real largest_half(tch_vec3 h) {
    return fmax(h.x, fmax(h.y, h.z));
}

/* A's face normals e_k in A's frame. */
static const tch_vec3 unit_axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

/* R^T v from the columns c of R: (c_0 . v, c_1 . v, c_2 . v), the sums of tch_m3_tmul_v3. */
static tch_vec3 transpose_times(const tch_vec3 c[3], tch_vec3 v) {
    return tch_v3(tch_v3_dot(c[0], v), tch_v3_dot(c[1], v), tch_v3_dot(c[2], v));
}

/* The best of the 6 face axes (the first of equals) in sat->face; c holds R's columns, B's
 * face normals in A's frame (A's face normal e_k is row k of R in B's frame). */
static void face_axes(tch_vec3 a, tch_vec3 b, const tch_vec3 c[3], tch_vec3 t, sat_result* sat) {
    make_axis(unit_axes[0], tch_v3(c[0].x, c[1].x, c[2].x), a, b, t, -1, -1, &sat->face);
    sat_axis axis;
    for (int k = 1; k < 6; ++k) {
        const tch_vec3 L = k < 3 ? unit_axes[k] : c[k - 3];
        const tch_vec3 L_B =
            k < 3 ? tch_v3(tch_v3_get(c[0], k), tch_v3_get(c[1], k), tch_v3_get(c[2], k))
                  : transpose_times(c, L);
        make_axis(L, L_B, a, b, t, -1, -1, &axis);
        if (axis.separation > sat->face.separation) {
            sat->face = axis;
        }
    }
}

/* The 9 edge axes e_i x c_j: the best one far enough from the face normals in sat->edge and
 * the largest separation in sat->separation. Stops at the first axis that separates by more
 * than margin: the boxes are then apart whatever the rest. The lengths and their reciprocals
 * are taken for all 9 axes first, so that the square roots and divisions overlap instead of
 * each waiting for the one before. */
static void edge_axes(tch_vec3 a, tch_vec3 b, const tch_vec3 c[3], tch_vec3 t, tch_real margin,
                      sat_result* sat) {
    tch_vec3 L[9];
    tch_real length[9];
    tch_real inverse[9];
    for (int n = 0; n < 9; ++n) {
        L[n] = tch_v3_cross(unit_axes[n / 3], c[n % 3]);
    }
    for (int n = 0; n < 9; ++n) {
        length[n] = tch_v3_norm(L[n]);
    }
    for (int n = 0; n < 9; ++n) {
        inverse[n] = 1 / length[n];
    }
    sat_axis axis;
    for (int n = 0; n < 9; ++n) {
        if (length[n] < 1e-6) {
            continue; /* parallel edges: the face axes already cover this direction */
        }
        const tch_vec3 unit = tch_v3_scale(L[n], inverse[n]);
        const tch_vec3 unit_B = transpose_times(c, unit);
        make_axis(unit, unit_B, a, b, t, n / 3, n % 3, &axis);
        if (axis.separation > margin) {
            sat->separation = axis.separation;
            return;
        }
        if (axis.separation > sat->separation) {
            sat->separation = axis.separation;
        }
        if (axis.separation > sat->edge.separation && off_face_normals(unit, edge_min_angle) &&
            off_face_normals(unit_B, edge_min_angle)) {
            sat->edge = axis;
        }
    }
}

/* The face and edge axes; past the face axes only when they leave the boxes within margin.
 * c holds the columns of R = R_AB. */
static void separating_axes(tch_vec3 a, tch_vec3 b, const tch_vec3 c[3], tch_vec3 t,
                            tch_real margin, sat_result* sat) {
    sat->edge = (sat_axis){tch_v3_zero(), -INFINITY, -1, -1};
    face_axes(a, b, c, t, sat);
    sat->separation = sat->face.separation;
    if (sat->face.separation > margin) {
        return; /* apart: the edge axes can only separate more */
    }
    edge_axes(a, b, c, t, margin, sat);
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

/* Whether the axis with unnormalized direction of length `length` separates by more than
 * margin: `gap` is the centre distance minus the radii along it, both times that length.
 * Edge axes of nearly parallel edges (length under 1e-6) never do: their direction is round-off,
 * and the face axes cover them. */
static int gap_exceeds(tch_real gap, tch_real length2, tch_real margin) {
    return gap > 0 && length2 > 1e-12 && gap > margin * sqrt(length2);
}

/* The test of tch_collide_box_box's 15 axes with nothing else: the entries R_ij = e_i . c_j
 * of R = R_AB give every projection (Ericson 4.4.1), the edge axes e_i x c_j are left
 * unnormalized (their length is taken only when one separates), and the first axis that
 * separates ends the test. */
int tch_boxes_apart(tch_vec3 half_a, tch_vec3 half_b, tch_transform X_AB, tch_real margin) {
    const tch_mat3 R = tch_q_to_mat3(X_AB.q);
    const tch_real a[3] = {half_a.x, half_a.y, half_a.z};
    const tch_real b[3] = {half_b.x, half_b.y, half_b.z};
    const tch_real t[3] = {X_AB.p.x, X_AB.p.y, X_AB.p.z};
    tch_real abs_R[3][3];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            abs_R[i][j] = fabs(R.m[i][j]);
        }
    }
    for (int i = 0; i < 3; ++i) { /* A's faces */
        const tch_real r_b = b[0] * abs_R[i][0] + b[1] * abs_R[i][1] + b[2] * abs_R[i][2];
        if (fabs(t[i]) - (a[i] + r_b) > margin) {
            return 1;
        }
    }
    for (int j = 0; j < 3; ++j) { /* B's faces */
        const tch_real along = t[0] * R.m[0][j] + t[1] * R.m[1][j] + t[2] * R.m[2][j];
        const tch_real r_a = a[0] * abs_R[0][j] + a[1] * abs_R[1][j] + a[2] * abs_R[2][j];
        if (fabs(along) - (r_a + b[j]) > margin) {
            return 1;
        }
    }
    for (int i = 0; i < 3; ++i) { /* edges: e_i x c_j */
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            const tch_real r_a = a[i1] * abs_R[i2][j] + a[i2] * abs_R[i1][j];
            const tch_real r_b = b[j1] * abs_R[i][j2] + b[j2] * abs_R[i][j1];
            const tch_real along = fabs(t[i2] * R.m[i1][j] - t[i1] * R.m[i2][j]);
            const tch_real length2 = R.m[i1][j] * R.m[i1][j] + R.m[i2][j] * R.m[i2][j];
            if (gap_exceeds(along - (r_a + r_b), length2, margin)) {
                return 1;
            }
        }
    }
    return 0;
}

int tch_collide_box_box(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                        tch_real margin, tch_manifold_point* out) {
    const tch_vec3 ha = tch_v3(a->size[0], a->size[1], a->size[2]);
    const tch_vec3 hb = tch_v3(b->size[0], b->size[1], b->size[2]);
    const tch_mat3 R = tch_q_to_mat3(X_AB.q);
    const tch_vec3 columns[3] = {tch_m3_col(R, 0), tch_m3_col(R, 1), tch_m3_col(R, 2)};
    sat_result sat;
    separating_axes(ha, hb, columns, X_AB.p, margin, &sat);
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
