/* Mixed LCP by Schur complement and Lemke: a closed form, random problems with symmetric
 * positive definite, negative definite (Stewart-Trinkle's -M block) and non-symmetric equality
 * blocks, the pure linear and pure LCP ends, and a singular equality block. */
#include <math.h>
#include <string.h>

#include "lcp_problems.h"
#include "solver/dense_lapack.h"
#include "solver/lemke.h"
#include "solver/mlcp.h"
#include "test.h"

enum { MAX_N = 120 };

static tch_real g_m[MAX_N * MAX_N], g_q[MAX_N], g_z[MAX_N];

static tch_status mlcp(const tch_real* m, const tch_real* q, int n, int e, tch_real* z,
                       tch_lcp_result* result, tch_error* err) {
    tch_arena arena;
    tch_arena_init(&arena, 0);
    const tch_status status = tch_mlcp_solve(m, q, n, e, NULL, &arena, z, result, err);
    tch_arena_destroy(&arena);
    return status;
}

/* Equality rows: |w_i| small; complementarity rows: z >= 0, w >= 0, min(z, w) = 0. */
static void ensure_mlcp_solution(const tch_real* m, const tch_real* q, const tch_real* z, int n,
                                 int e, tch_real tol) {
    tch_real w[MAX_N];
    lcp_w(m, q, z, n, w);
    const tch_real scale = lcp_scale(m, q, z, n);
    for (int i = 0; i < n; ++i) {
        if (i < e) {
            ENSURE(fabs(w[i]) <= tol * scale);
        } else {
            ENSURE(z[i] >= 0 && w[i] >= -tol * scale && fabs(fmin(z[i], w[i])) <= tol * scale);
        }
    }
}

/* [2 1; 1 1] with u free, v >= 0, q = (-2, 1): u = 1 - v/2 from row 0, then
 * w = v/2 + 2 > 0, so v = 0, u = 1. With q = (-2, -3): w = v/2 - 2 = 0 at v = 4, u = -1. */
static void test_closed_form(void) {
    const tch_real m[4] = {2, 1, 1, 1};
    const tch_real q_apart[2] = {-2, 1}, q_pressed[2] = {-2, -3};
    tch_real z[2];
    ENSURE(mlcp(m, q_apart, 2, 1, z, NULL, NULL) == TCH_OK);
    ENSURE_NEAR(z[0], 1, 1e-15);
    ENSURE(z[1] == 0);
    ENSURE(mlcp(m, q_pressed, 2, 1, z, NULL, NULL) == TCH_OK);
    ENSURE_NEAR(z[0], -1, 1e-14);
    ENSURE_NEAR(z[1], 4, 1e-14);
}

/* A positive definite M: the SPD equality block goes through Cholesky. */
static void test_random_spd_equality_block(void) {
    lcp_rng rng = {21};
    for (int n = 2; n <= 100; n = n * 3 / 2 + 1) {
        const int e = n / 3;
        lcp_random_gram(&rng, n, n, 0.1, g_m);
        lcp_random_vector(&rng, n, g_q);
        tch_lcp_result r;
        ENSURE(mlcp(g_m, g_q, n, e, g_z, &r, NULL) == TCH_OK);
        ENSURE(r.residual <= 1e-9);
        ensure_mlcp_solution(g_m, g_q, g_z, n, e, 1e-10);
    }
}

/* An SPD equality block of 60 rows is factored by LAPACK's Cholesky
 * (TCH_SOLVER_CHOLESKY_LAPACK_MIN_N); a negative definite one (-M) by LAPACK's too, on -A. */
static void test_large_equality_block_through_lapack(void) {
    lcp_rng rng = {23};
    const int n = MAX_N, e = n / 2;
    ENSURE(e >= TCH_SOLVER_CHOLESKY_LAPACK_MIN_N);
    lcp_random_gram(&rng, n, n, 0.1, g_m);
    lcp_random_vector(&rng, n, g_q);
    tch_lcp_result r;
    ENSURE(mlcp(g_m, g_q, n, e, g_z, &r, NULL) == TCH_OK);
    ensure_mlcp_solution(g_m, g_q, g_z, n, e, 1e-10);
    for (int i = 0; i < e; ++i) {
        for (int j = 0; j < e; ++j) {
            g_m[i * n + j] = -g_m[i * n + j];
        }
    }
    ENSURE(mlcp(g_m, g_q, n, e, g_z, &r, NULL) == TCH_OK);
    ensure_mlcp_solution(g_m, g_q, g_z, n, e, 1e-10);
}

/* Stewart-Trinkle's MCP (peg.md eq. 8): [-Mass G; Gᵀ 0] with q = (Mass v + h f, psi/h). The
 * impulses must equal those of the reduced LCP Gᵀ Mass⁻¹ G p + Gᵀ ṽ + psi/h (Mass diagonal). */
static void test_stewart_trinkle_negative_definite_block(void) {
    enum { NV = 12, NC = 7, N = NV + NC };
    lcp_rng rng = {22};
    tch_real mass[NV], g[NV * NC], v[NV];
    for (int k = 0; k < NV; ++k) {
        mass[k] = 1 + lcp_rng_uniform(&rng) * 0.5;
        v[k] = lcp_rng_uniform(&rng);
    }
    for (int k = 0; k < NV * NC; ++k) {
        g[k] = lcp_rng_uniform(&rng);
    }
    memset(g_m, 0, sizeof g_m);
    for (int k = 0; k < NV; ++k) {
        g_m[k * N + k] = -mass[k];
        g_q[k] = mass[k] * v[k];
        for (int c = 0; c < NC; ++c) {
            g_m[k * N + NV + c] = g[k * NC + c];
            g_m[(NV + c) * N + k] = g[k * NC + c];
        }
    }
    tch_real reduced_m[NC * NC], reduced_q[NC], p[NC];
    for (int c = 0; c < NC; ++c) {
        g_q[NV + c] = 0.3 * lcp_rng_uniform(&rng);
        reduced_q[c] = g_q[NV + c];
        for (int k = 0; k < NV; ++k) {
            reduced_q[c] += g[k * NC + c] * v[k];
        }
        for (int d = 0; d < NC; ++d) {
            tch_real s = 0;
            for (int k = 0; k < NV; ++k) {
                s += g[k * NC + c] * g[k * NC + d] / mass[k];
            }
            reduced_m[c * NC + d] = s;
        }
    }
    ENSURE(mlcp(g_m, g_q, N, NV, g_z, NULL, NULL) == TCH_OK);
    ensure_mlcp_solution(g_m, g_q, g_z, N, NV, 1e-10);
    tch_arena arena;
    tch_arena_init(&arena, 0);
    ENSURE(tch_lemke_solve(reduced_m, reduced_q, NC, NULL, &arena, p, NULL, NULL) == TCH_OK);
    tch_arena_destroy(&arena);
    for (int c = 0; c < NC; ++c) {
        ENSURE_NEAR(g_z[NV + c], p[c], 1e-10);
    }
    /* Velocities: v+ = v + Mass⁻¹ G p. */
    for (int k = 0; k < NV; ++k) {
        tch_real v_plus = v[k];
        for (int c = 0; c < NC; ++c) {
            v_plus += g[k * NC + c] * p[c] / mass[k];
        }
        ENSURE_NEAR(g_z[k], v_plus, 1e-10);
    }
}

/* A non-symmetric equality block (LU path): M = [A C; -Cᵀ B] with A = 3 I + (K - Kᵀ) and B
 * positive definite. xᵀ A x = 3 |x|² > 0, so the Schur complement B + Cᵀ A⁻¹ C is positive
 * definite (not symmetric) and the solution unique. */
static void test_nonsymmetric_equality_block(void) {
    lcp_rng rng = {23};
    const int n = 30, e = 10;
    lcp_random_gram(&rng, n, n, 0.5, g_m);
    for (int i = 0; i < e; ++i) {
        g_m[i * n + i] = 3;
        for (int j = 0; j < i; ++j) {
            const tch_real k = lcp_rng_uniform(&rng);
            g_m[i * n + j] = k;
            g_m[j * n + i] = -k;
        }
        for (int j = e; j < n; ++j) {
            g_m[j * n + i] = -g_m[i * n + j];
        }
    }
    lcp_random_vector(&rng, n, g_q);
    tch_lcp_result r;
    ENSURE(mlcp(g_m, g_q, n, e, g_z, &r, NULL) == TCH_OK);
    ensure_mlcp_solution(g_m, g_q, g_z, n, e, 1e-10);
}

/* e = n is a linear system; e = 0 is Lemke's LCP. */
static void test_pure_linear_and_pure_lcp(void) {
    const tch_real m[4] = {4, 1, 1, 3}, q[2] = {-1, -2};
    tch_real z[2];
    ENSURE(mlcp(m, q, 2, 2, z, NULL, NULL) == TCH_OK);
    ENSURE_NEAR(z[0], 1.0 / 11, 1e-15); /* [4 1; 1 3]⁻¹ (1, 2) = (1, 7) / 11 */
    ENSURE_NEAR(z[1], 7.0 / 11, 1e-15);
    ENSURE(mlcp(m, q, 2, 0, z, NULL, NULL) == TCH_OK);
    ENSURE_NEAR(z[0], 1.0 / 11, 1e-15);
    ENSURE_NEAR(z[1], 7.0 / 11, 1e-15);
}

static void test_singular_equality_block(void) {
    const tch_real m[9] = {1, 1, 0, 1, 1, 0, 0, 0, 1}, q[3] = {1, 1, -1};
    tch_real z[3];
    tch_lcp_result r;
    tch_error err;
    ENSURE(mlcp(m, q, 3, 2, z, &r, &err) == TCH_ERR_NUMERICAL);
    ENSURE(r.reason == TCH_LCP_SINGULAR);
    ENSURE(strstr(err.message, "singular") != NULL);
    ENSURE(mlcp(m, q, 3, 4, z, &r, &err) == TCH_ERR_INVALID_ARGUMENT);
}

int main(void) {
    RUN_TEST(test_closed_form);
    RUN_TEST(test_random_spd_equality_block);
    RUN_TEST(test_large_equality_block_through_lapack);
    RUN_TEST(test_stewart_trinkle_negative_definite_block);
    RUN_TEST(test_nonsymmetric_equality_block);
    RUN_TEST(test_pure_linear_and_pure_lcp);
    RUN_TEST(test_singular_equality_block);
    return TEST_RESULT();
}
