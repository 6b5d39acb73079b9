/* Sampling of peg's constraint sets against exact overlap (peg.md §9-10), shared by
 * tests/contact/test_peg_sampling.c (few samples) and bench/touche/bench_peg_sampling.c (many).
 *
 * A configuration is two random convex polytopes (2D: the hull of 10 uniform points in the
 * unit square, centred and scaled 0.25, as the authors' generateBodySets.m; 3D: the hull of
 * 12 points on a blob of radius 0.5) posed at a separation drawn uniformly in
 * [-proximity/2, proximity/2] along the separating-axis measure, either along a random
 * direction or corner to corner (a vertex of each facing the other, apexes within
 * proximity/2). The oracle is the separating-axis separation of the two convex polytopes
 * (> 0: apart, < 0: overlapping); the model's verdict is "every constraint holds" at the
 * configuration's exact gaps. A free configuration the constraints reject is "too strict",
 * an overlapping one they accept "too loose" (peg.md §9's words). */
#pragma once

#include <math.h>
#include <stdlib.h>

#include "contact/peg_constraints.h"
#include "hull_fixtures.h"
#include "math/vec.h"

enum { PEG_SAMPLE_RANDOM = 0, PEG_SAMPLE_CORNER = 1 };

typedef struct peg_sample_counts {
    int samples, free_count, overlap_count;
    int too_strict, too_loose;
    int with_vertex_vertex; /* samples whose constraints include a vertex-vertex case */
    int vv_too_strict, vv_too_loose;
} peg_sample_counts;

/* ---- 2D ---- */

enum { PEG_POLYGON_MAX = 16 };

typedef struct peg_polygon {
    int n;
    tch_vec3 local[PEG_POLYGON_MAX]; /* counter-clockwise, centred on the vertex mean */
    tch_vec3 world[PEG_POLYGON_MAX];
} peg_polygon;

static inline double peg_cross2(tch_vec3 o, tch_vec3 a, tch_vec3 b) {
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

static inline int peg_compare_points(const void* p, const void* q) {
    const tch_vec3 *a = p, *b = q;
    return a->x < b->x ? -1 : a->x > b->x ? 1 : (a->y < b->y ? -1 : a->y > b->y);
}

/* The authors' random polygon: hull (monotone chain) of 10 uniform points, centred, x 0.25. */
static inline peg_polygon peg_random_polygon(unsigned long long* state) {
    tch_vec3 pts[10], hull[2 * 10];
    for (int i = 0; i < 10; ++i) {
        pts[i] = tch_v3(fixture_uniform(state), fixture_uniform(state), 0);
    }
    qsort(pts, 10, sizeof pts[0], peg_compare_points);
    int k = 0;
    for (int i = 0; i < 10; ++i) {
        while (k >= 2 && peg_cross2(hull[k - 2], hull[k - 1], pts[i]) <= 0) {
            --k;
        }
        hull[k++] = pts[i];
    }
    for (int i = 8, lower = k + 1; i >= 0; --i) {
        while (k >= lower && peg_cross2(hull[k - 2], hull[k - 1], pts[i]) <= 0) {
            --k;
        }
        hull[k++] = pts[i];
    }
    peg_polygon p;
    p.n = k - 1;
    tch_vec3 mean = tch_v3_zero();
    for (int i = 0; i < p.n; ++i) {
        mean = tch_v3_add(mean, hull[i]);
    }
    mean = tch_v3_scale(mean, 1.0 / p.n);
    for (int i = 0; i < p.n; ++i) {
        p.local[i] = tch_v3_scale(tch_v3_sub(hull[i], mean), 0.25);
    }
    return p;
}

static inline void peg_pose_polygon(peg_polygon* p, tch_vec3 at, double angle) {
    const double c = cos(angle), s = sin(angle);
    for (int i = 0; i < p->n; ++i) {
        const tch_vec3 l = p->local[i];
        p->world[i] = tch_v3(at.x + c * l.x - s * l.y, at.y + s * l.x + c * l.y, 0);
    }
}

/* max over the edge normals of both polygons of the gap of their projections. */
static inline double peg_separation_2d(const peg_polygon* a, const peg_polygon* b) {
    double best = -INFINITY;
    for (int side = 0; side < 2; ++side) {
        const peg_polygon* p = side ? b : a;
        const peg_polygon* q = side ? a : b;
        for (int k = 0; k < p->n; ++k) {
            const tch_vec3 e = tch_v3_sub(p->world[(k + 1) % p->n], p->world[k]);
            const tch_vec3 n = tch_v3_normalize(tch_v3(e.y, -e.x, 0));
            double least = INFINITY;
            for (int i = 0; i < q->n; ++i) {
                least = fmin(least, tch_v3_dot(n, tch_v3_sub(q->world[i], p->world[k])));
            }
            best = fmax(best, least);
        }
    }
    return best;
}

/* ---- 3D ---- */

typedef struct peg_solid {
    tch_convex_hull hull;
    tch_features f;
    tch_transform pose;
} peg_solid;

static inline int peg_solid_init(peg_solid* s, unsigned long long* state) {
    s->hull = fixture_random_hull(state, 12, 0.5);
    const tch_polytope view = {s->hull.vertex_count, s->hull.vertices_G,    s->hull.face_count,
                               s->hull.face_start,   s->hull.face_vertices, s->hull.face_normals_G,
                               {{0, 0, 0}}};
    s->pose = tch_x_identity();
    return tch_features_build(&view, "sample", &s->f, NULL) == TCH_OK;
}

static inline void peg_solid_free(peg_solid* s) {
    tch_features_free(&s->f);
    tch_hull_free(&s->hull);
}

enum { PEG_SOLID_MAX = 64 };

/* The solid's vertices at its pose. */
static inline int peg_world(const peg_solid* s, tch_vec3* out) {
    for (int v = 0; v < s->f.vertex_count && v < PEG_SOLID_MAX; ++v) {
        out[v] = tch_x_apply(s->pose, s->f.vertices[v]);
    }
    return s->f.vertex_count < PEG_SOLID_MAX ? s->f.vertex_count : PEG_SOLID_MAX;
}

static inline double peg_axis_gap(const tch_vec3* a, int na, const tch_vec3* b, int nb,
                                  tch_vec3 axis) {
    double alo = INFINITY, ahi = -INFINITY, blo = INFINITY, bhi = -INFINITY;
    for (int v = 0; v < na; ++v) {
        const double x = tch_v3_dot(axis, a[v]);
        alo = fmin(alo, x);
        ahi = fmax(ahi, x);
    }
    for (int v = 0; v < nb; ++v) {
        const double x = tch_v3_dot(axis, b[v]);
        blo = fmin(blo, x);
        bhi = fmax(bhi, x);
    }
    return fmax(blo - ahi, alo - bhi);
}

/* Separating-axis separation of two convex polyhedra: face normals and edge cross products. */
static inline double peg_separation_3d(const peg_solid* a, const peg_solid* b) {
    tch_vec3 wa[PEG_SOLID_MAX], wb[PEG_SOLID_MAX];
    const int na = peg_world(a, wa), nb = peg_world(b, wb);
    double best = -INFINITY;
    for (int side = 0; side < 2; ++side) {
        const peg_solid* p = side ? b : a;
        for (int face = 0; face < p->f.face_count; ++face) {
            best = fmax(best, peg_axis_gap(wa, na, wb, nb,
                                           tch_q_rotate(p->pose.q, p->f.face_normals[face])));
        }
    }
    for (int i = 0; i < a->f.edge_count; ++i) {
        const tch_vec3 ea = tch_q_rotate(a->pose.q, tch_features_edge_vector(&a->f, i));
        for (int j = 0; j < b->f.edge_count; ++j) {
            const tch_vec3 eb = tch_q_rotate(b->pose.q, tch_features_edge_vector(&b->f, j));
            const tch_vec3 c = tch_v3_cross(ea, eb);
            if (tch_v3_norm(c) > 1e-9 * tch_v3_norm(ea) * tch_v3_norm(eb)) {
                best = fmax(best, peg_axis_gap(wa, na, wb, nb, tch_v3_normalize(c)));
            }
        }
    }
    return best;
}

/* The rotation taking unit u to unit w. */
static inline tch_quat peg_rotation_between(tch_vec3 u, tch_vec3 w) {
    const tch_vec3 axis = tch_v3_cross(u, w);
    const double s = tch_v3_norm(axis), c = tch_v3_dot(u, w);
    if (s < 1e-12) {
        tch_vec3 t, o;
        tch_v3_basis(u, &t, &o);
        return c > 0 ? tch_q_identity() : tch_q_axis_angle(t, TCH_PI);
    }
    return tch_q_axis_angle(tch_v3_scale(axis, 1 / s), atan2(s, c));
}

/* ---- one sample ---- */

static inline void peg_count(peg_sample_counts* counts, double separation,
                             const tch_peg_constraints* list) {
    const int accepted = tch_peg_constraints_hold(list);
    int vertex_vertex = 0;
    for (int i = 0; i < list->count; ++i) {
        vertex_vertex |= list->constraints[i].source == TCH_FEATURE_VERTEX_VERTEX;
    }
    counts->samples++;
    counts->free_count += separation > 0;
    counts->overlap_count += separation < 0;
    const int strict = separation > 0 && !accepted, loose = separation < 0 && accepted;
    counts->too_strict += strict;
    counts->too_loose += loose;
    counts->with_vertex_vertex += vertex_vertex;
    counts->vv_too_strict += vertex_vertex && strict;
    counts->vv_too_loose += vertex_vertex && loose;
}

static inline double peg_target(unsigned long long* state, double proximity) {
    double t;
    do {
        t = (fixture_uniform(state) - 0.5) * proximity;
    } while (fabs(t) < 1e-7 * proximity);
    return t;
}

/* Moves B along dir (from A's centre) until the separation is `target` (bisection: the
 * separation is convex along a line, negative at the centre). */
static inline double peg_place_2d(peg_polygon* a, peg_polygon* b, double angle_b, tch_vec3 dir,
                                  double target) {
    double lo = 0, hi = 1.0;
    for (int it = 0; it < 45; ++it) {
        const double mid = 0.5 * (lo + hi);
        peg_pose_polygon(b, tch_v3_scale(dir, mid), angle_b);
        if (peg_separation_2d(a, b) > target) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    peg_pose_polygon(b, tch_v3_scale(dir, hi), angle_b);
    return peg_separation_2d(a, b);
}

/* One 2D configuration of `mode`; returns its separation, constraints in `list`. */
static inline double peg_sample_2d(unsigned long long* state, int mode,
                                   const tch_peg_params* params, tch_peg_constraints* list) {
    peg_polygon a = peg_random_polygon(state), b = peg_random_polygon(state);
    peg_pose_polygon(&a, tch_v3_zero(), 2 * TCH_PI * fixture_uniform(state));
    double separation;
    if (mode == PEG_SAMPLE_RANDOM) {
        const double phi = 2 * TCH_PI * fixture_uniform(state);
        separation =
            peg_place_2d(&a, &b, 2 * TCH_PI * fixture_uniform(state), tch_v3(cos(phi), sin(phi), 0),
                         peg_target(state, params->proximity));
    } else {
        /* corners facing: B's vertex j opposite A's vertex i, turned up to +-0.6 rad */
        const int i = (int)(fixture_uniform(state) * a.n), j = (int)(fixture_uniform(state) * b.n);
        const tch_vec3 out_a = a.world[i];
        const double angle_b = atan2(-out_a.y, -out_a.x) - atan2(b.local[j].y, b.local[j].x) +
                               1.2 * (fixture_uniform(state) - 0.5);
        const double r = 0.5 * params->proximity * sqrt(fixture_uniform(state));
        const double phi = 2 * TCH_PI * fixture_uniform(state);
        peg_pose_polygon(&b, tch_v3_zero(), angle_b);
        const tch_vec3 shift =
            tch_v3_add(tch_v3_sub(a.world[i], b.world[j]), tch_v3(r * cos(phi), r * sin(phi), 0));
        peg_pose_polygon(&b, shift, angle_b);
        separation = peg_separation_2d(&a, &b);
    }
    tch_peg_constraints_build_2d(a.world, a.n, tch_v3_zero(), b.world, b.n,
                                 b.world[0] /* any point: gaps do not depend on it */, params, list,
                                 NULL);
    return separation;
}

static inline double peg_separation_at(peg_solid* a, peg_solid* b, tch_vec3 dir, double d) {
    b->pose.p = tch_v3_scale(dir, d);
    return peg_separation_3d(a, b);
}

/* As peg_place_2d, by false position (Illinois): the separation is piecewise linear. */
static inline double peg_place_3d(peg_solid* a, peg_solid* b, tch_vec3 dir, double target) {
    double lo = 0, hi = 1.5;
    double flo = peg_separation_at(a, b, dir, lo) - target;
    double fhi = peg_separation_at(a, b, dir, hi) - target;
    int side = 0;
    for (int it = 0; it < 60 && hi - lo > 1e-13; ++it) {
        const double d = (lo * fhi - hi * flo) / (fhi - flo);
        const double f = peg_separation_at(a, b, dir, d) - target;
        if (fabs(f) < 1e-14) {
            lo = hi = d;
            break;
        }
        if (f > 0) {
            hi = d;
            fhi = f;
            flo *= side == 1 ? 0.5 : 1;
            side = 1;
        } else {
            lo = d;
            flo = f;
            fhi *= side == -1 ? 0.5 : 1;
            side = -1;
        }
    }
    return peg_separation_at(a, b, dir, hi);
}

/* One 3D configuration of two solids (their shapes kept, poses drawn). */
static inline double peg_sample_3d(unsigned long long* state, int mode, peg_solid* a, peg_solid* b,
                                   const tch_peg_params* params, tch_peg_constraints* list) {
    a->pose = (tch_transform){fixture_rotation(state), tch_v3_zero()};
    double separation;
    if (mode == PEG_SAMPLE_RANDOM) {
        b->pose.q = fixture_rotation(state);
        separation =
            peg_place_3d(a, b, fixture_unit_vector(state), peg_target(state, params->proximity));
    } else {
        const int i = (int)(fixture_uniform(state) * a->f.vertex_count);
        const int j = (int)(fixture_uniform(state) * b->f.vertex_count);
        const tch_vec3 out_a = tch_q_rotate(a->pose.q, tch_v3_sub(a->f.vertices[i], a->f.centre));
        const tch_vec3 out_b = tch_v3_sub(b->f.vertices[j], b->f.centre);
        /* B's vertex direction onto -out_a, twisted about it and tilted up to 0.3 rad */
        const tch_quat align =
            peg_rotation_between(tch_v3_normalize(out_b), tch_v3_neg(tch_v3_normalize(out_a)));
        const tch_quat twist =
            tch_q_axis_angle(tch_v3_normalize(out_a), 2 * TCH_PI * fixture_uniform(state));
        const tch_quat tilt =
            tch_q_axis_angle(fixture_unit_vector(state), 0.3 * fixture_uniform(state));
        b->pose.q = tch_q_normalize(tch_q_mul(tilt, tch_q_mul(twist, align)));
        b->pose.p = tch_v3_zero();
        const tch_vec3 offset = tch_v3_scale(
            fixture_unit_vector(state), 0.5 * params->proximity * cbrt(fixture_uniform(state)));
        b->pose.p = tch_v3_add(tch_v3_sub(tch_x_apply(a->pose, a->f.vertices[i]),
                                          tch_x_apply(b->pose, b->f.vertices[j])),
                               offset);
        separation = peg_separation_3d(a, b);
    }
    tch_peg_constraints_build(&a->f, a->pose, a->pose.p, &b->f, b->pose, b->pose.p, params, list,
                              NULL);
    return separation;
}

/* Counts `samples` configurations of `dimension` (2 or 3) and `mode` from `seed`, keeping the
 * ones not deeper than proximity/2 (3D: new shapes every 25 poses). 0 when a hull fails. */
static inline int peg_sample_run(int dimension, int mode, int samples, unsigned long long seed,
                                 peg_sample_counts* counts) {
    const tch_peg_params params = tch_peg_params_default(dimension, 0.01);
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    peg_solid a, b;
    int ok = 1;
    *counts = (peg_sample_counts){0};
    for (long it = 0; ok && counts->samples < samples; ++it) {
        double separation;
        if (dimension == 2) {
            separation = peg_sample_2d(&seed, mode, &params, &list);
        } else {
            if (it % 25 == 0) {
                if (it > 0) {
                    peg_solid_free(&a);
                    peg_solid_free(&b);
                }
                ok = peg_solid_init(&a, &seed) && peg_solid_init(&b, &seed);
            }
            separation = peg_sample_3d(&seed, mode, &a, &b, &params, &list);
        }
        if (separation >= -0.5 * params.proximity) {
            peg_count(counts, separation, &list);
        }
    }
    if (dimension == 3) {
        peg_solid_free(&a);
        peg_solid_free(&b);
    }
    tch_peg_constraints_free(&list);
    return ok;
}
