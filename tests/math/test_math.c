/* Math: quaternions and matrices (vec.h), spatial algebra (spatial.h), dense solvers (dense.h),
 * the implicit gyroscopic step (spin.h). */
#include <float.h>
#include <stdint.h>

#include "math/dense.h"
#include "math/sincos.h"
#include "math/spatial.h"
#include "math/spin.h"
#include "math/vec.h"
#include "test.h"
#include "test_util.h"

static tch_spatial_vec random_sv(rng* r) {
    return tch_sv(random_vec3(r), random_vec3(r));
}

static tch_real sv_max_diff(tch_spatial_vec a, tch_spatial_vec b) {
    tch_vec3 d1 = tch_v3_abs(tch_v3_sub(a.ang, b.ang)), d2 = tch_v3_abs(tch_v3_sub(a.lin, b.lin));
    return fmax(fmax(fmax(d1.x, d1.y), d1.z), fmax(fmax(d2.x, d2.y), d2.z));
}

/* y = M x for a 6x6 row-major M */
static tch_spatial_vec mat6_apply(const tch_real M[36], tch_spatial_vec x) {
    tch_real in[6], out[6];
    tch_sv_to_array(x, in);
    tch_dense_mat_vec(M, 6, 6, in, out);
    return tch_sv_from_array(out);
}

/* ---- quaternions, matrices, transforms ---- */

static void test_quat_matrix_round_trip(void) {
    rng r = {12345};
    for (int k = 0; k < 200; ++k) {
        tch_quat q = random_quat(&r);
        tch_mat3 R = tch_q_to_mat3(q);
        ENSURE_NEAR(tch_m3_det(R), 1, 1e-14);
        ENSURE(m3_max_diff(tch_m3_mul(R, tch_m3_transpose(R)), tch_m3_identity()) < 1e-14);
        tch_vec3 v = random_vec3(&r);
        ENSURE(tch_v3_dist(tch_m3_mul_v3(R, v), tch_q_rotate(q, v)) < 1e-14);
        tch_quat back = tch_q_from_mat3(R);
        tch_real sign = q.w < 0 ? -1 : 1; /* q and -q are one rotation; back has w >= 0 */
        ENSURE(back.w >= 0);
        ENSURE_NEAR(back.w, sign * q.w, 1e-14);
        ENSURE_NEAR(back.x, sign * q.x, 1e-14);
        ENSURE_NEAR(back.y, sign * q.y, 1e-14);
        ENSURE_NEAR(back.z, sign * q.z, 1e-14);
    }
}

/* Half turns have trace -1, so each of Shepperd's non-trace branches is taken. */
static void test_quat_from_mat3_half_turns(void) {
    const tch_vec3 axes[] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0.6, 0.8, 0}, {0, 0.6, -0.8}};
    const tch_real angles[] = {pi, pi - 1e-9, 3.0};
    for (int k = 0; k < 5; ++k) {
        for (int a = 0; a < 3; ++a) {
            tch_quat q = tch_q_axis_angle(axes[k], angles[a]);
            tch_mat3 R = tch_q_to_mat3(q);
            tch_mat3 back = tch_q_to_mat3(tch_q_from_mat3(R));
            ENSURE(m3_max_diff(back, R) < 1e-14);
            ENSURE_NEAR(tch_q_norm(tch_q_from_mat3(R)), 1, 1e-15);
        }
    }
}

static void test_symmetric_eigen(void) {
    rng r = {777};
    for (int k = 0; k < 100; ++k) {
        tch_mat3 V = tch_q_to_mat3(random_quat(&r));
        tch_vec3 d = tch_v3(3 + uniform(&r), 1 + uniform(&r) / 2, 0.1 * (1 + uniform(&r)));
        tch_mat3 A = tch_m3_rotate_tensor(V, tch_m3_diag(d));
        tch_vec3 values;
        tch_mat3 vectors;
        tch_m3_symmetric_eigen(A, &values, &vectors);
        ENSURE_NEAR(values.x, d.x, 1e-13);
        ENSURE_NEAR(values.y, d.y, 1e-13);
        ENSURE_NEAR(values.z, d.z, 1e-13);
        ENSURE_NEAR(tch_m3_det(vectors), 1, 1e-13);
        ENSURE(m3_max_diff(tch_m3_rotate_tensor(vectors, tch_m3_diag(values)), A) < 1e-13);
    }
    /* a repeated eigenvalue: any orthonormal basis of the plane will do */
    tch_vec3 values;
    tch_mat3 vectors;
    tch_m3_symmetric_eigen(tch_m3_diag(tch_v3(2, 5, 2)), &values, &vectors);
    ENSURE_NEAR(values.x, 5, 1e-15);
    ENSURE_NEAR(values.z, 2, 1e-15);
    ENSURE_NEAR(fabs(vectors.m[1][0]), 1, 1e-15);
}

/* tch_sincos against libm: within 3e-16 (about one unit in the last place of numbers near 1)
 * at random angles up to 1e5 rad, at multiples of pi/4 (the quadrant boundaries) and beyond
 * the reduction's range, where it defers to libm. */
static void test_sincos_matches_libm(void) {
    rng r = {7};
    tch_real worst = 0;
    for (int i = 0; i < 200000; ++i) {
        tch_real scale = i % 3 == 0 ? 1e5 : i % 3 == 1 ? 10 : 1e-3;
        tch_real x = scale * uniform(&r), s, c;
        tch_sincos(x, &s, &c);
        worst = fmax(worst, fmax(fabs(s - sin(x)), fabs(c - cos(x))));
    }
    for (int k = -40; k <= 40; ++k) {
        tch_real x = k * 0.78539816339744830962, s, c; /* k pi/4 */
        tch_sincos(x, &s, &c);
        worst = fmax(worst, fmax(fabs(s - sin(x)), fabs(c - cos(x))));
    }
    ENSURE(worst <= 3e-16);
    tch_real s, c;
    tch_sincos(3e7, &s, &c);
    ENSURE(s == sin(3e7) && c == cos(3e7));
    tch_sincos(0, &s, &c);
    ENSURE(s == 0 && c == 1);
}

static void test_m3_inverse(void) {
    rng r = {99};
    for (int k = 0; k < 100; ++k) {
        tch_mat3 A;
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                A.m[i][j] = uniform(&r) + (i == j ? 2 : 0);
            }
        }
        tch_mat3 inv;
        ENSURE(tch_m3_inverse(A, &inv) == 1);
        ENSURE(m3_max_diff(tch_m3_mul(A, inv), tch_m3_identity()) < 1e-13);
    }
    tch_mat3 singular = {{{1, 2, 3}, {2, 4, 6}, {0, 1, 1}}}, untouched = tch_m3_identity();
    ENSURE(tch_m3_inverse(singular, &untouched) == 0);
    ENSURE(m3_max_diff(untouched, tch_m3_identity()) == 0);
}

static void test_transform_compose_inverse(void) {
    rng r = {4242};
    for (int k = 0; k < 100; ++k) {
        tch_transform X_AB = random_transform(&r), X_BC = random_transform(&r);
        tch_vec3 p_C = random_vec3(&r);
        tch_transform X_AC = tch_x_mul(X_AB, X_BC);
        tch_vec3 direct = tch_x_apply(X_AC, p_C);
        tch_vec3 chained = tch_x_apply(X_AB, tch_x_apply(X_BC, p_C));
        ENSURE(tch_v3_dist(direct, chained) < 1e-13);
        tch_transform I = tch_x_mul(X_AB, tch_x_inverse(X_AB));
        ENSURE(tch_v3_norm(I.p) < 1e-14);
        ENSURE_NEAR(fabs(I.q.w), 1, 1e-14);
        ENSURE(tch_v3_dist(tch_x_apply_inverse(X_AB, tch_x_apply(X_AB, p_C)), p_C) < 1e-14);
        tch_transform X_BC_again = tch_x_relative(X_AB, X_AC);
        ENSURE(tch_v3_dist(tch_x_apply(X_BC_again, p_C), tch_x_apply(X_BC, p_C)) < 1e-13);
    }
}

/* ---- spatial algebra ---- */

static void test_spatial_transform_matches_matrix(void) {
    rng r = {31};
    for (int k = 0; k < 50; ++k) {
        tch_spatial_transform X = tch_sx_from_transform(random_transform(&r));
        tch_spatial_vec m = random_sv(&r), f = random_sv(&r);
        tch_real M[36], F[36], Minv[36];
        tch_sx_motion_matrix(X, M);
        tch_sx_force_matrix(X, F);
        tch_sx_motion_matrix(tch_sx_inverse(X), Minv);
        ENSURE(sv_max_diff(mat6_apply(M, m), tch_sx_apply_motion(X, m)) < 1e-13);
        ENSURE(sv_max_diff(mat6_apply(F, f), tch_sx_apply_force(X, f)) < 1e-13);
        /* X^* = X^-T (Featherstone eq. 2.25) */
        for (int i = 0; i < 6; ++i) {
            for (int j = 0; j < 6; ++j) {
                ENSURE_NEAR(F[i * 6 + j], Minv[j * 6 + i], 1e-13);
            }
        }
    }
}

static void test_spatial_transform_algebra(void) {
    rng r = {57};
    for (int k = 0; k < 50; ++k) {
        tch_spatial_transform X_AB = tch_sx_from_transform(random_transform(&r));
        tch_spatial_transform X_BC = tch_sx_from_transform(random_transform(&r));
        tch_spatial_vec m = random_sv(&r), f = random_sv(&r);
        /* power does not depend on the frame */
        ENSURE_NEAR(tch_sv_dot(tch_sx_apply_motion(X_AB, m), tch_sx_apply_force(X_AB, f)),
                    tch_sv_dot(m, f), 1e-13);
        /* composition and inverses */
        tch_spatial_vec chained = tch_sx_apply_motion(X_AB, tch_sx_apply_motion(X_BC, m));
        ENSURE(sv_max_diff(tch_sx_apply_motion(tch_sx_mul(X_AB, X_BC), m), chained) < 1e-13);
        ENSURE(sv_max_diff(tch_sx_apply_inverse_motion(X_AB, tch_sx_apply_motion(X_AB, m)), m) <
               1e-13);
        ENSURE(sv_max_diff(tch_sx_apply_inverse_force(X_AB, tch_sx_apply_force(X_AB, f)), f) <
               1e-13);
        ENSURE(sv_max_diff(tch_sx_apply_motion(tch_sx_inverse(X_AB), m),
                           tch_sx_apply_inverse_motion(X_AB, m)) < 1e-13);
    }
}

/* A body turning at w about an axis through p: the body point at the origin moves at
 * w x (0 - p) = p x w. A force f at p has the moment p x f about the origin. */
static void test_spatial_motion_of_rotation_about_point(void) {
    tch_vec3 w = tch_v3(0, 0, 2), p = tch_v3(1, 0, 0);
    tch_spatial_transform X_AB = {tch_m3_identity(), p};
    tch_spatial_vec m_A = tch_sx_apply_motion(X_AB, tch_sv(w, tch_v3_zero()));
    ENSURE(tch_v3_dist(m_A.lin, tch_v3(0, -2, 0)) < 1e-15);
    tch_spatial_vec f_A = tch_sx_apply_force(X_AB, tch_sv(tch_v3_zero(), tch_v3(0, 3, 0)));
    ENSURE(tch_v3_dist(f_A.ang, tch_v3(0, 0, 3)) < 1e-15);
}

static void test_spatial_cross_products(void) {
    rng r = {8};
    for (int k = 0; k < 50; ++k) {
        tch_spatial_vec v = random_sv(&r), m = random_sv(&r), f = random_sv(&r);
        tch_real crm[36], crf[36];
        tch_sv_cross_motion_matrix(v, crm);
        tch_sv_cross_force_matrix(v, crf);
        for (int i = 0; i < 6; ++i) {
            for (int j = 0; j < 6; ++j) {
                ENSURE(crf[i * 6 + j] == -crm[j * 6 + i]);
            }
        }
        ENSURE(sv_max_diff(mat6_apply(crm, m), tch_sv_cross_motion(v, m)) < 1e-14);
        ENSURE(sv_max_diff(mat6_apply(crf, f), tch_sv_cross_force(v, f)) < 1e-14);
        ENSURE(sv_max_diff(tch_sv_cross_motion(v, v), tch_sv_zero()) < 1e-15);
        /* (v x m) . f = -m . (v x* f) */
        ENSURE_NEAR(tch_sv_dot(tch_sv_cross_motion(v, m), f),
                    -tch_sv_dot(m, tch_sv_cross_force(v, f)), 1e-14);
        /* X (v x m) = (X v) x (X m) */
        tch_spatial_transform X = tch_sx_from_transform(random_transform(&r));
        ENSURE(sv_max_diff(tch_sx_apply_motion(X, tch_sv_cross_motion(v, m)),
                           tch_sv_cross_motion(tch_sx_apply_motion(X, v),
                                               tch_sx_apply_motion(X, m))) < 1e-12);
        ENSURE(sv_max_diff(tch_sx_apply_force(X, tch_sv_cross_force(v, f)),
                           tch_sv_cross_force(tch_sx_apply_motion(X, v),
                                              tch_sx_apply_force(X, f))) < 1e-12);
    }
}

static tch_spatial_inertia random_inertia(rng* r) {
    tch_mat3 V = tch_q_to_mat3(random_quat(r));
    tch_vec3 d = tch_v3(1 + uniform(r) / 2, 1 + uniform(r) / 2, 1.5 + uniform(r) / 4);
    return (tch_spatial_inertia){2 + uniform(r), random_vec3(r),
                                 tch_m3_rotate_tensor(V, tch_m3_diag(d))};
}

static void test_spatial_inertia(void) {
    rng r = {2024};
    for (int k = 0; k < 50; ++k) {
        tch_spatial_inertia I_B = random_inertia(&r), other = random_inertia(&r);
        tch_spatial_vec v_B = random_sv(&r);
        tch_real M[36];
        tch_si_matrix(I_B, M);
        ENSURE(sv_max_diff(mat6_apply(M, v_B), tch_si_apply(I_B, v_B)) < 1e-13);
        for (int i = 0; i < 6; ++i) {
            for (int j = 0; j < 6; ++j) {
                ENSURE_NEAR(M[i * 6 + j], M[j * 6 + i], 1e-14);
            }
        }
        ENSURE(tch_dense_cholesky(M, 6) == 0); /* positive definite */
        /* momentum transforms as a force: X^* (I_B v_B) = I_A (X v_B) */
        tch_spatial_transform X_AB = tch_sx_from_transform(random_transform(&r));
        tch_spatial_inertia I_A = tch_si_transform(X_AB, I_B);
        tch_spatial_vec v_A = tch_sx_apply_motion(X_AB, v_B);
        ENSURE(sv_max_diff(tch_sx_apply_force(X_AB, tch_si_apply(I_B, v_B)),
                           tch_si_apply(I_A, v_A)) < 1e-12);
        ENSURE_NEAR(tch_sv_dot(v_A, tch_si_apply(I_A, v_A)),
                    tch_sv_dot(v_B, tch_si_apply(I_B, v_B)), 1e-12);
        /* inertias add as operators */
        tch_spatial_vec sum = tch_si_apply(tch_si_add(I_B, other), v_B);
        ENSURE(sv_max_diff(sum, tch_sv_add(tch_si_apply(I_B, v_B), tch_si_apply(other, v_B))) <
               1e-12);
    }
}

/* A point mass m at c: about the origin its inertia is m (|c|^2 1 - c c^T). */
static void test_spatial_inertia_point_mass(void) {
    tch_spatial_inertia point = {2, {0, 3, 0}, tch_m3_zero()};
    tch_mat3 I_o = tch_si_inertia_about(point, tch_v3_zero());
    ENSURE_NEAR(I_o.m[0][0], 18, 1e-15);
    ENSURE_NEAR(I_o.m[1][1], 0, 1e-15);
    ENSURE_NEAR(I_o.m[2][2], 18, 1e-15);
    tch_spatial_inertia pair =
        tch_si_add(point, (tch_spatial_inertia){2, {0, -3, 0}, tch_m3_zero()});
    ENSURE(tch_v3_norm(pair.p_Cm) == 0);
    ENSURE_NEAR(pair.I_Cm.m[0][0], 36, 1e-15);
    tch_spatial_inertia empty = tch_si_add((tch_spatial_inertia){0, {1, 1, 1}, tch_m3_zero()},
                                           (tch_spatial_inertia){0, {2, 2, 2}, tch_m3_zero()});
    ENSURE(empty.mass == 0 && tch_v3_norm(empty.p_Cm) == 0);
}

/* ---- dense factorizations ---- */

enum { max_n = 16 };

/* A = B B^T + n 1 (symmetric positive definite), upper triangle filled with a marker. */
static void random_spd(rng* r, int n, tch_real* a, tch_real* full) {
    tch_real b[max_n * max_n];
    for (int i = 0; i < n * n; ++i) {
        b[i] = uniform(r);
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            tch_real s = i == j ? n : 0;
            for (int k = 0; k < n; ++k) {
                s += b[i * n + k] * b[j * n + k];
            }
            full[i * n + j] = s;
            a[i * n + j] = j > i ? 1234.5 : s;
        }
    }
}

/* max |A x - b| / (|A| |x|) */
static tch_real relative_residual(const tch_real* full, int n, const tch_real* x,
                                  const tch_real* b) {
    tch_real ax[max_n], worst = 0, scale_a = 0, scale_x = 0;
    tch_dense_mat_vec(full, n, n, x, ax);
    for (int i = 0; i < n; ++i) {
        worst = fmax(worst, fabs(ax[i] - b[i]));
        scale_x = fmax(scale_x, fabs(x[i]));
        for (int j = 0; j < n; ++j) {
            scale_a = fmax(scale_a, fabs(full[i * n + j]));
        }
    }
    return worst / (scale_a * scale_x);
}

static void test_dense_solves_random_spd(void) {
    rng r = {5};
    for (int n = 1; n <= max_n; ++n) {
        for (int trial = 0; trial < 5; ++trial) {
            tch_real a[max_n * max_n], ld[max_n * max_n], full[max_n * max_n];
            tch_real b[max_n], x1[max_n], x2[max_n];
            random_spd(&r, n, a, full);
            for (int i = 0; i < n * n; ++i) {
                ld[i] = a[i];
            }
            for (int i = 0; i < n; ++i) {
                b[i] = x1[i] = x2[i] = uniform(&r);
            }
            ENSURE(tch_dense_cholesky(a, n) == 0);
            ENSURE(tch_dense_ldlt(ld, n) == 0);
            tch_dense_cholesky_solve(a, n, x1);
            tch_dense_ldlt_solve(ld, n, x2);
            ENSURE(relative_residual(full, n, x1, b) < 1e-12);
            ENSURE(relative_residual(full, n, x2, b) < 1e-12);
            for (int i = 0; i < n; ++i) {
                ENSURE_NEAR(x1[i], x2[i], 1e-12);
                for (int j = i + 1; j < n; ++j) {
                    ENSURE(a[i * n + j] == 1234.5 && ld[i * n + j] == 1234.5);
                }
            }
        }
    }
}

/* L and D of a known matrix: [[4, 2], [2, 5]] = L L^T with L = [[2, 0], [1, 2]];
 * = L D L^T with L = [[1, 0], [0.5, 1]], D = diag(4, 4). */
static void test_dense_known_factors(void) {
    tch_real a[4] = {4, 0, 2, 5}, ld[4] = {4, 0, 2, 5};
    ENSURE(tch_dense_cholesky(a, 2) == 0);
    ENSURE(a[0] == 2 && a[2] == 1 && a[3] == 2);
    ENSURE(tch_dense_ldlt(ld, 2) == 0);
    ENSURE(ld[0] == 4 && ld[2] == 0.5 && ld[3] == 4);
}

static void test_dense_rejects_non_positive_pivots(void) {
    tch_real indefinite[4] = {1, 0, 2, 1};
    tch_real copy[4] = {1, 0, 2, 1};
    ENSURE(tch_dense_cholesky(indefinite, 2) == 2);
    ENSURE(tch_dense_ldlt(copy, 2) == 2);
    tch_real negative[1] = {-1}, zero[1] = {0};
    ENSURE(tch_dense_cholesky(negative, 1) == 1);
    ENSURE(tch_dense_ldlt(zero, 1) == 1);
    /* rank one: v v^T, v = (1, 1/3, 1/7) leaves a rounding-size second pivot */
    tch_real v[3] = {1, 1.0 / 3, 1.0 / 7}, rank_one[9], rank_one_copy[9];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            rank_one[i * 3 + j] = rank_one_copy[i * 3 + j] = v[i] * v[j];
        }
    }
    ENSURE(tch_dense_cholesky(rank_one, 3) == 2);
    ENSURE(tch_dense_ldlt(rank_one_copy, 3) == 2);
    tch_real nan_matrix[1] = {NAN};
    ENSURE(tch_dense_cholesky(nan_matrix, 1) == 1);
}

/* ---- the implicit gyroscopic step (spin.h) ---- */

/* A random inertia: principal moments in [0.05, 1] satisfying the triangle inequality, turned
 * by a random rotation (so far from its principal axes). */
static tch_mat3 random_body_inertia(rng* r) {
    tch_real a = 0.525 + 0.475 * uniform(r), b = 0.525 + 0.475 * uniform(r);
    tch_real low = fabs(a - b) + 1e-3, c = low + (a + b - low) * (0.5 + 0.5 * uniform(r));
    return tch_m3_rotate_tensor(tch_q_to_mat3(random_quat(r)), tch_m3_diag(tch_v3(a, b, c)));
}

/* Over random bodies and spins of 0.01 to 8 rad per step, half of them under a torque: w+
 * solves (1) of spin.h for every spin up to 8 rad per step, and then the kinetic energy
 * changes by exactly the torque's work h tau . (w + w+)/2, and without torque |I w+| = |I w|;
 * solved or not, the energy never exceeds that of w + h I^-1 tau. The explicit update
 * w + h I^-1 (tau - w x I w) exceeds it on most samples. */
static void test_spin_step_keeps_energy_and_momentum(void) {
    static const tch_real turns[] = {0.01, 0.1, 0.5, 1, 2, 4, 8}; /* h |w|, rad per step */
    rng r = {0x5eed5bu};
    const tch_real h = 0.01;
    int unsolved[7] = {0}, explicit_gains = 0, samples = 0;
    for (int k = 0; k < 7; ++k) {
        for (int i = 0; i < 400; ++i, ++samples) {
            tch_mat3 I = random_body_inertia(&r), I_inv;
            ENSURE(tch_m3_inverse(I, &I_inv));
            tch_vec3 w = tch_v3_scale(tch_v3_normalize(random_vec3(&r)), turns[k] / h);
            tch_real scale = i % 2 ? 10 * tch_v3_norm(tch_m3_mul_v3(I, w)) : 0;
            tch_vec3 tau = tch_v3_scale(random_vec3(&r), scale), w_next;
            bool solved = tch_spin_step(I, I_inv, w, tau, h, &w_next);
            unsolved[k] += !solved;
            tch_real energy = tch_v3_dot(w, tch_m3_mul_v3(I, w)) / 2;
            tch_real energy_next = tch_v3_dot(w_next, tch_m3_mul_v3(I, w_next)) / 2;
            tch_vec3 y = tch_v3_madd(w, h, tch_m3_mul_v3(I_inv, tau));
            tch_real bound = tch_v3_dot(y, tch_m3_mul_v3(I, y)) / 2;
            ENSURE(energy_next <= bound * (1 + 1e-11) || (solved && scale > 0));
            if (solved) {
                tch_real work = h * tch_v3_dot(tau, tch_v3_scale(tch_v3_add(w, w_next), 0.5));
                ENSURE_NEAR(energy_next - energy, work, 1e-11 * (energy + bound));
            }
            if (solved && scale == 0) {
                tch_real before = tch_v3_norm(tch_m3_mul_v3(I, w));
                ENSURE_REL(tch_v3_norm(tch_m3_mul_v3(I, w_next)), before, 1e-11);
            }
            tch_vec3 gyro = tch_v3_cross(w, tch_m3_mul_v3(I, w));
            tch_vec3 w_explicit = tch_v3_madd(y, -h, tch_m3_mul_v3(I_inv, gyro));
            explicit_gains += tch_v3_dot(w_explicit, tch_m3_mul_v3(I, w_explicit)) / 2 > bound;
        }
    }
    for (int k = 0; k < 7; ++k) {
        ENSURE(unsolved[k] == 0); /* at 4 and 8 rad per step some through the continuation */
    }
    ENSURE(explicit_gains > samples / 2);
}

/* Without torque and spin the step is w+ = 0; a spin about a principal axis stays (w x I w = 0),
 * to rounding. */
static void test_spin_step_keeps_a_principal_spin(void) {
    tch_mat3 I = tch_m3_diag(tch_v3(0.1, 0.2, 0.3)), I_inv = tch_m3_diag(tch_v3(10, 5, 1 / 0.3));
    tch_vec3 w;
    ENSURE(tch_spin_step(I, I_inv, tch_v3_zero(), tch_v3_zero(), 0.01, &w));
    ENSURE(tch_v3_norm(w) == 0);
    ENSURE(tch_spin_step(I, I_inv, tch_v3(0, 80, 0), tch_v3_zero(), 0.01, &w));
    ENSURE(tch_v3_dist(w, tch_v3(0, 80, 0)) <= 1e-13 * 80);
}

/* An inertia that breaks the triangle inequality (1e-7 + 0.6 < 1: no body has it) makes the
 * gyroscopic term stiff (I_2 - I_3)/I_1 = 4e6 times the spin; Newton stalls on some of these
 * and the step returns its fallback, whose energy stays within w's (no torque). */
static void test_spin_step_bounds_the_energy_when_unsolved(void) {
    rng r = {77};
    int unsolved = 0;
    for (int i = 0; i < 100; ++i) {
        tch_mat3 R = tch_q_to_mat3(random_quat(&r)), I_inv;
        tch_mat3 I = tch_m3_rotate_tensor(R, tch_m3_diag(tch_v3(1e-7, 0.6, 1)));
        ENSURE(tch_m3_inverse(I, &I_inv));
        tch_vec3 w = tch_v3_scale(tch_v3_normalize(random_vec3(&r)), 10), w_next;
        unsolved += !tch_spin_step(I, I_inv, w, tch_v3_zero(), 0.01, &w_next);
        ENSURE(tch_v3_dot(w_next, tch_m3_mul_v3(I, w_next)) <=
               tch_v3_dot(w, tch_m3_mul_v3(I, w)) * (1 + 1e-12));
    }
    ENSURE(unsolved > 0);
}

int main(void) {
    RUN_TEST(test_spin_step_keeps_energy_and_momentum);
    RUN_TEST(test_spin_step_keeps_a_principal_spin);
    RUN_TEST(test_spin_step_bounds_the_energy_when_unsolved);
    RUN_TEST(test_quat_matrix_round_trip);
    RUN_TEST(test_quat_from_mat3_half_turns);
    RUN_TEST(test_symmetric_eigen);
    RUN_TEST(test_sincos_matches_libm);
    RUN_TEST(test_m3_inverse);
    RUN_TEST(test_transform_compose_inverse);
    RUN_TEST(test_spatial_transform_matches_matrix);
    RUN_TEST(test_spatial_transform_algebra);
    RUN_TEST(test_spatial_motion_of_rotation_about_point);
    RUN_TEST(test_spatial_cross_products);
    RUN_TEST(test_spatial_inertia);
    RUN_TEST(test_spatial_inertia_point_mass);
    RUN_TEST(test_dense_solves_random_spd);
    RUN_TEST(test_dense_known_factors);
    RUN_TEST(test_dense_rejects_non_positive_pivots);
    return TEST_RESULT();
}
