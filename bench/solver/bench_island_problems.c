/* The contact problems of real scenes, as the lcp model poses them (issue 5: "frictional contact
 * problems dumped from the 100-box pile and the 13-block stack reach a natural-map residual of
 * 1e-6"). Runs a scene with every pair on the lcp model and observes every island problem it
 * solves (tch_data_observe_islands):
 *
 *   - the applied impulses' natural-map residual, recomputed from the dense problem alone, by
 *     class (<= 1e-8, <= 1e-6, <= 1e-4 m/s, larger), and its largest difference from the one the
 *     stage reported;
 *   - "warm": every `every`-th box problem whose applied residual is above 1e-6 (the stage accepts
 *     up to 1e-4 on islands too large for Lemke), solved again by dense PGS from the applied
 *     impulses to 1e-6 (at most 200 000 sweeps);
 *   - "cold": every (10 `every`)-th box problem solved by dense PGS from zero to 1e-6.
 *
 *     bench_island_problems SCENE STEPS [every]     (every: 10 by default)
 *
 * Prints CSV: date,commit,cpu,scene,steps,kind,count,then the kind's figures (see the header
 * lines it prints). The commit comes from the TCH_COMMIT environment variable, else the build.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "solver/lcp.h"
#include "solver/pgs.h"
#include "touche/touche.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

static const double TARGET = 1e-6;
enum { MAX_SWEEPS = 200000, MAX_KEPT = 400 };

/* A box problem kept to be solved again. */
typedef struct kept_problem {
    int n;
    double* matrix;
    double* q;
    double* lo;
    double* hi;
    int* normal_index;
    double* z;          /* the applied impulses */
} kept_problem;

typedef struct survey {
    int every;
    long problems, box_problems, above_target;
    long path_count[TCH_CONSTRAINT_PATH_COUNT];
    long residual_class[4];     /* <= 1e-8, <= 1e-6, <= 1e-4, larger */
    int largest_n;
    double largest_disagreement;
    kept_problem warm[MAX_KEPT], cold[MAX_KEPT];
    int warm_count, cold_count;
} survey;

static void* copy_of(const void* from, size_t bytes) {
    void* to = malloc(bytes);
    if (to) {
        memcpy(to, from, bytes);
    }
    return to;
}

static void keep(const tch_island_problem* p, kept_problem* out) {
    size_t n = (size_t)p->n;
    out->n = p->n;
    out->matrix = copy_of(p->matrix, n * n * sizeof(double));
    out->q = copy_of(p->q, n * sizeof(double));
    out->lo = copy_of(p->lo, n * sizeof(double));
    out->hi = copy_of(p->hi, n * sizeof(double));
    out->normal_index = copy_of(p->normal_index, n * sizeof(int));
    out->z = copy_of(p->z, n * sizeof(double));
}

static void release(kept_problem* k) {
    free(k->matrix);
    free(k->q);
    free(k->lo);
    free(k->hi);
    free(k->normal_index);
    free(k->z);
}

static int residual_class(double residual) {
    return residual <= 1e-8 ? 0 : residual <= 1e-6 ? 1 : residual <= 1e-4 ? 2 : 3;
}

static void observe(const tch_island_problem* p, void* user) {
    survey* s = user;
    const tch_lcp_matrix matrix = tch_lcp_matrix_dense(p->matrix, p->n);
    const tch_lcp_bounds bounds = {p->lo, p->hi, p->normal_index, p->friction_disc};
    double residual = tch_lcp_residuals(&matrix, p->q, &bounds, p->z).natural_map;
    s->problems++;
    s->path_count[p->path]++;
    s->residual_class[residual_class(residual)]++;
    s->largest_n = p->n > s->largest_n ? p->n : s->largest_n;
    s->largest_disagreement = fmax(s->largest_disagreement, fabs(residual - p->residual));
    if (!p->lo) {
        return;
    }
    if (residual > TARGET && s->above_target++ % s->every == 0 && s->warm_count < MAX_KEPT) {
        keep(p, &s->warm[s->warm_count++]);
    }
    if (s->box_problems++ % (10 * s->every) == 0 && s->cold_count < MAX_KEPT) {
        keep(p, &s->cold[s->cold_count++]);
    }
}

static int compare_ints(const void* a, const void* b) {
    int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

/* Solves the kept problems again by dense PGS to TARGET, from the applied impulses (warm) or
 * from zero, and prints how many reached it, their sweeps and the time. */
static void resolve(const char* prefix, const char* kind, kept_problem* kept, int count,
                    int warm) {
    int* sweeps = calloc((size_t)count + 1, sizeof *sweeps);
    int reached = 0, largest_n = 0;
    double worst = 0, start = bench_now_seconds();
    for (int i = 0; i < count && sweeps; ++i) {
        kept_problem* k = &kept[i];
        const tch_lcp_matrix matrix = tch_lcp_matrix_dense(k->matrix, k->n);
        /* dense PGS solves the box form; the row solver's discs are inside its boxes */
        const tch_lcp_bounds bounds = {k->lo, k->hi, k->normal_index, false};
        tch_pgs_options options = tch_pgs_options_default();
        options.max_iterations = MAX_SWEEPS;
        options.tolerance = TARGET;
        options.warm_start = warm;
        tch_lcp_result result;
        tch_pgs_solve(&matrix, k->q, &bounds, &options, k->z, &result, NULL);
        double residual = tch_lcp_residuals(&matrix, k->q, &bounds, k->z).natural_map;
        reached += residual <= TARGET;
        worst = fmax(worst, residual);
        sweeps[i] = result.iterations;
        largest_n = k->n > largest_n ? k->n : largest_n;
    }
    double elapsed = bench_now_seconds() - start;
    if (sweeps && count > 0) {
        qsort(sweeps, (size_t)count, sizeof *sweeps, compare_ints);
    }
    printf("%s,%s,%d,%d,%d,%d,%d,%.3g,%.1f\n", prefix, kind, count, reached, largest_n,
           sweeps ? sweeps[count / 2] : -1, sweeps ? sweeps[count > 0 ? count - 1 : 0] : -1,
           worst, 1e3 * elapsed);
    free(sweeps);
}

static tch_model* lcp_model(const char* file) {
    tch_spec* spec = NULL;
    tch_model* model = NULL;
    tch_error err;
    if (tch_mjcf_load(file, &spec, &err) != TCH_OK) {
        fprintf(stderr, "bench_island_problems: %s\n", err.message);
        return NULL;
    }
    tch_spec_force_contact_model(spec, TCH_CONTACT_LCP);
    if (tch_compile(spec, &model, &err) != TCH_OK) {
        fprintf(stderr, "bench_island_problems: %s\n", err.message);
    }
    tch_spec_destroy(spec);
    return model;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_island_problems SCENE STEPS [every]\n");
        return 2;
    }
    const int steps = atoi(argv[2]);
    static survey s;
    s.every = argc > 3 && atoi(argv[3]) > 0 ? atoi(argv[3]) : 10;
    tch_model* m = lcp_model(argv[1]);
    tch_data* d = NULL;
    if (!m || tch_data_create(m, &d, NULL) != TCH_OK) {
        return 1;
    }
    tch_data_observe_islands(d, observe, &s);
    for (int i = 0; i < steps; ++i) {
        tch_error err;
        if (tch_step(m, d, &err) != TCH_OK) {
            fprintf(stderr, "bench_island_problems: step %d: %s\n", i, err.message);
            return 1;
        }
    }
    char cpu[256], date[32], prefix[512];
    bench_cpu_model(cpu, sizeof cpu);
    const time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    snprintf(prefix, sizeof prefix, "%s,%s,%s,%s,%d", date, commit, cpu, argv[1], steps);
    printf("date,commit,cpu,scene,steps,kind,problems,largest_n,lemke,pgs,normal_lemke,"
           "normal_pgs,at_most_1e-8,at_most_1e-6,at_most_1e-4,larger,largest_disagreement\n");
    printf("%s,applied,%ld,%d,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%ld,%.3g\n", prefix, s.problems,
           s.largest_n, s.path_count[0], s.path_count[1], s.path_count[2], s.path_count[3],
           s.residual_class[0], s.residual_class[1], s.residual_class[2], s.residual_class[3],
           s.largest_disagreement);
    printf("date,commit,cpu,scene,steps,kind,solved,reached_1e-6,largest_n,median_sweeps,"
           "max_sweeps,largest_residual,total_ms\n");
    resolve(prefix, "warm", s.warm, s.warm_count, 1);
    resolve(prefix, "cold", s.cold, s.cold_count, 0);
    for (int i = 0; i < s.warm_count; ++i) {
        release(&s.warm[i]);
    }
    for (int i = 0; i < s.cold_count; ++i) {
        release(&s.cold[i]);
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}
