/* sin and cos of one angle together, for the joint placements of the tree kernels (a hinge costs
 * one of these per evaluation; libm's sincos was a fifth of an inverse dynamics call).
 *
 * Cody and Waite's reduction (W. J. Cody, W. Waite, "Software Manual for the Elementary
 * Functions", 1980, ch. 8): x = k pi/2 + r with k the nearest integer to x 2/pi and r computed
 * as (x - k C1) - k C2, where C1 holds the leading 33 bits of pi/2 (so k C1 is exact for
 * |k| < 2^20) and C2 = pi/2 - C1 to double precision; then |r| <= pi/4 (+ rounding), and the
 * Taylor series of sin through r^15 and of cos through r^16 leave truncation errors below
 * (pi/4)^17/17! = 5e-17 and (pi/4)^18/18! = 2e-18. The quadrant k mod 4 permutes and signs the
 * pair. Beyond |x| = 1e5 (or not finite) it defers to libm. Accurate to a few 1e-16 absolute
 * (tests/math/test_math.c checks 3e-16 against libm over +-1e5). */
#pragma once

#include <math.h>

#include "touche/base.h"

static inline tch_real tch_sin_reduced(tch_real r) { /* Taylor through r^15 */
    tch_real z = r * r;
    tch_real p = -1.0 / 1307674368000.0; /* -1/15! */
    p = p * z + 1.0 / 6227020800.0;      /* 1/13! */
    p = p * z - 1.0 / 39916800.0;        /* -1/11! */
    p = p * z + 1.0 / 362880.0;          /* 1/9! */
    p = p * z - 1.0 / 5040.0;            /* -1/7! */
    p = p * z + 1.0 / 120.0;             /* 1/5! */
    p = p * z - 1.0 / 6.0;               /* -1/3! */
    return r + r * z * p;
}

static inline tch_real tch_cos_reduced(tch_real r) { /* Taylor through r^16 */
    tch_real z = r * r;
    tch_real p = 1.0 / 20922789888000.0; /* 1/16! */
    p = p * z - 1.0 / 87178291200.0;     /* -1/14! */
    p = p * z + 1.0 / 479001600.0;       /* 1/12! */
    p = p * z - 1.0 / 3628800.0;         /* -1/10! */
    p = p * z + 1.0 / 40320.0;           /* 1/8! */
    p = p * z - 1.0 / 720.0;             /* -1/6! */
    p = p * z + 1.0 / 24.0;              /* 1/4! */
    return 1 - z / 2 + z * z * p;
}

static inline void tch_sincos(tch_real x, tch_real* s, tch_real* c) {
    if (!(fabs(x) <= 1e5)) {
        *s = sin(x);
        *c = cos(x);
        return;
    }
    /* pi/2 = C1 + C2: C1 its leading 33 bits (fdlibm's pio2_1), C2 the rest */
    const tch_real C1 = 1.57079632673412561417e+00, C2 = 6.07710050650619224932e-11;
    const tch_real round_shift = 6755399441055744.0; /* 1.5 2^52: adding it rounds to an integer */
    tch_real k = (x * 0.63661977236758134308 + round_shift) - round_shift; /* x 2/pi */
    tch_real r = (x - k * C1) - k * C2;
    tch_real sr = tch_sin_reduced(r), cr = tch_cos_reduced(r);
    switch ((long)k & 3) {
    case 0:
        *s = sr, *c = cr;
        break;
    case 1:
        *s = cr, *c = -sr;
        break;
    case 2:
        *s = -sr, *c = -cr;
        break;
    default:
        *s = -cr, *c = sr;
        break;
    }
}
