/* touche fit: reading recordings (docs/fit.md, "Recordings") and estimating each body's
 * initial state from its free flight. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_math.h"
#include "fit.h"

/* The columns of a recording: touche run's trajectory.csv, whose velocity columns are optional. */
static const char* const POSE_HEADER = "time,body,x,y,z,qw,qx,qy,qz";
static const char* const VELOCITY_HEADER = ",vx,vy,vz,wx,wy,wz";
/* touche run's trajectory.csv also gives the angular velocity in the body frame (not read). */
static const char* const BODY_RATE_HEADER = ",wx_B,wy_B,wz_B";
enum { POSE_COLUMNS = 9, ALL_COLUMNS = 15, RUN_COLUMNS = 18 };

static int bad_line(const char* path, int line, const char* what, const char* detail) {
    fprintf(stderr, "touche fit: %s:%d: %s%s%s\n", path, line, what, detail ? ": " : "",
            detail ? detail : "");
    return 0;
}

/* Splits `line` at commas in place; returns the number of fields (at most `most`, and one more
 * when there are more). */
static int split_fields(char* line, char** fields, int most) {
    int n = 0;
    for (char* p = line; n <= most;) {
        fields[n++] = p;
        p = strchr(p, ',');
        if (!p) break;
        *p++ = '\0';
    }
    return n;
}

static int read_number(const char* text, double* out) {
    char* end = NULL;
    errno = 0;
    *out = strtod(text, &end);
    return !errno && end != text && *end == '\0' && isfinite(*out);
}

/* The track of body `name`, created on first sight; NULL after printing why. */
static fit_track* track_of(fit_recording* r, const tch_model* m, const char* name, int line) {
    for (int i = 0; i < r->track_count; ++i) {
        if (strcmp(m->body_name[r->tracks[i].body], name) == 0) return &r->tracks[i];
    }
    int b = tch_model_body_index(m, name);
    if (b < 0) {
        bad_line(r->path, line, "the scene has no body named", name);
        return NULL;
    }
    if (!m->body_free[b] || m->body_root[b] != b || m->body_qpos_adr[b] < 0) {
        bad_line(r->path, line, "only free bodies can be fitted; not free", name);
        return NULL;
    }
    if (r->track_count == FIT_MAX_BODIES) {
        bad_line(r->path, line, "more bodies than touche fit takes (16)", NULL);
        return NULL;
    }
    fit_track* t = &r->tracks[r->track_count++];
    *t = (fit_track){.body = b};
    return t;
}

static int append_sample(fit_track* t, const fit_sample* s, int* capacity) {
    if (t->count == *capacity || !t->samples) {
        int grown = t->count < 16 ? 32 : 2 * t->count;
        fit_sample* more = realloc(t->samples, (size_t)grown * sizeof *more);
        if (!more) return 0;
        t->samples = more;
        *capacity = grown;
    }
    t->samples[t->count++] = *s;
    return 1;
}

/* One data line: its fields into a sample of its body's track. */
static int read_row(fit_recording* r, const tch_model* m, char* text, int line,
                    int capacities[FIT_MAX_BODIES]) {
    char* f[RUN_COLUMNS + 1];
    int n = split_fields(text, f, RUN_COLUMNS);
    int expected = r->columns;
    if (n != expected) {
        char detail[64];
        snprintf(detail, sizeof detail, "%d fields, the header has %d", n, expected);
        return bad_line(r->path, line, "wrong number of fields", detail);
    }
    double x[RUN_COLUMNS] = {0};
    for (int k = 0; k < n; ++k) {
        if (k != 1 && !read_number(f[k], &x[k])) {
            char detail[96];
            snprintf(detail, sizeof detail, "field %d is '%.40s'", k + 1, f[k]);
            return bad_line(r->path, line, "not a finite number", detail);
        }
    }
    fit_sample s = {.t = x[0], .p = {x[2], x[3], x[4]}, .q = {x[5], x[6], x[7], x[8]},
                    .v = {x[9], x[10], x[11]}, .w = {x[12], x[13], x[14]}};
    double norm = sqrt(s.q.w * s.q.w + s.q.x * s.q.x + s.q.y * s.q.y + s.q.z * s.q.z);
    if (fabs(norm - 1) > 0.01) {
        char detail[64];
        snprintf(detail, sizeof detail, "its norm is %.6g", norm);
        return bad_line(r->path, line, "the quaternion (qw,qx,qy,qz) is not a unit quaternion",
                        detail);
    }
    s.q = (tch_quat){s.q.w / norm, s.q.x / norm, s.q.y / norm, s.q.z / norm};
    fit_track* t = track_of(r, m, f[1], line);
    if (!t) return 0;
    if (t->count > 0 && !(s.t > t->samples[t->count - 1].t)) {
        return bad_line(r->path, line, "the time does not increase for body", f[1]);
    }
    if (!append_sample(t, &s, &capacities[t - r->tracks])) {
        return bad_line(r->path, line, "out of memory", NULL);
    }
    return 1;
}

static int read_header(fit_recording* r, char* text) {
    size_t pose = strlen(POSE_HEADER), velocity = strlen(VELOCITY_HEADER);
    const char* rest = text + pose;
    if (strncmp(text, POSE_HEADER, pose) == 0 && *rest == '\0') {
        r->columns = POSE_COLUMNS;
    } else if (strncmp(text, POSE_HEADER, pose) == 0 && strcmp(rest, VELOCITY_HEADER) == 0) {
        r->columns = ALL_COLUMNS;
    } else if (strncmp(text, POSE_HEADER, pose) == 0 &&
               strncmp(rest, VELOCITY_HEADER, velocity) == 0 &&
               strcmp(rest + velocity, BODY_RATE_HEADER) == 0) {
        r->columns = RUN_COLUMNS;
    } else {
        fprintf(stderr, "touche fit: %s:1: expected the header '%s', '%s%s' or '%s%s%s' "
                        "(docs/fit.md)\n",
                r->path, POSE_HEADER, POSE_HEADER, VELOCITY_HEADER, POSE_HEADER,
                VELOCITY_HEADER, BODY_RATE_HEADER);
        return 0;
    }
    r->has_velocities = r->columns > POSE_COLUMNS;
    return 1;
}

/* The largest extent of body b's geoms along its own axes, m (planes left out). */
static double body_width(const tch_model* m, int b) {
    tch_vec3 lo = {INFINITY, INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY, -INFINITY};
    for (int g = 0; g < m->geom_count; ++g) {
        if (m->body_root[m->geom_body[g]] != b || m->geom_rbound[g] <= 0) continue;
        tch_vec3 c = m->geom_X_RG[g].p;
        double r = m->geom_rbound[g];
        if (m->geom_type[g] == TCH_GEOM_BOX) { /* its corners, tighter than its sphere */
            for (int k = 0; k < 8; ++k) {
                const double* s = m->geom_size[g];
                tch_vec3 corner = {(k & 1 ? 1 : -1) * s[0], (k & 2 ? 1 : -1) * s[1],
                                   (k & 4 ? 1 : -1) * s[2]};
                tch_vec3 p = cli_apply(&m->geom_X_RG[g], corner);
                lo = (tch_vec3){fmin(lo.x, p.x), fmin(lo.y, p.y), fmin(lo.z, p.z)};
                hi = (tch_vec3){fmax(hi.x, p.x), fmax(hi.y, p.y), fmax(hi.z, p.z)};
            }
            continue;
        }
        lo = (tch_vec3){fmin(lo.x, c.x - r), fmin(lo.y, c.y - r), fmin(lo.z, c.z - r)};
        hi = (tch_vec3){fmax(hi.x, c.x + r), fmax(hi.y, c.y + r), fmax(hi.z, c.z + r)};
    }
    double width = fmax(hi.x - lo.x, fmax(hi.y - lo.y, hi.z - lo.z));
    return isfinite(width) && width > 0 ? width : 1.0;
}

int fit_read_recording(const char* path, const tch_model* m, fit_recording* r) {
    *r = (fit_recording){0};
    snprintf(r->path, sizeof r->path, "%s", path);
    FILE* f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "touche fit: cannot read %s: %s\n", path, strerror(errno));
        return 0;
    }
    char text[4096];
    int line = 0, ok = 1, capacities[FIT_MAX_BODIES] = {0};
    while (ok && fgets(text, sizeof text, f)) {
        ++line;
        size_t n = strlen(text);
        if (n == sizeof text - 1 && text[n - 1] != '\n') {
            ok = bad_line(path, line, "line too long", NULL);
            break;
        }
        while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) text[--n] = '\0';
        if (line == 1) ok = read_header(r, text);
        else if (n > 0) ok = read_row(r, m, text, line, capacities);
    }
    if (ok && ferror(f)) ok = bad_line(path, line, "read error", strerror(errno));
    fclose(f);
    if (ok && r->track_count == 0) ok = bad_line(path, line, "no samples", NULL);
    if (!ok) {
        fit_free_recording(r);
        return 0;
    }
    r->t0 = INFINITY, r->t1 = -INFINITY;
    for (int i = 0; i < r->track_count; ++i) {
        fit_track* t = &r->tracks[i];
        t->width = body_width(m, t->body);
        r->t0 = fmin(r->t0, t->samples[0].t);
        r->t1 = fmax(r->t1, t->samples[t->count - 1].t);
    }
    return 1;
}

void fit_free_recording(fit_recording* r) {
    for (int i = 0; i < r->track_count; ++i) free(r->tracks[i].samples);
    r->track_count = 0;
}

/* ---- the initial state from the free flight ---- */

/* Whether the scene's geometry comes within `guard` of body b with the body at sample s (the
 * other recorded bodies stay where `d` holds them): `m` is the detection model, the scene with
 * the point model's narrow phase and a wide margin, so that the gap is measured. */
static int touches(const tch_model* m, tch_data* d, const fit_track* t, const fit_sample* s,
                   double guard) {
    tch_transform X = {s->q, s->p};
    tch_error err = {0};
    tch_vec3 zero = {0, 0, 0};
    if (tch_data_set_body_state(m, d, t->body, &X, zero, zero, &err) != TCH_OK) return 1;
    tch_stage_kinematics(m, d);
    if (tch_stage_collision(m, d, &err) != TCH_OK) return 1;
    for (int i = 0; i < d->contact_count; ++i) {
        const tch_contact* c = &d->contacts[i];
        int a = m->body_root[m->geom_body[c->geom_a]], b = m->body_root[m->geom_body[c->geom_b]];
        if ((a == t->body || b == t->body) && c->depth > -guard) return 1;
    }
    return 0;
}

/* Least squares of y_k = a + b s_k over n samples: a and b. */
static void fit_line(const double* s, const double* y, int n, double* a, double* b) {
    double ms = 0, my = 0, sss = 0, ssy = 0;
    for (int k = 0; k < n; ++k) ms += s[k], my += y[k];
    ms /= n, my /= n;
    for (int k = 0; k < n; ++k) sss += (s[k] - ms) * (s[k] - ms), ssy += (s[k] - ms) * (y[k] - my);
    *b = sss > 0 ? ssy / sss : 0;
    *a = my - *b * ms;
}

/* The centre of mass of track t at sample s, world. */
static tch_vec3 com_of(const tch_model* m, const fit_track* t, const fit_sample* s) {
    tch_transform X = {s->q, s->p};
    return cli_apply(&X, m->body_total_p_BCm[t->body]);
}

/* Each axis of the centre of mass c(t) = c0 + V t + g t^2 / 2 over the flight (t from the
 * recording's start), least squares: c0 and V. */
static void fit_parabola(const tch_model* m, const fit_track* t, double t0, double* s,
                         double* y, tch_vec3* c0, tch_vec3* V) {
    double g[3] = {m->gravity.x, m->gravity.y, m->gravity.z}, a[3], b[3];
    for (int axis = 0; axis < 3; ++axis) {
        for (int k = 0; k < t->flight; ++k) {
            tch_vec3 c = com_of(m, t, &t->samples[k]);
            double ck = axis == 0 ? c.x : axis == 1 ? c.y : c.z;
            s[k] = t->samples[k].t - t0;
            y[k] = ck - 0.5 * g[axis] * s[k] * s[k];
        }
        fit_line(s, y, t->flight, &a[axis], &b[axis]);
    }
    *c0 = (tch_vec3){a[0], a[1], a[2]}, *V = (tch_vec3){b[0], b[1], b[2]};
}

/* A constant angular velocity w (world) over the flight: q_k = exp((r0 + w s_k)) q_ref with
 * q_ref the first sample, each rotation vector unwrapped to the nearest of its 2 pi turns.
 * Returns the orientation at s = 0 and w. */
static void fit_spin(const fit_track* t, double t0, double* s, double* y, tch_quat* q0,
                     tch_vec3* w) {
    tch_quat ref = t->samples[0].q;
    tch_vec3* r = malloc((size_t)t->flight * sizeof *r);
    if (!r) { /* no memory for the fit: the first sample, at rest */
        *q0 = ref, *w = (tch_vec3){0, 0, 0};
        return;
    }
    for (int k = 0; k < t->flight; ++k) {
        r[k] = cli_quat_to_rotvec(cli_quat_multiply(t->samples[k].q, cli_quat_conjugate(ref)));
        double angle = cli_v3_norm(r[k]);
        if (k > 0 && angle > 1e-9) { /* the same rotation as angle - 2 pi, if nearer */
            tch_vec3 other = cli_v3_scale(r[k], (angle - 2 * 3.14159265358979323846) / angle);
            if (cli_v3_norm(cli_v3_sub(other, r[k - 1])) < cli_v3_norm(cli_v3_sub(r[k], r[k - 1]))) {
                r[k] = other;
            }
        }
    }
    double a[3], b[3];
    for (int axis = 0; axis < 3; ++axis) {
        for (int k = 0; k < t->flight; ++k) {
            s[k] = t->samples[k].t - t0;
            y[k] = axis == 0 ? r[k].x : axis == 1 ? r[k].y : r[k].z;
        }
        fit_line(s, y, t->flight, &a[axis], &b[axis]);
    }
    free(r);
    *q0 = cli_quat_multiply(cli_quat_from_rotvec((tch_vec3){a[0], a[1], a[2]}), ref);
    *w = (tch_vec3){b[0], b[1], b[2]};
}

/* Semi-implicit and linearly implicit Euler advance a free flight as q+ = q + h (v + h g), so
 * their discrete parabola is c0 + (v0 + g h / 2) t + g t^2 / 2: started from V - g h / 2 they
 * follow the fitted one exactly. RK4 and the adaptive integrator are exact on a parabola. */
static tch_vec3 integrator_start_velocity(const tch_model* m, tch_vec3 V) {
    if (m->integrator == TCH_INTEGRATOR_RK4 || m->integrator == TCH_INTEGRATOR_ADAPTIVE) return V;
    return cli_v3_sub(V, cli_v3_scale(m->gravity, 0.5 * m->timestep));
}

/* How far the body's surface may come towards another from sample k to the next: the
 * origin's travel, the turn times half the width (a box's corners about its middle), and 1%
 * of the width for the noise. */
static double reach_to_next(const fit_track* t, int k) {
    double guard = 0.01 * t->width;
    if (k + 1 >= t->count) return guard;
    const fit_sample *a = &t->samples[k], *b = &t->samples[k + 1];
    double turn = cli_v3_norm(cli_quat_to_rotvec(cli_quat_multiply(b->q, cli_quat_conjugate(a->q))));
    return guard + cli_v3_norm(cli_v3_sub(b->p, a->p)) + turn * t->width / 2;
}

/* Samples before the first that is within its reach to the next one of touching: an impact
 * between two samples ends the flight at the first of them. */
static int count_flight(const tch_model* detect, tch_data* d, const fit_track* t) {
    int k = 0;
    while (k < t->count && !touches(detect, d, t, &t->samples[k], reach_to_next(t, k))) ++k;
    return k;
}

static int estimate_track(const tch_model* m, const tch_model* detect, tch_data* d,
                          const fit_recording* r, fit_track* t) {
    t->flight = count_flight(detect, d, t);
    if (t->flight < 3) {
        if (!r->has_velocities) {
            fprintf(stderr, "touche fit: %s: body '%s' has %d samples of free flight before "
                            "its first contact (at t = %.6g s); at least 3 are needed to "
                            "estimate its initial velocity, or velocity columns (docs/fit.md)\n",
                    r->path, m->body_name[t->body], t->flight,
                    t->samples[t->flight < t->count ? t->flight : t->count - 1].t);
            return 0;
        }
        const fit_sample* s = &t->samples[0]; /* the file's velocities, as recorded */
        t->X0 = (tch_transform){s->q, s->p}, t->v0 = s->v, t->w0 = s->w;
        return 1;
    }
    double* s = malloc(2 * (size_t)t->flight * sizeof *s);
    if (!s) return 0;
    tch_vec3 c0, V;
    tch_quat q0;
    fit_parabola(m, t, r->t0, s, s + t->flight, &c0, &V);
    fit_spin(t, r->t0, s, s + t->flight, &q0, &t->w0);
    free(s);
    /* origin = com - R p_BCm; its velocity v_com + w x (origin - com) */
    tch_vec3 offset = cli_rotate(q0, m->body_total_p_BCm[t->body]);
    t->X0 = (tch_transform){q0, cli_v3_sub(c0, offset)};
    t->v0 = cli_v3_add(integrator_start_velocity(m, V), cli_v3_cross(t->w0, cli_v3_scale(offset, -1)));
    return 1;
}

int fit_estimate_initial_state(const tch_model* m, const tch_model* detect, fit_recording* r) {
    tch_data* d = NULL;
    tch_error err = {0};
    if (tch_data_create(detect, &d, &err) != TCH_OK) {
        cli_print_error("cannot create the simulation data", &err);
        return 0;
    }
    int ok = 1;
    for (int i = 0; ok && i < r->track_count; ++i) ok = estimate_track(m, detect, d, r, &r->tracks[i]);
    tch_data_destroy(d);
    return ok;
}

