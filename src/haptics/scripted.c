/* Driver `scripted`: a pose trajectory from a CSV file, played at the servo period. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "math/vec.h"
#include "touche/haptics.h"

typedef struct sample {
    tch_real time;
    tch_transform pose;
} sample;

typedef struct scripted {
    sample* samples;
    size_t count;
    tch_real period;
    uint64_t reads;
    size_t segment; /* the segment of the last read: reads move forward in time */
} scripted;

/* Parses one data row into `s`; false when it is not 8 comma-separated numbers. */
static bool parse_row(const char* line, sample* s) {
    tch_real v[8];
    const char* p = line;
    for (int i = 0; i < 8; i++) {
        char* end;
        errno = 0;
        v[i] = strtod(p, &end);
        if (end == p || errno == ERANGE || !isfinite(v[i])) {
            return false;
        }
        p = end;
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        if (i < 7 && *p++ != ',') {
            return false;
        }
    }
    p += strspn(p, " \t\r\n");
    if (*p != '\0') {
        return false;
    }
    s->time = v[0];
    s->pose.p = tch_v3(v[1], v[2], v[3]);
    s->pose.q = (tch_quat){v[4], v[5], v[6], v[7]};
    return true;
}

static tch_status append(scripted* d, size_t* capacity, sample s) {
    if (d->count == *capacity) {
        size_t grown = *capacity ? 2 * *capacity : 64;
        sample* more = realloc(d->samples, grown * sizeof *more);
        if (!more) {
            return TCH_ERR_OUT_OF_MEMORY;
        }
        d->samples = more;
        *capacity = grown;
    }
    d->samples[d->count++] = s;
    return TCH_OK;
}

/* Checks a parsed row against the previous one: unit-normalizable quaternion, rising time. */
static const char* row_problem(const scripted* d, sample* s) {
    tch_real n = tch_q_norm(s->pose.q);
    if (!(n > 1e-6)) {
        return "the quaternion qw,qx,qy,qz is zero";
    }
    s->pose.q = tch_q_normalize(s->pose.q);
    if (d->count > 0 && !(s->time > d->samples[d->count - 1].time)) {
        return "times must be strictly increasing";
    }
    return NULL;
}

static tch_status read_file(scripted* d, const char* path, tch_error* err) {
    FILE* f = fopen(path, "r");
    if (!f) {
        return tch_fail(err, TCH_ERR_IO, path, 0, "scripted haptic device: cannot open %s", path);
    }
    char line[512];
    int line_number = 0;
    size_t capacity = 0;
    tch_status status = TCH_OK;
    while (status == TCH_OK && fgets(line, sizeof line, f)) {
        line_number++;
        const char* text = line + strspn(line, " \t");
        if (*text == '#' || *text == '\n' || *text == '\r' || *text == '\0') {
            continue;
        }
        sample s;
        const char* problem = NULL;
        if (!parse_row(text, &s)) {
            problem = "expected 8 numbers time,x,y,z,qw,qx,qy,qz";
        } else {
            problem = row_problem(d, &s);
        }
        if (problem) {
            status = tch_fail(err, TCH_ERR_PARSE, path, line_number,
                              "scripted haptic device: %s:%d: %s", path, line_number, problem);
        } else if (append(d, &capacity, s) != TCH_OK) {
            status = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, path, line_number,
                              "scripted haptic device: out of memory");
        }
    }
    fclose(f);
    if (status == TCH_OK && d->count == 0) {
        status = tch_fail(err, TCH_ERR_PARSE, path, line_number,
                          "scripted haptic device: %s has no samples", path);
    }
    return status;
}

static void scripted_close(void* self) {
    scripted* d = self;
    if (d) {
        free(d->samples);
        free(d);
    }
}

static tch_status scripted_open(const void* config, void** self, tch_haptic_spec* spec,
                                tch_error* err) {
    const tch_haptic_scripted_config* c = config;
    if (!c || !c->path || !(c->period > 0)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "scripted haptic device: needs a path and a period > 0");
    }
    scripted* d = calloc(1, sizeof *d);
    if (!d) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "scripted haptic device: out of memory");
    }
    d->period = c->period;
    tch_status s = read_file(d, c->path, err);
    if (s != TCH_OK) {
        scripted_close(d);
        return s;
    }
    *spec = c->spec;
    *self = d;
    return TCH_OK;
}

/* Rotation vector of unit q (log map, shortest way: q and -q are the same rotation). */
static tch_vec3 rotvec_of(tch_quat q) {
    if (q.w < 0) {
        q = (tch_quat){-q.w, -q.x, -q.y, -q.z};
    }
    tch_vec3 u = tch_v3(q.x, q.y, q.z);
    tch_real s = tch_v3_norm(u);
    if (s < 1e-12) {
        return tch_v3_scale(u, 2);
    }
    return tch_v3_scale(u, 2 * atan2(s, q.w) / s);
}

/* Spherical linear interpolation (Shoemake 1985) as q0 exp(t log(q0* q1)). */
static tch_quat slerp(tch_quat q0, tch_quat q1, tch_real t) {
    tch_vec3 r = rotvec_of(tch_q_mul(tch_q_conj(q0), q1));
    return tch_q_normalize(tch_q_mul(q0, tch_q_from_rotvec(tch_v3_scale(r, t))));
}

static tch_status scripted_read(void* self, tch_haptic_state* state, tch_error* err) {
    (void)err;
    scripted* d = self;
    tch_real t = (tch_real)d->reads++ * d->period;
    *state = (tch_haptic_state){.time = t};
    const sample* first = &d->samples[0];
    const sample* last = &d->samples[d->count - 1];
    if (t <= first->time || d->count == 1) {
        state->pose = first->pose;
        return TCH_OK;
    }
    if (t >= last->time) {
        state->pose = last->pose;
        return TCH_OK;
    }
    while (d->samples[d->segment + 1].time < t) {
        d->segment++;
    }
    const sample* a = &d->samples[d->segment];
    const sample* b = a + 1;
    tch_real span = b->time - a->time, u = (t - a->time) / span;
    state->pose.p = tch_v3_lerp(a->pose.p, b->pose.p, u);
    state->pose.q = slerp(a->pose.q, b->pose.q, u);
    state->velocity = tch_v3_scale(tch_v3_sub(b->pose.p, a->pose.p), 1 / span);
    /* base-frame angular velocity of the segment: log(q1 q0*) / span */
    state->angular = tch_v3_scale(rotvec_of(tch_q_mul(b->pose.q, tch_q_conj(a->pose.q))),
                                  1 / span);
    return TCH_OK;
}

/* A scripted device renders nothing: the command is accepted and dropped. */
static tch_status scripted_write(void* self, const tch_haptic_command* command, tch_error* err) {
    (void)self, (void)command, (void)err;
    return TCH_OK;
}

static const tch_haptic_ops scripted_ops = {"scripted", scripted_open, scripted_read,
                                            scripted_write, scripted_close};

const tch_haptic_ops* tch_haptic_scripted_driver(void) {
    return &scripted_ops;
}
