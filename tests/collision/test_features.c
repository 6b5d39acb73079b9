/* Feature-level polytope geometry of `peg` (peg.md §1, eqs. 26-27) and the proximity query:
 * closed-form configurations (cube on cube face to face, cube on its edge, tetrahedron tip on
 * a face, out of range) and random hulls checked against brute-force sampled distances. */
#include <math.h>
#include <stdlib.h>

#include "../contact/hull_fixtures.h"
#include "collision/features.h"
#include "test.h"

static tch_polytope hull_view(const tch_convex_hull* h) {
    return (tch_polytope){h->vertex_count, h->vertices_G, h->face_count, h->face_start,
                          h->face_vertices, h->face_normals_G, {{0, 0, 0}}};
}

static int build(const tch_convex_hull* h, tch_features* f) {
    const tch_polytope view = hull_view(h);
    return tch_features_build(&view, "test", f, NULL) == TCH_OK;
}

static tch_transform at(tch_vec3 p) {
    return (tch_transform){{1, 0, 0, 0}, p};
}

/* Pairs of `kind` whose normal is within 1e-9 of `normal` and gap within 1e-12 of `gap`. */
static int count_pairs(const tch_feature_pairs* p, tch_feature_pair_kind kind, tch_vec3 normal,
                       double gap) {
    int n = 0;
    for (int i = 0; i < p->count; ++i) {
        const tch_feature_pair* q = &p->pairs[i];
        n += q->kind == kind && tch_v3_dist(q->normal, normal) < 1e-9 && fabs(q->gap - gap) < 1e-12;
    }
    return n;
}

static int all_within(const tch_feature_pairs* p, double eps) {
    for (int i = 0; i < p->count; ++i) {
        if (!(p->pairs[i].distance <= eps)) {
            return 0;
        }
    }
    return 1;
}

/* Whether face `face` runs tail -> head as consecutive corners. */
static int face_runs(const tch_features* f, int face, int tail, int head) {
    const int first = f->face_start[face], end = f->face_start[face + 1];
    for (int k = first; k < end; ++k) {
        if (f->face_vertices[k] == tail && f->face_vertices[k + 1 < end ? k + 1 : first] == head) {
            return 1;
        }
    }
    return 0;
}

/* Every corner of `face` off the edge lies strictly on the t side of the edge. */
static int face_on_side(const tch_features* f, int face, int edge, tch_vec3 t) {
    const tch_vec3 tail = f->vertices[f->edges[edge].tail];
    for (int k = f->face_start[face]; k < f->face_start[face + 1]; ++k) {
        const int v = f->face_vertices[k];
        if (v != f->edges[edge].tail && v != f->edges[edge].head &&
            !(tch_v3_dot(tch_v3_sub(f->vertices[v], tail), t) > 0)) {
            return 0;
        }
    }
    return 1;
}

static void test_cube_topology(void) {
    tch_convex_hull h = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    tch_features f;
    ENSURE(build(&h, &f));
    ENSURE(f.vertex_count == 8 && f.edge_count == 12 && f.face_count == 6);
    for (int v = 0; v < 8; ++v) {
        ENSURE(f.vertex_edge_start[v + 1] - f.vertex_edge_start[v] == 3);
    }
    ENSURE_NEAR(f.radius, sqrt(0.75), 1e-12);
    tch_features_free(&f);
    tch_hull_free(&h);
}

/* Eqs. 26-27 on random hulls: face1 runs the edge tail -> head, t1 and t2 lie in their faces
 * perpendicular to e and point into them, O_e is perpendicular to e and the mean normal and
 * points from the face2 side to the face1 side. Euler's formula closes the count. */
static void test_edge_frames_random_hulls(void) {
    unsigned long long state = 15;
    for (int trial = 0; trial < 20; ++trial) {
        tch_convex_hull h = fixture_random_hull(&state, 30, 1.0);
        tch_features f;
        ENSURE(build(&h, &f));
        ENSURE(f.vertex_count - f.edge_count + f.face_count == 2);
        for (int e = 0; e < f.edge_count; ++e) {
            const tch_feature_edge E = f.edges[e];
            const tch_vec3 ev = tch_features_edge_vector(&f, e);
            tch_vec3 t1, t2;
            tch_features_edge_t_vectors(&f, e, &t1, &t2);
            const tch_vec3 O = tch_features_edge_orientation(&f, e);
            const tch_vec3 mean = tch_v3_add(f.face_normals[E.face1], f.face_normals[E.face2]);
            ENSURE(face_runs(&f, E.face1, E.tail, E.head) && face_runs(&f, E.face2, E.head, E.tail));
            ENSURE_NEAR(tch_v3_dot(t1, ev), 0, 1e-12);
            ENSURE_NEAR(tch_v3_dot(t2, ev), 0, 1e-12);
            ENSURE_NEAR(tch_v3_dot(t1, f.face_normals[E.face1]), 0, 1e-12);
            ENSURE_NEAR(tch_v3_dot(t2, f.face_normals[E.face2]), 0, 1e-12);
            ENSURE(face_on_side(&f, E.face1, e, t1) && face_on_side(&f, E.face2, e, t2));
            ENSURE_NEAR(tch_v3_dot(O, ev), 0, 1e-12);
            ENSURE_NEAR(tch_v3_dot(O, mean), 0, 1e-12);
            ENSURE(tch_v3_dot(O, t1) > 0 && tch_v3_dot(O, t2) < 0);
        }
        tch_features_free(&f);
        tch_hull_free(&h);
    }
}

static void test_open_surface_is_refused(void) {
    tch_convex_hull h = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    tch_polytope view = hull_view(&h);
    view.face_count = 5; /* drop the last face: its four edges have one face each */
    tch_features f;
    tch_error err;
    ENSURE(tch_features_build(&view, "lid", &f, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "lid") != NULL);
    tch_hull_free(&h);
}

/* Unit cubes, B straight above A at gap g: A's four top corners against B's bottom face and
 * B's four bottom corners against A's top face (gap g, normal +z), the eight crossing pairs of
 * top and bottom edges that meet above a corner (gap g, normal +z), the four corner pairs; the
 * side edges pair with the bottom/top edges at gap 0 along a horizontal normal. */
static void test_cube_on_cube_face_to_face(void) {
    tch_convex_hull h = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    tch_features f;
    ENSURE(build(&h, &f));
    tch_feature_pairs p;
    tch_feature_pairs_init(&p);
    const double eps = tch_features_default_proximity(3, 0.01);
    ENSURE_NEAR(eps, 0.1, 0);
    const double gaps[3] = {0.01, 0.0, -0.02};
    for (int i = 0; i < 3; ++i) {
        const double g = gaps[i];
        ENSURE(tch_feature_pairs_find(&f, at(tch_v3_zero()), &f, at(tch_v3(0, 0, 1 + g)), eps, &p,
                                      NULL) == TCH_OK);
        ENSURE(all_within(&p, eps));
        const tch_vec3 up = tch_v3(0, 0, 1);
        ENSURE(count_pairs(&p, TCH_FEATURE_VERTEX_FACE, up, g) == 4);
        ENSURE(count_pairs(&p, TCH_FEATURE_FACE_VERTEX, up, g) == 4);
        ENSURE(count_pairs(&p, TCH_FEATURE_EDGE_EDGE, up, g) == 8);
        int side = 0, edge_edge = 0;
        for (int k = 0; k < p.count; ++k) {
            if (p.pairs[k].kind == TCH_FEATURE_EDGE_EDGE) {
                edge_edge++;
                side += fabs(p.pairs[k].gap) < 1e-12 && fabs(p.pairs[k].normal.z) < 1e-12;
            }
        }
        ENSURE(edge_edge == 8 + side && side == 16);
    }
    /* Beyond the proximity nothing is listed (the bounding spheres still overlap). */
    ENSURE(tch_feature_pairs_find(&f, at(tch_v3_zero()), &f, at(tch_v3(0, 0, 1.1 + 1e-9)), eps,
                                  &p, NULL) == TCH_OK);
    ENSURE(p.count == 0);
    ENSURE(tch_feature_pairs_find(&f, at(tch_v3_zero()), &f, at(tch_v3(0, 0, 1.1 - 1e-9)), eps,
                                  &p, NULL) == TCH_OK);
    ENSURE(p.count > 0);
    ENSURE(tch_feature_pairs_find(&f, at(tch_v3_zero()), &f, at(tch_v3(5, 0, 0)), eps, &p,
                                  NULL) == TCH_OK);
    ENSURE(p.count == 0);
    ENSURE(tch_feature_pairs_find(&f, at(tch_v3_zero()), &f, at(tch_v3(5, 0, 0)), -1, &p,
                                  NULL) == TCH_ERR_INVALID_ARGUMENT);
    tch_feature_pairs_free(&p);
    tch_features_free(&f);
    tch_hull_free(&h);
}

/* A unit cube B turned 45 degrees about x rests on its lowest edge (along x) at gap g over
 * A's top face: B's two lowest corners against A's top face, and B's lowest edge crossing A's
 * two top edges along y; A's top edges along x are parallel to it and give no edge-edge pair. */
static void test_cube_on_edge_over_face(void) {
    tch_convex_hull h = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    tch_features f;
    ENSURE(build(&h, &f));
    tch_feature_pairs p;
    tch_feature_pairs_init(&p);
    const double g = 0.03;
    const tch_transform pose_b = {tch_q_axis_angle(tch_v3(1, 0, 0), TCH_PI / 4),
                                  tch_v3(0, 0, 0.5 + sqrt(0.5) + g)};
    ENSURE(tch_feature_pairs_find(&f, at(tch_v3_zero()), &f, pose_b, 0.1, &p, NULL) == TCH_OK);
    const tch_vec3 up = tch_v3(0, 0, 1);
    ENSURE(count_pairs(&p, TCH_FEATURE_FACE_VERTEX, up, g) == 2);
    ENSURE(count_pairs(&p, TCH_FEATURE_VERTEX_FACE, up, g) == 0);
    int edge_edge = 0, edge_vertex = 0;
    for (int k = 0; k < p.count; ++k) {
        const tch_feature_pair* q = &p.pairs[k];
        ENSURE(q->kind != TCH_FEATURE_VERTEX_FACE && q->kind != TCH_FEATURE_VERTEX_VERTEX);
        edge_edge += q->kind == TCH_FEATURE_EDGE_EDGE;
        edge_vertex += q->kind == TCH_FEATURE_EDGE_VERTEX;
        ENSURE_NEAR(q->distance, g, 1e-12);
    }
    /* and the two edges of each of B's end faces at a lowest corner cross A's top edge
     * below it in the plane x = +-0.5: gap 0 along +-x */
    ENSURE(edge_edge == 6 && count_pairs(&p, TCH_FEATURE_EDGE_EDGE, up, g) == 2);
    ENSURE(edge_vertex == 2 && count_pairs(&p, TCH_FEATURE_EDGE_VERTEX, up, g) == 2);
    tch_feature_pairs_free(&p);
    tch_features_free(&f);
    tch_hull_free(&h);
}

/* A tetrahedron standing on its tip over the middle of a slab: exactly one pair, the tip
 * against the slab's top face, above it and then below it. */
static void test_tetrahedron_tip_near_face(void) {
    tch_convex_hull slab = fixture_box(tch_v3(1, 1, 0.5), tch_v3_zero());
    const tch_vec3 corners[4] = {{0, 0, 0}, {0.6, 0, 0.8}, {-0.3, 0.5, 0.8}, {-0.3, -0.5, 0.8}};
    tch_convex_hull tet;
    ENSURE(tch_hull_build(corners, 4, &tet, NULL) == TCH_OK);
    tch_features a, b;
    ENSURE(build(&slab, &a) && build(&tet, &b));
    tch_feature_pairs p;
    tch_feature_pairs_init(&p);
    const double gaps[2] = {0.04, -0.03};
    for (int i = 0; i < 2; ++i) {
        ENSURE(tch_feature_pairs_find(&a, at(tch_v3_zero()), &b, at(tch_v3(0.1, 0.2, 0.5 + gaps[i])),
                                      0.1, &p, NULL) == TCH_OK);
        ENSURE(p.count == 1);
        const tch_feature_pair q = p.pairs[0];
        ENSURE(q.kind == TCH_FEATURE_FACE_VERTEX);
        ENSURE_NEAR(q.gap, gaps[i], 1e-12);
        ENSURE_NEAR(q.distance, fabs(gaps[i]), 1e-12);
        ENSURE(tch_v3_dist(q.point_b, tch_v3(0.1, 0.2, 0.5 + gaps[i])) < 1e-12);
        ENSURE(tch_v3_dist(q.point_a, tch_v3(0.1, 0.2, 0.5)) < 1e-12);
    }
    tch_feature_pairs_free(&p);
    tch_features_free(&a);
    tch_features_free(&b);
    tch_hull_free(&slab);
    tch_hull_free(&tet);
}

/* ---- brute force ---- */

static double point_segment(tch_vec3 p, tch_vec3 a, tch_vec3 b) {
    const tch_vec3 d = tch_v3_sub(b, a);
    const double t = fmin(1, fmax(0, tch_v3_dot(tch_v3_sub(p, a), d) / tch_v3_norm2(d)));
    return tch_v3_dist(p, tch_v3_madd(a, t, d));
}

#define SAMPLES 40

/* Distance of p to a face of f at pose X, by a barycentric grid on the face's triangle fan;
 * *spacing receives the grid's largest step. */
static double point_face_sampled(tch_vec3 p, const tch_features* f, tch_transform X, int face,
                                 double* spacing) {
    const int first = f->face_start[face], end = f->face_start[face + 1];
    const tch_vec3 c0 = tch_x_apply(X, f->vertices[f->face_vertices[first]]);
    double best = INFINITY;
    *spacing = 0;
    for (int k = first + 1; k + 1 < end; ++k) {
        const tch_vec3 u = tch_v3_sub(tch_x_apply(X, f->vertices[f->face_vertices[k]]), c0);
        const tch_vec3 w = tch_v3_sub(tch_x_apply(X, f->vertices[f->face_vertices[k + 1]]), c0);
        *spacing = fmax(*spacing, (tch_v3_norm(u) + tch_v3_norm(w)) / SAMPLES);
        for (int i = 0; i <= SAMPLES; ++i) {
            for (int j = 0; i + j <= SAMPLES; ++j) {
                const tch_vec3 q = tch_v3_madd(tch_v3_madd(c0, (double)i / SAMPLES, u),
                                               (double)j / SAMPLES, w);
                best = fmin(best, tch_v3_dist(p, q));
            }
        }
    }
    return best;
}

/* Distance of two segments: exact point-segment distances from samples of the first. */
static double segment_segment_sampled(tch_vec3 a0, tch_vec3 a1, tch_vec3 b0, tch_vec3 b1) {
    double best = INFINITY;
    for (int i = 0; i <= 4 * SAMPLES; ++i) {
        best = fmin(best, point_segment(tch_v3_lerp(a0, a1, (double)i / (4 * SAMPLES)), b0, b1));
    }
    return best;
}

typedef struct posed_hull {
    const tch_features* f;
    tch_transform X;
} posed_hull;

static tch_vec3 vertex_at(posed_hull P, int v) {
    return tch_x_apply(P.X, P.f->vertices[v]);
}

/* The brute-force distance of a listed pair and the tolerance of its sampling. */
static double brute_distance(const tch_feature_pair* q, posed_hull A, posed_hull B,
                             double* tol) {
    *tol = 1e-12;
    const tch_feature_edge* ea = &A.f->edges[q->feature_a];
    const tch_feature_edge* eb = &B.f->edges[q->feature_b];
    switch (q->kind) {
    case TCH_FEATURE_VERTEX_FACE:
        return point_face_sampled(vertex_at(A, q->feature_a), B.f, B.X, q->feature_b, tol);
    case TCH_FEATURE_FACE_VERTEX:
        return point_face_sampled(vertex_at(B, q->feature_b), A.f, A.X, q->feature_a, tol);
    case TCH_FEATURE_EDGE_EDGE: {
        const tch_vec3 a0 = vertex_at(A, ea->tail), a1 = vertex_at(A, ea->head);
        *tol = tch_v3_dist(a0, a1) / (4 * SAMPLES);
        return segment_segment_sampled(a0, a1, vertex_at(B, eb->tail), vertex_at(B, eb->head));
    }
    case TCH_FEATURE_VERTEX_EDGE:
        return point_segment(vertex_at(A, q->feature_a), vertex_at(B, eb->tail),
                             vertex_at(B, eb->head));
    case TCH_FEATURE_EDGE_VERTEX:
        return point_segment(vertex_at(B, q->feature_b), vertex_at(A, ea->tail),
                             vertex_at(A, ea->head));
    case TCH_FEATURE_VERTEX_VERTEX:
        return tch_v3_dist(vertex_at(A, q->feature_a), vertex_at(B, q->feature_b));
    }
    return NAN;
}

/* The listing of one pose is complete for vertex-face pairs: every vertex within eps minus
 * the sampling step of a face (by brute force) is listed with that face. */
static int vertex_face_complete(const tch_feature_pairs* p, posed_hull V, posed_hull F,
                                tch_feature_pair_kind kind, double eps) {
    for (int v = 0; v < V.f->vertex_count; ++v) {
        for (int face = 0; face < F.f->face_count; ++face) {
            double spacing;
            const double d = point_face_sampled(vertex_at(V, v), F.f, F.X, face, &spacing);
            if (d > eps - spacing) {
                continue;
            }
            int listed = 0;
            for (int k = 0; k < p->count; ++k) {
                const tch_feature_pair* q = &p->pairs[k];
                const int qv = kind == TCH_FEATURE_VERTEX_FACE ? q->feature_a : q->feature_b;
                const int qf = kind == TCH_FEATURE_VERTEX_FACE ? q->feature_b : q->feature_a;
                listed += q->kind == kind && qv == v && qf == face;
            }
            if (listed != 1) {
                return 0;
            }
        }
    }
    return 1;
}

/* Random hulls at random poses close to touching: each listed pair's distance matches the
 * brute-force distance of its features, its points realize it (vertex-face: the gap), the gap
 * is along the normal
 * (vertex-face: |gap| <= distance; edge-edge: the normal leaves B's faces at e_b), and every
 * vertex-face pair within range is listed once. */
static void test_distances_against_brute_force(void) {
    unsigned long long state = 2026;
    const double eps = 0.1;
    int listed = 0;
    for (int trial = 0; trial < 12; ++trial) {
        tch_convex_hull ha = fixture_random_hull(&state, 16, 0.5);
        tch_convex_hull hb = fixture_random_hull(&state, 16, 0.5);
        tch_features fa, fb;
        ENSURE(build(&ha, &fa) && build(&hb, &fb));
        const posed_hull A = {&fa, {fixture_rotation(&state), tch_v3(0.1, -0.2, 0.3)}};
        const tch_vec3 dir = fixture_unit_vector(&state);
        const posed_hull B = {&fb, {fixture_rotation(&state),
                                    tch_v3_madd(A.X.p, 0.75 + 0.2 * fixture_uniform(&state), dir)}};
        tch_feature_pairs p;
        tch_feature_pairs_init(&p);
        ENSURE(tch_feature_pairs_find(&fa, A.X, &fb, B.X, eps, &p, NULL) == TCH_OK);
        listed += p.count;
        for (int k = 0; k < p.count; ++k) {
            const tch_feature_pair* q = &p.pairs[k];
            double tol;
            const double brute = brute_distance(q, A, B, &tol);
            ENSURE(q->distance <= eps);
            ENSURE(q->distance <= brute + 1e-12 && q->distance >= brute - tol);
            const int vertex_face =
                q->kind == TCH_FEATURE_VERTEX_FACE || q->kind == TCH_FEATURE_FACE_VERTEX;
            /* a vertex-face pair's points are the vertex and its foot on the face plane */
            ENSURE_NEAR(tch_v3_dist(q->point_a, q->point_b),
                        vertex_face ? fabs(q->gap) : q->distance, 1e-12);
            ENSURE_NEAR(tch_v3_norm(q->normal), 1, 1e-12);
            ENSURE_NEAR(tch_v3_dot(q->normal, tch_v3_sub(q->point_b, q->point_a)), q->gap, 1e-12);
            if (vertex_face) {
                ENSURE(fabs(q->gap) <= q->distance + 1e-12);
            }
            if (q->kind == TCH_FEATURE_EDGE_EDGE) {
                const tch_feature_edge* eb = &fb.edges[q->feature_b];
                const tch_vec3 mean = tch_q_rotate(B.X.q, tch_v3_add(fb.face_normals[eb->face1],
                                                                     fb.face_normals[eb->face2]));
                ENSURE(tch_v3_dot(q->normal, mean) <= 1e-12);
            }
        }
        ENSURE(vertex_face_complete(&p, A, B, TCH_FEATURE_VERTEX_FACE, eps));
        ENSURE(vertex_face_complete(&p, B, A, TCH_FEATURE_FACE_VERTEX, eps));
        tch_feature_pairs_free(&p);
        tch_features_free(&fa);
        tch_features_free(&fb);
        tch_hull_free(&ha);
        tch_hull_free(&hb);
    }
    ENSURE(listed > 50);
}

/* ---- relaxed applicability, eqs. 29-31 ---- */

/* The vertex of A nearest to p (world), A at pose X. */
static int vertex_near(const tch_features* f, tch_transform X, tch_vec3 p) {
    int best = 0;
    for (int v = 1; v < f->vertex_count; ++v) {
        if (tch_v3_dist(tch_x_apply(X, f->vertices[v]), p) <
            tch_v3_dist(tch_x_apply(X, f->vertices[best]), p)) {
            best = v;
        }
    }
    return best;
}

/* The cube corner (+,+,+) under a face tilted by alpha about x: its neighbour along -y makes
 * -sin(alpha), its neighbour along -x makes 0 (face to face: 0); the
 * tetrahedron's tip over a face: the least cosine of its edges with the normal, 0.8. */
static void test_vertex_face_applicability_closed_forms(void) {
    tch_convex_hull h = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    const tch_vec3 corners[4] = {{0, 0, 0}, {0.6, 0, 0.8}, {-0.3, 0.5, 0.8}, {-0.3, -0.5, 0.8}};
    tch_convex_hull tet;
    ENSURE(tch_hull_build(corners, 4, &tet, NULL) == TCH_OK);
    tch_features cube, tip;
    ENSURE(build(&h, &cube) && build(&tet, &tip));
    const tch_transform pose = {tch_q_axis_angle(tch_v3(0, 0, 1), 0.3), tch_v3(1, 2, 3)};
    const int corner = vertex_near(&cube, pose, tch_x_apply(pose, tch_v3(0.5, 0.5, 0.5)));
    const double alphas[3] = {0.0, 0.1, -0.25};
    for (int i = 0; i < 3; ++i) {
        /* tilted about the cube's own x axis */
        const tch_vec3 down = tch_q_rotate(
            pose.q, tch_q_rotate(tch_q_axis_angle(tch_v3(1, 0, 0), alphas[i]), tch_v3(0, 0, -1)));
        ENSURE_NEAR(tch_features_applicability_vertex_face(&cube, pose, corner, down),
                    fmin(0, -sin(alphas[i])), 1e-12);
    }
    const int apex = vertex_near(&tip, pose, pose.p);
    ENSURE_NEAR(tch_features_applicability_vertex_face(&tip, pose, apex, tch_v3(0, 0, 1)), 0.8,
                1e-12);
    /* upside down: minus the largest cosine, that of the edges to (-0.3, +-0.5, 0.8) */
    ENSURE_NEAR(tch_features_applicability_vertex_face(&tip, pose, apex, tch_v3(0, 0, -1)),
                -0.8 / sqrt(0.98), 1e-12);
    tch_features_free(&cube);
    tch_features_free(&tip);
    tch_hull_free(&h);
    tch_hull_free(&tet);
}

/* Every vertex of a random hull is applicable (>= 0) to the reversed normal of each of its own
 * faces, and applicability lies in [-1, 1]. */
static void test_vertex_face_applicability_random_hulls(void) {
    unsigned long long state = 31;
    for (int trial = 0; trial < 10; ++trial) {
        tch_convex_hull h = fixture_random_hull(&state, 24, 1.0);
        tch_features f;
        ENSURE(build(&h, &f));
        const tch_transform X = {fixture_rotation(&state), tch_v3(0, 1, 0)};
        for (int face = 0; face < f.face_count; ++face) {
            const tch_vec3 n = tch_q_rotate(X.q, f.face_normals[face]);
            for (int k = f.face_start[face]; k < f.face_start[face + 1]; ++k) {
                const double appl =
                    tch_features_applicability_vertex_face(&f, X, f.face_vertices[k], tch_v3_neg(n));
                ENSURE(appl >= -1e-9 && appl <= 1);
            }
        }
        tch_features_free(&f);
        tch_hull_free(&h);
    }
}

/* Two cubes edge on edge, crossed: A turned 45 degrees about x (top edge along x), B turned 45
 * degrees about y (bottom edge along y), B's edge at gap g over A's: the edge-edge pair is
 * listed at gap g along +z, its applicability is cos 45 degrees, and parallel edges get -1. */
static void test_crossed_edges(void) {
    tch_convex_hull h = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    tch_features f;
    ENSURE(build(&h, &f));
    const double g = 0.02, r = sqrt(0.5);
    const tch_transform pose_a = {tch_q_axis_angle(tch_v3(1, 0, 0), TCH_PI / 4), tch_v3_zero()};
    const tch_transform pose_b = {tch_q_axis_angle(tch_v3(0, 1, 0), TCH_PI / 4),
                                  tch_v3(0, 0, 2 * r + g)};
    tch_feature_pairs p;
    tch_feature_pairs_init(&p);
    ENSURE(tch_feature_pairs_find(&f, pose_a, &f, pose_b, 0.1, &p, NULL) == TCH_OK);
    ENSURE(p.count == 1 && p.pairs[0].kind == TCH_FEATURE_EDGE_EDGE);
    ENSURE_NEAR(p.pairs[0].gap, g, 1e-12);
    ENSURE(tch_v3_dist(p.pairs[0].normal, tch_v3(0, 0, 1)) < 1e-12);
    ENSURE_NEAR(tch_features_applicability_edge_edge(&f, pose_a, p.pairs[0].feature_a, &f, pose_b,
                                                     p.pairs[0].feature_b),
                r, 1e-12);
    ENSURE_NEAR(tch_features_applicability_edge_edge(&f, pose_a, 0, &f, pose_a, 0), -1, 0);
    tch_feature_pairs_free(&p);
    tch_features_free(&f);
    tch_hull_free(&h);
}


/* Feasibility (peg.md §5.2) against the top face z = 0.5 of a unit cube, proximity 0.1,
 * delta 0.0025, phi 0.4: over the face, feasible down to -delta; past its edge x = 0.5 by 0.05,
 * feasible above the surface descending at phi (gap >= -D sin phi, D the distance to the
 * edge) and not farther than the proximity past it. */
static void test_vertex_face_feasibility(void) {
    tch_convex_hull h = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    tch_features f;
    ENSURE(build(&h, &f));
    int top = -1;
    for (int face = 0; face < f.face_count; ++face) {
        top = f.face_normals[face].z > 0.5 ? face : top;
    }
    ENSURE(top >= 0);
    const tch_transform X = at(tch_v3(1, 2, 3));
    const double eps = 0.1, delta = 0.0025, phi = 0.4;
#define FEASIBLE(x, z)                                                                     \
    tch_features_vertex_face_feasible(&f, X, top, tch_v3(1 + (x), 2, 3.5 + (z)), eps, delta, phi)
    ENSURE(FEASIBLE(0.2, 0.05) && FEASIBLE(0.2, -0.002) && !FEASIBLE(0.2, -0.003));
    ENSURE(!FEASIBLE(0.2, 0.11)); /* beyond the proximity */
    /* past the edge by 0.05 in the plane: D = sqrt(0.05^2 + gap^2), gap >= -D sin(0.4) */
    ENSURE(FEASIBLE(0.55, 0.01) && FEASIBLE(0.55, -0.02) && !FEASIBLE(0.55, -0.025));
    ENSURE(!FEASIBLE(0.65, 0.0)); /* past the proximity in the plane */
#undef FEASIBLE
    tch_features_free(&f);
    tch_hull_free(&h);
}

int main(void) {
    RUN_TEST(test_cube_topology);
    RUN_TEST(test_edge_frames_random_hulls);
    RUN_TEST(test_open_surface_is_refused);
    RUN_TEST(test_cube_on_cube_face_to_face);
    RUN_TEST(test_cube_on_edge_over_face);
    RUN_TEST(test_tetrahedron_tip_near_face);
    RUN_TEST(test_distances_against_brute_force);
    RUN_TEST(test_vertex_face_applicability_closed_forms);
    RUN_TEST(test_vertex_face_applicability_random_hulls);
    RUN_TEST(test_crossed_edges);
    RUN_TEST(test_vertex_face_feasibility);
    return TEST_RESULT();
}
