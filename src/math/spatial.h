/* Spatial (6D) algebra in Featherstone's conventions (R. Featherstone, "Rigid Body Dynamics
 * Algorithms", Springer 2008, chapter 2; section numbers below refer to it).
 *
 * Frames. A spatial vector is always expressed in one frame F and taken about F's origin Fo:
 *
 *   motion vector  m = (w, v)   w: angular velocity, v: velocity of the body-fixed point that is
 *                               momentarily at Fo (not the velocity of the body's own origin)
 *   force vector   f = (n, f)   n: moment about Fo, f: resultant force
 *
 * Both are stored angular part first, as Featherstone writes them. The scalar product
 * m . f = w . n + v . f is the power and does not depend on F (eq. 2.20).
 *
 * A spatial transform X_AB holds R_AB and p_AB exactly like tch_transform (p_AB: B's origin in
 * A, R_AB: maps B-expressed vectors to A). Applying it to a motion vector expressed in B about
 * Bo gives the same motion expressed in A about Ao: Featherstone's ^A X_B (eq. 2.24, with his
 * E = R_AB and r = -R_AB^T p_AB, so that -E [r]x = [p_AB]x R_AB):
 *
 *   ^A X_B = [ R       0 ]        ^A X_B^* = [ R   [p]x R ]
 *            [ [p]x R  R ]                   [ 0       R  ]
 *
 * and ^A X_B^* (forces) = ^A X_B^{-T}. [p]x is the skew matrix of p = p_AB.
 *
 * The spatial cross products (eqs. 2.31-2.33) of a motion vector v = (w, v_o):
 *
 *   crm(v) = [ [w]x    0    ]      crf(v) = -crm(v)^T = [ [w]x  [v_o]x ]
 *            [ [v_o]x [w]x  ]                           [  0     [w]x  ]
 *
 * A rigid-body inertia is kept in its compact form: mass m, centre of mass c = p_FCm and
 * rotational inertia I_Cm about the centre of mass in F's axes. Its 6x6 matrix about Fo is
 * (eq. 2.63)
 *
 *   I_Fo = [ I_Cm + m [c]x [c]x^T   m [c]x ]
 *          [ m [c]x^T               m 1    ]
 *
 * 6x6 matrices are row-major tch_real[36] acting on (angular, linear) stacked 6-vectors.
 * Nothing here allocates or fails.
 */
#pragma once

#include "math/vec.h"

typedef struct tch_spatial_vec {
    tch_vec3 ang; /* w (motion) or n (force) */
    tch_vec3 lin; /* v (motion) or f (force) */
} tch_spatial_vec;

/* X_AB: the spatial transform of a rigid transform, rotation as a matrix. */
typedef struct tch_spatial_transform {
    tch_mat3 R; /* R_AB */
    tch_vec3 p; /* p_AB, m */
} tch_spatial_transform;

/* Rigid-body inertia expressed in a frame F. */
typedef struct tch_spatial_inertia {
    tch_real mass; /* kg */
    tch_vec3 p_Cm; /* centre of mass in F, m */
    tch_mat3 I_Cm; /* rotational inertia about the centre of mass, F axes, kg m^2 */
} tch_spatial_inertia;

/* ---- spatial vectors ---- */

static inline tch_spatial_vec tch_sv(tch_vec3 ang, tch_vec3 lin) {
    return (tch_spatial_vec){ang, lin};
}
static inline tch_spatial_vec tch_sv_zero(void) {
    return (tch_spatial_vec){{0, 0, 0}, {0, 0, 0}};
}
static inline tch_spatial_vec tch_sv_add(tch_spatial_vec a, tch_spatial_vec b) {
    return (tch_spatial_vec){tch_v3_add(a.ang, b.ang), tch_v3_add(a.lin, b.lin)};
}
static inline tch_spatial_vec tch_sv_sub(tch_spatial_vec a, tch_spatial_vec b) {
    return (tch_spatial_vec){tch_v3_sub(a.ang, b.ang), tch_v3_sub(a.lin, b.lin)};
}
static inline tch_spatial_vec tch_sv_scale(tch_spatial_vec a, tch_real s) {
    return (tch_spatial_vec){tch_v3_scale(a.ang, s), tch_v3_scale(a.lin, s)};
}
/* Power of force f on motion m: m . f = w . n + v . f (eq. 2.20). */
static inline tch_real tch_sv_dot(tch_spatial_vec m, tch_spatial_vec f) {
    return tch_v3_dot(m.ang, f.ang) + tch_v3_dot(m.lin, f.lin);
}
/* Stacked (ang, lin) copies to and from a 6-array. */
void tch_sv_to_array(tch_spatial_vec a, tch_real out[6]);
tch_spatial_vec tch_sv_from_array(const tch_real a[6]);

/* crm(v) m: the rate of change of motion vector m moving with velocity v (eq. 2.31). */
tch_spatial_vec tch_sv_cross_motion(tch_spatial_vec v, tch_spatial_vec m);
/* crf(v) f = -crm(v)^T f: the rate of change of force vector f moving with velocity v
 * (eq. 2.32). */
tch_spatial_vec tch_sv_cross_force(tch_spatial_vec v, tch_spatial_vec f);
void tch_sv_cross_motion_matrix(tch_spatial_vec v, tch_real out[36]);
void tch_sv_cross_force_matrix(tch_spatial_vec v, tch_real out[36]);

/* ---- spatial transforms ---- */

tch_spatial_transform tch_sx_identity(void);
tch_spatial_transform tch_sx_from_transform(tch_transform X_AB);
/* X_AC = X_AB X_BC */
tch_spatial_transform tch_sx_mul(tch_spatial_transform X_AB, tch_spatial_transform X_BC);
/* X_BA from X_AB */
tch_spatial_transform tch_sx_inverse(tch_spatial_transform X_AB);
/* m_A = ^A X_B m_B: w_A = R w_B, v_A = R v_B + p x w_A. */
tch_spatial_vec tch_sx_apply_motion(tch_spatial_transform X_AB, tch_spatial_vec m_B);
/* f_A = ^A X_B^* f_B: f_A = R f_B, n_A = R n_B + p x f_A. */
tch_spatial_vec tch_sx_apply_force(tch_spatial_transform X_AB, tch_spatial_vec f_B);
/* m_B = ^A X_B^{-1} m_A, without forming the inverse. */
tch_spatial_vec tch_sx_apply_inverse_motion(tch_spatial_transform X_AB, tch_spatial_vec m_A);
/* f_B = (^A X_B^*)^{-1} f_A. */
tch_spatial_vec tch_sx_apply_inverse_force(tch_spatial_transform X_AB, tch_spatial_vec f_A);
void tch_sx_motion_matrix(tch_spatial_transform X_AB, tch_real out[36]);
void tch_sx_force_matrix(tch_spatial_transform X_AB, tch_real out[36]);

/* ---- rigid-body inertia ---- */

/* Momentum (force-like) of a body with inertia I moving with velocity v, both in one frame:
 * h = I v, with linear part m (v_o + w x c) and angular part I_Cm w + c x (linear part). */
tch_spatial_vec tch_si_apply(tch_spatial_inertia I, tch_spatial_vec v);
/* I_A from I_B given X_AB (the congruence ^A X_B^* I_B ^B X_A, eq. 2.66, in compact form). */
tch_spatial_inertia tch_si_transform(tch_spatial_transform X_AB, tch_spatial_inertia I_B);
/* Sum of two inertias expressed in one frame: total mass, composite centre of mass and
 * inertia about it by the parallel-axis theorem. Zero total mass gives the origin as centre. */
tch_spatial_inertia tch_si_add(tch_spatial_inertia a, tch_spatial_inertia b);
/* Rotational inertia about a point q (F axes): I_Cm + m ([d]x [d]x^T), d = c - q. */
tch_mat3 tch_si_inertia_about(tch_spatial_inertia I, tch_vec3 q);
void tch_si_matrix(tch_spatial_inertia I, tch_real out[36]);

/* ---- rigid-body inertia about the frame origin ---- */

/* The rigid-body inertia of eq. 2.63 by its ten numbers about Fo: mass m, first moment h = m c
 * and rotational inertia about Fo, I_o = I_Cm + m [c]x [c]x^T:
 *
 *   I_Fo = [ I_o     [h]x ]
 *          [ [h]x^T  m 1  ]
 *
 * Inertias of bodies expressed in one frame add entry by entry (eq. 2.67), and a transform
 * costs a rotation of I_o and a few outer products, so the composite inertias of the CRBA are
 * kept in this form. */
typedef struct tch_spatial_rbi {
    tch_real mass; /* kg */
    tch_vec3 h;    /* m c, kg m */
    tch_mat3 I_o;  /* about Fo, F axes, kg m^2 */
} tch_spatial_rbi;

tch_spatial_rbi tch_rbi_from_inertia(tch_spatial_inertia I);
tch_spatial_rbi tch_rbi_add(tch_spatial_rbi a, tch_spatial_rbi b);
/* I_A = ^A X_B^* I_B ^B X_A (eq. 2.66) in the ten-number form. */
tch_spatial_rbi tch_rbi_transform(tch_spatial_transform X_AB, tch_spatial_rbi I_B);
/* I v = (I_o w + h x v_o, m v_o + w x h). */
tch_spatial_vec tch_rbi_apply(tch_spatial_rbi I, tch_spatial_vec v);

/* ---- articulated-body inertia ---- */

/* A symmetric spatial inertia that need not be rigid (Featherstone sec. 7.1, the articulated
 * inertias I^A of the articulated-body algorithm), by its 3x3 blocks:
 *
 *   I^A = [ A    B ]      A = A^T, C = C^T
 *         [ B^T  C ]
 *
 * mapping motion vectors to force vectors about Fo. */
typedef struct tch_spatial_abi {
    tch_mat3 A; /* angular-angular */
    tch_mat3 B; /* angular-linear */
    tch_mat3 C; /* linear-linear */
} tch_spatial_abi;

tch_spatial_abi tch_abi_from_rbi(tch_spatial_rbi I);
tch_spatial_abi tch_abi_add(tch_spatial_abi a, tch_spatial_abi b);
/* (A w + B v_o, B^T w + C v_o) */
tch_spatial_vec tch_abi_apply(tch_spatial_abi I, tch_spatial_vec v);
/* I_A = ^A X_B^* I_B ^B X_A (eq. 2.66 again, now for a general symmetric inertia). */
tch_spatial_abi tch_abi_transform(tch_spatial_transform X_AB, tch_spatial_abi I_B);
/* I - a b^T, block by block as the upper triangle and B hold it. The caller subtracts a sum
 * of such terms that is symmetric as a whole (U D^-1 U^T of eq. 7.39). */
tch_spatial_abi tch_abi_sub_outer(tch_spatial_abi I, tch_spatial_vec a, tch_spatial_vec b);
