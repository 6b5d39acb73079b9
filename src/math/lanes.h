/* Two reals side by side in one vector register (GCC's and Clang's vector extension; SSE2 on
 * x86-64, NEON on AArch64), for the hot loops that work on pairs of numbers: the two tangents
 * of a friction point, two components of a motion, two entries of a 6x6 block's row, two
 * ancestors' entries in the tree's factor, a spatial vector's angular and linear parts. Loads
 * and stores need no alignment. Every
 * operation acts on each lane as it would on a scalar, so a sum written with them rounds
 * exactly as the scalar expression it stands for (the build forbids contraction into fused
 * multiply-adds: -ffp-contract=off).
 *
 * A value wanted in both lanes is taken from a lane by a shuffle (LANE2): built from two
 * scalars, GCC may go through the stack, and the vector load then waits for the scalar stores
 * (a failed store forwarding, ~a dozen cycles). */
#pragma once

#include <string.h>

#include "touche/base.h"

#if !defined(__GNUC__) && !defined(__clang__)
#error "math/lanes.h needs GCC's or Clang's vector extension"
#endif

typedef tch_real tch_real2 __attribute__((vector_size(2 * sizeof(tch_real))));

static inline tch_real2 tch_load2(const tch_real* p) {
    tch_real2 v;
    memcpy(&v, p, sizeof v);
    return v;
}

static inline void tch_store2(tch_real* p, tch_real2 v) {
    memcpy(p, &v, sizeof v);
}

/* Lane k (0 or 1) of v in both lanes. */
#define TCH_LANE2(v, k) __builtin_shufflevector(v, v, k, k)

/* Two scalars as lanes 0 and 1, and one scalar in both. */
static inline tch_real2 tch_pair2(tch_real a, tch_real b) {
    return (tch_real2){a, b};
}

static inline tch_real2 tch_splat2(tch_real a) {
    return (tch_real2){a, a};
}

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
