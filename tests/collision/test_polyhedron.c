/* Intersection of convex polyhedra (clipping and dual methods), the contact plane search,
 * polyhedral approximations of curved shapes, and bad input. */
#include <math.h>
#include <stdlib.h>

#include "../contact/hull_fixtures.h"
#include "collision/contact_plane.h"
#include "collision/narrowphase.h"
#include "collision/polyhedron.h"
#include "test.h"

static const tch_polyhedron_method methods[2] = {TCH_POLYHEDRON_CLIP, TCH_POLYHEDRON_DUAL};

static tch_transform pose(tch_quat q, tch_vec3 p) {
    return (tch_transform){q, p};
}

/* Volume of A ∩ B by `method`; -1 when the call fails. */
static double overlap_volume(const tch_convex_hull* a, const tch_convex_hull* b,
                             tch_transform X_AB, tch_polyhedron_method method) {
    tch_polyhedron p;
    tch_polyhedron_init(&p);
    tch_error err;
    double v = -1;
    tch_vec3 c;
    if (tch_polyhedron_intersect(a, b, X_AB, method, &p, &err) == TCH_OK) {
        tch_polyhedron_volume_centroid(&p, &v, &c);
    } else {
        fprintf(stderr, "intersect failed: %s\n", err.message);
    }
    tch_polyhedron_free(&p);
    return v;
}

/* Every vertex of P lies inside every face plane of P and on the planes of its own faces, and
 * each face's plane is its owner's face plane. */
static int polyhedron_is_consistent(const tch_polyhedron* p, const tch_convex_hull* a,
                                    const tch_convex_hull* b, tch_transform X_AB, double tol) {
    for (int f = 0; f < p->face_count; ++f) {
        const tch_convex_hull* owner = p->face_owner[f] == TCH_FACE_OWNER_A ? a : b;
        tch_vec3 n = owner->face_normals_G[p->face_source[f]];
        if (p->face_owner[f] == TCH_FACE_OWNER_B) {
            n = tch_q_rotate(X_AB.q, n);
        }
        if (tch_v3_dist(n, p->face_normals_A[f]) > 1e-12) {
            return 0;
        }
        for (int i = 0; i < p->vertex_count; ++i) {
            if (tch_v3_dot(p->face_normals_A[f], p->vertices_A[i]) - p->face_offsets[f] > tol) {
                return 0;
            }
        }
        for (int k = p->face_start[f]; k < p->face_start[f + 1]; ++k) {
            const tch_vec3 v = p->vertices_A[p->face_vertices[k]];
            if (fabs(tch_v3_dot(p->face_normals_A[f], v) - p->face_offsets[f]) > tol) {
                return 0;
            }
        }
    }
    return 1;
}

static void test_axis_aligned_boxes_exact_product(void) {
    tch_convex_hull a = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    tch_convex_hull b = fixture_box(tch_v3(0.5, 0.7, 0.9), tch_v3_zero());
    const tch_transform X_AB = pose(tch_q_identity(), tch_v3(1.2, 0.3, -0.5));
    /* overlaps per axis: x [0.7, 1] = 0.3, y [-0.4, 1] = 1.4, z [-1, 0.4] = 1.4 */
    const double expected = 0.3 * 1.4 * 1.4;
    for (int m = 0; m < 2; ++m) {
        ENSURE_REL(overlap_volume(&a, &b, X_AB, methods[m]), expected, 1e-12);
    }
    tch_hull_free(&a);
    tch_hull_free(&b);
}

static void test_cube_and_cube_rotated_45_degrees(void) {
    /* notes §9.3: V = 2 (sqrt 2 - 1) for the unit cube and its copy turned 45 deg about z */
    tch_convex_hull a = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    const tch_transform X_AB = pose(tch_q_axis_angle(tch_v3(0, 0, 1), TCH_PI / 4), tch_v3_zero());
    for (int m = 0; m < 2; ++m) {
        ENSURE_REL(overlap_volume(&a, &a, X_AB, methods[m]), 2 * (sqrt(2.0) - 1), 1e-12);
    }
    tch_hull_free(&a);
}

static int inside_box(tch_vec3 p, tch_vec3 h) {
    return fabs(p.x) <= h.x && fabs(p.y) <= h.y && fabs(p.z) <= h.z;
}

static void test_rotated_boxes_agree_with_monte_carlo(void) {
    unsigned long long rng = 7;
    const tch_vec3 ha = tch_v3(1, 0.6, 0.4), hb = tch_v3(0.8, 0.5, 0.7);
    tch_convex_hull a = fixture_box(ha, tch_v3_zero());
    tch_convex_hull b = fixture_box(hb, tch_v3_zero());
    for (int trial = 0; trial < 3; ++trial) {
        const tch_transform X_AB = pose(fixture_rotation(&rng), tch_v3(0.6, 0.3, -0.2));
        const double v_clip = overlap_volume(&a, &b, X_AB, TCH_POLYHEDRON_CLIP);
        const double v_dual = overlap_volume(&a, &b, X_AB, TCH_POLYHEDRON_DUAL);
        ENSURE_REL(v_dual, v_clip, 1e-9);
        const int samples = 400000;
        int hits = 0;
        for (int i = 0; i < samples; ++i) {
            const tch_vec3 p = tch_v3((2 * fixture_uniform(&rng) - 1) * ha.x,
                                      (2 * fixture_uniform(&rng) - 1) * ha.y,
                                      (2 * fixture_uniform(&rng) - 1) * ha.z);
            hits += inside_box(tch_x_apply_inverse(X_AB, p), hb);
        }
        const double box = 8 * ha.x * ha.y * ha.z, fraction = (double)hits / samples;
        const double sigma = box * sqrt(fraction * (1 - fraction) / samples);
        ENSURE_NEAR(v_clip, box * fraction, 5 * sigma);
    }
    tch_hull_free(&a);
    tch_hull_free(&b);
}

static void test_containment_gives_the_inner_piece(void) {
    tch_convex_hull big = fixture_box(tch_v3(2, 2, 2), tch_v3_zero());
    tch_convex_hull small = fixture_box(tch_v3(0.3, 0.4, 0.5), tch_v3_zero());
    const tch_transform X = pose(tch_q_axis_angle(tch_v3(0, 1, 0), 0.3), tch_v3(0.2, 0.1, 0));
    for (int m = 0; m < 2; ++m) {
        ENSURE_REL(overlap_volume(&big, &small, X, methods[m]), 8 * 0.3 * 0.4 * 0.5, 1e-12);
        ENSURE_REL(overlap_volume(&small, &big, tch_x_inverse(X), methods[m]),
                   8 * 0.3 * 0.4 * 0.5, 1e-12);
    }
    tch_polyhedron p;
    tch_polyhedron_init(&p);
    ENSURE(tch_polyhedron_intersect(&big, &small, X, TCH_POLYHEDRON_CLIP, &p, NULL) == TCH_OK);
    ENSURE(p.face_count == 6);
    for (int f = 0; f < 6; ++f) {
        ENSURE(p.face_owner[f] == TCH_FACE_OWNER_B);
    }
    tch_polyhedron_free(&p);
    tch_hull_free(&big);
    tch_hull_free(&small);
}

static void test_touching_and_disjoint_pieces_are_empty(void) {
    tch_convex_hull a = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    const tch_transform touching_face = pose(tch_q_identity(), tch_v3(2, 0.3, 0.1));
    const tch_transform touching_corner = pose(tch_q_identity(), tch_v3(2, 2, 2));
    const tch_transform touching_edge =
        pose(tch_q_axis_angle(tch_v3(0, 0, 1), TCH_PI / 4), tch_v3(1 + sqrt(2.0), 0, 0.5));
    const tch_transform apart = pose(fixture_rotation(&(unsigned long long){3}), tch_v3(5, 0, 0));
    const tch_transform cases[4] = {touching_face, touching_corner, touching_edge, apart};
    for (int c = 0; c < 4; ++c) {
        for (int m = 0; m < 2; ++m) {
            tch_polyhedron p;
            tch_polyhedron_init(&p);
            ENSURE(tch_polyhedron_intersect(&a, &a, cases[c], methods[m], &p, NULL) == TCH_OK);
            ENSURE(p.face_count == 0);
            tch_polyhedron_free(&p);
        }
    }
    tch_hull_free(&a);
}

/* The area of face f of p (half the norm of Newell's area vector). */
static double face_area(const tch_polyhedron* p, int f) {
    tch_vec3 sum = tch_v3_zero();
    const int start = p->face_start[f], count = p->face_start[f + 1] - start;
    for (int k = 0; k < count; ++k) {
        tch_vec3 u = p->vertices_A[p->face_vertices[start + k]];
        tch_vec3 w = p->vertices_A[p->face_vertices[start + (k + 1) % count]];
        sum = tch_v3_add(sum, tch_v3_cross(u, w));
    }
    return 0.5 * tch_v3_norm(sum);
}

/* Pieces touching along a patch of faces give the flat P of the patch with
 * tch_polyhedron_clip_touching: two faces of opposite owners and normals on the patch (here
 * x = 1, y in [-0.7, 1], z in [-0.9, 1]: 1.7 x 1.9 m^2); touching along an edge or at a corner,
 * or apart, still nothing. */
static void test_touching_faces_give_a_flat_overlap(void) {
    tch_convex_hull a = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    const tch_real size = tch_polyhedron_pair_size(&a, &a);
    tch_polyhedron p;
    tch_polyhedron_init(&p);
    ENSURE(tch_polyhedron_clip_touching(&a, &a, pose(tch_q_identity(), tch_v3(2, 0.3, 0.1)), size,
                                        &p, NULL) == TCH_OK);
    ENSURE(p.face_count == 2);
    ENSURE(p.face_owner[0] != p.face_owner[1]);
    ENSURE(fabs(tch_v3_dot(p.face_normals_A[0], p.face_normals_A[1]) + 1) < 1e-12);
    for (int f = 0; f < 2; ++f) {
        ENSURE(fabs(face_area(&p, f) - 1.7 * 1.9) < 1e-12);
        ENSURE(fabs(fabs(p.face_normals_A[f].x) - 1) < 1e-12);
    }
    for (int i = 0; i < p.vertex_count; ++i) {
        ENSURE(fabs(p.vertices_A[i].x - 1) < 1e-12);
    }
    const tch_transform only_touching[3] = {
        pose(tch_q_identity(), tch_v3(2, 2, 2)),
        pose(tch_q_axis_angle(tch_v3(0, 0, 1), TCH_PI / 4), tch_v3(1 + sqrt(2.0), 0, 0.5)),
        pose(tch_q_identity(), tch_v3(2.5, 0, 0))};
    for (int c = 0; c < 3; ++c) {
        ENSURE(tch_polyhedron_clip_touching(&a, &a, only_touching[c], size, &p, NULL) == TCH_OK);
        ENSURE(p.face_count == 0);
    }
    /* an overlap of some thickness is the same solid P either way */
    const tch_transform overlapping = pose(tch_q_identity(), tch_v3(1.5, 0.3, 0.1));
    ENSURE(tch_polyhedron_clip_touching(&a, &a, overlapping, size, &p, NULL) == TCH_OK);
    tch_real touching_volume;
    tch_vec3 centroid;
    tch_polyhedron_volume_centroid(&p, &touching_volume, &centroid);
    ENSURE(tch_polyhedron_clip(&a, &a, overlapping, size, &p, NULL) == TCH_OK);
    tch_real volume;
    tch_polyhedron_volume_centroid(&p, &volume, &centroid);
    ENSURE(fabs(volume - 0.5 * 1.7 * 1.9) < 1e-12 && touching_volume == volume);
    tch_polyhedron_free(&p);
    tch_hull_free(&a);
}

static void test_coplanar_faces_and_identical_pieces(void) {
    tch_convex_hull a = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    /* B = [0, 2] x [-1, 1] x [-1, 1]: four of its faces lie on A's planes */
    const tch_transform shifted = pose(tch_q_identity(), tch_v3(1, 0, 0));
    const tch_transform same = pose(tch_q_identity(), tch_v3_zero());
    const tch_transform quarter_turn = pose(tch_q_axis_angle(tch_v3(0, 0, 1), TCH_PI / 2),
                                            tch_v3(0, 0, 0.5));
    for (int m = 0; m < 2; ++m) {
        ENSURE_REL(overlap_volume(&a, &a, shifted, methods[m]), 4, 1e-12);
        ENSURE_REL(overlap_volume(&a, &a, same, methods[m]), 8, 1e-12);
        ENSURE_REL(overlap_volume(&a, &a, quarter_turn, methods[m]), 6, 1e-12);
    }
    tch_polyhedron p;
    tch_polyhedron_init(&p);
    ENSURE(tch_polyhedron_intersect(&a, &a, shifted, TCH_POLYHEDRON_CLIP, &p, NULL) == TCH_OK);
    ENSURE(p.face_count == 6 && p.vertex_count == 8);
    ENSURE(polyhedron_is_consistent(&p, &a, &a, shifted, 1e-12));
    tch_polyhedron_free(&p);
    tch_hull_free(&a);
}

static void test_random_hull_pairs_both_methods_agree(void) {
    unsigned long long rng = 11;
    tch_polyhedron clip, dual;
    tch_polyhedron_init(&clip);
    tch_polyhedron_init(&dual);
    int overlapping = 0;
    for (int trial = 0; trial < 300; ++trial) {
        tch_convex_hull a = fixture_random_hull(&rng, 8 + trial % 60, 1.0);
        tch_convex_hull b = fixture_random_hull(&rng, 8 + (trial * 7) % 60, 0.8);
        const tch_transform X_AB =
            pose(fixture_rotation(&rng), tch_v3_scale(fixture_unit_vector(&rng),
                                                      1.6 * fixture_uniform(&rng)));
        ENSURE(tch_polyhedron_intersect(&a, &b, X_AB, TCH_POLYHEDRON_CLIP, &clip, NULL) ==
               TCH_OK);
        ENSURE(tch_polyhedron_intersect(&a, &b, X_AB, TCH_POLYHEDRON_DUAL, &dual, NULL) ==
               TCH_OK);
        double v_clip, v_dual;
        tch_vec3 c_clip, c_dual;
        tch_polyhedron_volume_centroid(&clip, &v_clip, &c_clip);
        tch_polyhedron_volume_centroid(&dual, &v_dual, &c_dual);
        if (v_clip > 1e-6) {
            ++overlapping;
            ENSURE_REL(v_dual, v_clip, 1e-9);
            ENSURE(tch_v3_dist(c_clip, c_dual) < 1e-9);
            ENSURE(polyhedron_is_consistent(&clip, &a, &b, X_AB, 1e-9));
            /* qhull merges dual facets within its roundoff, which welds vertices of P that
             * are about 1e-8 apart: one of them then stands off a plane by that much */
            ENSURE(polyhedron_is_consistent(&dual, &a, &b, X_AB, 1e-7));
        } else {
            ENSURE(v_dual < 1e-6);
        }
        tch_hull_free(&a);
        tch_hull_free(&b);
    }
    ENSURE(overlapping > 150);
    tch_polyhedron_free(&clip);
    tch_polyhedron_free(&dual);
}

static void test_dual_with_given_interior_point(void) {
    tch_convex_hull a = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    const tch_transform X_AB = pose(tch_q_identity(), tch_v3(1.5, 0, 0));
    tch_polyhedron p;
    tch_polyhedron_init(&p);
    ENSURE(tch_polyhedron_intersect_dual(&a, &a, X_AB, tch_v3(0.75, 0.1, 0), &p, NULL) == TCH_OK);
    double v;
    tch_vec3 c;
    tch_polyhedron_volume_centroid(&p, &v, &c);
    ENSURE_REL(v, 0.5 * 2 * 2, 1e-12);
    ENSURE_NEAR(c.x, 0.75, 1e-12);
    tch_error err;
    ENSURE(tch_polyhedron_intersect_dual(&a, &a, X_AB, tch_v3(0.5, 0, 0), &p, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "interior point") != NULL);
    tch_polyhedron_free(&p);
    tch_hull_free(&a);
}

/* ---- contact plane ---- */

static void test_contact_plane_of_boxes_overlapping_along_an_axis(void) {
    tch_convex_hull a = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    tch_convex_hull b = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    const double d = 0.05;
    const tch_vec3 axes[3] = {tch_v3(0, 0, 1), tch_v3(-1, 0, 0), tch_v3(0, 1, 0)};
    for (int k = 0; k < 3; ++k) {
        const tch_transform X_AB = pose(tch_q_identity(), tch_v3_scale(axes[k], 1.5 - d));
        tch_contact_plane plane;
        /* warm start slightly off the axis, and a new contact (initial normal from P) */
        const tch_vec3 warm = tch_v3_normalize(tch_v3_add(axes[k], tch_v3(0.01, 0.02, -0.01)));
        ENSURE(tch_contact_plane_find(&a, &b, X_AB, &warm, d, NULL, &plane, NULL) == TCH_OK);
        ENSURE(tch_v3_dist(plane.n_A, axes[k]) < 1e-9);
        /* B moved by s along warm opens a gap s warm.axis - d along the axis, so the search
         * reports d + s (1 - warm.axis): exact for an exact warm start */
        const double s = fmax(d, 0.01) * pow(2, plane.trials);
        ENSURE_NEAR(plane.depth, d + s * (1 - tch_v3_dot(warm, axes[k])), 1e-12);
        tch_polyhedron p;
        tch_polyhedron_init(&p);
        ENSURE(tch_polyhedron_intersect(&a, &b, X_AB, TCH_POLYHEDRON_DEFAULT, &p, NULL) ==
               TCH_OK);
        ENSURE(tch_v3_dist(tch_contact_initial_normal(&p, tch_v3_zero(), X_AB.p), axes[k]) <
               1e-12);
        ENSURE(tch_contact_plane_find(&a, &b, X_AB, NULL, 0, &p, &plane, NULL) == TCH_OK);
        ENSURE(tch_v3_dist(plane.n_A, axes[k]) < 1e-12);
        ENSURE_NEAR(plane.depth, d, 1e-12);
        ENSURE_NEAR(tch_v3_dot(plane.o_A, axes[k]), 1 - d / 2, 1e-12);
        tch_polyhedron_free(&p);
    }
    tch_hull_free(&a);
    tch_hull_free(&b);
}

static void test_contact_plane_keeps_the_warm_started_direction(void) {
    /* a cube sunk into a wide slab: from a tilted previous normal the depth is the
     * translational depth along that normal, refined to the closest-point direction */
    tch_convex_hull slab = fixture_box(tch_v3(5, 5, 1), tch_v3_zero());
    tch_convex_hull cube = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    const tch_transform X_AB = pose(tch_q_identity(), tch_v3(0, 0, 1.5 - 0.1));
    const tch_vec3 warm = tch_v3_normalize(tch_v3(0.1, 0, 1));
    tch_contact_plane plane;
    ENSURE(tch_contact_plane_find(&slab, &cube, X_AB, &warm, 0.1, NULL, &plane, NULL) == TCH_OK);
    ENSURE(tch_v3_dist(plane.n_A, tch_v3(0, 0, 1)) < 1e-9);
    /* separated along warm by s, the gap along z is s warm.z - 0.1 */
    ENSURE(plane.depth > 0);
    ENSURE(plane.trials >= 1);
    tch_hull_free(&slab);
    tch_hull_free(&cube);
}

/* Index of the vertex of a hull at point v (-1 if none). */
static int vertex_at(const tch_convex_hull* hull, tch_vec3 v) {
    for (int i = 0; i < hull->vertex_count; ++i) {
        if (tch_v3_dist(hull->vertices_G[i], v) < 1e-12) {
            return i;
        }
    }
    return -1;
}

static void test_warm_simplex_of_a_face_contact_gives_the_face_normal(void) {
    /* Two unit cubes face to face, B offset sideways by 1e-12 m; the last step's simplex is
     * the pair of corners above each other. The corner-to-corner vector is off the face
     * normal by 1e-12 / gap, and passes the distance test of GJK (|v|^2 does not see a
     * sideways error of 1e-12 against a gap of 0.1): the search must still go on to the
     * face and return the normal exactly, else the tilt feeds a stack's buckling. */
    tch_convex_hull cube = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
    const double depth = 0.02, offset = 1e-12;
    const tch_transform X_AB = pose(tch_q_identity(), tch_v3(offset, offset, 1 - depth));
    tch_contact_plane_warm warm = {1, {vertex_at(&cube, tch_v3(0.5, 0.5, 0.5))},
                                   {vertex_at(&cube, tch_v3(0.5, 0.5, -0.5))}};
    ENSURE(warm.a[0] >= 0 && warm.b[0] >= 0);
    tch_contact_plane plane;
    ENSURE(tch_contact_plane_search(&cube, &cube, X_AB, tch_v3(0, 0, 1), depth,
                                    tch_polyhedron_pair_size(&cube, &cube), &warm,
                                    &plane) == 0);
    /* the stale corner pair gives offset / gap = 5e-11; round-off of the unit-size points over
     * the 0.02 m gap is about 1e-14 */
    ENSURE(fabs(plane.n_A.x) < 1e-13 && fabs(plane.n_A.y) < 1e-13);
    ENSURE_NEAR(plane.depth, depth, 1e-14);
    tch_hull_free(&cube);
}

static void test_warm_started_search_matches_the_cold_one(void) {
    /* random tilted boxes sinking into each other, stepped along a path: the search from the
     * previous simplex gives the cold search's plane to round-off */
    unsigned long long rng = 5;
    tch_convex_hull a = fixture_box(tch_v3(0.6, 0.4, 0.3), tch_v3_zero());
    tch_convex_hull b = fixture_box(tch_v3(0.3, 0.5, 0.2), tch_v3(0.01, -0.02, 0.03));
    const double size = tch_polyhedron_pair_size(&a, &b);
    int warm_steps = 0;
    for (int trial = 0; trial < 40; ++trial) {
        const tch_quat q0 = fixture_rotation(&rng);
        const tch_vec3 axis = fixture_unit_vector(&rng);
        tch_contact_plane_warm warm = {0, {0}, {0}};
        tch_vec3 n_prev = tch_v3(0, 0, 1);
        double d_prev = NAN;
        for (int step = 0; step < 10; ++step) {
            const tch_quat q = tch_q_mul(tch_q_axis_angle(axis, 0.002 * step), q0);
            const tch_transform X_AB = pose(q, tch_v3(0.05, -0.03, 0.75 - 0.005 * step));
            tch_contact_plane cold, hot;
            ENSURE(tch_contact_plane_search(&a, &b, X_AB, n_prev, d_prev, size, NULL, &cold) ==
                   0);
            warm_steps += warm.count > 0;
            ENSURE(tch_contact_plane_search(&a, &b, X_AB, n_prev, d_prev, size, &warm, &hot) ==
                   0);
            ENSURE(tch_v3_dist(cold.n_A, hot.n_A) < 1e-12);
            ENSURE_NEAR(cold.depth, hot.depth, 1e-12);
            ENSURE_NEAR(tch_v3_dot(cold.o_A, cold.n_A), tch_v3_dot(hot.o_A, cold.n_A), 1e-12);
            n_prev = hot.n_A;
            d_prev = hot.depth;
        }
    }
    ENSURE(warm_steps > 300);
    tch_hull_free(&a);
    tch_hull_free(&b);
}

static void test_unchecked_clip_matches_intersect(void) {
    unsigned long long rng = 23;
    tch_polyhedron checked, fast;
    tch_polyhedron_init(&checked);
    tch_polyhedron_init(&fast);
    for (int trial = 0; trial < 50; ++trial) {
        tch_convex_hull a = fixture_random_hull(&rng, 8 + trial, 1.0);
        tch_convex_hull b = fixture_random_hull(&rng, 30 - trial / 2, 0.7);
        /* the unchecked call takes a unit quaternion, which intersect makes (again: the two
         * may differ by an ulp) */
        const tch_transform X_AB = pose(tch_q_normalize(fixture_rotation(&rng)),
                                        tch_v3_scale(fixture_unit_vector(&rng), 1.2));
        ENSURE(tch_polyhedron_intersect(&a, &b, X_AB, TCH_POLYHEDRON_CLIP, &checked, NULL) ==
               TCH_OK);
        ENSURE(tch_polyhedron_clip(&a, &b, X_AB, tch_polyhedron_pair_size(&a, &b), &fast,
                                   NULL) == TCH_OK);
        ENSURE(checked.vertex_count == fast.vertex_count);
        ENSURE(checked.face_count == fast.face_count);
        for (int i = 0; i < fast.vertex_count; ++i) {
            ENSURE(tch_v3_dist(checked.vertices_A[i], fast.vertices_A[i]) < 1e-14);
        }
        tch_hull_free(&a);
        tch_hull_free(&b);
    }
    tch_polyhedron_free(&checked);
    tch_polyhedron_free(&fast);
}

static void test_closest_points_of_separated_boxes(void) {
    tch_convex_hull a = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    const tch_transform X_AB = pose(tch_q_axis_angle(tch_v3(0, 0, 1), TCH_PI / 4),
                                    tch_v3(3, 0.2, 0.3));
    tch_vec3 pa, pb;
    const double distance = tch_contact_closest_points(&a, &a, X_AB, &pa, &pb);
    /* B's edge (x = 3 - sqrt 2) faces A's face x = 1 */
    ENSURE_NEAR(distance, 2 - sqrt(2.0), 1e-12);
    ENSURE_NEAR(pa.x, 1, 1e-12);
    ENSURE_NEAR(pb.x, 3 - sqrt(2.0), 1e-12);
    ENSURE(tch_contact_closest_points(&a, &a, pose(tch_q_identity(), tch_v3(0.5, 0, 0)), &pa,
                                      &pb) == 0);
    tch_hull_free(&a);
}

/* The separating-axis test that lets the contact-volume model skip the clipping: boxes it
 * finds apart (by the clipping's tolerance, times 1e3, as the model asks) clip to the empty P,
 * and with no margin it finds every pair whose closest points are apart. */
static void test_boxes_apart_only_when_the_clipping_is_empty(void) {
    unsigned long long rng = 31;
    tch_polyhedron p;
    tch_polyhedron_init(&p);
    int apart_count = 0, overlap_count = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const tch_vec3 ha = tch_v3(0.2 + fixture_uniform(&rng), 0.2 + fixture_uniform(&rng),
                                   0.2 + fixture_uniform(&rng));
        const tch_vec3 hb = tch_v3(0.2 + fixture_uniform(&rng), 0.2 + fixture_uniform(&rng),
                                   0.2 + fixture_uniform(&rng));
        tch_convex_hull a = fixture_box(ha, tch_v3_zero());
        tch_convex_hull b = fixture_box(hb, tch_v3_zero());
        const tch_real reach = tch_v3_norm(ha) + tch_v3_norm(hb);
        const tch_transform X_AB =
            pose(tch_q_normalize(fixture_rotation(&rng)),
                 tch_v3_scale(fixture_unit_vector(&rng), reach * (0.3 + 0.7 * fixture_uniform(&rng))));
        const tch_real size = tch_polyhedron_pair_size(&a, &b);
        ENSURE(tch_polyhedron_clip_touching(&a, &b, X_AB, size, &p, NULL) == TCH_OK);
        if (tch_boxes_apart(ha, hb, X_AB, 1e3 * TCH_POLYHEDRON_TOLERANCE * size)) {
            ENSURE(p.face_count == 0);
            ++apart_count;
        } else {
            overlap_count += p.face_count > 0;
        }
        tch_vec3 pa, pb;
        const double distance = tch_contact_closest_points(&a, &b, X_AB, &pa, &pb);
        ENSURE(tch_boxes_apart(ha, hb, X_AB, 0) == (distance > 0));
        tch_hull_free(&a);
        tch_hull_free(&b);
    }
    ENSURE(apart_count > 50 && overlap_count > 50); /* both kinds were met */
    tch_polyhedron_free(&p);
}

/* ---- approximations ---- */

static void test_approximations_of_curved_shapes(void) {
    tch_convex_hull hull;
    const int n = 24;
    const tch_shape cylinder = {TCH_GEOM_CYLINDER, {0.5, 0.8, 0}, NULL};
    ENSURE(tch_polyhedron_approximate_shape(&cylinder, n, &hull, NULL) == TCH_OK);
    /* regular n-gon of circumradius r: area (n/2) r^2 sin(2 pi/n) */
    ENSURE_REL(hull.volume, n / 2.0 * 0.25 * sin(2 * TCH_PI / n) * 1.6, 1e-12);
    ENSURE(hull.face_count == n + 2);
    tch_hull_free(&hull);
    const tch_shape box = {TCH_GEOM_BOX, {0.1, 0.2, 0.3}, NULL};
    ENSURE(tch_polyhedron_approximate_shape(&box, n, &hull, NULL) == TCH_OK);
    ENSURE_REL(hull.volume, 8 * 0.1 * 0.2 * 0.3, 1e-12);
    tch_hull_free(&hull);
    const tch_shape curved[3] = {{TCH_GEOM_SPHERE, {0.5, 0, 0}, NULL},
                                 {TCH_GEOM_CAPSULE, {0.5, 1, 0}, NULL},
                                 {TCH_GEOM_ELLIPSOID, {0.5, 0.3, 0.2}, NULL}};
    const double exact[3] = {4.0 / 3 * TCH_PI * 0.125,
                             4.0 / 3 * TCH_PI * 0.125 + TCH_PI * 0.25 * 2,
                             4.0 / 3 * TCH_PI * 0.5 * 0.3 * 0.2};
    for (int k = 0; k < 3; ++k) {
        double previous = 0;
        for (int resolution = 8; resolution <= 64; resolution *= 2) {
            ENSURE(tch_polyhedron_approximate_shape(&curved[k], resolution, &hull, NULL) ==
                   TCH_OK);
            ENSURE(tch_polyhedron_check_hull(&hull, "approximation", NULL) == TCH_OK);
            /* inscribed: below the exact volume, and closer as the resolution grows */
            ENSURE(hull.volume < exact[k] && hull.volume > previous);
            previous = hull.volume;
            tch_hull_free(&hull);
        }
        ENSURE(previous > 0.99 * exact[k]);
    }
}

/* ---- bad input ---- */

static void test_bad_input_gives_clear_errors(void) {
    tch_convex_hull a = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    tch_error err;
    ENSURE(tch_polyhedron_check_hull(&a, "box", &err) == TCH_OK);
    /* non-convex: push a vertex out through its neighbours' planes */
    tch_convex_hull dented;
    ENSURE(tch_hull_copy(&a, &dented) == 0);
    dented.vertices_G[0] = tch_v3_scale(dented.vertices_G[0], 0.5);
    ENSURE(tch_polyhedron_check_hull(&dented, "dented", &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "dented") && strstr(err.message, "not convex") == NULL);
    dented.vertices_G[0] = tch_v3_scale(a.vertices_G[0], 1.5);
    ENSURE(tch_polyhedron_check_hull(&dented, "bulged", &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "not convex") != NULL);
    tch_hull_free(&dented);
    /* flat: every vertex squashed onto z = 0 */
    tch_convex_hull flat;
    ENSURE(tch_hull_copy(&a, &flat) == 0);
    for (int i = 0; i < flat.vertex_count; ++i) {
        flat.vertices_G[i].z = 0;
    }
    flat.volume = 0;
    tch_polyhedron p;
    tch_polyhedron_init(&p);
    ENSURE(tch_polyhedron_intersect(&a, &flat, tch_x_identity(), TCH_POLYHEDRON_DEFAULT, &p,
                                    &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "flat") != NULL);
    ENSURE(tch_polyhedron_intersect(NULL, &a, tch_x_identity(), TCH_POLYHEDRON_DEFAULT, &p,
                                    &err) == TCH_ERR_INVALID_ARGUMENT);
    const tch_transform bad_pose = {{NAN, 0, 0, 0}, {0, 0, 0}};
    ENSURE(tch_polyhedron_intersect(&a, &a, bad_pose, TCH_POLYHEDRON_DEFAULT, &p, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_polyhedron_intersect(&a, &a, tch_x_identity(), (tch_polyhedron_method)9, &p,
                                    &err) == TCH_ERR_INVALID_ARGUMENT);
    const tch_vec3 zero = tch_v3_zero();
    tch_contact_plane plane;
    ENSURE(tch_contact_plane_find(&a, &a, tch_x_identity(), &zero, 0, NULL, &plane, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "normal") != NULL);
    tch_convex_hull hull;
    const tch_shape sphere = {TCH_GEOM_SPHERE, {0.5, 0, 0}, NULL};
    ENSURE(tch_polyhedron_approximate_shape(&sphere, 2, &hull, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "resolution") != NULL);
    const tch_shape negative = {TCH_GEOM_SPHERE, {-0.5, 0, 0}, NULL};
    ENSURE(tch_polyhedron_approximate_shape(&negative, 16, &hull, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
    const tch_shape plane_shape = {TCH_GEOM_PLANE, {0, 0, 0}, NULL};
    ENSURE(tch_polyhedron_approximate_shape(&plane_shape, 16, &hull, &err) ==
           TCH_ERR_UNSUPPORTED);
    tch_polyhedron_free(&p);
    tch_hull_free(&flat);
    tch_hull_free(&a);
}

int main(void) {
    RUN_TEST(test_axis_aligned_boxes_exact_product);
    RUN_TEST(test_cube_and_cube_rotated_45_degrees);
    RUN_TEST(test_rotated_boxes_agree_with_monte_carlo);
    RUN_TEST(test_containment_gives_the_inner_piece);
    RUN_TEST(test_touching_and_disjoint_pieces_are_empty);
    RUN_TEST(test_touching_faces_give_a_flat_overlap);
    RUN_TEST(test_coplanar_faces_and_identical_pieces);
    RUN_TEST(test_random_hull_pairs_both_methods_agree);
    RUN_TEST(test_dual_with_given_interior_point);
    RUN_TEST(test_contact_plane_of_boxes_overlapping_along_an_axis);
    RUN_TEST(test_contact_plane_keeps_the_warm_started_direction);
    RUN_TEST(test_warm_simplex_of_a_face_contact_gives_the_face_normal);
    RUN_TEST(test_warm_started_search_matches_the_cold_one);
    RUN_TEST(test_unchecked_clip_matches_intersect);
    RUN_TEST(test_closest_points_of_separated_boxes);
    RUN_TEST(test_boxes_apart_only_when_the_clipping_is_empty);
    RUN_TEST(test_approximations_of_curved_shapes);
    RUN_TEST(test_bad_input_gives_clear_errors);
    return TEST_RESULT();
}
