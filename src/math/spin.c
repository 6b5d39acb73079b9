/* The implicit gyroscopic step of math/spin.h. */
#include "math/spin.h"

#include <float.h>

/* Newton iterations per solve, and the continuation's numbers of sub-intervals of h. */
enum { NEWTON_ITERATIONS = 16 };
static const int CONTINUATION[] = {1, 4, 16, 64};

typedef struct spin_problem {
    tch_mat3 I, I_inv;
    tch_vec3 w, tau;
} spin_problem;

/* F(x) = I (x - w) + h m x (I m) - h tau, m = (w + x) / 2: the residual of (1). */
static tch_vec3 residual(const spin_problem* p, tch_vec3 x, tch_real h) {
    tch_vec3 m = tch_v3_scale(tch_v3_add(p->w, x), 0.5);
    tch_vec3 gyro = tch_v3_cross(m, tch_m3_mul_v3(p->I, m));
    return tch_v3_add(tch_m3_mul_v3(p->I, tch_v3_sub(x, p->w)),
                      tch_v3_scale(tch_v3_sub(gyro, p->tau), h));
}

/* dF/dx = I + h/2 ([m]x I - [I m]x). */
static tch_mat3 jacobian(const spin_problem* p, tch_vec3 x, tch_real h) {
    tch_vec3 m = tch_v3_scale(tch_v3_add(p->w, x), 0.5);
    tch_mat3 d = tch_m3_add(tch_m3_mul(tch_m3_skew(m), p->I),
                            tch_m3_scale(tch_m3_skew(tch_m3_mul_v3(p->I, m)), -1));
    return tch_m3_add(p->I, tch_m3_scale(d, h / 2));
}

/* x = w + h I^-1 tau: the step without the gyroscopic term, Newton's start. */
static tch_vec3 torque_step(const spin_problem* p, tch_real h) {
    return tch_v3_madd(p->w, h, tch_m3_mul_v3(p->I_inv, p->tau));
}

/* Damped Newton on F at step h from *x (updated in place); true when |F| <= tolerance. */
static bool newton(const spin_problem* p, tch_real h, tch_real tolerance, tch_vec3* x) {
    tch_vec3 F = residual(p, *x, h);
    tch_real r = tch_v3_norm(F);
    for (int k = 0; k < NEWTON_ITERATIONS && r > tolerance; ++k) {
        tch_mat3 J_inv;
        if (!tch_m3_inverse(jacobian(p, *x, h), &J_inv)) {
            return false;
        }
        tch_vec3 step = tch_m3_mul_v3(J_inv, F), x_next, F_next;
        tch_real s = 1, r_next;
        for (;;) { /* halve the step until |F| decreases (Armijo with a small slope) */
            x_next = tch_v3_madd(*x, -s, step);
            F_next = residual(p, x_next, h);
            r_next = tch_v3_norm(F_next);
            if (r_next < (1 - 1e-4 * s) * r || s < 1.0 / 1024) {
                break;
            }
            s /= 2;
        }
        if (!(r_next < r)) {
            return false; /* a local minimum of |F|: no descent left */
        }
        *x = x_next, F = F_next, r = r_next;
    }
    return r <= tolerance;
}

static tch_real frobenius(tch_mat3 a) {
    tch_real sum = 0;
    for (int i = 0; i < 3; ++i) {
        sum += tch_v3_norm2(tch_m3_row(a, i));
    }
    return sqrt(sum);
}

/* The size of (1)'s terms at step h, for the tolerance: |I| (|w| + |x|) bounds the rounding of
 * I (x - w) (an inertia far from its principal axes cancels in it), h |I| |x|^2 the gyroscopic
 * term's, h |tau| the torque's. */
static tch_real term_size(const spin_problem* p, tch_vec3 x, tch_real h) {
    tch_real speed = fmax(tch_v3_norm(p->w), tch_v3_norm(x));
    return frobenius(p->I) * speed * (2 + h * speed) + h * tch_v3_norm(p->tau);
}

/* The fallback: x scaled down to the energy of the torque's step, x . I x <= y . I y. */
static tch_vec3 bounded(const spin_problem* p, tch_vec3 x, tch_real h) {
    tch_vec3 y = torque_step(p, h);
    tch_real bound = tch_v3_dot(y, tch_m3_mul_v3(p->I, y));
    tch_real twice = tch_v3_dot(x, tch_m3_mul_v3(p->I, x));
    return twice > bound ? tch_v3_scale(x, sqrt(bound / twice)) : x;
}

/* Whether I is c times the identity, exactly (a cube, a sphere: every axis principal). */
static bool isotropic(const tch_mat3* I) {
    return I->m[0][1] == 0 && I->m[0][2] == 0 && I->m[1][0] == 0 && I->m[1][2] == 0 &&
           I->m[2][0] == 0 && I->m[2][1] == 0 && I->m[0][0] == I->m[1][1] &&
           I->m[1][1] == I->m[2][2];
}

bool tch_spin_step(tch_mat3 I, tch_mat3 I_inv, tch_vec3 w, tch_vec3 tau, tch_real h,
                   tch_vec3* w_out) {
    const spin_problem p = {I, I_inv, w, tau};
    if (isotropic(&I)) {
        /* m x (I m) = c m x m = 0: the torque's step solves (1) exactly (Newton would stop at
         * it, its residual being the rounding of the vanishing term) */
        *w_out = torque_step(&p, h);
        return true;
    }
    const tch_real tolerance = 64 * DBL_EPSILON * term_size(&p, torque_step(&p, h), h);
    tch_vec3 x = w;
    for (size_t c = 0; c < sizeof CONTINUATION / sizeof CONTINUATION[0]; ++c) {
        const int parts = CONTINUATION[c];
        bool solved = true;
        x = torque_step(&p, h / parts);
        for (int j = 1; j <= parts && solved; ++j) {
            solved = newton(&p, h * j / parts, tolerance, &x);
        }
        if (solved) {
            *w_out = x;
            return true;
        }
    }
    *w_out = bounded(&p, x, h);
    return false;
}
