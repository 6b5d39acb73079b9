/* touche fit: one recording simulated from its estimated initial state and compared with its
 * samples (docs/fit.md, "Errors"), and all of them on several threads. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli_math.h"
#include "fit.h"

/* The loss of a recording whose simulation failed: above any loss of a run that completes
 * with its bodies within a few widths of their samples. */
static const double FAILED_LOSS = 1e3;

/* A track's progress through its samples while simulating. */
typedef struct track_cursor {
    int next;                /* the next sample to compare */
    double t_prev;           /* the state before the last step */
    tch_transform X_prev;
    double sum_position, sum_rotation, sum_loss, last_position;
} track_cursor;

/* Interpolates between the states before and after a step: position linearly, orientation
 * by normalized linear interpolation (the step turns by far less than a radian). */
static tch_transform interpolate(const tch_transform* a, const tch_transform* b, double f) {
    double sign = a->q.w * b->q.w + a->q.x * b->q.x + a->q.y * b->q.y + a->q.z * b->q.z < 0 ? -1 : 1;
    tch_quat q = {a->q.w + f * (sign * b->q.w - a->q.w), a->q.x + f * (sign * b->q.x - a->q.x),
                  a->q.y + f * (sign * b->q.y - a->q.y), a->q.z + f * (sign * b->q.z - a->q.z)};
    double n = sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    q = (tch_quat){q.w / n, q.x / n, q.y / n, q.z / n};
    return (tch_transform){q, cli_v3_add(a->p, cli_v3_scale(cli_v3_sub(b->p, a->p), f))};
}

/* Compares the samples of track t up to time `now` (the state X_now) with the simulation. */
static void compare_samples(const fit_track* t, track_cursor* c, double now,
                            const tch_transform* X_now, double tolerance) {
    while (c->next < t->count && t->samples[c->next].t <= now + tolerance) {
        const fit_sample* s = &t->samples[c->next++];
        double span = now - c->t_prev;
        double f = span > 0 ? fmin(1, fmax(0, (s->t - c->t_prev) / span)) : 1;
        tch_transform X = interpolate(&c->X_prev, X_now, f);
        double dp = cli_v3_norm(cli_v3_sub(X.p, s->p)) / t->width;
        tch_vec3 turn = cli_quat_to_rotvec(cli_quat_multiply(cli_quat_conjugate(X.q), s->q));
        double angle = cli_v3_norm(turn);
        c->sum_position += dp, c->sum_rotation += angle, c->sum_loss += dp * dp + angle * angle;
        c->last_position = dp;
    }
}

static void fail(fit_errors* e, const char* what, const tch_error* err) {
    e->failed = 1;
    e->loss = FAILED_LOSS;
    snprintf(e->failure, sizeof e->failure, "%s%s%s", what, err ? ": " : "", err ? err->message : "");
}

/* Sets the recorded bodies to their estimated states at the recording's first time. */
static int start(const tch_model* m, const cli_options* o, const fit_recording* r, tch_data* d,
                 fit_errors* e) {
    tch_error err = {0};
    if (o->key && tch_data_reset_key(m, d, tch_model_key_index(m, o->key), &err) != TCH_OK) {
        fail(e, "cannot set the keyframe", &err);
        return 0;
    }
    d->time = r->t0;
    for (int i = 0; i < r->track_count; ++i) {
        const fit_track* t = &r->tracks[i];
        if (tch_data_set_body_state(m, d, t->body, &t->X0, t->v0, t->w0, &err) != TCH_OK) {
            fail(e, "cannot set the initial state", &err);
            return 0;
        }
    }
    return 1;
}

static double deepest_contact(const tch_data* d) {
    double deepest = 0;
    for (int i = 0; i < d->contact_count; ++i) deepest = fmax(deepest, d->contacts[i].depth);
    return deepest;
}

/* Steps to the last sample, comparing each track's samples as the simulation passes them. */
static void run(const tch_model* m, const fit_recording* r, tch_data* d, track_cursor* c,
                fit_errors* e) {
    double tolerance = 1e-6 * m->timestep;
    tch_error err = {0};
    for (int i = 0; i < r->track_count; ++i) {
        tch_vec3 v, w;
        c[i].t_prev = d->time;
        tch_data_body_state(m, d, r->tracks[i].body, &c[i].X_prev, &v, &w);
        compare_samples(&r->tracks[i], &c[i], d->time, &c[i].X_prev, tolerance);
    }
    while (d->time < r->t1 - tolerance) {
        tch_status status = tch_step(m, d, &err);
        if (status != TCH_OK) {
            fail(e, status == TCH_ERR_DIVERGED ? "diverged" : "the step failed", &err);
            return;
        }
        e->penetration = fmax(e->penetration, deepest_contact(d));
        for (int i = 0; i < r->track_count; ++i) {
            tch_transform X;
            tch_vec3 v, w;
            tch_data_body_state(m, d, r->tracks[i].body, &X, &v, &w);
            compare_samples(&r->tracks[i], &c[i], d->time, &X, tolerance);
            c[i].t_prev = d->time, c[i].X_prev = X;
        }
    }
}

static void simulate_one(const tch_model* m, const cli_options* o, const fit_recording* r,
                         fit_errors* e) {
    *e = (fit_errors){0};
    tch_data* d = NULL;
    tch_error err = {0};
    if (tch_data_create(m, &d, &err) != TCH_OK) {
        fail(e, "cannot create the simulation data", &err);
        return;
    }
    track_cursor c[FIT_MAX_BODIES];
    memset(c, 0, sizeof c);
    if (start(m, o, r, d, e)) run(m, r, d, c, e);
    tch_data_destroy(d);
    if (e->failed) return;
    int samples = 0;
    for (int i = 0; i < r->track_count; ++i) {
        samples += r->tracks[i].count;
        e->position += c[i].sum_position, e->rotation += c[i].sum_rotation;
        e->loss += c[i].sum_loss;
        e->final_position += c[i].last_position / r->track_count;
    }
    e->position /= samples, e->loss /= samples;
    e->rotation *= 180 / 3.14159265358979323846 / samples;
}

typedef struct worker {
    pthread_t thread;
    int index, stride, count;
    const tch_model* model;
    const cli_options* options;
    fit_recording* const* list;
    fit_errors* out;
} worker;

static void* work(void* arg) {
    worker* w = arg;
    for (int i = w->index; i < w->count; i += w->stride) {
        simulate_one(w->model, w->options, w->list[i], &w->out[i]);
    }
    return NULL;
}

void fit_simulate_all(const tch_model* m, const cli_options* o, fit_recording* const* list,
                      int count, int threads, fit_errors* out) {
    enum { MAX_THREADS = 64 };
    worker w[MAX_THREADS];
    threads = threads < 1 ? 1 : threads > MAX_THREADS ? MAX_THREADS : threads;
    if (threads > count) threads = count;
    for (int k = 0; k < threads; ++k) {
        w[k] = (worker){.index = k, .stride = threads, .count = count, .model = m, .options = o,
                        .list = list, .out = out};
    }
    int started = 1; /* worker 0 runs on the calling thread */
    while (started < threads && pthread_create(&w[started].thread, NULL, work, &w[started]) == 0) {
        ++started;
    }
    for (int k = started; k < threads; ++k) work(&w[k]); /* threads it could not start */
    if (threads > 0) work(&w[0]);
    for (int k = 1; k < started; ++k) pthread_join(w[k].thread, NULL);
}
