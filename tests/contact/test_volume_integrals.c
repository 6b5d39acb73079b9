/* Closed forms of the contact-volume model against quadrature and against whole overlaps with
 * known answers (reference notes contact_volume.md §5-6, §9). */
#include <math.h>
#include <stdlib.h>

#include "collision/contact_plane.h"
#include "contact/volume_integrals.h"
#include "hull_fixtures.h"
#include "test.h"

/* ---- quadrature: 4^3 subtriangles, each with the 7-point degree-5 rule (Radon) ---- */

/* Integrand at the point with barycentric coordinates `bary` of the original triangle. */
typedef void (*integrand)(const void* context, const tch_contact_triangle* t,
                          const double bary[3], double out[6]);

static void add_rule(const void* context, const tch_contact_triangle* t, double corners[3][3],
                     integrand f, double weight, double sum[6]) {
    const double s15 = sqrt(15.0);
    const double a1 = (6 - s15) / 21, a2 = (6 + s15) / 21;
    const double rule[7][4] = {{1.0 / 3, 1.0 / 3, 1.0 / 3, 9.0 / 40},
                               {a1, a1, 1 - 2 * a1, (155 - s15) / 1200},
                               {a1, 1 - 2 * a1, a1, (155 - s15) / 1200},
                               {1 - 2 * a1, a1, a1, (155 - s15) / 1200},
                               {a2, a2, 1 - 2 * a2, (155 + s15) / 1200},
                               {a2, 1 - 2 * a2, a2, (155 + s15) / 1200},
                               {1 - 2 * a2, a2, a2, (155 + s15) / 1200}};
    for (int k = 0; k < 7; ++k) {
        double bary[3], value[6];
        for (int i = 0; i < 3; ++i) {
            bary[i] = rule[k][0] * corners[0][i] + rule[k][1] * corners[1][i] +
                      rule[k][2] * corners[2][i];
        }
        f(context, t, bary, value);
        for (int j = 0; j < 6; ++j) {
            sum[j] += weight * rule[k][3] * value[j];
        }
    }
}

static void subdivide(const void* context, const tch_contact_triangle* t, double c[3][3],
                      int level, integrand f, double weight, double sum[6]) {
    if (level == 0) {
        add_rule(context, t, c, f, weight, sum);
        return;
    }
    double m[3][3]; /* edge midpoints: m[k] between c[k] and c[k+1] */
    for (int k = 0; k < 3; ++k) {
        for (int i = 0; i < 3; ++i) {
            m[k][i] = 0.5 * (c[k][i] + c[(k + 1) % 3][i]);
        }
    }
    double parts[4][3][3];
    for (int i = 0; i < 3; ++i) {
        parts[0][0][i] = c[0][i], parts[0][1][i] = m[0][i], parts[0][2][i] = m[2][i];
        parts[1][0][i] = m[0][i], parts[1][1][i] = c[1][i], parts[1][2][i] = m[1][i];
        parts[2][0][i] = m[2][i], parts[2][1][i] = m[1][i], parts[2][2][i] = c[2][i];
        parts[3][0][i] = m[0][i], parts[3][1][i] = m[1][i], parts[3][2][i] = m[2][i];
    }
    for (int p = 0; p < 4; ++p) {
        subdivide(context, t, parts[p], level - 1, f, weight / 4, sum);
    }
}

/* ∫ f dS over the projected triangle, signed by t->area (or |area| when `unsigned_area`). */
static void quadrature(const void* context, const tch_contact_triangle* t, integrand f,
                       int unsigned_area, double sum[6]) {
    double corners[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int j = 0; j < 6; ++j) {
        sum[j] = 0;
    }
    subdivide(context, t, corners, 3, f, unsigned_area ? fabs(t->area) : t->area, sum);
}

static tch_vec3 point_at(const tch_contact_triangle* t, const double bary[3]) {
    tch_vec3 p = tch_v3_zero();
    for (int i = 0; i < 3; ++i) {
        p = tch_v3_madd(p, bary[i], t->p[i]);
    }
    return p;
}

static double linear_at(const double g[3], const double bary[3]) {
    return g[0] * bary[0] + g[1] * bary[1] + g[2] * bary[2];
}

static tch_vec3 vector_at(const tch_vec3 v[3], const double bary[3]) {
    return tch_v3_add(tch_v3_add(tch_v3_scale(v[0], bary[0]), tch_v3_scale(v[1], bary[1])),
                      tch_v3_scale(v[2], bary[2]));
}

static void put(double out[6], tch_vec3 a, tch_vec3 b) {
    out[0] = a.x, out[1] = a.y, out[2] = a.z, out[3] = b.x, out[4] = b.y, out[5] = b.z;
}

/* The random data of one case. */
typedef struct case_data {
    double g[3];
    tch_vec3 n, w, tau[3], v_r, w_r, r;
    double theta, c, S_c;
} case_data;

static void f_area_integrals(const void* ctx, const tch_contact_triangle* t, const double b[3],
                             double out[6]) {
    const case_data* d = ctx;
    const tch_vec3 p = point_at(t, b);
    const double g = linear_at(d->g, b);
    put(out, tch_v3_scale(p, g), tch_v3(g, tch_v3_norm2(p), 0));
}

static void f_second_and_cross(const void* ctx, const tch_contact_triangle* t,
                               const double b[3], double out[6]) {
    const case_data* d = ctx;
    const tch_vec3 p = point_at(t, b);
    put(out, tch_v3_scale(p, tch_v3_dot(p, d->w)), tch_v3_cross(p, vector_at(d->tau, b)));
}

/* eqs. 5-6: (c/S_c) g n and p x that */
static void f_normal(const void* ctx, const tch_contact_triangle* t, const double b[3],
                     double out[6]) {
    const case_data* d = ctx;
    const tch_vec3 f = tch_v3_scale(d->n, d->c / d->S_c * linear_at(d->g, b));
    put(out, f, tch_v3_cross(point_at(t, b), f));
}

/* eqs. 9-10 on B: -(b/S_c) (n.v_r(p)) n */
static void f_damper(const void* ctx, const tch_contact_triangle* t, const double b[3],
                     double out[6]) {
    const case_data* d = ctx;
    const tch_vec3 p = point_at(t, b);
    const tch_vec3 v = tch_v3_add(d->v_r, tch_v3_cross(d->w_r, p));
    const tch_vec3 f = tch_v3_scale(d->n, -d->c / d->S_c * tch_v3_dot(d->n, v));
    put(out, f, tch_v3_cross(p, f));
}

/* eq. 14: the interpolated traction and its moment */
static void f_traction(const void* ctx, const tch_contact_triangle* t, const double b[3],
                       double out[6]) {
    const case_data* d = ctx;
    const tch_vec3 tau = vector_at(d->tau, b);
    put(out, tau, tch_v3_cross(point_at(t, b), tau));
}

/* eqs. 18-20: -(c/S_c) (r + theta n x p) and p x that */
static void f_static(const void* ctx, const tch_contact_triangle* t, const double b[3],
                     double out[6]) {
    const case_data* d = ctx;
    const tch_vec3 p = point_at(t, b);
    const tch_vec3 l = tch_v3_add(d->r, tch_v3_scale(tch_v3_cross(d->n, p), d->theta));
    const tch_vec3 f = tch_v3_scale(l, -d->c / d->S_c);
    put(out, f, tch_v3_cross(p, f));
}

/* Largest error of `value` against `reference`, relative to the reference's largest entry. */
static double relative_error(const double* value, const double* reference, int count) {
    double scale = 0, error = 0;
    for (int i = 0; i < count; ++i) {
        scale = fmax(scale, fabs(reference[i]));
        error = fmax(error, fabs(value[i] - reference[i]));
    }
    return error / scale;
}

static double wrench_error(tch_wrench w, const double reference[6]) {
    double value[6];
    put(value, w.force, w.moment);
    return relative_error(value, reference, 6);
}

static tch_vec3 random_vector(unsigned long long* rng, double scale) {
    return tch_v3_scale(tch_v3(2 * fixture_uniform(rng) - 1, 2 * fixture_uniform(rng) - 1,
                               2 * fixture_uniform(rng) - 1),
                        scale);
}

static case_data random_case(unsigned long long* rng, tch_contact_triangle* t) {
    case_data d;
    d.n = fixture_unit_vector(rng);
    const tch_vec3 o_c = random_vector(rng, 1);
    *t = tch_contact_triangle_make(random_vector(rng, 1), random_vector(rng, 1),
                                   random_vector(rng, 1), d.n, o_c);
    for (int i = 0; i < 3; ++i) {
        d.g[i] = 2 * fixture_uniform(rng) - 1;
        d.tau[i] = random_vector(rng, 1);
    }
    d.w = random_vector(rng, 1);
    d.v_r = random_vector(rng, 1);
    d.w_r = random_vector(rng, 1);
    d.r = random_vector(rng, 0.1);
    d.r = tch_v3_madd(d.r, -tch_v3_dot(d.r, d.n), d.n);
    d.theta = 2 * fixture_uniform(rng) - 1;
    d.c = 1 + 100 * fixture_uniform(rng);
    d.S_c = 0.5 + fixture_uniform(rng);
    return d;
}

static void test_area_integrals_match_quadrature(void) {
    unsigned long long rng = 5;
    for (int trial = 0; trial < 200; ++trial) {
        tch_contact_triangle t;
        const case_data d = random_case(&rng, &t);
        double q[6], value[6];
        quadrature(&d, &t, f_area_integrals, 0, q);
        put(value, tch_triangle_integral_linear_p(&t, d.g),
            tch_v3(tch_triangle_integral_linear(&t, d.g), tch_triangle_integral_p2(&t), 0));
        ENSURE(relative_error(value, q, 3) < 1e-10);
        ENSURE(relative_error(value + 3, q + 3, 1) < 1e-10);
        ENSURE(relative_error(value + 4, q + 4, 1) < 1e-10);
        quadrature(&d, &t, f_second_and_cross, 0, q);
        put(value, tch_triangle_integral_pp(&t, d.w), tch_triangle_integral_p_cross(&t, d.tau));
        ENSURE(relative_error(value, q, 3) < 1e-10);
        ENSURE(relative_error(value + 3, q + 3, 3) < 1e-10);
    }
}

static void test_force_kernels_match_quadrature_of_their_densities(void) {
    unsigned long long rng = 6;
    for (int trial = 0; trial < 200; ++trial) {
        tch_contact_triangle t;
        const case_data d = random_case(&rng, &t);
        double q[6];
        quadrature(&d, &t, f_normal, 0, q);
        ENSURE(wrench_error(tch_volume_normal_triangle(&t, d.n, d.g, d.c, d.S_c), q) < 1e-10);
        quadrature(&d, &t, f_damper, 1, q);
        ENSURE(wrench_error(tch_volume_damper_triangle(&t, d.n, d.v_r, d.w_r, d.c, d.S_c), q) <
               1e-10);
        quadrature(&d, &t, f_traction, 0, q);
        ENSURE(wrench_error(tch_volume_traction_triangle(&t, d.tau), q) < 1e-10);
        quadrature(&d, &t, f_static, 1, q);
        ENSURE(wrench_error(tch_volume_static_triangle(&t, d.n, d.r, d.theta, d.c, d.S_c), q) <
               1e-10);
    }
}

/* ---- whole overlaps ---- */

static const tch_volume_params params = {1500, 1.5, 3000, 3, 0.3, 0.6};

/* The floor: a wide slab whose top face is z = 0. */
static tch_convex_hull floor_slab(void) {
    return fixture_box(tch_v3(5, 5, 1), tch_v3(0, 0, -1));
}

static void test_box_pressed_flat_gives_k_d(void) {
    tch_convex_hull floor = floor_slab();
    tch_convex_hull cube = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    const double d = 0.02;
    const tch_transform X_AB = {tch_q_identity(), tch_v3(0.3, -0.2, 1 - d)};
    tch_polyhedron P;
    tch_polyhedron_init(&P);
    ENSURE(tch_polyhedron_intersect(&floor, &cube, X_AB, TCH_POLYHEDRON_DEFAULT, &P, NULL) ==
           TCH_OK);
    tch_contact_plane plane;
    ENSURE(tch_contact_plane_find(&floor, &cube, X_AB, NULL, 0, &P, &plane, NULL) == TCH_OK);
    ENSURE(tch_v3_dist(plane.n_A, tch_v3(0, 0, 1)) < 1e-12);
    ENSURE_NEAR(plane.depth, d, 1e-12);
    tch_volume_overlap o;
    ENSURE(tch_volume_integrate(&P, plane.n_A, plane.o_A, &params, tch_v3_zero(), tch_v3_zero(),
                                &o, NULL) == TCH_OK);
    ENSURE_REL(o.volume, 4 * d, 1e-12);
    ENSURE_REL(o.area.area, 4, 1e-12);
    /* eq. 7 summed: k^N V / S_c = k^N d, along n; no moment about the patch centre */
    ENSURE_REL(o.spring.force.z, params.stiffness * d, 1e-12);
    ENSURE_NEAR(o.spring.force.x, 0, 1e-12);
    /* o_c is anywhere on the face-to-face patch: move the moment to the patch centre q,
     * m_q = m_o + (o_c - q) x F */
    const tch_vec3 q = tch_v3(0.3, -0.2, 0);
    const tch_vec3 m_q =
        tch_v3_add(o.spring.moment, tch_v3_cross(tch_v3_sub(plane.o_A, q), o.spring.force));
    ENSURE(tch_v3_norm(m_q) < 1e-12 * params.stiffness * d);
    tch_polyhedron_free(&P);
    tch_hull_free(&floor);
    tch_hull_free(&cube);
}

/* A 2 x 2 block with vertical sides and a bottom sloped so that its depth in the floor is
 * d(x) = d0 + x tan(phi) (notes §9.4). */
static tch_convex_hull sloped_block(double d0, double slope) {
    tch_vec3 points[8];
    for (int i = 0; i < 4; ++i) {
        const double x = i & 1 ? 1 : -1, y = i & 2 ? 1 : -1;
        points[i] = tch_v3(x, y, 1);
        points[4 + i] = tch_v3(x, y, -(d0 + x * slope));
    }
    tch_convex_hull hull;
    tch_hull_build(points, 8, &hull, NULL);
    return hull;
}

static void test_sloped_block_gives_the_restoring_moment(void) {
    const double d0 = 0.01, slope = 0.005, L = 2;
    tch_convex_hull floor = floor_slab();
    tch_convex_hull block = sloped_block(d0, slope);
    tch_polyhedron P;
    tch_polyhedron_init(&P);
    ENSURE(tch_polyhedron_intersect(&floor, &block, tch_x_identity(), TCH_POLYHEDRON_DEFAULT, &P,
                                    NULL) == TCH_OK);
    tch_volume_overlap o;
    const tch_vec3 n = tch_v3(0, 0, 1);
    ENSURE(tch_volume_integrate(&P, n, tch_v3_zero(), &params, tch_v3_zero(), tch_v3_zero(), &o,
                                NULL) == TCH_OK);
    const double k = params.stiffness;
    /* F = k d0; m = (k/S_c) ∫ d(p) p dS x n = -y k tan(phi) L^2 / 12 */
    ENSURE_REL(o.spring.force.z, k * d0, 1e-9);
    ENSURE_REL(o.spring.moment.y, -k * slope * L * L / 12, 1e-9);
    ENSURE_NEAR(o.spring.moment.x, 0, 1e-12);
    /* centre of pressure (F x m)/|F|^2 = tan(phi) L^2 / (12 d0) along x */
    const tch_vec3 cp = tch_v3_scale(tch_v3_cross(o.spring.force, o.spring.moment),
                                     1 / tch_v3_norm2(o.spring.force));
    ENSURE_REL(cp.x, slope * L * L / (12 * d0), 1e-9);
    /* static friction: the per-triangle sums over C (top faces) equal the totals (23, 24) */
    const tch_vec3 r = tch_v3(1e-3, -2e-3, 0);
    const double theta = 0.01;
    tch_wrench sum = {tch_v3_zero(), tch_v3_zero()};
    for (int f = 0; f < P.face_count; ++f) {
        const int* loop = P.face_vertices + P.face_start[f];
        for (int i = 1; i + 1 < P.face_start[f + 1] - P.face_start[f]; ++i) {
            const tch_contact_triangle t = tch_contact_triangle_make(
                P.vertices_A[loop[0]], P.vertices_A[loop[i]], P.vertices_A[loop[i + 1]], n,
                tch_v3_zero());
            if (t.area > 0) {
                sum = tch_wrench_add(sum, tch_volume_static_triangle(&t, n, r, theta,
                                                                     params.static_stiffness,
                                                                     o.area.area));
            }
        }
    }
    const tch_wrench total = tch_volume_static_total(&o.area, n, r, theta, params.static_stiffness);
    ENSURE(tch_v3_dist(sum.force, total.force) < 1e-12 * tch_v3_norm(total.force));
    ENSURE(tch_v3_dist(sum.moment, total.moment) < 1e-12 * tch_v3_norm(total.moment));
    /* a square of side 2 about its centre: J_o = L^4 / 6 */
    ENSURE_REL(o.area.polar, L * L * L * L / 6, 1e-12);
    tch_polyhedron_free(&P);
    tch_hull_free(&floor);
    tch_hull_free(&block);
}

static void test_tilted_cube_moment_is_the_centroid_lever_arm(void) {
    /* ∫_C d(p) p dS is the first moment of P projected on the plane, so the spring acts
     * through P's centroid: m = (c_P - o_c) x F, F = k V / S_c n */
    tch_convex_hull floor = floor_slab();
    tch_convex_hull cube = fixture_box(tch_v3(1, 1, 1), tch_v3_zero());
    const tch_quat tilt = tch_q_axis_angle(tch_v3(0, 1, 0), 0.1);
    const tch_transform X_AB = {tilt, tch_v3(0.2, 0, 1.08)};
    tch_polyhedron P;
    tch_polyhedron_init(&P);
    ENSURE(tch_polyhedron_intersect(&floor, &cube, X_AB, TCH_POLYHEDRON_DEFAULT, &P, NULL) ==
           TCH_OK);
    tch_contact_plane plane;
    ENSURE(tch_contact_plane_find(&floor, &cube, X_AB, NULL, 0, &P, &plane, NULL) == TCH_OK);
    tch_volume_overlap o;
    ENSURE(tch_volume_integrate(&P, plane.n_A, plane.o_A, &params, tch_v3_zero(), tch_v3_zero(),
                                &o, NULL) == TCH_OK);
    double V;
    tch_vec3 c;
    tch_polyhedron_volume_centroid(&P, &V, &c);
    ENSURE_REL(o.volume, V, 1e-12);
    const tch_vec3 F = tch_v3_scale(plane.n_A, params.stiffness * V / o.area.area);
    ENSURE(tch_v3_dist(o.spring.force, F) < 1e-12 * tch_v3_norm(F));
    const tch_vec3 m = tch_v3_cross(tch_v3_sub(c, plane.o_A), F);
    ENSURE(tch_v3_norm(m) > 1e-3 * tch_v3_norm(F)); /* a real moment, not a zero test */
    ENSURE(tch_v3_dist(o.spring.moment, m) < 1e-10 * tch_v3_norm(m));
    /* restoring: the tilt (about +y) sank the side x > 0 deeper, so the moment about the
     * cube's centre turns it back, about -y */
    const tch_vec3 m_centre = tch_v3_add(
        o.spring.moment, tch_v3_cross(tch_v3_sub(plane.o_A, X_AB.p), o.spring.force));
    ENSURE(m_centre.y < 0);
    tch_polyhedron_free(&P);
    tch_hull_free(&floor);
    tch_hull_free(&cube);
}

static void test_damper_over_faces_equals_damper_over_contact_area(void) {
    /* notes §5.3: form (b), the spring's closed form with h -> n.v_owner, equals form (a) */
    tch_convex_hull floor = floor_slab();
    tch_convex_hull block = sloped_block(0.05, 0.02);
    tch_polyhedron P;
    tch_polyhedron_init(&P);
    ENSURE(tch_polyhedron_intersect(&floor, &block, tch_x_identity(), TCH_POLYHEDRON_DEFAULT, &P,
                                    NULL) == TCH_OK);
    const tch_vec3 n = tch_v3(0, 0, 1), o_c = tch_v3(0.1, 0.2, -0.03);
    const tch_vec3 v_B = tch_v3(0.1, 0, -0.3), w_B = tch_v3(0.2, -0.1, 0.5);
    tch_volume_overlap o;
    ENSURE(tch_volume_integrate(&P, n, o_c, &params, v_B, w_B, &o, NULL) == TCH_OK);
    tch_wrench flux = {tch_v3_zero(), tch_v3_zero()};
    for (int f = 0; f < P.face_count; ++f) {
        const int* loop = P.face_vertices + P.face_start[f];
        for (int i = 1; i + 1 < P.face_start[f + 1] - P.face_start[f]; ++i) {
            const tch_contact_triangle t = tch_contact_triangle_make(
                P.vertices_A[loop[0]], P.vertices_A[loop[i]], P.vertices_A[loop[i + 1]], n, o_c);
            double h_dot[3] = {0, 0, 0}; /* A (the floor) is at rest */
            for (int k = 0; k < 3 && P.face_owner[f] == TCH_FACE_OWNER_B; ++k) {
                h_dot[k] = tch_v3_dot(n, tch_v3_add(v_B, tch_v3_cross(w_B, t.p[k])));
            }
            flux = tch_wrench_add(
                flux, tch_volume_normal_triangle(&t, n, h_dot, params.damping, o.area.area));
        }
    }
    ENSURE(tch_v3_dist(flux.force, o.damper.force) < 1e-12 * tch_v3_norm(o.damper.force));
    ENSURE(tch_v3_dist(flux.moment, o.damper.moment) < 1e-12 * tch_v3_norm(o.damper.moment));
    /* B approaches (v_B.z < 0): the damper pushes B back out */
    ENSURE(o.damper.force.z > 0);
    tch_polyhedron_free(&P);
    tch_hull_free(&floor);
    tch_hull_free(&block);
}

static void test_spinning_square_friction_torque(void) {
    /* notes §9.9: uniform pressure on a square of side a spinning about its centre; the
     * corner-interpolated traction (14)-(16) gives the torque (sqrt 2 / 6) mu N a */
    const double a = 0.5, mu = 0.3, N = 9.8, sigma = N / (a * a), omega = 10;
    const tch_vec3 n = tch_v3(0, 0, 1);
    const tch_vec3 corners[4] = {tch_v3(-a / 2, -a / 2, 0), tch_v3(a / 2, -a / 2, 0),
                                 tch_v3(a / 2, a / 2, 0), tch_v3(-a / 2, a / 2, 0)};
    tch_vec3 tau[4];
    for (int i = 0; i < 4; ++i) {
        const tch_vec3 v_T = tch_v3_scale(tch_v3_cross(n, corners[i]), omega);
        tau[i] = tch_volume_dynamic_traction(mu, sigma, v_T);
        ENSURE_NEAR(tch_v3_norm(tau[i]), mu * sigma, 1e-12);
    }
    tch_wrench total = {tch_v3_zero(), tch_v3_zero()};
    for (int i = 1; i + 1 < 4; ++i) {
        const tch_contact_triangle t =
            tch_contact_triangle_make(corners[0], corners[i], corners[i + 1], n, tch_v3_zero());
        const tch_vec3 tri_tau[3] = {tau[0], tau[i], tau[i + 1]};
        total = tch_wrench_add(total, tch_volume_traction_triangle(&t, tri_tau));
    }
    ENSURE_REL(total.moment.z, -sqrt(2.0) / 6 * mu * N * a, 1e-9);
    ENSURE(tch_v3_norm(total.force) < 1e-12);
    ENSURE(tch_v3_norm(tch_volume_dynamic_traction(mu, sigma, tch_v3(1e-5, 0, 0))) == 0);
}

static void test_bad_parameters_and_inputs(void) {
    tch_error err;
    ENSURE(tch_volume_params_check(&params, &err) == TCH_OK);
    tch_volume_params bad = params;
    bad.stiffness = 0;
    ENSURE(tch_volume_params_check(&bad, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "k^N") && strstr(err.message, "> 0"));
    bad = params;
    bad.static_stiffness = -1;
    ENSURE(tch_volume_params_check(&bad, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "k^S") != NULL);
    bad = params;
    bad.damping = NAN;
    ENSURE(tch_volume_params_check(&bad, &err) == TCH_ERR_INVALID_ARGUMENT);
    bad = params;
    bad.friction = -0.1;
    ENSURE(tch_volume_params_check(&bad, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_volume_params_check(NULL, &err) == TCH_ERR_INVALID_ARGUMENT);
    tch_polyhedron P;
    tch_polyhedron_init(&P);
    tch_volume_overlap o;
    ENSURE(tch_volume_integrate(&P, tch_v3(0, 0, 2), tch_v3_zero(), &params, tch_v3_zero(),
                                tch_v3_zero(), &o, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "unit normal") != NULL);
    bad = params;
    bad.stiffness = -5;
    ENSURE(tch_volume_integrate(&P, tch_v3(0, 0, 1), tch_v3_zero(), &bad, tch_v3_zero(),
                                tch_v3_zero(), &o, &err) == TCH_ERR_INVALID_ARGUMENT);
    /* an empty overlap integrates to zero */
    ENSURE(tch_volume_integrate(&P, tch_v3(0, 0, 1), tch_v3_zero(), &params, tch_v3_zero(),
                                tch_v3_zero(), &o, &err) == TCH_OK);
    ENSURE(o.volume == 0 && o.area.area == 0 && tch_v3_norm(o.spring.force) == 0);
    tch_polyhedron_free(&P);
}

int main(void) {
    RUN_TEST(test_area_integrals_match_quadrature);
    RUN_TEST(test_force_kernels_match_quadrature_of_their_densities);
    RUN_TEST(test_box_pressed_flat_gives_k_d);
    RUN_TEST(test_sloped_block_gives_the_restoring_moment);
    RUN_TEST(test_tilted_cube_moment_is_the_centroid_lever_arm);
    RUN_TEST(test_damper_over_faces_equals_damper_over_contact_area);
    RUN_TEST(test_spinning_square_friction_torque);
    RUN_TEST(test_bad_parameters_and_inputs);
    return TEST_RESULT();
}
