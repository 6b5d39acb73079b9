/* The watch (touche/watch.h, docs/watch.md): at the start of every step, the scene's energy
 * against its start plus the work put in, and every pair's penetration against the size of
 * its geoms. Everything is allocated with the data; a step only reads it and writes fixed
 * slots.
 *
 * Energy. E = sum over free bodies of (1/2 m v.v + 1/2 w.I w - m g.c) + the elastic energy the
 * models report. The applied force F_k and torque T_k of step k act from t_k to t_k+1, and
 * their work is taken by the trapezoid rule on the centre-of-mass velocities,
 * W_k = h/2 (F_k.(v_k + v_k+1) + T_k.(w_k + w_k+1)), which is exact for the velocity update of
 * the explicit integrators under a constant load. Each step adds W_k when the state at t_k+1
 * is measured, so E_k - (E_0 + W_0 + ... + W_k-1) is the gain the step pipeline made.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "engine/engine_internal.h"
#include "engine/watch.h"
#include "geometry/model_shape.h"
#include "math/vec.h"

/* Distinct warnings kept per data (tch_watch_report.warnings_dropped counts the rest). */
enum { WARNING_CAPACITY = 64 };

static const tch_watch_settings DEFAULT_SETTINGS = {true, 0.1, 0.5};

struct tch_watch {
    tch_watch_settings settings;
    /* from the model */
    tch_real* geom_thickness; /* [geom_count] smallest width along the geom's axes (planes:
                               * INFINITY) */
    tch_real size_energy;     /* sum over free bodies of m |g| L, J */
    int body_count;
    /* per body [body_count], for the work of the applied loads and the body that gained */
    tch_vec3* force_last;     /* the applied force of the last step watched, N */
    tch_vec3* torque_last;    /* the applied torque, N m */
    tch_real* work_pending;   /* h/2 (F.v + T.w) of the last step at its start, J */
    tch_real* body_budget;    /* free roots: E_b at the start + the work put into b, J */
    tch_real* body_energy;    /* free roots: E_b (kinetic + gravitational) at the last step */
    int (*body_pair)[2];      /* free roots: the geoms of the last pair that touched b, or -1 */
    /* the account */
    bool started;
    bool state_set;
    tch_real kinetic_peak;    /* largest kinetic energy seen, J */
    tch_real work_magnitude;  /* sum of |W_k|, J */
    tch_watch_report report;
    tch_watch_warning warnings[WARNING_CAPACITY];
};

/* ---- sizes from the model ---- */

/* The smallest of the geom's widths along its own axes: 2 r for a sphere or a capsule, the
 * smallest edge of a box, the thinnest side of a mesh's bounding box. */
static tch_real geom_thickness(const tch_model* m, int g) {
    tch_shape shape = tch_model_geom_shape(m, g);
    if (shape.type == TCH_GEOM_PLANE) {
        return INFINITY;
    }
    tch_real thinnest = INFINITY;
    for (int axis = 0; axis < 3; ++axis) {
        tch_vec3 e = tch_v3_zero();
        tch_v3_set(&e, axis, 1);
        tch_real width = tch_v3_dot(e, tch_shape_support(&shape, e)) -
                         tch_v3_dot(e, tch_shape_support(&shape, tch_v3_neg(e)));
        thinnest = fmin(thinnest, width);
    }
    return thinnest;
}

/* sum over free bodies of m |g| L, L the diameter of a sphere about the body's centre of mass
 * that holds its geoms: the energy of lifting each body by its own size. */
static tch_real size_energy(const tch_model* m) {
    tch_real g = tch_v3_norm(m->gravity), total = 0;
    for (int b = 1; b < m->body_count; ++b) {
        if (!m->body_free[b]) {
            continue;
        }
        tch_real radius = 0;
        for (int geom = 0; geom < m->geom_count; ++geom) {
            if (m->body_root[m->geom_body[geom]] == b) {
                tch_real offset = tch_v3_dist(m->geom_X_RG[geom].p, m->body_total_p_BCm[b]);
                radius = fmax(radius, offset + m->geom_rbound[geom]);
            }
        }
        total += m->body_total_mass[b] * g * 2 * radius;
    }
    return total;
}

#define CALLOC_ARRAY(ptr, n) ((ptr) = calloc((size_t)((n) > 0 ? (n) : 1), sizeof *(ptr)))

tch_watch* tch_watch_create(const tch_model* m) {
    tch_watch* w = calloc(1, sizeof *w);
    int nb = m->body_count;
    if (!w || !CALLOC_ARRAY(w->geom_thickness, m->geom_count) ||
        !CALLOC_ARRAY(w->force_last, nb) || !CALLOC_ARRAY(w->torque_last, nb) ||
        !CALLOC_ARRAY(w->work_pending, nb) || !CALLOC_ARRAY(w->body_budget, nb) ||
        !CALLOC_ARRAY(w->body_energy, nb) || !CALLOC_ARRAY(w->body_pair, nb)) {
        tch_watch_destroy(w);
        return NULL;
    }
    w->settings = DEFAULT_SETTINGS;
    for (int g = 0; g < m->geom_count; ++g) {
        w->geom_thickness[g] = geom_thickness(m, g);
    }
    w->size_energy = size_energy(m);
    w->body_count = nb;
    return w;
}

void tch_watch_destroy(tch_watch* w) {
    if (!w) {
        return;
    }
    void* arrays[] = {w->geom_thickness, w->force_last, w->torque_last, w->work_pending,
                      w->body_budget, w->body_energy, w->body_pair};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) {
        free(arrays[i]);
    }
    free(w);
}

/* The account, the per-body ledger and the warnings, for checkpoints (the rest is the
 * model's). */
void tch_watch_transfer(tch_stream* s, tch_watch* w) {
    size_t nb = (size_t)w->body_count;
    TCH_TRANSFER(s, w->settings);
    tch_stream_transfer(s, w->force_last, nb * sizeof *w->force_last);
    tch_stream_transfer(s, w->torque_last, nb * sizeof *w->torque_last);
    tch_stream_transfer(s, w->work_pending, nb * sizeof *w->work_pending);
    tch_stream_transfer(s, w->body_budget, nb * sizeof *w->body_budget);
    tch_stream_transfer(s, w->body_energy, nb * sizeof *w->body_energy);
    tch_stream_transfer(s, w->body_pair, nb * sizeof *w->body_pair);
    TCH_TRANSFER(s, w->started), TCH_TRANSFER(s, w->state_set);
    TCH_TRANSFER(s, w->kinetic_peak), TCH_TRANSFER(s, w->work_magnitude);
    TCH_TRANSFER(s, w->report), TCH_TRANSFER(s, w->warnings);
}

/* A new energy account from the next step on; the warnings and the deepest penetrations stay. */
static void restart_account(tch_watch* w) {
    w->started = false;
    w->state_set = false;
    w->kinetic_peak = 0;
    w->work_magnitude = 0;
    w->report.work_applied = 0;
    w->report.largest_gain = 0;
}

void tch_watch_restart(tch_watch* w) {
    restart_account(w);
    memset(&w->report, 0, sizeof w->report);
    for (int b = 0; b < w->body_count; ++b) {
        w->body_pair[b][0] = w->body_pair[b][1] = -1;
    }
}

void tch_watch_note_state_set(tch_watch* w) {
    w->state_set = w->started;
}

/* ---- energy ---- */

/* Kinetic and gravitational energy of free body b, J, from the velocities stage's centre-of-mass
 * velocity and the body-frame angular velocity in qvel; its kinetic part in *kinetic. */
static tch_real body_energy(const tch_model* m, const tch_data* d, int b, tch_real* kinetic) {
    const tch_real* w = d->qvel + m->body_qvel_adr[b] + 3;
    tch_vec3 w_B = {w[0], w[1], w[2]};
    tch_real mass = m->body_total_mass[b];
    *kinetic = 0.5 * (mass * tch_v3_dot(d->body_v_WCm[b], d->body_v_WCm[b]) +
                      tch_v3_dot(w_B, tch_m3_mul_v3(m->body_total_I_BCm[b], w_B)));
    return *kinetic - mass * tch_v3_dot(m->gravity, d->body_p_WCm[b]);
}

/* h/2 (F.v + T.w) of body b's applied loads at its current velocity. */
static tch_real half_step_power(const tch_data* d, tch_real h, int b, tch_vec3 F, tch_vec3 T) {
    return 0.5 * h * (tch_v3_dot(F, d->body_v_WCm[b]) + tch_v3_dot(T, d->body_w_W[b]));
}

static bool is_zero(tch_vec3 v) {
    return v.x == 0 && v.y == 0 && v.z == 0;
}

/* Adds the work of the last step's applied loads (W_k-1 of the header) to the account and to
 * each free root's budget, and keeps this step's loads for the next. */
static void account_applied_work(const tch_model* m, const tch_data* d, tch_watch* w) {
    tch_real h = m->timestep;
    for (int b = 1; b < m->body_count; ++b) {
        int root = m->body_root[b];
        if (root == 0 || (w->work_pending[b] == 0 && is_zero(w->force_last[b]) &&
                          is_zero(w->torque_last[b]) && is_zero(d->body_force_applied_W[b]) &&
                          is_zero(d->body_torque_applied_W[b]))) {
            continue; /* no load on b, last step or this one */
        }
        if (w->started) {
            tch_real work = w->work_pending[b] +
                            half_step_power(d, h, b, w->force_last[b], w->torque_last[b]);
            w->body_budget[root] += work;
            w->report.work_applied += work;
            w->work_magnitude += fabs(work);
        }
        w->force_last[b] = d->body_force_applied_W[b];
        w->torque_last[b] = d->body_torque_applied_W[b];
        w->work_pending[b] = half_step_power(d, h, b, w->force_last[b], w->torque_last[b]);
    }
}

/* Measures every free root's energy; a root's first measure (or one after its state was set
 * by hand) moves its budget with it. Returns the bodies' total; *kinetic, their kinetic part;
 * *set_by_hand, the energy the hand-set state changed. */
static tch_real measure_bodies(const tch_model* m, const tch_data* d, tch_watch* w,
                               tch_real* kinetic, tch_real* set_by_hand) {
    tch_real total = 0;
    *kinetic = 0;
    *set_by_hand = 0;
    for (int b = 1; b < m->body_count; ++b) {
        if (!m->body_free[b]) {
            continue;
        }
        tch_real k, e = body_energy(m, d, b, &k);
        if (!w->started) {
            w->body_budget[b] = e;
        } else if (w->state_set) {
            w->body_budget[b] += e - w->body_energy[b];
            *set_by_hand += e - w->body_energy[b];
        }
        w->body_energy[b] = e;
        total += e;
        *kinetic += k;
    }
    return total;
}

static tch_real elastic_energy(const tch_data* d) {
    tch_real total = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        total += d->pair_results[i].elastic_energy;
    }
    return total;
}

/* ---- warnings ---- */

/* The record of first's kind and pair (an energy gain has one record whatever its pair), made
 * from `first` when new; NULL when the records are full. */
static tch_watch_warning* find_or_add(tch_watch* w, const tch_watch_warning* first) {
    tch_watch_report* r = &w->report;
    for (int i = 0; i < r->warning_count; ++i) {
        tch_watch_warning* x = &w->warnings[i];
        if (x->kind == first->kind &&
            (x->kind == TCH_WARN_ENERGY_GAIN ||
             (x->geom_a == first->geom_a && x->geom_b == first->geom_b))) {
            return x;
        }
    }
    if (r->warning_count == WARNING_CAPACITY) {
        r->warnings_dropped++;
        return NULL;
    }
    w->warnings[r->warning_count] = *first;
    return &w->warnings[r->warning_count++];
}

/* Records one step in which the warning `now` held. */
static void record(tch_data* d, tch_watch* w, const tch_watch_warning* now) {
    d->warning_count[now->kind]++;
    tch_watch_warning* x = find_or_add(w, now);
    if (x) {
        x->worst = fmax(x->worst, now->value);
        x->steps++;
    }
}

/* The rate at which pair i's forces do work on its two bodies, W: the net force f on b (-f
 * on a) and torque T about the world origin, against each body's velocity field there. */
static tch_real pair_power(const tch_model* m, const tch_data* d, int i) {
    const tch_pair_result* p = &d->pair_results[i];
    int roots[2] = {m->body_root[m->geom_body[p->geom_a]],
                    m->body_root[m->geom_body[p->geom_b]]};
    tch_real power = 0, sign[2] = {-1, 1};
    for (int k = 0; k < 2; ++k) {
        int r = roots[k];
        if (r == 0) {
            continue;
        }
        tch_vec3 v_Wo = tch_v3_sub(d->body_v_WCm[r], tch_v3_cross(d->body_w_W[r], d->body_p_WCm[r]));
        power += sign[k] * (tch_v3_dot(p->f_W, v_Wo) + tch_v3_dot(p->tau_Wo_W, d->body_w_W[r]));
    }
    return power;
}

/* Keeps each free root's last pair: the one an energy warning names when the body has left
 * its contact by the time the gain shows (often a step after the contact that made it). */
static void follow_pairs(const tch_model* m, const tch_data* d, tch_watch* w) {
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* p = &d->pair_results[i];
        int roots[2] = {m->body_root[m->geom_body[p->geom_a]],
                        m->body_root[m->geom_body[p->geom_b]]};
        for (int k = 0; k < 2; ++k) {
            w->body_pair[roots[k]][0] = p->geom_a;
            w->body_pair[roots[k]][1] = p->geom_b;
        }
    }
}

/* The free root that gained the most against its budget, and of its pairs in this step the
 * one doing work on the bodies the fastest, else its last pair (-1 when it never touched
 * anything). */
static void name_gainer(const tch_model* m, const tch_data* d, const tch_watch* w,
                        tch_watch_warning* out) {
    tch_real most = -INFINITY;
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b] && w->body_energy[b] - w->body_budget[b] > most) {
            most = w->body_energy[b] - w->body_budget[b];
            out->body = b;
        }
    }
    if (out->body < 0) {
        return;
    }
    out->geom_a = w->body_pair[out->body][0];
    out->geom_b = w->body_pair[out->body][1];
    tch_real fastest = -INFINITY;
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* p = &d->pair_results[i];
        if ((m->body_root[m->geom_body[p->geom_a]] == out->body ||
             m->body_root[m->geom_body[p->geom_b]] == out->body) &&
            pair_power(m, d, i) > fastest) {
            fastest = pair_power(m, d, i);
            out->geom_a = p->geom_a;
            out->geom_b = p->geom_b;
        }
    }
}

static void check_energy(const tch_model* m, tch_data* d, tch_watch* w, tch_real gain) {
    tch_real limit = w->settings.energy_tolerance * w->report.energy_scale;
    if (!(gain > limit)) {
        return;
    }
    tch_watch_warning now = {TCH_WARN_ENERGY_GAIN, d->time, -1, -1, -1, gain, limit, gain, 0};
    if (d->warning_count[TCH_WARN_ENERGY_GAIN] == 0) {
        name_gainer(m, d, w, &now); /* only the first step names them: they are kept once */
    }
    record(d, w, &now);
}

/* ---- penetration ---- */

/* How deep the pair's geoms overlap, m: the deepest of its contact points (the pressure
 * model's patch point carries the deepest overlap its field tells). */
static tch_real pair_depth(const tch_data* d, const tch_pair_result* p) {
    tch_real depth = 0;
    for (int i = p->contact_start; i < p->contact_start + p->contact_count; ++i) {
        depth = d->contacts[i].depth > depth ? d->contacts[i].depth : depth; /* no fmax call */
    }
    return depth;
}

static void check_penetration(const tch_model* m, tch_data* d, tch_watch* w) {
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* p = &d->pair_results[i];
        tch_real depth = pair_depth(d, p);
        tch_real* deepest = &w->report.deepest[p->model];
        *deepest = depth > *deepest ? depth : *deepest;
        tch_real thin_a = w->geom_thickness[p->geom_a], thin_b = w->geom_thickness[p->geom_b];
        tch_real limit = w->settings.penetration_fraction * (thin_a < thin_b ? thin_a : thin_b);
        if (depth > limit) {
            int sinking = thin_a <= thin_b ? p->geom_a : p->geom_b;
            if (m->body_root[m->geom_body[sinking]] == 0) {
                sinking = sinking == p->geom_a ? p->geom_b : p->geom_a;
            }
            tch_watch_warning now = {TCH_WARN_DEEP_PENETRATION, d->time, m->geom_body[sinking],
                                     p->geom_a, p->geom_b, depth, limit, depth, 0};
            record(d, w, &now);
        }
    }
}

/* ---- the step ---- */

void tch_watch_step(const tch_model* m, tch_data* d, tch_watch* w) {
    if (!w->settings.enabled) {
        return;
    }
    tch_real kinetic, set_by_hand;
    tch_real energy = measure_bodies(m, d, w, &kinetic, &set_by_hand) + elastic_energy(d);
    account_applied_work(m, d, w);
    tch_watch_report* r = &w->report;
    if (!w->started) {
        r->energy_start = energy;
        w->started = true;
    }
    r->energy_start += set_by_hand;
    w->state_set = false;
    w->kinetic_peak = fmax(w->kinetic_peak, kinetic);
    r->steps++;
    r->energy = energy;
    r->energy_scale = w->size_energy + w->kinetic_peak + w->work_magnitude;
    tch_real gain = energy - r->energy_start - r->work_applied;
    r->largest_gain = r->steps == 1 ? gain : fmax(r->largest_gain, gain);
    follow_pairs(m, d, w);
    check_energy(m, d, w, gain);
    check_penetration(m, d, w);
}

/* ---- the public API ---- */

tch_watch_settings tch_data_watch_settings(const tch_data* d) {
    return d->internal->watch->settings;
}

tch_status tch_data_set_watch_settings(tch_data* d, const tch_watch_settings* s,
                                       tch_error* err) {
    if (!(s->energy_tolerance > 0 && isfinite(s->energy_tolerance) &&
          s->penetration_fraction > 0 && isfinite(s->penetration_fraction))) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the watch's energy tolerance and penetration fraction must be positive "
                        "and finite, got %g and %g",
                        s->energy_tolerance, s->penetration_fraction);
    }
    tch_watch* w = d->internal->watch;
    if (s->enabled && !w->settings.enabled) {
        restart_account(w); /* the steps it did not watch cannot be accounted for */
    }
    w->settings = *s;
    return TCH_OK;
}

void tch_data_watch_report(const tch_data* d, tch_watch_report* out) {
    *out = d->internal->watch->report;
}

const tch_watch_warning* tch_data_watch_warning(const tch_data* d, int i) {
    const tch_watch* w = d->internal->watch;
    return i >= 0 && i < w->report.warning_count ? &w->warnings[i] : NULL;
}
