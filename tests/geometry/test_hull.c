/* Convex hulls: topology, face merging, planes, volume, degenerate input, silence. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "../math/test_util.h"
#include "geometry/hull.h"
#include "math/vec.h"
#include "test.h"

static void cube_corners(tch_vec3 out[8], tch_real h) {
    for (int i = 0; i < 8; ++i) {
        out[i] = tch_v3(i & 1 ? h : -h, i & 2 ? h : -h, i & 4 ? h : -h);
    }
}

static int face_length(const tch_convex_hull* hull, int f) {
    return hull->face_start[f + 1] - hull->face_start[f];
}

static tch_vec3 face_vertex(const tch_convex_hull* hull, int f, int i) {
    return hull->vertices_G[hull->face_vertices[hull->face_start[f] + i % face_length(hull, f)]];
}

/* Invariants of any hull: Euler's formula, every edge in two faces, faces planar and
 * counter-clockwise about their unit outward normal, every point inside every face plane,
 * volume from the faces. Returns the first failure as a message, or NULL. */
static const char* check_hull(const tch_convex_hull* hull, const tch_vec3* points, int count,
                              tch_real tol) {
    if (hull->vertex_count - hull->edge_count + hull->face_count != 2) {
        return "Euler's formula V - E + F = 2 fails";
    }
    if (2 * hull->edge_count != hull->face_start[hull->face_count]) {
        return "the faces' corners are not twice the edges";
    }
    for (int f = 0; f < hull->face_count; ++f) {
        tch_vec3 n = hull->face_normals_G[f];
        if (fabs(tch_v3_norm(n) - 1) > 1e-14) {
            return "a face normal is not unit";
        }
        for (int i = 0; i < face_length(hull, f); ++i) {
            tch_vec3 a = face_vertex(hull, f, i), b = face_vertex(hull, f, i + 1),
                     c = face_vertex(hull, f, i + 2);
            if (fabs(tch_v3_dot(n, a) - hull->face_offsets[f]) > tol) {
                return "a face vertex is off its plane";
            }
            if (tch_v3_dot(tch_v3_cross(tch_v3_sub(b, a), tch_v3_sub(c, b)), n) < -tol * tol) {
                return "a face turns clockwise about its outward normal";
            }
        }
        for (int p = 0; p < count; ++p) {
            if (tch_v3_dot(n, points[p]) > hull->face_offsets[f] + tol) {
                return "an input point is outside a face plane";
            }
        }
    }
    for (int e = 0; e < hull->edge_count; ++e) {
        if (hull->edges[e][0] >= hull->edges[e][1] || hull->edges[e][1] >= hull->vertex_count) {
            return "an edge is not a sorted pair of vertex indices";
        }
    }
    return NULL;
}

#define ENSURE_HULL_VALID(hull, points, count, tol)                                                \
    do {                                                                                           \
        const char* problem_ = check_hull(hull, points, count, tol);                               \
        if (problem_) {                                                                            \
            fprintf(stderr, "hull check: %s\n", problem_);                                         \
        }                                                                                          \
        ENSURE(problem_ == NULL);                                                                  \
    } while (0)

static void test_cube_has_six_square_faces(void) {
    tch_vec3 p[8];
    cube_corners(p, 1);
    tch_convex_hull hull;
    ENSURE(tch_hull_build(p, 8, &hull, NULL) == TCH_OK);
    ENSURE(hull.vertex_count == 8 && hull.face_count == 6 && hull.edge_count == 12);
    ENSURE_HULL_VALID(&hull, p, 8, 1e-14);
    for (int f = 0; f < 6; ++f) {
        ENSURE(face_length(&hull, f) == 4);
        ENSURE_NEAR(hull.face_offsets[f], 1, 1e-15);
        tch_vec3 n = tch_v3_abs(hull.face_normals_G[f]);
        ENSURE_NEAR(n.x + n.y + n.z, 1, 1e-15);
    }
    ENSURE_NEAR(hull.volume, 8, 1e-14);
    ENSURE(tch_v3_norm(hull.centroid_G) < 1e-15);
    tch_hull_free(&hull);
    ENSURE(hull.vertices_G == NULL && hull.face_count == 0);
}

/* Points inside, on faces and on edges of a box are not hull vertices; the box keeps 6 faces. */
static void test_box_with_extra_points(void) {
    tch_vec3 p[8 + 27];
    cube_corners(p, 1);
    int n = 8;
    for (int i = -1; i <= 1; ++i) {
        for (int j = -1; j <= 1; ++j) {
            for (int k = -1; k <= 1; ++k) {
                p[n++] = tch_v3(0.5 * i, 1.0 * j, 0.25 * k); /* face, edge and interior points */
            }
        }
    }
    for (int i = 0; i < n; ++i) {
        p[i] = tch_v3_add(tch_v3_mul(p[i], tch_v3(2, 1, 0.5)), tch_v3(10, -3, 4));
    }
    tch_convex_hull hull;
    ENSURE(tch_hull_build(p, n, &hull, NULL) == TCH_OK);
    ENSURE(hull.vertex_count == 8 && hull.face_count == 6);
    ENSURE_HULL_VALID(&hull, p, n, 1e-12);
    ENSURE_NEAR(hull.volume, 4 * 2 * 1, 1e-12);
    ENSURE(tch_v3_dist(hull.centroid_G, tch_v3(10, -3, 4)) < 1e-13);
    tch_hull_free(&hull);
}

/* A lattice puts many points on every face, edge and plane: qhull's coplanar handling and the
 * merge must still give the box. */
static void test_lattice_is_a_box(void) {
    enum { k = 5 };
    tch_vec3 p[k * k * k];
    int n = 0;
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < k; ++j) {
            for (int l = 0; l < k; ++l) {
                p[n++] = tch_v3(i, 0.5 * j, 0.1 * l);
            }
        }
    }
    tch_convex_hull hull;
    ENSURE(tch_hull_build(p, n, &hull, NULL) == TCH_OK);
    ENSURE(hull.vertex_count == 8 && hull.face_count == 6 && hull.edge_count == 12);
    ENSURE_HULL_VALID(&hull, p, n, 1e-14);
    ENSURE_NEAR(hull.volume, 4 * 2 * 0.4, 1e-14);
    tch_hull_free(&hull);
}

/* Noise far below the merge tolerance still merges the two triangles of each face. */
static void test_noisy_cube_merges_faces(void) {
    rng r = {17};
    tch_vec3 p[8];
    cube_corners(p, 1);
    tch_quat q = tch_q_normalize((tch_quat){0.9, 0.3, -0.2, 0.1});
    for (int i = 0; i < 8; ++i) {
        tch_vec3 noise = tch_v3(uniform(&r), uniform(&r), uniform(&r));
        p[i] = tch_q_rotate(q, tch_v3_madd(p[i], 1e-9, noise));
    }
    tch_convex_hull hull;
    ENSURE(tch_hull_build(p, 8, &hull, NULL) == TCH_OK);
    ENSURE(hull.face_count == 6 && hull.vertex_count == 8 && hull.edge_count == 12);
    ENSURE_HULL_VALID(&hull, p, 8, 1e-8);
    ENSURE_NEAR(hull.volume, 8, 1e-7);
    tch_hull_free(&hull);
}

/* A regular n-gon prism: two n-gon caps and n rectangles. */
static void test_prism_caps_are_single_faces(void) {
    enum { n = 32 };
    tch_vec3 p[2 * n];
    for (int i = 0; i < n; ++i) {
        tch_real a = 2 * pi * i / n;
        p[2 * i] = tch_v3(cos(a), sin(a), -0.5);
        p[2 * i + 1] = tch_v3(cos(a), sin(a), 0.5);
    }
    tch_convex_hull hull;
    ENSURE(tch_hull_build(p, 2 * n, &hull, NULL) == TCH_OK);
    ENSURE(hull.vertex_count == 2 * n && hull.face_count == n + 2 && hull.edge_count == 3 * n);
    ENSURE_HULL_VALID(&hull, p, 2 * n, 1e-14);
    int caps = 0;
    for (int f = 0; f < hull.face_count; ++f) {
        caps += face_length(&hull, f) == n;
    }
    ENSURE(caps == 2);
    ENSURE_NEAR(hull.volume, n / 2.0 * sin(2 * pi / n), 1e-14);
    tch_hull_free(&hull);
}

/* Points on a sphere: all are vertices and nearly every face is a triangle (F = 2V - 4 for a
 * triangulation; a few nearly cocircular quadruples, within the merge tolerance of their
 * plane, become quadrilaterals). */
static void test_sphere_points(void) {
    enum { n = 300 };
    rng r = {3};
    tch_vec3 p[n];
    for (int i = 0; i < n; ++i) {
        p[i] = tch_v3_normalize(tch_v3(uniform(&r), uniform(&r), uniform(&r)));
    }
    tch_convex_hull hull;
    ENSURE(tch_hull_build(p, n, &hull, NULL) == TCH_OK);
    ENSURE(hull.vertex_count == n);
    ENSURE(hull.face_count <= 2 * n - 4 && hull.face_count >= 2 * n - 4 - 5);
    ENSURE_HULL_VALID(&hull, p, n, 2 * TCH_HULL_COPLANAR_TOLERANCE * 2);
    ENSURE(hull.volume < 4.0 / 3.0 * pi && hull.volume > 0.9 * 4.0 / 3.0 * pi);
    tch_hull_free(&hull);
}

/* Regular tetrahedron of edge a: V = a^3 / (6 sqrt 2). Vertices keep their input order. */
static void test_tetrahedron_volume_and_order(void) {
    tch_vec3 p[5] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}, {0.1, 0.1, 0.1}};
    tch_convex_hull hull;
    ENSURE(tch_hull_build(p, 5, &hull, NULL) == TCH_OK);
    ENSURE(hull.vertex_count == 4 && hull.face_count == 4 && hull.edge_count == 6);
    ENSURE_HULL_VALID(&hull, p, 5, 1e-14);
    tch_real a = sqrt(8.0);
    ENSURE_NEAR(hull.volume, a * a * a / (6 * sqrt(2.0)), 1e-14);
    for (int i = 0; i < 4; ++i) {
        ENSURE(tch_v3_dist(hull.vertices_G[i], p[i]) == 0);
    }
    tch_hull_free(&hull);
}

static int same_hull(const tch_convex_hull* a, const tch_convex_hull* b) {
    int corners = a->face_start[a->face_count];
    return a->vertex_count == b->vertex_count && a->face_count == b->face_count &&
           a->edge_count == b->edge_count && a->volume == b->volume &&
           memcmp(a->vertices_G, b->vertices_G, (size_t)a->vertex_count * sizeof(tch_vec3)) == 0 &&
           memcmp(a->face_start, b->face_start, (size_t)(a->face_count + 1) * sizeof(int)) == 0 &&
           memcmp(a->face_vertices, b->face_vertices, (size_t)corners * sizeof(int)) == 0 &&
           memcmp(a->face_normals_G, b->face_normals_G, (size_t)a->face_count * sizeof(tch_vec3)) ==
               0 &&
           memcmp(a->face_offsets, b->face_offsets, (size_t)a->face_count * sizeof(tch_real)) ==
               0 &&
           memcmp(a->edges, b->edges, (size_t)a->edge_count * sizeof *a->edges) == 0;
}

static void test_build_is_deterministic_and_copy_is_deep(void) {
    enum { n = 100 };
    rng r = {11};
    tch_vec3 p[n];
    for (int i = 0; i < n; ++i) {
        p[i] = tch_v3(uniform(&r), 2 * uniform(&r), 0.5 * uniform(&r));
    }
    tch_convex_hull a, b, c;
    ENSURE(tch_hull_build(p, n, &a, NULL) == TCH_OK);
    ENSURE(tch_hull_build(p, n, &b, NULL) == TCH_OK);
    ENSURE(same_hull(&a, &b));
    ENSURE(tch_hull_copy(&a, &c) == 0);
    ENSURE(same_hull(&a, &c) && c.vertices_G != a.vertices_G && c.edges != a.edges);
    tch_hull_free(&a);
    ENSURE(same_hull(&b, &c));
    tch_hull_free(&b);
    tch_hull_free(&c);
    tch_convex_hull empty = {0}, copy;
    ENSURE(tch_hull_copy(&empty, &copy) == 0);
    ENSURE(copy.vertices_G == NULL && copy.face_start == NULL && copy.face_count == 0);
}

static tch_status build_expecting_failure(const tch_vec3* p, int n, tch_error* err) {
    tch_convex_hull hull;
    tch_status status = tch_hull_build(p, n, &hull, err);
    if (status == TCH_OK) {
        tch_hull_free(&hull);
    }
    return status;
}

static void test_degenerate_input_is_rejected(void) {
    tch_error err;
    tch_vec3 p[6] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {2, 5, 0}, {0.5, 0.5, 0}};
    ENSURE(build_expecting_failure(p, 3, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "at least 4 points, got 3") != NULL);
    ENSURE(build_expecting_failure(NULL, 8, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(build_expecting_failure(p, 6, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "coplanar") != NULL);
    tch_vec3 line[4] = {{0, 0, 0}, {1, 2, 3}, {2, 4, 6}, {-1, -2, -3}};
    ENSURE(build_expecting_failure(line, 4, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "collinear") != NULL);
    tch_vec3 same[4] = {{1, 1, 1}, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}};
    ENSURE(build_expecting_failure(same, 4, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "coincide") != NULL);
    tch_vec3 bad[4] = {{0, 0, 0}, {1, 0, 0}, {0, NAN, 0}, {0, 0, 1}};
    ENSURE(build_expecting_failure(bad, 4, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "point 2") != NULL && strstr(err.message, "not finite") != NULL);
    bad[2].y = INFINITY;
    ENSURE(build_expecting_failure(bad, 4, NULL) == TCH_ERR_INVALID_ARGUMENT);
    bad[2].y = 2e100;
    ENSURE(build_expecting_failure(bad, 4, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "beyond 1e+100") != NULL);
    /* nearly flat: a unit square with a bump thinner than the flatness tolerance, which the
     * face merging would otherwise fold into two coincident faces */
    tch_vec3 bump[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.3, 0.3, 1e-8}};
    ENSURE(build_expecting_failure(bump, 5, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "coplanar") != NULL);
    bump[4].z = 0.9e-5;
    ENSURE(build_expecting_failure(bump, 5, &err) == TCH_ERR_INVALID_ARGUMENT);
    bump[4].z = 2e-5;
    ENSURE(build_expecting_failure(bump, 5, &err) == TCH_OK);
    /* so small that the volume underflows */
    tch_vec3 tiny[4] = {{0, 0, 0}, {1e-150, 0, 0}, {0, 1e-150, 0}, {0, 0, 1e-150}};
    ENSURE(build_expecting_failure(tiny, 4, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "too flat or too small") != NULL);
}

/* Coordinates near 1e90 pass touche's checks but not qhull's precision checks: qhull's own
 * message comes back in the error. */
static void test_qhull_failure_is_reported(void) {
    tch_vec3 huge[4] = {{0, 0, 0}, {1e90, 0, 0}, {0, 1e90, 0}, {0, 0, 1e90}};
    tch_error err;
    ENSURE(build_expecting_failure(huge, 4, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "qhull could not build the convex hull") != NULL);
    ENSURE(strstr(err.message, "QH") != NULL);
}

/* A thin but valid slab is accepted and keeps its two large faces apart. */
static void test_thin_slab(void) {
    tch_vec3 p[8];
    cube_corners(p, 1);
    for (int i = 0; i < 8; ++i) {
        p[i].z *= 1e-4;
    }
    tch_convex_hull hull;
    ENSURE(tch_hull_build(p, 8, &hull, NULL) == TCH_OK);
    ENSURE(hull.face_count == 6);
    ENSURE_HULL_VALID(&hull, p, 8, 1e-14);
    ENSURE_NEAR(hull.volume, 8e-4, 1e-15);
    tch_hull_free(&hull);
}

/* Neither qhull nor touche writes to stdout or stderr, whatever the input. */
static void test_nothing_is_printed(void) {
    char path[] = "/tmp/touche_hull_output_XXXXXX";
    int capture = mkstemp(path);
    ENSURE(capture >= 0);
    fflush(stdout);
    fflush(stderr);
    int saved_out = dup(1), saved_err = dup(2);
    dup2(capture, 1);
    dup2(capture, 2);
    tch_vec3 p[8];
    cube_corners(p, 1);
    tch_vec3 flat[5] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.5, 0.2, 1e-13}};
    tch_convex_hull hull;
    if (tch_hull_build(p, 8, &hull, NULL) == TCH_OK) {
        tch_hull_free(&hull);
    }
    tch_vec3 huge[4] = {{0, 0, 0}, {1e90, 0, 0}, {0, 1e90, 0}, {0, 0, 1e90}};
    build_expecting_failure(flat, 5, NULL);
    build_expecting_failure(p, 2, NULL);
    build_expecting_failure(huge, 4, NULL);
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    off_t written = lseek(capture, 0, SEEK_END);
    close(capture);
    remove(path);
    ENSURE(written == 0);
}

static void test_mesh_file_hull(void) {
    tch_convex_hull hull;
    tch_error err;
    ENSURE(tch_hull_from_mesh_file(TCH_SOURCE_DIR "/tests/geometry/data/cube.obj", &hull, &err) ==
           TCH_OK);
    ENSURE(hull.face_count == 6 && hull.vertex_count == 8);
    ENSURE_NEAR(hull.volume, 1, 1e-15);
    tch_hull_free(&hull);
}

int main(void) {
    RUN_TEST(test_cube_has_six_square_faces);
    RUN_TEST(test_box_with_extra_points);
    RUN_TEST(test_lattice_is_a_box);
    RUN_TEST(test_noisy_cube_merges_faces);
    RUN_TEST(test_prism_caps_are_single_faces);
    RUN_TEST(test_sphere_points);
    RUN_TEST(test_tetrahedron_volume_and_order);
    RUN_TEST(test_build_is_deterministic_and_copy_is_deep);
    RUN_TEST(test_degenerate_input_is_rejected);
    RUN_TEST(test_qhull_failure_is_reported);
    RUN_TEST(test_thin_slab);
    RUN_TEST(test_nothing_is_printed);
    RUN_TEST(test_mesh_file_hull);
    return TEST_RESULT();
}
