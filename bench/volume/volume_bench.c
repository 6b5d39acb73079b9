/* Shared support of the volume-model experiments (volume_bench.h). */
#include "volume_bench.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "math/vec.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

const char* vb_csv_prefix(void) {
    static char prefix[384];
    if (prefix[0]) {
        return prefix;
    }
    char date[32], cpu[256];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    bench_cpu_model(cpu, sizeof cpu);
    for (char* c = cpu; *c; ++c) {
        *c = *c == ',' ? ';' : *c;
    }
    const char* commit = getenv("TCH_COMMIT");
    snprintf(prefix, sizeof prefix, "%s,%s,%s", date, commit ? commit : TCH_GIT_COMMIT, cpu);
    return prefix;
}

double vb_thread_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

bool vb_times_init(vb_times* t, int capacity) {
    t->us = malloc(sizeof *t->us * (size_t)(capacity > 0 ? capacity : 1));
    t->count = 0;
    t->capacity = t->us ? capacity : 0;
    return t->us != NULL;
}

void vb_times_free(vb_times* t) {
    free(t->us);
    t->us = NULL;
    t->count = t->capacity = 0;
}

void vb_times_add(vb_times* t, double us) {
    if (t->count < t->capacity) {
        t->us[t->count++] = us;
    }
}

tch_status vb_timed_step(const tch_model* m, tch_data* d, vb_times* t, tch_error* err) {
    double c0 = vb_thread_seconds();
    tch_status status = tch_step(m, d, err);
    vb_times_add(t, (vb_thread_seconds() - c0) * 1e6);
    return status;
}

double vb_times_mean(const vb_times* t) {
    double sum = 0;
    for (int i = 0; i < t->count; ++i) {
        sum += t->us[i];
    }
    return t->count ? sum / t->count : NAN;
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

double vb_times_quantile(vb_times* t, double q) {
    if (t->count == 0) {
        return NAN;
    }
    qsort(t->us, (size_t)t->count, sizeof *t->us, compare_doubles);
    int rank = (int)ceil(q * t->count) - 1;
    return t->us[rank < 0 ? 0 : rank];
}

double vb_times_max(const vb_times* t) {
    double m = 0;
    for (int i = 0; i < t->count; ++i) {
        m = fmax(m, t->us[i]);
    }
    return m;
}

tch_spec* vb_spec(double g, double dt, tch_contact_model model, double k, double b, double mu) {
    tch_spec* spec = tch_spec_create();
    if (!spec) {
        return NULL;
    }
    tch_option_def opt = tch_option_def_default();
    opt.timestep = dt;
    opt.gravity = (tch_vec3){0, 0, -g};
    opt.integrator = TCH_INTEGRATOR_SEMI_IMPLICIT_EULER;
    opt.contact.model = model;
    opt.contact.stiffness = k;
    opt.contact.damping = b;
    opt.contact.friction = mu;
    tch_spec_set_option(spec, &opt, NULL);
    return spec;
}

void vb_add_floor(tch_spec* spec, double mu) {
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_PLANE;
    g.contact.friction = mu;
    snprintf(g.name, sizeof g.name, "floor");
    tch_spec_add_geom(spec, TCH_WORLD_BODY, &g, NULL, NULL);
}

tch_body_id vb_add_body(tch_spec* spec, const char* name, tch_vec3 p_WB, tch_quat q_WB) {
    tch_body_def b = tch_body_def_default();
    snprintf(b.name, sizeof b.name, "%s", name);
    b.free_joint = true;
    b.p_PB = p_WB;
    b.q_PB = q_WB;
    tch_body_id id = {0};
    tch_spec_add_body(spec, &b, &id, NULL);
    return id;
}

void vb_add_box(tch_spec* spec, tch_body_id body, tch_vec3 half, tch_vec3 p_BG, double m) {
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_BOX;
    g.size[0] = half.x, g.size[1] = half.y, g.size[2] = half.z;
    g.p_BG = p_BG;
    g.mass = m;
    tch_spec_add_geom(spec, body, &g, NULL, NULL);
}

void vb_add_block_stack(tch_spec* spec, int n, double k, double g) {
    double z = -1;
    for (int j = 1; j <= n; ++j) {
        z += 2 - (n - j + 1) * g / k;
        char name[16];
        snprintf(name, sizeof name, "block%d", j);
        tch_body_id b =
            vb_add_body(spec, name, (tch_vec3){j == n ? 1e-6 : 0, 0, z}, tch_q_identity());
        vb_add_box(spec, b, (tch_vec3){0.5, 0.5, 1}, tch_v3_zero(), 1);
    }
}

bool vb_block_stack_stands(const tch_data* d, int n, double top_z) {
    for (int b = 1; b <= n; ++b) {
        if (tch_q_rotate(d->body_X_WB[b].q, (tch_vec3){0, 0, 1}).z < cos(0.2)) {
            return false;
        }
    }
    return d->body_p_WCm[n].z > 0.95 * top_z;
}

int vb_run_end(vb_times* times, tch_data* d, tch_model* m) {
    fflush(stdout);
    vb_times_free(times);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}

tch_model* vb_compile(tch_spec* spec) {
    tch_model* model = NULL;
    tch_error err = {0};
    if (!spec || tch_compile(spec, &model, &err) != TCH_OK) {
        fprintf(stderr, "compile failed: %s\n", spec ? err.message : "out of memory");
        model = NULL;
    }
    tch_spec_destroy(spec);
    return model;
}

tch_data* vb_data(const tch_model* model) {
    tch_data* d = NULL;
    tch_error err = {0};
    if (tch_data_create(model, &d, &err) != TCH_OK) {
        fprintf(stderr, "data: %s\n", err.message);
        return NULL;
    }
    return d;
}

bool vb_body_at_rest(const tch_data* d, int b, double speed) {
    return tch_v3_norm(d->body_v_WCm[b]) < speed && tch_v3_norm(d->body_w_W[b]) < speed;
}

int vb_parse_args(int argc, char** argv, double* seconds, const char* series_header,
                  FILE** series) {
    *series = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--series") == 0 && i + 1 < argc) {
            *series = fopen(argv[++i], "w");
            if (!*series) {
                perror(argv[i]);
                return 2;
            }
            fprintf(*series, "%s\n", series_header);
        } else {
            *seconds = atof(argv[i]);
        }
    }
    return 0;
}
