/* The contact-volume model linearized about the current state (docs/integrators.md), from what
 * the model keeps for the pair (its coefficients, the area S_c and second moment of the contact
 * area C, tch_volume_pair_coefficients) and leaves in tch_data: the point o where the wrench
 * acts (the pair's contact, the centroid of C) and the pair's net wrench.
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
 * eqs. 9-12 has the same form in the relative velocity (v_r(o), w_r) with b^N.
 *
 * While the static friction holds, its distributed springs (eqs. 18-24: the tangential
 * displacement r at o and the spin θ about n, with o at the centroid of C) give
 * f = -k^S r and m = -k^S θ (J_o / S_c) n, J_o = ∫_C |p|^2 dS; u moves r by its tangential part
 * and φ moves θ by n.φ, so
 *
 *     δF = -k^S (1 - n n^T) u,    δM = -k^S (J_o / S_c) n n^T φ
 *
 * and the dampers (eqs. 25-29) the same with b^S. A sliding contact's dynamic friction (eqs.
 * 13-17) stays explicit.
 */
#include "contact/contact.h"
#include "contact/volume.h"
#include "contact/volume_integrals.h"
#include "math/vec.h"

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

/* Adds the static friction's local 6x6 -c [[1 - n n^T, 0], [0, (J_o/S) n n^T]]. */
static void add_static_springs(tch_real c, tch_real S, tch_vec3 n, const tch_mat3* P2,
                               tch_real L[6][6]) {
    tch_real nv[3] = {n.x, n.y, n.z};
    tch_real spin = (P2->m[0][0] + P2->m[1][1] + P2->m[2][2]) / S; /* J_o / S_c */
    for (int r = 0; r < 3; ++r) {
        L[r][r] -= c;
        for (int k = 0; k < 3; ++k) {
            L[r][k] += c * nv[r] * nv[k];
            L[r + 3][k + 3] -= c * spin * nv[r] * nv[k];
        }
    }
}

void tch_volume_linearize(const tch_model* model, const tch_data* data,
                          const tch_pair_context* context, tch_pair_linearization* out) {
    const tch_pair_result* pair = context->pair;
    if (pair->contact_count < 1 || !context->state) {
        return;
    }
    tch_volume_params k;
    tch_real S;
    tch_mat3 P2;
    int sticking = tch_volume_pair_coefficients(context->state, &k, &S, &P2);
    const tch_contact* contact = &data->contacts[pair->contact_start];
    if (!(S > 0)) {
        return;
    }
    tch_wrench_linearization w = {.o_W = contact->p_W, .n_W = contact->n_W, .F_W = pair->f_W,
                                  .depth = contact->depth};
    w.M_W = tch_v3_sub(pair->tau_Wo_W, tch_v3_cross(w.o_W, pair->f_W));
    tch_vec3 s = tch_v3_zero(); /* o is the centroid of C */
    distributed_spring(k.stiffness, S, w.n_W, s, &P2, w.K);
    distributed_spring(k.damping, S, w.n_W, s, &P2, w.D);
    if (sticking) {
        add_static_springs(k.static_stiffness, S, w.n_W, &P2, w.K);
        add_static_springs(k.static_damping, S, w.n_W, &P2, w.D);
    }
    tch_contact_linearize_wrench(model, data, pair, &w, out);
}
