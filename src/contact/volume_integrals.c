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

tch_contact_triangle tch_contact_triangle_make(tch_vec3 q1, tch_vec3 q2, tch_vec3 q3, tch_vec3 n,
                                               tch_vec3 o_c) {
    tch_contact_triangle t;
    const tch_vec3 q[3] = {q1, q2, q3};
    for (int i = 0; i < 3; ++i) {
        const tch_vec3 r = tch_v3_sub(q[i], o_c);
        t.h[i] = tch_v3_dot(n, r);
        t.p[i] = tch_v3_madd(r, -t.h[i], n);
    }
    t.area = 0.5 * tch_v3_dot(tch_v3_cross(tch_v3_sub(q2, q1), tch_v3_sub(q3, q1)), n);
    return t;
}

static tch_vec3 centroid(const tch_contact_triangle* t) {
    return tch_v3_scale(tch_v3_add(tch_v3_add(t->p[0], t->p[1]), t->p[2]), 1.0 / 3);
}

/* ---- area integrals ---- */

tch_real tch_triangle_integral_linear(const tch_contact_triangle* t, const tch_real g[3]) {
    return t->area * (g[0] + g[1] + g[2]) / 3;
}

tch_vec3 tch_triangle_integral_linear_p(const tch_contact_triangle* t, const tch_real g[3]) {
    const tch_real g_mean = (g[0] + g[1] + g[2]) / 3;
    tch_vec3 sum = tch_v3_scale(centroid(t), 0.75 * g_mean);
    for (int i = 0; i < 3; ++i) {
        sum = tch_v3_madd(sum, g[i] / 12, t->p[i]);
    }
    return tch_v3_scale(sum, t->area);
}

tch_vec3 tch_triangle_integral_pp(const tch_contact_triangle* t, tch_vec3 w) {
    /* (p.w) is the linear g of tch_triangle_integral_linear_p */
    const tch_real g[3] = {tch_v3_dot(t->p[0], w), tch_v3_dot(t->p[1], w),
                           tch_v3_dot(t->p[2], w)};
    return tch_triangle_integral_linear_p(t, g);
}

tch_real tch_triangle_integral_p2(const tch_contact_triangle* t) {
    const tch_vec3* p = t->p;
    const tch_real squares = tch_v3_norm2(p[0]) + tch_v3_norm2(p[1]) + tch_v3_norm2(p[2]);
    const tch_real products =
        tch_v3_dot(p[0], p[1]) + tch_v3_dot(p[1], p[2]) + tch_v3_dot(p[2], p[0]);
    return t->area / 6 * (squares + products);
}

tch_vec3 tch_triangle_integral_p_cross(const tch_contact_triangle* t, const tch_vec3 tau[3]) {
    const tch_vec3 tau_mean =
        tch_v3_scale(tch_v3_add(tch_v3_add(tau[0], tau[1]), tau[2]), 1.0 / 3);
    tch_vec3 sum = tch_v3_scale(tch_v3_cross(centroid(t), tau_mean), 0.75);
    for (int i = 0; i < 3; ++i) {
        sum = tch_v3_madd(sum, 1.0 / 12, tch_v3_cross(t->p[i], tau[i]));
    }
    return tch_v3_scale(sum, t->area);
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
    const tch_vec3 p_mean = centroid(&u);
    const tch_real v_n = tch_v3_dot(n, v_r);
    /* eq. 11: n.v_r(p) = n.v_r + p.(n x w_r) is linear in p, so its mean is its value at p̄ */
    const tch_vec3 w = tch_v3_cross(n, w_r);
    const tch_vec3 force = tch_v3_scale(n, scale * u.area * (v_n + tch_v3_dot(p_mean, w)));
    /* eq. 12 (re-derived): ∫ (n.v_r(p)) p dS = (n.v_r) S_t p̄ + ∫ (p.w) p dS */
    const tch_vec3 first = tch_v3_madd(tch_triangle_integral_pp(&u, w), v_n * u.area, p_mean);
    return (tch_wrench){force, tch_v3_scale(tch_v3_cross(first, n), scale)};
}

/* ---- friction ---- */

tch_real tch_volume_pressure(tch_real k_N, tch_real b_N, tch_real h, tch_real h_dot,
                             tch_real S_c) {
    return (k_N * h + b_N * h_dot) / S_c;
}

tch_vec3 tch_volume_dynamic_traction(tch_real mu, tch_real sigma, tch_vec3 v_T) {
    const tch_real speed = tch_v3_norm(v_T);
    if (speed < TCH_VOLUME_SLIP_EPSILON) {
        return tch_v3_zero();
    }
    return tch_v3_scale(v_T, -mu * sigma / speed);
}

tch_wrench tch_volume_traction_triangle(const tch_contact_triangle* t, const tch_vec3 tau[3]) {
    const tch_vec3 sum = tch_v3_add(tch_v3_add(tau[0], tau[1]), tau[2]);
    return (tch_wrench){tch_v3_scale(sum, t->area / 3), tch_triangle_integral_p_cross(t, tau)};
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
    return static_wrench(u.area / S_c, tch_v3_scale(centroid(&u), u.area / S_c),
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

/* Adds one triangle's terms with S_c = 1 (everything scales with 1/S_c at the end). */
static void add_triangle(const tch_contact_triangle* t, tch_vec3 n, const tch_volume_params* pr,
                         tch_vec3 v_r, tch_vec3 w_r, tch_volume_overlap* out) {
    /* C is covered twice by P's triangles, once from the top and once from the bottom */
    tch_contact_triangle half = unsigned_area(t);
    half.area *= 0.5;
    out->volume += tch_triangle_integral_linear(t, t->h);
    out->area.area += half.area;
    out->area.centroid = tch_v3_madd(out->area.centroid, half.area, centroid(&half));
    out->area.polar += tch_triangle_integral_p2(&half);
    out->spring =
        tch_wrench_add(out->spring, tch_volume_normal_triangle(t, n, t->h, pr->stiffness, 1));
    out->damper =
        tch_wrench_add(out->damper, tch_volume_damper_triangle(&half, n, v_r, w_r, pr->damping, 1));
}

tch_status tch_volume_integrate(const tch_polyhedron* P, tch_vec3 n, tch_vec3 o_c,
                                const tch_volume_params* params, tch_vec3 v_r, tch_vec3 w_r,
                                tch_volume_overlap* out, tch_error* err) {
    *out = (tch_volume_overlap){0};
    const tch_status status = check_integrate(P, n, o_c, params, err);
    if (status != TCH_OK) {
        return status;
    }
    for (int f = 0; f < P->face_count; ++f) {
        const int* loop = P->face_vertices + P->face_start[f];
        const int length = P->face_start[f + 1] - P->face_start[f];
        for (int i = 1; i + 1 < length; ++i) {
            const tch_contact_triangle t = tch_contact_triangle_make(
                P->vertices_A[loop[0]], P->vertices_A[loop[i]], P->vertices_A[loop[i + 1]], n,
                o_c);
            add_triangle(&t, n, params, v_r, w_r, out);
        }
    }
    const tch_real S_c = out->area.area;
    if (S_c > 0) {
        out->area.centroid = tch_v3_scale(out->area.centroid, 1 / S_c);
        out->spring = tch_wrench_scale(out->spring, 1 / S_c);
        out->damper = tch_wrench_scale(out->damper, 1 / S_c);
    }
    return TCH_OK;
}
