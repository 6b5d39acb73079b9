/* Projected Gauss-Seidel: random positive definite LCPs to the requested tolerance, warm start,
 * over-relaxation, CSR against dense, box MLCP with equality rows and friction rows bounded by
 * mu times their normal row, iteration limit and input errors. */
#include <math.h>
#include <string.h>

#include "lcp_problems.h"
#include "solver/lemke.h"
#include "solver/pgs.h"
#include "test.h"

enum { MAX_N = 200 };

static tch_real g_m[MAX_N * MAX_N], g_q[MAX_N], g_z[MAX_N];

static tch_pgs_options options_with(tch_real tolerance, int max_iterations, tch_real omega) {
    tch_pgs_options o = tch_pgs_options_default();
    o.tolerance = tolerance;
    o.max_iterations = max_iterations;
    o.omega = omega;
    return o;
}

/* max_i |min(z_i, w_i)| computed here, independently of the library's residual. */
static tch_real natural_map(const tch_real* m, const tch_real* q, const tch_real* z, int n) {
    tch_real w[MAX_N], r = 0;
    lcp_w(m, q, z, n, w);
    for (int i = 0; i < n; ++i) {
        r = fmax(r, fabs(fmin(z[i], w[i])));
    }
    return r;
}

static void test_random_positive_definite_to_tolerance(void) {
    static const int sizes[] = {1, 2, 5, 10, 25, 50, 100, 200};
    lcp_rng rng = {11};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int n = sizes[s];
        /* Diagonally weighted so that PGS converges in a few hundred sweeps at every size. */
        lcp_random_gram(&rng, n, n, 0.5 * n, g_m);
        lcp_random_vector(&rng, n, g_q);
        const tch_lcp_matrix m = tch_lcp_matrix_dense(g_m, n);
        const tch_pgs_options options = options_with(1e-9, 2000, 1);
        tch_lcp_result r;
        ENSURE(tch_pgs_solve(&m, g_q, NULL, &options, g_z, &r, NULL) == TCH_OK);
        ENSURE(r.residual <= 1e-9);
        ENSURE(natural_map(g_m, g_q, g_z, n) <= 1e-9);
        for (int i = 0; i < n; ++i) {
            ENSURE(g_z[i] >= 0);
        }
    }
}

/* On a PD problem PGS and Lemke reach the same (unique) solution. */
static void test_agrees_with_lemke(void) {
    lcp_rng rng = {12};
    const int n = 30;
    lcp_random_gram(&rng, n, n, 1, g_m);
    lcp_random_vector(&rng, n, g_q);
    tch_real z_lemke[MAX_N];
    tch_arena arena;
    tch_arena_init(&arena, 0);
    ENSURE(tch_lemke_solve(g_m, g_q, n, NULL, &arena, z_lemke, NULL, NULL) == TCH_OK);
    tch_arena_destroy(&arena);
    const tch_lcp_matrix m = tch_lcp_matrix_dense(g_m, n);
    const tch_pgs_options options = options_with(1e-12, 100000, 1);
    ENSURE(tch_pgs_solve(&m, g_q, NULL, &options, g_z, NULL, NULL) == TCH_OK);
    for (int i = 0; i < n; ++i) {
        ENSURE_NEAR(g_z[i], z_lemke[i], 1e-9);
    }
}

static void test_warm_start_and_over_relaxation(void) {
    lcp_rng rng = {13};
    const int n = 40;
    lcp_random_gram(&rng, n, n, 2, g_m);
    lcp_random_vector(&rng, n, g_q);
    const tch_lcp_matrix m = tch_lcp_matrix_dense(g_m, n);
    tch_pgs_options options = options_with(1e-10, 5000, 1);
    tch_lcp_result cold, warm, relaxed;
    ENSURE(tch_pgs_solve(&m, g_q, NULL, &options, g_z, &cold, NULL) == TCH_OK);
    ENSURE(cold.iterations > 1);
    options.warm_start = true;
    ENSURE(tch_pgs_solve(&m, g_q, NULL, &options, g_z, &warm, NULL) == TCH_OK);
    ENSURE(warm.iterations == 0);
    options.warm_start = false;
    options.omega = 1.3;
    ENSURE(tch_pgs_solve(&m, g_q, NULL, &options, g_z, &relaxed, NULL) == TCH_OK);
    ENSURE(natural_map(g_m, g_q, g_z, n) <= 1e-10);
}

/* A banded (block-tridiagonal) matrix in CSR gives the same iterates as its dense copy. */
static void test_csr_matches_dense(void) {
    lcp_rng rng = {14};
    const int n = 60, band = 3;
    static int row_start[MAX_N + 1], column[MAX_N * 7];
    static tch_real value[MAX_N * 7];
    memset(g_m, 0, sizeof g_m);
    for (int i = 0; i < n; ++i) {
        for (int j = i; j < n && j <= i + band; ++j) {
            const tch_real v = j == i ? 4 : 0.5 * lcp_rng_uniform(&rng);
            g_m[i * n + j] = g_m[j * n + i] = v;
        }
    }
    int count = 0;
    for (int i = 0; i < n; ++i) {
        row_start[i] = count;
        for (int j = 0; j < n; ++j) {
            if (g_m[i * n + j] != 0) {
                column[count] = j;
                value[count++] = g_m[i * n + j];
            }
        }
    }
    row_start[n] = count;
    lcp_random_vector(&rng, n, g_q);
    const tch_lcp_matrix dense = tch_lcp_matrix_dense(g_m, n);
    const tch_lcp_matrix csr = tch_lcp_matrix_csr(n, row_start, column, value);
    const tch_pgs_options options = options_with(1e-12, 1000, 1);
    tch_real z_csr[MAX_N];
    tch_lcp_result r_dense, r_csr;
    ENSURE(tch_pgs_solve(&dense, g_q, NULL, &options, g_z, &r_dense, NULL) == TCH_OK);
    ENSURE(tch_pgs_solve(&csr, g_q, NULL, &options, z_csr, &r_csr, NULL) == TCH_OK);
    ENSURE(r_dense.iterations == r_csr.iterations);
    for (int i = 0; i < n; ++i) {
        ENSURE(g_z[i] == z_csr[i]);
    }
}

/* One contact: normal row 0 and two friction rows, M = I, q = (-1, -2, 0.2), mu = 0.5.
 * z_n = 1; the first tangent saturates at mu z_n = 0.5 (w = -1.5 <= 0 at the upper bound), the
 * second sticks at z = -0.2 (w = 0). */
static void test_friction_closed_form(void) {
    const tch_real m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, -2, 0.2};
    const tch_real lo[3] = {0, -0.5, -0.5}, hi[3] = {INFINITY, 0.5, 0.5};
    const int normal[3] = {-1, 0, 0};
    const tch_lcp_bounds bounds = {lo, hi, normal, false};
    const tch_lcp_matrix matrix = tch_lcp_matrix_dense(m, 3);
    tch_real z[3];
    tch_lcp_result r;
    ENSURE(tch_pgs_solve(&matrix, q, &bounds, NULL, z, &r, NULL) == TCH_OK);
    ENSURE_NEAR(z[0], 1, 1e-15);
    ENSURE_NEAR(z[1], 0.5, 1e-15);
    ENSURE_NEAR(z[2], -0.2, 1e-15);
}

/* Box MLCP: 5 equality rows (free), then 10 contacts of a normal and two friction rows with
 * mu = 0.4, on a random SPD matrix. Checks each row's condition directly. */
static void test_box_mlcp_equality_and_friction(void) {
    enum { EQ = 5, CONTACTS = 10, N = EQ + 3 * CONTACTS };
    lcp_rng rng = {15};
    lcp_random_gram(&rng, N, N, 2, g_m);
    lcp_random_vector(&rng, N, g_q);
    tch_real lo[N], hi[N];
    int normal[N];
    const tch_real mu = 0.4;
    for (int i = 0; i < N; ++i) {
        const int k = i < EQ ? -1 : (i - EQ) % 3;
        lo[i] = k < 0 ? -INFINITY : k == 0 ? 0 : -mu;
        hi[i] = k <= 0 ? INFINITY : mu;
        normal[i] = k <= 0 ? -1 : i - k;
        g_q[i] -= k == 0 ? 1 : 0; /* press most contacts together */
    }
    const tch_lcp_bounds bounds = {lo, hi, normal, false};
    const tch_lcp_matrix matrix = tch_lcp_matrix_dense(g_m, N);
    const tch_pgs_options options = options_with(1e-10, 20000, 1);
    tch_lcp_result r;
    ENSURE(tch_pgs_solve(&matrix, g_q, &bounds, &options, g_z, &r, NULL) == TCH_OK);
    tch_real w[N];
    lcp_w(g_m, g_q, g_z, N, w);
    const tch_real tol = 1e-9;
    int saturated = 0;
    for (int i = 0; i < N; ++i) {
        if (i < EQ) {
            ENSURE(fabs(w[i]) <= tol);
            continue;
        }
        if (normal[i] < 0) {
            ENSURE(g_z[i] >= 0 && w[i] >= -tol && fabs(fmin(g_z[i], w[i])) <= tol);
            continue;
        }
        const tch_real limit = mu * g_z[normal[i]];
        ENSURE(fabs(g_z[i]) <= limit + 1e-15);
        if (fabs(g_z[i]) < limit - tol) {
            ENSURE(fabs(w[i]) <= tol); /* sticking */
        } else {
            ENSURE(g_z[i] * w[i] <= tol); /* sliding: force opposes the tangential velocity */
            saturated += limit > tol;
        }
    }
    ENSURE(saturated > 0);
}

static void test_iteration_limit(void) {
    lcp_rng rng = {16};
    const int n = 50;
    lcp_random_gram(&rng, n, n / 2, 0, g_m);
    for (int i = 0; i < n; ++i) {
        g_m[i * n + i] += 1e-6;
    }
    lcp_solvable_q(&rng, g_m, n, 0, g_q, NULL);
    const tch_lcp_matrix m = tch_lcp_matrix_dense(g_m, n);
    const tch_pgs_options options = options_with(1e-12, 3, 1);
    tch_lcp_result r;
    tch_error err;
    ENSURE(tch_pgs_solve(&m, g_q, NULL, &options, g_z, &r, &err) == TCH_ERR_NUMERICAL);
    ENSURE(r.reason == TCH_LCP_MAX_ITERATIONS && r.iterations == 3 && r.residual > 1e-12);
    for (int i = 0; i < n; ++i) {
        ENSURE(isfinite(g_z[i]) && g_z[i] >= 0);
    }
}

static void test_rejects_bad_input(void) {
    const tch_real m[4] = {1, 0, 0, 0}, q[2] = {-1, -1};
    const tch_lcp_matrix matrix = tch_lcp_matrix_dense(m, 2);
    tch_real z[2];
    tch_error err;
    ENSURE(tch_pgs_solve(&matrix, q, NULL, NULL, z, NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "diagonal") != NULL);
    const tch_real identity[4] = {1, 0, 0, 1};
    const tch_lcp_matrix good = tch_lcp_matrix_dense(identity, 2);
    const tch_pgs_options options = options_with(1e-8, 10, 2);
    ENSURE(tch_pgs_solve(&good, q, NULL, &options, z, NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    const tch_real lo[2] = {1, 0}, hi[2] = {0, 1};
    const tch_lcp_bounds bad = {lo, hi, NULL, false};
    ENSURE(tch_pgs_solve(&good, q, &bad, NULL, z, NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    const int self[2] = {0, -1};
    const tch_lcp_bounds self_scaled = {NULL, NULL, self, false};
    ENSURE(tch_pgs_solve(&good, q, &self_scaled, NULL, z, NULL, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    const int row_start[3] = {0, 1, 2}, column[2] = {0, 2};
    const tch_real value[2] = {1, 1};
    const tch_lcp_matrix csr = tch_lcp_matrix_csr(2, row_start, column, value);
    ENSURE(tch_pgs_solve(&csr, q, NULL, NULL, z, NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "column[1]") != NULL);
}

int main(void) {
    RUN_TEST(test_random_positive_definite_to_tolerance);
    RUN_TEST(test_agrees_with_lemke);
    RUN_TEST(test_warm_start_and_over_relaxation);
    RUN_TEST(test_csr_matches_dense);
    RUN_TEST(test_friction_closed_form);
    RUN_TEST(test_box_mlcp_equality_and_friction);
    RUN_TEST(test_iteration_limit);
    RUN_TEST(test_rejects_bad_input);
    return TEST_RESULT();
}
