/* Two reals side by side (tch_v2), for the hot loops of the tree kernels: GCC and Clang's vector
 * extension, which becomes one SSE2 register on any x86-64 (NEON on AArch64), and a pair of
 * reals elsewhere. Every operation is element by element, separate products and sums (the
 * build's -ffp-contract=off), so each lane takes exactly the roundings of the scalar code that
 * does the same operations: results are bit for bit those of the scalar loops on any machine.
 * Loads and stores need no alignment. */
#pragma once

#include <string.h>

#include "touche/base.h"

#if defined(__GNUC__) || defined(__clang__)
typedef tch_real tch_v2 __attribute__((vector_size(2 * sizeof(tch_real))));

static inline tch_v2 tch_v2_pair(tch_real a, tch_real b) {
    return (tch_v2){a, b};
}
static inline tch_v2 tch_v2_splat(tch_real a) {
    return (tch_v2){a, a};
}
static inline tch_v2 tch_v2_sub(tch_v2 a, tch_v2 b) {
    return a - b;
}
static inline tch_v2 tch_v2_add(tch_v2 a, tch_v2 b) {
    return a + b;
}
static inline tch_v2 tch_v2_mul(tch_v2 a, tch_v2 b) {
    return a * b;
}
static inline tch_real tch_v2_lane(tch_v2 a, int i) {
    return a[i];
}
#else
typedef struct tch_v2 {
    tch_real lane[2];
} tch_v2;

static inline tch_v2 tch_v2_pair(tch_real a, tch_real b) {
    return (tch_v2){{a, b}};
}
static inline tch_v2 tch_v2_splat(tch_real a) {
    return (tch_v2){{a, a}};
}
static inline tch_v2 tch_v2_sub(tch_v2 a, tch_v2 b) {
    return (tch_v2){{a.lane[0] - b.lane[0], a.lane[1] - b.lane[1]}};
}
static inline tch_v2 tch_v2_add(tch_v2 a, tch_v2 b) {
    return (tch_v2){{a.lane[0] + b.lane[0], a.lane[1] + b.lane[1]}};
}
static inline tch_v2 tch_v2_mul(tch_v2 a, tch_v2 b) {
    return (tch_v2){{a.lane[0] * b.lane[0], a.lane[1] * b.lane[1]}};
}
static inline tch_real tch_v2_lane(tch_v2 a, int i) {
    return a.lane[i];
}
#endif

static inline tch_v2 tch_v2_load(const tch_real* p) {
    tch_v2 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void tch_v2_store(tch_real* p, tch_v2 v) {
    memcpy(p, &v, sizeof v);
}
