/* Driver `scripted`: a pose trajectory from a CSV file, played at the servo period. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "haptics/rotation.h"
#include "math/vec.h"
#include "touche/haptics.h"

typedef struct sample {
    tch_real time;
    tch_transform pose;
    tch_vec3 velocity, angular; /* when the file gives them (vx..wz) */
} sample;

enum { FIELD_COUNT = 14 };

/* Where each field sits in a row: time, x, y, z, qw, qx, qy, qz, vx, vy, vz, wx, wy, wz (-1:
 * absent; the orientation then the identity, the velocities those of the segments), and how
 * many columns a row has. */
typedef struct columns {
    int field[FIELD_COUNT];
    int count;
} columns;

enum { MAX_COLUMNS = 32 };

static const char* const FIELD_NAMES[FIELD_COUNT] = {"time", "x",  "y",  "z",  "qw", "qx", "qy",
                                                     "qz",   "vx", "vy", "vz", "wx", "wy", "wz"};

typedef struct scripted {
    sample* samples;
    size_t count;
    tch_real period;
    uint64_t reads;
    size_t segment; /* the segment of the last read: reads move forward in time */
    bool extra_columns; /* playback: columns other than the pose's are allowed and skipped */
    bool has_velocity;  /* the file gives the velocities (vx..wz): reads report them */
} scripted;

/* Splits a comma-separated line into at most MAX_COLUMNS trimmed fields, in place. */
static int split_fields(char* line, char* fields[MAX_COLUMNS]) {
    int n = 0;
    for (char* p = line; n < MAX_COLUMNS;) {
        p += strspn(p, " \t");
        fields[n++] = p;
        char* comma = strchr(p, ',');
        char* end = comma ? comma : p + strlen(p);
        while (end > p && strchr(" \t\r\n", end[-1])) {
            end--;
        }
        *end = '\0';
        if (!comma) {
            return n;
        }
        p = comma + 1;
    }
    return MAX_COLUMNS + 1;
}

/* Reads a header line into `cols`; NULL or what is wrong with it. */
static const char* parse_header(char* line, bool extra_columns, columns* cols) {
    char* names[MAX_COLUMNS];
    cols->count = split_fields(line, names);
    if (cols->count > MAX_COLUMNS) {
        return "more than 32 columns";
    }
    for (int f = 0; f < FIELD_COUNT; f++) {
        cols->field[f] = -1;
    }
    for (int c = 0; c < cols->count; c++) {
        int f = 0;
        while (f < FIELD_COUNT && strcmp(names[c], FIELD_NAMES[f]) != 0) {
            f++;
        }
        if (f < FIELD_COUNT) {
            cols->field[f] = c;
        } else if (!extra_columns) {
            return "unknown column (expected the header time,x,y,z or time,x,y,z,qw,qx,qy,qz, "
                   "optionally with vx,vy,vz,wx,wy,wz)";
        }
    }
    bool some_quat = false, all_quat = true;
    for (int f = 4; f < 8; f++) {
        some_quat |= cols->field[f] >= 0;
        all_quat &= cols->field[f] >= 0;
    }
    for (int f = 0; f < 4; f++) {
        if (cols->field[f] < 0) {
            return "the header must name the columns time, x, y and z";
        }
    }
    if (some_quat && !all_quat) {
        return "the header names some of qw,qx,qy,qz but not all";
    }
    int velocities = 0;
    for (int f = 8; f < FIELD_COUNT; f++) {
        velocities += cols->field[f] >= 0;
    }
    return velocities % 6 != 0 ? "the header names some of vx,vy,vz,wx,wy,wz but not all" : NULL;
}

/* Parses one data row into `s`; false when it is not cols->count finite numbers. */
static bool parse_row(char* line, const columns* cols, sample* s) {
    char* fields[MAX_COLUMNS];
    if (split_fields(line, fields) != cols->count) {
        return false;
    }
    tch_real v[FIELD_COUNT] = {0, 0, 0, 0, 1};
    for (int f = 0; f < FIELD_COUNT; f++) {
        if (cols->field[f] < 0) {
            continue;
        }
        const char* text = fields[cols->field[f]];
        char* end;
        errno = 0;
        v[f] = strtod(text, &end);
        if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v[f])) {
            return false;
        }
    }
    s->time = v[0];
    s->pose.p = tch_v3(v[1], v[2], v[3]);
    s->pose.q = (tch_quat){v[4], v[5], v[6], v[7]};
    s->velocity = tch_v3(v[8], v[9], v[10]);
    s->angular = tch_v3(v[11], v[12], v[13]);
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

/* One non-blank, non-comment line: the header (the first line, when it starts with a letter)
 * or a sample. NULL or what is wrong with it. */
static const char* read_line(scripted* d, char* text, bool first, columns* cols, sample* s,
                             bool* is_sample) {
    *is_sample = false;
    if (first && ((*text >= 'a' && *text <= 'z') || (*text >= 'A' && *text <= 'Z'))) {
        const char* problem = parse_header(text, d->extra_columns, cols);
        d->has_velocity = cols->field[8] >= 0;
        return problem;
    }
    if (!parse_row(text, cols, s)) {
        return cols->count == 8 && cols->field[4] == 4
                   ? "expected 8 numbers time,x,y,z,qw,qx,qy,qz"
                   : "expected one number per column of the header";
    }
    *is_sample = true;
    return row_problem(d, s);
}

static tch_status read_file(scripted* d, const char* path, tch_error* err) {
    FILE* f = fopen(path, "r");
    if (!f) {
        return tch_fail(err, TCH_ERR_IO, path, 0, "%s haptic device: cannot open %s",
                        d->extra_columns ? "playback" : "scripted", path);
    }
    columns cols = {{0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1, -1, -1, -1}, 8}; /* no header */
    char line[1024];
    int line_number = 0;
    size_t capacity = 0;
    bool first = true;
    tch_status status = TCH_OK;
    while (status == TCH_OK && fgets(line, sizeof line, f)) {
        line_number++;
        char* text = line + strspn(line, " \t");
        if (*text == '#' || *text == '\n' || *text == '\r' || *text == '\0') {
            continue;
        }
        sample s;
        bool is_sample;
        const char* problem = read_line(d, text, first, &cols, &s, &is_sample);
        first = false;
        if (problem) {
            status = tch_fail(err, TCH_ERR_PARSE, path, line_number, "%s haptic device: %s:%d: %s",
                              d->extra_columns ? "playback" : "scripted", path, line_number,
                              problem);
        } else if (is_sample && append(d, &capacity, s) != TCH_OK) {
            status = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, path, line_number,
                              "scripted haptic device: out of memory");
        }
    }
    fclose(f);
    if (status == TCH_OK && d->count == 0) {
        status = tch_fail(err, TCH_ERR_PARSE, path, line_number,
                          "%s haptic device: %s has no samples",
                          d->extra_columns ? "playback" : "scripted", path);
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

static tch_status open_trajectory(const void* config, bool extra_columns, void** self,
                                  tch_haptic_spec* spec, tch_error* err) {
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
    d->extra_columns = extra_columns;
    tch_status s = read_file(d, c->path, err);
    if (s != TCH_OK) {
        scripted_close(d);
        return s;
    }
    *spec = c->spec;
    *self = d;
    return TCH_OK;
}

static tch_status scripted_open(const void* config, void** self, tch_haptic_spec* spec,
                                tch_error* err) {
    return open_trajectory(config, false, self, spec, err);
}

static tch_status playback_open(const void* config, void** self, tch_haptic_spec* spec,
                                tch_error* err) {
    return open_trajectory(config, true, self, spec, err);
}

/* Spherical linear interpolation (Shoemake 1985) as q0 exp(t log(q0* q1)). */
static tch_quat slerp(tch_quat q0, tch_quat q1, tch_real t) {
    tch_vec3 r = tch_haptic_rotvec_of(tch_q_mul(tch_q_conj(q0), q1));
    return tch_q_normalize(tch_q_mul(q0, tch_q_from_rotvec(tch_v3_scale(r, t))));
}

static tch_status scripted_read(void* self, tch_haptic_state* state, tch_error* err) {
    (void)err;
    scripted* d = self;
    tch_real t = (tch_real)d->reads++ * d->period;
    *state = (tch_haptic_state){.time = t};
    const sample* first = &d->samples[0];
    const sample* last = &d->samples[d->count - 1];
    if (t < first->time || d->count == 1) {
        state->pose = first->pose;
        return TCH_OK;
    }
    if (t >= last->time) {
        state->pose = last->pose;
        if (d->has_velocity) {
            state->velocity = last->velocity;
            state->angular = last->angular;
        }
        return TCH_OK;
    }
    while (d->samples[d->segment + 1].time <= t) { /* at a knot: the segment that starts */
        d->segment++;
    }
    const sample* a = &d->samples[d->segment];
    const sample* b = a + 1;
    tch_real span = b->time - a->time, u = (t - a->time) / span;
    state->pose.p = tch_v3_lerp(a->pose.p, b->pose.p, u);
    state->pose.q = slerp(a->pose.q, b->pose.q, u);
    state->velocity = tch_v3_scale(tch_v3_sub(b->pose.p, a->pose.p), 1 / span);
    /* base-frame angular velocity of the segment: log(q1 q0*) / span */
    state->angular = tch_v3_scale(tch_haptic_rotvec_of(tch_q_mul(b->pose.q, tch_q_conj(a->pose.q))),
                                  1 / span);
    if (d->has_velocity) { /* a recorded log: the velocities the device reported */
        state->velocity = a->velocity;
        state->angular = a->angular;
    }
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

static const tch_haptic_ops playback_ops = {"playback", playback_open, scripted_read,
                                            scripted_write, scripted_close};

const tch_haptic_ops* tch_haptic_playback_driver(void) {
    return &playback_ops;
}
