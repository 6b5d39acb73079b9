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
 *
 *     bench_lcp [max_boxes]     (default 50)
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
#include "base/arena.h"
#include "solver/lemke.h"
#include "solver/pgs.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

enum { DOF = 6 };

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

static double uniform(unsigned long long* state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return 2.0 * (double)(*state >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

/* Row of J for direction d at contact point with offsets r_a (from the lower body's centre,
 * body a, -1 for the ground) and r_b (from the upper body's centre, body b):
 * a: [-d; -(r_a × d)], b: [d; r_b × d]. */
static void jacobian_row(tch_real* row, int body_a, int body_b, const tch_real r_a[3],
                         const tch_real r_b[3], const tch_real d[3]) {
    const tch_real* r[2] = {r_a, r_b};
    const int body[2] = {body_a, body_b};
    for (int s = 0; s < 2; ++s) {
        if (body[s] < 0) {
            continue;
        }
        const tch_real sign = s == 0 ? -1 : 1;
        tch_real* block = row + body[s] * DOF;
        const tch_real* p = r[s];
        const tch_real cross[3] = {p[1] * d[2] - p[2] * d[1], p[2] * d[0] - p[0] * d[2],
                                   p[0] * d[1] - p[1] * d[0]};
        for (int k = 0; k < 3; ++k) {
            block[k] = sign * d[k];
            block[3 + k] = sign * cross[k];
        }
    }
}

/* The stack's problem with `directions` rows per contact (1: normal only; 3: with friction). */
static void build_stack(problem* p, int boxes, int directions, unsigned long long seed) {
    const int dofs = DOF * boxes, rows = 4 * boxes * directions;
    const tch_real h = 0.005, g = 9.81, mu = 0.5;
    const tch_real inverse_mass[DOF] = {1, 1, 1, 6, 6, 6}; /* unit cube: I = 1/6 kg m² */
    tch_real* j = calloc((size_t)rows * dofs, sizeof *j);
    tch_real* v = malloc((size_t)dofs * sizeof *v);
    p->rows = rows;
    p->m = malloc((size_t)rows * rows * sizeof *p->m);
    p->q = malloc((size_t)rows * sizeof *p->q);
    p->lo = malloc((size_t)rows * sizeof *p->lo);
    p->hi = malloc((size_t)rows * sizeof *p->hi);
    p->normal_index = malloc((size_t)rows * sizeof *p->normal_index);
    for (int k = 0; k < dofs; ++k) { /* v + h W f: gravity plus a small random velocity */
        v[k] = 1e-3 * uniform(&seed) - (k % DOF == 2 ? h * g : 0);
    }
    static const tch_real directions_xyz[3][3] = {{0, 0, 1}, {1, 0, 0}, {0, 1, 0}};
    int row = 0;
    for (int layer = 0; layer < boxes; ++layer) {
        for (int corner = 0; corner < 4; ++corner) {
            const tch_real x = corner & 1 ? 0.5 : -0.5, y = corner & 2 ? 0.5 : -0.5;
            const tch_real r_a[3] = {x, y, 0.5}, r_b[3] = {x, y, -0.5};
            const int normal_row = row;
            for (int d = 0; d < directions; ++d, ++row) {
                jacobian_row(j + (size_t)row * dofs, layer - 1, layer, r_a, r_b,
                             directions_xyz[d]);
                p->lo[row] = d == 0 ? 0 : -mu;
                p->hi[row] = d == 0 ? INFINITY : mu;
                p->normal_index[row] = d == 0 ? -1 : normal_row;
            }
        }
    }
    for (int a = 0; a < rows; ++a) {
        const tch_real* ja = j + (size_t)a * dofs;
        tch_real s = 0;
        for (int k = 0; k < dofs; ++k) {
            s += ja[k] * v[k];
        }
        p->q[a] = s;
        for (int b = 0; b < rows; ++b) {
            const tch_real* jb = j + (size_t)b * dofs;
            tch_real e = 0;
            for (int k = 0; k < dofs; ++k) {
                e += ja[k] * inverse_mass[k % DOF] * jb[k];
            }
            p->m[(size_t)a * rows + b] = e;
        }
    }
    free(j);
    free(v);
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

/* Repeats one solve (z reset from z_start each time) for at least 50 ms; mean seconds. */
typedef enum solver_kind { LEMKE, PGS_DENSE, PGS_CSR } solver_kind;

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
    double elapsed = 0;
    while (elapsed < 0.05 || repeats < 3) {
        memcpy(z, z_start, (size_t)p->rows * sizeof *z);
        if (kind == LEMKE) {
            tch_lemke_solve(p->m, p->q, p->rows, &lemke, arena, z, result, NULL);
        } else {
            tch_pgs_solve(kind == PGS_DENSE ? &dense : &csr, p->q, bounds, &pgs, z, result, NULL);
        }
        ++repeats;
        elapsed = bench_now_seconds() - start;
    }
    return elapsed / repeats;
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

int main(int argc, char** argv) {
    const int max_boxes = argc > 1 ? atoi(argv[1]) : 50;
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
        const tch_lcp_bounds box = {friction.lo, friction.hi, friction.normal_index};
        bench_solver(&c, &normal, (run){"normal", "lemke", boxes}, LEMKE, NULL, &arena);
        bench_solver(&c, &normal, (run){"normal", "pgs dense", boxes}, PGS_DENSE, NULL, &arena);
        bench_solver(&c, &normal, (run){"normal", "pgs csr", boxes}, PGS_CSR, NULL, &arena);
        bench_solver(&c, &friction, (run){"friction", "pgs dense", boxes}, PGS_DENSE, &box,
                     &arena);
        bench_solver(&c, &friction, (run){"friction", "pgs csr", boxes}, PGS_CSR, &box, &arena);
        problem_free(&normal);
        problem_free(&friction);
        tch_arena_grow_if_needed(&arena);
    }
    tch_arena_destroy(&arena);
    return 0;
}
