/* The planar mode (tch_model.planar, docs/planar.md): every free body moves in the world x-z
 * plane and turns about world y only, three velocities per body, ν = (v_x, v_z, ω_y).
 *
 * It is a mask on the free bodies' mobility, not a change of coordinates: the state keeps
 * MuJoCo's free-joint layout (7 qpos, 6 qvel), and the bodies' inverse mass matrix becomes
 * the one of the constrained system. With P the 6x3 basis of the allowed velocities
 * (e_x, e_z linear; e_y angular), the velocities are ν = P u and the reduced dynamics are
 * (Pᵀ M P) u̇ = Pᵀ f, so the mobility in the six velocities is
 *
 *     M_P⁻¹ = P (Pᵀ M P)⁻¹ Pᵀ = diag(P_lin / m, e_y e_yᵀ / (e_yᵀ I_W e_y)),  P_lin = I − e_y e_yᵀ
 *
 * (M is block-diagonal at the centre of mass). Every consumer of M⁻¹ that goes through these
 * helpers (the integrators' accelerations, the constraint rows' M⁻¹Jᵀ, peg's LCP) then sees
 * three-DOF bodies exactly, and the constraint forces that keep the plane do no work. The
 * gyroscopic torque ω × I ω has no y component when ω is along y, so the reduced Euler
 * equation is I_yy ω̇_y = τ_y. */
#pragma once

#include <stdbool.h>

#include "math/vec.h"
#include "touche/model.h"

static inline bool tch_is_planar(const tch_model* m) {
    return m->planar != TCH_PLANAR_NONE;
}

/* The allowed part of a linear vector (force, velocity): its x-z components. */
static inline tch_vec3 tch_planar_linear(const tch_model* m, tch_vec3 v) {
    return tch_is_planar(m) ? tch_v3(v.x, 0, v.z) : v;
}

/* The allowed part of an angular vector (world): its y component. */
static inline tch_vec3 tch_planar_angular(const tch_model* m, tch_vec3 w) {
    return tch_is_planar(m) ? tch_v3(0, w.y, 0) : w;
}

/* The world inverse inertia of a free body as the constrained system sees it: e_y e_yᵀ / I_yy
 * (I_W the world inertia about the centre of mass), else I_inv_W unchanged. */
static inline tch_mat3 tch_planar_inverse_inertia(const tch_model* m, tch_mat3 I_W,
                                                  tch_mat3 I_inv_W) {
    if (!tch_is_planar(m)) {
        return I_inv_W;
    }
    tch_mat3 out = tch_m3_zero();
    out.m[1][1] = I_W.m[1][1] > 0 ? 1 / I_W.m[1][1] : 0;
    return out;
}

/* The tangent basis (t1, t2) of a contact normal n (right-handed with n): in the planar mode
 * t1 = e_y x n / |e_y x n|, the in-plane tangent, so that a friction row along t1 acts in the
 * plane and one along t2 (about e_y) moves nothing (its impulse stays zero); else, or for a
 * normal along y, tch_v3_basis. */
static inline void tch_planar_basis(const tch_model* m, tch_vec3 n, tch_vec3* t1, tch_vec3* t2) {
    tch_vec3 t = tch_v3(n.z, 0, -n.x); /* e_y x n */
    tch_real length = tch_v3_norm(t);
    if (!tch_is_planar(m) || !(length > 1e-9)) {
        tch_v3_basis(n, t1, t2);
        return;
    }
    *t1 = tch_v3_scale(t, 1 / length);
    *t2 = tch_v3_cross(n, *t1);
}
