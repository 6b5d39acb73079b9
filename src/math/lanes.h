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

/* TCH_CLONE_AVX2 before a function compiles it twice, for any x86-64 and for AVX2, and the
 * loader binds the one the CPU runs (GNU ifunc; the solver's AVX-512 kernels are chosen at
 * run time likewise). AVX2 without FMA: the same separate products and sums in the same order
 * (the build's -ffp-contract=off, no reassociation), three-operand instructions and wider
 * lanes, so both versions give the same results bit for bit on any machine. Opt-in
 * (-DTCH_AVX2_CLONES): the copies take about 15% fewer instructions in the tree kernels but were
 * not faster in time on this machine (the PUMA's kernels and the two-arm scene slower, the
 * humanoid's forward dynamics faster; the cause is not established). Only with GCC on glibc: Clang 14 leaves out the dispatcher of a clone
 * not called in its own file. */
#if defined(__x86_64__) && defined(__GLIBC__) && defined(TCH_AVX2_CLONES) &&                 \
    defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 8
#define TCH_CLONE_AVX2 __attribute__((target_clones("avx2", "default")))
#else
#define TCH_CLONE_AVX2
#endif

static inline tch_v2 tch_v2_load(const tch_real* p) {
    tch_v2 v;
    memcpy(&v, p, sizeof v);
    return v;
}
static inline void tch_v2_store(tch_real* p, tch_v2 v) {
    memcpy(p, &v, sizeof v);
}
