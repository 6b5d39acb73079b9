/* Metrics of a run (sweep_metrics.h). */
#define _POSIX_C_SOURCE 200809L
#include "sweep_metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* const KIND_NAMES[CLI_METRIC_KIND_COUNT] = {
    "final_pose", "max_penetration", "energy_change", "time_at_rest", "contact_force",
    "trajectory_error"};

int cli_metric_kind_parse(const char* name, cli_metric_kind* kind) {
    for (int k = 0; k < CLI_METRIC_KIND_COUNT; ++k) {
        if (strcmp(name, KIND_NAMES[k]) == 0) {
            *kind = (cli_metric_kind)k;
            return 1;
        }
    }
    return 0;
}

const char* cli_metric_kind_name(cli_metric_kind kind) {
    return kind >= 0 && kind < CLI_METRIC_KIND_COUNT ? KIND_NAMES[kind] : "?";
}

int cli_metric_body_use(cli_metric_kind kind) {
    switch (kind) {
    case CLI_METRIC_FINAL_POSE:
    case CLI_METRIC_TRAJECTORY_ERROR: return CLI_METRIC_NEEDS_BODY;
    case CLI_METRIC_TIME_AT_REST:
    case CLI_METRIC_CONTACT_FORCE: return CLI_METRIC_OPTIONAL_BODY;
    default: return CLI_METRIC_NO_BODY;
    }
}

/* "prefix" or "prefix.body", then each suffix. */
static int name_columns(const cli_metric_def* def, const char* prefix, const char* const* suffixes,
                        int n, char names[][96]) {
    for (int i = 0; i < n; ++i) {
        snprintf(names[i], 96, "%s%s%s%s%s", prefix, def->body[0] ? "." : "", def->body,
                 suffixes[i][0] ? "." : "", suffixes[i]);
    }
    return n;
}

int cli_metric_columns(const cli_metric_def* def, char names[][96]) {
    static const char* const pose[] = {"x", "y", "z", "qw", "qx", "qy", "qz"};
    static const char* const force[] = {"mean", "max", "std"};
    static const char* const traj[] = {"pos_rms", "pos_max", "rot_rms_deg"};
    static const char* const none[] = {""};
    switch (def->kind) {
    case CLI_METRIC_FINAL_POSE: return name_columns(def, "final", pose, 7, names);
    case CLI_METRIC_CONTACT_FORCE: return name_columns(def, "contact_force", force, 3, names);
    case CLI_METRIC_TRAJECTORY_ERROR: return name_columns(def, "trajectory_error", traj, 3, names);
    case CLI_METRIC_TIME_AT_REST:
        name_columns(def, "settled_at", none, 1, names);
        return 1 + name_columns(def, "time_at_rest", none, 1, names + 1);
    default: return name_columns(def, KIND_NAMES[def->kind], none, 1, names);
    }
}

/* ---- recordings ---- */

void cli_recording_free(cli_recording* rec) {
    free(rec->time);
    free(rec->p);
    free(rec->q);
    *rec = (cli_recording){0};
}

static int recording_error(FILE* f, cli_recording* rec, char* err, size_t size, const char* path,
                           int line, const char* why) {
    snprintf(err, size, "%s:%d: %s", path, line, why);
    if (f) fclose(f);
    cli_recording_free(rec);
    return 0;
}

/* Reads `n` comma-separated numbers from s into x; returns 0 when one is missing or bad. */
static int read_numbers(char* s, double* x, int n) {
    for (int i = 0; i < n; ++i) {
        char* end = NULL;
        errno = 0;
        x[i] = strtod(s, &end);
        if (end == s || errno || !isfinite(x[i]) || (*end != ',' && *end != '\0' && *end != '\n' && *end != '\r')) return 0;
        s = *end == ',' ? end + 1 : end;
        if (i + 1 < n && *end != ',') return 0;
    }
    return 1;
}

static int grow_recording(cli_recording* rec, int* cap) {
    if (rec->count < *cap) return 1;
    *cap = *cap ? 2 * *cap : 256;
    double* t = realloc(rec->time, (size_t)*cap * sizeof *t);
    if (t) rec->time = t;
    tch_vec3* p = realloc(rec->p, (size_t)*cap * sizeof *p);
    if (p) rec->p = p;
    tch_quat* q = realloc(rec->q, (size_t)*cap * sizeof *q);
    if (q) rec->q = q;
    return t && p && q;
}

int cli_recording_load(const char* path, const char* body, cli_recording* rec, char* err,
                       size_t err_size) {
    *rec = (cli_recording){0};
    FILE* f = fopen(path, "r");
    if (!f) {
        snprintf(err, err_size, "%s: cannot read: %s", path, strerror(errno));
        return 0;
    }
    char row[4096];
    int line = 0, cap = 0;
    if (!fgets(row, sizeof row, f) || strncmp(row, "time,body,x,y,z,qw,qx,qy,qz", 27) != 0) {
        return recording_error(f, rec, err, err_size, path, 1,
                               "expected the header time,body,x,y,z,qw,qx,qy,qz[,...]");
    }
    line = 1;
    while (fgets(row, sizeof row, f)) {
        ++line;
        if (row[0] == '\n' || row[0] == '\0') continue;
        char* c1 = strchr(row, ',');
        char* c2 = c1 ? strchr(c1 + 1, ',') : NULL;
        if (!c1 || !c2) return recording_error(f, rec, err, err_size, path, line, "expected time,body,x,...");
        if ((size_t)(c2 - c1 - 1) != strlen(body) || strncmp(c1 + 1, body, strlen(body)) != 0) continue;
        double t, x[7];
        *c1 = '\0';
        if (!read_numbers(row, &t, 1) || !read_numbers(c2 + 1, x, 7)) {
            return recording_error(f, rec, err, err_size, path, line,
                                   "expected numbers for time, x, y, z, qw, qx, qy, qz");
        }
        if (rec->count > 0 && !(t > rec->time[rec->count - 1])) {
            return recording_error(f, rec, err, err_size, path, line, "times do not increase");
        }
        if (!grow_recording(rec, &cap)) return recording_error(f, rec, err, err_size, path, line, "out of memory");
        rec->time[rec->count] = t;
        rec->p[rec->count] = (tch_vec3){x[0], x[1], x[2]};
        rec->q[rec->count] = (tch_quat){x[3], x[4], x[5], x[6]};
        rec->count++;
    }
    fclose(f);
    if (rec->count == 0) {
        snprintf(err, err_size, "%s:%d: no row of body '%s'", path, line, body);
        cli_recording_free(rec);
        return 0;
    }
    return 1;
}

/* ---- measuring ---- */

void cli_metrics_free(cli_metrics* ms) {
    free(ms->state);
    *ms = (cli_metrics){0};
}

/* Whether any body of interest (`body`, or every body) moves faster than the thresholds. */
static int moving(const tch_model* m, const tch_data* d, int body, const cli_metric_def* def) {
    for (int b = body ? body : 1; b < (body ? body + 1 : m->body_count); ++b) {
        tch_transform X;
        tch_vec3 v, w;
        tch_data_body_state(m, d, b, &X, &v, &w);
        if (sqrt(v.x * v.x + v.y * v.y + v.z * v.z) > def->rest_speed ||
            sqrt(w.x * w.x + w.y * w.y + w.z * w.z) > def->rest_spin) {
            return 1;
        }
    }
    return 0;
}

/* Sum of the net force magnitudes of the pairs touching `body` (0: all pairs). */
static double contact_force(const tch_model* m, const tch_data* d, int body) {
    double sum = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* p = &d->pair_results[i];
        if (body && m->geom_body[p->geom_a] != body && m->geom_body[p->geom_b] != body) continue;
        sum += sqrt(p->f_W.x * p->f_W.x + p->f_W.y * p->f_W.y + p->f_W.z * p->f_W.z);
    }
    return sum;
}

/* Rotation angle between two unit quaternions, degrees. */
static double rotation_degrees(tch_quat a, tch_quat b) {
    double dot = fabs(a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z);
    double na = sqrt(a.w * a.w + a.x * a.x + a.y * a.y + a.z * a.z);
    double nb = sqrt(b.w * b.w + b.x * b.x + b.y * b.y + b.z * b.z);
    return 2.0 * acos(fmin(1.0, dot / (na * nb))) * (180.0 / 3.14159265358979323846);
}

/* Compares the body's state with the recording's samples at data's time. */
static void compare_recording(const cli_metrics* ms, const cli_metric_def* def,
                              cli_metric_state* st, const tch_model* m, const tch_data* d) {
    const cli_recording* rec = def->recording;
    while (st->next_sample < rec->count && rec->time[st->next_sample] < d->time - ms->half_step) {
        st->next_sample++;
    }
    if (st->next_sample >= rec->count || rec->time[st->next_sample] > d->time + ms->half_step) return;
    tch_transform X;
    tch_vec3 v, w;
    tch_data_body_state(m, d, st->body, &X, &v, &w);
    tch_vec3 p = rec->p[st->next_sample];
    double e = sqrt((X.p.x - p.x) * (X.p.x - p.x) + (X.p.y - p.y) * (X.p.y - p.y) +
                    (X.p.z - p.z) * (X.p.z - p.z));
    double a = rotation_degrees(X.q, rec->q[st->next_sample]);
    st->sum += e * e;
    st->max = fmax(st->max, e);
    st->sq_sum += a * a;
    st->samples++;
    st->next_sample++;
}

/* Takes in data's state (the initial one, or the one after a step). */
static void observe(cli_metrics* ms, const tch_model* model, const tch_data* data) {
    for (int k = 0; k < ms->count; ++k) {
        const cli_metric_def* def = &ms->defs[k];
        cli_metric_state* st = &ms->state[k];
        if (def->kind == CLI_METRIC_TRAJECTORY_ERROR) compare_recording(ms, def, st, model, data);
        if (def->kind == CLI_METRIC_TIME_AT_REST && moving(model, data, st->body, def)) {
            st->last_motion = data->time;
        }
    }
}

int cli_metrics_begin(cli_metrics* ms, const cli_metric_def* defs, int count,
                      const tch_model* model, const tch_data* data, char* err, size_t err_size) {
    *ms = (cli_metrics){0};
    ms->defs = defs;
    ms->count = count;
    ms->state = calloc(count > 0 ? (size_t)count : 1, sizeof *ms->state);
    if (!ms->state) {
        snprintf(err, err_size, "out of memory");
        return 0;
    }
    for (int k = 0; k < count; ++k) {
        ms->state[k].last_motion = -1;
        if (!defs[k].body[0]) continue;
        ms->state[k].body = tch_model_body_index(model, defs[k].body);
        if (ms->state[k].body <= 0) {
            snprintf(err, err_size, "metric %s: the scene has no body '%s'",
                     cli_metric_kind_name(defs[k].kind), defs[k].body);
            cli_metrics_free(ms);
            return 0;
        }
    }
    ms->energy_start = tch_data_energy(model, data);
    ms->start_time = data->time;
    ms->half_step = 0.5 * model->timestep;
    observe(ms, model, data);
    return 1;
}

void cli_metrics_observe(cli_metrics* ms, const tch_model* model, const tch_data* data) {
    observe(ms, model, data);
    for (int k = 0; k < ms->count; ++k) {
        cli_metric_state* st = &ms->state[k];
        if (ms->defs[k].kind != CLI_METRIC_CONTACT_FORCE) continue;
        double f = contact_force(model, data, st->body);
        st->sum += f;
        st->sq_sum += f * f;
        st->max = fmax(st->max, f);
        st->samples++;
    }
}

static double deepest_penetration(const tch_data* d) {
    tch_watch_report report;
    tch_data_watch_report(d, &report);
    double deepest = 0;
    for (int k = 0; k < TCH_CONTACT_MODEL_END; ++k) deepest = fmax(deepest, report.deepest[k]);
    return deepest;
}

int cli_metrics_finish(const cli_metrics* ms, const tch_model* model, const tch_data* data,
                       double* values) {
    int n = 0;
    for (int k = 0; k < ms->count; ++k) {
        const cli_metric_def* def = &ms->defs[k];
        const cli_metric_state* st = &ms->state[k];
        switch (def->kind) {
        case CLI_METRIC_FINAL_POSE: {
            tch_transform X;
            tch_vec3 v, w;
            tch_data_body_state(model, data, st->body, &X, &v, &w);
            double pose[7] = {X.p.x, X.p.y, X.p.z, X.q.w, X.q.x, X.q.y, X.q.z};
            for (int i = 0; i < 7; ++i) values[n++] = pose[i];
            break;
        }
        case CLI_METRIC_MAX_PENETRATION: values[n++] = deepest_penetration(data); break;
        case CLI_METRIC_ENERGY_CHANGE:
            values[n++] = tch_data_energy(model, data) - ms->energy_start;
            break;
        case CLI_METRIC_TIME_AT_REST: {
            double settled = st->last_motion < 0 ? ms->start_time : st->last_motion;
            int at_rest = st->last_motion < data->time;
            values[n++] = at_rest ? settled : NAN;
            values[n++] = at_rest ? data->time - settled : 0.0;
            break;
        }
        case CLI_METRIC_CONTACT_FORCE: {
            double count = (double)(st->samples ? st->samples : 1);
            double mean = st->sum / count;
            values[n++] = mean;
            values[n++] = st->max;
            values[n++] = sqrt(fmax(0.0, st->sq_sum / count - mean * mean));
            break;
        }
        case CLI_METRIC_TRAJECTORY_ERROR: {
            double count = (double)st->samples;
            values[n++] = count > 0 ? sqrt(st->sum / count) : NAN;
            values[n++] = count > 0 ? st->max : NAN;
            values[n++] = count > 0 ? sqrt(st->sq_sum / count) : NAN;
            break;
        }
        default: break;
        }
    }
    return n;
}
