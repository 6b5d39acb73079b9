/* Narrow phase: closed forms of the analytic kernels, libccd against the analytic kernels,
 * symmetry under swapping A and B, and random poses of every type pair. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/collide.h"
#include "collision/narrowphase.h"
#include "math/vec.h"
#include "test.h"

/* ---- fixtures ---- */

static const double PI = 3.14159265358979323846;

static tch_shape make_shape(tch_geom_type type, tch_real s0, tch_real s1, tch_real s2) {
    return (tch_shape){type, {s0, s1, s2}, NULL};
}

/* A cube of half-edge h as a hand-built hull (the faces of the box kernels, same order). */
typedef struct cube_hull {
    tch_vec3 vertices[8];
    int face_start[7];
    int face_vertices[24];
    tch_vec3 normals[6];
    tch_real offsets[6];
    int edges[12][2];
    tch_convex_hull hull;
} cube_hull;

static void make_cube_hull(cube_hull* c, tch_real h) {
    static const int faces[24] = {1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3,
                                  0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1};
    static const tch_vec3 normals[6] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                                        {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
    int e = 0;
    for (int v = 0; v < 8; ++v) {
        c->vertices[v] = tch_v3((v & 1) ? h : -h, (v & 2) ? h : -h, (v & 4) ? h : -h);
        for (int bit = 1; bit < 8; bit <<= 1) {
            if (!(v & bit)) {
                c->edges[e][0] = v;
                c->edges[e][1] = v | bit;
                ++e;
            }
        }
    }
    for (int f = 0; f < 6; ++f) {
        c->face_start[f] = 4 * f;
        c->normals[f] = normals[f];
        c->offsets[f] = h;
    }
    c->face_start[6] = 24;
    for (int k = 0; k < 24; ++k) {
        c->face_vertices[k] = faces[k];
    }
    c->hull = (tch_convex_hull){8, c->vertices, 6, c->face_start, c->face_vertices, c->normals,
                                c->offsets, 12, c->edges, 8 * h * h * h, tch_v3_zero()};
}

static tch_shape mesh_shape(const cube_hull* c) {
    return (tch_shape){TCH_GEOM_MESH, {0, 0, 0}, &c->hull};
}

static tch_transform pose(tch_vec3 p, tch_quat q) {
    return (tch_transform){q, p};
}

static tch_transform at(tch_real x, tch_real y, tch_real z) {
    return pose(tch_v3(x, y, z), tch_q_identity());
}

static const tch_vec3 ex = {1, 0, 0};
static const tch_vec3 ey = {0, 1, 0};
static const tch_vec3 ez = {0, 0, 1};

static int near_vec(tch_vec3 a, tch_vec3 b, tch_real tol) {
    return tch_v3_dist(a, b) <= tol;
}

static tch_real max_depth(const tch_manifold_point* p, int n) {
    tch_real d = -INFINITY;
    for (int k = 0; k < n; ++k) {
        d = fmax(d, p[k].depth);
    }
    return d;
}

static int deepest(const tch_manifold_point* p, int n) {
    int best = 0;
    for (int k = 1; k < n; ++k) {
        if (p[k].depth > p[best].depth) {
            best = k;
        }
    }
    return best;
}

/* Whether some point of p[0..n) is at x (within tol). */
static int has_point(const tch_manifold_point* p, int n, tch_vec3 x, tch_real tol) {
    for (int k = 0; k < n; ++k) {
        if (near_vec(p[k].p_A, x, tol)) {
            return 1;
        }
    }
    return 0;
}

/* ---- closed forms ---- */

static void test_sphere_sphere(void) {
    tch_shape a = make_shape(TCH_GEOM_SPHERE, 1.0, 0, 0);
    tch_shape b = make_shape(TCH_GEOM_SPHERE, 0.5, 0, 0);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    ENSURE(tch_collide(&a, &b, at(1.4, 0, 0), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.1, 1e-12);
    ENSURE(near_vec(p[0].n_A, ex, 1e-12));
    ENSURE(near_vec(p[0].p_A, tch_v3(0.95, 0, 0), 1e-12)); /* surfaces at 1.0 and 0.9 */
    /* margin: 0.05 apart gives depth -0.05 with margin 0.1, nothing with margin 0.01 */
    ENSURE(tch_collide(&a, &b, at(0, 1.55, 0), 0.1, p) == 1);
    ENSURE_NEAR(p[0].depth, -0.05, 1e-12);
    ENSURE(near_vec(p[0].n_A, ey, 1e-12));
    ENSURE(tch_collide(&a, &b, at(0, 1.55, 0), 0.01, p) == 0);
}

static void test_sphere_plane_and_swapped(void) {
    tch_shape plane = make_shape(TCH_GEOM_PLANE, 0, 0, 0);
    tch_shape ball = make_shape(TCH_GEOM_SPHERE, 0.5, 0, 0);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    ENSURE(tch_collide(&plane, &ball, at(0.3, -0.2, 0.4), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.1, 1e-12);
    ENSURE(near_vec(p[0].n_A, ez, 1e-12));
    ENSURE(near_vec(p[0].p_A, tch_v3(0.3, -0.2, -0.05), 1e-12));
    /* sphere as A, plane tilted by 0.5 rad about x, 0.45 from the sphere centre along n */
    const tch_quat q = tch_q_axis_angle(ex, 0.5);
    const tch_vec3 n_W = tch_q_rotate(q, ez);
    const tch_transform X_AB = pose(tch_v3_scale(n_W, -0.45), q);
    ENSURE(tch_collide(&ball, &plane, X_AB, 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.05, 1e-12);
    ENSURE(near_vec(p[0].n_A, tch_v3_neg(n_W), 1e-12)); /* from the sphere into the plane */
    ENSURE(near_vec(p[0].p_A, tch_v3_scale(n_W, -0.475), 1e-12));
}

static void test_box_resting_on_plane_gives_its_four_bottom_corners(void) {
    tch_shape plane = make_shape(TCH_GEOM_PLANE, 0, 0, 0);
    tch_shape box = make_shape(TCH_GEOM_BOX, 0.5, 0.3, 0.2);
    const tch_quat q = tch_q_axis_angle(ez, 0.3);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    ENSURE(tch_collide(&plane, &box, pose(tch_v3(1, 2, 0.19), q), 0.005, p) == 4);
    for (int sx = -1; sx <= 1; sx += 2) {
        for (int sy = -1; sy <= 1; sy += 2) {
            tch_vec3 corner = tch_v3_add(tch_v3(1, 2, 0), tch_q_rotate(q, tch_v3(0.5 * sx, 0.3 * sy, 0)));
            ENSURE(has_point(p, 4, tch_v3(corner.x, corner.y, -0.005), 1e-12));
        }
    }
    for (int k = 0; k < 4; ++k) {
        ENSURE_NEAR(p[k].depth, 0.01, 1e-12);
        ENSURE(near_vec(p[k].n_A, ez, 1e-12));
    }
    /* a margin larger than the height takes the top corners too; still the 4 deepest */
    ENSURE(tch_collide(&plane, &box, pose(tch_v3(1, 2, 0.19), q), 1.0, p) == 4);
    for (int k = 0; k < 4; ++k) {
        ENSURE_NEAR(p[k].depth, 0.01, 1e-12);
    }
}

static void test_tilted_box_on_plane(void) {
    tch_shape plane = make_shape(TCH_GEOM_PLANE, 0, 0, 0);
    tch_shape box = make_shape(TCH_GEOM_BOX, 0.5, 0.3, 0.2);
    const tch_real angle = 0.2;
    /* tilted about x: the lowest edge is at z = p.z - (0.3 sin + 0.2 cos) */
    const tch_real lowest = 0.3 * sin(angle) + 0.2 * cos(angle);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    const int n = tch_collide(&plane, &box, pose(tch_v3(0, 0, lowest - 0.02), tch_q_axis_angle(ex, angle)), 0, p);
    ENSURE(n == 2); /* the two corners of the lowest edge */
    ENSURE_NEAR(p[0].depth, 0.02, 1e-12);
    ENSURE_NEAR(p[1].depth, 0.02, 1e-12);
    ENSURE_NEAR(fabs(p[0].p_A.x - p[1].p_A.x), 1.0, 1e-12);
}

static void test_capsule_on_plane(void) {
    tch_shape plane = make_shape(TCH_GEOM_PLANE, 0, 0, 0);
    tch_shape capsule = make_shape(TCH_GEOM_CAPSULE, 0.1, 0.4, 0);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    /* lying along x: 2 points under the ends of the segment */
    const tch_transform lying = pose(tch_v3(0, 0, 0.09), tch_q_axis_angle(ey, PI / 2));
    ENSURE(tch_collide(&plane, &capsule, lying, 0, p) == 2);
    ENSURE(has_point(p, 2, tch_v3(0.4, 0, -0.005), 1e-12));
    ENSURE(has_point(p, 2, tch_v3(-0.4, 0, -0.005), 1e-12));
    ENSURE_NEAR(p[0].depth, 0.01, 1e-12);
    ENSURE_NEAR(p[1].depth, 0.01, 1e-12);
    /* standing: one point under the lower end */
    ENSURE(tch_collide(&plane, &capsule, at(0, 0, 0.49), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.01, 1e-12);
}

static void test_cylinder_on_plane(void) {
    tch_shape plane = make_shape(TCH_GEOM_PLANE, 0, 0, 0);
    tch_shape cylinder = make_shape(TCH_GEOM_CYLINDER, 0.3, 0.5, 0);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    ENSURE(tch_collide(&plane, &cylinder, at(0, 0, 0.49), 0, p) == 4);
    for (int k = 0; k < 4; ++k) {
        ENSURE_NEAR(p[k].depth, 0.01, 1e-12);
        ENSURE_NEAR(hypot(p[k].p_A.x, p[k].p_A.y), 0.3, 1e-12);
    }
    const tch_transform lying = pose(tch_v3(0, 0, 0.29), tch_q_axis_angle(ex, PI / 2));
    ENSURE(tch_collide(&plane, &cylinder, lying, 0, p) == 2);
    ENSURE_NEAR(p[0].depth, 0.01, 1e-12);
    ENSURE_NEAR(fabs(p[0].p_A.y - p[1].p_A.y), 1.0, 1e-12);
}

static void test_ellipsoid_on_plane(void) {
    tch_shape plane = make_shape(TCH_GEOM_PLANE, 0, 0, 0);
    tch_shape ellipsoid = make_shape(TCH_GEOM_ELLIPSOID, 0.3, 0.2, 0.5);
    const tch_quat q = tch_q_normalize((tch_quat){0.9, 0.3, -0.2, 0.1});
    const tch_mat3 R = tch_q_to_mat3(q);
    /* half-extent along z of a rotated ellipsoid: sqrt(sum_k (R_zk s_k)^2) */
    const tch_real extent = hypot(hypot(R.m[2][0] * 0.3, R.m[2][1] * 0.2), R.m[2][2] * 0.5);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    ENSURE(tch_collide(&plane, &ellipsoid, pose(tch_v3(0, 0, extent - 0.03), q), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.03, 1e-12);
    ENSURE(near_vec(p[0].n_A, ez, 1e-12));
}

static void test_mesh_cube_on_plane(void) {
    cube_hull cube;
    make_cube_hull(&cube, 0.5);
    tch_shape plane = make_shape(TCH_GEOM_PLANE, 0, 0, 0);
    tch_shape mesh = mesh_shape(&cube);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    ENSURE(tch_collide(&plane, &mesh, pose(tch_v3(0, 0, 0.48), tch_q_axis_angle(ez, 0.7)), 0, p) == 4);
    for (int k = 0; k < 4; ++k) {
        ENSURE_NEAR(p[k].depth, 0.02, 1e-12);
    }
}

static void test_box_on_box_gives_four_points(void) {
    tch_shape big = make_shape(TCH_GEOM_BOX, 1.0, 1.0, 0.5);
    tch_shape small = make_shape(TCH_GEOM_BOX, 0.5, 0.5, 0.5);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    const tch_quat q = tch_q_axis_angle(ez, 0.4);
    ENSURE(tch_collide(&big, &small, pose(tch_v3(0.1, 0, 0.99), q), 0, p) == 4);
    for (int sx = -1; sx <= 1; sx += 2) {
        for (int sy = -1; sy <= 1; sy += 2) {
            tch_vec3 c = tch_v3_add(tch_v3(0.1, 0, 0.5), tch_q_rotate(q, tch_v3(0.5 * sx, 0.5 * sy, 0)));
            ENSURE(has_point(p, 4, tch_v3(c.x, c.y, 0.495), 1e-9));
        }
    }
    for (int k = 0; k < 4; ++k) {
        ENSURE_NEAR(p[k].depth, 0.01, 1e-12);
        ENSURE(near_vec(p[k].n_A, ez, 1e-12));
    }
    /* the same with the small box as A: normal -z, 4 points */
    ENSURE(tch_collide(&small, &big, tch_x_inverse(pose(tch_v3(0.1, 0, 0.99), q)), 0, p) == 4);
    for (int k = 0; k < 4; ++k) {
        ENSURE_NEAR(p[k].depth, 0.01, 1e-12);
        ENSURE(near_vec(p[k].n_A, tch_v3_neg(ez), 1e-12));
    }
}

static void test_mesh_cube_on_box_gives_four_points(void) {
    cube_hull cube;
    make_cube_hull(&cube, 0.5);
    tch_shape box = make_shape(TCH_GEOM_BOX, 1.0, 1.0, 0.5);
    tch_shape mesh = mesh_shape(&cube);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    ENSURE(tch_collide(&box, &mesh, pose(tch_v3(0, 0.2, 0.99), tch_q_axis_angle(ez, 0.3)), 0, p) == 4);
    for (int k = 0; k < 4; ++k) {
        ENSURE_NEAR(p[k].depth, 0.01, 1e-9);
        ENSURE(near_vec(p[k].n_A, ez, 1e-9));
    }
    ENSURE(tch_collide(&mesh, &mesh, at(0, 0, 0.98), 0, p) == 4);
    for (int k = 0; k < 4; ++k) {
        ENSURE_NEAR(p[k].depth, 0.02, 1e-9);
    }
}

static void test_box_box_edge_on_edge(void) {
    /* B's x edge rests across A's y edge: B rotated 45 deg about x, A rotated 45 deg about y */
    tch_shape a = make_shape(TCH_GEOM_BOX, 0.5, 0.5, 0.5);
    tch_shape b = make_shape(TCH_GEOM_BOX, 0.5, 0.5, 0.5);
    const tch_real reach = 0.5 * sqrt(2.0);
    const tch_quat q_WA = tch_q_axis_angle(ey, PI / 4);
    const tch_transform X_WA = pose(tch_v3_zero(), q_WA);
    const tch_transform X_WB = pose(tch_v3(0, 0, 2 * reach - 0.01), tch_q_axis_angle(ex, PI / 4));
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    ENSURE(tch_collide(&a, &b, tch_x_relative(X_WA, X_WB), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.01, 1e-9);
    ENSURE(near_vec(tch_q_rotate(q_WA, p[0].n_A), ez, 1e-9));
    ENSURE(near_vec(tch_x_apply(X_WA, p[0].p_A), tch_v3(0, 0, reach - 0.005), 1e-9));
}

/* ---- box on a turned box (the face bias) and touching boxes (no libccd fallback) ---- */

/* Exact overlap of boxes a (at the origin) and b (at X_AB) along unit n_A: how far B must move
 * along n_A to separate, h_A(n) + h_B(-n) - t . n with the box support h(n) = sum h_k |n_k|. */
static tch_real box_overlap_along(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                                  tch_vec3 n_A) {
    const tch_vec3 n_B = tch_q_inv_rotate(X_AB.q, n_A);
    const tch_real h_a = a->size[0] * fabs(n_A.x) + a->size[1] * fabs(n_A.y) + a->size[2] * fabs(n_A.z);
    const tch_real h_b = b->size[0] * fabs(n_B.x) + b->size[1] * fabs(n_B.y) + b->size[2] * fabs(n_B.z);
    return h_a + h_b - tch_v3_dot(X_AB.p, n_A);
}

/* Whether x (frame A) is on the top face plane of a (z = a_z) or the bottom face plane of b. */
static tch_real above_top(const tch_shape* a, tch_vec3 x_A) {
    return x_A.z - a->size[2];
}

static tch_real above_bottom(const tch_shape* b, tch_transform X_AB, tch_vec3 x_A) {
    return tch_x_apply(tch_x_inverse(X_AB), x_A).z + b->size[2];
}

static int inside_footprint(const tch_shape* box, tch_vec3 x_box, tch_real tol) {
    return fabs(x_box.x) <= box->size[0] + tol && fabs(x_box.y) <= box->size[1] + tol;
}

/* B lies on A's top face turned by `turn` about z, rocked by `tilt` about a horizontal axis,
 * its centre at (dx, dy) over A's, 0.5 mm into A at its centre (the tilt lifts no corner out). */
static tch_transform turned_and_tilted(const tch_shape* a, const tch_shape* b, tch_real turn,
                                       tch_real tilt, tch_real dx, tch_real dy) {
    const tch_quat rock = tch_q_axis_angle(tch_v3_normalize(tch_v3(0.6, 0.8, 0)), tilt);
    return pose(tch_v3(dx, dy, a->size[2] + b->size[2] - 5e-4),
                tch_q_mul(rock, tch_q_axis_angle(ez, turn)));
}

/* The manifold of face contact: 3 to 8 points, the normal of A's top face or of B's bottom face
 * (within 1e-6), each point midway between a point of A's top face and one of B's bottom face
 * (inside their footprints) that are `depth` apart along the normal, A's above B's. */
static void check_face_manifold(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                                const tch_manifold_point* p, int n) {
    const tch_vec3 n_bottom = tch_q_rotate(X_AB.q, ez); /* B's bottom face, from A into B */
    ENSURE(n >= 3 && n <= TCH_MANIFOLD_CAPACITY);
    for (int k = 0; k < n; ++k) {
        ENSURE(near_vec(p[k].n_A, ez, 1e-6) || near_vec(p[k].n_A, n_bottom, 1e-6));
        const tch_vec3 on_a = tch_v3_madd(p[k].p_A, 0.5 * p[k].depth, p[k].n_A);
        const tch_vec3 on_b = tch_v3_madd(p[k].p_A, -0.5 * p[k].depth, p[k].n_A);
        ENSURE_NEAR(above_top(a, on_a), 0, 1e-12);
        ENSURE_NEAR(above_bottom(b, X_AB, on_b), 0, 1e-12);
        ENSURE(inside_footprint(a, on_a, 1e-12));
        ENSURE(inside_footprint(b, tch_x_apply(tch_x_inverse(X_AB), on_b), 1e-12));
        ENSURE(p[k].depth > 0);
        ENSURE(p[k].depth <= box_overlap_along(a, b, X_AB, p[k].n_A) + 1e-12);
    }
}

static void test_box_on_turned_box_gives_face_manifold(void) {
    /* equal boxes as in a pile (tools/gen_scenes.py): the edge axes made of a horizontal edge
     * of each are within the tilt of the face normal and used to win, one point per call */
    tch_shape a = make_shape(TCH_GEOM_BOX, 0.1, 0.1, 0.1);
    tch_shape b = make_shape(TCH_GEOM_BOX, 0.1, 0.1, 0.1);
    const tch_real turns[3] = {5 * PI / 180, 30 * PI / 180, 45 * PI / 180};
    const tch_real tilts[3] = {1e-3, -1e-3, 0};
    const tch_vec3 offsets[3] = {{0, 0, 0}, {0.02, -0.01, 0}, {-0.05, -0.04, 0}};
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            for (int k = 0; k < 3; ++k) {
                const tch_transform X_AB =
                    turned_and_tilted(&a, &b, turns[i], tilts[j], offsets[k].x, offsets[k].y);
                check_face_manifold(&a, &b, X_AB, p, tch_collide(&a, &b, X_AB, 0, p));
                check_face_manifold(&a, &b, X_AB, p, tch_collide(&a, &b, X_AB, 0.005, p));
            }
        }
    }
}

static void test_small_box_on_turned_box_gives_its_corners(void) {
    /* B's bottom face inside A's top face: the points are B's 4 bottom corners, each as deep
     * as its height below A's top face (A's face is the reference: its normal is exactly z) */
    tch_shape a = make_shape(TCH_GEOM_BOX, 0.3, 0.3, 0.1);
    tch_shape b = make_shape(TCH_GEOM_BOX, 0.1, 0.1, 0.1);
    const tch_real turns[3] = {5 * PI / 180, 30 * PI / 180, 45 * PI / 180};
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    for (int i = 0; i < 3; ++i) {
        const tch_transform X_AB = turned_and_tilted(&a, &b, turns[i], 1e-3, 0.05, 0.02);
        const int n = tch_collide(&a, &b, X_AB, 0, p);
        check_face_manifold(&a, &b, X_AB, p, n);
        ENSURE(n == 4);
        for (int sx = -1; sx <= 1; sx += 2) {
            for (int sy = -1; sy <= 1; sy += 2) {
                const tch_vec3 c = tch_x_apply(X_AB, tch_v3(0.1 * sx, 0.1 * sy, -0.1));
                const tch_real depth = 0.1 - c.z;
                ENSURE(depth > 0);
                ENSURE(has_point(p, n, tch_v3(c.x, c.y, c.z + 0.5 * depth), 1e-12));
            }
        }
    }
}

/* Boxes of half 0.1 m from the lcp engineer's pile100 runs (docs/contact-lcp.md): world poses
 * of A and B, q as (w, x, y, z). */
static tch_transform pile_pair(const double pa[3], const double qa[4], const double pb[3],
                               const double qb[4]) {
    const tch_transform X_WA =
        pose(tch_v3(pa[0], pa[1], pa[2]), tch_q_normalize((tch_quat){qa[0], qa[1], qa[2], qa[3]}));
    const tch_transform X_WB =
        pose(tch_v3(pb[0], pb[1], pb[2]), tch_q_normalize((tch_quat){qb[0], qb[1], qb[2], qb[3]}));
    return tch_x_relative(X_WA, X_WB);
}

/* The boxes' penetration depth (negative: their distance along the best axis): the smallest
 * overlap over the 15 axes of the separating axis test, both signs. */
static tch_real box_penetration(const tch_shape* a, const tch_shape* b, tch_transform X_AB) {
    tch_vec3 axes[15];
    int count = 0;
    for (int i = 0; i < 3; ++i) {
        const tch_vec3 e_a = tch_m3_col(tch_m3_identity(), i);
        axes[count++] = e_a;
        axes[count++] = tch_q_rotate(X_AB.q, e_a);
        for (int j = 0; j < 3; ++j) {
            const tch_vec3 L = tch_v3_cross(e_a, tch_q_rotate(X_AB.q, tch_m3_col(tch_m3_identity(), j)));
            if (tch_v3_norm(L) >= 1e-6) {
                axes[count++] = tch_v3_normalize(L);
            }
        }
    }
    tch_real depth = INFINITY;
    for (int k = 0; k < count; ++k) {
        depth = fmin(depth, fmin(box_overlap_along(a, b, X_AB, axes[k]),
                                 box_overlap_along(a, b, X_AB, tch_v3_neg(axes[k]))));
    }
    return depth;
}

/* No point deeper than the exact overlap along its normal, nor than the boxes' penetration
 * depth d plus the face bias: the face is kept while s_E <= s_F + 0.05 |s_F| + 0.01 size (size
 * the smaller box's largest half-extent), so its depth is at most (d + 0.01 size) / 0.95 (or
 * / 1.05 when that is negative). The normal is the sign of its direction with the smaller
 * overlap (a reversed normal has the boxes' whole width as overlap). */
static int normals_point_into_b(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                                const tch_manifold_point* p, int n) {
    const tch_real size = fmin(fmax(a->size[0], fmax(a->size[1], a->size[2])),
                               fmax(b->size[0], fmax(b->size[1], b->size[2])));
    const tch_real penetration = box_penetration(a, b, X_AB);
    const tch_real biased = penetration + 0.01 * size;
    const tch_real deepest_allowed = biased / (biased > 0 ? 0.95 : 1.05) + 1e-9;
    for (int k = 0; k < n; ++k) {
        const tch_real along = box_overlap_along(a, b, X_AB, p[k].n_A);
        if (p[k].depth > along + 1e-9 || p[k].depth > deepest_allowed ||
            along > box_overlap_along(a, b, X_AB, tch_v3_neg(p[k].n_A))) {
            return 0;
        }
    }
    return 1;
}

static void test_touching_boxes_get_no_reversed_normal(void) {
    tch_shape box = make_shape(TCH_GEOM_BOX, 0.1, 0.1, 0.1);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    /* B on A's top edge, its corner over the edge: apart by 4.6e-10 along A's y axis. This
     * pair went to libccd, whose EPA returned n_W = (0.23, 0.75, -0.62), depth 0.620. */
    const double pa[3] = {-0.257893237897384, 0.255033247214646, 0.0999999997642208};
    const double qa[4] = {0.98914420702685, -7.48506345e-10, -1.21988702e-09, -0.146948078263121};
    const double pb[3] = {-0.290968717882236, 0.0169931631775131, 0.300000000621093};
    const double qb[4] = {0.992157528824421, 5.43693151e-09, 8.11857518e-09, 0.124993751831916};
    const tch_transform X_AB = pile_pair(pa, qa, pb, qb);
    int n = tch_collide(&box, &box, X_AB, 0.005, p);
    ENSURE(normals_point_into_b(&box, &box, X_AB, p, n));
    for (int k = 0; k < n; ++k) {
        ENSURE(p[k].depth <= 1e-9);
    }
    /* the general path on the same pair: libccd's direction with its sign checked */
    n = tch_collide_convex(&box, &box, X_AB, 0.005, p);
    ENSURE(n >= 1);
    ENSURE(normals_point_into_b(&box, &box, X_AB, p, n));
    ENSURE(fabs(p[0].depth) <= 1e-6);
    /* the same corner pressed 1 mm into the edge (down and towards A): one point or more,
     * the deepest 1 mm deep at most (the overlap along A's y and z axes), the normal not
     * reversed */
    const tch_transform pressed = pose(tch_v3_add(X_AB.p, tch_v3(0, 1e-3, -1e-3)), X_AB.q);
    n = tch_collide(&box, &box, pressed, 0.005, p);
    ENSURE(n >= 1);
    ENSURE(normals_point_into_b(&box, &box, pressed, p, n));
    ENSURE(max_depth(p, n) <= 1e-3 + 1e-8);
    ENSURE(max_depth(p, n) > 0);
    /* B on A's edge as above, 1.6 mm apart along A's y axis: the face clip finds nothing and
     * the edge axis of the two vertical edges (nearly parallel) gave a horizontal normal at
     * depth 0.133 (lcp pile100, step 230) */
    const double pe[3] = {-0.259132291671895, 0.256636786562191, 0.100093091721529};
    const double qe[4] = {0.987297565895029, -9.84523423187122e-05, -0.000422570492381089, -0.15888149080074};
    const double pf[3] = {-0.290939281363006, 0.0147392036274276, 0.300173553679746};
    const double qf[4] = {0.992420341566755, -4.47095388690034e-07, -0.000320232207065849, 0.122889230999541};
    const tch_transform X_EF = pile_pair(pe, qe, pf, qf);
    n = tch_collide(&box, &box, X_EF, 0.005, p);
    ENSURE(normals_point_into_b(&box, &box, X_EF, p, n));
    /* face on face but apart by 7.8e-10 along an edge axis (the face axis says -1.5e-10):
     * with no margin, no point (libccd returned four at depth 0.400, normal reversed) */
    const double pc[3] = {-0.576540545077263, -0.599158952448034, 0.100390647263991};
    const double qc[4] = {0.998949558367752, 0.00195522931996244, -8.94666516031227e-05, -0.0457815346061866};
    const double pd[3] = {-0.629689187120425, -0.637957125144877, 0.300233629539446};
    const double qd[4] = {0.989655342619721, 0.0020565946831532, 0.000107914557414337, -0.143450554537098};
    const tch_transform X_CD = pile_pair(pc, qc, pd, qd);
    ENSURE(tch_collide(&box, &box, X_CD, 0, p) == 0);
    /* with a 1 mm margin: the face manifold, at depth ~0 */
    n = tch_collide(&box, &box, X_CD, 1e-3, p);
    ENSURE(n >= 3);
    ENSURE(normals_point_into_b(&box, &box, X_CD, p, n));
    ENSURE(max_depth(p, n) <= 1e-9);
}

static void test_sphere_box(void) {
    tch_shape ball = make_shape(TCH_GEOM_SPHERE, 0.5, 0, 0);
    tch_shape box = make_shape(TCH_GEOM_BOX, 1, 1, 1);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    /* face region: box as A, ball at x = 1.3 */
    ENSURE(tch_collide(&box, &ball, at(1.3, 0.2, 0), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.2, 1e-12);
    ENSURE(near_vec(p[0].n_A, ex, 1e-12));
    ENSURE(near_vec(p[0].p_A, tch_v3(0.9, 0.2, 0), 1e-12));
    /* edge region: distance to the edge sqrt(0.08) */
    ENSURE(tch_collide(&box, &ball, at(1.2, 1.2, 0), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.5 - sqrt(0.08), 1e-12);
    ENSURE(near_vec(p[0].n_A, tch_v3_normalize(tch_v3(1, 1, 0)), 1e-12));
    /* centre inside: pushed out through the nearest face (-y) */
    ENSURE(tch_collide(&box, &ball, at(0.1, -0.8, 0.3), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.7, 1e-12);
    ENSURE(near_vec(p[0].n_A, tch_v3_neg(ey), 1e-12));
    /* ball as A: normal from the ball into the box */
    ENSURE(tch_collide(&ball, &box, at(-1.3, 0.2, 0), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.2, 1e-12);
    ENSURE(near_vec(p[0].n_A, tch_v3_neg(ex), 1e-12));
}

static void test_capsules(void) {
    tch_shape a = make_shape(TCH_GEOM_CAPSULE, 0.2, 1.0, 0);
    tch_shape b = make_shape(TCH_GEOM_CAPSULE, 0.1, 0.5, 0);
    tch_shape ball = make_shape(TCH_GEOM_SPHERE, 0.3, 0, 0);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    /* crossing at right angles, axes 0.25 apart along x */
    ENSURE(tch_collide(&a, &b, pose(tch_v3(0.25, 0, 0.3), tch_q_axis_angle(ex, PI / 2)), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.05, 1e-12);
    ENSURE(near_vec(p[0].n_A, ex, 1e-12));
    ENSURE(near_vec(p[0].p_A, tch_v3(0.175, 0, 0.3), 1e-12));
    /* parallel, side by side with overlap z in [0.2, 1.0]: two points */
    ENSURE(tch_collide(&a, &b, at(0.28, 0, 0.7), 0, p) == 2);
    ENSURE(has_point(p, 2, tch_v3(0.19, 0, 0.2), 1e-12));
    ENSURE(has_point(p, 2, tch_v3(0.19, 0, 1.0), 1e-12));
    ENSURE_NEAR(p[0].depth, 0.02, 1e-12);
    /* sphere against the capsule's end cap */
    ENSURE(tch_collide(&ball, &a, at(0, 0, -1.45), 0, p) == 1);
    ENSURE_NEAR(p[0].depth, 0.05, 1e-12);
    ENSURE(near_vec(p[0].n_A, tch_v3_neg(ez), 1e-12)); /* from the ball down into the cap */
}

static void test_capsule_box(void) {
    tch_shape capsule = make_shape(TCH_GEOM_CAPSULE, 0.1, 0.4, 0);
    tch_shape box = make_shape(TCH_GEOM_BOX, 1, 1, 0.5);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    /* lying on the top face along y: two points */
    const tch_transform lying = pose(tch_v3(0.2, 0, 0.59), tch_q_axis_angle(ex, PI / 2));
    ENSURE(tch_collide(&box, &capsule, lying, 0, p) == 2);
    ENSURE(has_point(p, 2, tch_v3(0.2, 0.4, 0.495), 1e-12));
    ENSURE(has_point(p, 2, tch_v3(0.2, -0.4, 0.495), 1e-12));
    ENSURE_NEAR(p[0].depth, 0.01, 1e-12);
    ENSURE(near_vec(p[0].n_A, ez, 1e-12));
    /* across the top edge x = 1, z = 0.5 along y, axis 0.08 from the edge diagonally */
    const tch_real d = 0.08 / sqrt(2.0);
    const tch_transform across = pose(tch_v3(1 + d, 0, 0.5 + d), tch_q_axis_angle(ex, PI / 2));
    ENSURE(tch_collide(&box, &capsule, across, 0, p) == 2);
    ENSURE_NEAR(max_depth(p, 2), 0.02, 1e-12);
    ENSURE(near_vec(p[deepest(p, 2)].n_A, tch_v3_normalize(tch_v3(1, 0, 1)), 1e-12));
    /* crossing the edge at an angle: one point at the edge, found by the segment search */
    const tch_transform tilted = pose(tch_v3(1 + d, 0, 0.5 + d),
                                      tch_q_mul(tch_q_axis_angle(ez, 0.0), tch_q_axis_angle(tch_v3_normalize(tch_v3(1, 0, -1)), PI / 2)));
    ENSURE(tch_collide(&box, &capsule, tilted, 0, p) >= 1);
    ENSURE_NEAR(max_depth(p, 1), 0.02, 1e-9);
}

/* ---- libccd against the analytic kernels ---- */

static double uniform(unsigned long long* state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

static tch_quat random_quat(unsigned long long* rng) {
    return tch_q_normalize((tch_quat){uniform(rng) - 0.5, uniform(rng) - 0.5,
                                      uniform(rng) - 0.5, uniform(rng) - 0.5});
}

static tch_transform random_pose(unsigned long long* rng, tch_real spread) {
    tch_vec3 p = tch_v3(spread * (2 * uniform(rng) - 1), spread * (2 * uniform(rng) - 1),
                        spread * (2 * uniform(rng) - 1));
    return pose(p, random_quat(rng));
}

/* For overlapping random poses, the general path (GJK + EPA) agrees with the analytic kernel
 * on the deepest depth (within 1e-5 m: EPA's termination) and its normal (within 1e-3, but in
 * boxes meeting edge to edge within a few degrees of face contact EPA may settle on the face
 * normal: up to 1% of the cases). Box-box prefers a face axis to an edge axis that is better
 * by less than its face bias (relative 0.05, absolute bias_abs): there the analytic depth may
 * exceed EPA's by that much, never the other way round, and the normals are not compared. */
static void check_agreement(const tch_shape* a, const tch_shape* b, tch_real spread,
                            tch_real bias_abs, unsigned long long seed, int* compared,
                            int* normal_misses) {
    unsigned long long rng = seed;
    for (int trial = 0; trial < 300; ++trial) {
        const tch_transform X_AB = random_pose(&rng, spread);
        tch_manifold_point analytic[TCH_MANIFOLD_CAPACITY];
        tch_manifold_point general[TCH_MANIFOLD_CAPACITY];
        const int na = tch_collide(a, b, X_AB, 0, analytic);
        const int ng = tch_collide_convex(a, b, X_AB, 0, general);
        if (na == 0 || analytic[deepest(analytic, na)].depth < 1e-3 || ng != na) {
            /* EPA is only asked about clear overlaps; box pairs within 2.5 degrees of face
             * contact may get a face manifold on one path and an edge point on the other */
            continue;
        }
        ENSURE(ng >= 1);
        const tch_manifold_point pa = analytic[deepest(analytic, na)];
        const tch_manifold_point pg = general[deepest(general, ng)];
        ENSURE(pg.depth <= pa.depth + 1e-5);
        ENSURE(pa.depth <= pg.depth + 0.05 * pg.depth + bias_abs + 1e-5);
        if (fabs(pa.depth - pg.depth) <= 1e-5) {
            *normal_misses += !near_vec(pg.n_A, pa.n_A, 1e-3); /* EPA's normal on curved shapes */
            ++*compared;
        }
    }
}

static void test_general_path_agrees_with_analytic(void) {
    tch_shape ball = make_shape(TCH_GEOM_SPHERE, 0.5, 0, 0);
    tch_shape box = make_shape(TCH_GEOM_BOX, 0.6, 0.4, 0.3);
    tch_shape box2 = make_shape(TCH_GEOM_BOX, 0.3, 0.5, 0.2);
    tch_shape capsule = make_shape(TCH_GEOM_CAPSULE, 0.2, 0.4, 0);
    int compared = 0;
    int normal_misses = 0;
    check_agreement(&ball, &box, 1.0, 0, 11, &compared, &normal_misses);
    check_agreement(&box, &box2, 0.8, 0.01 * 0.5, 22, &compared, &normal_misses);
    check_agreement(&capsule, &capsule, 0.6, 0, 33, &compared, &normal_misses);
    check_agreement(&ball, &capsule, 0.8, 0, 44, &compared, &normal_misses);
    ENSURE(compared > 300);
    ENSURE(normal_misses * 100 <= compared);
}

/* Random box pairs near touching: every normal points from A into B and no point is deeper
 * than the boxes' penetration plus the face bias (both checked against the exact overlaps), and
 * overlapping pairs always get a point. Half the poses are random, half are B stacked on A as in
 * a pile: turned about z, tilted up to 1e-3 rad, shifted up to its whole width (corner over
 * edge), from 2 mm into A to 6 mm above it. */
static tch_transform stacked_pose(unsigned long long* rng) {
    const tch_real tilt = 1e-3 * (2 * uniform(rng) - 1);
    const tch_quat rock = tch_q_axis_angle(tch_v3_normalize(tch_v3(uniform(rng) - 0.5, uniform(rng) - 0.5, 0)), tilt);
    const tch_quat turn = tch_q_axis_angle(ez, PI * (2 * uniform(rng) - 1));
    return pose(tch_v3(0.45 * (2 * uniform(rng) - 1), 0.45 * (2 * uniform(rng) - 1),
                       0.15 + 0.008 * uniform(rng) - 0.002),
                tch_q_mul(rock, turn));
}

static void test_box_box_normals_never_reversed(void) {
    tch_shape a = make_shape(TCH_GEOM_BOX, 0.1, 0.1, 0.1);
    tch_shape b = make_shape(TCH_GEOM_BOX, 0.15, 0.1, 0.05);
    unsigned long long rng = 5;
    int overlapping = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        const tch_transform X_AB = trial % 2 ? stacked_pose(&rng) : random_pose(&rng, 0.3);
        tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
        const tch_real margin = trial % 4 < 2 ? 0.005 : 0;
        const int n = tch_collide(&a, &b, X_AB, margin, p);
        ENSURE(normals_point_into_b(&a, &b, X_AB, p, n));
        if (box_penetration(&a, &b, X_AB) > 1e-6) {
            ENSURE(n >= 1);
            ++overlapping;
        }
    }
    ENSURE(overlapping > 500); /* 669 */
}

/* ---- symmetry and random poses of every pair ---- */

static const tch_geom_type all_types[7] = {TCH_GEOM_PLANE,    TCH_GEOM_SPHERE, TCH_GEOM_CAPSULE,
                                           TCH_GEOM_ELLIPSOID, TCH_GEOM_CYLINDER, TCH_GEOM_BOX,
                                           TCH_GEOM_MESH};

static tch_shape shape_of_type(tch_geom_type type, const cube_hull* cube) {
    switch (type) {
    case TCH_GEOM_SPHERE:
        return make_shape(type, 0.4, 0, 0);
    case TCH_GEOM_CAPSULE:
        return make_shape(type, 0.2, 0.35, 0);
    case TCH_GEOM_ELLIPSOID:
        return make_shape(type, 0.45, 0.3, 0.2);
    case TCH_GEOM_CYLINDER:
        return make_shape(type, 0.3, 0.25, 0);
    case TCH_GEOM_BOX:
        return make_shape(type, 0.4, 0.3, 0.2);
    case TCH_GEOM_MESH:
        return mesh_shape(cube);
    default:
        return make_shape(type, 0, 0, 0);
    }
}

/* Whether every point of ab has a point of ba (frame B) with the same depth, and (when
 * check_normals) the flipped normal. */
static int mirrors(const tch_manifold_point* ab, int nab, const tch_manifold_point* ba, int nba,
                   tch_transform X_AB, int check_normals) {
    for (int k = 0; k < nab; ++k) {
        int found = 0;
        for (int m = 0; m < nba && !found; ++m) {
            const tch_vec3 n_in_A = tch_v3_neg(tch_q_rotate(X_AB.q, ba[m].n_A));
            found = fabs(ba[m].depth - ab[k].depth) <= 1e-6 &&
                    (!check_normals || near_vec(n_in_A, ab[k].n_A, 1e-3));
        }
        if (!found) {
            return 0;
        }
    }
    return 1;
}

/* Swapping A and B gives the same depths and flipped normals. A point deep inside a box that
 * is equally far from two faces may take either face's normal, decided by rounding, so up to
 * 1% of the cases may differ in a normal (never in a depth). */
static void test_swapping_flips_normal_keeps_depth(void) {
    cube_hull cube;
    make_cube_hull(&cube, 0.35);
    unsigned long long rng = 7;
    int compared = 0;
    int normal_ties = 0;
    for (int i = 0; i < 7; ++i) {
        for (int j = 0; j < 7; ++j) {
            if (i == 0 && j == 0) {
                continue;
            }
            tch_shape a = shape_of_type(all_types[i], &cube);
            tch_shape b = shape_of_type(all_types[j], &cube);
            for (int trial = 0; trial < 40; ++trial) {
                const tch_transform X_AB = random_pose(&rng, 0.3);
                tch_manifold_point ab[TCH_MANIFOLD_CAPACITY];
                tch_manifold_point ba[TCH_MANIFOLD_CAPACITY];
                const int nab = tch_collide(&a, &b, X_AB, 0, ab);
                const int nba = tch_collide(&b, &a, tch_x_inverse(X_AB), 0, ba);
                if (nab == 0 || max_depth(ab, nab) < 1e-3) {
                    continue;
                }
                ENSURE(nab == nba);
                ENSURE(mirrors(ab, nab, ba, nba, X_AB, 0));
                normal_ties += !mirrors(ab, nab, ba, nba, X_AB, 1);
                ++compared;
            }
        }
    }
    ENSURE(compared > 1000);
    ENSURE(normal_ties * 100 <= compared);
}

/* ---- the fast paths give what the general ones give ---- */

/* Crossed edges apart by `gap` while every face axis overlaps (the edge-on-edge pose of
 * test_box_box_edge_on_edge lifted): beyond the margin the edge axis alone says the boxes are
 * apart; within it, its one point is gap below touching, on the vertical through the edges. */
static void test_box_box_apart_along_crossed_edges(void) {
    tch_shape a = make_shape(TCH_GEOM_BOX, 0.5, 0.5, 0.5);
    tch_shape b = make_shape(TCH_GEOM_BOX, 0.5, 0.5, 0.5);
    const tch_real reach = 0.5 * sqrt(2.0);
    const tch_real gap = 0.05;
    const tch_quat q_WA = tch_q_axis_angle(ey, PI / 4);
    const tch_transform X_WA = pose(tch_v3_zero(), q_WA);
    const tch_transform X_WB = pose(tch_v3(0, 0, 2 * reach + gap), tch_q_axis_angle(ex, PI / 4));
    const tch_transform X_AB = tch_x_relative(X_WA, X_WB);
    tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
    ENSURE(tch_collide(&a, &b, X_AB, 0.01, p) == 0);
    ENSURE(tch_collide(&a, &b, X_AB, 0.1, p) == 1);
    ENSURE_NEAR(p[0].depth, -gap, 1e-9);
    ENSURE(near_vec(tch_q_rotate(q_WA, p[0].n_A), ez, 1e-9));
    ENSURE(near_vec(tch_x_apply(X_WA, p[0].p_A), tch_v3(0, 0, reach + 0.5 * gap), 1e-9));
}

/* Bit for bit (the point struct is 7 doubles, no padding). */
static int same_points(const tch_manifold_point* p, const tch_manifold_point* q, int n) {
    return n == 0 || memcmp(p, q, (size_t)n * sizeof *p) == 0;
}

/* Face clipping takes a box's face cosines as +-components of the direction instead of dot
 * products: a box and the hull of the same cube (same faces, same order) clip to the same
 * points, bit for bit, in near face-to-face and in random poses. */
static void test_box_and_cube_hull_clip_alike(void) {
    cube_hull cube;
    make_cube_hull(&cube, 0.1);
    tch_shape box = make_shape(TCH_GEOM_BOX, 0.1, 0.1, 0.1);
    tch_shape mesh = mesh_shape(&cube);
    tch_polytope box_a, box_b, hull_a, hull_b;
    ENSURE(tch_polytope_init(&box_a, &box) && tch_polytope_init(&box_b, &box));
    ENSURE(tch_polytope_init(&hull_a, &mesh) && tch_polytope_init(&hull_b, &mesh));
    unsigned long long rng = 17;
    int clipped = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        const tch_transform X_AB = trial % 2 ? stacked_pose(&rng) : random_pose(&rng, 0.2);
        const tch_vec3 n_A = tch_v3_normalize(tch_v3_madd(X_AB.p, trial % 3, ez));
        tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
        tch_manifold_point q[TCH_MANIFOLD_CAPACITY];
        const int n = tch_polytope_clip(&box_a, &box_b, X_AB, n_A, 0.01, 0.0, p);
        ENSURE(tch_polytope_clip(&hull_a, &hull_b, X_AB, n_A, 0.01, 0.0, q) == n);
        ENSURE(same_points(p, q, n));
        clipped += n > 0;
    }
    ENSURE(clipped > 500);
}

/* Is every point of p[0..n) the image of one of q[0..m) under x -> mirror(x), to 1e-12 m? */
static int maps_onto(const tch_manifold_point* p, int n, const tch_manifold_point* q, int m,
                     tch_vec3 (*mirror)(tch_vec3, tch_real), tch_real angle) {
    for (int i = 0; i < n; ++i) {
        if (!has_point(q, m, mirror(p[i].p_A, angle), 1e-12)) {
            return 0;
        }
    }
    return 1;
}

/* x reflected across the line of direction (cos a, sin a) through the origin (z kept). */
static tch_vec3 reflect(tch_vec3 x, tch_real a) {
    const tch_real c = cos(2 * a), s = sin(2 * a);
    return tch_v3(c * x.x + s * x.y, s * x.x - c * x.y, x.z);
}

/* x rotated by a about z. */
static tch_vec3 rotate(tch_vec3 x, tch_real a) {
    return tch_v3(cos(a) * x.x - sin(a) * x.y, sin(a) * x.x + cos(a) * x.y, x.z);
}

/* A 128-vertex ring lying flat (every vertex at the same depth), at several yaws: the reduced
 * points are mapped onto themselves by the ring's half turn and quarter turn, so their
 * centroid is the ring's centre and a uniform impulse over them has no moment. */
static void test_reduction_of_a_level_ring_is_symmetric(void) {
    enum { N = 128 };
    for (int yaw = 0; yaw < 7; ++yaw) {
        tch_manifold_point p[N];
        for (int k = 0; k < N; ++k) {
            const tch_real t = 2 * TCH_PI * k / N + 0.37 * yaw;
            p[k] = (tch_manifold_point){tch_v3(0.1 * cos(t), 0.1 * sin(t), 0), ez, 0.001};
        }
        const int n = tch_manifold_reduce(p, N);
        ENSURE(n >= 3 && n <= 6);
        ENSURE(maps_onto(p, n, p, n, rotate, TCH_PI));
        ENSURE(maps_onto(p, n, p, n, rotate, 0.5 * TCH_PI));
    }
}

/* The rim of a thin prism (two rows of twins, y = +-t, along a curve whose depth peaks off
 * centre) reduces to a set that the mirror y -> -y maps onto itself, whatever the order of the
 * candidates, and keeps the deepest twins. */
static void test_reduction_of_a_rim_keeps_twins(void) {
    enum { N = 22 };
    unsigned long long rng = 5;
    for (int trial = 0; trial < 50; ++trial) {
        const tch_real peak = 0.3 * uniform(&rng) - 0.15, yaw = 2 * TCH_PI * uniform(&rng);
        tch_manifold_point p[N];
        for (int k = 0; k < N; ++k) {
            const tch_real x = 0.02 * (k / 2) - 0.1;
            const tch_real y = k % 2 ? 0.005 : -0.005;
            const tch_real depth = 0.001 - 2 * (x - peak) * (x - peak);
            p[k] = (tch_manifold_point){rotate(tch_v3(x, y, 0.5 * depth), yaw), ez, depth};
        }
        for (int k = N - 1; k > 0; --k) { /* any order */
            const int j = (int)(uniform(&rng) * (k + 1)) % (k + 1);
            const tch_manifold_point swap = p[k];
            p[k] = p[j], p[j] = swap;
        }
        const tch_real deepest_depth = max_depth(p, N);
        const int n = tch_manifold_reduce(p, N);
        ENSURE(n >= 4 && n <= 6);
        ENSURE(maps_onto(p, n, p, n, reflect, yaw));
        ENSURE_NEAR(p[0].depth, deepest_depth, 1e-15);
    }
}

static void test_random_poses_of_every_pair_are_sane(void) {
    cube_hull cube;
    make_cube_hull(&cube, 0.35);
    unsigned long long rng = 99;
    for (int i = 0; i < 7; ++i) {
        for (int j = 0; j < 7; ++j) {
            tch_shape a = shape_of_type(all_types[i], &cube);
            tch_shape b = shape_of_type(all_types[j], &cube);
            for (int trial = 0; trial < 300; ++trial) {
                const tch_real spread = trial < 100 ? 0.05 : (trial < 200 ? 0.5 : 1.5);
                const tch_transform X_AB = random_pose(&rng, spread);
                const tch_real margin = trial % 3 == 0 ? 0 : 0.1 * uniform(&rng);
                tch_manifold_point p[TCH_MANIFOLD_CAPACITY];
                const int n = tch_collide(&a, &b, X_AB, margin, p);
                ENSURE(n >= 0 && n <= TCH_MANIFOLD_CAPACITY);
                if (i == 0 && j == 0) {
                    ENSURE(n == 0);
                }
                for (int k = 0; k < n; ++k) {
                    ENSURE(tch_v3_isfinite(p[k].p_A) && isfinite(p[k].depth));
                    ENSURE_NEAR(tch_v3_norm(p[k].n_A), 1.0, 1e-9);
                    ENSURE(p[k].depth >= -margin - 1e-9);
                    /* shapes fit in a ball of radius 0.65 at poses within 1.5 * sqrt(3) */
                    ENSURE(p[k].depth <= 2 * 0.65 + 1.5 * sqrt(3.0));
                    ENSURE(tch_v3_norm(p[k].p_A) <= 0.65 + 1.5 * sqrt(3.0) + 0.7);
                }
            }
        }
    }
}

int main(void) {
    RUN_TEST(test_sphere_sphere);
    RUN_TEST(test_sphere_plane_and_swapped);
    RUN_TEST(test_box_resting_on_plane_gives_its_four_bottom_corners);
    RUN_TEST(test_tilted_box_on_plane);
    RUN_TEST(test_capsule_on_plane);
    RUN_TEST(test_cylinder_on_plane);
    RUN_TEST(test_ellipsoid_on_plane);
    RUN_TEST(test_mesh_cube_on_plane);
    RUN_TEST(test_box_on_box_gives_four_points);
    RUN_TEST(test_mesh_cube_on_box_gives_four_points);
    RUN_TEST(test_box_box_edge_on_edge);
    RUN_TEST(test_box_on_turned_box_gives_face_manifold);
    RUN_TEST(test_small_box_on_turned_box_gives_its_corners);
    RUN_TEST(test_touching_boxes_get_no_reversed_normal);
    RUN_TEST(test_box_box_normals_never_reversed);
    RUN_TEST(test_sphere_box);
    RUN_TEST(test_capsules);
    RUN_TEST(test_capsule_box);
    RUN_TEST(test_general_path_agrees_with_analytic);
    RUN_TEST(test_swapping_flips_normal_keeps_depth);
    RUN_TEST(test_random_poses_of_every_pair_are_sane);
    RUN_TEST(test_box_box_apart_along_crossed_edges);
    RUN_TEST(test_box_and_cube_hull_clip_alike);
    RUN_TEST(test_reduction_of_a_level_ring_is_symmetric);
    RUN_TEST(test_reduction_of_a_rim_keeps_twins);
    return TEST_RESULT();
}
