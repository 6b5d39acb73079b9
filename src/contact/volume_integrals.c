/* Closed-form triangle integrals of the contact-volume model (see volume_integrals.h for the
 * conventions and the four area integrals they rest on).
 *
 * The second-moment formula ∫_T p p^T dS = S_t [(3/4) p̄ p̄^T + (1/12) Σ p_i p_i^T] follows from
 * the exact degree-2 rule on a triangle (the edge midpoints, weight 1/3 each): with
 * m_ij = (p_i + p_j)/2, Σ_{i<j} m_ij m_ij^T / 3 = (Σ p_i p_i^T + (Σ p_i)(Σ p_i)^T)/12 =
 * (1/12) Σ p_i p_i^T + (3/4) p̄ p̄^T. The same rule gives the h-weighted and |p|^2 forms.
 */
#include "contact/volume_integrals.h"

#include <math.h>

#include "base/error.h"

static int is_nonnegative(tch_real x) {
    return isfinite(x) && x >= 0;
}

tch_status tch_volume_params_check(const tch_volume_params* params, tch_error* err) {
    if (!params) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "contact-volume parameters are missing");
    }
    const struct {
        const char* name;
        tch_real value;
        int positive;
    } checks[] = {
        {"normal stiffness k^N", params->stiffness, 1},
        {"static friction stiffness k^S", params->static_stiffness, 1},
        {"normal damping b^N", params->damping, 0},
        {"static friction damping b^S", params->static_damping, 0},
        {"dynamic friction coefficient mu", params->friction, 0},
        {"static friction coefficient mu_0", params->static_friction, 0},
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks[0]; ++i) {
        const tch_real v = checks[i].value;
        if (!is_nonnegative(v) || (checks[i].positive && !(v > 0))) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "contact-volume %s must be finite and %s, got %g", checks[i].name,
                            checks[i].positive ? "> 0" : ">= 0", v);
        }
    }
    return TCH_OK;
}

/* The triangle with its area made positive (a triangle of C). */
static tch_contact_triangle unsigned_area(const tch_contact_triangle* t) {
    tch_contact_triangle u = *t;
    u.area = fabs(t->area);
    return u;
}

/* ---- normal force ---- */

tch_wrench tch_volume_normal_triangle(const tch_contact_triangle* t, tch_vec3 n,
                                      const tch_real g[3], tch_real c, tch_real S_c) {
    /* eq. 7: f = (c/S_c) S_t ḡ n;  eq. 8: m = (c/S_c) S_t [(3/4) ḡ p̄ + (1/12) Σ g_i p_i] x n */
    const tch_real scale = c / S_c;
    return (tch_wrench){
        tch_v3_scale(n, scale * tch_triangle_integral_linear(t, g)),
        tch_v3_scale(tch_v3_cross(tch_triangle_integral_linear_p(t, g), n), scale)};
}

tch_wrench tch_volume_damper_triangle(const tch_contact_triangle* t, tch_vec3 n, tch_vec3 v_r,
                                      tch_vec3 w_r, tch_real b_N, tch_real S_c) {
    const tch_contact_triangle u = unsigned_area(t);
    const tch_real scale = -b_N / S_c;
    const tch_vec3 p_mean = tch_contact_triangle_centroid(&u);
    const tch_real v_n = tch_v3_dot(n, v_r);
    /* eq. 11: n.v_r(p) = n.v_r + p.(n x w_r) is linear in p, so its mean is its value at p̄ */
    const tch_vec3 w = tch_v3_cross(n, w_r);
    const tch_vec3 force = tch_v3_scale(n, scale * u.area * (v_n + tch_v3_dot(p_mean, w)));
    /* eq. 12 (re-derived): ∫ (n.v_r(p)) p dS = (n.v_r) S_t p̄ + ∫ (p.w) p dS */
    const tch_vec3 first = tch_v3_madd(tch_triangle_integral_pp(&u, w), v_n * u.area, p_mean);
    return (tch_wrench){force, tch_v3_scale(tch_v3_cross(first, n), scale)};
}

/* ---- friction ---- */

tch_vec3 tch_volume_dynamic_traction(tch_real mu, tch_real sigma, tch_vec3 v_T) {
    const tch_real speed = tch_v3_norm(v_T);
    if (speed < TCH_VOLUME_SLIP_EPSILON) {
        return tch_v3_zero();
    }
    return tch_v3_scale(v_T, -mu * sigma / speed);
}

/* f = -c (r + theta n x p_C'), m = -c (p_C' x r + theta J' n) for the first moment S p_C' and
 * polar moment S J' of a region, divided by S_c (eqs. 21-24 and 25-29 share this form). */
static tch_wrench static_wrench(tch_real share, tch_vec3 first, tch_real polar, tch_vec3 n,
                                tch_vec3 r, tch_real theta, tch_real c) {
    const tch_vec3 force =
        tch_v3_add(tch_v3_scale(r, share), tch_v3_scale(tch_v3_cross(n, first), theta));
    const tch_vec3 moment = tch_v3_add(tch_v3_cross(first, r), tch_v3_scale(n, theta * polar));
    return (tch_wrench){tch_v3_scale(force, -c), tch_v3_scale(moment, -c)};
}

tch_wrench tch_volume_static_triangle(const tch_contact_triangle* t, tch_vec3 n, tch_vec3 r,
                                      tch_real theta, tch_real c, tch_real S_c) {
    const tch_contact_triangle u = unsigned_area(t);
    /* ∫ p × (theta n × p) dS = theta n ∫ |p|^2 dS since p.n = 0 (eq. 22) */
    return static_wrench(u.area / S_c,
                         tch_v3_scale(tch_contact_triangle_centroid(&u), u.area / S_c),
                         tch_triangle_integral_p2(&u) / S_c, n, r, theta, c);
}

tch_wrench tch_volume_static_total(const tch_contact_area* area, tch_vec3 n, tch_vec3 r,
                                   tch_real theta, tch_real c) {
    return static_wrench(1, area->centroid, area->polar / area->area, n, r, theta, c);
}

/* ---- sums over P ---- */

static tch_status check_integrate(const tch_polyhedron* P, tch_vec3 n, tch_vec3 o_c,
                                  const tch_volume_params* params, tch_error* err) {
    const tch_status status = tch_volume_params_check(params, err);
    if (status != TCH_OK) {
        return status;
    }
    if (!P || !tch_v3_isfinite(n) || !(fabs(tch_v3_norm(n) - 1) < 1e-9) ||
        !tch_v3_isfinite(o_c)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "contact-volume integration needs an overlap, a finite unit normal and "
                        "a finite plane point; got normal (%g %g %g)",
                        n.x, n.y, n.z);
    }
    return TCH_OK;
}

/* A vertex of P seen from the plane in the plane axes (u1, u2, n): p = (x, y), height h. The
 * sums below run in these axes, where every p lies. */
typedef struct seen_vertex {
    tch_real x, y, h;
} seen_vertex;

typedef struct plane_axes {
    tch_vec3 u1, u2, n, o_c;
} plane_axes;

static seen_vertex see(const plane_axes* axes, tch_vec3 q) {
    const tch_vec3 r = tch_v3_sub(q, axes->o_c);
    return (seen_vertex){tch_v3_dot(r, axes->u1), tch_v3_dot(r, axes->u2),
                         tch_v3_dot(r, axes->n)};
}

/* A plane vector (a, b) in A's axes. */
static tch_vec3 in_space(const plane_axes* axes, const tch_real a[2]) {
    return tch_v3_add(tch_v3_scale(axes->u1, a[0]), tch_v3_scale(axes->u2, a[1]));
}

/* The sums over P's triangles that the whole-contact closed forms need (S_c = 1: everything
 * scales with 1/S_c at the end); plane vectors in the plane axes. */
typedef struct overlap_sums {
    tch_real volume;    /* Σ S_t h̄ = V(P) */
    tch_real area;      /* Σ |S_t|/2 = S_c: C is covered twice, from the top and from the bottom */
    tch_real first[2];  /* Σ (|S_t|/2) p̄ = ∫_C p dS */
    tch_real polar;     /* ∫_C |p|^2 dS (eq. 22) */
    tch_real second[3]; /* ∫_C (x^2, x y, y^2) dS (eq. 12's ∫ p p^T dS) */
    tch_real spring[2]; /* Σ ∫_T h p dS (signed, eq. 8) = ∫_C d p dS */
    tch_real damper[2]; /* ∫_C (p.w) p dS, w = n x w_r (eq. 12) */
} overlap_sums;

/* One triangle's terms: tch_triangle_integral_linear and _linear_p of h with the signed S_t
 * (eqs. 7-8), _p2 and _pp of w with half of |S_t| (eqs. 12, 22), written out in the plane
 * axes. */
static void add_triangle(const seen_vertex v[3], const tch_real w[2], overlap_sums* sums) {
    const tch_real area = 0.5 * ((v[1].x - v[0].x) * (v[2].y - v[0].y) -
                                 (v[1].y - v[0].y) * (v[2].x - v[0].x));
    const tch_real half = 0.5 * fabs(area);
    const tch_real x = (v[0].x + v[1].x + v[2].x) / 3, y = (v[0].y + v[1].y + v[2].y) / 3;
    const tch_real h = (v[0].h + v[1].h + v[2].h) / 3;
    tch_real squares = 0, hx = 0, hy = 0, gx = 0, gy = 0, xx = 0, xy = 0, yy = 0;
    for (int i = 0; i < 3; ++i) {
        const tch_real g = v[i].x * w[0] + v[i].y * w[1];
        xx += v[i].x * v[i].x;
        xy += v[i].x * v[i].y;
        yy += v[i].y * v[i].y;
        squares += v[i].x * v[i].x + v[i].y * v[i].y;
        hx += v[i].h * v[i].x;
        hy += v[i].h * v[i].y;
        gx += g * v[i].x;
        gy += g * v[i].y;
    }
    /* Σ_{i<j} p_i.p_j = (|Σ p_i|^2 - Σ |p_i|^2) / 2 */
    const tch_real products = (9 * (x * x + y * y) - squares) / 2;
    const tch_real g_mean = x * w[0] + y * w[1];
    sums->volume += area * h;
    sums->area += half;
    sums->first[0] += half * x;
    sums->first[1] += half * y;
    sums->polar += half / 6 * (squares + products);
    sums->second[0] += half * (0.75 * x * x + xx / 12);
    sums->second[1] += half * (0.75 * x * y + xy / 12);
    sums->second[2] += half * (0.75 * y * y + yy / 12);
    sums->spring[0] += area * (0.75 * h * x + hx / 12);
    sums->spring[1] += area * (0.75 * h * y + hy / 12);
    sums->damper[0] += half * (0.75 * g_mean * x + gx / 12);
    sums->damper[1] += half * (0.75 * g_mean * y + gy / 12);
}

/* The totals of eqs. 7-8 (spring: k^N ∫ d dS n and k^N (∫ d p dS) x n) and eqs. 11-12 (damper:
 * -b^N ∫ n.v_r(p) dS n and -b^N (∫ n.v_r(p) p dS) x n with n.v_r(p) = n.v_r + p.w), each over
 * S_c: the per-triangle kernels tch_volume_normal_triangle and tch_volume_damper_triangle
 * summed, with the cross product with n taken once. */
static void finish_overlap(const overlap_sums* sums, const plane_axes* axes,
                           const tch_volume_params* pr, tch_vec3 v_r, const tch_real w[2],
                           tch_volume_overlap* out) {
    const tch_vec3 n = axes->n;
    const tch_vec3 first = in_space(axes, sums->first);
    out->volume = sums->volume;
    out->area.area = sums->area;
    out->area.centroid = first;
    out->area.polar = sums->polar;
    const tch_vec3 u[2] = {axes->u1, axes->u2};
    const tch_real s[2][2] = {{sums->second[0], sums->second[1]},
                              {sums->second[1], sums->second[2]}};
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) {
            tch_real sum = 0;
            for (int i = 0; i < 2; ++i) {
                for (int j = 0; j < 2; ++j) {
                    sum += tch_v3_get(u[i], r) * s[i][j] * tch_v3_get(u[j], c);
                }
            }
            out->area.second.m[r][c] = sum;
        }
    }
    const tch_real S_c = sums->area;
    if (!(S_c > 0)) {
        return;
    }
    const tch_real v_n = tch_v3_dot(n, v_r);
    out->area.centroid = tch_v3_scale(first, 1 / S_c);
    out->spring = (tch_wrench){
        tch_v3_scale(n, pr->stiffness * sums->volume / S_c),
        tch_v3_scale(tch_v3_cross(in_space(axes, sums->spring), n), pr->stiffness / S_c)};
    const tch_vec3 damper_first = tch_v3_madd(in_space(axes, sums->damper), v_n, first);
    const tch_real first_w = sums->first[0] * w[0] + sums->first[1] * w[1];
    out->damper = (tch_wrench){
        tch_v3_scale(n, -pr->damping * (v_n * S_c + first_w) / S_c),
        tch_v3_scale(tch_v3_cross(damper_first, n), -pr->damping / S_c)};
}

tch_status tch_volume_integrate(const tch_polyhedron* P, tch_vec3 n, tch_vec3 o_c,
                                const tch_volume_params* params, tch_vec3 v_r, tch_vec3 w_r,
                                tch_volume_overlap* out, tch_error* err) {
    *out = (tch_volume_overlap){0};
    const tch_status status = check_integrate(P, n, o_c, params, err);
    if (status != TCH_OK) {
        return status;
    }
    plane_axes axes = {.n = n, .o_c = o_c};
    tch_v3_basis(n, &axes.u1, &axes.u2);
    const tch_vec3 w_A = tch_v3_cross(n, w_r);
    const tch_real w[2] = {tch_v3_dot(w_A, axes.u1), tch_v3_dot(w_A, axes.u2)};
    /* a vertex is in about three faces: seen once each when P is small enough for the cache */
    enum { cache_size = 64 };
    seen_vertex cache[cache_size];
    const int cached = P->vertex_count <= cache_size;
    for (int i = 0; cached && i < P->vertex_count; ++i) {
        cache[i] = see(&axes, P->vertices_A[i]);
    }
    overlap_sums sums = {0};
    for (int f = 0; f < P->face_count; ++f) {
        const int* loop = P->face_vertices + P->face_start[f];
        const int length = P->face_start[f + 1] - P->face_start[f];
        seen_vertex v[3];
        v[0] = cached ? cache[loop[0]] : see(&axes, P->vertices_A[loop[0]]);
        v[2] = cached ? cache[loop[1]] : see(&axes, P->vertices_A[loop[1]]);
        for (int i = 1; i + 1 < length; ++i) {
            v[1] = v[2];
            v[2] = cached ? cache[loop[i + 1]] : see(&axes, P->vertices_A[loop[i + 1]]);
            add_triangle(v, w, &sums);
        }
    }
    finish_overlap(&sums, &axes, params, v_r, w, out);
    return TCH_OK;
}
