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

#include "math/lanes.h"
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

/* a b^T and a - b, the 3x3 pieces the inertia transforms need. */
static inline tch_mat3 tch_m3_outer(tch_vec3 a, tch_vec3 b) {
    return (tch_mat3){{{a.x * b.x, a.x * b.y, a.x * b.z},
                       {a.y * b.x, a.y * b.y, a.y * b.z},
                       {a.z * b.x, a.z * b.y, a.z * b.z}}};
}
static inline tch_mat3 tch_m3_sub(tch_mat3 a, tch_mat3 b) {
    tch_mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = a.m[i][j] - b.m[i][j];
        }
    }
    return r;
}

/* R S R^T for a symmetric S: the upper triangle of (R S) R^T, mirrored (45 products, not 54). */
static inline tch_mat3 tch_m3_rotate_symmetric(tch_mat3 R, tch_mat3 S) {
    tch_mat3 RS = tch_m3_mul(R, S), out;
    for (int i = 0; i < 3; ++i) {
        for (int j = i; j < 3; ++j) {
            out.m[i][j] = out.m[j][i] =
                RS.m[i][0] * R.m[j][0] + RS.m[i][1] * R.m[j][1] + RS.m[i][2] * R.m[j][2];
        }
    }
    return out;
}

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

/* crm(v) m = (w x m_w, v_o x m_w + w x m_v): the rate of change of motion vector m moving with
 * velocity v (eq. 2.31). */
static inline tch_spatial_vec tch_sv_cross_motion(tch_spatial_vec v, tch_spatial_vec m) {
    return (tch_spatial_vec){tch_v3_cross(v.ang, m.ang),
                             tch_v3_add(tch_v3_cross(v.lin, m.ang), tch_v3_cross(v.ang, m.lin))};
}
/* crf(v) f = -crm(v)^T f = (w x n + v_o x f, w x f): the rate of change of force vector f
 * moving with velocity v (eq. 2.32). */
static inline tch_spatial_vec tch_sv_cross_force(tch_spatial_vec v, tch_spatial_vec f) {
    return (tch_spatial_vec){tch_v3_add(tch_v3_cross(v.ang, f.ang), tch_v3_cross(v.lin, f.lin)),
                             tch_v3_cross(v.ang, f.lin)};
}
void tch_sv_cross_motion_matrix(tch_spatial_vec v, tch_real out[36]);
void tch_sv_cross_force_matrix(tch_spatial_vec v, tch_real out[36]);

/* ---- spatial transforms ---- */

tch_spatial_transform tch_sx_identity(void);
tch_spatial_transform tch_sx_from_transform(tch_transform X_AB);
/* X_AC = X_AB X_BC: R_AC = R_AB R_BC, p_AC = R_AB p_BC + p_AB */
static inline tch_spatial_transform tch_sx_mul(tch_spatial_transform X_AB,
                                               tch_spatial_transform X_BC) {
    return (tch_spatial_transform){tch_m3_mul(X_AB.R, X_BC.R),
                                   tch_v3_add(tch_m3_mul_v3(X_AB.R, X_BC.p), X_AB.p)};
}
/* X_BA from X_AB */
tch_spatial_transform tch_sx_inverse(tch_spatial_transform X_AB);
/* m_A = ^A X_B m_B: w_A = R w_B, v_A = R v_B + p x w_A. */
static inline tch_spatial_vec tch_sx_apply_motion(tch_spatial_transform X_AB, tch_spatial_vec m_B) {
    tch_vec3 w_A = tch_m3_mul_v3(X_AB.R, m_B.ang);
    return (tch_spatial_vec){w_A,
                             tch_v3_add(tch_m3_mul_v3(X_AB.R, m_B.lin), tch_v3_cross(X_AB.p, w_A))};
}
/* f_A = ^A X_B^* f_B: f_A = R f_B, n_A = R n_B + p x f_A. */
static inline tch_spatial_vec tch_sx_apply_force(tch_spatial_transform X_AB, tch_spatial_vec f_B) {
    tch_vec3 f_A = tch_m3_mul_v3(X_AB.R, f_B.lin);
    return (tch_spatial_vec){tch_v3_add(tch_m3_mul_v3(X_AB.R, f_B.ang), tch_v3_cross(X_AB.p, f_A)),
                             f_A};
}
/* m_B = ^A X_B^{-1} m_A without forming the inverse: w_B = R^T w_A, v_B = R^T (v_A - p x w_A) */
static inline tch_spatial_vec tch_sx_apply_inverse_motion(tch_spatial_transform X_AB,
                                                          tch_spatial_vec m_A) {
    return (tch_spatial_vec){
        tch_m3_tmul_v3(X_AB.R, m_A.ang),
        tch_m3_tmul_v3(X_AB.R, tch_v3_sub(m_A.lin, tch_v3_cross(X_AB.p, m_A.ang)))};
}
/* f_B = (^A X_B^*)^{-1} f_A: f_B = R^T f_A, n_B = R^T (n_A - p x f_A) */
static inline tch_spatial_vec tch_sx_apply_inverse_force(tch_spatial_transform X_AB,
                                                         tch_spatial_vec f_A) {
    return (tch_spatial_vec){
        tch_m3_tmul_v3(X_AB.R, tch_v3_sub(f_A.ang, tch_v3_cross(X_AB.p, f_A.lin))),
        tch_m3_tmul_v3(X_AB.R, f_A.lin)};
}
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
static inline tch_spatial_rbi tch_rbi_add(tch_spatial_rbi a, tch_spatial_rbi b) {
    return (tch_spatial_rbi){a.mass + b.mass, tch_v3_add(a.h, b.h), tch_m3_add(a.I_o, b.I_o)};
}
/* I_A = ^A X_B^* I_B ^B X_A (eq. 2.66) in the ten-number form. With u = R c (so m u = R h)
 * and c' = u + p: I_o' = R I_o R^T + m [u]x^2 - m [c']x^2, and [a]x^2 = a a^T - |a|^2 1 gives
 * m([u]x^2 - [u + p]x^2) = 2 (g.p) 1 - g p^T - p g^T with g = m u + m p / 2. */
static inline tch_spatial_rbi tch_rbi_transform(tch_spatial_transform X_AB, tch_spatial_rbi I_B) {
    tch_vec3 hR = tch_m3_mul_v3(X_AB.R, I_B.h);
    tch_vec3 p = X_AB.p;
    tch_vec3 g = tch_v3_madd(hR, I_B.mass / 2, p);
    tch_real gp[3] = {g.x, g.y, g.z}, pp[3] = {p.x, p.y, p.z}, diagonal = 2 * tch_v3_dot(g, p);
    tch_mat3 I = tch_m3_rotate_symmetric(X_AB.R, I_B.I_o);
    for (int i = 0; i < 3; ++i) {
        for (int j = i; j < 3; ++j) {
            I.m[i][j] -= gp[i] * pp[j] + pp[i] * gp[j];
            I.m[j][i] = I.m[i][j];
        }
        I.m[i][i] += diagonal;
    }
    return (tch_spatial_rbi){I_B.mass, tch_v3_madd(hR, I_B.mass, p), I};
}
/* I v = (I_o w + h x v_o, m v_o + w x h). */
static inline tch_spatial_vec tch_rbi_apply(tch_spatial_rbi I, tch_spatial_vec v) {
    return (tch_spatial_vec){tch_v3_add(tch_m3_mul_v3(I.I_o, v.ang), tch_v3_cross(I.h, v.lin)),
                             tch_v3_add(tch_v3_scale(v.lin, I.mass), tch_v3_cross(v.ang, I.h))};
}

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

static inline tch_spatial_abi tch_abi_from_rbi(tch_spatial_rbi I) {
    return (tch_spatial_abi){I.I_o, tch_m3_skew(I.h), tch_m3_scale(tch_m3_identity(), I.mass)};
}
static inline tch_spatial_abi tch_abi_add(tch_spatial_abi a, tch_spatial_abi b) {
    return (tch_spatial_abi){tch_m3_add(a.A, b.A), tch_m3_add(a.B, b.B), tch_m3_add(a.C, b.C)};
}
/* (A w + B v_o, B^T w + C v_o) */
static inline tch_spatial_vec tch_abi_apply(tch_spatial_abi I, tch_spatial_vec v) {
    return (tch_spatial_vec){tch_v3_add(tch_m3_mul_v3(I.A, v.ang), tch_m3_mul_v3(I.B, v.lin)),
                             tch_v3_add(tch_m3_tmul_v3(I.B, v.ang), tch_m3_mul_v3(I.C, v.lin))};
}
/* I_A = ^A X_B^* I_B ^B X_A (eq. 2.66 again, now for a general symmetric inertia).
 * ^A X_B^* = T diag(R, R) with T = [1 P; 0 1], P = [p]x (eq. 2.24), so with the rotated
 * blocks A', B', C' the congruence T [A' B'; B'^T C'] T^T has blocks
 * A' + P B'^T - (B' + P C') P, B' + P C' and C' (the rotated blocks alone when p = 0, as
 * between the joints of one body). A and C are symmetric. */
TCH_CLONE_AVX2 static inline tch_spatial_abi tch_abi_transform(tch_spatial_transform X_AB, tch_spatial_abi I_B) {
    tch_mat3 R = X_AB.R;
    tch_mat3 A = tch_m3_rotate_symmetric(R, I_B.A);
    tch_mat3 B = tch_m3_rotate_tensor(R, I_B.B);
    tch_mat3 C = tch_m3_rotate_symmetric(R, I_B.C);
    if (X_AB.p.x == 0 && X_AB.p.y == 0 && X_AB.p.z == 0) {
        return (tch_spatial_abi){A, B, C};
    }
    tch_mat3 P = tch_m3_skew(X_AB.p);
    tch_mat3 B_new = tch_m3_add(B, tch_m3_mul(P, C));
    tch_mat3 A_new =
        tch_m3_sub(tch_m3_add(A, tch_m3_mul(P, tch_m3_transpose(B))), tch_m3_mul(B_new, P));
    return (tch_spatial_abi){A_new, B_new, C};
}
/* I - a b^T, block by block as the upper triangle and B hold it. The caller subtracts a sum
 * of such terms that is symmetric as a whole (U D^-1 U^T of the articulated-body algorithm,
 * table 7.1). */
static inline tch_spatial_abi tch_abi_sub_outer(tch_spatial_abi I, tch_spatial_vec a,
                                                tch_spatial_vec b) {
    return (tch_spatial_abi){tch_m3_sub(I.A, tch_m3_outer(a.ang, b.ang)),
                             tch_m3_sub(I.B, tch_m3_outer(a.ang, b.lin)),
                             tch_m3_sub(I.C, tch_m3_outer(a.lin, b.lin))};
}

/* ---- spatial vectors in lanes ---- */

/* A spatial vector with its angular and linear parts side by side, axis by axis (math/lanes.h):
 * x = (ang.x, lin.x), y = (ang.y, lin.y), z = (ang.z, lin.z). An operation on both parts is
 * one operation per axis, with the roundings of the scalar code: tch_sv_lanes_dot is
 * tch_sv_dot bit for bit. */
typedef struct tch_sv_lanes {
    tch_real2 x, y, z;
} tch_sv_lanes;

static inline tch_sv_lanes tch_sv_to_lanes(tch_spatial_vec a) {
    return (tch_sv_lanes){tch_pair2(a.ang.x, a.lin.x), tch_pair2(a.ang.y, a.lin.y),
                          tch_pair2(a.ang.z, a.lin.z)};
}
/* m . f = (w . n) + (v . f), each part summed x, y, z as tch_v3_dot does (eq. 2.20). */
static inline tch_real tch_sv_lanes_dot(tch_sv_lanes m, tch_sv_lanes f) {
    tch_real2 sum = m.x * f.x + m.y * f.y + m.z * f.z;
    return sum[0] + sum[1];
}
