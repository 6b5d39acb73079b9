/* touche sweep: the spec file into a plan (sweep.h; the format is in docs/sweeps.md). Every
 * refusal names the spec's file and the line of the value refused. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sweep.h"
#include "sweep_value.h"

/* Most jobs a spec may expand to. */
#define SWEEP_MAX_JOBS 1000000000L

typedef struct spec_reader {
    const char* path;
    sweep_plan* plan;
} spec_reader;

static int refuse(const spec_reader* r, const sweep_value* at, const char* format, ...) {
    fprintf(stderr, "touche sweep: %s:%d: ", r->path, at ? at->line : 1);
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, " (docs/sweeps.md)\n");
    return 0;
}

/* Refuses every key of `table` that is not in `known` (a NULL-terminated list). */
static int check_keys(const spec_reader* r, const sweep_value* table, const char* where,
                      const char* const* known) {
    for (int i = 0; i < table->count; ++i) {
        int found = 0;
        for (const char* const* k = known; *k && !found; ++k) found = strcmp(*k, table->keys[i]) == 0;
        if (!found) return refuse(r, table->items[i], "unknown key \"%s\" in %s", table->keys[i], where);
    }
    return 1;
}

static int expect(const spec_reader* r, const sweep_value* v, sweep_value_kind kind,
                  const char* what) {
    if (v->kind == kind) return 1;
    return refuse(r, v, "%s must be %s, not %s", what, sweep_value_kind_name(kind),
                  sweep_value_kind_name(v->kind));
}

/* A string of at most size - 1 characters into out. */
static int read_text(const spec_reader* r, const sweep_value* v, const char* what, char* out,
                     size_t size) {
    if (!expect(r, v, SWEEP_VALUE_STRING, what)) return 0;
    if (strlen(v->string) >= size) return refuse(r, v, "%s is longer than %zu characters", what, size - 1);
    snprintf(out, size, "%s", v->string);
    return 1;
}

static int read_positive(const spec_reader* r, const sweep_value* v, const char* what, double* out) {
    if (!expect(r, v, SWEEP_VALUE_NUMBER, what)) return 0;
    if (!(v->number > 0)) return refuse(r, v, "%s must be positive", what);
    *out = v->number;
    return 1;
}

static int read_whole(const spec_reader* r, const sweep_value* v, const char* what, double least,
                      double most, double* out) {
    if (!expect(r, v, SWEEP_VALUE_NUMBER, what)) return 0;
    if (v->number != floor(v->number) || v->number < least || v->number > most) {
        return refuse(r, v, "%s must be a whole number from %.0f to %.0f", what, least, most);
    }
    *out = v->number;
    return 1;
}

/* PATH relative to the spec's directory (unless absolute). */
static void resolve_path(const char* spec_path, const char* path, char* out, size_t size) {
    const char* slash = strrchr(spec_path, '/');
    if (path[0] == '/' || !slash) {
        snprintf(out, size, "%s", path);
    } else {
        snprintf(out, size, "%.*s/%s", (int)(slash - spec_path), spec_path, path);
    }
}

/* Whether a text value is one the run setting `kind` accepts. */
static int valid_text(sweep_target_kind kind, const char* text) {
    tch_contact_model model;
    tch_integrator integrator;
    if (kind == SWEEP_TARGET_CONTACT) return tch_contact_model_parse(text, &model);
    if (kind == SWEEP_TARGET_INTEGRATOR) return tch_integrator_parse(text, &integrator);
    return 1;
}

/* One value into *s, checked against the parameter's width (0: text). */
static int read_setting(const spec_reader* r, const sweep_value* v, const sweep_param* p,
                        sweep_setting* s) {
    memset(s, 0, sizeof *s);
    s->width = p->width;
    if (p->width == 0) {
        if (!read_text(r, v, "a value of this parameter", s->text, sizeof s->text)) return 0;
        if (!valid_text(p->kind, s->text)) return refuse(r, v, "'%s' is not a valid %s", s->text, p->target);
        return 1;
    }
    if (p->width == 1) {
        if (!expect(r, v, SWEEP_VALUE_NUMBER, "a value of this parameter")) return 0;
        s->x[0] = v->number;
        return 1;
    }
    if (v->kind != SWEEP_VALUE_ARRAY || v->count != p->width) {
        return refuse(r, v, "a value of %s must be an array of %d numbers", p->target, p->width);
    }
    for (int i = 0; i < p->width; ++i) {
        if (!expect(r, v->items[i], SWEEP_VALUE_NUMBER, "each entry")) return 0;
        s->x[i] = v->items[i]->number;
    }
    return 1;
}

/* body:NAME.FIELD[.C] */
static int parse_body_target(const spec_reader* r, const sweep_value* at, sweep_param* p) {
    static const char* const fields[] = {"pos", "quat", "vel", "angvel"};
    const char* name = p->target + 5;
    const char* dot = strchr(name, '.');
    if (!dot || dot == name || (size_t)(dot - name) >= sizeof p->body) {
        return refuse(r, at, "expected body:NAME.pos|quat|vel|angvel[.x|.y|.z]");
    }
    snprintf(p->body, sizeof p->body, "%.*s", (int)(dot - name), name);
    char field[16] = "";
    const char* component = strchr(dot + 1, '.');
    snprintf(field, sizeof field, "%.*s", (int)(component ? (size_t)(component - dot - 1) : strlen(dot + 1)), dot + 1);
    int f = 0;
    while (f < 4 && strcmp(field, fields[f]) != 0) ++f;
    if (f == 4) return refuse(r, at, "unknown body field '%s'; expected pos, quat, vel or angvel", field);
    p->field = (sweep_body_field)f;
    p->width = f == SWEEP_BODY_QUAT ? 4 : 3;
    p->component = -1;
    if (component) {
        const char* names = f == SWEEP_BODY_QUAT ? "wxyz" : "xyz";
        const char* c = component[1] && !component[2] ? strchr(names, component[1]) : NULL;
        if (!c) return refuse(r, at, "unknown component '%s' of %s", component + 1, field);
        if (f == SWEEP_BODY_QUAT) return refuse(r, at, "a quaternion is varied whole (body:%s.quat)", p->body);
        p->component = (int)(c - names);
        p->width = 1;
    }
    return 1;
}

/* The target's kind, width and body fields. SET parameters get their width from the values. */
static int parse_target(const spec_reader* r, const sweep_value* at, sweep_param* p) {
    static const char* const run_names[] = {"", "key", "contact", "integrator", "dt", "duration"};
    p->component = -1;
    for (int k = SWEEP_TARGET_KEY; k <= SWEEP_TARGET_DURATION; ++k) {
        if (strcmp(p->target, run_names[k]) == 0) {
            p->kind = (sweep_target_kind)k;
            p->width = k >= SWEEP_TARGET_DT ? 1 : 0;
            return 1;
        }
    }
    static const char* const options[] = {"iterations", "tolerance", "rtol", "atol"};
    for (int k = 0; k < 4; ++k) {
        if (strncmp(p->target, "option:", 7) == 0 && strcmp(p->target + 7, options[k]) == 0) {
            p->kind = SWEEP_TARGET_OPTION;
            p->option = (sweep_option_field)(SWEEP_OPTION_ITERATIONS + k);
            p->width = 1;
            return 1;
        }
    }
    if (strncmp(p->target, "option:gravity", 14) == 0) {
        p->kind = SWEEP_TARGET_OPTION;
        p->option = SWEEP_OPTION_GRAVITY;
        const char* c = p->target + 14;
        if (!*c) {
            p->width = 3;
            return 1;
        }
        if (c[0] != '.' || !c[1] || c[2] || !strchr("xyz", c[1])) {
            return refuse(r, at, "expected option:gravity or option:gravity.x|y|z");
        }
        p->component = c[1] - 'x';
        p->width = 1;
        return 1;
    }
    if (strncmp(p->target, "option:", 7) == 0) {
        return refuse(r, at, "option:%s cannot be varied (option:gravity, iterations, "
                             "tolerance, rtol and atol can; and dt, duration, integrator, "
                             "contact, key)", p->target + 7);
    }
    const char* field = strrchr(p->target, '.');
    if (strncmp(p->target, "body:", 5) == 0 && !(field && strcmp(field, ".mass") == 0)) {
        p->kind = SWEEP_TARGET_BODY;
        return parse_body_target(r, at, p);
    }
    p->kind = SWEEP_TARGET_SET; /* checked when a job compiles the scene, as --set is */
    if (strchr(p->target, '=')) return refuse(r, at, "a target has no '=' (the values give it)");
    return 1;
}

/* A --set parameter's width: numbers, text (model, rigid) when its values are strings, or
 * arrays of 2 or 3 numbers (geom:NAME.size) when they are arrays. */
static int set_width(const spec_reader* r, const sweep_value* values, sweep_param* p) {
    p->width = 1;
    if (!values || values->kind != SWEEP_VALUE_ARRAY || values->count == 0) return 1;
    sweep_value_kind kind = values->items[0]->kind;
    for (int i = 0; i < values->count; ++i) {
        if (values->items[i]->kind != kind) {
            return refuse(r, values->items[i], "the values of %s mix strings, numbers and arrays",
                          p->target);
        }
    }
    if (kind == SWEEP_VALUE_ARRAY) {
        int count = values->items[0]->count;
        if (count < 2 || count > 3) {
            return refuse(r, values->items[0], "an array value of %s holds 2 or 3 numbers (one "
                          "is given as a number)", p->target);
        }
        p->width = count;
        return 1;
    }
    p->width = kind == SWEEP_VALUE_STRING ? 0 : 1;
    return 1;
}

static int read_list(const spec_reader* r, const sweep_value* v, sweep_param* p) {
    if (!expect(r, v, SWEEP_VALUE_ARRAY, "values")) return 0;
    if (v->count == 0) return refuse(r, v, "values is empty");
    p->source = SWEEP_LIST;
    p->count = v->count;
    p->values = calloc((size_t)v->count, sizeof *p->values);
    if (!p->values) return refuse(r, v, "out of memory");
    for (int i = 0; i < v->count; ++i) {
        if (!read_setting(r, v->items[i], p, &p->values[i])) return 0;
    }
    return 1;
}

static int read_grid(const spec_reader* r, const sweep_value* v, sweep_param* p) {
    static const char* const keys[] = {"from", "to", "count", "log", NULL};
    if (!expect(r, v, SWEEP_VALUE_TABLE, "grid") || !check_keys(r, v, "grid", keys)) return 0;
    const sweep_value *from = sweep_value_get(v, "from"), *to = sweep_value_get(v, "to"),
                      *count = sweep_value_get(v, "count"), *log = sweep_value_get(v, "log");
    if (!from || !to || !count) return refuse(r, v, "grid needs from, to and count");
    double n = 1;
    if (!expect(r, from, SWEEP_VALUE_NUMBER, "from") || !expect(r, to, SWEEP_VALUE_NUMBER, "to") ||
        !read_whole(r, count, "count", 1, 1e6, &n) ||
        (log && !expect(r, log, SWEEP_VALUE_BOOL, "log"))) {
        return 0;
    }
    int geometric = log && log->boolean;
    if (geometric && !(from->number > 0 && to->number > 0)) {
        return refuse(r, v, "a log grid needs positive from and to");
    }
    p->source = SWEEP_GRID;
    p->count = (int)n;
    p->values = calloc((size_t)p->count, sizeof *p->values);
    if (!p->values) return refuse(r, v, "out of memory");
    for (int i = 0; i < p->count; ++i) {
        double s = p->count > 1 ? (double)i / (double)(p->count - 1) : 0.0;
        double x = geometric ? from->number * pow(to->number / from->number, s)
                             : from->number + (to->number - from->number) * s;
        p->values[i].width = 1;
        p->values[i].x[0] = i + 1 == p->count && p->count > 1 ? to->number : x;
    }
    return 1;
}

static int read_draw(const spec_reader* r, const sweep_value* v, sweep_source source,
                     sweep_param* p) {
    if (v->kind != SWEEP_VALUE_ARRAY || v->count != 2 || v->items[0]->kind != SWEEP_VALUE_NUMBER ||
        v->items[1]->kind != SWEEP_VALUE_NUMBER) {
        return refuse(r, v, "a random draw takes [a, b] (normal: [mean, standard deviation])");
    }
    p->source = source;
    p->a = v->items[0]->number;
    p->b = v->items[1]->number;
    if (source == SWEEP_NORMAL ? !(p->b >= 0) : !(p->a < p->b)) {
        return refuse(r, v, source == SWEEP_NORMAL ? "the standard deviation must not be negative"
                                                   : "a draw's range needs a < b");
    }
    if (source == SWEEP_LOGUNIFORM && !(p->a > 0)) return refuse(r, v, "loguniform needs 0 < a");
    return 1;
}

static int read_param(const spec_reader* r, const sweep_value* t, sweep_param* p) {
    static const char* const keys[] = {"target", "name", "values", "grid", "uniform",
                                       "loguniform", "normal", NULL};
    static const char* const draws[] = {"uniform", "loguniform", "normal"};
    if (!expect(r, t, SWEEP_VALUE_TABLE, "a parameter") || !check_keys(r, t, "a parameter", keys)) return 0;
    const sweep_value* target = sweep_value_get(t, "target");
    if (!target) return refuse(r, t, "a parameter needs a target");
    if (!read_text(r, target, "target", p->target, sizeof p->target) || !parse_target(r, target, p)) return 0;
    const sweep_value* name = sweep_value_get(t, "name");
    if (name && !read_text(r, name, "name", p->name, sizeof p->name)) return 0;
    if (!name) snprintf(p->name, sizeof p->name, "%s", p->target);
    const sweep_value* values = sweep_value_get(t, "values");
    const sweep_value* grid = sweep_value_get(t, "grid");
    int sources = (values != NULL) + (grid != NULL);
    for (int d = 0; d < 3; ++d) sources += sweep_value_get(t, draws[d]) != NULL;
    if (sources != 1) {
        return refuse(r, t, "a parameter takes exactly one of values, grid, uniform, loguniform "
                            "and normal");
    }
    if (p->kind == SWEEP_TARGET_SET && !set_width(r, values, p)) return 0;
    if (values) return read_list(r, values, p);
    if (p->width != 1) {
        return refuse(r, t, "%s takes a list of values (grids and draws are for numbers; vary "
                            "one component, e.g. %s.x)", p->target, p->target);
    }
    if (grid) return read_grid(r, grid, p);
    for (int d = 0; d < 3; ++d) {
        const sweep_value* v = sweep_value_get(t, draws[d]);
        if (v) return read_draw(r, v, (sweep_source)(SWEEP_UNIFORM + d), p);
    }
    return 0;
}

static int read_run(const spec_reader* r, const sweep_value* run) {
    static const char* const keys[] = {"key", "contact", "integrator", "dt", "duration",
                                       "threads", NULL};
    if (!expect(r, run, SWEEP_VALUE_TABLE, "run") || !check_keys(r, run, "run", keys)) return 0;
    for (int k = SWEEP_TARGET_KEY; k <= SWEEP_TARGET_DURATION; ++k) {
        const sweep_value* v = sweep_value_get(run, keys[k - 1]);
        sweep_param p = {.kind = (sweep_target_kind)k, .width = k >= SWEEP_TARGET_DT ? 1 : 0};
        snprintf(p.target, sizeof p.target, "%s", keys[k - 1]);
        if (!v) continue;
        if (!read_setting(r, v, &p, &r->plan->run[k])) return 0;
        if (p.width == 1 && !read_positive(r, v, keys[k - 1], &r->plan->run[k].x[0])) return 0;
    }
    const sweep_value* threads = sweep_value_get(run, "threads");
    double n = 1;
    if (threads && !read_whole(r, threads, "threads", 1, 64, &n)) return 0;
    r->plan->threads = (int)n;
    return 1;
}

/* A metric: "kind", "kind:body" or a table {kind, body, recording, rest_speed, rest_spin}. */
static int read_metric(const spec_reader* r, const sweep_value* v, cli_metric_def* m,
                       cli_recording* rec) {
    static const char* const keys[] = {"kind", "body", "recording", "rest_speed", "rest_spin", NULL};
    char kind[64] = "", recording[1024] = "";
    m->rest_speed = 1e-3;
    m->rest_spin = 1e-2;
    if (v->kind == SWEEP_VALUE_STRING) {
        const char* colon = strchr(v->string, ':');
        snprintf(kind, sizeof kind, "%.*s", (int)(colon ? (size_t)(colon - v->string) : strlen(v->string)), v->string);
        if (colon) snprintf(m->body, sizeof m->body, "%s", colon + 1);
    } else {
        if (!expect(r, v, SWEEP_VALUE_TABLE, "a metric") || !check_keys(r, v, "a metric", keys)) return 0;
        const sweep_value* k = sweep_value_get(v, "kind");
        if (!k) return refuse(r, v, "a metric needs a kind");
        const sweep_value *body = sweep_value_get(v, "body"), *path = sweep_value_get(v, "recording"),
                          *speed = sweep_value_get(v, "rest_speed"), *spin = sweep_value_get(v, "rest_spin");
        if (!read_text(r, k, "kind", kind, sizeof kind) ||
            (body && !read_text(r, body, "body", m->body, sizeof m->body)) ||
            (path && !read_text(r, path, "recording", recording, sizeof recording)) ||
            (speed && !read_positive(r, speed, "rest_speed", &m->rest_speed)) ||
            (spin && !read_positive(r, spin, "rest_spin", &m->rest_spin))) {
            return 0;
        }
    }
    if (!cli_metric_kind_parse(kind, &m->kind)) {
        return refuse(r, v, "unknown metric '%s'; expected final_pose, max_penetration, "
                            "energy_change, time_at_rest, contact_force or trajectory_error", kind);
    }
    int use = cli_metric_body_use(m->kind);
    if (use == CLI_METRIC_NEEDS_BODY && !m->body[0]) return refuse(r, v, "metric %s needs a body (%s:BODY)", kind, kind);
    if (use == CLI_METRIC_NO_BODY && m->body[0]) return refuse(r, v, "metric %s is about the whole scene, not a body", kind);
    if ((m->kind == CLI_METRIC_TRAJECTORY_ERROR) != (recording[0] != 0)) {
        return refuse(r, v, m->kind == CLI_METRIC_TRAJECTORY_ERROR
                                ? "trajectory_error needs a recording (a trajectory CSV)"
                                : "only trajectory_error takes a recording");
    }
    if (recording[0]) {
        char path[2048], err[2200];
        resolve_path(r->path, recording, path, sizeof path);
        if (!cli_recording_load(path, m->body, rec, err, sizeof err)) {
            return refuse(r, v, "cannot use the recording: %s", err);
        }
        m->recording = rec;
    }
    return 1;
}

static int read_metrics(const spec_reader* r, const sweep_value* list) {
    sweep_plan* plan = r->plan;
    if (!expect(r, list, SWEEP_VALUE_ARRAY, "metrics")) return 0;
    plan->metric_count = list->count;
    size_t n = list->count ? (size_t)list->count : 1;
    plan->metrics = calloc(n, sizeof *plan->metrics);
    plan->recordings = calloc(n, sizeof *plan->recordings);
    plan->columns = calloc(n * CLI_METRIC_MAX_COLUMNS, sizeof *plan->columns);
    if (!plan->metrics || !plan->recordings || !plan->columns) return refuse(r, list, "out of memory");
    for (int i = 0; i < list->count; ++i) {
        if (!read_metric(r, list->items[i], &plan->metrics[i], &plan->recordings[i])) return 0;
        plan->column_count += cli_metric_columns(&plan->metrics[i], plan->columns + plan->column_count);
    }
    return 1;
}

static int read_params(const spec_reader* r, const sweep_value* list) {
    sweep_plan* plan = r->plan;
    if (!expect(r, list, SWEEP_VALUE_ARRAY, "parameters")) return 0;
    plan->params = calloc(list->count ? (size_t)list->count : 1, sizeof *plan->params);
    if (!plan->params) return refuse(r, list, "out of memory");
    plan->grid_count = 1;
    for (int i = 0; i < list->count; ++i) {
        sweep_param* p = &plan->params[plan->param_count++];
        if (!read_param(r, list->items[i], p)) return 0;
        if (p->source <= SWEEP_GRID) {
            if ((double)plan->grid_count * p->count > (double)SWEEP_MAX_JOBS) {
                return refuse(r, list->items[i], "the sweep has more than %ld jobs", SWEEP_MAX_JOBS);
            }
            plan->grid_count *= p->count;
        }
    }
    return 1;
}

/* The parameter named `name` (its column), or -1. */
static int param_named(const sweep_plan* plan, const char* name) {
    for (int i = 0; i < plan->param_count; ++i) {
        if (strcmp(plan->params[i].name, name) == 0) return i;
    }
    return -1;
}

/* [gradient] of = [names], eps, scheme: a column d(COLUMN)/d(NAME) per metric column and named
 * parameter, after the metrics' columns. */
static int read_gradient(const spec_reader* r, const sweep_value* v) {
    static const char* const keys[] = {"of", "eps", "scheme", NULL};
    sweep_plan* plan = r->plan;
    if (!expect(r, v, SWEEP_VALUE_TABLE, "gradient") || !check_keys(r, v, "gradient", keys)) return 0;
    const sweep_value *of = sweep_value_get(v, "of"), *eps = sweep_value_get(v, "eps"),
                      *scheme = sweep_value_get(v, "scheme");
    if (!of) return refuse(r, v, "gradient needs of = [the names of numeric parameters]");
    if (!expect(r, of, SWEEP_VALUE_ARRAY, "of")) return 0;
    plan->gradient_eps = 1e-6;
    if (eps && !read_positive(r, eps, "eps", &plan->gradient_eps)) return 0;
    char text[32] = "centered";
    if (scheme && !read_text(r, scheme, "scheme", text, sizeof text)) return 0;
    if (strcmp(text, "centered") != 0 && strcmp(text, "forward") != 0) {
        return refuse(r, scheme, "unknown scheme '%s'; expected centered or forward", text);
    }
    plan->gradient_centered = text[0] == 'c';
    int n = plan->metric_column_count;
    plan->gradient_params = calloc(of->count ? (size_t)of->count : 1, sizeof *plan->gradient_params);
    void* grown = realloc(plan->columns, (size_t)(n * (1 + of->count) + 1) * sizeof *plan->columns);
    if (!plan->gradient_params || !grown) return refuse(r, of, "out of memory");
    plan->columns = grown;
    for (int g = 0; g < of->count; ++g) {
        char name[128];
        if (!read_text(r, of->items[g], "a gradient parameter", name, sizeof name)) return 0;
        int i = param_named(plan, name);
        if (i < 0) return refuse(r, of->items[g], "gradient of '%s': no parameter has that name", name);
        if (plan->params[i].width != 1) {
            return refuse(r, of->items[g], "gradient of '%s': only a parameter of one number has "
                                           "one (vary a vector by its components, e.g. .x)", name);
        }
        plan->gradient_params[plan->gradient_count++] = i;
        for (int c = 0; c < n; ++c) {
            char metric[sizeof plan->columns[0]];
            memcpy(metric, plan->columns[c], sizeof metric);
            size_t need = (size_t)snprintf(plan->columns[plan->column_count++],
                                           sizeof plan->columns[0], "d(%s)/d(%s)", metric, name);
            if (need >= sizeof plan->columns[0]) {
                return refuse(r, of->items[g], "gradient of '%s': the column d(%s)/d(%s) is "
                                               "too long; give the parameter a shorter name",
                              name, metric, name);
            }
        }
    }
    return 1;
}

static int read_top(const spec_reader* r, const sweep_value* root) {
    static const char* const keys[] = {"scene", "seed", "samples", "run", "parameters",
                                       "metrics", "gradient", NULL};
    sweep_plan* plan = r->plan;
    if (!check_keys(r, root, "the spec", keys)) return 0;
    const sweep_value* scene = sweep_value_get(root, "scene");
    if (!scene) return refuse(r, root, "the spec names no scene (scene = \"FILE.xml\")");
    if (!read_text(r, scene, "scene", plan->scene, sizeof plan->scene)) return 0;
    resolve_path(r->path, plan->scene, plan->scene_path, sizeof plan->scene_path);
    const sweep_value *seed = sweep_value_get(root, "seed"), *samples = sweep_value_get(root, "samples");
    double x = 0;
    if (seed && !read_whole(r, seed, "seed", 0, 9007199254740991.0, &x)) return 0;
    plan->seed = (uint64_t)x;
    x = 1;
    if (samples && !read_whole(r, samples, "samples", 1, 1e6, &x)) return 0;
    plan->samples = (int)x;
    const sweep_value *run = sweep_value_get(root, "run"), *params = sweep_value_get(root, "parameters"),
                      *metrics = sweep_value_get(root, "metrics");
    plan->threads = 1;
    if (run && !read_run(r, run)) return 0;
    plan->grid_count = 1;
    if (params && !read_params(r, params)) return 0;
    if (!metrics) return refuse(r, root, "the spec names no metrics (metrics = [...])");
    if (!read_metrics(r, metrics)) return 0;
    plan->metric_column_count = plan->column_count;
    const sweep_value* gradient = sweep_value_get(root, "gradient");
    if (gradient && !read_gradient(r, gradient)) return 0;
    if ((double)plan->grid_count * plan->samples > (double)SWEEP_MAX_JOBS) {
        return refuse(r, samples, "the sweep has more than %ld jobs", SWEEP_MAX_JOBS);
    }
    plan->job_count = plan->grid_count * plan->samples;
    return 1;
}

int sweep_plan_read(const char* path, sweep_plan* plan) {
    memset(plan, 0, sizeof *plan);
    for (int k = 0; k < 6; ++k) plan->run[k].width = -1;
    snprintf(plan->spec_path, sizeof plan->spec_path, "%s", path);
    char err[1400];
    sweep_value* root = NULL;
    if (!sweep_value_read_file(path, &root, err, sizeof err)) {
        fprintf(stderr, "touche sweep: %s\n", err);
        return 0;
    }
    spec_reader r = {path, plan};
    int ok = read_top(&r, root);
    sweep_value_free(root);
    if (!ok) sweep_plan_free(plan);
    return ok;
}

void sweep_plan_free(sweep_plan* plan) {
    for (int i = 0; i < plan->param_count; ++i) free(plan->params[i].values);
    for (int i = 0; plan->recordings && i < plan->metric_count; ++i) cli_recording_free(&plan->recordings[i]);
    free(plan->params);
    free(plan->metrics);
    free(plan->recordings);
    free(plan->columns);
    free(plan->gradient_params);
    memset(plan, 0, sizeof *plan);
}
