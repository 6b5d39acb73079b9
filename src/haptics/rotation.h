/* Rotations for the haptics module. */
#pragma once

#include <math.h>

#include "math/vec.h"

/* Rotation vector of unit q (log map, shortest way: q and -q are the same rotation). */
static inline tch_vec3 tch_haptic_rotvec_of(tch_quat q) {
    if (q.w < 0) {
        q = (tch_quat){-q.w, -q.x, -q.y, -q.z};
    }
    tch_vec3 u = tch_v3(q.x, q.y, q.z);
    tch_real s = tch_v3_norm(u);
    if (s < 1e-12) {
        return tch_v3_scale(u, 2);
    }
    return tch_v3_scale(u, 2 * atan2(s, q.w) / s);
}
