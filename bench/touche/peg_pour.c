/* The pouring experiments' runs, statistics and CSV (peg_pour.h). */
#include "peg_pour.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "contact/peg.h"
#include "engine/engine_internal.h"
#include "touche/io.h"
#include "touche/step.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

enum { MODELS = 2 };
static const char* const MODEL_NAMES[MODELS] = {"lcp", "peg"};

static int append(char* out, size_t size, int used, const char* text) {
    int n = snprintf(out + used, size - (size_t)used, "%s", text);
    return used + n;
}

static double cpu_seconds(void) {
    return (double)clock() / CLOCKS_PER_SEC;
}

typedef struct run_stats {
    double* overlaps; /* per step */
    int steps, crashed;
    long failed_islands, fallbacks;
    long solves, swept; /* peg's islands solved, and by its Gauss-Seidel sweeps */
    int trap_steps;
    double seconds;           /* CPU in tch_step */
    double worst, worst_time; /* the largest overlap and when */
} run_stats;

static void set_body(const tch_model* m, tch_data* d, int b, tch_vec3 position, tch_quat rotation,
                     tch_vec3 velocity) {
    tch_real* q = d->qpos + m->body_qpos_adr[b];
    tch_real* v = d->qvel + m->body_qvel_adr[b];
    q[0] = position.x, q[1] = position.y, q[2] = position.z;
    q[3] = rotation.w, q[4] = rotation.x, q[5] = rotation.y, q[6] = rotation.z;
    v[0] = velocity.x, v[1] = velocity.y, v[2] = velocity.z;
    v[3] = v[4] = v[5] = 0;
}

/* Where body b (0-based) is parked (the scene puts it there). */
static tch_vec3 parking(int b) {
    return tch_v3(10 + 3 * b, 0, 100);
}

static void release(const peg_pour_experiment* e, const void* s, const tch_model* m, tch_data* d,
                    int b) {
    tch_vec3 position, velocity;
    tch_quat rotation;
    e->source(s, b - 1, &position, &rotation, &velocity);
    set_body(m, d, b, position, rotation, velocity);
}

static int trap_count(const tch_data* d) {
    const void* scratch = d->internal->model_scratch[TCH_CONTACT_PEG];
    int traps = 0;
    for (int p = 0; scratch && p < d->pair_result_count; ++p) {
        const tch_peg_constraints* list = tch_peg_pair_constraints(scratch, p);
        traps += list && d->pair_results[p].model == TCH_CONTACT_PEG
                     ? tch_peg_constraints_trap_count(list)
                     : 0;
    }
    return traps;
}

/* The scene as MJCF for `model` at step h: body b (0-based) is named b<b>, parked. */
static char* model_xml(const peg_pour_experiment* e, void* s, const char* model, double h) {
    const size_t size = 1 << 16;
    char* xml = malloc(size);
    char buffer[2048], margin[64] = "";
    if (strcmp(model, "peg") == 0 && e->peg_reach > 0) {
        snprintf(margin, sizeof margin, " touche:margin='%.17g'", fmax(e->peg_reach * h, 0.0008));
    }
    snprintf(buffer, sizeof buffer,
             "<mujoco xmlns:touche='urn:touche'><option timestep='%.17g' %s "
             "touche:contact='%s'%s/><default><geom friction='0'/></default><asset>",
             h, e->options, model, margin);
    int used = append(xml, size, 0, buffer);
    for (int b = 0; b < e->bodies; ++b) {
        tch_vec3 vertices[PEG_POUR_MAX_VERTICES];
        const int count = e->mesh(s, b, vertices);
        snprintf(buffer, sizeof buffer, "<mesh name='p%d' vertex='", b);
        used = append(xml, size, used, buffer);
        for (int k = 0; k < count; ++k) {
            const tch_vec3 p = vertices[k];
            snprintf(buffer, sizeof buffer, "%.17g %.17g %.17g ", p.x, p.y, p.z);
            used = append(xml, size, used, buffer);
        }
        used = append(xml, size, used, "'/>");
    }
    used = append(xml, size, used, "</asset><worldbody>");
    used = append(xml, size, used, e->box_xml);
    for (int b = 0; b < e->bodies; ++b) {
        const tch_vec3 p = parking(b);
        snprintf(buffer, sizeof buffer,
                 "<body name='b%d' pos='%g %g %g'><freejoint/>%s<geom type='mesh' mesh='p%d'/>"
                 "</body>",
                 b, p.x, p.y, p.z, e->inertial, b);
        used = append(xml, size, used, buffer);
    }
    append(xml, size, used, "</worldbody></mujoco>");
    return xml;
}

static void step_all(const peg_pour_experiment* e, void* s, const tch_model* m, tch_data* d,
                     double h, run_stats* out) {
    tch_error err = {0};
    const int steps = (int)lround(e->duration / h);
    int poured = 0;
    for (int k = 0; k < steps; ++k) {
        const double t = k * h;
        while (poured < e->bodies && t + 1e-9 >= poured * e->release_period) {
            release(e, s, m, d, ++poured);
        }
        for (int b = poured + 1; b <= e->bodies; ++b) {
            set_body(m, d, b, parking(b - 1), (tch_quat){1, 0, 0, 0}, tch_v3(0, 0, 0));
        }
        const double start = cpu_seconds();
        const tch_status status = tch_step(m, d, &err);
        out->seconds += cpu_seconds() - start; /* the step alone, not the overlap measure */
        if (status != TCH_OK) {
            fprintf(stderr, "%s: stopped at %.3f s: %s\n", e->program, t, err.message);
            out->crashed = 1;
            break;
        }
        out->failed_islands += d->constraint_failed_islands;
        out->trap_steps += trap_count(d) > 0;
        const double overlap = e->total_overlap(m, d, s, poured);
        out->overlaps[out->steps++] = overlap;
        if (overlap > out->worst) {
            out->worst = overlap;
            out->worst_time = t + h;
        }
    }
}

static int run(const peg_pour_experiment* e, void* s, const char* model, double h, run_stats* out) {
    char* xml = model_xml(e, s, model, h);
    tch_error err = {0};
    tch_spec* spec = NULL;
    tch_model* m = NULL;
    tch_data* d = NULL;
    if (tch_mjcf_load_string(xml, ".", "pour.xml", &spec, &err) != TCH_OK ||
        tch_compile(spec, &m, &err) != TCH_OK || tch_data_create(m, &d, &err) != TCH_OK) {
        fprintf(stderr, "%s: %s\n", e->program, err.message);
        free(xml);
        tch_spec_destroy(spec);
        tch_model_destroy(m);
        return -1;
    }
    free(xml);
    tch_spec_destroy(spec);
    memset(out, 0, sizeof *out);
    out->overlaps = calloc((size_t)lround(e->duration / h), sizeof *out->overlaps);
    step_all(e, s, m, d, h, out);
    const tch_peg_report* r = tch_peg_scratch_report(d->internal->model_scratch[TCH_CONTACT_PEG]);
    out->fallbacks = r ? r->fallbacks : 0;
    out->solves = r ? r->solves : 0;
    out->swept = r ? r->swept : 0;
    out->failed_islands += r ? r->failures : 0;
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}

static int by_value(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static double quantile(const double* sorted, int n, double q) {
    return n > 0 ? sorted[(int)floor(q * (n - 1) + 0.5)] : NAN;
}

/* One model's runs at one h, pooled. */
typedef struct pooled_stats {
    double* overlaps;
    int count, crashed, overlapping, trap_steps;
    long failed, fallbacks, solves, swept;
    double seconds;
} pooled_stats;

static void pool(pooled_stats* p, const run_stats* r) {
    for (int i = 0; i < r->steps; ++i) {
        p->overlaps[p->count++] = r->overlaps[i];
        p->overlapping += r->overlaps[i] > 1e-10;
    }
    p->crashed += r->crashed;
    p->failed += r->failed_islands;
    p->fallbacks += r->fallbacks;
    p->solves += r->solves;
    p->swept += r->swept;
    p->trap_steps += r->trap_steps;
    p->seconds += r->seconds;
}

static void print_row(const char* when, const char* cpu, const char* model, double h, int seeds,
                      pooled_stats* p) {
    double* v = p->overlaps;
    const int n = p->count;
    qsort(v, (size_t)n, sizeof *v, by_value);
    printf("%s,%s,\"%s\",%s,%.3f,%d,%d,%d,%.3e,%.3e,%.3e,%.3e,%d,%ld,%ld,%d,%.1f,%ld,%ld\n", when,
           TCH_GIT_COMMIT, cpu, model, h, seeds, p->crashed, n, quantile(v, n, 0.5),
           quantile(v, n, 0.25), quantile(v, n, 0.75), n ? v[n - 1] : NAN, p->overlapping,
           p->failed, p->fallbacks, p->trap_steps, n ? 1e6 * p->seconds / n : NAN, p->solves, p->swept);
    fflush(stdout);
}

/* Both models at one h over the seeds; 0 or -1. */
static int run_step_size(const peg_pour_experiment* e, void* s, int seeds, double h,
                         const char* when, const char* cpu) {
    pooled_stats pooled[MODELS];
    memset(pooled, 0, sizeof pooled);
    for (int model = 0; model < MODELS; ++model) {
        pooled[model].overlaps =
            malloc((size_t)seeds * (size_t)lround(e->duration / h) * sizeof(double));
    }
    int status = 0;
    for (int seed = 0; seed < seeds && status == 0; ++seed) {
        e->make_scene((unsigned long long)seed, s);
        for (int model = 0; model < MODELS && status == 0; ++model) {
            run_stats r;
            status = run(e, s, MODEL_NAMES[model], h, &r);
            if (status == 0) {
                fprintf(stderr,
                        "%s h %.3f seed %d: %d steps%s, largest overlap %.3e %s at %.3f s\n",
                        MODEL_NAMES[model], h, seed, r.steps, r.crashed ? " (crashed)" : "",
                        r.worst, e->unit, r.worst_time);
                pool(&pooled[model], &r);
                free(r.overlaps);
            }
        }
    }
    for (int model = 0; model < MODELS; ++model) {
        if (status == 0) {
            print_row(when, cpu, MODEL_NAMES[model], h, seeds, &pooled[model]);
        }
        free(pooled[model].overlaps);
    }
    return status;
}

int peg_pour_main(peg_pour_experiment e, int argc, char** argv) {
    const int seeds = argc > 1 ? atoi(argv[1]) : 10;
    const int first = argc > 2 ? atoi(argv[2]) : 1, last = argc > 3 ? atoi(argv[3]) : 16;
    const int stride = argc > 4 && atoi(argv[4]) > 0 ? atoi(argv[4]) : 1;
    e.peg_reach = argc > 5 ? atof(argv[5]) : e.peg_reach;
    char when[32], cpu[128];
    const time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d", gmtime(&now));
    bench_cpu_model(cpu, sizeof cpu);
    printf("date,commit,cpu,model,h,runs,crashed,steps,overlap_median,overlap_q1,overlap_q3,"
           "overlap_max,steps_overlapping,failed_islands,fallbacks,trap_steps,cpu_us_per_step,"
           "peg_solves,peg_swept\n");
    void* s = calloc(1, e.scene_size);
    int status = 0;
    for (int k = first; k <= last && status == 0; k += stride) {
        status = run_step_size(&e, s, seeds, 0.001 * k, when, cpu);
    }
    if (e.free_scene) {
        e.free_scene(s);
    }
    free(s);
    return status != 0;
}
