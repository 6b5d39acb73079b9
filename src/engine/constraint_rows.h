/* Jacobian rows of the constraint stage in body-velocity form (engine/constraint.c).
 *
 * A row of the contact Jacobian along unit d_W at contact point p, between the roots of geoms a
 * and b, has the blocks (d, r_b x d) for b and -(d, r_a x d) for a, r = p - p_WCm, so that
 * J ν = d . (v_b(p) - v_a(p)). Each side also keeps M⁻¹ times its block, (d / m, I_W⁻¹ (r x d)),
 * so that an impulse z on the row changes the bodies' velocities by M⁻¹ Jᵀ z without a matrix.
 */
#pragma once

#include "math/vec.h"

/* One body's block of a Jacobian row and of M⁻¹ times its transpose. */
typedef struct tch_row_side {
    int body;                   /* free root; 0 (static) leaves the block zero */
    tch_vec3 lin, ang;          /* ±(d, r x d) */
    tch_vec3 inv_lin, inv_ang;  /* ±(d / m, I_W⁻¹ (r x d)) */
} tch_row_side;

typedef struct tch_jacobian_row {
    tch_row_side side[2];       /* [0]: geom b's root (+d), [1]: geom a's root (-d) */
} tch_jacobian_row;

/* The contribution of one body's blocks to J_i M⁻¹ J_jᵀ. */
static inline tch_real tch_row_side_coupling(const tch_row_side* i, const tch_row_side* j) {
    return tch_v3_dot(i->lin, j->inv_lin) + tch_v3_dot(i->ang, j->inv_ang);
}

/* J_i M⁻¹ J_jᵀ: the two rows' coupling through the bodies they share. */
static inline tch_real tch_row_coupling(const tch_jacobian_row* i, const tch_jacobian_row* j) {
    tch_real sum = 0;
    for (int s = 0; s < 2; ++s) {
        for (int t = 0; t < 2; ++t) {
            if (i->side[s].body != 0 && i->side[s].body == j->side[t].body) {
                sum += tch_row_side_coupling(&i->side[s], &j->side[t]);
            }
        }
    }
    return sum;
}

/* J ν for the velocities (v, w) of the row's bodies (centre of mass, world). */
static inline tch_real tch_row_dot(const tch_jacobian_row* row, const tch_vec3* v,
                                   const tch_vec3* w) {
    tch_real sum = 0;
    for (int k = 0; k < 2; ++k) {
        const tch_row_side* side = &row->side[k];
        if (side->body != 0) {
            sum += tch_v3_dot(side->lin, v[side->body]) + tch_v3_dot(side->ang, w[side->body]);
        }
    }
    return sum;
}

/* (v, w) += M⁻¹ Jᵀ z (eq. 17 of Ruspini and Khatib for one row) for the row's bodies. */
static inline void tch_row_add_impulse(const tch_jacobian_row* row, tch_real z, tch_vec3* v,
                                       tch_vec3* w) {
    for (int k = 0; k < 2; ++k) {
        const tch_row_side* side = &row->side[k];
        if (side->body != 0 && z != 0) {
            v[side->body] = tch_v3_madd(v[side->body], z, side->inv_lin);
            w[side->body] = tch_v3_madd(w[side->body], z, side->inv_ang);
        }
    }
}
