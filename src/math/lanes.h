/* Two reals side by side in one vector register (GCC's and Clang's vector extension; SSE2 on
 * x86-64, NEON on AArch64), for the hot loops that work on pairs of numbers: the two tangents
 * of a friction point, two components of a motion, two entries of a 6x6 block's row. Every
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
