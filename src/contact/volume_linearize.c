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
#include <math.h>

#include "contact/contact.h"
#include "contact/volume.h"
#include "contact/volume_integrals.h"
#include "math/vec.h"

/* A local map that is block-diagonal in (translation, rotation): o at the centroid of C makes
 * the first moment s vanish, so neither the normal spring nor the static springs couple the
 * two. Its translation block is T = beta I + gamma n n^T (the normal spring gamma = c, the
 * static springs beta = c^S, gamma -= c^S), kept as the two numbers, so that carrying it to
 * the bodies takes outer products instead of 3x3 products (add_carried_blocks). */
typedef struct local_blocks {
    tch_real beta, gamma;
    tch_mat3 R;
} local_blocks;

/* c/S times [[S n n^T, 0], [0, J]], J = N P2 N^T (given), N = [n]x: the distributed normal
 * spring (or damper) of coefficient c, negated into L by the caller. */
static local_blocks distributed_spring(tch_real c, tch_real S, const tch_mat3* J) {
    return (local_blocks){0, c, tch_m3_scale(*J, c / S)};
}

/* Adds c [[1 - n n^T, 0], [0, (J_o/S) n n^T]], the static friction's springs (or dampers). */
static void add_static_springs(tch_real c, tch_real S, tch_vec3 n, const tch_mat3* P2,
                               local_blocks* b) {
    tch_real nv[3] = {n.x, n.y, n.z};
    tch_real spin = (P2->m[0][0] + P2->m[1][1] + P2->m[2][2]) / S; /* J_o / S_c */
    b->beta += c;
    b->gamma -= c;
    for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) {
            b->R.m[r][k] += c * spin * nv[r] * nv[k];
        }
    }
}

/* The translation block T = beta I + gamma n n^T. */
static tch_mat3 translation_block(const local_blocks* b, tch_vec3 n) {
    tch_real nv[3] = {n.x, n.y, n.z};
    tch_mat3 T;
    for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) {
            T.m[r][k] = b->gamma * nv[r] * nv[k] + (r == k ? b->beta : 0);
        }
    }
    return T;
}

/* L = -blocks as the 6x6 of tch_wrench_linearization. */
static void write_local(const local_blocks* b, tch_vec3 n, tch_real L[6][6]) {
    tch_mat3 T = translation_block(b, n);
    for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) {
            L[r][k] = -T.m[r][k];
            L[r][k + 3] = L[r + 3][k] = 0;
            L[r + 3][k + 3] = -b->R.m[r][k];
        }
    }
}

/* Adds -blocks carried to the two bodies, as tch_contact_linearize_wrench carries a general L
 * but for a block-diagonal one: with S(r) = [[1, -[r]x], [0, 1]],
 * S(r)^T diag(T, R) S(r') = [[T, -T [r']x], [[r]x T, R - [r]x T [r']x]], body a's side
 * negated (docs/integrators.md). With T = beta I + gamma n n^T and a = r x n, a' = r' x n
 * (n^T [r']x = -a'^T, [r]x [r']x = r' r^T - (r.r') I) the blocks are
 *     T,   -beta [r']x + gamma n a'^T,   beta [r]x + gamma a n^T,
 *     R - beta (r' r^T - (r.r') I) + gamma a a'^T. */
static void add_carried_blocks(const local_blocks* b, tch_vec3 n, const tch_vec3 arm[2],
                               tch_real out[12][12]) {
    const tch_real beta = b->beta, gamma = b->gamma;
    const tch_real nv[3] = {n.x, n.y, n.z};
    tch_real r[2][3], a[2][3];
    tch_mat3 upper[2]; /* -T [r_t]x, and its transpose [r_t]x T */
    for (int t = 0; t < 2; ++t) {
        const tch_vec3 cross = tch_v3_cross(arm[t], n);
        r[t][0] = arm[t].x, r[t][1] = arm[t].y, r[t][2] = arm[t].z;
        a[t][0] = cross.x, a[t][1] = cross.y, a[t][2] = cross.z;
        upper[t] = tch_m3_scale(tch_m3_skew(arm[t]), -beta);
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                upper[t].m[i][j] += gamma * nv[i] * a[t][j];
            }
        }
    }
    const tch_mat3 T = translation_block(b, n);
    for (int s = 0; s < 2; ++s) {
        for (int t = 0; t < 2; ++t) {
            const tch_real sign = s == t ? -1 : 1; /* the map is -blocks */
            const tch_real dot = beta * tch_v3_dot(arm[s], arm[t]);
            tch_real (*rows)[12] = out + 6 * s;
            for (int i = 0; i < 3; ++i) {
                for (int j = 0; j < 3; ++j) {
                    const tch_real lower = b->R.m[i][j] + gamma * a[s][i] * a[t][j] -
                                           beta * r[t][i] * r[s][j] + (i == j ? dot : 0);
                    rows[i][6 * t + j] += sign * T.m[i][j];
                    rows[i][6 * t + 3 + j] += sign * upper[t].m[i][j];
                    rows[3 + i][6 * t + j] += sign * upper[s].m[j][i];
                    rows[3 + i][6 * t + 3 + j] += sign * lower;
                }
            }
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
    tch_vec3 n = contact->n_W;
    tch_mat3 N = tch_m3_skew(n);
    tch_mat3 J = tch_m3_mul(tch_m3_mul(N, P2), tch_m3_transpose(N));
    local_blocks K = distributed_spring(k.stiffness, S, &J);
    local_blocks D = distributed_spring(k.damping, S, &J);
    tch_real impact = tch_volume_pair_impact_damping(context->state); /* restitution.h */
    if (!isnan(impact)) { /* along n the impact's damper alone; the tilt as in the law */
        K.beta = K.gamma = 0;
        D.beta = 0;
        D.gamma = impact;
    }
    if (sticking) {
        add_static_springs(k.static_stiffness, S, n, &P2, &K);
        add_static_springs(k.static_damping, S, n, &P2, &D);
    }
    if (!out->geometric) {
        int root_a = model->body_root[model->geom_body[pair->geom_a]];
        int root_b = model->body_root[model->geom_body[pair->geom_b]];
        const tch_vec3 arm[2] = {tch_v3_sub(contact->p_W, data->body_p_WCm[root_a]),
                                 tch_v3_sub(contact->p_W, data->body_p_WCm[root_b])};
        add_carried_blocks(&K, n, arm, out->K);
        add_carried_blocks(&D, n, arm, out->D);
        return;
    }
    tch_wrench_linearization w = {.o_W = contact->p_W, .n_W = n, .F_W = pair->f_W,
                                  .depth = contact->depth};
    w.M_W = tch_v3_sub(pair->tau_Wo_W, tch_v3_cross(w.o_W, pair->f_W));
    write_local(&K, n, w.K);
    write_local(&D, n, w.D);
    tch_contact_linearize_wrench(model, data, pair, &w, out);
}
