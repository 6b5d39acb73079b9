/* touche fit SCENE --data DIR --params LIST: contact parameters fitted to recorded trajectories
 * (docs/fit.md). Each evaluation sets the parameters through --set's path (cli/overrides.c),
 * compiles the scene, and simulates the calibration recordings from their estimated initial
 * states; the search (cli/fit_search.c) minimizes their mean robust loss; the held-out recordings
 * measure the result. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fit.h"

/* A parameter's default box: searched linearly, or in log space for the ones that span
 * decades (all positive there). */
typedef struct param_range {
    const char* name;
    double lo, hi;
    int log_scale;
} param_range;

static const param_range RANGES[] = {
    {"friction", 0, 2, 0},           {"static_friction", 0, 2, 0},
    {"restitution", 0, 1, 0},        {"stabilization", 0, 1, 0},
    {"exponent", 1, 3, 0},           {"margin", 0, 0.01, 0},
    {"stiffness", 1e2, 1e10, 1},     {"damping", 1e-2, 1e6, 1},
    {"dissipation", 1e-3, 1e2, 1},   {"tangential_stiffness", 1e2, 1e10, 1},
    {"tangential_damping", 1e-2, 1e6, 1}, {"modulus", 1e4, 1e11, 1},
    {"stiction_velocity", 1e-5, 1, 1},
};
enum { RANGE_COUNT = sizeof RANGES / sizeof RANGES[0] };

/* Everything an evaluation needs. */
typedef struct fit_problem {
    const cli_options* options;
    tch_spec* spec;
    fit_param params[FIT_MAX_PARAMS];
    int param_count;
    fit_recording* recordings;
    int recording_count;
    fit_recording** calibration;
    int calibration_count;
    fit_recording** held_out;
    int held_out_count;
    int threads;
    fit_errors* errors;      /* [recording_count] scratch */
    int compile_failures;
} fit_problem;

static double to_value(const fit_param* p, double x) {
    return p->log_scale ? exp(log(p->lo) + x * (log(p->hi) - log(p->lo))) : p->lo + x * (p->hi - p->lo);
}

static int bad_param(const char* item, const char* why) {
    fprintf(stderr, "touche fit: --params '%s': %s (docs/fit.md)\n", item, why);
    return 0;
}

/* TARGET or TARGET=LO:HI into p. */
static int parse_param(const char* item, fit_param* p) {
    const char* eq = strchr(item, '=');
    size_t n = eq ? (size_t)(eq - item) : strlen(item);
    if (n == 0 || n >= sizeof p->target) return bad_param(item, "expected TARGET[=LO:HI]");
    snprintf(p->target, sizeof p->target, "%.*s", (int)n, item);
    const char* dot = strrchr(p->target, '.');
    snprintf(p->name, sizeof p->name, "%s", strchr(p->target, ':') && dot ? dot + 1 : p->target);
    const param_range* range = NULL;
    for (int i = 0; i < RANGE_COUNT; ++i) {
        if (strcmp(RANGES[i].name, p->name) == 0) range = &RANGES[i];
    }
    if (range) p->lo = range->lo, p->hi = range->hi, p->log_scale = range->log_scale;
    if (eq) {
        char* end = NULL;
        p->lo = strtod(eq + 1, &end);
        if (*end != ':') return bad_param(item, "expected LO:HI after '='");
        const char* hi = end + 1;
        p->hi = strtod(hi, &end);
        if (end == hi || *end || !isfinite(p->lo) || !isfinite(p->hi) || !(p->lo < p->hi)) {
            return bad_param(item, "expected LO:HI with LO < HI");
        }
    } else if (!range) {
        return bad_param(item, "no default range for this parameter; give TARGET=LO:HI");
    }
    if (p->log_scale && p->lo <= 0) return bad_param(item, "a log-scaled range needs LO > 0");
    return 1;
}

static int parse_params(const char* list, fit_problem* f) {
    char copy[1024];
    if (!list || !list[0]) return bad_param("", "give the parameters to fit");
    snprintf(copy, sizeof copy, "%s", list);
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        if (f->param_count == FIT_MAX_PARAMS) return bad_param(item, "more than 8 parameters");
        if (!parse_param(item, &f->params[f->param_count++])) return 0;
    }
    return f->param_count > 0 || bad_param(list, "give the parameters to fit");
}

/* Sets the parameters at normalized point x into the spec; `quiet` after the first time. */
static int set_params(fit_problem* f, const double* x, int quiet) {
    for (int k = 0; k < f->param_count; ++k) {
        char set[192];
        f->params[k].value = to_value(&f->params[k], x[k]);
        snprintf(set, sizeof set, "%s=%.17g", f->params[k].target, f->params[k].value);
        if (cli_apply_set(f->spec, set, quiet) != EXIT_OK) return 0;
    }
    return 1;
}

/* The scale of the objective's robust (Cauchy) loss: a recording's loss (its mean squared
 * error, body widths and radians) of 1e-4, an RMS error of 1% of a body width or 0.6 degree,
 * about what motion capture's noise alone gives (0.5 mm on a 10 cm body and 0.5 degree). */
static const double ROBUST_SCALE = 1e-4;

/* The objective at normalized point x: the mean over the recordings of the Cauchy loss
 * log(1 + loss / ROBUST_SCALE) of each one's mean squared error (each recording's errors in
 * f->errors). A recording that the rollouts miss by a lot (a chaotic landing that turns one way
 * or the other on a 0.1 degree error of its start) weighs as the log of its error, not as its
 * square, so the recordings that the parameters do decide set them (Triggs et al., "Bundle
 * adjustment - a modern synthesis", 2000, sec. 3.3, robust cost functions). A scene that does
 * not compile there (a combination the compiler refuses) is a penalty. */
static double evaluate(fit_problem* f, const double* x, fit_recording* const* list, int count) {
    tch_model* model = NULL;
    tch_error err = {0};
    set_params(f, x, 1);
    if (tch_compile(f->spec, &model, &err) != TCH_OK) {
        if (f->compile_failures++ == 0) cli_print_error("note: a trial point does not compile", &err);
        return 1e6;
    }
    fit_simulate_all(model, f->options, list, count, f->threads, f->errors);
    tch_model_destroy(model);
    double sum = 0;
    for (int i = 0; i < count; ++i) sum += log1p(f->errors[i].loss / ROBUST_SCALE);
    return count > 0 ? sum / count : 0;
}

static double calibration_loss(const double* x, void* user) {
    fit_problem* f = user;
    return evaluate(f, x, f->calibration, f->calibration_count);
}

static int by_name(const struct dirent** a, const struct dirent** b) {
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int is_csv(const struct dirent* e) {
    size_t n = strlen(e->d_name);
    return n > 4 && strcmp(e->d_name + n - 4, ".csv") == 0;
}

/* The files DIR/NAME.csv in name order, read and with their initial states estimated. */
static int read_recordings(const char* dir, const tch_model* model, const tch_model* detect,
                           fit_problem* f) {
    struct dirent** names = NULL;
    int n = scandir(dir, &names, is_csv, by_name);
    if (n < 0) {
        fprintf(stderr, "touche fit: cannot read the directory %s: %s\n", dir, strerror(errno));
        return 0;
    }
    f->recordings = calloc(n > 0 ? (size_t)n : 1, sizeof *f->recordings);
    int ok = n > 0 && f->recordings;
    if (n == 0) fprintf(stderr, "touche fit: %s holds no recordings (*.csv)\n", dir);
    for (int i = 0; ok && i < n; ++i) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
        ok = fit_read_recording(path, model, &f->recordings[i]);
        if (ok) f->recording_count++;
        ok = ok && fit_estimate_initial_state(model, detect, &f->recordings[i]);
    }
    for (int i = 0; i < n; ++i) free(names[i]);
    free(names);
    return ok;
}

/* Recording i is held out when the running count floor((i + 1) F) steps up: a fraction F of
 * them, spread evenly over the name order. At least one is kept for calibration. */
static int split(fit_problem* f, double fraction) {
    f->calibration = calloc((size_t)f->recording_count, sizeof *f->calibration);
    f->held_out = calloc((size_t)f->recording_count, sizeof *f->held_out);
    f->errors = calloc((size_t)f->recording_count, sizeof *f->errors);
    if (!f->calibration || !f->held_out || !f->errors) return 0;
    for (int i = 0; i < f->recording_count; ++i) {
        int out = floor((i + 1) * fraction) > floor(i * fraction);
        if (out && f->held_out_count + 1 < f->recording_count) {
            f->held_out[f->held_out_count++] = &f->recordings[i];
        } else {
            f->calibration[f->calibration_count++] = &f->recordings[i];
        }
    }
    return 1;
}

/* ---- the report ---- */

typedef struct summary {
    double position, rotation, final_position, penetration;
    int failed;
} summary;

static summary summarize(const fit_errors* e, int count) {
    summary s = {0};
    for (int i = 0; i < count; ++i) {
        if (e[i].failed) {
            s.failed++;
            continue;
        }
        s.position += e[i].position, s.rotation += e[i].rotation;
        s.final_position += e[i].final_position;
        s.penetration = fmax(s.penetration, e[i].penetration);
    }
    int n = count - s.failed;
    if (n > 0) s.position /= n, s.rotation /= n, s.final_position /= n;
    return s;
}

static void json_summary(FILE* out, const char* name, fit_recording* const* list,
                         const fit_errors* e, int count) {
    summary s = summarize(e, count);
    fprintf(out, ",\"%s\":{\"count\":%d,\"position_widths\":%.6g,\"final_position_widths\":%.6g,"
                 "\"rotation_deg\":%.6g,\"penetration_m\":%.6g,\"failed\":%d,\"recordings\":[",
            name, count, s.position, s.final_position, s.rotation, s.penetration, s.failed);
    for (int i = 0; i < count; ++i) {
        fprintf(out, "%s{\"file\":", i ? "," : "");
        cli_json_string(out, list[i]->path);
        fprintf(out, ",\"position_widths\":%.6g,\"final_position_widths\":%.6g,"
                     "\"rotation_deg\":%.6g,\"penetration_m\":%.6g,\"loss\":%.6g",
                e[i].position, e[i].final_position, e[i].rotation, e[i].penetration, e[i].loss);
        if (e[i].failed) {
            fprintf(out, ",\"failure\":");
            cli_json_string(out, e[i].failure);
        }
        fprintf(out, "}");
    }
    fprintf(out, "]}");
}

static void text_summary(const char* name, const fit_errors* e, int count) {
    if (count == 0) {
        printf("  %-11s none\n", name);
        return;
    }
    summary s = summarize(e, count);
    printf("  %-11s %d recordings: position error %.4g body widths (final %.4g), rotation "
           "error %.3g deg, deepest penetration %.3g mm", name, count, s.position,
           s.final_position, s.rotation, 1e3 * s.penetration);
    if (s.failed) printf(", %d failed", s.failed);
    printf("\n");
}

static void report(const fit_problem* f, const fit_search_result* r, const fit_errors* calib,
                   const fit_errors* held, double wall) {
    const cli_options* o = f->options;
    if (o->json) {
        printf("{\"scene\":");
        cli_json_string(stdout, o->scene);
        printf(",\"contact\":");
        cli_json_string(stdout, o->contact ? o->contact : "scene");
        printf(",\"params\":[");
        for (int k = 0; k < f->param_count; ++k) {
            const fit_param* p = &f->params[k];
            printf("%s{\"target\":", k ? "," : "");
            cli_json_string(stdout, p->target);
            printf(",\"value\":%.10g,\"sweep_value\":%.10g,\"lo\":%.10g,\"hi\":%.10g,\"log\":%s}",
                   p->value, p->sweep_value, p->lo, p->hi, p->log_scale ? "true" : "false");
        }
        printf("],\"loss\":%.6g,\"evaluations\":{\"sweep\":%d,\"local\":%d,\"optimizer\":\"%s\"}",
               r->best, r->sweep_evaluations, r->local_evaluations, r->optimizer);
        json_summary(stdout, "calibration", f->calibration, calib, f->calibration_count);
        json_summary(stdout, "held_out", f->held_out, held, f->held_out_count);
        printf(",\"wall_seconds\":%.4g}\n", wall);
        return;
    }
    printf("touche fit: %s, contact %s, %d recordings (%d calibration, %d held out)\n", o->scene,
           o->contact ? o->contact : "of the scene", f->recording_count, f->calibration_count,
           f->held_out_count);
    for (int k = 0; k < f->param_count; ++k) {
        const fit_param* p = &f->params[k];
        printf("  %-24s %.6g   (sweep %.4g; range %.4g to %.4g%s)\n", p->target, p->value,
               p->sweep_value, p->lo, p->hi, p->log_scale ? ", log" : "");
    }
    printf("  loss %.6g after %d sweep and %d %s evaluations, %.3f s wall\n", r->best,
           r->sweep_evaluations, r->local_evaluations, r->optimizer, wall);
    text_summary("calibration", calib, f->calibration_count);
    text_summary("held out", held, f->held_out_count);
}

/* Fits and reports; the problem is set up. */
static int fit(fit_problem* f, double start) {
    int d = f->param_count;
    int points = f->options->sweep_points > 0 ? f->options->sweep_points
                 : d == 1 ? 9 : d == 2 ? 6 : d == 3 ? 4 : 3;
    int budget = f->options->evaluations > 0 ? f->options->evaluations : 150;
    fit_search_result r;
    const char* why = NULL;
    const char* optimizer = f->options->optimizer ? f->options->optimizer : "neldermead";
    if (!fit_search(optimizer, d, points, budget, calibration_loss, f, &r, &why)) {
        fprintf(stderr, "touche fit: %s\n", why);
        return EXIT_FAILURE_GENERIC;
    }
    set_params(f, r.sweep_x, 1);
    for (int k = 0; k < d; ++k) f->params[k].sweep_value = f->params[k].value;
    fit_errors* calib = calloc((size_t)f->recording_count, sizeof *calib);
    if (!calib) return EXIT_FAILURE_GENERIC;
    evaluate(f, r.x, f->calibration, f->calibration_count);
    memcpy(calib, f->errors, (size_t)f->calibration_count * sizeof *calib);
    evaluate(f, r.x, f->held_out, f->held_out_count); /* sets the values to the result too */
    report(f, &r, calib, f->errors, cli_now_seconds() - start);
    free(calib);
    return EXIT_OK;
}

static int default_threads(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static int read_holdout(const cli_options* o, double* fraction) {
    *fraction = 0.25;
    if (!o->holdout) return 1;
    char* end = NULL;
    *fraction = strtod(o->holdout, &end);
    if (end == o->holdout || *end || !(*fraction >= 0 && *fraction < 1)) {
        fprintf(stderr, "touche fit: --holdout needs a fraction from 0 to below 1, got '%s'\n",
                o->holdout);
        return 0;
    }
    return 1;
}

static void free_problem(fit_problem* f) {
    for (int i = 0; i < f->recording_count; ++i) fit_free_recording(&f->recordings[i]);
    free(f->recordings), free(f->calibration), free(f->held_out), free(f->errors);
}

/* The scene as the point model sees it with a margin of DETECTION_MARGIN: its contacts'
 * negative depths are the gaps the free-flight detection reads (cli/fit_recording.c). */
static int open_detection(const cli_options* options, cli_session* detect) {
    static const char* const DETECTION_MARGIN = "margin=0.25";
    cli_options o = *options;
    o.contact = "point";
    o.integrator = NULL;
    if (o.set_count == CLI_MAX_SETS) o.set_count--;
    o.sets[o.set_count++] = DETECTION_MARGIN;
    return cli_open_session(&o, 0, detect);
}

int cli_cmd_fit(const cli_options* options) {
    double start = cli_now_seconds();
    fit_problem f = {.options = options};
    double fraction = 0;
    if (!options->data_dir || !options->params) {
        fprintf(stderr, "touche fit: --data DIR and --params LIST are required (touche fit --help)\n");
        return EXIT_BAD_INPUT;
    }
    if (!read_holdout(options, &fraction) || !parse_params(options->params, &f)) {
        return EXIT_BAD_INPUT;
    }
    if (options->optimizer && !fit_optimizer_known(options->optimizer)) {
        fprintf(stderr, "touche fit: unknown optimizer '%s'; expected neldermead, sbplx or "
                        "bobyqa\n", options->optimizer);
        return EXIT_BAD_INPUT;
    }
    f.threads = options->threads > 0 ? options->threads : default_threads();
    cli_session session;
    int code = cli_open_session(options, 0, &session);
    if (code != EXIT_OK) return code;
    f.spec = session.spec;
    if (options->key && tch_model_key_index(session.model, options->key) < 0) {
        fprintf(stderr, "touche fit: the scene has no keyframe named '%s'\n", options->key);
        code = EXIT_BAD_INPUT;
    }
    double middle[FIT_MAX_PARAMS] = {0};
    for (int k = 0; k < f.param_count; ++k) middle[k] = 0.5;
    cli_session detect = {0};
    if (code == EXIT_OK) code = open_detection(options, &detect);
    if (code != EXIT_OK || !set_params(&f, middle, 0) ||
        !read_recordings(options->data_dir, session.model, detect.model, &f) ||
        !split(&f, fraction)) {
        code = code != EXIT_OK ? code : EXIT_BAD_INPUT;
    }
    if (code == EXIT_OK) code = fit(&f, start);
    free_problem(&f);
    cli_close_session(&detect);
    cli_close_session(&session);
    return code;
}
