/* Closed-form integrals of the contact-volume model over the triangles of the overlap
 * polyhedron P (Hasegawa & Sato 2004, secs. 4.4-4.6; reference notes contact_volume.md §5-6,
 * which are the authority where the paper's equations are garbled).
 *
 * Frame and signs (notes §2): everything is in A's frame; n is the unit contact normal from A
 * into B; o_c a point of the contact plane; moments are about o_c; forces and moments are those
 * acting on B (A receives the opposite). A triangle of P's faces (q1, q2, q3, counter-clockwise
 * seen from outside P) is seen from the plane as heights h_i = n.(q_i - o_c), projections
 * p_i = q_i - h_i n - o_c and its signed projected area S_t = ((q2 - q1) x (q3 - q1)).n / 2:
 * positive on faces looking along +n (A's surface, the top of P), negative on the others.
 *
 * The three area integrals behind every closed form, for a triangle T of area S_t, vertices
 * p_i, centroid p̄ = (p1 + p2 + p3)/3 and a linear h (exact for polynomials of degree 2):
 *
 *     ∫_T h dS       = S_t h̄                                           (eq. 7)
 *     ∫_T h p dS     = S_t [ (3/4) h̄ p̄ + (1/12) Σ h_i p_i ]            (eq. 8)
 *     ∫_T p p^T dS   = S_t [ (3/4) p̄ p̄^T + (1/12) Σ p_i p_i^T ]        (eq. 12)
 *     ∫_T |p|^2 dS   = (S_t/6) (Σ |p_i|^2 + Σ_{i<j} p_i.p_j)            (eq. 22)
 *
 * Since the depth is d(p) = h_top(p) - h_bottom(p), the signed sum over all of P's triangles
 * of any integral linear in h is the integral of d over the contact area C (notes §5.1): the
 * spring force sums to k^N V / S_c n.
 *
 * Every kernel is a pure function with no checks (they run per triangle per step); the
 * parameters are checked once with tch_volume_params_check, and tch_volume_integrate (the sum
 * over a whole P) checks its inputs.
 */
#pragma once

#include "collision/polyhedron.h"
#include "math/vec.h"

/* Coefficients of one contact (notes §5-6). */
typedef struct tch_volume_params {
    tch_real stiffness;        /* k^N, N/m: with a uniform depth d the normal force is k^N d */
    tch_real damping;          /* b^N, N s/m */
    tch_real static_stiffness; /* k^S, N/m: tangential springs of the static friction */
    tch_real static_damping;   /* b^S, N s/m */
    tch_real friction;         /* mu, dynamic */
    tch_real static_friction;  /* mu_0 */
} tch_volume_params;

/* TCH_ERR_INVALID_ARGUMENT unless k^N > 0, k^S > 0, b^N, b^S, mu, mu_0 >= 0, all finite. */
tch_status tch_volume_params_check(const tch_volume_params* params, tch_error* err);

/* A force on B and its moment about o_c. */
typedef struct tch_wrench {
    tch_vec3 force;
    tch_vec3 moment;
} tch_wrench;

static inline tch_wrench tch_wrench_add(tch_wrench a, tch_wrench b) {
    return (tch_wrench){tch_v3_add(a.force, b.force), tch_v3_add(a.moment, b.moment)};
}
static inline tch_wrench tch_wrench_scale(tch_wrench a, tch_real s) {
    return (tch_wrench){tch_v3_scale(a.force, s), tch_v3_scale(a.moment, s)};
}

/* A triangle as the contact plane sees it (see above). */
typedef struct tch_contact_triangle {
    tch_vec3 p[3]; /* projections onto the plane, relative to o_c */
    tch_real h[3]; /* heights above the plane */
    tch_real area; /* signed projected area S_t */
} tch_contact_triangle;

/* The kernels that run per triangle per evaluation are inline: as calls into another unit
 * they cost more than their arithmetic. */

static inline tch_contact_triangle tch_contact_triangle_make(tch_vec3 q1, tch_vec3 q2,
                                                             tch_vec3 q3, tch_vec3 n,
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

/* p̄ = (p1 + p2 + p3) / 3 */
static inline tch_vec3 tch_contact_triangle_centroid(const tch_contact_triangle* t) {
    return tch_v3_scale(tch_v3_add(tch_v3_add(t->p[0], t->p[1]), t->p[2]), 1.0 / 3);
}

/* ---- area integrals over the projected triangle (signed by t->area) ---- */

/* ∫ g dS for g linear with vertex values g_i: S_t ḡ (eq. 7). */
static inline tch_real tch_triangle_integral_linear(const tch_contact_triangle* t,
                                                    const tch_real g[3]) {
    return t->area * (g[0] + g[1] + g[2]) / 3;
}

/* ∫ g p dS for g linear: S_t [(3/4) ḡ p̄ + (1/12) Σ g_i p_i] (eq. 8). */
static inline tch_vec3 tch_triangle_integral_linear_p(const tch_contact_triangle* t,
                                                      const tch_real g[3]) {
    const tch_real g_mean = (g[0] + g[1] + g[2]) / 3;
    tch_vec3 sum = tch_v3_scale(tch_contact_triangle_centroid(t), 0.75 * g_mean);
    for (int i = 0; i < 3; ++i) {
        sum = tch_v3_madd(sum, g[i] / 12, t->p[i]);
    }
    return tch_v3_scale(sum, t->area);
}

/* ∫ (p.w) p dS = (∫ p p^T dS) w: S_t [(3/4)(p̄.w) p̄ + (1/12) Σ (p_i.w) p_i] (eq. 12). */
static inline tch_vec3 tch_triangle_integral_pp(const tch_contact_triangle* t, tch_vec3 w) {
    /* (p.w) is the linear g of tch_triangle_integral_linear_p */
    const tch_real g[3] = {tch_v3_dot(t->p[0], w), tch_v3_dot(t->p[1], w),
                           tch_v3_dot(t->p[2], w)};
    return tch_triangle_integral_linear_p(t, g);
}

/* ∫ |p|^2 dS = (S_t/6)(Σ |p_i|^2 + Σ_{i<j} p_i.p_j) (eq. 22). */
static inline tch_real tch_triangle_integral_p2(const tch_contact_triangle* t) {
    const tch_vec3* p = t->p;
    const tch_real squares = tch_v3_norm2(p[0]) + tch_v3_norm2(p[1]) + tch_v3_norm2(p[2]);
    const tch_real products =
        tch_v3_dot(p[0], p[1]) + tch_v3_dot(p[1], p[2]) + tch_v3_dot(p[2], p[0]);
    return t->area / 6 * (squares + products);
}

/* ∫ p x tau(p) dS for tau linear with vertex values tau_i:
 * S_t [(3/4) p̄ x τ̄ + (1/12) Σ p_i x τ_i] (eq. 16). */
static inline tch_vec3 tch_triangle_integral_p_cross(const tch_contact_triangle* t,
                                                     const tch_vec3 tau[3]) {
    const tch_vec3 tau_mean =
        tch_v3_scale(tch_v3_add(tch_v3_add(tau[0], tau[1]), tau[2]), 1.0 / 3);
    tch_vec3 sum = tch_v3_scale(tch_v3_cross(tch_contact_triangle_centroid(t), tau_mean), 0.75);
    for (int i = 0; i < 3; ++i) {
        sum = tch_v3_madd(sum, 1.0 / 12, tch_v3_cross(t->p[i], tau[i]));
    }
    return tch_v3_scale(sum, t->area);
}

/* ---- normal force (sec. 4.5) ---- */

/* A distributed normal load with vertex intensities g_i on the triangle, coefficient c over
 * the contact area S_c: force (c/S_c) ∫ g dS n, moment (c/S_c) (∫ g p dS) x n.
 * Spring (eqs. 7-8): g = h, c = k^N. Damper over P's faces (notes §5.3 (b)): g = ḣ_i, the
 * normal velocity n.v_owner(q_i) of the body that owns the face, c = b^N; the signed sum over
 * P is -(b^N/S_c) ∫_C n.v_r dS n. */
tch_wrench tch_volume_normal_triangle(const tch_contact_triangle* t, tch_vec3 n,
                                      const tch_real g[3], tch_real c, tch_real S_c);

/* The normal damper over a triangle of the contact area C (eqs. 11-12, eq. 12 re-derived in
 * the notes), with the relative velocity field v_r(p) = v_r + w_r x p of B with respect to A
 * (about o_c), using |t->area|:
 *     f = -b^N (S_t/S_c) n.(v_r + w_r x p̄) n
 *     m = -b^N (S_t/S_c) [ (n.v_r) p̄ + (3/4)(p̄.w) p̄ + (1/12) Σ (p_i.w) p_i ] x n,  w = n x w_r */
tch_wrench tch_volume_damper_triangle(const tch_contact_triangle* t, tch_vec3 n, tch_vec3 v_r,
                                      tch_vec3 w_r, tch_real b_N, tch_real S_c);

/* ---- friction (sec. 4.6) ---- */

/* Relative tangential speed below which a vertex carries no dynamic friction (notes §6.1). */
#define TCH_VOLUME_SLIP_EPSILON 1e-4

/* Normal pressure at a vertex, sigma = (k^N h + b^N ḣ) / S_c (notes §6, face-flux form). */
static inline tch_real tch_volume_pressure(tch_real k_N, tch_real b_N, tch_real h,
                                           tch_real h_dot, tch_real S_c) {
    return (k_N * h + b_N * h_dot) / S_c;
}
/* Dynamic friction traction at a vertex (eqs. 13, 17): -mu sigma v_T/|v_T|, zero when
 * |v_T| < TCH_VOLUME_SLIP_EPSILON. v_T: tangential relative velocity of B at the vertex. */
tch_vec3 tch_volume_dynamic_traction(tch_real mu, tch_real sigma, tch_vec3 v_T);
/* A traction interpolated linearly from its vertex values tau_i over the triangle (eq. 14),
 * integrated: f = S_t τ̄ (eq. 15), m = S_t [(3/4) p̄ x τ̄ + (1/12) Σ p_i x τ_i] (eq. 16).
 * With vertex tractions of the face-flux pressure use the signed t->area; over a triangle of
 * C use a positive area. The maximum static friction (notes §6.3) is the same integral with
 * mu_0 and the static traction's direction. */
static inline tch_wrench tch_volume_traction_triangle(const tch_contact_triangle* t,
                                                      const tch_vec3 tau[3]) {
    const tch_vec3 sum = tch_v3_add(tch_v3_add(tau[0], tau[1]), tau[2]);
    return (tch_wrench){tch_v3_scale(sum, t->area / 3), tch_triangle_integral_p_cross(t, tau)};
}

/* Distributed tangential springs (or dampers) over a triangle of C, extension l(p) = r +
 * theta n x p (eq. 20), coefficient c over S_c, using |t->area|:
 *     f = -c (S_t/S_c) (r + theta n x p̄)                                        (eq. 21)
 *     m = -c (S_t/S_c) [ p̄ x r + theta (1/6)(Σ|p_i|^2 + Σ_{i<j} p_i.p_j) n ]    (eq. 22, corrected)
 * Springs: r, theta the tangential displacement and rotation since contact began, c = k^S.
 * Dampers (eqs. 25-27): r = v_T (tangential relative velocity at o_c), theta = w_n = w_r.n,
 * c = b^S. */
tch_wrench tch_volume_static_triangle(const tch_contact_triangle* t, tch_vec3 n, tch_vec3 r,
                                      tch_real theta, tch_real c, tch_real S_c);

/* Area moments of the contact area C about o_c: S_c, p_C = (1/S_c) ∫_C p dS, the polar
 * moment J_o = ∫_C |p|^2 dS and the second moment P_2 = ∫_C p p^T dS (A's axes; its trace is
 * J_o). */
typedef struct tch_contact_area {
    tch_real area;     /* S_c, m^2 */
    tch_vec3 centroid; /* p_C, relative to o_c */
    tch_real polar;    /* J_o, m^4 */
    tch_mat3 second;   /* P_2, m^4 */
} tch_contact_area;

/* The static spring (or damper) wrench over all of C from its area moments:
 *     f = -c (r + theta n x p_C)                                   (eqs. 23, 28)
 *     m = -c (p_C x r + theta (J_o/S_c) n)                         (eqs. 24, 29, corrected) */
tch_wrench tch_volume_static_total(const tch_contact_area* area, tch_vec3 n, tch_vec3 r,
                                   tch_real theta, tch_real c);

/* ---- sums over the overlap ---- */

typedef struct tch_volume_overlap {
    tch_real volume;       /* Σ S_t h̄ over P's triangles = V(P), m^3 */
    tch_contact_area area; /* of C, the shadow of P on the plane: S_c = (1/2) Σ |S_t| */
    tch_wrench spring;     /* eqs. 7-8 summed: k^N V/S_c n and its moment about o_c */
    tch_wrench damper;     /* eqs. 11-12 over C for the relative motion (v_r, w_r) */
} tch_volume_overlap;

/* Triangulates every face of P (fans) and sums the closed forms above. v_r and w_r give the
 * velocity of B relative to A at the points p of the plane, v_r(p) = v_r + w_r x (p - o_c).
 * An empty P gives zeros. TCH_ERR_INVALID_ARGUMENT for bad parameters or a non-unit or
 * non-finite n. */
tch_status tch_volume_integrate(const tch_polyhedron* P, tch_vec3 n, tch_vec3 o_c,
                                const tch_volume_params* params, tch_vec3 v_r, tch_vec3 w_r,
                                tch_volume_overlap* out, tch_error* err);
