/* Lemke's two pivot kernels (solver/lemke.h): the hand-written loops and CBLAS, forced on the
 * same problems on both sides of the crossover TCH_LEMKE_BLAS_MIN_N, must give the same
 * answers: the same z to 1e-10 where it is unique (positive definite M), the same w = M z + q
 * where only w is (positive semi-definite M: the stacks' contact problems, rank-deficient
 * random ones, warm starts), the same ray reports on problems without a solution, and the
 * same bits from the same input, also for 1 and 2 OpenBLAS threads (set here, by the test as
 * the application: the library never sets it). */
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/arena.h"
#include "lcp_problems.h"
#include "solver/lemke.h"
#include "test.h"

enum { MAX_N = 200 };

/* Sizes on both sides of the crossover (the largest above it by more than one block). */
static const int sizes[] = {TCH_LEMKE_BLAS_MIN_N / 2, TCH_LEMKE_BLAS_MIN_N - 1,
                            TCH_LEMKE_BLAS_MIN_N, 2 * TCH_LEMKE_BLAS_MIN_N + 3, 150};
enum { SIZE_COUNT = sizeof sizes / sizeof sizes[0] };

static tch_real g_m[MAX_N * MAX_N], g_q[MAX_N];

typedef struct outcome {
    tch_status status;
    tch_lcp_result result;
    tch_real z[MAX_N];
    tch_real w[MAX_N];
} outcome;

static outcome g_loops, g_blas;

/* One solve with the given kernels; z starts from z_start (NULL: zero). */
static void solve(const tch_real* m, const tch_real* q, int n, const tch_real* z_start,
                  tch_lemke_kernels kernels, outcome* out) {
    tch_arena arena;
    tch_arena_init(&arena, 0);
    tch_lemke_options options = tch_lemke_options_default();
    options.warm_start = z_start != NULL;
    for (int i = 0; i < n; ++i) {
        out->z[i] = z_start ? z_start[i] : 0;
    }
    out->status = tch_lemke_solve_kernels(m, q, n, &options, kernels, &arena, out->z,
                                          &out->result, NULL);
    tch_arena_destroy(&arena);
    lcp_w(m, q, out->z, n, out->w);
}

/* Both kernels solved; w agrees to 1e-10 of the problem's scale, and both are solutions
 * (z >= 0, w >= 0, min(z, w) = 0 to 1e-10 of the scale). */
static void ensure_same_w(const tch_real* m, const tch_real* q, int n) {
    ENSURE(g_loops.status == TCH_OK && g_blas.status == TCH_OK);
    const tch_real scale = lcp_scale(m, q, g_loops.z, n);
    for (int i = 0; i < n; ++i) {
        ENSURE_NEAR(g_blas.w[i], g_loops.w[i], 1e-10 * scale);
        for (const outcome* o = &g_loops; o; o = o == &g_loops ? &g_blas : NULL) {
            ENSURE(o->z[i] >= 0 && o->w[i] >= -1e-10 * scale);
            ENSURE(fabs(fmin(o->z[i], o->w[i])) <= 1e-10 * scale);
        }
    }
}

/* Positive definite: the solution is unique, so z agrees to 1e-10, and without degeneracy the
 * two kernels take the same pivots. */
static void test_positive_definite_same_solution(void) {
    lcp_rng rng = {101};
    for (int s = 0; s < SIZE_COUNT; ++s) {
        const int n = sizes[s];
        lcp_random_problem(&rng, n, 0, 0, g_m, g_q);
        solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_LOOPS, &g_loops);
        solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_BLAS, &g_blas);
        ensure_same_w(g_m, g_q, n);
        ENSURE(g_loops.result.iterations == g_blas.result.iterations);
        ENSURE(g_loops.result.iterations > 0);
        const tch_real scale = lcp_scale(g_m, g_q, g_loops.z, n);
        for (int i = 0; i < n; ++i) {
            ENSURE_NEAR(g_blas.z[i], g_loops.z[i], 1e-10 * scale);
        }
    }
}

/* Positive semi-definite, rank 1 and (n + 1) / 2, degenerate pairs on trial 2. */
static void test_semidefinite_same_w(void) {
    lcp_rng rng = {202};
    for (int s = 0; s < SIZE_COUNT; ++s) {
        for (int trial = 0; trial < 3; ++trial) {
            const int n = sizes[s];
            lcp_random_problem(&rng, n, trial, 1, g_m, g_q);
            solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_LOOPS, &g_loops);
            solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_BLAS, &g_blas);
            ensure_same_w(g_m, g_q, n);
        }
    }
}

/* The contact problems of stacks of 2 to 30 boxes (8 to 120 normal rows), cold and warm-started
 * from 0.9 times the cold solution. */
static void test_stack_contact_problems(void) {
    static const int boxes[] = {2, 5, TCH_LEMKE_BLAS_MIN_N / 4, 10, 30};
    static tch_real start[MAX_N];
    for (size_t b = 0; b < sizeof boxes / sizeof boxes[0]; ++b) {
        const int n = 4 * boxes[b];
        lcp_rng rng = {7};
        lcp_stack_problem(&rng, boxes[b], 1, g_m, g_q, NULL, NULL, NULL);
        solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_LOOPS, &g_loops);
        solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_BLAS, &g_blas);
        ensure_same_w(g_m, g_q, n);
        for (int i = 0; i < n; ++i) {
            start[i] = 0.9 * g_loops.z[i];
        }
        solve(g_m, g_q, n, start, TCH_LEMKE_KERNELS_LOOPS, &g_loops);
        solve(g_m, g_q, n, start, TCH_LEMKE_KERNELS_BLAS, &g_blas);
        ensure_same_w(g_m, g_q, n);
    }
}

/* M = A Aᵀ of rank n / 2 with row and column 0 set to zero (still positive semi-definite, so
 * copositive-plus) and q_0 = -1: w_0 = -1 for every z, no solution, and both kernels must end
 * on a secondary ray after the same pivots. */
static void test_same_ray_reports(void) {
    lcp_rng rng = {303};
    for (int s = 0; s < SIZE_COUNT; ++s) {
        const int n = sizes[s];
        lcp_random_gram(&rng, n, n / 2, 0, g_m);
        lcp_random_vector(&rng, n, g_q);
        for (int i = 0; i < n; ++i) {
            g_m[i] = g_m[i * n] = 0;
        }
        g_q[0] = -1;
        solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_LOOPS, &g_loops);
        solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_BLAS, &g_blas);
        ENSURE(g_loops.status == TCH_ERR_NUMERICAL && g_blas.status == TCH_ERR_NUMERICAL);
        ENSURE(g_loops.result.reason == TCH_LCP_RAY_TERMINATION);
        ENSURE(g_blas.result.reason == TCH_LCP_RAY_TERMINATION);
        ENSURE(g_loops.result.iterations == g_blas.result.iterations);
    }
}

/* The size rule picks the loops under the crossover and CBLAS from it (same bits as the forced
 * path), and CBLAS gives the same bits from the same input. */
static void test_by_size_and_repeatable(void) {
    lcp_rng rng = {404};
    for (int s = 0; s < SIZE_COUNT; ++s) {
        const int n = sizes[s];
        lcp_random_problem(&rng, n, 1, 1, g_m, g_q);
        const tch_lemke_kernels expected =
            n >= TCH_LEMKE_BLAS_MIN_N ? TCH_LEMKE_KERNELS_BLAS : TCH_LEMKE_KERNELS_LOOPS;
        solve(g_m, g_q, n, NULL, expected, &g_loops);
        solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_BY_SIZE, &g_blas);
        ENSURE(memcmp(g_loops.z, g_blas.z, (size_t)n * sizeof(tch_real)) == 0);
        solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_BLAS, &g_loops);
        solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_BLAS, &g_blas);
        ENSURE(memcmp(g_loops.z, g_blas.z, (size_t)n * sizeof(tch_real)) == 0);
        ENSURE(g_loops.result.iterations == g_blas.result.iterations);
    }
}

/* The CBLAS path gives the same bits with 1 and 2 OpenBLAS threads (n = 150: OpenBLAS threads
 * dgemv from about 96 x 96; its polish LU of M_AA, LAPACK's from 64 rows, is another place
 * where the thread count could show). */
static void test_same_bits_for_one_and_two_threads(void) {
    const int n = sizes[SIZE_COUNT - 1];
    lcp_rng rng = {505};
    lcp_random_problem(&rng, n, 2, 1, g_m, g_q);
    const int threads = openblas_get_num_threads();
    openblas_set_num_threads(1);
    solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_BLAS, &g_loops);
    openblas_set_num_threads(2);
    solve(g_m, g_q, n, NULL, TCH_LEMKE_KERNELS_BLAS, &g_blas);
    openblas_set_num_threads(threads);
    ENSURE(g_loops.status == TCH_OK && g_blas.status == TCH_OK);
    ENSURE(memcmp(g_loops.z, g_blas.z, (size_t)n * sizeof(tch_real)) == 0);
    ENSURE(g_loops.result.iterations == g_blas.result.iterations);
}

int main(void) {
    RUN_TEST(test_positive_definite_same_solution);
    RUN_TEST(test_semidefinite_same_w);
    RUN_TEST(test_stack_contact_problems);
    RUN_TEST(test_same_ray_reports);
    RUN_TEST(test_by_size_and_repeatable);
    RUN_TEST(test_same_bits_for_one_and_two_threads);
    return TEST_RESULT();
}
