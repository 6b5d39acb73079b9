/* The LAPACK path of the dense factorizations (solver/dense_lapack.h) above the crossovers: the
 * factorization residuals to 1e-12 relative, agreement with the hand-written loops to 1e-10,
 * the same failure tests (a singular LU, an indefinite Cholesky), the strict upper triangle left
 * alone by Cholesky, the many-right-hand-side Cholesky solve against one solve at a time, and
 * the same bits from the same input. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "lcp_problems.h"
#include "math/dense.h"
#include "solver/dense_lapack.h"
#include "solver/lu.h"
#include "test.h"

enum { N = 2 * TCH_SOLVER_LU_LAPACK_MIN_N + 3 };

static tch_real g_a[N * N], g_f[N * N], g_g[N * N], g_x[N], g_y[N], g_work[N];
static int g_pivot[N], g_pivot_loops[N];

/* Uniform(-1, 1) entries: a general matrix, whose LU must pivot. */
static void random_matrix(lcp_rng* rng, int n, tch_real* a) {
    for (int k = 0; k < n * n; ++k) {
        a[k] = lcp_rng_uniform(rng);
    }
}

static tch_real norm_inf(const tch_real* a, int rows, int cols) {
    tch_real m = 0;
    for (int i = 0; i < rows; ++i) {
        tch_real s = 0;
        for (int j = 0; j < cols; ++j) {
            s += fabs(a[i * cols + j]);
        }
        m = fmax(m, s);
    }
    return m;
}

/* max_ij |(L U)_ij - (P Aᵀ)_ij| / ‖A‖∞ for the column-major factors of Aᵀ that dgetrf leaves
 * in the row-major array `lu` (entry (r, c) of the column-major view at lu[c n + r]). */
static tch_real lapack_lu_residual(const tch_real* a, const tch_real* lu, int n,
                                   const int* pivot) {
    static tch_real pa[N * N]; /* P Aᵀ, column-major: the row-major A's own memory at first */
    memcpy(pa, a, sizeof(tch_real) * (size_t)(n * n));
    for (int k = 0; k < n; ++k) { /* row interchanges k <-> pivot[k] - 1, in order */
        const int s = pivot[k] - 1;
        for (int c = 0; c < n; ++c) {
            const tch_real t = pa[c * n + k];
            pa[c * n + k] = pa[c * n + s];
            pa[c * n + s] = t;
        }
    }
    tch_real worst = 0;
    for (int r = 0; r < n; ++r) {
        for (int c = 0; c < n; ++c) {
            tch_real s = 0;
            for (int k = 0; k <= (r < c ? r : c); ++k) {
                const tch_real l_rk = k == r ? 1 : lu[k * n + r];
                s += l_rk * lu[c * n + k];
            }
            worst = fmax(worst, fabs(s - pa[c * n + r]));
        }
    }
    return worst / norm_inf(a, n, n);
}

/* max_ij |(L Lᵀ)_ij - a_ij| / ‖A‖∞ over the lower triangle, L in the row-major lower one. */
static tch_real cholesky_residual(const tch_real* a, const tch_real* l, int n) {
    tch_real worst = 0;
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) {
            tch_real s = 0;
            for (int k = 0; k <= j; ++k) {
                s += l[i * n + k] * l[j * n + k];
            }
            worst = fmax(worst, fabs(s - a[i * n + j]));
        }
    }
    return worst / norm_inf(a, n, n);
}

static tch_real max_difference(const tch_real* x, const tch_real* y, int n) {
    tch_real d = 0;
    for (int i = 0; i < n; ++i) {
        d = fmax(d, fabs(x[i] - y[i]));
    }
    return d;
}

static tch_real max_magnitude(const tch_real* x, int n) {
    tch_real m = 0;
    for (int i = 0; i < n; ++i) {
        m = fmax(m, fabs(x[i]));
    }
    return m;
}

/* P Aᵀ = L U to 1e-12 ‖A‖; tch_solver_lu_factor takes that path at this size and its solution
 * agrees with the loops' to 1e-10 relative; A x = b to 1e-12 relative. */
static void test_lu_above_crossover(void) {
    lcp_rng rng = {5};
    for (int n = TCH_SOLVER_LU_LAPACK_MIN_N; n <= N; n += N - TCH_SOLVER_LU_LAPACK_MIN_N) {
        random_matrix(&rng, n, g_a);
        lcp_random_vector(&rng, n, g_x);
        memcpy(g_y, g_x, sizeof(tch_real) * (size_t)n);
        memcpy(g_f, g_a, sizeof(tch_real) * (size_t)(n * n));
        ENSURE(tch_solver_lu_factor(g_f, n, g_pivot) == 0);
        ENSURE(lapack_lu_residual(g_a, g_f, n, g_pivot) <= 1e-12);
        tch_solver_lu_solve(g_f, n, g_pivot, g_x, g_work);
        memcpy(g_g, g_a, sizeof(tch_real) * (size_t)(n * n));
        ENSURE(tch_solver_lu_factor_loops(g_g, n, g_pivot_loops) == 0);
        tch_real b[N];
        memcpy(b, g_y, sizeof(tch_real) * (size_t)n);
        tch_solver_lu_solve_loops(g_g, n, g_pivot_loops, g_y, g_work);
        ENSURE(max_difference(g_x, g_y, n) <= 1e-10 * max_magnitude(g_y, n));
        tch_real ax[N];
        tch_dense_mat_vec(g_a, n, n, g_x, ax);
        ENSURE(max_difference(ax, b, n) <= 1e-12 * norm_inf(g_a, n, n) * max_magnitude(g_x, n));
    }
}

/* A duplicated row makes A singular: both paths report it. */
static void test_lu_singular(void) {
    lcp_rng rng = {6};
    const int n = N;
    random_matrix(&rng, n, g_a);
    memcpy(g_a + 7 * n, g_a + 3 * n, sizeof(tch_real) * (size_t)n);
    memcpy(g_f, g_a, sizeof(tch_real) * (size_t)(n * n));
    ENSURE(tch_solver_lu_factor(g_f, n, g_pivot) != 0);
    memcpy(g_f, g_a, sizeof(tch_real) * (size_t)(n * n));
    ENSURE(tch_solver_lu_factor_loops(g_f, n, g_pivot) != 0);
}

/* S = G + 0.1 I (lcp_random_gram), with the strict upper triangle set to a sentinel that
 * neither factorization may touch: L Lᵀ = S to 1e-12, LAPACK's L equals the loops' to 1e-10
 * relative, and so do the solutions (LAPACK's dpotrs and tch_dense_cholesky_solve on its L). */
static void test_cholesky_above_crossover(void) {
    lcp_rng rng = {7};
    for (int n = TCH_SOLVER_CHOLESKY_LAPACK_MIN_N; n <= N;
         n += N - TCH_SOLVER_CHOLESKY_LAPACK_MIN_N) {
        lcp_random_gram(&rng, n, n, 0.1, g_a);
        for (int i = 0; i < n; ++i) {
            for (int j = i + 1; j < n; ++j) {
                g_a[i * n + j] = 12345;
            }
        }
        memcpy(g_f, g_a, sizeof(tch_real) * (size_t)(n * n));
        memcpy(g_g, g_a, sizeof(tch_real) * (size_t)(n * n));
        ENSURE(tch_solver_lapack_cholesky(g_f, n, g_work) == 0);
        ENSURE(tch_dense_cholesky(g_g, n) == 0);
        ENSURE(cholesky_residual(g_a, g_f, n) <= 1e-12);
        ENSURE(max_difference(g_f, g_g, n * n) <= 1e-10 * max_magnitude(g_g, n * n));
        for (int i = 0; i < n; ++i) {
            for (int j = i + 1; j < n; ++j) {
                ENSURE(g_f[i * n + j] == 12345);
            }
        }
        lcp_random_vector(&rng, n, g_x);
        memcpy(g_y, g_x, sizeof(tch_real) * (size_t)n);
        tch_solver_lapack_cholesky_solve(g_f, n, g_x);
        tch_dense_cholesky_solve(g_f, n, g_y);
        ENSURE(max_difference(g_x, g_y, n) <= 1e-10 * max_magnitude(g_y, n));
    }
}

/* tch_solver_cholesky_solve_many against one tch_dense_cholesky_solve per right-hand side, at
 * sizes on both sides of its crossover and of the factor's (n = 7, 8, 15, 16, 40), with the
 * factor of tch_solver_cholesky: the same solutions to 1e-10 relative for n + 2 right-hand
 * sides, which also satisfy S x = b to 1e-12. */
static void test_cholesky_solve_many(void) {
    enum { COUNT_MAX = 42 };
    static tch_real many[COUNT_MAX * 40], one[40], diagonal[40];
    static const int sizes[] = {TCH_SOLVER_CHOLESKY_SOLVE_MANY_LAPACK_MIN_N - 1,
                                TCH_SOLVER_CHOLESKY_SOLVE_MANY_LAPACK_MIN_N,
                                TCH_SOLVER_CHOLESKY_LAPACK_MIN_N - 1,
                                TCH_SOLVER_CHOLESKY_LAPACK_MIN_N, 40};
    lcp_rng rng = {8};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const int n = sizes[s], count = n + 2;
        lcp_random_gram(&rng, n, n, 0.1, g_a);
        memcpy(g_f, g_a, sizeof(tch_real) * (size_t)(n * n));
        ENSURE(tch_solver_cholesky(g_f, n, diagonal) == 0);
        lcp_random_vector(&rng, n * count, many);
        memcpy(g_g, many, sizeof(tch_real) * (size_t)(n * count)); /* the right-hand sides */
        tch_solver_cholesky_solve_many(g_f, n, many, count);
        for (int k = 0; k < count; ++k) {
            memcpy(one, g_g + k * n, sizeof(tch_real) * (size_t)n);
            tch_dense_cholesky_solve(g_f, n, one);
            ENSURE(max_difference(many + k * n, one, n) <= 1e-10 * max_magnitude(one, n));
            tch_real ax[40];
            tch_dense_mat_vec(g_a, n, n, many + k * n, ax);
            ENSURE(max_difference(ax, g_g + k * n, n) <=
                   1e-12 * norm_inf(g_a, n, n) * max_magnitude(many + k * n, n));
        }
    }
}

/* The identity with a_40,40 = -1: both stop there (returning 41), LAPACK by its own info. With
 * a_40,39 = 1 and a_40,40 = 1 + DBL_EPSILON instead, the pivot DBL_EPSILON is positive (LAPACK
 * accepts it) but below 4 DBL_EPSILON a_40,40, rounding noise: both fail there too. */
static void test_cholesky_indefinite(void) {
    const int n = 64;
    for (int t = 0; t < 2; ++t) {
        memset(g_a, 0, sizeof(tch_real) * (size_t)(n * n));
        for (int i = 0; i < n; ++i) {
            g_a[i * n + i] = 1;
        }
        g_a[40 * n + 40] = t == 0 ? -1 : 1 + DBL_EPSILON;
        g_a[40 * n + 39] = t == 0 ? 0 : 1;
        memcpy(g_f, g_a, sizeof(tch_real) * (size_t)(n * n));
        ENSURE(tch_solver_lapack_cholesky(g_f, n, g_work) == 41);
        memcpy(g_f, g_a, sizeof(tch_real) * (size_t)(n * n));
        ENSURE(tch_dense_cholesky(g_f, n) == 41);
    }
}

/* The same input twice gives the same bits (OpenBLAS as configured for this process). */
static void test_same_bits(void) {
    lcp_rng rng = {8};
    const int n = N;
    random_matrix(&rng, n, g_a);
    memcpy(g_f, g_a, sizeof(tch_real) * (size_t)(n * n));
    memcpy(g_g, g_a, sizeof(tch_real) * (size_t)(n * n));
    ENSURE(tch_solver_lu_factor(g_f, n, g_pivot) == 0);
    ENSURE(tch_solver_lu_factor(g_g, n, g_pivot_loops) == 0);
    ENSURE(memcmp(g_f, g_g, sizeof(tch_real) * (size_t)(n * n)) == 0);
    ENSURE(memcmp(g_pivot, g_pivot_loops, sizeof(int) * (size_t)n) == 0);
    lcp_random_gram(&rng, n, n, 0.1, g_a);
    memcpy(g_f, g_a, sizeof(tch_real) * (size_t)(n * n));
    memcpy(g_g, g_a, sizeof(tch_real) * (size_t)(n * n));
    ENSURE(tch_solver_lapack_cholesky(g_f, n, g_work) == 0);
    ENSURE(tch_solver_lapack_cholesky(g_g, n, g_work) == 0);
    ENSURE(memcmp(g_f, g_g, sizeof(tch_real) * (size_t)(n * n)) == 0);
}

int main(void) {
    RUN_TEST(test_lu_above_crossover);
    RUN_TEST(test_lu_singular);
    RUN_TEST(test_cholesky_above_crossover);
    RUN_TEST(test_cholesky_indefinite);
    RUN_TEST(test_cholesky_solve_many);
    RUN_TEST(test_same_bits);
    return TEST_RESULT();
}
