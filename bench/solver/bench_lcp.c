/* LCP solver benchmark: solve time and iterations against problem size for Lemke and PGS on
 * contact-like problems. A stack of N unit boxes (1 kg, 1 m) on the ground, four corner contacts
 * per interface, one time step h = 5 ms under gravity from rest plus small random velocities:
 *
 *     normal:   M = J W Jᵀ (4N rows, block-banded, positive semi-definite: four contacts on a
 *               face act on three degrees of freedom), q = J (v + h W f_gravity)
 *     friction: 4N normal rows, each followed by its two tangent rows bounded by mu z_n
 *               (mu = 0.5), a box MLCP for PGS (12N rows)
 *
 * Solvers: Lemke (cold, and warm-started from the previous step's solution), PGS on the dense
 * matrix and on its CSR copy (tolerance 1e-6 in m/s, at most 1000 sweeps, cold and warm).
 * Lemke runs three times: as the library picks its pivot kernels by size ("lemke"), and with the
 * hand-written loops ("lemke loops") and CBLAS ("lemke blas") forced at every size
 * (solver/lemke.h), to place the crossover TCH_LEMKE_BLAS_MIN_N.
 *
 * Then Lemke alone (the three kernels, cold) on random positive definite LCPs of the tests'
 * family (tests/solver/lcp_problems.h: M = A Aᵀ + 0.1 I, q uniform) for n = 8 to 200; the
 * "boxes" column holds 0 there.
 *
 * Times are the best single solve over at least 3 repetitions and 50 ms. OpenBLAS's thread count
 * is the environment's (OPENBLAS_NUM_THREADS): the library never sets it.
 *
 *     bench_lcp [max_boxes [max_random_n]]     (defaults 50 and 200)
 *
 * Prints CSV: date,commit,cpu,problem,solver,boxes,rows,iterations,residual,us_per_solve,status.
 * The commit comes from the TCH_COMMIT environment variable, else from the build.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "lcp_problems.h"
#include "base/arena.h"
#include "solver/lemke.h"
#include "solver/pgs.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

typedef struct problem {
    int rows;
    tch_real* m;       /* [rows*rows] */
    tch_real* q;       /* [rows] */
    tch_real* lo;      /* [rows] */
    tch_real* hi;      /* [rows] */
    int* normal_index; /* [rows] */
    int* row_start;    /* CSR copy of m */
    int* column;
    tch_real* value;
} problem;

/* The stack's problem with `directions` rows per contact (1: normal only; 3: with friction),
 * tests/solver/lcp_problems.h. */
static void build_stack(problem* p, int boxes, int directions, unsigned long long seed) {
    const int rows = 4 * boxes * directions;
    p->rows = rows;
    p->m = malloc((size_t)rows * rows * sizeof *p->m);
    p->q = malloc((size_t)rows * sizeof *p->q);
    p->lo = malloc((size_t)rows * sizeof *p->lo);
    p->hi = malloc((size_t)rows * sizeof *p->hi);
    p->normal_index = malloc((size_t)rows * sizeof *p->normal_index);
    lcp_rng rng = {seed};
    lcp_stack_problem(&rng, boxes, directions, p->m, p->q, p->lo, p->hi, p->normal_index);
}

static void build_csr(problem* p) {
    const int n = p->rows;
    int count = 0;
    for (size_t k = 0; k < (size_t)n * n; ++k) {
        count += p->m[k] != 0;
    }
    p->row_start = malloc((size_t)(n + 1) * sizeof *p->row_start);
    p->column = malloc((size_t)count * sizeof *p->column);
    p->value = malloc((size_t)count * sizeof *p->value);
    count = 0;
    for (int i = 0; i < n; ++i) {
        p->row_start[i] = count;
        for (int j = 0; j < n; ++j) {
            if (p->m[(size_t)i * n + j] != 0) {
                p->column[count] = j;
                p->value[count++] = p->m[(size_t)i * n + j];
            }
        }
    }
    p->row_start[n] = count;
}

static void problem_free(problem* p) {
    free(p->m);
    free(p->q);
    free(p->lo);
    free(p->hi);
    free(p->normal_index);
    free(p->row_start);
    free(p->column);
    free(p->value);
}

typedef struct run {
    const char* problem_name;
    const char* solver_name;
    int boxes;
} run;

typedef struct bench_context {
    const char* date;
    const char* commit;
    const char* cpu;
} bench_context;

static void print_row(const bench_context* c, const run* r, int rows, const tch_lcp_result* res,
                      double seconds) {
    printf("%s,%s,\"%s\",%s,%s,%d,%d,%d,%.3g,%.2f,%s\n", c->date, c->commit, c->cpu,
           r->problem_name, r->solver_name, r->boxes, rows, res->iterations, res->residual,
           1e6 * seconds, tch_lcp_reason_name(res->reason));
}

/* Repeats one solve (z reset from z_start each time) for at least 50 ms and 3 times; the best
 * time in seconds. */
typedef enum solver_kind { LEMKE, LEMKE_LOOPS, LEMKE_BLAS, PGS_DENSE, PGS_CSR } solver_kind;

static tch_lemke_kernels lemke_kernels(solver_kind kind) {
    return kind == LEMKE_LOOPS  ? TCH_LEMKE_KERNELS_LOOPS
           : kind == LEMKE_BLAS ? TCH_LEMKE_KERNELS_BLAS
                                : TCH_LEMKE_KERNELS_BY_SIZE;
}

static double time_solve(const problem* p, solver_kind kind, const tch_lcp_bounds* bounds,
                         bool warm, const tch_real* z_start, tch_real* z, tch_arena* arena,
                         tch_lcp_result* result) {
    const tch_lcp_matrix dense = tch_lcp_matrix_dense(p->m, p->rows);
    const tch_lcp_matrix csr = tch_lcp_matrix_csr(p->rows, p->row_start, p->column, p->value);
    tch_lemke_options lemke = tch_lemke_options_default();
    tch_pgs_options pgs = tch_pgs_options_default();
    lemke.warm_start = pgs.warm_start = warm;
    pgs.tolerance = 1e-6;
    pgs.max_iterations = 1000;
    int repeats = 0;
    const double start = bench_now_seconds();
    double best = 1e30;
    while (bench_now_seconds() - start < 0.05 || repeats < 3) {
        memcpy(z, z_start, (size_t)p->rows * sizeof *z);
        const double solve_start = bench_now_seconds();
        if (kind == PGS_DENSE || kind == PGS_CSR) {
            tch_pgs_solve(kind == PGS_DENSE ? &dense : &csr, p->q, bounds, &pgs, z, result, NULL);
        } else {
            tch_lemke_solve_kernels(p->m, p->q, p->rows, &lemke, lemke_kernels(kind), arena, z,
                                    result, NULL);
        }
        const double elapsed = bench_now_seconds() - solve_start;
        best = elapsed < best ? elapsed : best;
        ++repeats;
    }
    return best;
}

/* Cold solve, then a warm solve of the same step from the cold solution scaled by 0.9 (as if
 * the previous step's impulses were slightly off). */
static void bench_solver(const bench_context* c, const problem* p, run r, solver_kind kind,
                         const tch_lcp_bounds* bounds, tch_arena* arena) {
    const size_t bytes = (size_t)p->rows * sizeof(tch_real);
    tch_real* zero = calloc(1, bytes);
    tch_real* z = malloc(bytes);
    tch_real* previous = malloc(bytes);
    tch_lcp_result result;
    double seconds = time_solve(p, kind, bounds, false, zero, z, arena, &result);
    print_row(c, &r, p->rows, &result, seconds);
    for (int i = 0; i < p->rows; ++i) {
        previous[i] = 0.9 * z[i];
    }
    char warm_name[64];
    snprintf(warm_name, sizeof warm_name, "%s warm", r.solver_name);
    r.solver_name = warm_name;
    seconds = time_solve(p, kind, bounds, true, previous, z, arena, &result);
    print_row(c, &r, p->rows, &result, seconds);
    free(zero);
    free(z);
    free(previous);
}

/* Lemke with its three kernel choices on one problem (cold and warm for the stacks). */
static void bench_lemke(const bench_context* c, const problem* p, const char* problem_name,
                        int boxes, bool warm, tch_arena* arena) {
    static const struct {
        const char* name;
        solver_kind kind;
    } kernels[] = {{"lemke", LEMKE}, {"lemke loops", LEMKE_LOOPS}, {"lemke blas", LEMKE_BLAS}};
    for (size_t k = 0; k < sizeof kernels / sizeof kernels[0]; ++k) {
        const run r = {problem_name, kernels[k].name, boxes};
        if (warm) {
            bench_solver(c, p, r, kernels[k].kind, NULL, arena);
            continue;
        }
        tch_real* zero = calloc((size_t)p->rows, sizeof *zero);
        tch_real* z = malloc((size_t)p->rows * sizeof *z);
        tch_lcp_result result;
        const double seconds = time_solve(p, kernels[k].kind, NULL, false, zero, z, arena,
                                          &result);
        print_row(c, &r, p->rows, &result, seconds);
        free(zero);
        free(z);
    }
}

/* Random positive definite LCPs (the tests' family, trial 0) for n = 8 to max_n. */
static void bench_random(const bench_context* c, int max_n, tch_arena* arena) {
    static const int sizes[] = {8, 16, 24, 32, 48, 64, 96, 128, 160, 200};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && sizes[k] <= max_n; ++k) {
        const int n = sizes[k];
        problem p = {.rows = n};
        p.m = malloc((size_t)n * (size_t)n * sizeof *p.m);
        p.q = malloc((size_t)n * sizeof *p.q);
        lcp_rng rng = {1234u + (unsigned)n};
        lcp_random_problem(&rng, n, 0, 0, p.m, p.q);
        bench_lemke(c, &p, "random pd", 0, false, arena);
        problem_free(&p);
        tch_arena_grow_if_needed(arena);
    }
}

int main(int argc, char** argv) {
    const int max_boxes = argc > 1 ? atoi(argv[1]) : 50;
    const int max_random_n = argc > 2 ? atoi(argv[2]) : 200;
    char cpu[256], date[32];
    bench_cpu_model(cpu, sizeof cpu);
    const time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    const bench_context c = {date, commit, cpu};
    tch_arena arena;
    tch_arena_init(&arena, 1 << 20);
    printf("date,commit,cpu,problem,solver,boxes,rows,iterations,residual,us_per_solve,status\n");
    static const int stack_sizes[] = {1, 2, 5, 10, 20, 30, 50};
    for (size_t s = 0; s < sizeof stack_sizes / sizeof stack_sizes[0]; ++s) {
        const int boxes = stack_sizes[s];
        if (boxes > max_boxes) {
            break;
        }
        problem normal = {0}, friction = {0};
        build_stack(&normal, boxes, 1, 7);
        build_csr(&normal);
        build_stack(&friction, boxes, 3, 7);
        build_csr(&friction);
        const tch_lcp_bounds box = {friction.lo, friction.hi, friction.normal_index, false};
        bench_lemke(&c, &normal, "normal", boxes, true, &arena);
        bench_solver(&c, &normal, (run){"normal", "pgs dense", boxes}, PGS_DENSE, NULL, &arena);
        bench_solver(&c, &normal, (run){"normal", "pgs csr", boxes}, PGS_CSR, NULL, &arena);
        bench_solver(&c, &friction, (run){"friction", "pgs dense", boxes}, PGS_DENSE, &box,
                     &arena);
        bench_solver(&c, &friction, (run){"friction", "pgs csr", boxes}, PGS_CSR, &box, &arena);
        problem_free(&normal);
        problem_free(&friction);
        tch_arena_grow_if_needed(&arena);
    }
    bench_random(&c, max_random_n, &arena);
    tch_arena_destroy(&arena);
    return 0;
}
