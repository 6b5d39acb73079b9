/* Helpers of the math and geometry tests: deterministic random numbers (xorshift64,
 * Marsaglia 2003) and matrix comparisons. */
#pragma once

#include <math.h>
#include <stdint.h>

#include "math/vec.h"

typedef struct rng {
    uint64_t state; /* any non-zero seed */
} rng;

/* Uniform in [-1, 1). */
static inline tch_real uniform(rng* r) {
    r->state ^= r->state << 13;
    r->state ^= r->state >> 7;
    r->state ^= r->state << 17;
    return (tch_real)(r->state >> 11) / (tch_real)(1ull << 52) - 1;
}

static inline tch_vec3 random_vec3(rng* r) {
    return tch_v3(uniform(r), uniform(r), uniform(r));
}

static inline tch_quat random_quat(rng* r) {
    return tch_q_normalize((tch_quat){uniform(r), uniform(r), uniform(r), uniform(r)});
}

static inline tch_transform random_transform(rng* r) {
    return (tch_transform){random_quat(r), tch_v3_scale(random_vec3(r), 3)};
}

static const tch_real pi = 3.14159265358979323846;

static inline tch_real m3_max_diff(tch_mat3 a, tch_mat3 b) {
    tch_real d = 0;
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            d = fmax(d, fabs(a.m[i][j] - b.m[i][j]));
        }
    }
    return d;
}

static inline tch_real m3_max_abs(tch_mat3 a) {
    return m3_max_diff(a, tch_m3_zero());
}
