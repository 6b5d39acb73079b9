/* Small rigid-body math for the command (the library's own is internal to it): vectors,
 * Hamilton unit quaternions (w, x, y, z) and rigid transforms, as docs/notation.md. */
#pragma once

#include <math.h>

#include "touche/base.h"

static inline tch_vec3 cli_v3_add(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){a.x + b.x, a.y + b.y, a.z + b.z};
}
static inline tch_vec3 cli_v3_sub(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){a.x - b.x, a.y - b.y, a.z - b.z};
}
static inline tch_vec3 cli_v3_scale(tch_vec3 a, double s) {
    return (tch_vec3){a.x * s, a.y * s, a.z * s};
}
static inline double cli_v3_dot(tch_vec3 a, tch_vec3 b) {
    return a.x * b.x + a.y * b.y + a.z * b.z;
}
static inline double cli_v3_norm(tch_vec3 a) {
    return sqrt(cli_v3_dot(a, a));
}
static inline tch_vec3 cli_v3_cross(tch_vec3 a, tch_vec3 b) {
    return (tch_vec3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}

/* q v q*: v + 2 w (u x v) + 2 u x (u x v), u = (x, y, z). */
static inline tch_vec3 cli_rotate(tch_quat q, tch_vec3 v) {
    tch_vec3 u = {q.x, q.y, q.z};
    tch_vec3 t = cli_v3_scale(cli_v3_cross(u, v), 2);
    return cli_v3_add(cli_v3_add(v, cli_v3_scale(t, q.w)), cli_v3_cross(u, t));
}

static inline tch_vec3 cli_apply(const tch_transform* X, tch_vec3 p) {
    return cli_v3_add(cli_rotate(X->q, p), X->p);
}

static inline tch_quat cli_quat_multiply(tch_quat a, tch_quat b) {
    return (tch_quat){a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
                      a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
                      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                      a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

static inline tch_quat cli_quat_conjugate(tch_quat q) {
    return (tch_quat){q.w, -q.x, -q.y, -q.z};
}

/* exp(r / 2): the rotation by the rotation vector r (angle |r| about r / |r|), rad. */
static inline tch_quat cli_quat_from_rotvec(tch_vec3 r) {
    double angle = cli_v3_norm(r);
    if (angle < 1e-12) return (tch_quat){1, r.x / 2, r.y / 2, r.z / 2};
    double s = sin(angle / 2) / angle;
    return (tch_quat){cos(angle / 2), r.x * s, r.y * s, r.z * s};
}

/* The rotation vector of a unit quaternion, angle in [0, pi] (q and -q give the same). */
static inline tch_vec3 cli_quat_to_rotvec(tch_quat q) {
    if (q.w < 0) q = (tch_quat){-q.w, -q.x, -q.y, -q.z};
    tch_vec3 u = {q.x, q.y, q.z};
    double s = cli_v3_norm(u);
    if (s < 1e-12) return cli_v3_scale(u, 2);
    return cli_v3_scale(u, 2 * atan2(s, q.w) / s);
}
