/* Shapes (AABB, bounding radius, support, validation) and mass properties. */
#include <stdint.h>
#include <stdlib.h>

#include "../math/test_util.h"
#include "geometry/hull.h"
#include "geometry/mass.h"
#include "geometry/shape.h"
#include "math/vec.h"
#include "test.h"

static tch_vec3 random_direction(rng* r) {
    return tch_v3_normalize(tch_v3(uniform(r), uniform(r), uniform(r)));
}

/* The hull of the 8 corners of a box of half-extents h (built once per call). */
static int box_hull(tch_vec3 h, tch_transform X, tch_convex_hull* hull) {
    tch_vec3 p[8];
    for (int i = 0; i < 8; ++i) {
        p[i] = tch_x_apply(X, tch_v3(i & 1 ? h.x : -h.x, i & 2 ? h.y : -h.y, i & 4 ? h.z : -h.z));
    }
    return tch_hull_build(p, 8, hull, NULL) == TCH_OK;
}

/* A sample of surface points of each convex shape, by its own closed-form parametrization
 * (independent of the support function). Returns how many were written. */
static int surface_samples(const tch_shape* s, rng* r, tch_vec3* out, int max) {
    const tch_real* z = s->size;
    for (int i = 0; i < max; ++i) {
        tch_vec3 u = random_direction(r);
        tch_real a = pi * uniform(r), t = uniform(r);
        switch (s->type) {
        case TCH_GEOM_SPHERE:
            out[i] = tch_v3_scale(u, z[0]);
            break;
        case TCH_GEOM_ELLIPSOID:
            out[i] = tch_v3_mul(u, tch_v3(z[0], z[1], z[2]));
            break;
        case TCH_GEOM_CAPSULE:
            out[i] = tch_v3_add(tch_v3_scale(u, z[0]), tch_v3(0, 0, t * z[1]));
            break;
        case TCH_GEOM_CYLINDER:
            out[i] =
                tch_v3(z[0] * cos(a) * (i % 3 ? 1 : fabs(t)), z[0] * sin(a) * (i % 3 ? 1 : fabs(t)),
                       i % 3 == 1 ? copysign(z[1], t) : t * z[1]);
            break;
        case TCH_GEOM_BOX:
            out[i] = tch_v3_mul(tch_v3(uniform(r) > 0 ? 1 : -1, uniform(r) > 0 ? 1 : -1, t),
                                tch_v3(z[0], z[1], z[2]));
            break;
        case TCH_GEOM_MESH:
            out[i] = s->hull->vertices_G[i % s->hull->vertex_count];
            break;
        default:
            return 0;
        }
    }
    return max;
}

/* One shape of each solid type; the mesh is the hull of a box (half-extents h) placed at X. */
static int make_shapes(tch_shape shapes[6], tch_convex_hull* hull, tch_vec3 h, tch_transform X) {
    if (!box_hull(h, X, hull)) {
        return 0;
    }
    shapes[0] = (tch_shape){TCH_GEOM_SPHERE, {0.7, 0, 0}, NULL};
    shapes[1] = (tch_shape){TCH_GEOM_CAPSULE, {0.3, 0.8, 0}, NULL};
    shapes[2] = (tch_shape){TCH_GEOM_ELLIPSOID, {0.5, 1.2, 0.3}, NULL};
    shapes[3] = (tch_shape){TCH_GEOM_CYLINDER, {0.4, 0.9, 0}, NULL};
    shapes[4] = (tch_shape){TCH_GEOM_BOX, {0.2, 0.6, 1.1}, NULL};
    shapes[5] = (tch_shape){TCH_GEOM_MESH, {0, 0, 0}, hull};
    return 1;
}

/* The support point lies on the shape and no surface sample is farther along d. */
static void test_support_maximizes(void) {
    tch_convex_hull hull;
    tch_shape shapes[6];
    ENSURE(make_shapes(shapes, &hull, tch_v3(0.5, 0.3, 0.2),
                       (tch_transform){{0.8, 0.6, 0, 0}, {0.1, 0, 0}}));
    rng r = {21};
    tch_vec3 samples[2000];
    for (int s = 0; s < 6; ++s) {
        int n = surface_samples(&shapes[s], &r, samples, 2000);
        for (int k = 0; k < 50; ++k) {
            tch_vec3 d = tch_v3_scale(random_direction(&r), 0.5 + uniform(&r) * 0.4);
            tch_vec3 sp = tch_shape_support(&shapes[s], d);
            tch_real best = tch_v3_dot(sp, d);
            for (int i = 0; i < n; ++i) {
                ENSURE(tch_v3_dot(samples[i], d) <= best + 1e-12);
            }
            ENSURE(tch_v3_norm(sp) <= tch_shape_bounding_radius(&shapes[s]) + 1e-12);
        }
    }
    /* closed forms: sphere along x, box corner, capsule tip, cylinder rim, ellipsoid pole */
    ENSURE(tch_v3_dist(tch_shape_support(&shapes[0], tch_v3(2, 0, 0)), tch_v3(0.7, 0, 0)) < 1e-15);
    ENSURE(tch_v3_dist(tch_shape_support(&shapes[4], tch_v3(-1, 1, -1)), tch_v3(-0.2, 0.6, -1.1)) ==
           0);
    ENSURE(tch_v3_dist(tch_shape_support(&shapes[1], tch_v3(0, 0, -3)), tch_v3(0, 0, -1.1)) <
           1e-15);
    ENSURE(tch_v3_dist(tch_shape_support(&shapes[3], tch_v3(0, 1, 1)), tch_v3(0, 0.4, 0.9)) <
           1e-15);
    ENSURE(tch_v3_dist(tch_shape_support(&shapes[2], tch_v3(0, -5, 0)), tch_v3(0, -1.2, 0)) <
           1e-15);
    tch_hull_free(&hull);
}

/* For a convex shape the exact world AABB along axis i reaches e_i . (p + R s(R^T e_i)). */
static void test_aabb_matches_support(void) {
    tch_convex_hull hull;
    tch_shape shapes[6];
    ENSURE(make_shapes(shapes, &hull, tch_v3(0.5, 0.3, 0.2),
                       (tch_transform){{0.8, 0, 0.6, 0}, {0, 0.2, 0}}));
    rng r = {5};
    for (int s = 0; s < 6; ++s) {
        for (int k = 0; k < 20; ++k) {
            tch_transform X = random_transform(&r);
            tch_aabb box = tch_shape_aabb(&shapes[s], X, 0.01);
            for (int i = 0; i < 3; ++i) {
                tch_vec3 e = tch_v3(i == 0, i == 1, i == 2);
                tch_vec3 hi =
                    tch_x_apply(X, tch_shape_support(&shapes[s], tch_q_inv_rotate(X.q, e)));
                tch_vec3 lo = tch_x_apply(
                    X, tch_shape_support(&shapes[s], tch_q_inv_rotate(X.q, tch_v3_neg(e))));
                ENSURE_NEAR(tch_v3_get(box.hi, i), tch_v3_get(hi, i) + 0.01, 1e-12);
                ENSURE_NEAR(tch_v3_get(box.lo, i), tch_v3_get(lo, i) - 0.01, 1e-12);
            }
        }
    }
    tch_hull_free(&hull);
}

static void test_plane_aabb(void) {
    tch_shape plane = {TCH_GEOM_PLANE, {0, 0, 0}, NULL};
    tch_transform X = {{1, 0, 0, 0}, {1, 2, 3}};
    tch_aabb box = tch_shape_aabb(&plane, X, 0.5);
    ENSURE(box.hi.z == 3.5 && box.lo.z == -INFINITY);
    ENSURE(box.lo.x == -INFINITY && box.hi.x == INFINITY && box.hi.y == INFINITY);
    X.q = (tch_quat){0, 1, 0, 0}; /* half turn about x: normal -z, solid above */
    box = tch_shape_aabb(&plane, X, 0.5);
    ENSURE(box.lo.z == 2.5 && box.hi.z == INFINITY);
    X.q = tch_q_axis_angle(tch_v3(1, 0, 0), pi / 2); /* normal -y */
    box = tch_shape_aabb(&plane, X, 0);
    ENSURE(box.lo.y == 2 && box.hi.y == INFINITY && box.lo.z == -INFINITY && box.hi.z == INFINITY);
    X.q = tch_q_axis_angle(tch_v3(1, 0, 0), 0.1); /* tilted: unbounded */
    box = tch_shape_aabb(&plane, X, 0);
    ENSURE(box.lo.y == -INFINITY && box.hi.y == INFINITY && box.hi.z == INFINITY);
    ENSURE(tch_shape_bounding_radius(&plane) == INFINITY);
    ENSURE(tch_shape_volume(&plane) == INFINITY);
}

static void test_bounding_radius(void) {
    tch_convex_hull hull;
    tch_shape shapes[6];
    ENSURE(make_shapes(shapes, &hull, tch_v3(1, 2, 2), (tch_transform){{1, 0, 0, 0}, {0, 0, 0}}));
    ENSURE(tch_shape_bounding_radius(&shapes[0]) == 0.7);
    ENSURE_NEAR(tch_shape_bounding_radius(&shapes[1]), 1.1, 1e-15);
    ENSURE(tch_shape_bounding_radius(&shapes[2]) == 1.2);
    ENSURE_NEAR(tch_shape_bounding_radius(&shapes[3]), sqrt(0.16 + 0.81), 1e-15);
    ENSURE_NEAR(tch_shape_bounding_radius(&shapes[4]), sqrt(0.04 + 0.36 + 1.21), 1e-15);
    ENSURE_NEAR(tch_shape_bounding_radius(&shapes[5]), 3, 1e-15);
    tch_hull_free(&hull);
}

static void test_validate(void) {
    char why[128];
    tch_shape s = {TCH_GEOM_SPHERE, {-1, 0, 0}, NULL};
    ENSURE(tch_shape_validate(&s, why, sizeof why) == 1);
    ENSURE(strcmp(why, "sphere radius must be > 0 and finite, got -1") == 0);
    s = (tch_shape){TCH_GEOM_BOX, {1, NAN, 1}, NULL};
    ENSURE(tch_shape_validate(&s, why, sizeof why) == 1);
    ENSURE(strstr(why, "box y half-extent") != NULL);
    s = (tch_shape){TCH_GEOM_CAPSULE, {0.1, 0, 0}, NULL};
    ENSURE(tch_shape_validate(&s, why, sizeof why) == 1);
    ENSURE(strstr(why, "capsule half-length") != NULL);
    s = (tch_shape){TCH_GEOM_CYLINDER, {0.1, INFINITY, 0}, NULL};
    ENSURE(tch_shape_validate(&s, why, sizeof why) == 1);
    s = (tch_shape){TCH_GEOM_MESH, {0, 0, 0}, NULL};
    ENSURE(tch_shape_validate(&s, why, sizeof why) == 1);
    ENSURE(strstr(why, "mesh") != NULL);
    s = (tch_shape){(tch_geom_type)1, {1, 1, 1}, NULL};
    ENSURE(tch_shape_validate(&s, why, sizeof why) == 1);
    s = (tch_shape){TCH_GEOM_ELLIPSOID, {1, 2, 3}, NULL};
    ENSURE(tch_shape_validate(&s, why, sizeof why) == 0);
    s = (tch_shape){TCH_GEOM_PLANE, {0, 0, 0}, NULL};
    ENSURE(tch_shape_validate(&s, why, sizeof why) == 0);
}

/* ---- mass properties ---- */

static void ensure_diagonal(tch_mat3 I, tch_real xx, tch_real yy, tch_real zz, int* ok) {
    tch_mat3 expected = tch_m3_diag(tch_v3(xx, yy, zz));
    *ok = m3_max_diff(I, expected) <= 1e-14 * m3_max_abs(expected);
}

static void test_primitive_closed_forms(void) {
    const tch_real rho = 1300;
    tch_mass_properties m;
    int ok;
    tch_shape sphere = {TCH_GEOM_SPHERE, {0.5, 0, 0}, NULL};
    ENSURE(tch_shape_mass_properties(&sphere, rho, &m, NULL) == TCH_OK);
    tch_real ms = rho * 4.0 / 3.0 * pi * 0.125;
    ENSURE_REL(m.mass, ms, 1e-15);
    ensure_diagonal(m.I_GCm, 0.4 * ms * 0.25, 0.4 * ms * 0.25, 0.4 * ms * 0.25, &ok);
    ENSURE(ok);
    tch_shape box = {TCH_GEOM_BOX, {0.5, 1, 1.5}, NULL};
    ENSURE(tch_shape_mass_properties(&box, rho, &m, NULL) == TCH_OK);
    tch_real mb = rho * 1 * 2 * 3;
    ENSURE_REL(m.mass, mb, 1e-15);
    ensure_diagonal(m.I_GCm, mb / 12 * (4 + 9), mb / 12 * (1 + 9), mb / 12 * (1 + 4), &ok);
    ENSURE(ok);
    tch_shape cylinder = {TCH_GEOM_CYLINDER, {0.3, 0.8, 0}, NULL};
    ENSURE(tch_shape_mass_properties(&cylinder, rho, &m, NULL) == TCH_OK);
    tch_real mc = rho * pi * 0.09 * 1.6;
    ENSURE_REL(m.mass, mc, 1e-15);
    tch_real ixx = mc * (3 * 0.09 + 1.6 * 1.6) / 12;
    ensure_diagonal(m.I_GCm, ixx, ixx, mc * 0.09 / 2, &ok);
    ENSURE(ok);
    tch_shape ellipsoid = {TCH_GEOM_ELLIPSOID, {1, 2, 3}, NULL};
    ENSURE(tch_shape_mass_properties(&ellipsoid, rho, &m, NULL) == TCH_OK);
    tch_real me = rho * 4.0 / 3.0 * pi * 6;
    ENSURE_REL(m.mass, me, 1e-15);
    ensure_diagonal(m.I_GCm, me * 13 / 5, me * 10 / 5, me * 5 / 5, &ok);
    ENSURE(ok);
    ENSURE(tch_v3_norm(m.p_GCm) == 0);
}

/* Integral of f over [a, b] by 3-point Gauss-Legendre on `pieces` equal parts (exact for
 * polynomials of degree 5 on each part). */
static tch_real gauss3(tch_real (*f)(tch_real, const tch_real*), const tch_real* args, tch_real a,
                       tch_real b, int pieces) {
    const tch_real x[3] = {-sqrt(0.6), 0, sqrt(0.6)}, w[3] = {5.0 / 9, 8.0 / 9, 5.0 / 9};
    tch_real sum = 0, h = (b - a) / pieces;
    for (int p = 0; p < pieces; ++p) {
        tch_real mid = a + (p + 0.5) * h;
        for (int k = 0; k < 3; ++k) {
            sum += w[k] * f(mid + x[k] * h / 2, args) * h / 2;
        }
    }
    return sum;
}

/* Capsule slice at height z: disk of radius R(z)^2 = r^2 - max(|z| - h, 0)^2. */
static tch_real capsule_radius2(tch_real z, const tch_real* rh) {
    tch_real over = fmax(fabs(z) - rh[1], 0);
    return rh[0] * rh[0] - over * over;
}
static tch_real slice_area(tch_real z, const tch_real* rh) {
    return pi * capsule_radius2(z, rh);
}
/* a thin disk of area A at height z about the x axis through the centre: A (R^2/4 + z^2) */
static tch_real slice_ixx(tch_real z, const tch_real* rh) {
    return pi * capsule_radius2(z, rh) * (capsule_radius2(z, rh) / 4 + z * z);
}
static tch_real slice_izz(tch_real z, const tch_real* rh) {
    return pi * capsule_radius2(z, rh) * capsule_radius2(z, rh) / 2;
}

/* Capsule against slice-by-slice integration (cylinder and caps integrated separately). */
static void test_capsule_against_slices(void) {
    const tch_real rh[2] = {0.35, 0.6}, rho = 800;
    tch_real (*const integrands[3])(tch_real, const tch_real*) = {slice_area, slice_ixx, slice_izz};
    tch_real expected[3];
    for (int k = 0; k < 3; ++k) {
        expected[k] = rho * (gauss3(integrands[k], rh, -rh[0] - rh[1], -rh[1], 4) +
                             gauss3(integrands[k], rh, -rh[1], rh[1], 4) +
                             gauss3(integrands[k], rh, rh[1], rh[0] + rh[1], 4));
    }
    tch_shape capsule = {TCH_GEOM_CAPSULE, {rh[0], rh[1], 0}, NULL};
    tch_mass_properties m;
    ENSURE(tch_shape_mass_properties(&capsule, rho, &m, NULL) == TCH_OK);
    ENSURE_REL(m.mass, expected[0], 1e-13);
    ENSURE_REL(tch_shape_volume(&capsule) * rho, expected[0], 1e-13);
    ENSURE_REL(m.I_GCm.m[0][0], expected[1], 1e-13);
    ENSURE_REL(m.I_GCm.m[1][1], expected[1], 1e-13);
    ENSURE_REL(m.I_GCm.m[2][2], expected[2], 1e-13);
}

static int mass_properties_match(tch_mass_properties a, tch_mass_properties b, tch_real rel) {
    tch_real scale = m3_max_abs(b.I_GCm);
    return fabs(a.mass - b.mass) <= rel * b.mass &&
           tch_v3_dist(a.p_GCm, b.p_GCm) <= rel * fmax(1, tch_v3_norm(b.p_GCm)) &&
           m3_max_diff(a.I_GCm, b.I_GCm) <= rel * scale;
}

/* The hull of a box's corners has the box's mass properties, here and after a rigid motion. */
static void test_hull_of_box_corners_matches_box(void) {
    const tch_real rho = 2700;
    tch_vec3 h = tch_v3(0.3, 0.7, 1.3);
    tch_shape box = {TCH_GEOM_BOX, {h.x, h.y, h.z}, NULL};
    tch_mass_properties expected, got;
    ENSURE(tch_shape_mass_properties(&box, rho, &expected, NULL) == TCH_OK);
    tch_convex_hull hull;
    ENSURE(box_hull(h, tch_x_identity(), &hull));
    tch_shape mesh = {TCH_GEOM_MESH, {0, 0, 0}, &hull};
    ENSURE(tch_shape_mass_properties(&mesh, rho, &got, NULL) == TCH_OK);
    ENSURE(mass_properties_match(got, expected, 1e-12));
    ENSURE_REL(tch_shape_volume(&mesh), 8 * h.x * h.y * h.z, 1e-12);
    tch_hull_free(&hull);
    tch_transform X = {tch_q_normalize((tch_quat){0.7, -0.1, 0.5, 0.3}), {1.5, -2, 0.25}};
    ENSURE(box_hull(h, X, &hull));
    ENSURE(tch_shape_mass_properties(&mesh, rho, &got, NULL) == TCH_OK);
    ENSURE(mass_properties_match(got, tch_mass_properties_transform(expected, X), 1e-12));
    tch_hull_free(&hull);
}

/* Right tetrahedron (0, a e_x, b e_y, c e_z): V = abc/6, centre (a, b, c)/4, and about it
 * I_xx = rho abc (b^2 + c^2) / 160, I_xy = rho a^2 b^2 c / 480 (integrals over the simplex). */
static void test_hull_of_tetrahedron(void) {
    const tch_real a = 1, b = 2, c = 3, rho = 10;
    tch_vec3 p[4] = {{0, 0, 0}, {a, 0, 0}, {0, b, 0}, {0, 0, c}};
    tch_convex_hull hull;
    ENSURE(tch_hull_build(p, 4, &hull, NULL) == TCH_OK);
    tch_shape mesh = {TCH_GEOM_MESH, {0, 0, 0}, &hull};
    tch_mass_properties m;
    ENSURE(tch_shape_mass_properties(&mesh, rho, &m, NULL) == TCH_OK);
    tch_real abc = a * b * c;
    ENSURE_REL(m.mass, rho * abc / 6, 1e-14);
    ENSURE(tch_v3_dist(m.p_GCm, tch_v3(a / 4, b / 4, c / 4)) < 1e-15);
    ENSURE_REL(m.I_GCm.m[0][0], rho * abc * (b * b + c * c) / 160, 1e-14);
    ENSURE_REL(m.I_GCm.m[1][1], rho * abc * (a * a + c * c) / 160, 1e-14);
    ENSURE_REL(m.I_GCm.m[2][2], rho * abc * (a * a + b * b) / 160, 1e-14);
    ENSURE_REL(m.I_GCm.m[0][1], rho * a * abc * b / 480, 1e-14);
    ENSURE_REL(m.I_GCm.m[1][2], rho * abc * b * c / 480, 1e-14);
    ENSURE_REL(m.I_GCm.m[2][0], rho * a * abc * c / 480, 1e-14);
    tch_hull_free(&hull);
}

/* Two boxes side by side make one box twice as long. */
static void test_combine_two_boxes(void) {
    tch_shape half = {TCH_GEOM_BOX, {1, 0.5, 0.25}, NULL};
    tch_shape whole = {TCH_GEOM_BOX, {2, 0.5, 0.25}, NULL};
    tch_mass_properties part, expected;
    ENSURE(tch_shape_mass_properties(&half, 7, &part, NULL) == TCH_OK);
    ENSURE(tch_shape_mass_properties(&whole, 7, &expected, NULL) == TCH_OK);
    tch_mass_properties parts[2] = {
        tch_mass_properties_transform(part, (tch_transform){{1, 0, 0, 0}, {-1, 0, 0}}),
        tch_mass_properties_transform(part, (tch_transform){{1, 0, 0, 0}, {1, 0, 0}})};
    tch_mass_properties sum = tch_mass_properties_combine(parts, 2);
    ENSURE(mass_properties_match(sum, expected, 1e-14));
    tch_mass_properties none = tch_mass_properties_combine(NULL, 0);
    ENSURE(none.mass == 0 && m3_max_abs(none.I_GCm) == 0);
}

/* A quarter turn about z swaps I_xx and I_yy and moves the centre. */
static void test_transform_rotates_inertia(void) {
    tch_shape box = {TCH_GEOM_BOX, {1, 2, 3}, NULL};
    tch_mass_properties m;
    ENSURE(tch_shape_mass_properties(&box, 1, &m, NULL) == TCH_OK);
    m.p_GCm = tch_v3(1, 0, 0);
    tch_transform X_BG = {tch_q_axis_angle(tch_v3(0, 0, 1), pi / 2), {0, 0, 5}};
    tch_mass_properties t = tch_mass_properties_transform(m, X_BG);
    ENSURE(t.mass == m.mass);
    ENSURE(tch_v3_dist(t.p_GCm, tch_v3(0, 1, 5)) < 1e-15);
    ENSURE_REL(t.I_GCm.m[0][0], m.I_GCm.m[1][1], 1e-15);
    ENSURE_REL(t.I_GCm.m[1][1], m.I_GCm.m[0][0], 1e-15);
    ENSURE(fabs(t.I_GCm.m[0][1]) < 1e-15 * m3_max_abs(m.I_GCm));
}

static void test_mass_errors(void) {
    tch_error err;
    tch_mass_properties m;
    tch_shape plane = {TCH_GEOM_PLANE, {0, 0, 0}, NULL};
    ENSURE(tch_shape_mass_properties(&plane, 1, &m, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "plane") != NULL);
    tch_shape sphere = {TCH_GEOM_SPHERE, {1, 0, 0}, NULL};
    ENSURE(tch_shape_mass_properties(&sphere, 0, &m, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "density") != NULL);
    ENSURE(tch_shape_mass_properties(&sphere, NAN, &m, NULL) == TCH_ERR_INVALID_ARGUMENT);
    sphere.size[0] = -2;
    ENSURE(tch_shape_mass_properties(&sphere, 1, &m, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "sphere radius") != NULL);
}

int main(void) {
    RUN_TEST(test_support_maximizes);
    RUN_TEST(test_aabb_matches_support);
    RUN_TEST(test_plane_aabb);
    RUN_TEST(test_bounding_radius);
    RUN_TEST(test_validate);
    RUN_TEST(test_primitive_closed_forms);
    RUN_TEST(test_capsule_against_slices);
    RUN_TEST(test_hull_of_box_corners_matches_box);
    RUN_TEST(test_hull_of_tetrahedron);
    RUN_TEST(test_combine_two_boxes);
    RUN_TEST(test_transform_rotates_inertia);
    RUN_TEST(test_mass_errors);
    return TEST_RESULT();
}
