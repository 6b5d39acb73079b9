/* Cross-check of tch_lemke_solve against Siconos numerics' lexicographic Lemke
 * (lcp_lexicolemke) on the random problems of test_lcp: positive definite M (unique z: the two z
 * must agree to 1e-8) and positive semi-definite M of lower rank (z need not be unique, but for a
 * symmetric PSD M every solution has the same w = M z + q: the two w must agree to 1e-8).
 * Siconos is a test-only dependency, linked into this program and never into the library. */
#include <math.h>
#include <stdlib.h>

#include <LCP_Solvers.h>
#include <LinearComplementarityProblem.h>
#include <NumericsMatrix.h>
#include <SolverOptions.h>
#include <lcp_cst.h>

#include "base/arena.h"
#include "lcp_problems.h"
#include "solver/lemke.h"
#include "test.h"

enum { MAX_N = 200 };

static tch_real g_m[MAX_N * MAX_N], g_q[MAX_N];

/* Siconos' lexicographic Lemke; its dense storage is column-major. Returns its info (0: ok). */
static int siconos_lemke(const tch_real* m, const tch_real* q, int n, double* z, double* w) {
    NumericsMatrix* matrix = NM_create(NM_DENSE, n, n);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) {
            matrix->matrix0[j * n + i] = m[i * n + j];
        }
    }
    double q_copy[MAX_N];
    for (int i = 0; i < n; ++i) {
        q_copy[i] = q[i];
        z[i] = 0;
    }
    LinearComplementarityProblem problem = {.size = n, .M = matrix, .q = q_copy};
    SolverOptions* options = solver_options_create(SICONOS_LCP_LEMKE);
    options->iparam[SICONOS_IPARAM_MAX_ITER] = 100 * (n + 10);
    int info = -1;
    lcp_lexicolemke(&problem, z, w, &info, options);
    solver_options_delete(options);
    free(options); /* Siconos 4.4's delete clears the members but leaves the struct (LSan) */
    NM_free(matrix);
    return info;
}

static tch_real natural_map(const tch_real* z, int n) {
    tch_real w[MAX_N], r = 0;
    lcp_w(g_m, g_q, z, n, w);
    for (int i = 0; i < n; ++i) {
        r = fmax(r, fabs(fmin(z[i], w[i])));
    }
    return r;
}

/* Problems where Siconos returned info 0 with a z that is not a solution (natural map above
 * 1e-8 times the scale): those are skipped and counted, and printed. */
static int g_siconos_wrong;

static void compare(int n, int psd) {
    tch_real z[MAX_N], w[MAX_N];
    double z_siconos[MAX_N], w_siconos[MAX_N];
    tch_arena arena;
    tch_arena_init(&arena, 0);
    const tch_status status = tch_lemke_solve(g_m, g_q, n, NULL, &arena, z, NULL, NULL);
    tch_arena_destroy(&arena);
    ENSURE(status == TCH_OK);
    const tch_real scale = lcp_scale(g_m, g_q, z, n);
    ENSURE(natural_map(z, n) <= 1e-10 * scale);
    ENSURE(siconos_lemke(g_m, g_q, n, z_siconos, w_siconos) == 0);
    const tch_real siconos_residual = natural_map(z_siconos, n);
    if (siconos_residual > 1e-8 * scale) {
        printf("     n = %d: Siconos' z has natural-map residual %g (touche's %g): skipped\n", n,
               siconos_residual, natural_map(z, n));
        ++g_siconos_wrong;
        return;
    }
    lcp_w(g_m, g_q, z, n, w);
    for (int i = 0; i < n; ++i) {
        if (psd) {
            ENSURE_NEAR(w[i], w_siconos[i], 1e-8 * scale);
        } else {
            ENSURE_NEAR(z[i], z_siconos[i], 1e-8 * fmax(1, fabs(z[i])));
        }
    }
}

static const int sizes[] = {1, 2, 3, 5, 10, 20, 50, 100, 200};
enum { SIZE_COUNT = sizeof sizes / sizeof sizes[0] };

static void compare_family(int semidefinite, unsigned long long seed) {
    lcp_rng rng = {seed};
    for (int s = 0; s < SIZE_COUNT; ++s) {
        for (int trial = 0; trial < 3; ++trial) {
            lcp_random_problem(&rng, sizes[s], trial, semidefinite, g_m, g_q);
            compare(sizes[s], semidefinite);
            if (tch_test_current_failed) {
                fprintf(stderr, "  n = %d, trial %d\n", sizes[s], trial);
                return;
            }
        }
    }
}

static void test_positive_definite_same_z(void) {
    compare_family(0, 1);
}

static void test_positive_semidefinite_same_w(void) {
    compare_family(1, 2);
}

int main(void) {
    RUN_TEST(test_positive_definite_same_z);
    RUN_TEST(test_positive_semidefinite_same_w);
    printf("Siconos returned a non-solution on %d of %d problems\n", g_siconos_wrong,
           2 * 3 * SIZE_COUNT);
    const int result = TEST_RESULT();
    return result != 0 || g_siconos_wrong > SIZE_COUNT; /* most problems must be compared */
}
