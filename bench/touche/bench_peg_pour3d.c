/* The paper's 3D experiment (Williams, Lu and Trinkle 2017, section 6; peg.md §10.2): 10
 * random convex polyhedra poured into an open box made of five hexahedra, one every 0.5 s,
 * 5 s, under `lcp` and under `peg`, for initial conditions x step sizes.
 *
 * Setup (scaled down from the authors' testGeometry_5.m, whose box is 10 x 4 m for bodies of
 * 0.5 m): a polyhedron is the hull of 10 uniform points in [0,1]³, centred on their mean,
 * scaled 0.1 (as the 2D polygons, peg.md §10.1), density 1000 kg/m³ (about 0.1-0.2 kg),
 * random rotation; the sources alternate, (0.3, 0, 0.4) with v_x = -1 m/s and (-0.3, 0, 0.4)
 * with +1; box (static): inner x in [-0.5, 0.5], y in [-0.25, 0.25], z from 0 to 0.5, its five
 * parts 0.1 thick and overlapping (BOX below); gravity 9.81; frictionless (the paper's runs).
 * The engine's defaults otherwise (lcp: PGS, its margin and position correction; peg: its
 * proximity, see PEG_REACH).
 *
 * Metric (the paper's Fig. 24): at the end of every step the total overlap volume of the
 * poured bodies with each other and with the box's five parts, P = A ∩ B by half-space
 * clipping (tch_polyhedron_intersect) of the compiled hulls at the bodies' poses, its volume
 * by the divergence theorem. The runs, the other counts and the CSV: peg_pour.h.
 *
 *     bench_peg_pour3d [SEEDS [H_FIRST H_LAST [H_STRIDE [REACH]]]]
 *
 * (default 10 1 16 1 4: h = k ms for k = H_FIRST, H_FIRST + H_STRIDE, .. H_LAST; peg's
 * proximity epsilon = max(REACH h, 0.0008), REACH 0: peg's 3D default, the authors' 0.1 m,
 * as large as the bodies)
 *
 * prints one CSV row per (model, h) (peg_pour.h; the overlap in m³).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tests/contact/hull_fixtures.h"
#include "collision/polyhedron.h"
#include "peg_pour.h"
#include "touche/step.h"

enum { BODIES = 10, POINTS = 10, BOX_PARTS = 5 };

/* peg's proximity epsilon as a speed times h. Not the authors' 0.1 m: with an epsilon near the
 * bodies' size (REACH 6 or 0) a body in a pile or a corner gets violated constraints while it
 * overlaps nothing (too strict, mostly edge-edge U), Lemke fails, the fallback throws it at
 * tens of m/s and runs diverge (REACH 6: 2 of 4 runs at h = 12 ms); the LCPs also grow (2-4x
 * the step cost of REACH 4). With REACH 2 a body falling faster than 2 m/s crosses the band in
 * one step (overlaps of 1e-4 m³ at h = 1 ms). 4: 0.004-0.064 m. The model's default (REACH 0:
 * 0.1 m, widened by the closing speed only past 0.1 / (2 h), 3-50 m/s) is still the authors'
 * 0.1: with it the first peg run at h = 13 ms had not finished after 3 CPU minutes
 * (2026-11-27; with 4 h the 20 runs at 13 ms take about 2 CPU seconds). */
static const double PEG_REACH = 4;
static const double SIZE = 0.1;

/* The box's five hexahedra: centre and half extents (the scene's geoms box0..4 in order).
 * Inner x in [-0.5, 0.5], y in [-0.25, 0.25], z from 0 to 0.5; the parts 0.1 thick overlap so
 * that every edge of a part that is not an edge of the box (a wall's bottom and end edges, the
 * floor's top edges) is buried 0.1 m from the inside: peg meets each part alone, and an edge
 * within its proximity of a body in the box's concave corners gives edge-edge U of a sign
 * that eq. 27's orientation cannot tell (docs/peg.md, the 3D pouring experiment). */
static const double BOX[BOX_PARTS][6] = {
    {0, 0, -0.05, 0.6, 0.35, 0.05},   /* floor, z in [-0.1, 0] */
    {-0.55, 0, 0.2, 0.05, 0.35, 0.3}, /* x walls, z in [-0.1, 0.5] */
    {0.55, 0, 0.2, 0.05, 0.35, 0.3},  {0, -0.3, 0.2, 0.6, 0.05, 0.3}, /* y walls */
    {0, 0.3, 0.2, 0.6, 0.05, 0.3},
};

typedef struct scene {
    tch_vec3 points[BODIES][POINTS];
    tch_quat rotation[BODIES];
    tch_convex_hull box[BOX_PARTS]; /* built once, in the world frame */
    bool box_built;
    tch_polyhedron overlap; /* the clipping's working polyhedron */
} scene;

/* ---- the scene ---- */

static void make_scene(unsigned long long seed, void* out) {
    scene* s = out;
    unsigned long long state = seed * 0x9E3779B97F4A7C15ULL + 1;
    for (int i = 0; i < BODIES; ++i) {
        tch_vec3 mean = tch_v3(0, 0, 0);
        for (int k = 0; k < POINTS; ++k) {
            s->points[i][k] =
                tch_v3(fixture_uniform(&state), fixture_uniform(&state), fixture_uniform(&state));
            mean = tch_v3_add(mean, tch_v3_scale(s->points[i][k], 1.0 / POINTS));
        }
        for (int k = 0; k < POINTS; ++k) {
            s->points[i][k] = tch_v3_scale(tch_v3_sub(s->points[i][k], mean), SIZE);
        }
        s->rotation[i] = fixture_rotation(&state);
    }
    if (!s->box_built) {
        for (int k = 0; k < BOX_PARTS; ++k) {
            s->box[k] = fixture_box(tch_v3(BOX[k][3], BOX[k][4], BOX[k][5]),
                                    tch_v3(BOX[k][0], BOX[k][1], BOX[k][2]));
        }
        tch_polyhedron_init(&s->overlap);
        s->box_built = true;
    }
}

static void free_scene(void* out) {
    scene* s = out;
    for (int k = 0; s->box_built && k < BOX_PARTS; ++k) {
        tch_hull_free(&s->box[k]);
    }
    if (s->box_built) {
        tch_polyhedron_free(&s->overlap);
    }
}

static int mesh(const void* scene_, int b, tch_vec3* vertices) {
    memcpy(vertices, ((const scene*)scene_)->points[b], sizeof(tch_vec3[POINTS]));
    return POINTS;
}

/* The box's parts as MJCF geoms. */
static void box_xml(char* out, size_t size) {
    int used = 0;
    for (int k = 0; k < BOX_PARTS && used < (int)size; ++k) {
        used += snprintf(out + used, size - (size_t)used,
                         "<geom name='box%d' type='box' pos='%g %g %g' size='%g %g %g'/>", k,
                         BOX[k][0], BOX[k][1], BOX[k][2], BOX[k][3], BOX[k][4], BOX[k][5]);
    }
}

/* ---- overlap volume ---- */

/* The mesh geom of body b (1-based): the scene gives each body one. */
static int body_geom(const tch_model* m, int b) {
    for (int g = 0; g < m->geom_count; ++g) {
        if (m->geom_body[g] == b) {
            return g;
        }
    }
    return -1;
}

static double volume(scene* s, const tch_convex_hull* a, tch_transform X_WA,
                     const tch_convex_hull* b, tch_transform X_WB) {
    tch_real v = 0;
    tch_vec3 centroid;
    if (tch_polyhedron_intersect(a, b, tch_x_relative(X_WA, X_WB), TCH_POLYHEDRON_CLIP, &s->overlap,
                                 NULL) == TCH_OK) {
        tch_polyhedron_volume_centroid(&s->overlap, &v, &centroid);
    }
    return v;
}

static double total_overlap(const tch_model* m, const tch_data* d, void* scene_, int poured) {
    scene* s = scene_;
    double sum = 0;
    for (int i = 1; i <= poured; ++i) {
        const int gi = body_geom(m, i);
        const tch_convex_hull* a = &m->mesh_hull[m->geom_mesh[gi]];
        const tch_transform X_WA = d->geom_X_WG[gi];
        for (int j = i + 1; j <= poured; ++j) {
            const int gj = body_geom(m, j);
            const double reach = m->geom_rbound[gi] + m->geom_rbound[gj];
            if (tch_v3_norm2(tch_v3_sub(X_WA.p, d->geom_X_WG[gj].p)) < reach * reach) {
                sum += volume(s, a, X_WA, &m->mesh_hull[m->geom_mesh[gj]], d->geom_X_WG[gj]);
            }
        }
        for (int k = 0; k < BOX_PARTS; ++k) {
            sum += volume(s, a, X_WA, &s->box[k], tch_x_identity());
        }
    }
    return sum;
}

/* ---- the pour ---- */

/* The sources alternate. */
static void source(const void* scene_, int b, tch_vec3* position, tch_quat* rotation,
                   tch_vec3* velocity) {
    *position = tch_v3(b % 2 == 0 ? 0.3 : -0.3, 0, 0.4);
    *rotation = ((const scene*)scene_)->rotation[b];
    *velocity = tch_v3(b % 2 == 0 ? -1.0 : 1.0, 0, 0);
}

int main(int argc, char** argv) {
    char box[1024];
    box_xml(box, sizeof box);
    const peg_pour_experiment pour = {
        .program = "bench_peg_pour3d",
        .unit = "m^3",
        .bodies = BODIES,
        .release_period = 0.5,
        .duration = 5.0,
        .scene_size = sizeof(scene),
        .peg_reach = PEG_REACH,
        .options = "gravity='0 0 -9.81'",
        .box_xml = box,
        .inertial = "",
        .make_scene = make_scene,
        .mesh = mesh,
        .source = source,
        .total_overlap = total_overlap,
        .free_scene = free_scene,
    };
    return peg_pour_main(pour, argc, argv);
}
