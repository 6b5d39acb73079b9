/* The contact-volume model linearized about the current state (docs/integrators.md), from what
 * the model leaves in tch_data for the pair: the outline of the contact area C on the contact
 * plane (data->polygons), the point o where the wrench acts (the pair's contact) and the
 * pair's net wrench.
 *
 * The distributed normal spring (Hasegawa and Sato, eqs. 5-8) has the pressure k^N d(p) / S_c
 * at the plane point p (relative to o) of depth d. A displacement u of b's material point at o
 * relative to a's and a relative rotation φ change the depth by -n.(u + φ × p), C itself
 * staying put to first order for faces parallel to the plane, so the force k^N/S_c ∫ d dS n
 * and its moment k^N/S_c ∫ d p × n dS about o change by
 *
 *     δF = -(k^N/S_c) [ S_c n n^T u + n (s × n)^T φ ]
 *     δM = -(k^N/S_c) [ (s × n) n^T u + J φ ],    s = ∫_C p dS,  J = ∫_C (p × n)(p × n)^T dS
 *
 * the area moments of C (s = 0 when o is the centroid, as the model places it). The damper of
 * eqs. 9-12 has the same form in the relative velocity (v_r(o), w_r) with b^N. Friction (eqs.
 * 13-29) is left out: the integrator keeps it semi-implicit.
 */
#include "contact/contact.h"
#include "contact/volume_integrals.h"
#include "math/vec.h"

enum { MAX_OUTLINE = 256 };

/* A point of the contact plane in its axes (u1, u2) about o. */
typedef struct plane_point {
    tch_real x, y;
} plane_point;

/* (b - a) x (c - a), the plane's 2-D cross product. */
static tch_real turn(plane_point a, plane_point b, plane_point c) {
    return (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x);
}

/* Appends p to the chain hull[*count] after dropping the points it makes turn clockwise or go
 * straight (Andrew's monotone chain, one half); `floor` is where this half began. */
static void push_hull(plane_point* hull, int* count, int floor, plane_point p) {
    while (*count >= floor + 2 && turn(hull[*count - 2], hull[*count - 1], p) <= 0) {
        --*count;
    }
    hull[(*count)++] = p;
}

/* The convex hull (counter-clockwise, no repeated or collinear points) of the outline's
 * vertices in the plane's axes, whatever their order or repetitions: the model's outline walk
 * may repeat vertices, and the moments below need a simple polygon. Returns its size. */
static int outline_hull(const tch_vec3* vertices, int count, tch_vec3 o, tch_vec3 u1,
                        tch_vec3 u2, plane_point hull[2 * MAX_OUTLINE]) {
    plane_point sorted[MAX_OUTLINE];
    int n = count < MAX_OUTLINE ? count : MAX_OUTLINE;
    for (int i = 0; i < n; ++i) { /* insertion sort by (x, y) */
        tch_vec3 r = tch_v3_sub(vertices[i], o);
        plane_point p = {tch_v3_dot(r, u1), tch_v3_dot(r, u2)};
        int j = i;
        for (; j > 0 && (sorted[j - 1].x > p.x || (sorted[j - 1].x == p.x && sorted[j - 1].y > p.y));
             --j) {
            sorted[j] = sorted[j - 1];
        }
        sorted[j] = p;
    }
    int size = 0;
    for (int i = 0; i < n; ++i) {
        push_hull(hull, &size, 0, sorted[i]);
    }
    int lower = size;
    for (int i = n - 2; i >= 0; --i) {
        push_hull(hull, &size, lower - 1, sorted[i]);
    }
    return size > 1 ? size - 1 : size; /* the last point repeats the first */
}

/* Area S_c, first moment s and second moment P2 = ∫ p p^T dS of C about o (fan triangles of
 * the hull of its outline). */
static tch_real area_moments(const tch_data* data, const tch_contact_polygon* polygon,
                             tch_vec3 o, tch_vec3 n, tch_vec3* s, tch_mat3* P2) {
    static const tch_real ones[3] = {1, 1, 1};
    tch_vec3 u1, u2;
    tch_v3_basis(n, &u1, &u2);
    plane_point hull[2 * MAX_OUTLINE];
    int count = outline_hull(data->polygon_vertices_W + polygon->vertex_start,
                             polygon->vertex_count, o, u1, u2, hull);
    tch_vec3 v[3] = {tch_v3_zero(), tch_v3_zero(), tch_v3_zero()};
    tch_real area = 0;
    *s = tch_v3_zero();
    tch_vec3 columns[3] = {tch_v3_zero(), tch_v3_zero(), tch_v3_zero()};
    for (int i = 1; i + 1 < count; ++i) {
        const plane_point* q[3] = {&hull[0], &hull[i], &hull[i + 1]};
        for (int k = 0; k < 3; ++k) {
            v[k] = tch_v3_add(tch_v3_scale(u1, q[k]->x), tch_v3_scale(u2, q[k]->y));
        }
        tch_contact_triangle t = tch_contact_triangle_make(v[0], v[1], v[2], n, tch_v3_zero());
        area += t.area;
        *s = tch_v3_add(*s, tch_triangle_integral_linear_p(&t, ones));
        for (int k = 0; k < 3; ++k) {
            tch_vec3 e = tch_v3_zero();
            tch_v3_set(&e, k, 1);
            columns[k] = tch_v3_add(columns[k], tch_triangle_integral_pp(&t, e));
        }
    }
    tch_real sign = area < 0 ? -1 : 1; /* the hull turns counter-clockwise about u1 x u2 */
    *s = tch_v3_scale(*s, sign);
    for (int k = 0; k < 3; ++k) {
        for (int r = 0; r < 3; ++r) {
            P2->m[r][k] = sign * tch_v3_get(columns[k], r);
        }
    }
    return sign * area;
}

/* The local 6x6 -c/S [[S n n^T, n (s×n)^T], [(s×n) n^T, J]] with J = N P2 N^T, N = [n]x. */
static void distributed_spring(tch_real c, tch_real S, tch_vec3 n, tch_vec3 s, const tch_mat3* P2,
                               tch_real L[6][6]) {
    tch_vec3 sn = tch_v3_cross(s, n);
    tch_real nv[3] = {n.x, n.y, n.z}, snv[3] = {sn.x, sn.y, sn.z};
    tch_mat3 N = tch_m3_skew(n);
    tch_mat3 J = tch_m3_mul(tch_m3_mul(N, *P2), tch_m3_transpose(N));
    for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) {
            L[r][k] = -c * nv[r] * nv[k];
            L[r][k + 3] = -c / S * nv[r] * snv[k];
            L[r + 3][k] = -c / S * snv[r] * nv[k];
            L[r + 3][k + 3] = -c / S * J.m[r][k];
        }
    }
}

void tch_volume_linearize(const tch_model* model, const tch_data* data,
                          const tch_pair_context* context, tch_pair_linearization* out) {
    const tch_pair_result* pair = context->pair;
    if (pair->polygon_count < 1 || pair->contact_count < 1) {
        return;
    }
    const tch_contact_polygon* polygon = &data->polygons[pair->polygon_start];
    const tch_contact* contact = &data->contacts[pair->contact_start];
    tch_wrench_linearization w = {.o_W = contact->p_W, .n_W = polygon->n_W, .F_W = pair->f_W,
                                  .depth = contact->depth};
    w.M_W = tch_v3_sub(pair->tau_Wo_W, tch_v3_cross(w.o_W, pair->f_W));
    tch_vec3 s;
    tch_mat3 P2;
    tch_real S = area_moments(data, polygon, w.o_W, w.n_W, &s, &P2);
    if (!(S > 0)) {
        return;
    }
    distributed_spring(pair->params.stiffness, S, w.n_W, s, &P2, w.K);
    distributed_spring(pair->params.damping, S, w.n_W, s, &P2, w.D);
    tch_contact_linearize_wrench(model, data, pair, &w, out);
}
