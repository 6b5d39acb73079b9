/* Small fixed-size linear algebra: 3-vectors, 3x3 matrices, unit quaternions and rigid
 * transforms, all by value and inline so that the compiler keeps them in registers.
 *
 * Conventions (docs/notation.md): quaternions are Hamilton (w, x, y, z); a unit quaternion
 * q_AB rotates B-expressed vectors into A: v_A = q_AB v_B q_AB*. Matrices are row-major.
 * X_AB = (q_AB, p_AB) maps points of B into A. Functions never allocate and never fail;
 * normalizing a zero vector or quaternion returns a fixed unit value (documented per function).
 */
#pragma once

#include <math.h>

#include "touche/base.h"

#define TCH_PI 3.14159265358979323846

/* ---- 3-vectors ---- */

static inline tch_vec3 tch_v3(tch_real x, tch_real y, tch_real z) {
    return (tch_vec3){x, y, z};
}
static inline tch_vec3 tch_v3_zero(void) {
    return (tch_vec3){0, 0, 0};
}
static inline tch_vec3 tch_v3_add(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){a.x + b.x, a.y + b.y, a.z + b.z};
}
static inline tch_vec3 tch_v3_sub(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline tch_vec3 tch_v3_scale(tch_vec3 a, tch_real s) {
    return (tch_vec3){a.x * s, a.y * s, a.z * s};
}
/* a + s b */
static inline tch_vec3 tch_v3_madd(tch_vec3 a, tch_real s, tch_vec3 b) {
    return (tch_vec3){a.x + s * b.x, a.y + s * b.y, a.z + s * b.z};
}
static inline tch_vec3 tch_v3_neg(tch_vec3 a) {
    return (tch_vec3){-a.x, -a.y, -a.z};
}
static inline tch_vec3 tch_v3_mul(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){a.x * b.x, a.y * b.y, a.z * b.z};
}
static inline tch_real tch_v3_dot(tch_vec3 a, tch_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline tch_vec3 tch_v3_cross(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline tch_real tch_v3_norm2(tch_vec3 a) {
    return tch_v3_dot(a, a);
}
static inline tch_real tch_v3_norm(tch_vec3 a) {
    return sqrt(tch_v3_dot(a, a));
}
static inline tch_real tch_v3_dist(tch_vec3 a, tch_vec3 b) {
    return tch_v3_norm(tch_v3_sub(a, b));
}
/* a / |a|; returns (0, 0, 1) when |a| is zero or not finite. */
static inline tch_vec3 tch_v3_normalize(tch_vec3 a) {
    tch_real n = tch_v3_norm(a);
    if (!(n > 0) || !isfinite(n)) {
        return (tch_vec3){0, 0, 1};
    }
    return tch_v3_scale(a, 1 / n);
}
static inline tch_vec3 tch_v3_lerp(tch_vec3 a, tch_vec3 b, tch_real t) {
    return tch_v3_madd(a, t, tch_v3_sub(b, a));
}
static inline tch_vec3 tch_v3_min(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){fmin(a.x, b.x), fmin(a.y, b.y), fmin(a.z, b.z)};
}
static inline tch_vec3 tch_v3_max(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){fmax(a.x, b.x), fmax(a.y, b.y), fmax(a.z, b.z)};
}
static inline tch_vec3 tch_v3_abs(tch_vec3 a) {
    return (tch_vec3){fabs(a.x), fabs(a.y), fabs(a.z)};
}
static inline tch_real tch_v3_get(tch_vec3 a, int i) {
    return i == 0 ? a.x : (i == 1 ? a.y : a.z);
}
static inline void tch_v3_set(tch_vec3* a, int i, tch_real value) {
    if (i == 0) {
        a->x = value;
    } else if (i == 1) {
        a->y = value;
    } else {
        a->z = value;
    }
}
static inline int tch_v3_isfinite(tch_vec3 a) {
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
}
/* Two unit vectors t1, t2 such that (t1, t2, n) is a right-handed orthonormal basis.
 * @pre n is unit length. */
static inline void tch_v3_basis(tch_vec3 n, tch_vec3* t1, tch_vec3* t2) {
    /* Duff et al. 2017, "Building an orthonormal basis, revisited". */
    tch_real sign = copysign(1.0, n.z);
    tch_real a = -1.0 / (sign + n.z);
    tch_real b = n.x * n.y * a;
    *t1 = (tch_vec3){1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x};
    *t2 = (tch_vec3){b, sign + n.y * n.y * a, -n.y};
}

/* ---- 3x3 matrices (row-major) ---- */

static inline tch_mat3 tch_m3_identity(void) {
    return (tch_mat3){{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
}
static inline tch_mat3 tch_m3_zero(void) {
    return (tch_mat3){{{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}};
}
static inline tch_mat3 tch_m3_diag(tch_vec3 d) {
    return (tch_mat3){{{d.x, 0, 0}, {0, d.y, 0}, {0, 0, d.z}}};
}
static inline tch_vec3 tch_m3_row(tch_mat3 m, int i) {
    return (tch_vec3){m.m[i][0], m.m[i][1], m.m[i][2]};
}
static inline tch_vec3 tch_m3_col(tch_mat3 m, int j) {
    return (tch_vec3){m.m[0][j], m.m[1][j], m.m[2][j]};
}
static inline tch_vec3 tch_m3_mul_v3(tch_mat3 m, tch_vec3 v) {
    return (tch_vec3){m.m[0][0] * v.x + m.m[0][1] * v.y + m.m[0][2] * v.z,
                      m.m[1][0] * v.x + m.m[1][1] * v.y + m.m[1][2] * v.z,
                      m.m[2][0] * v.x + m.m[2][1] * v.y + m.m[2][2] * v.z};
}
/* m^T v */
static inline tch_vec3 tch_m3_tmul_v3(tch_mat3 m, tch_vec3 v) {
    return (tch_vec3){m.m[0][0] * v.x + m.m[1][0] * v.y + m.m[2][0] * v.z,
                      m.m[0][1] * v.x + m.m[1][1] * v.y + m.m[2][1] * v.z,
                      m.m[0][2] * v.x + m.m[1][2] * v.y + m.m[2][2] * v.z};
}
static inline tch_mat3 tch_m3_mul(tch_mat3 a, tch_mat3 b) {
    tch_mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
        }
    }
    return r;
}
static inline tch_mat3 tch_m3_transpose(tch_mat3 a) {
    tch_mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = a.m[j][i];
        }
    }
    return r;
}
static inline tch_mat3 tch_m3_add(tch_mat3 a, tch_mat3 b) {
    tch_mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = a.m[i][j] + b.m[i][j];
        }
    }
    return r;
}
static inline tch_mat3 tch_m3_scale(tch_mat3 a, tch_real s) {
    tch_mat3 r;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            r.m[i][j] = a.m[i][j] * s;
        }
    }
    return r;
}
/* R A R^T: a tensor expressed in B re-expressed in A, given R = R_AB. */
static inline tch_mat3 tch_m3_rotate_tensor(tch_mat3 R, tch_mat3 A) {
    return tch_m3_mul(tch_m3_mul(R, A), tch_m3_transpose(R));
}
static inline tch_real tch_m3_det(tch_mat3 a) {
    return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
           a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
           a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
/* Inverse by cofactors; returns 0 (and leaves *out untouched) when |det| <= tiny * scale. */
int tch_m3_inverse(tch_mat3 a, tch_mat3* out);
/* Skew matrix [v]x such that [v]x w = v x w. */
static inline tch_mat3 tch_m3_skew(tch_vec3 v) {
    return (tch_mat3){{{0, -v.z, v.y}, {v.z, 0, -v.x}, {-v.y, v.x, 0}}};
}
/* Eigen-decomposition of a symmetric matrix by cyclic Jacobi rotations: A = V diag(d) V^T,
 * columns of V are unit eigenvectors, det V = +1, eigenvalues sorted descending. */
void tch_m3_symmetric_eigen(tch_mat3 a, tch_vec3* eigenvalues, tch_mat3* eigenvectors);

/* ---- quaternions ---- */

static inline tch_quat tch_q_identity(void) {
    return (tch_quat){1, 0, 0, 0};
}
static inline tch_quat tch_q_mul(tch_quat a, tch_quat b) {
    return (tch_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
static inline tch_quat tch_q_conj(tch_quat q) {
    return (tch_quat){q.w, -q.x, -q.y, -q.z};
}
static inline tch_real tch_q_norm(tch_quat q) {
    return sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
}
/* q / |q|; identity when |q| is zero or not finite. */
static inline tch_quat tch_q_normalize(tch_quat q) {
    tch_real n = tch_q_norm(q);
    if (!(n > 0) || !isfinite(n)) {
        return tch_q_identity();
    }
    return (tch_quat){q.w / n, q.x / n, q.y / n, q.z / n};
}
/* Rotates v by unit q: q v q*. */
static inline tch_vec3 tch_q_rotate(tch_quat q, tch_vec3 v) {
    tch_vec3 u = {q.x, q.y, q.z};
    tch_vec3 t = tch_v3_scale(tch_v3_cross(u, v), 2);
    return tch_v3_add(tch_v3_madd(v, q.w, t), tch_v3_cross(u, t));
}
/* Rotates v by q*: the inverse rotation. */
static inline tch_vec3 tch_q_inv_rotate(tch_quat q, tch_vec3 v) {
    return tch_q_rotate(tch_q_conj(q), v);
}
/* Rotation of `angle` rad about unit `axis`. */
static inline tch_quat tch_q_axis_angle(tch_vec3 axis, tch_real angle) {
    tch_real s = sin(angle / 2);
    return (tch_quat){cos(angle / 2), axis.x * s, axis.y * s, axis.z * s};
}
/* exp of a rotation vector: rotation by |r| about r/|r| (identity for r = 0). */
static inline tch_quat tch_q_from_rotvec(tch_vec3 r) {
    tch_real angle = tch_v3_norm(r);
    if (angle < 1e-12) {
        return tch_q_normalize((tch_quat){1, r.x / 2, r.y / 2, r.z / 2});
    }
    return tch_q_axis_angle(tch_v3_scale(r, 1 / angle), angle);
}
/* The rotation matrix of a unit quaternion (inline: the 72-byte result of an out-of-line call
 * was copied through the stack on the kinematics stage's path). */
static inline tch_mat3 tch_q_to_mat3(tch_quat q) {
    tch_real ww = q.w * q.w, xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    tch_real xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    tch_real wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    return (tch_mat3){{{ww + xx - yy - zz, 2 * (xy - wz), 2 * (xz + wy)},
                       {2 * (xy + wz), ww - xx + yy - zz, 2 * (yz - wx)},
                       {2 * (xz - wy), 2 * (yz + wx), ww - xx - yy + zz}}};
}
/* Unit quaternion of a rotation matrix (Shepperd's method), with w >= 0. */
tch_quat tch_q_from_mat3(tch_mat3 R);

/* ---- rigid transforms ---- */

static inline tch_transform tch_x_identity(void) {
    return (tch_transform){{1, 0, 0, 0}, {0, 0, 0}};
}
/* X_AC = X_AB X_BC */
static inline tch_transform tch_x_mul(tch_transform X_AB, tch_transform X_BC) {
    return (tch_transform){tch_q_mul(X_AB.q, X_BC.q),
                           tch_v3_add(tch_q_rotate(X_AB.q, X_BC.p), X_AB.p)};
}
/* X_BA from X_AB */
static inline tch_transform tch_x_inverse(tch_transform X_AB) {
    tch_quat q_BA = tch_q_conj(X_AB.q);
    return (tch_transform){q_BA, tch_v3_neg(tch_q_rotate(q_BA, X_AB.p))};
}
/* p_A = X_AB p_B */
static inline tch_vec3 tch_x_apply(tch_transform X_AB, tch_vec3 p_B) {
    return tch_v3_add(tch_q_rotate(X_AB.q, p_B), X_AB.p);
}
/* p_B = X_AB^-1 p_A */
static inline tch_vec3 tch_x_apply_inverse(tch_transform X_AB, tch_vec3 p_A) {
    return tch_q_inv_rotate(X_AB.q, tch_v3_sub(p_A, X_AB.p));
}
/* X_AB^-1 X_AC = X_BC, without forming the inverse. */
static inline tch_transform tch_x_relative(tch_transform X_AB, tch_transform X_AC) {
    tch_quat q_BA = tch_q_conj(X_AB.q);
    return (tch_transform){tch_q_mul(q_BA, X_AC.q), tch_q_rotate(q_BA, tch_v3_sub(X_AC.p, X_AB.p))};
}
