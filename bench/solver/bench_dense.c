/* Dense factorization benchmark: the solver module's hand-written LU (solver/lu.h) and the
 * math module's Cholesky and LDLᵀ (math/dense.h) against LAPACKE dgetrf/dgetrs and
 * dpotrf/dpotrs (solver/dense_lapack.h: the column-major *_work calls the library makes),
 * for n = 4 to 1024 (powers of two, and 24, 48, 96; up to the argument). Each time is one
 * factorization plus one solve with one right-hand side, best of N repetitions (N = 1000 up to
 * n = 64, 30 up to n = 256, 3 above). The row "cholesky n rhs" is one Cholesky plus n solves,
 * as the contact space's dynamically consistent inverse makes them (m contacts, n >= m
 * coordinates: here n = m): tch_dense_cholesky_solve per right-hand side against one dpotrs
 * with n right-hand sides (tch_solver_lapack_cholesky_solve_many).
 *
 * Matrices: LU on A = U(-1, 1) + n I (diagonally dominant, well-conditioned, not symmetric);
 * Cholesky and LDLᵀ on the symmetric S = (B + Bᵀ)/2 + n I with B = U(-1, 1) (positive definite
 * by Gershgorin). Fixed seed.
 *
 * OpenBLAS runs on one thread: main calls openblas_set_num_threads(1) before any LAPACK call
 * (the library never changes this setting: docs/solvers.md).
 *
 *     bench_dense [max_n]     (default 1024)
 *
 * Prints CSV: date,commit,cpu,factorization,n,repetitions,us_loops,us_lapack,speedup
 * (speedup = us_loops / us_lapack). The commit comes from the TCH_COMMIT environment variable,
 * else from the build.
 */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "math/dense.h"
#include "solver/dense_lapack.h"
#include "solver/lu.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

typedef enum method {
    LU_LOOPS,
    LU_LAPACK,
    CHOLESKY_LOOPS,
    LDLT_LOOPS,
    CHOLESKY_LAPACK,
    CHOLESKY_MANY_LOOPS,
    CHOLESKY_MANY_LAPACK
} method;

typedef struct dense_system {
    int n;
    const tch_real* a; /* the matrix, kept */
    const tch_real* b; /* the right-hand side, kept */
    tch_real* factor;  /* [n*n] scratch */
    tch_real* x;       /* [n*n]: one right-hand side, or n of them for the *_MANY methods */
    tch_real* work;    /* [n] */
    int* pivot;        /* [n] */
} dense_system;

static double uniform(unsigned long long* state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return 2.0 * (double)(*state >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

/* A = U(-1, 1) + n I, made symmetric ((A + Aᵀ)/2) when asked. */
static void random_matrix(tch_real* a, int n, int symmetric, unsigned long long seed) {
    for (size_t k = 0; k < (size_t)n * (size_t)n; ++k) {
        a[k] = uniform(&seed);
    }
    for (int i = 0; i < n; ++i) {
        for (int j = 0; symmetric && j < i; ++j) {
            const tch_real s = 0.5 * (a[(size_t)i * n + j] + a[(size_t)j * n + i]);
            a[(size_t)i * n + j] = s;
            a[(size_t)j * n + i] = s;
        }
        a[(size_t)i * n + i] += n;
    }
}

/* One factorization and one solve (n solves for the *_MANY methods) into s->x; 0 on success. */
static int factor_and_solve(dense_system* s, method m) {
    const int n = s->n;
    const int count = m == CHOLESKY_MANY_LOOPS || m == CHOLESKY_MANY_LAPACK ? n : 1;
    for (int k = 0; k < count; ++k) {
        memcpy(s->x + (size_t)k * (size_t)n, s->b, (size_t)n * sizeof *s->x);
    }
    int failed = 0;
    switch (m) {
    case LU_LOOPS:
        failed = tch_solver_lu_factor_loops(s->factor, n, s->pivot);
        tch_solver_lu_solve_loops(s->factor, n, s->pivot, s->x, s->work);
        break;
    case LU_LAPACK:
        failed = tch_solver_lapack_lu_factor(s->factor, n, s->pivot);
        tch_solver_lapack_lu_solve(s->factor, n, s->pivot, s->x);
        break;
    case CHOLESKY_LOOPS:
        failed = tch_dense_cholesky(s->factor, n);
        tch_dense_cholesky_solve(s->factor, n, s->x);
        break;
    case LDLT_LOOPS:
        failed = tch_dense_ldlt(s->factor, n);
        tch_dense_ldlt_solve(s->factor, n, s->x);
        break;
    case CHOLESKY_LAPACK:
        failed = tch_solver_lapack_cholesky(s->factor, n, s->work);
        tch_solver_lapack_cholesky_solve(s->factor, n, s->x);
        break;
    case CHOLESKY_MANY_LOOPS:
        failed = tch_dense_cholesky(s->factor, n);
        for (int k = 0; k < count; ++k) {
            tch_dense_cholesky_solve(s->factor, n, s->x + (size_t)k * (size_t)n);
        }
        break;
    case CHOLESKY_MANY_LAPACK:
        failed = tch_solver_lapack_cholesky(s->factor, n, s->work);
        tch_solver_lapack_cholesky_solve_many(s->factor, n, s->x, count);
        break;
    }
    return failed;
}

/* Best time of `repetitions` runs, s (the copy of A into the factor is not timed);
 * a negative time when a factorization failed. */
static double best_time(dense_system* s, method m, int repetitions) {
    double best = 1e30;
    for (int r = 0; r < repetitions; ++r) {
        memcpy(s->factor, s->a, (size_t)s->n * (size_t)s->n * sizeof *s->factor);
        const double start = bench_now_seconds();
        const int failed = factor_and_solve(s, m);
        const double elapsed = bench_now_seconds() - start;
        if (failed) {
            return -1;
        }
        best = elapsed < best ? elapsed : best;
    }
    return best;
}

static void print_row(const char* context, const char* name, int n, int repetitions,
                      double loops, double lapack) {
    printf("%s,%s,%d,%d,%.3f,%.3f,%.2f\n", context, name, n, repetitions, 1e6 * loops,
           1e6 * lapack, loops / lapack);
}

static void bench_size(const char* context, int n) {
    tch_real* a = malloc((size_t)n * (size_t)n * sizeof *a);
    tch_real* spd = malloc((size_t)n * (size_t)n * sizeof *spd);
    tch_real* b = malloc((size_t)n * sizeof *b);
    tch_real* factor = malloc((size_t)n * (size_t)n * sizeof *factor);
    tch_real* x = malloc((size_t)n * (size_t)n * sizeof *x);
    tch_real* work = malloc((size_t)n * sizeof *work);
    int* pivot = malloc((size_t)n * sizeof *pivot);
    random_matrix(a, n, 0, 11u + (unsigned)n);
    random_matrix(spd, n, 1, 13u + (unsigned)n);
    unsigned long long seed = 17;
    for (int i = 0; i < n; ++i) {
        b[i] = uniform(&seed);
    }
    const int repetitions = n <= 64 ? 1000 : n <= 256 ? 30 : 3;
    dense_system s = {n, a, b, factor, x, work, pivot};
    const double lu_loops = best_time(&s, LU_LOOPS, repetitions);
    const double lu_lapack = best_time(&s, LU_LAPACK, repetitions);
    s.a = spd;
    const double chol_loops = best_time(&s, CHOLESKY_LOOPS, repetitions);
    const double ldlt_loops = best_time(&s, LDLT_LOOPS, repetitions);
    const double chol_lapack = best_time(&s, CHOLESKY_LAPACK, repetitions);
    const double many_loops = best_time(&s, CHOLESKY_MANY_LOOPS, repetitions);
    const double many_lapack = best_time(&s, CHOLESKY_MANY_LAPACK, repetitions);
    print_row(context, "lu", n, repetitions, lu_loops, lu_lapack);
    print_row(context, "cholesky", n, repetitions, chol_loops, chol_lapack);
    print_row(context, "ldlt vs lapack cholesky", n, repetitions, ldlt_loops, chol_lapack);
    print_row(context, "cholesky n rhs", n, repetitions, many_loops, many_lapack);
    free(a);
    free(spd);
    free(b);
    free(factor);
    free(x);
    free(work);
    free(pivot);
}

int main(int argc, char** argv) {
    const int max_n = argc > 1 ? atoi(argv[1]) : 1024;
    openblas_set_num_threads(1);
    char cpu[256], date[32], context[400];
    bench_cpu_model(cpu, sizeof cpu);
    const time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    snprintf(context, sizeof context, "%s,%s,%s", date, commit, cpu);
    printf("date,commit,cpu,factorization,n,repetitions,us_loops,us_lapack,speedup\n");
    /* The powers of two, and 24, 48, 96 to place the crossovers. */
    static const int sizes[] = {4, 8, 16, 24, 32, 48, 64, 96, 128, 256, 512, 1024};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && sizes[k] <= max_n; ++k) {
        bench_size(context, sizes[k]);
    }
    return 0;
}
