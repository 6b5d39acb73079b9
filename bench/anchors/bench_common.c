#include "bench_common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "math/vec.h"

static const double standing_height_tolerance = 0.05; /* relative to the initial COM height */
static const double standing_tilt_limit = 0.2;        /* rad */
static const double rest_speed_limit = 1e-3;          /* m/s and rad/s */

static void print_usage(const char* program) {
    fprintf(stderr,
            "usage: %s SCENE.xml (--steps N | --duration S) [--name NAME] [--lz FILE.csv]\n"
            "          [--loader touche|mujoco] [--contact MODEL] [--header]\n"
            "       %s --csv-header\n"
            "Steps the scene N times at its own timestep and prints one CSV line:\n%s\n",
            program, program, bench_csv_header());
}

/* "dir/stack13.xml" -> "stack13" (into `out`). */
static const char* scene_name_of(const char* path, char* out, size_t size) {
    const char* slash = strrchr(path, '/');
    snprintf(out, size, "%s", slash ? slash + 1 : path);
    char* dot = strrchr(out, '.');
    if (dot && dot != out) {
        *dot = '\0';
    }
    return out;
}

bool bench_parse_args(int argc, char** argv, const char* program, bench_options* out) {
    *out = (bench_options){.loader = "touche"};
    for (int i = 1; i < argc; ++i) {
        const char* arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--csv-header") == 0) {
            printf("%s\n", bench_csv_header());
            exit(0);
        }
        if (strcmp(arg, "--header") == 0) {
            out->header = true;
            continue;
        }
        if (arg[0] != '-') {
            out->scene_path = arg;
            continue;
        }
        if (!value) {
            print_usage(program);
            return false;
        }
        ++i;
        if (strcmp(arg, "--steps") == 0) {
            out->steps = atoi(value);
        } else if (strcmp(arg, "--duration") == 0) {
            out->duration = atof(value);
        } else if (strcmp(arg, "--name") == 0) {
            out->scene_name = value;
        } else if (strcmp(arg, "--lz") == 0) {
            out->lz_path = value;
        } else if (strcmp(arg, "--loader") == 0) {
            out->loader = value;
        } else if (strcmp(arg, "--contact") == 0) {
            out->contact = value;
        } else {
            print_usage(program);
            return false;
        }
    }
    bool loader_known = strcmp(out->loader, "touche") == 0 || strcmp(out->loader, "mujoco") == 0;
    if (!out->scene_path || (out->steps <= 0 && !(out->duration > 0)) || !loader_known) {
        print_usage(program);
        return false;
    }
    if (!out->scene_name) {
        out->scene_name = scene_name_of(out->scene_path, out->name_storage,
                                        sizeof out->name_storage);
    }
    return true;
}

bool bench_run_begin(bench_run* run, const bench_options* options, double dt, int body_count) {
    *run = (bench_run){.options = *options, .dt = dt, .body_count = body_count};
    run->steps = options->steps > 0 ? options->steps : (int)ceil(options->duration / dt - 1e-9);
    snprintf(run->status, sizeof run->status, "ok");
    run->step_us = calloc((size_t)run->steps, sizeof *run->step_us);
    run->initial = calloc((size_t)body_count + 1, sizeof *run->initial);
    run->current = calloc((size_t)body_count + 1, sizeof *run->current);
    if (!run->step_us || !run->initial || !run->current) {
        fprintf(stderr, "bench: out of memory for %d steps\n", run->steps);
        return false;
    }
    if (options->lz_path) {
        run->lz_file = fopen(options->lz_path, "w");
        if (!run->lz_file) {
            fprintf(stderr, "bench: cannot write %s\n", options->lz_path);
            return false;
        }
        fprintf(run->lz_file, "time,Lz\n");
    }
    return true;
}

/* Kinetic plus gravitational potential energy of the free bodies: sum of m v.v / 2 + w.L / 2
 * - m g.p_WCm (L about the centre of mass). */
static double mechanical_energy(const bench_body_state* states, int count, tch_vec3 gravity) {
    double energy = 0;
    for (int i = 0; i < count; ++i) {
        const bench_body_state* s = &states[i];
        energy += 0.5 * s->mass * tch_v3_dot(s->v_WCm, s->v_WCm) +
                  0.5 * tch_v3_dot(s->w_W, s->L_Cm_W) - s->mass * tch_v3_dot(gravity, s->p_WCm);
    }
    return energy;
}

void bench_run_set_initial(bench_run* run, tch_vec3 gravity) {
    memcpy(run->initial, run->current, (size_t)run->body_count * sizeof *run->initial);
    run->gravity = gravity;
    run->initial_energy = mechanical_energy(run->initial, run->body_count, gravity);
}

long long bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void bench_record_step(bench_run* run, int i, long long t0_ns, long long t1_ns) {
    run->step_us[i] = (double)(t1_ns - t0_ns) * 1e-3;
    run->steps_done = i + 1;
}

void bench_note_penetration(bench_run* run, double depth) {
    if (depth > run->max_penetration) {
        run->max_penetration = depth;
    }
}

/* Angular momentum about the world origin: sum over bodies of L_Cm + m p_WCm x v_WCm. */
static tch_vec3 total_angular_momentum(const bench_body_state* states, int count) {
    tch_vec3 L = tch_v3_zero();
    for (int i = 0; i < count; ++i) {
        const bench_body_state* s = &states[i];
        L = tch_v3_add(L, s->L_Cm_W);
        L = tch_v3_madd(L, s->mass, tch_v3_cross(s->p_WCm, s->v_WCm));
    }
    return L;
}

void bench_record_momentum(const bench_run* run, double time) {
    if (run->lz_file) {
        tch_vec3 L = total_angular_momentum(run->current, run->body_count);
        fprintf(run->lz_file, "%.6f,%.9g\n", time, L.z);
    }
}

bool bench_state_finite(const bench_run* run) {
    for (int i = 0; i < run->body_count; ++i) {
        const bench_body_state* s = &run->current[i];
        tch_quat q = s->q_WB;
        if (!tch_v3_isfinite(s->p_WCm) || !tch_v3_isfinite(s->v_WCm) ||
            !tch_v3_isfinite(s->w_W) || !isfinite(q.w + q.x + q.y + q.z)) {
            return false;
        }
    }
    return true;
}

/* Rotation angle between two orientations of the same body: 2 acos |q0 . q|. */
static double rotation_between(tch_quat q0, tch_quat q) {
    double d = fabs(q0.w * q.w + q0.x * q.x + q0.y * q.y + q0.z * q.z);
    return 2 * acos(fmin(1.0, d));
}

static int highest_body(const bench_body_state* states, int count) {
    int top = 0;
    for (int i = 1; i < count; ++i) {
        top = states[i].p_WCm.z > states[top].p_WCm.z ? i : top;
    }
    return top;
}

/* A stack stands when no body turned by 0.2 rad or more and its initially highest body is
 * within 5% of its initial height. */
static bool standing(const bench_run* run) {
    for (int i = 0; i < run->body_count; ++i) {
        if (!(rotation_between(run->initial[i].q_WB, run->current[i].q_WB) <
              standing_tilt_limit)) {
            return false;
        }
    }
    int top = highest_body(run->initial, run->body_count);
    double z0 = run->initial[top].p_WCm.z;
    return fabs(run->current[top].p_WCm.z - z0) <= standing_height_tolerance * fabs(z0);
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values: the ceil(p n)-th smallest. */
static double percentile(const double* sorted, int n, double p) {
    int rank = (int)ceil(p * n);
    return sorted[rank < 1 ? 0 : rank - 1];
}

const char* bench_csv_header(void) {
    return "engine,scene,bodies,steps,dt,mean_us,p50_us,p99_us,max_us,steps_per_s,"
           "standing,top_z_ratio,at_rest,max_v,max_w,max_pen_m,energy_change_J,status,settings";
}

static void print_timing(const bench_run* run) {
    int n = run->steps_done;
    if (n == 0) {
        printf(",,,,");
        return;
    }
    double* sorted = malloc((size_t)n * sizeof *sorted);
    double total = 0;
    for (int i = 0; i < n; ++i) {
        total += run->step_us[i];
    }
    if (sorted) {
        memcpy(sorted, run->step_us, (size_t)n * sizeof *sorted);
        qsort(sorted, (size_t)n, sizeof *sorted, compare_doubles);
        printf("%.3f,%.3f,%.3f,%.3f,%.1f", total / n, percentile(sorted, n, 0.5),
               percentile(sorted, n, 0.99), sorted[n - 1], n / (total * 1e-6));
        free(sorted);
    } else {
        printf("%.3f,,,,%.1f", total / n, n / (total * 1e-6));
    }
}

static void print_outcome(const bench_run* run) {
    int rest_count = 0;
    double max_v = 0, max_w = 0;
    for (int i = 0; i < run->body_count; ++i) {
        const bench_body_state* s = &run->current[i];
        double v = tch_v3_norm(s->v_WCm), w = tch_v3_norm(s->w_W);
        rest_count += v < rest_speed_limit && w < rest_speed_limit;
        max_v = fmax(max_v, v);
        max_w = fmax(max_w, w);
    }
    int top = highest_body(run->initial, run->body_count);
    double top_z_ratio = run->body_count ? run->current[top].p_WCm.z / run->initial[top].p_WCm.z : 1;
    double energy_change =
        mechanical_energy(run->current, run->body_count, run->gravity) - run->initial_energy;
    printf("%d,%.4f,%d,%.3g,%.3g,%.4g,%.6g", standing(run), top_z_ratio, rest_count, max_v,
           max_w, run->max_penetration, energy_change);
}

static void print_text_field(const char* text) {
    for (const char* c = text; *c; ++c) {
        putchar(*c == ',' || *c == '\n' ? ';' : *c);
    }
}

static void print_header_once(const bench_options* options) {
    if (options->header) {
        printf("%s\n", bench_csv_header());
    }
}

void bench_run_finish(bench_run* run, const char* engine, const char* settings) {
    print_header_once(&run->options);
    printf("%s,%s,%d,%d,%g,", engine, run->options.scene_name, run->body_count, run->steps_done,
           run->dt);
    print_timing(run);
    putchar(',');
    print_outcome(run);
    putchar(',');
    print_text_field(run->status);
    putchar(',');
    print_text_field(settings);
    putchar('\n');
    fflush(stdout);
    if (run->lz_file) {
        fclose(run->lz_file);
    }
    free(run->step_us);
    free(run->initial);
    free(run->current);
    *run = (bench_run){0};
}

void bench_report_failure(const bench_options* options, const char* engine, const char* why) {
    print_header_once(options);
    printf("%s,%s,,,,,,,,,,,,,,,,", engine, options->scene_name);
    print_text_field(why);
    printf(",\n");
    fflush(stdout);
}
