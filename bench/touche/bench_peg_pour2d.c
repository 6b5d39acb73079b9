/* The paper's 2D experiment (Williams, Lu and Trinkle 2017, section 6; peg.md §10.1) in the
 * engine's planar mode: 20 random convex polygons poured into an open box, one every 0.25 s,
 * 5 s, under `lcp` and under `peg`, for initial conditions x step sizes.
 *
 * Setup (the authors' box_of_poly.m and generateBodySets.m, in the plane x-z): a polygon is the
 * hull of 10 uniform points in [0,1]², centred on their mean, scaled 0.25, extruded 0.1 m
 * along y (a prism mesh); mass 0.25 kg, J = 0.003 kg m²; random rotation; the sources
 * alternate, (0.5, 0.8) with v_x = -0.7 m/s and (-0.5, 0.8) with +0.7; box: floor
 * x in [-1, 1], z in [-0.4, 0], walls x in [-1.2, -0.8] and [0.8, 1.2], z in [-0.4, 1.6]
 * (static); gravity 9.8; frictionless. A polygon not yet poured is parked far away and held
 * there each step. The engine's defaults otherwise (lcp: PGS, its margin and position
 * correction; peg: the 2D proximity max(0.5 h, 0.0008)).
 *
 * Metric (processData.m): at the end of every step the total pairwise overlap area of the
 * poured polygons with each other and with the box's parts (Sutherland-Hodgman clips of the
 * sections, computed here from the generated polygons and the bodies' poses, independently of
 * the engine's geometry). Also: a run that stops early (the engine's divergence check), the
 * islands whose solver failed or fell back, peg's trap count (I/X constraints that hold while
 * one of their contacts is violated: where the standard model would push without cause), and
 * the wall time per step.
 *
 *     bench_peg_pour2d [SEEDS [H_FIRST H_LAST [H_STRIDE [REACH]]]]
 *
 * (default 10 1 16 1 6: h = k ms for k = H_FIRST, H_FIRST + H_STRIDE, .. H_LAST; peg's
 * proximity epsilon = max(REACH h, 0.0008), REACH 0: the authors' default)
 *
 * prints one CSV row per (model, h): date, commit, model, h, runs, crashed, steps, overlap
 * median / Q1 / Q3 / max (m², pooled over the runs' steps), steps with any overlap > 1e-10,
 * failed islands, fallbacks, steps with a trap, mean microseconds per step.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../tests/contact/peg_sampling.h"
#include "bench_machine.h"
#include "contact/peg.h"
#include "engine/engine_internal.h"
#include "touche/io.h"
#include "touche/step.h"

enum { BODIES = 20, BOX_PARTS = 3, MAX_CLIP = 64 };

static const double RELEASE_PERIOD = 0.25, DURATION = 5.0;

/* peg's proximity epsilon as a speed times h: the features a step can bring into contact
 * (polygons reach about 4.5 m/s falling from the sources); 0: the authors' max(0.5 h, 8e-4),
 * with which a falling vertex crosses the band of epsilon in one step and passes through. */
static double PEG_REACH = 6;

typedef struct scene {
    peg_polygon polygons[BODIES];
    double angle[BODIES];
} scene;

/* ---- the scene ---- */

static void make_scene(unsigned long long seed, scene* s) {
    unsigned long long state = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (int i = 0; i < BODIES; ++i) {
        s->polygons[i] = peg_random_polygon(&state);
        s->angle[i] = 2 * TCH_PI * fixture_uniform(&state);
    }
}

static int append(char* out, size_t size, int used, const char* text) {
    int n = snprintf(out + used, size - (size_t)used, "%s", text);
    return used + n;
}

/* The scene as MJCF: the polygon (u, v) of the 2D code is the world (x, z). */
static char* scene_xml(const scene* s, const char* model, double h) {
    char margin[64] = ""; /* peg's proximity (below), else the model's default margin */
    if (strcmp(model, "peg") == 0 && PEG_REACH > 0) {
        snprintf(margin, sizeof margin, " touche:margin='%.17g'", fmax(PEG_REACH * h, 0.0008));
    }
    size_t size = 1 << 16;
    char* xml = malloc(size);
    char buffer[2048];
    int used = 0;
    snprintf(buffer, sizeof buffer,
             "<mujoco xmlns:touche='urn:touche'><option timestep='%.17g' gravity='0 0 -9.8' "
             "touche:planar='xz' touche:contact='%s'%s/><default><geom friction='0'/></default>"
             "<asset>",
             h, model, margin);
    used = append(xml, size, used, buffer);
    for (int i = 0; i < BODIES; ++i) {
        snprintf(buffer, sizeof buffer, "<mesh name='p%d' vertex='", i);
        used = append(xml, size, used, buffer);
        for (int k = 0; k < s->polygons[i].n; ++k) {
            const tch_vec3 p = s->polygons[i].local[k];
            snprintf(buffer, sizeof buffer, "%.17g -0.05 %.17g %.17g 0.05 %.17g ", p.x, p.y, p.x,
                     p.y);
            used = append(xml, size, used, buffer);
        }
        used = append(xml, size, used, "'/>");
    }
    used = append(xml, size, used,
                  "</asset><worldbody>"
                  "<geom name='floor' type='box' pos='0 0 -0.2' size='1 0.5 0.2'/>"
                  "<geom name='left' type='box' pos='-1 0 0.6' size='0.2 0.5 1'/>"
                  "<geom name='right' type='box' pos='1 0 0.6' size='0.2 0.5 1'/>");
    for (int i = 0; i < BODIES; ++i) {
        snprintf(buffer, sizeof buffer,
                 "<body name='b%d' pos='%d 0 100'><freejoint/><inertial pos='0 0 0' "
                 "mass='0.25' diaginertia='0.003 0.003 0.003'/><geom type='mesh' mesh='p%d'/>"
                 "</body>",
                 i, 10 + 3 * i, i);
        used = append(xml, size, used, buffer);
    }
    append(xml, size, used, "</worldbody></mujoco>");
    return xml;
}

/* ---- overlap area (Sutherland-Hodgman) ---- */

/* The part of convex polygon `in` (n vertices, CCW, x-y) left of the line a -> b. */
static int clip_by(const tch_vec3* in, int n, tch_vec3 a, tch_vec3 b, tch_vec3* out) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
        const tch_vec3 p = in[i], q = in[(i + 1) % n];
        const double sp = peg_cross2(a, b, p), sq = peg_cross2(a, b, q);
        if (sp >= 0) {
            out[m++] = p;
        }
        if ((sp >= 0) != (sq >= 0) && m < MAX_CLIP) {
            out[m++] = tch_v3_lerp(p, q, sp / (sp - sq));
        }
    }
    return m;
}

static double area(const tch_vec3* p, int n) {
    double twice = 0;
    for (int i = 0; i < n; ++i) {
        twice += p[i].x * p[(i + 1) % n].y - p[(i + 1) % n].x * p[i].y;
    }
    return 0.5 * twice;
}

static double overlap_area(const tch_vec3* a, int na, const tch_vec3* b, int nb) {
    tch_vec3 work[2][MAX_CLIP];
    int n = na;
    memcpy(work[0], a, (size_t)na * sizeof *a);
    for (int k = 0, from = 0; k < nb && n > 0; ++k, from ^= 1) {
        n = clip_by(work[from], n, b[k], b[(k + 1) % nb], work[from ^ 1]);
        if (k == nb - 1) {
            return n > 2 ? fabs(area(work[from ^ 1], n)) : 0;
        }
    }
    return 0;
}

static void rectangle(double x0, double x1, double y0, double y1, tch_vec3* out) {
    out[0] = tch_v3(x0, y0, 0), out[1] = tch_v3(x1, y0, 0);
    out[2] = tch_v3(x1, y1, 0), out[3] = tch_v3(x0, y1, 0);
}

/* The polygon of body b (1-based) at its pose: the local (u, v) turned by the body's turn
 * about y (world x-z: u along x, v along z) and placed at its (x, z). */
static void pose_polygon(const tch_data* d, peg_polygon* p, int b) {
    const tch_transform X = d->body_X_WB[b];
    for (int i = 0; i < p->n; ++i) {
        const tch_vec3 w = tch_x_apply(X, tch_v3(p->local[i].x, 0, p->local[i].y));
        p->world[i] = tch_v3(w.x, w.z, 0);
    }
}

static double total_overlap(const tch_data* d, scene* s, int poured) {
    tch_vec3 box[BOX_PARTS][4];
    rectangle(-1, 1, -0.4, 0, box[0]);
    rectangle(-1.2, -0.8, -0.4, 1.6, box[1]);
    rectangle(0.8, 1.2, -0.4, 1.6, box[2]);
    double sum = 0;
    for (int i = 0; i < poured; ++i) {
        pose_polygon(d, &s->polygons[i], i + 1);
    }
    for (int i = 0; i < poured; ++i) {
        const peg_polygon* a = &s->polygons[i];
        for (int j = i + 1; j < poured; ++j) {
            sum += overlap_area(a->world, a->n, s->polygons[j].world, s->polygons[j].n);
        }
        for (int k = 0; k < BOX_PARTS; ++k) {
            sum += overlap_area(a->world, a->n, box[k], 4);
        }
    }
    return sum;
}

/* ---- a run ---- */

typedef struct run_stats {
    double* overlaps; /* per step */
    int steps, crashed;
    long failed_islands, fallbacks;
    int trap_steps;
    double seconds;
    double worst, worst_time; /* the largest overlap and when */
} run_stats;

/* Body b (1-based) parked, or released at its source with its release velocity. */
static void place(const tch_model* m, tch_data* d, const scene* s, int b, bool release) {
    tch_real* q = d->qpos + m->body_qpos_adr[b];
    tch_real* v = d->qvel + m->body_qvel_adr[b];
    const int i = b - 1;
    const double angle = release ? s->angle[i] : 0;
    /* a turn by `angle` in the 2D code's (u, v) is one by -angle about y */
    q[0] = release ? (i % 2 == 0 ? 0.5 : -0.5) : 10 + 3 * i;
    q[1] = 0;
    q[2] = release ? 0.8 : 100;
    q[3] = cos(angle / 2), q[4] = 0, q[5] = -sin(angle / 2), q[6] = 0;
    memset(v, 0, 6 * sizeof *v);
    v[0] = release ? (i % 2 == 0 ? -0.7 : 0.7) : 0;
}

static int trap_count(const tch_model* m, const tch_data* d) {
    const void* scratch = d->internal->model_scratch[TCH_CONTACT_PEG];
    int traps = 0;
    for (int p = 0; scratch && p < d->pair_result_count; ++p) {
        const tch_peg_constraints* list = tch_peg_pair_constraints(scratch, p);
        traps += list && d->pair_results[p].model == TCH_CONTACT_PEG
                     ? tch_peg_constraints_trap_count(list)
                     : 0;
    }
    (void)m;
    return traps;
}

static int run(scene* s, const char* model, double h, run_stats* out) {
    char* xml = scene_xml(s, model, h);
    tch_error err = {0};
    tch_spec* spec = NULL;
    tch_model* m = NULL;
    tch_data* d = NULL;
    if (tch_mjcf_load_string(xml, ".", "pour2d.xml", &spec, &err) != TCH_OK ||
        tch_compile(spec, &m, &err) != TCH_OK || tch_data_create(m, &d, &err) != TCH_OK) {
        fprintf(stderr, "bench_peg_pour2d: %s\n", err.message);
        free(xml);
        tch_spec_destroy(spec);
        tch_model_destroy(m);
        return -1;
    }
    free(xml);
    tch_spec_destroy(spec);
    const int steps = (int)lround(DURATION / h);
    out->overlaps = calloc((size_t)steps, sizeof *out->overlaps);
    out->steps = out->crashed = out->trap_steps = 0;
    out->failed_islands = 0;
    out->worst = out->worst_time = 0;
    int poured = 0;
    const double start = bench_now_seconds();
    for (int k = 0; k < steps; ++k) {
        const double t = k * h;
        while (poured < BODIES && t + 1e-9 >= poured * RELEASE_PERIOD) {
            place(m, d, s, ++poured, true);
        }
        for (int b = poured + 1; b <= BODIES; ++b) {
            place(m, d, s, b, false);
        }
        if (tch_step(m, d, &err) != TCH_OK) {
            out->crashed = 1;
            break;
        }
        out->failed_islands += d->constraint_failed_islands;
        out->trap_steps += trap_count(m, d) > 0;
        out->overlaps[out->steps++] = total_overlap(d, s, poured);
        if (out->overlaps[out->steps - 1] > out->worst) {
            out->worst = out->overlaps[out->steps - 1];
            out->worst_time = t + h;
        }
    }
    out->seconds = bench_now_seconds() - start;
    const tch_peg_report* r = tch_peg_scratch_report(d->internal->model_scratch[TCH_CONTACT_PEG]);
    out->fallbacks = r ? r->fallbacks : 0;
    out->failed_islands += r ? r->failures : 0;
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}

static int by_value(const void* a, const void* b) {
    const double x = *(const double*)a, y = *(const double*)b;
    return x < y ? -1 : x > y;
}

static double quantile(const double* sorted, int n, double q) {
    return n > 0 ? sorted[(int)floor(q * (n - 1) + 0.5)] : NAN;
}

int main(int argc, char** argv) {
    const int seeds = argc > 1 ? atoi(argv[1]) : 10;
    const int first = argc > 2 ? atoi(argv[2]) : 1, last = argc > 3 ? atoi(argv[3]) : 16;
    const int stride = argc > 4 ? atoi(argv[4]) : 1;
    PEG_REACH = argc > 5 ? atof(argv[5]) : PEG_REACH;
    char when[32];
    const time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d", gmtime(&now));
    printf("date,commit,model,h,runs,crashed,steps,overlap_median,overlap_q1,overlap_q3,"
           "overlap_max,steps_overlapping,failed_islands,fallbacks,trap_steps,us_per_step\n");
    static const char* const models[] = {"lcp", "peg"};
    for (int k = first; k <= last; k += stride > 0 ? stride : 1) {
        const double h = 0.001 * k;
        double* pooled[2] = {NULL, NULL};
        int count[2] = {0, 0}, crashed[2] = {0, 0}, overlapping[2] = {0, 0}, traps[2] = {0, 0};
        long failed[2] = {0, 0}, fallbacks[2] = {0, 0};
        double seconds[2] = {0, 0};
        for (int model = 0; model < 2; ++model) {
            pooled[model] = malloc((size_t)seeds * (size_t)lround(DURATION / h) * sizeof(double));
        }
        for (int seed = 0; seed < seeds; ++seed) {
            scene s;
            make_scene((unsigned long long)seed, &s);
            for (int model = 0; model < 2; ++model) { /* interleaved: the machine's load */
                run_stats r;
                if (run(&s, models[model], h, &r) != 0) {
                    return 1;
                }
                fprintf(stderr,
                        "%s h %.3f seed %d: %d steps%s, largest overlap %.3e m^2 at %.3f s\n",
                        models[model], h, seed, r.steps, r.crashed ? " (crashed)" : "", r.worst,
                        r.worst_time);
                for (int i = 0; i < r.steps; ++i) {
                    pooled[model][count[model]++] = r.overlaps[i];
                    overlapping[model] += r.overlaps[i] > 1e-10;
                }
                crashed[model] += r.crashed;
                failed[model] += r.failed_islands;
                fallbacks[model] += r.fallbacks;
                traps[model] += r.trap_steps;
                seconds[model] += r.seconds;
                free(r.overlaps);
            }
        }
        for (int model = 0; model < 2; ++model) {
            double* v = pooled[model];
            const int n = count[model];
            qsort(v, (size_t)n, sizeof *v, by_value);
            printf("%s,%s,%s,%.3f,%d,%d,%d,%.3e,%.3e,%.3e,%.3e,%d,%ld,%ld,%d,%.1f\n", when,
                   TCH_GIT_COMMIT, models[model], h, seeds, crashed[model], n, quantile(v, n, 0.5),
                   quantile(v, n, 0.25), quantile(v, n, 0.75), n ? v[n - 1] : NAN,
                   overlapping[model], failed[model], fallbacks[model], traps[model],
                   n ? 1e6 * seconds[model] / n : NAN);
            fflush(stdout);
            free(v);
        }
    }
    return 0;
}
