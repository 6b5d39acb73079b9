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
 * correction; peg: its default proximity, max(0.5 h, 0.0008) widened by the pair's closing
 * speed).
 *
 * Metric (processData.m): at the end of every step the total pairwise overlap area of the
 * poured polygons with each other and with the box's parts (Sutherland-Hodgman clips of the
 * sections, computed here from the generated polygons and the bodies' poses, independently of
 * the engine's geometry). The runs, the other counts and the CSV: peg_pour.h.
 *
 *     bench_peg_pour2d [SEEDS [H_FIRST H_LAST [H_STRIDE [REACH]]]]
 *
 * (default 10 1 16 1 0: h = k ms for k = H_FIRST, H_FIRST + H_STRIDE, .. H_LAST; peg's
 * proximity epsilon = max(REACH h, 0.0008), REACH 0: the model's default)
 *
 * prints one CSV row per (model, h) (peg_pour.h; the overlap in m²).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/contact/peg_sampling.h"
#include "peg_pour.h"
#include "touche/step.h"

enum { BODIES = 20, BOX_PARTS = 3, MAX_CLIP = 64 };

/* peg's proximity epsilon as a speed times h; 0: the model's default, the authors'
 * max(0.5 h, 8e-4) widened by each pair's closing speed (docs/peg.md, "Proximity"). The
 * authors' value alone let falling polygons (up to about 4.5 m/s) through the floor at
 * h >= 10 ms, and this bench used a fixed 6 h instead; the default now matches its overlap at
 * a tenth to a hundredth of its step cost (bench/RESULTS.md). */
static const double PEG_REACH = 0;

typedef struct scene {
    peg_polygon polygons[BODIES];
    double angle[BODIES];
} scene;

/* ---- the scene ---- */

static void make_scene(unsigned long long seed, void* out) {
    scene* s = out;
    unsigned long long state = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (int i = 0; i < BODIES; ++i) {
        s->polygons[i] = peg_random_polygon(&state);
        s->angle[i] = 2 * TCH_PI * fixture_uniform(&state);
    }
}

/* The prism of polygon b: the polygon (u, v) of the 2D code is the world (x, z), 0.1 m deep. */
static int mesh(const void* scene_, int b, tch_vec3* vertices) {
    const peg_polygon* p = &((const scene*)scene_)->polygons[b];
    for (int k = 0; k < p->n; ++k) {
        vertices[2 * k] = tch_v3(p->local[k].x, -0.05, p->local[k].y);
        vertices[2 * k + 1] = tch_v3(p->local[k].x, 0.05, p->local[k].y);
    }
    return 2 * p->n;
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

static double total_overlap(const tch_model* m, const tch_data* d, void* scene_, int poured) {
    scene* s = scene_;
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
    (void)m;
    return sum;
}

/* ---- the pour ---- */

/* The sources alternate; a turn by `angle` in the 2D code's (u, v) is one by -angle about y. */
static void source(const void* scene_, int b, tch_vec3* position, tch_quat* rotation,
                   tch_vec3* velocity) {
    const double angle = ((const scene*)scene_)->angle[b];
    *position = tch_v3(b % 2 == 0 ? 0.5 : -0.5, 0, 0.8);
    *rotation = (tch_quat){cos(angle / 2), 0, -sin(angle / 2), 0};
    *velocity = tch_v3(b % 2 == 0 ? -0.7 : 0.7, 0, 0);
}

int main(int argc, char** argv) {
    const peg_pour_experiment pour = {
        .program = "bench_peg_pour2d",
        .unit = "m^2",
        .bodies = BODIES,
        .release_period = 0.25,
        .duration = 5.0,
        .scene_size = sizeof(scene),
        .peg_reach = PEG_REACH,
        .options = "gravity='0 0 -9.8' touche:planar='xz'",
        .box_xml = "<geom name='floor' type='box' pos='0 0 -0.2' size='1 0.5 0.2'/>"
                   "<geom name='left' type='box' pos='-1 0 0.6' size='0.2 0.5 1'/>"
                   "<geom name='right' type='box' pos='1 0 0.6' size='0.2 0.5 1'/>",
        .inertial = "<inertial pos='0 0 0' mass='0.25' diaginertia='0.003 0.003 0.003'/>",
        .make_scene = make_scene,
        .mesh = mesh,
        .source = source,
        .total_overlap = total_overlap,
    };
    return peg_pour_main(pour, argc, argv);
}
