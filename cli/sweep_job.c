/* touche sweep: one job, its settings, id, run and row (sweep.h). */
#define _GNU_SOURCE /* prctl's PR_SET_PDEATHSIG: a job dies with its sweep */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep.h"

/* ---- settings and id ---- */

/* SplitMix64 (Steele, Lea and Flood 2014): a counter-based generator, so that job i's draws
 * depend on the seed and i only, not on which process runs it or in what order. */
static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A uniform draw in (0, 1) with 53 random bits. */
static double unit_draw(uint64_t* state) {
    return ((double)(splitmix64(state) >> 11) + 0.5) * 0x1.0p-53;
}

static double draw(const sweep_param* p, uint64_t seed, long job, int param) {
    uint64_t state = seed ^ (0xD1B54A32D192ED03ULL * (uint64_t)(job + 1));
    state ^= 0x8CB92BA72F3D8DD7ULL * (uint64_t)(param + 1);
    splitmix64(&state);
    double u = unit_draw(&state);
    switch (p->source) {
    case SWEEP_UNIFORM: return p->a + (p->b - p->a) * u;
    case SWEEP_LOGUNIFORM: return p->a * pow(p->b / p->a, u);
    default: { /* normal, by Box and Muller's transform */
        double v = unit_draw(&state);
        return p->a + p->b * sqrt(-2.0 * log(u)) * cos(2.0 * 3.14159265358979323846 * v);
    }
    }
}

void sweep_job_settings(const sweep_plan* plan, long index, sweep_setting* settings) {
    long grid = index / plan->samples;
    /* the grid's last list parameter varies fastest */
    for (int i = plan->param_count - 1; i >= 0; --i) {
        const sweep_param* p = &plan->params[i];
        if (p->source <= SWEEP_GRID) {
            settings[i] = p->values[grid % p->count];
            grid /= p->count;
        } else {
            settings[i] = (sweep_setting){.width = 1};
            settings[i].x[0] = draw(p, plan->seed, index, i);
        }
    }
}

/* A setting as text: the text, or the numbers with round-trip precision, space-separated. */
static void setting_text(const sweep_setting* s, char* out, size_t size) {
    if (s->width == 0) {
        snprintf(out, size, "%s", s->text);
        return;
    }
    size_t n = 0;
    for (int i = 0; i < s->width && n < size; ++i) {
        n += (size_t)snprintf(out + n, size - n, "%s%.17g", i ? " " : "", s->x[i]);
    }
}

/* FNV-1a, 64 bits. */
static uint64_t hash_text(uint64_t h, const char* s) {
    for (; *s; ++s) {
        h ^= (unsigned char)*s;
        h *= 0x100000001B3ULL;
    }
    return h;
}

void sweep_job_id(const sweep_plan* plan, const sweep_setting* settings, char id[17]) {
    char text[256];
    uint64_t h = hash_text(0xCBF29CE484222325ULL, "touche sweep 1\nscene=");
    h = hash_text(h, plan->scene);
    for (int k = SWEEP_TARGET_KEY; k <= SWEEP_TARGET_DURATION; ++k) {
        if (plan->run[k].width < 0) continue;
        setting_text(&plan->run[k], text, sizeof text);
        snprintf(text + strlen(text), sizeof text - strlen(text), "\nrun%d=", k);
        h = hash_text(h, text);
    }
    for (int i = 0; i < plan->param_count; ++i) {
        h = hash_text(hash_text(hash_text(h, "\n"), plan->params[i].target), "=");
        setting_text(&settings[i], text, sizeof text);
        h = hash_text(h, text);
    }
    for (int i = 0; i < plan->metric_count; ++i) {
        const cli_metric_def* m = &plan->metrics[i];
        snprintf(text, sizeof text, "\nmetric=%s:%s:%.17g:%.17g", cli_metric_kind_name(m->kind),
                 m->body, m->rest_speed, m->rest_spin);
        h = hash_text(h, text);
    }
    for (int g = 0; g < plan->gradient_count; ++g) {
        snprintf(text, sizeof text, "\ngradient=%d:%.17g:%d", plan->gradient_params[g],
                 plan->gradient_eps, plan->gradient_centered);
        h = hash_text(h, text);
    }
    snprintf(id, 17, "%016llx", (unsigned long long)h);
}

/* ---- running ---- */

/* The options of `touche run` a job amounts to; set texts go into sets[CLI_MAX_SETS][288]. */
static int job_options(const sweep_plan* plan, const sweep_setting* settings, cli_options* o,
                       char (*sets)[288]) {
    memset(o, 0, sizeof *o);
    o->scene = plan->scene_path;
    o->threads = plan->threads > 1 ? plan->threads : 0;
    o->contact_energy = 1;
    const sweep_setting* run[6];
    for (int k = 0; k < 6; ++k) run[k] = plan->run[k].width >= 0 ? &plan->run[k] : NULL;
    for (int i = 0; i < plan->param_count; ++i) {
        const sweep_param* p = &plan->params[i];
        if (p->kind >= SWEEP_TARGET_KEY && p->kind <= SWEEP_TARGET_DURATION) run[p->kind] = &settings[i];
        if (p->kind != SWEEP_TARGET_SET) continue;
        if (o->set_count == CLI_MAX_SETS) {
            fprintf(stderr, "touche: more than %d --set parameters\n", CLI_MAX_SETS);
            return 0;
        }
        char value[128];
        setting_text(&settings[i], value, sizeof value);
        snprintf(sets[o->set_count], 288, "%s=%s", p->target, value);
        o->sets[o->set_count] = sets[o->set_count];
        o->set_count++;
    }
    o->key = run[SWEEP_TARGET_KEY] ? run[SWEEP_TARGET_KEY]->text : NULL;
    o->contact = run[SWEEP_TARGET_CONTACT] ? run[SWEEP_TARGET_CONTACT]->text : NULL;
    o->integrator = run[SWEEP_TARGET_INTEGRATOR] ? run[SWEEP_TARGET_INTEGRATOR]->text : NULL;
    o->dt = run[SWEEP_TARGET_DT] ? run[SWEEP_TARGET_DT]->x[0] : 0;
    o->duration = run[SWEEP_TARGET_DURATION] ? run[SWEEP_TARGET_DURATION]->x[0] : 1.0;
    if ((run[SWEEP_TARGET_DT] && !(o->dt > 0)) || !(o->duration > 0)) {
        fprintf(stderr, "touche: dt and duration must be positive\n");
        return 0;
    }
    return 1;
}

/* What the spec hook of a job's session needs. */
typedef struct job_context {
    const sweep_plan* plan;
    const sweep_setting* settings;
} job_context;

/* The option: settings, applied to the spec before it compiles (as --set is); returns 0
 * after printing why a value was refused. */
static int apply_options(tch_spec* spec, const void* user) {
    const job_context* job = user;
    const sweep_plan* plan = job->plan;
    tch_option_def opt = *tch_spec_option(spec);
    for (int i = 0; i < plan->param_count; ++i) {
        const sweep_param* p = &plan->params[i];
        const double* x = job->settings[i].x;
        if (p->kind != SWEEP_TARGET_OPTION) continue;
        switch (p->option) {
        case SWEEP_OPTION_GRAVITY: {
            tch_real* g[3] = {&opt.gravity.x, &opt.gravity.y, &opt.gravity.z};
            for (int c = 0; c < 3; ++c) {
                if (p->component < 0 || p->component == c) *g[c] = x[p->component < 0 ? c : 0];
            }
            break;
        }
        case SWEEP_OPTION_ITERATIONS:
            if (!(x[0] >= 1 && x[0] <= 1e9 && x[0] == floor(x[0]))) {
                fprintf(stderr, "touche: %s must be a whole number from 1, got %.17g\n", p->target, x[0]);
                return 0;
            }
            opt.lcp_iterations = (int)x[0];
            break;
        case SWEEP_OPTION_TOLERANCE: opt.lcp_tolerance = x[0]; break;
        case SWEEP_OPTION_RTOL: opt.adaptive_rtol = x[0]; break;
        case SWEEP_OPTION_ATOL: opt.adaptive_atol = x[0]; break;
        }
    }
    tch_error err = {0};
    if (tch_spec_set_option(spec, &opt, &err) != TCH_OK) {
        fprintf(stderr, "touche: %s\n", err.message);
        return 0;
    }
    return 1;
}

/* The initial-state settings, applied to the data after the keyframe. */
static int apply_body_states(const sweep_plan* plan, const sweep_setting* settings,
                             const tch_model* m, tch_data* d) {
    for (int i = 0; i < plan->param_count; ++i) {
        const sweep_param* p = &plan->params[i];
        if (p->kind != SWEEP_TARGET_BODY) continue;
        int b = tch_model_body_index(m, p->body);
        if (b <= 0) {
            fprintf(stderr, "touche: %s: the scene has no body '%s'\n", p->target, p->body);
            return 0;
        }
        tch_transform X;
        tch_vec3 v, w;
        tch_data_body_state(m, d, b, &X, &v, &w);
        double* fields[4][4] = {{&X.p.x, &X.p.y, &X.p.z, NULL}, {&X.q.w, &X.q.x, &X.q.y, &X.q.z},
                                {&v.x, &v.y, &v.z, NULL}, {&w.x, &w.y, &w.z, NULL}};
        for (int c = 0; c < 4 && fields[p->field][c]; ++c) {
            if (p->component < 0 || p->component == c) {
                *fields[p->field][c] = settings[i].x[p->component < 0 ? c : 0];
            }
        }
        tch_error err = {0};
        if (tch_data_set_body_state(m, d, b, &X, v, w, &err) != TCH_OK) {
            fprintf(stderr, "touche: %s: %s\n", p->target, err.message);
            return 0;
        }
    }
    return 1;
}

/* Steps the run, measuring; returns an exit code (errors printed). */
static int simulate(const sweep_plan* plan, const cli_options* o, const tch_model* m, tch_data* d,
                    double* values) {
    cli_metrics ms;
    char why[256];
    if (!cli_metrics_begin(&ms, plan->metrics, plan->metric_count, m, d, why, sizeof why)) {
        fprintf(stderr, "touche: %s\n", why);
        return EXIT_BAD_INPUT;
    }
    long steps = (long)ceil(o->duration / m->timestep - 1e-9);
    tch_error err = {0};
    int code = EXIT_OK;
    for (long s = 0; s < steps && code == EXIT_OK; ++s) {
        tch_status status = tch_step(m, d, &err);
        if (status != TCH_OK) {
            cli_print_error(status == TCH_ERR_DIVERGED ? "the simulation diverged"
                                                       : "the simulation failed", &err);
            code = status == TCH_ERR_DIVERGED ? EXIT_DIVERGED : EXIT_FAILURE_GENERIC;
        } else {
            cli_metrics_observe(&ms, m, d);
        }
    }
    if (code == EXIT_OK) cli_metrics_finish(&ms, m, d, values);
    cli_metrics_free(&ms);
    return code;
}

/* Loads, changes, compiles and runs the job's scene; returns an exit code. */
static int run_job(const sweep_plan* plan, const sweep_setting* settings, double* values) {
    cli_options o;
    char sets[CLI_MAX_SETS][288];
    if (!job_options(plan, settings, &o, sets)) return EXIT_BAD_INPUT;
    job_context job = {plan, settings};
    o.spec_hook = apply_options;
    o.spec_hook_user = &job;
    cli_session session;
    int code = cli_open_session(&o, 1, &session);
    if (code != EXIT_OK) return code;
    if (!apply_body_states(plan, settings, session.model, session.data)) {
        code = EXIT_BAD_INPUT;
    } else {
        code = simulate(plan, &o, session.model, session.data, values);
    }
    cli_close_session(&session);
    return code;
}

/* The gradient's columns (docs/sweeps.md, "Gradients"): for each named parameter, the job run
 * again with it moved by +h (and -h, centred), h = eps max(|x|, 1), and each metric
 * differenced. A moved run that fails fails the job, saying which. */
static int run_gradient(const sweep_plan* plan, const sweep_setting* settings, double* values) {
    int n = plan->metric_column_count;
    sweep_setting* moved = malloc(((size_t)plan->param_count + 1) * sizeof *moved);
    double* plus = calloc((size_t)n + 1, sizeof *plus);
    double* minus = calloc((size_t)n + 1, sizeof *minus);
    int code = moved && plus && minus ? EXIT_OK : EXIT_FAILURE_GENERIC;
    for (int g = 0; g < plan->gradient_count && code == EXIT_OK; ++g) {
        int i = plan->gradient_params[g];
        double x = settings[i].x[0], h = plan->gradient_eps * fmax(fabs(x), 1);
        double hi = x + h, lo = plan->gradient_centered ? x - h : x;
        memcpy(moved, settings, (size_t)plan->param_count * sizeof *moved);
        moved[i].x[0] = hi;
        code = run_job(plan, moved, plus);
        if (code == EXIT_OK && plan->gradient_centered) {
            moved[i].x[0] = lo;
            code = run_job(plan, moved, minus);
        } else if (code == EXIT_OK) {
            memcpy(minus, values, (size_t)n * sizeof *minus);
        }
        if (code != EXIT_OK) {
            fprintf(stderr, "touche: the gradient's run at %s = %.17g failed\n", plan->params[i].name,
                    moved[i].x[0]);
        }
        for (int c = 0; c < n && code == EXIT_OK; ++c) {
            values[n * (1 + g) + c] = (plus[c] - minus[c]) / (hi - lo);
        }
    }
    free(moved);
    free(plus);
    free(minus);
    return code;
}

/* ---- rows ---- */

static void csv_field(FILE* f, const char* s) {
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"') fputc('"', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
    fputc('"', f);
}

static void json_number(FILE* f, double x) {
    if (isfinite(x)) fprintf(f, "%.17g", x); else fputs("null", f);
}

static void json_setting(FILE* f, const sweep_setting* s) {
    if (s->width == 0) {
        cli_json_string(f, s->text);
        return;
    }
    if (s->width > 1) fputc('[', f);
    for (int i = 0; i < s->width; ++i) {
        if (i) fputc(',', f);
        json_number(f, s->x[i]);
    }
    if (s->width > 1) fputc(']', f);
}

/* The two lines of a row into `path` (a temporary file renamed into place). */
static int write_row(const sweep_plan* plan, long index, const char* path, const char* status,
                     const char* error, const double* values) {
    sweep_setting* settings = calloc((size_t)plan->param_count + 1, sizeof *settings);
    char temp[1100], id[17], text[256];
    snprintf(temp, sizeof temp, "%s.tmp%ld", path, (long)getpid());
    FILE* f = settings ? fopen(temp, "w") : NULL;
    if (!f) {
        free(settings);
        return 0;
    }
    sweep_job_settings(plan, index, settings);
    sweep_job_id(plan, settings, id);
    fprintf(f, "%s,%s,", id, status);
    csv_field(f, error ? error : "");
    for (int i = 0; i < plan->param_count; ++i) {
        setting_text(&settings[i], text, sizeof text);
        fputc(',', f);
        csv_field(f, text);
    }
    for (int c = 0; c < plan->column_count; ++c) {
        if (values && isfinite(values[c])) fprintf(f, ",%.17g", values[c]); else fputc(',', f);
    }
    fprintf(f, "\n\"id\":\"%s\",\"status\":\"%s\",\"error\":", id, status);
    if (error) cli_json_string(f, error); else fputs("null", f);
    fputs(",\"params\":{", f);
    for (int i = 0; i < plan->param_count; ++i) {
        if (i) fputc(',', f);
        cli_json_string(f, plan->params[i].name);
        fputc(':', f);
        json_setting(f, &settings[i]);
    }
    fputs("},\"metrics\":{", f);
    for (int c = 0; c < plan->column_count; ++c) {
        if (c) fputc(',', f);
        cli_json_string(f, plan->columns[c]);
        fputc(':', f);
        json_number(f, values ? values[c] : NAN);
    }
    fputs("}}\n", f);
    free(settings);
    int ok = !ferror(f);
    ok &= fclose(f) == 0;
    ok = ok && rename(temp, path) == 0;
    if (!ok) remove(temp);
    return ok;
}

int sweep_job_write_failure(const sweep_plan* plan, long index, const char* path,
                            const char* status, const char* error) {
    return write_row(plan, index, path, status, error, NULL);
}

/* The error a failed job printed: the last line of the log that starts with "touche" and is
 * not a warning or a note, without the "touche: " prefix. */
static void read_error(const char* log, char* out, size_t size) {
    snprintf(out, size, "the job failed without a message");
    FILE* f = fopen(log, "r");
    char line[1024];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "touche", 6) != 0 || strstr(line, ": warning: ") || strstr(line, ": note: ")) continue;
        line[strcspn(line, "\n")] = '\0';
        const char* text = line;
        if (strncmp(text, "touche: ", 8) == 0) text += 8;
        snprintf(out, size, "%s", text);
    }
    if (f) fclose(f);
}

static const char* status_name(int code) {
    return code == EXIT_OK ? "ok" : code == EXIT_DIVERGED ? "diverged" : "failed";
}

int sweep_job_execute(const sweep_plan* plan, long index, const char* path, const char* error_log) {
    sweep_setting* settings = calloc((size_t)plan->param_count + 1, sizeof *settings);
    double* values = calloc((size_t)plan->column_count + 1, sizeof *values);
    int code = EXIT_FAILURE_GENERIC;
    if (settings && values) {
        sweep_job_settings(plan, index, settings);
        code = run_job(plan, settings, values);
        if (code == EXIT_OK && plan->gradient_count > 0) code = run_gradient(plan, settings, values);
    }
    fflush(stderr);
    char error[1024];
    if (code != EXIT_OK) read_error(error_log, error, sizeof error);
    int ok = write_row(plan, index, path, status_name(code), code == EXIT_OK ? NULL : error,
                       code == EXIT_OK ? values : NULL);
    free(settings);
    free(values);
    return ok;
}

/* ---- isolation: one child process per job ---- */

static void log_path(const char* path, char* out, size_t size) {
    snprintf(out, size, "%s.log", path);
}

long sweep_job_start(const sweep_plan* plan, long index, const char* path) {
    char log[1100];
    log_path(path, log, sizeof log);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* a killed sweep leaves no job running */
#endif
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        _exit(sweep_job_execute(plan, index, path, log) ? 0 : 1);
    }
    if (pid < 0) {
        char why[256];
        snprintf(why, sizeof why, "cannot start a process for the job: %s", strerror(errno));
        sweep_job_write_failure(plan, index, path, "failed", why);
        return -1;
    }
    return (long)pid;
}

void sweep_job_finish(const sweep_plan* plan, long index, const char* path, int status) {
    char log[1100];
    log_path(path, log, sizeof log);
    if (access(path, F_OK) != 0) {
        char why[1400], last[1024];
        read_error(log, last, sizeof last);
        if (WIFSIGNALED(status)) {
            snprintf(why, sizeof why, "the job's process was killed by signal %d (%s); %s",
                     WTERMSIG(status), strsignal(WTERMSIG(status)), last);
        } else {
            snprintf(why, sizeof why, "the job's process exited with status %d; %s",
                     WEXITSTATUS(status), last);
        }
        sweep_job_write_failure(plan, index, path, "crashed", why);
    }
    remove(log);
}

int sweep_job_run_isolated(const sweep_plan* plan, long index, const char* path) {
    long pid = sweep_job_start(plan, index, path);
    int status = 0;
    if (pid > 0) {
        while (waitpid((pid_t)pid, &status, 0) < 0 && errno == EINTR) {
        }
        sweep_job_finish(plan, index, path, status);
    }
    return access(path, F_OK) == 0;
}

int sweep_row_read(const char* path, sweep_row* row) {
    *row = (sweep_row){NULL, NULL};
    FILE* f = fopen(path, "r");
    if (!f) return 0;
    size_t cap = 0;
    ssize_t a = getline(&row->csv, &cap, f);
    cap = 0;
    ssize_t b = a > 0 ? getline(&row->json, &cap, f) : -1;
    fclose(f);
    if (a <= 1 || b <= 1 || row->csv[a - 1] != '\n' || row->json[b - 1] != '\n') {
        sweep_row_free(row);
        return 0;
    }
    return 1;
}

void sweep_row_free(sweep_row* row) {
    free(row->csv);
    free(row->json);
    *row = (sweep_row){NULL, NULL};
}

void sweep_row_path(const sweep_plan* plan, const char* dir, long index, char* path, size_t size) {
    sweep_setting* settings = calloc((size_t)plan->param_count + 1, sizeof *settings);
    char id[17] = "0000000000000000";
    if (settings) {
        sweep_job_settings(plan, index, settings);
        sweep_job_id(plan, settings, id);
    }
    free(settings);
    snprintf(path, size, "%s/rows/%s.row", dir, id);
}
