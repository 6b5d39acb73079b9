/* Lemke's method and the residual function: closed forms, random positive definite and
 * semi-definite problems of sizes 1 to 200, problems without a solution (ray termination),
 * degenerate problems (no cycling), warm start (with dependent columns too), limits and input
 * errors. */
#include <math.h>
#include <stdlib.h>

#include "base/arena.h"
#include "lcp_problems.h"
#include "solver/lemke.h"
#include "test.h"

enum { MAX_N = 200 };

static tch_real g_m[MAX_N * MAX_N], g_q[MAX_N], g_z[MAX_N];

/* z >= 0, w = M z + q >= 0 and z.w = 0, each to tol times the problem's scale. */
static void ensure_lcp_solution(const tch_real* m, const tch_real* q, const tch_real* z, int n,
                                tch_real tol) {
    const tch_real scale = lcp_scale(m, q, z, n);
    tch_real w[MAX_N], z_dot_w = 0, z_sum = 0;
    lcp_w(m, q, z, n, w);
    for (int i = 0; i < n; ++i) {
        ENSURE(z[i] >= 0);
        ENSURE(w[i] >= -tol * scale);
        ENSURE(fabs(fmin(z[i], w[i])) <= tol * scale);
        z_dot_w += z[i] * w[i];
        z_sum += z[i];
    }
    ENSURE(fabs(z_dot_w) <= tol * scale * fmax(1, z_sum));
}

static tch_status lemke(const tch_real* m, const tch_real* q, int n, tch_real* z,
                        tch_lcp_result* result) {
    tch_arena arena;
    tch_arena_init(&arena, 0);
    const tch_status status = tch_lemke_solve(m, q, n, NULL, &arena, z, result, NULL);
    tch_arena_destroy(&arena);
    return status;
}

static void test_trivial_solution_when_q_nonnegative(void) {
    const tch_real m[4] = {1, 2, 3, 4}, q[2] = {0, 5};
    tch_real z[2] = {7, 7};
    tch_lcp_result r;
    ENSURE(lemke(m, q, 2, z, &r) == TCH_OK);
    ENSURE(r.iterations == 0 && r.reason == TCH_LCP_SOLVED && r.residual == 0);
    ENSURE(z[0] == 0 && z[1] == 0);
}

/* M = [2 1; 1 2], q = [-5, -6]: both active, z = M⁻¹(-q) = (4/3, 7/3). */
static void test_two_by_two_closed_form(void) {
    const tch_real m[4] = {2, 1, 1, 2}, q[2] = {-5, -6};
    tch_real z[2];
    tch_lcp_result r;
    ENSURE(lemke(m, q, 2, z, &r) == TCH_OK);
    ENSURE_NEAR(z[0], 4.0 / 3, 1e-14);
    ENSURE_NEAR(z[1], 7.0 / 3, 1e-14);
    ENSURE(r.residual <= 1e-14);
}

/* M = [2 1; 1 2], q = [-1, 3]: z = (0.5, 0), w = (0, 3.5). */
static void test_one_active_closed_form(void) {
    const tch_real m[4] = {2, 1, 1, 2}, q[2] = {-1, 3};
    tch_real z[2];
    ENSURE(lemke(m, q, 2, z, NULL) == TCH_OK);
    ENSURE_NEAR(z[0], 0.5, 1e-15);
    ENSURE(z[1] == 0);
}

static const int sizes[] = {1, 2, 3, 4, 5, 7, 10, 16, 25, 40, 64, 100, 150, 200};
enum { SIZE_COUNT = sizeof sizes / sizeof sizes[0] };

static void solve_random_family(int semidefinite, unsigned long long seed) {
    lcp_rng rng = {seed};
    for (int s = 0; s < SIZE_COUNT; ++s) {
        for (int trial = 0; trial < 3; ++trial) {
            const int n = sizes[s];
            lcp_random_problem(&rng, n, trial, semidefinite, g_m, g_q);
            tch_lcp_result r;
            ENSURE(lemke(g_m, g_q, n, g_z, &r) == TCH_OK);
            ensure_lcp_solution(g_m, g_q, g_z, n, 1e-10);
            if (tch_test_current_failed) {
                fprintf(stderr, "  n = %d, trial %d, pivots %d\n", n, trial, r.iterations);
                return;
            }
        }
    }
}

static void test_random_positive_definite(void) {
    solve_random_family(0, 1);
}

/* M = A Aᵀ with rank 1 or (n + 1) / 2: a solution exists by construction of q. */
static void test_random_positive_semidefinite(void) {
    solve_random_family(1, 2);
}

static void ensure_ray(const tch_real* m, const tch_real* q, int n) {
    tch_real z[4];
    tch_lcp_result r;
    tch_error err;
    tch_arena arena;
    tch_arena_init(&arena, 0);
    const tch_status status = tch_lemke_solve(m, q, n, NULL, &arena, z, &r, &err);
    tch_arena_destroy(&arena);
    ENSURE(status == TCH_ERR_NUMERICAL && err.status == TCH_ERR_NUMERICAL);
    ENSURE(r.status == TCH_ERR_NUMERICAL && r.reason == TCH_LCP_RAY_TERMINATION);
    ENSURE(strstr(err.message, "ray") != NULL);
    ENSURE(r.residual > 0);
}

/* w = -z - 1 < 0 for every z >= 0. */
static void test_no_solution_negative_scalar(void) {
    const tch_real m[1] = {-1}, q[1] = {-1};
    ensure_ray(m, q, 1);
}

/* PSD M = [1 -1; -1 1], q = (-1, -1): w1 + w2 = -2 for every z, so no w >= 0. */
static void test_no_solution_psd(void) {
    const tch_real m[4] = {1, -1, -1, 1}, q[2] = {-1, -1};
    ensure_ray(m, q, 2);
}

/* Skew-symmetric (copositive-plus) M = [0 1; -1 0], q = (-1, -1): w2 = -z1 - 1 < 0. */
static void test_no_solution_copositive_plus(void) {
    const tch_real m[4] = {0, 1, -1, 0}, q[2] = {-1, -1};
    ensure_ray(m, q, 2);
}

/* Repeated rows (duplicated contacts) and zeros in q: every ratio test ties. */
static void test_degenerate_repeated_rows(void) {
    const tch_real m[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1}, q[3] = {-1, -1, -1};
    tch_real z[3];
    tch_lcp_result r;
    ENSURE(lemke(m, q, 3, z, &r) == TCH_OK);
    ensure_lcp_solution(m, q, z, 3, 1e-14);
    ENSURE_NEAR(z[0] + z[1] + z[2], 1, 1e-15);
}

/* A stack of k four-point contacts on one face gives rows that repeat across copies;
 * q has zeros (touching, at rest) and equal negative entries. */
static void test_degenerate_no_cycling(void) {
    lcp_rng rng = {3};
    const int n = 40, base = 5;
    tch_real a[5 * 5];
    lcp_random_gram(&rng, base, 3, 0, a);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            g_m[i * n + j] = a[(i % base) * base + (j % base)];
        }
        g_q[i] = i % 3 == 0 ? 0 : -1;
    }
    tch_lcp_result r;
    const tch_status status = lemke(g_m, g_q, n, g_z, &r);
    ENSURE(status == TCH_OK || r.reason == TCH_LCP_RAY_TERMINATION);
    ENSURE(r.reason != TCH_LCP_MAX_ITERATIONS);
    if (status == TCH_OK) {
        ensure_lcp_solution(g_m, g_q, g_z, n, 1e-10);
    }
    /* The same with q built from a complementary pair, so a solution exists. */
    lcp_solvable_q(&rng, g_m, n, 1, g_q, NULL);
    for (int i = 0; i < n; i += 4) {
        g_q[i] = 0;
    }
    ENSURE(lemke(g_m, g_q, n, g_z, &r) == TCH_OK || r.reason == TCH_LCP_RAY_TERMINATION);
    ENSURE(r.reason != TCH_LCP_MAX_ITERATIONS);
}

/* The classic degenerate set of z* = 0 = w* for many rows: q = 0 on them. */
static void test_degenerate_zero_pairs(void) {
    lcp_rng rng = {4};
    for (int n = 2; n <= 60; n += 7) {
        lcp_random_gram(&rng, n, n / 2 + 1, 0, g_m);
        lcp_solvable_q(&rng, g_m, n, 1, g_q, NULL);
        tch_lcp_result r;
        ENSURE(lemke(g_m, g_q, n, g_z, &r) == TCH_OK);
        ensure_lcp_solution(g_m, g_q, g_z, n, 1e-10);
    }
}

static void test_warm_start(void) {
    lcp_rng rng = {5};
    const int n = 30;
    lcp_random_gram(&rng, n, n, 0.1, g_m);
    lcp_random_vector(&rng, n, g_q);
    tch_arena arena;
    tch_arena_init(&arena, 0);
    tch_lcp_result cold, warm;
    ENSURE(tch_lemke_solve(g_m, g_q, n, NULL, &arena, g_z, &cold, NULL) == TCH_OK);
    ENSURE(cold.iterations > 0);
    tch_lemke_options options = tch_lemke_options_default();
    options.warm_start = true;
    tch_real z_warm[MAX_N];
    for (int i = 0; i < n; ++i) {
        z_warm[i] = g_z[i];
    }
    ENSURE(tch_lemke_solve(g_m, g_q, n, &options, &arena, z_warm, &warm, NULL) == TCH_OK);
    ENSURE(warm.iterations == 0);
    for (int i = 0; i < n; ++i) {
        ENSURE_NEAR(z_warm[i], g_z[i], 1e-12);
    }
    /* A wrong guess (every z basic) still ends at the solution. */
    for (int i = 0; i < n; ++i) {
        z_warm[i] = 1;
    }
    ENSURE(tch_lemke_solve(g_m, g_q, n, &options, &arena, z_warm, &warm, NULL) == TCH_OK);
    ensure_lcp_solution(g_m, g_q, z_warm, n, 1e-10);
    /* Arena: once grown, further solves make no heap allocation. */
    tch_arena_grow_if_needed(&arena);
    const long allocations = arena.heap_allocation_count;
    ENSURE(tch_lemke_solve(g_m, g_q, n, &options, &arena, z_warm, &warm, NULL) == TCH_OK);
    ENSURE(arena.heap_allocation_count == allocations);
    tch_arena_destroy(&arena);
}

/* A warm start whose basis has dependent columns (M = J Jᵀ with j3 = j1 + j2, as the normal
 * rows of coplanar contacts; every z guessed positive) drops the dependent one and starts from
 * the regular rest, which solves the problem here without a pivot: z = (2, 2, 0) gives
 * Jᵀ z = Jᵀ (1, 1, 1). A singular start basis used to go to the cold start (haptic_100: 86 to
 * 1 000 pivots and the regularized retries on a box sliding on a box). */
static void test_warm_start_with_dependent_columns(void) {
    const tch_real m[9] = {1, 0, 1, 0, 1, 1, 1, 1, 2}, q[3] = {-2, -2, -4};
    tch_real z[3] = {1, 1, 1};
    tch_lemke_options options = tch_lemke_options_default();
    options.warm_start = true;
    tch_arena arena;
    tch_arena_init(&arena, 0);
    tch_lcp_result r;
    ENSURE(tch_lemke_solve(m, q, 3, &options, &arena, z, &r, NULL) == TCH_OK);
    tch_arena_destroy(&arena);
    ENSURE(r.iterations == 0);
    ensure_lcp_solution(m, q, z, 3, 1e-14);
    ENSURE_NEAR(z[0], 2, 1e-14);
    ENSURE_NEAR(z[1], 2, 1e-14);
    ENSURE(z[2] == 0);
}

/* A warm start with no z guessed positive is the cold start: after a ray it is not run again
 * (it would meet the same ray after as many pivots). */
static void test_empty_warm_start_runs_once(void) {
    const tch_real m[4] = {1, -1, -1, 1}, q[2] = {-1, -1};
    tch_real z[2] = {0, 0};
    tch_lemke_options options = tch_lemke_options_default();
    tch_arena arena;
    tch_arena_init(&arena, 0);
    tch_lcp_result cold, warm;
    ENSURE(tch_lemke_solve(m, q, 2, &options, &arena, z, &cold, NULL) == TCH_ERR_NUMERICAL);
    options.warm_start = true;
    z[0] = z[1] = 0;
    ENSURE(tch_lemke_solve(m, q, 2, &options, &arena, z, &warm, NULL) == TCH_ERR_NUMERICAL);
    tch_arena_destroy(&arena);
    ENSURE(cold.reason == TCH_LCP_RAY_TERMINATION && warm.reason == TCH_LCP_RAY_TERMINATION);
    ENSURE(cold.iterations > 0 && warm.iterations == cold.iterations);
}

/* A positive definite problem whose solution needs several pivots stops at max_pivots. */
static void test_pivot_limit(void) {
    const tch_real m[4] = {2, 1, 1, 2}, q[2] = {-5, -6};
    tch_real z[2];
    tch_lemke_options options = tch_lemke_options_default();
    options.max_pivots = 1;
    tch_arena arena;
    tch_arena_init(&arena, 0);
    tch_lcp_result r;
    tch_error err;
    ENSURE(tch_lemke_solve(m, q, 2, &options, &arena, z, &r, &err) == TCH_ERR_NUMERICAL);
    tch_arena_destroy(&arena);
    ENSURE(r.reason == TCH_LCP_MAX_ITERATIONS && r.iterations == 1);
}

static void test_rejects_bad_input(void) {
    const tch_real m[1] = {NAN}, q[1] = {-1};
    tch_real z[1];
    tch_error err;
    tch_arena arena;
    tch_arena_init(&arena, 0);
    ENSURE(tch_lemke_solve(m, q, 1, NULL, &arena, z, NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "M[0]") != NULL);
    ENSURE(tch_lemke_solve(q, q, -1, NULL, &arena, z, NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_lemke_solve(q, q, 0, NULL, &arena, z, NULL, &err) == TCH_OK);
    tch_arena_destroy(&arena);
}

/* M = I, q = (-1, 2, -3), z = (1, 1, 0): w = (0, 3, -3): min(z, w) = (0, 1, -3). */
static void test_residuals_closed_form(void) {
    const tch_real m[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, q[3] = {-1, 2, -3}, z[3] = {1, 1, 0};
    const tch_lcp_matrix matrix = tch_lcp_matrix_dense(m, 3);
    tch_lcp_residual r = tch_lcp_residuals(&matrix, q, NULL, z);
    ENSURE(r.natural_map == 3);
    ENSURE(r.z_dot_w == 3);
    ENSURE(r.infeasibility == 3);
    /* Box: row 1 free (w must be 0), row 2 in [-1, 1]: z - P(z - w) = (0, 3, -1). */
    const tch_real lo[3] = {0, -INFINITY, -1}, hi[3] = {INFINITY, INFINITY, 1};
    const tch_lcp_bounds bounds = {lo, hi, NULL, false};
    r = tch_lcp_residuals(&matrix, q, &bounds, z);
    ENSURE(r.natural_map == 3);
    ENSURE(r.z_dot_w == 0);
    ENSURE(r.infeasibility == 0);
}

int main(void) {
    RUN_TEST(test_trivial_solution_when_q_nonnegative);
    RUN_TEST(test_two_by_two_closed_form);
    RUN_TEST(test_one_active_closed_form);
    RUN_TEST(test_random_positive_definite);
    RUN_TEST(test_random_positive_semidefinite);
    RUN_TEST(test_no_solution_negative_scalar);
    RUN_TEST(test_no_solution_psd);
    RUN_TEST(test_no_solution_copositive_plus);
    RUN_TEST(test_degenerate_repeated_rows);
    RUN_TEST(test_degenerate_no_cycling);
    RUN_TEST(test_degenerate_zero_pairs);
    RUN_TEST(test_warm_start);
    RUN_TEST(test_warm_start_with_dependent_columns);
    RUN_TEST(test_empty_warm_start_runs_once);
    RUN_TEST(test_pivot_limit);
    RUN_TEST(test_rejects_bad_input);
    RUN_TEST(test_residuals_closed_form);
    return TEST_RESULT();
}
