/* Wrench and energy of the pressure field model: conservation (Theorem 1: zero work around a
 * closed path in and out of contact, force and moment = -gradient of the energy), continuity
 * across element boundaries (appendix X-C), quadrature exactness, dissipation and friction. */
#include "test.h"
#include "test_pressure_fixtures.h"

/* One of the two set-ups: compliant A against a rigid box B, or against a compliant B. */
typedef struct pair_setup {
    fixture_body a, b;
    fixture_rigid_box rigid;
    int is_rigid;
    tch_pressure_surface surface;
    tch_pressure_traction_params params;
} pair_setup;

/* A: sphere R = 1 (E 1e5). Rigid B: a box (3, 3, 1) with triangles of 0.5 m; compliant B: a
 * sphere R = 0.8 (E 2e5). */
static int setup_make(pair_setup* ps, int is_rigid, tch_real resolution) {
    *ps = (pair_setup){.is_rigid = is_rigid};
    tch_pressure_surface_init(&ps->surface);
    ps->params = tch_pressure_traction_params_default();
    ps->params.quadrature = TCH_PRESSURE_QUADRATURE_THREE_POINT;
    if (fixture_sphere(&ps->a, 1, resolution, 1e5) != 0) {
        return -1;
    }
    if (is_rigid) {
        return fixture_rigid_box_make(&ps->rigid, tch_v3(3, 3, 1), 0.5);
    }
    return fixture_sphere(&ps->b, 0.8, resolution, 2e5);
}

static void setup_free(pair_setup* ps) {
    tch_pressure_surface_free(&ps->surface);
    fixture_body_free(&ps->a);
    if (ps->is_rigid) {
        fixture_rigid_box_free(&ps->rigid);
    } else {
        fixture_body_free(&ps->b);
    }
}

/* The static wrench on B at pose X_AB, with its moment about B's origin. */
static tch_wrench setup_wrench(pair_setup* ps, tch_transform X_AB) {
    tch_wrench w = {{0, 0, 0}, {0, 0, 0}};
    tch_status status =
        ps->is_rigid
            ? tch_pressure_surface_rigid(&ps->a.body, &ps->rigid.surface, X_AB, &ps->surface, NULL)
            : tch_pressure_surface_compliant(&ps->a.body, &ps->b.body, X_AB, &ps->surface, NULL);
    if (status == TCH_OK) {
        tch_pressure_wrench(&ps->surface, &ps->params, NULL, &w, NULL);
    }
    return tch_pressure_wrench_about(w, X_AB.p);
}

static tch_real setup_energy(const pair_setup* ps, tch_transform X_AB) {
    tch_real U = NAN;
    if (ps->is_rigid) {
        tch_pressure_energy_rigid_convex(&ps->a.body, ps->rigid.planes, 6, X_AB, &U, NULL);
    } else {
        tch_pressure_energy_compliant(&ps->a.body, &ps->b.body, X_AB, &U, NULL);
    }
    return U;
}

/* A closed loop of B's pose, in and out of contact: its origin goes round a tilted ellipse
 * about `centre` while B turns back and forth about a fixed axis through its origin. */
static const tch_vec3 loop_axis = {0.36, 0.48, 0.8};

static tch_transform loop_pose(tch_vec3 centre, tch_vec3 reach, tch_real s) {
    tch_real t = 2 * TCH_PI * s;
    tch_vec3 p = tch_v3_add(centre, tch_v3(reach.x * cos(t), 0.1 * sin(2 * t), reach.z * sin(t)));
    return fixture_pose(p, loop_axis, 0.25 * sin(t));
}

/* The work of the pressure wrench on B along the loop, trapezoid rule over `steps` steps:
 * W = Σ ½ (F_i + F_i+1) · Δp + ½ (M_i + M_i+1) · axis Δθ, M about B's origin. */
static void loop_work(pair_setup* ps, tch_vec3 centre, tch_vec3 reach, int steps, tch_real* work,
                      tch_real* peak_energy, int* contact_changes) {
    tch_transform X0 = loop_pose(centre, reach, 0);
    tch_wrench w0 = setup_wrench(ps, X0);
    tch_real angle0 = 0, sum = 0, peak = 0;
    int touching0 = ps->surface.polygon_count > 0, changes = 0;
    for (int i = 1; i <= steps; ++i) {
        tch_real s = (tch_real)i / steps;
        tch_transform X1 = loop_pose(centre, reach, s);
        tch_wrench w1 = setup_wrench(ps, X1);
        tch_real angle1 = 0.25 * sin(2 * TCH_PI * s);
        tch_vec3 F = tch_v3_scale(tch_v3_add(w0.force, w1.force), 0.5);
        tch_vec3 M = tch_v3_scale(tch_v3_add(w0.moment, w1.moment), 0.5);
        sum += tch_v3_dot(F, tch_v3_sub(X1.p, X0.p)) +
               tch_v3_dot(M, loop_axis) * (angle1 - angle0);
        int touching1 = ps->surface.polygon_count > 0;
        changes += touching1 != touching0;
        if (i % 50 == 0) {
            peak = fmax(peak, setup_energy(ps, X1));
        }
        X0 = X1, w0 = w1, angle0 = angle1, touching0 = touching1;
    }
    *work = sum;
    *peak_energy = peak;
    *contact_changes = changes;
}

static void check_closed_loop(int is_rigid, tch_vec3 centre, tch_vec3 reach) {
    pair_setup ps;
    ENSURE(setup_make(&ps, is_rigid, 0.4) == 0);
    tch_real work, peak;
    int changes;
    const int steps = 4000;
    loop_work(&ps, centre, reach, steps, &work, &peak, &changes);
    printf("%s: closed loop of %d steps, work %.3e J, peak energy %.6g J, ratio %.2e, "
           "%d contact changes\n",
           is_rigid ? "sphere-rigid box" : "sphere-sphere", steps, work, peak,
           fabs(work) / peak, changes);
    ENSURE(changes == 2); /* out of contact, in, and out again */
    ENSURE(peak > 0);
    ENSURE(fabs(work) <= 1e-6 * peak);
    setup_free(&ps);
}

static void test_zero_work_around_loop_rigid(void) {
    /* the ground's top face is z = 0 in B; B's origin dips to 0.4 below A's bottom, z = -1 */
    check_closed_loop(1, tch_v3(0.05, 0, -1 - 1 + 0.15), tch_v3(0.3, 0, 0.25));
}

static void test_zero_work_around_loop_compliant(void) {
    check_closed_loop(0, tch_v3(1.8 - 0.15, 0.05, 0.1), tch_v3(0.25, 0, 0.3));
}

/* F = -∂U/∂p and M = -∂U/∂θ (rotations of B about its origin), central differences. */
static void check_gradient(int is_rigid, tch_transform X) {
    pair_setup ps;
    ENSURE(setup_make(&ps, is_rigid, 0.3) == 0);
    tch_wrench w = setup_wrench(&ps, X);
    tch_vec3 F_fd = tch_v3_zero(), M_fd = tch_v3_zero();
    const tch_real h = 1e-6;
    for (int k = 0; k < 3; ++k) {
        tch_vec3 e = tch_v3_zero();
        tch_v3_set(&e, k, 1);
        tch_transform plus = X, minus = X;
        plus.p = tch_v3_madd(X.p, h, e);
        minus.p = tch_v3_madd(X.p, -h, e);
        tch_v3_set(&F_fd, k, -(setup_energy(&ps, plus) - setup_energy(&ps, minus)) / (2 * h));
        plus = X, minus = X;
        plus.q = tch_q_mul(tch_q_axis_angle(e, h), X.q);
        minus.q = tch_q_mul(tch_q_axis_angle(e, -h), X.q);
        tch_v3_set(&M_fd, k, -(setup_energy(&ps, plus) - setup_energy(&ps, minus)) / (2 * h));
    }
    tch_real F = tch_v3_norm(w.force);
    tch_real F_err = tch_v3_norm(tch_v3_sub(F_fd, w.force)) / F;
    tch_real M_err = tch_v3_norm(tch_v3_sub(M_fd, w.moment)) / fmax(tch_v3_norm(w.moment), F);
    printf("%s: F = (%.6g, %.6g, %.6g) N, M = (%.6g, %.6g, %.6g) N m, relative error of the "
           "finite differences: F %.2e, M %.2e\n",
           is_rigid ? "sphere-rigid box" : "sphere-sphere", w.force.x, w.force.y, w.force.z,
           w.moment.x, w.moment.y, w.moment.z, F_err, M_err);
    ENSURE(F > 0);
    ENSURE(F_err <= 1e-4);
    ENSURE(M_err <= 1e-4);
    setup_free(&ps);
}

static void test_force_is_minus_energy_gradient(void) {
    tch_vec3 axis = tch_v3_normalize(tch_v3(1, -2, 0.5));
    check_gradient(1, fixture_pose(tch_v3(0.13, -0.07, -2 + 0.3), axis, 0.2));
    check_gradient(0, fixture_pose(tch_v3(1.55, 0.21, -0.12), axis, 0.6));
}

/* ---- continuity (appendix X-C) ---- */

static int compare_reals(const void* a, const void* b) {
    tch_real x = *(const tch_real*)a, y = *(const tch_real*)b;
    return (x > y) - (x < y);
}

/* Sweeps B through `steps` poses (sliding across A's elements while pressing in and turning)
 * and compares each step's change of the wrench with the median change. */
static void check_sweep(int is_rigid, tch_vec3 from, tch_vec3 to, int steps) {
    pair_setup ps;
    ENSURE(setup_make(&ps, is_rigid, 0.5) == 0);
    ps.params.quadrature = TCH_PRESSURE_QUADRATURE_CENTROID;
    tch_real* change = malloc(sizeof *change * (size_t)steps);
    ENSURE(change != NULL);
    tch_vec3 axis = tch_v3_normalize(tch_v3(0.3, 1, 0.2));
    tch_wrench previous = {{0, 0, 0}, {0, 0, 0}};
    int previous_vertices = -1, vertex_changes = 0, min_polygons = 1 << 30;
    for (int i = 0; i <= steps; ++i) {
        tch_real s = (tch_real)i / steps;
        tch_wrench w = setup_wrench(&ps, fixture_pose(tch_v3_lerp(from, to, s), axis, 0.8 * s));
        if (i > 0) {
            change[i - 1] = tch_v3_norm(tch_v3_sub(w.force, previous.force)) +
                            tch_v3_norm(tch_v3_sub(w.moment, previous.moment));
        }
        vertex_changes += previous_vertices >= 0 && ps.surface.vertex_count != previous_vertices;
        previous_vertices = ps.surface.vertex_count;
        min_polygons = ps.surface.polygon_count < min_polygons ? ps.surface.polygon_count
                                                               : min_polygons;
        previous = w;
    }
    tch_real largest = 0;
    for (int i = 0; i < steps; ++i) {
        largest = fmax(largest, change[i]);
    }
    tch_real* sorted = malloc(sizeof *sorted * (size_t)steps);
    ENSURE(sorted != NULL);
    memcpy(sorted, change, sizeof *sorted * (size_t)steps);
    qsort(sorted, (size_t)steps, sizeof *sorted, compare_reals);
    tch_real median = sorted[steps / 2];
    free(sorted);
    printf("%s sweep: %d poses, at least %d polygons, %d changes of the vertex count; "
           "largest step change %.4g, median %.4g, ratio %.2f\n",
           is_rigid ? "sphere-rigid box" : "sphere-sphere", steps, min_polygons, vertex_changes,
           largest, median, largest / median);
    ENSURE(min_polygons > 0);
    ENSURE(vertex_changes > 100);
    ENSURE(median > 0);
    ENSURE(largest <= 10 * median);
    free(change);
    setup_free(&ps);
}

static void test_wrench_continuous_across_elements(void) {
    check_sweep(1, tch_v3(-0.4, -0.2, -2 + 0.1), tch_v3(0.5, 0.3, -2 + 0.35), 10000);
    check_sweep(0, tch_v3(1.7, -0.3, -0.2), tch_v3(1.5, 0.3, 0.25), 10000);
}

/* A compliant sphere (R 0.5 m, h 0.1 m) and a coarse compliant box (half sizes 1, 1, 0.5; the
 * paper's 12 tets around the centre, whose top pyramid is cut in two along a diagonal plane),
 * E 1e5 Pa both (issue 12 item 5). */
typedef struct sphere_on_box {
    fixture_body box, sphere;
    tch_pressure_surface surface;
    tch_pressure_traction_params params;
} sphere_on_box;

static int sphere_on_box_make(sphere_on_box* sb) {
    tch_pressure_surface_init(&sb->surface);
    sb->params = tch_pressure_traction_params_default();
    if (fixture_box(&sb->box, tch_v3(1, 1, 0.5), 0, 1e5) != 0) {
        return -1;
    }
    return fixture_sphere(&sb->sphere, 0.5, 0.1, 1e5);
}

static void sphere_on_box_free(sphere_on_box* sb) {
    tch_pressure_surface_free(&sb->surface);
    fixture_body_free(&sb->box);
    fixture_body_free(&sb->sphere);
}

/* The net force on the sphere with its centre at p in the box's frame, turned by `angle`. */
static tch_vec3 sphere_on_box_force(sphere_on_box* sb, tch_vec3 p, tch_real angle) {
    tch_transform X = fixture_pose(p, tch_v3_normalize(tch_v3(0.3, 1, 0.2)), angle);
    tch_wrench w = {{0, 0, 0}, {0, 0, 0}};
    if (tch_pressure_surface_compliant(&sb->box.body, &sb->sphere.body, X, &sb->surface, NULL) ==
        TCH_OK) {
        tch_pressure_wrench(&sb->surface, &sb->params, NULL, &w, NULL);
    }
    return w.force;
}

/* 300 poses sliding the sphere across the box's top, over the diagonal plane between its two
 * top tets and along the pyramid edges, while pressing in from 2.5 to 10 cm and turning: the
 * largest step change of the net force is within 5x the median step change. */
static void test_sphere_swept_over_coarse_box(void) {
    sphere_on_box sb;
    ENSURE(sphere_on_box_make(&sb) == 0);
    enum { steps = 300 };
    tch_real change[steps], sorted[steps];
    tch_vec3 previous = tch_v3_zero();
    for (int i = 0; i <= steps; ++i) {
        tch_real s = (tch_real)i / steps;
        tch_vec3 p = tch_v3(-0.8 + 1.6 * s, 0.1 + 0.3 * s, 1 - 0.025 - 0.075 * s);
        tch_vec3 F = sphere_on_box_force(&sb, p, 0.5 * s);
        if (i > 0) {
            change[i - 1] = tch_v3_norm(tch_v3_sub(F, previous));
        }
        previous = F;
    }
    memcpy(sorted, change, sizeof sorted);
    qsort(sorted, steps, sizeof *sorted, compare_reals);
    tch_real median = sorted[steps / 2], largest = sorted[steps - 1];
    printf("sphere over a coarse box: %d poses, |F| at the end %.6g N, largest step change "
           "%.4g N, median %.4g N, ratio %.2f\n",
           steps + 1, tch_v3_norm(previous), largest, median, largest / median);
    ENSURE(median > 0 && largest <= 5 * median);
    sphere_on_box_free(&sb);
}

/* Poses where the sphere's vertices lie exactly on the planes of the box's tets (its centre on
 * the box's axis, on the diagonal plane between the top tets, over a pyramid edge), so that the
 * equal-pressure planes pass exactly through vertices and edges and polygons lie in tet faces:
 * the force equals the mean over the poses 1e-7 m around, within 1e-6 of the force (a piece
 * missed or counted twice would show at 1e-2 or more). */
static void test_exact_alignments_match_their_neighbours(void) {
    sphere_on_box sb;
    ENSURE(sphere_on_box_make(&sb) == 0);
    const tch_vec3 centres[] = {{0, 0, 0.9}, {0.25, 0.25, 0.9}, {-0.5, 0.5, 0.92},
                                {0.6, 0.6, 0.95}, {0.75, 0, 0.9}, {1, 0, 0.9}, {0.5, 0.5, 1}};
    const tch_real delta = 1e-7;
    tch_real worst = 0;
    for (size_t c = 0; c < sizeof centres / sizeof centres[0]; ++c) {
        tch_vec3 F = sphere_on_box_force(&sb, centres[c], 0);
        tch_vec3 mean = tch_v3_zero();
        for (int k = 0; k < 6; ++k) {
            tch_vec3 e = tch_v3_zero();
            tch_v3_set(&e, k / 2, k % 2 ? delta : -delta);
            mean = tch_v3_madd(mean, 1.0 / 6, sphere_on_box_force(&sb, tch_v3_add(centres[c], e), 0));
        }
        ENSURE(tch_v3_norm(F) > 0);
        worst = fmax(worst, tch_v3_norm(tch_v3_sub(F, mean)) / tch_v3_norm(F));
    }
    printf("exact alignments: largest difference from the neighbours' mean %.2e of |F|\n", worst);
    ENSURE(worst < 1e-6);
    sphere_on_box_free(&sb);
}

/* ---- quadrature, dissipation and friction ---- */

/* ∫ p x dA over a triangle with p linear, exactly: A [ (3/4) p̄ x̄ + (1/12) Σ p_i x_i ]. */
static tch_vec3 exact_first_moment(const tch_vec3 x[3], const tch_real p[3], tch_real area) {
    tch_vec3 x_mean = tch_v3_scale(tch_v3_add(x[0], tch_v3_add(x[1], x[2])), 1.0 / 3);
    tch_real p_mean = (p[0] + p[1] + p[2]) / 3;
    tch_vec3 sum = tch_v3_scale(x_mean, 0.75 * p_mean);
    for (int i = 0; i < 3; ++i) {
        sum = tch_v3_madd(sum, p[i] / 12, x[i]);
    }
    return tch_v3_scale(sum, area);
}

static void test_three_point_rule_exact_for_moment(void) {
    pair_setup ps;
    ENSURE(setup_make(&ps, 0, 0.3) == 0);
    tch_transform X = fixture_pose(tch_v3(1.5, 0.3, -0.2), tch_v3_normalize(tch_v3(1, 1, 1)), 0.5);
    tch_wrench three = setup_wrench(&ps, X);
    ps.params.quadrature = TCH_PRESSURE_QUADRATURE_CENTROID;
    tch_wrench one = setup_wrench(&ps, X);
    tch_wrench exact = {{0, 0, 0}, {0, 0, 0}};
    const tch_pressure_surface* s = &ps.surface;
    for (int k = 0; k < s->polygon_count; ++k) {
        const tch_pressure_polygon* poly = &s->polygons[k];
        for (int i = 0; i < poly->count; ++i) {
            tch_vec3 x[3];
            tch_real p[3];
            tch_pressure_fan_triangle(s, poly, i, x, p);
            tch_real area = tch_v3_norm(tch_v3_cross(tch_v3_sub(x[1], x[0]),
                                                     tch_v3_sub(x[2], x[0]))) / 2;
            tch_real p_mean = (p[0] + p[1] + p[2]) / 3;
            exact.force = tch_v3_madd(exact.force, area * p_mean, poly->normal_A);
            exact.moment = tch_v3_add(exact.moment, tch_v3_cross(exact_first_moment(x, p, area),
                                                                  poly->normal_A));
        }
    }
    exact = tch_pressure_wrench_about(exact, X.p);
    tch_real F = tch_v3_norm(exact.force);
    tch_real err3 = tch_v3_norm(tch_v3_sub(three.moment, exact.moment)) / F;
    tch_real err1 = tch_v3_norm(tch_v3_sub(one.moment, exact.moment)) / F;
    printf("moment error / |F|: three-point %.2e m, centroid %.2e m\n", err3, err1);
    ENSURE(tch_v3_norm(tch_v3_sub(three.force, exact.force)) <= 1e-12 * F);
    ENSURE(tch_v3_norm(tch_v3_sub(one.force, exact.force)) <= 1e-12 * F);
    ENSURE(err3 <= 1e-12);
    ENSURE(err1 > err3);
    setup_free(&ps);
}

/* The sphere on the rigid ground: every normal is -z, so with a uniform velocity the
 * dissipation and friction scale the static force exactly. */
static void test_dissipation_and_friction(void) {
    pair_setup ps;
    ENSURE(setup_make(&ps, 1, 0.3) == 0);
    tch_transform X = fixture_pose(tch_v3(0, 0, -2 + 0.3), loop_axis, 0);
    tch_wrench rest = setup_wrench(&ps, X);
    tch_real F0 = -rest.force.z;
    ENSURE(F0 > 0);
    ps.params.dissipation = 2;
    ps.params.friction = 0.4;
    ps.params.stiction_speed = 0.01;
    /* B slides along +x at 0.3 m/s and approaches A (moves up, +z) at 0.1 m/s: v_n = -0.1 */
    tch_pressure_motion motion = {X.p, {0.3, 0, 0.1}, {0, 0, 0}};
    tch_wrench w;
    ENSURE(tch_pressure_wrench(&ps.surface, &ps.params, &motion, &w, NULL) == TCH_OK);
    tch_real normal = F0 * (1 + 2 * 0.1);
    ENSURE_REL(-w.force.z, normal, 1e-12);
    ENSURE_REL(w.force.x, -0.4 * normal * 0.3 / sqrt(0.09 + 1e-4), 1e-12);
    ENSURE_NEAR(w.force.y, 0, 1e-12 * F0);
    /* separating faster than 1/χ: the traction is clamped to zero, never pulling */
    motion.v_A = tch_v3(0.3, 0, -0.6);
    ENSURE(tch_pressure_wrench(&ps.surface, &ps.params, &motion, &w, NULL) == TCH_OK);
    ENSURE(tch_v3_norm(w.force) == 0);
    /* spinning about the axis: friction makes a moment opposing the spin, no net force */
    motion = (tch_pressure_motion){tch_v3(0, 0, X.p.z + 1), {0, 0, 0}, {0, 0, 3}};
    ENSURE(tch_pressure_wrench(&ps.surface, &ps.params, &motion, &w, NULL) == TCH_OK);
    ENSURE(w.moment.z < -0.01 * F0);
    ENSURE(fabs(w.force.x) + fabs(w.force.y) < 0.01 * 0.4 * F0);
    /* point traction */
    tch_vec3 T = tch_pressure_traction(10, tch_v3(0, 0, 1), tch_v3(0, 0.01, 0), &ps.params);
    ENSURE_NEAR(T.z, 10, 1e-12);
    ENSURE_NEAR(T.y, -0.4 * 10 * 0.01 / sqrt(2e-4), 1e-12);
    ENSURE_NEAR(tch_pressure_combine_dissipation(1, 2, 1, 4), 3, 1e-15);
    ENSURE_NEAR(tch_pressure_combine_dissipation(1, 1, 3, 0), 0.75, 1e-15);
    ENSURE(tch_pressure_combine_dissipation(1e5, 0.2, INFINITY, 7) == 0.2);
    ENSURE(tch_pressure_combine_dissipation(INFINITY, 7, 1e5, 0.2) == 0.2);
    setup_free(&ps);
}

static void test_wrench_helpers(void) {
    tch_wrench w = {{1, 2, 3}, {-1, 0.5, 2}};
    tch_vec3 o = {0.3, -0.2, 0.7};
    tch_wrench about = tch_pressure_wrench_about(w, o);
    /* M_o = M - o × F */
    tch_vec3 expect = tch_v3_sub(w.moment, tch_v3_cross(o, w.force));
    ENSURE_NEAR(tch_v3_dist(about.moment, expect), 0, 1e-15);
    tch_transform X = fixture_pose(tch_v3(1, 2, 3), tch_v3_normalize(tch_v3(1, 0, 1)), 0.9);
    tch_wrench in_A = tch_pressure_wrench_to_frame(w, X);
    /* a force through B's origin keeps a zero moment about B's origin, i.e. about p_AB */
    tch_wrench pure = tch_pressure_wrench_to_frame((tch_wrench){{1, 2, 3}, {0, 0, 0}}, X);
    ENSURE_NEAR(tch_v3_norm(tch_pressure_wrench_about(pure, X.p).moment), 0, 1e-14);
    ENSURE_NEAR(tch_v3_norm(in_A.force), tch_v3_norm(w.force), 1e-14);
    tch_rigid_plane planes[6];
    tch_rigid_box_planes(tch_v3(1, 2, 3), planes);
    ENSURE(planes[3].normal.y == -1 && planes[3].offset == 2);
}

/* The energy of two cubes [-1, 1]^3 overlapping d = 0.3 face to face (B at x = 2 - d), equal
 * moduli. The box fields are ε = 1 - max(|x|, |y|, |z|) about each centre, so in the overlap
 * min(ε_A, ε_B) = 1 - max(m(x), |y|, |z|) with m = max(x, 2 - d - x) in [1 - d/2, 1]; over the
 * face, ∫∫ (1 - max(m, |y|, |z|)) dy dz = (4/3)(1 - m³), and
 *     U = 2 E ∫_{1-d/2}^1 (4/3)(1 - m³) dm = (8E/3) [m - m⁴/4]_{1-d/2}^1.
 * The mesh reproduces the field exactly, so U does too. A rigid B (E_B = 1e12 or the rigid
 * planes) gives ∫ p_A over the overlap instead, the same for both. */
static void test_energy_closed_form_and_rigid_limit(void) {
    fixture_body a, b, stiff;
    fixture_rigid_box rigid;
    tch_vec3 h = {1, 1, 1};
    const tch_real E = 1e5, d = 0.3;
    ENSURE(fixture_box(&a, h, 0.25, E) == 0);
    ENSURE(fixture_box(&b, h, 0.25, E) == 0);
    ENSURE(fixture_box(&stiff, h, 0.25, 1e12) == 0);
    ENSURE(fixture_rigid_box_make(&rigid, h, 0.25) == 0);
    tch_real U;
    tch_transform aligned = fixture_pose(tch_v3(2 - d, 0, 0), loop_axis, 0);
    ENSURE(tch_pressure_energy_compliant(&a.body, &b.body, aligned, &U, NULL) == TCH_OK);
    tch_real m0 = 1 - d / 2;
    tch_real closed = 8 * E / 3 * (0.75 - (m0 - m0 * m0 * m0 * m0 / 4));
    printf("energy of two cubes overlapping %g: %.12g J, closed form %.12g J\n", d, U, closed);
    ENSURE_REL(U, closed, 1e-9);

    tch_transform X = fixture_pose(tch_v3(1.7, 0.3, -0.2), loop_axis, 0.2);
    tch_real U_stiff, U_rigid;
    ENSURE(tch_pressure_energy_compliant(&a.body, &stiff.body, X, &U_stiff, NULL) == TCH_OK);
    ENSURE(tch_pressure_energy_rigid_convex(&a.body, rigid.planes, 6, X, &U_rigid, NULL) ==
           TCH_OK);
    printf("energy: rigid %.9g J, E_B = 1e12 %.9g J\n", U_rigid, U_stiff);
    ENSURE(U_rigid > 0);
    ENSURE_REL(U_stiff, U_rigid, 1e-5);
    fixture_rigid_box_free(&rigid);
    fixture_body_free(&stiff);
    fixture_body_free(&a);
    fixture_body_free(&b);
}

int main(void) {
    RUN_TEST(test_force_is_minus_energy_gradient);
    RUN_TEST(test_zero_work_around_loop_rigid);
    RUN_TEST(test_zero_work_around_loop_compliant);
    RUN_TEST(test_wrench_continuous_across_elements);
    RUN_TEST(test_sphere_swept_over_coarse_box);
    RUN_TEST(test_exact_alignments_match_their_neighbours);
    RUN_TEST(test_three_point_rule_exact_for_moment);
    RUN_TEST(test_dissipation_and_friction);
    RUN_TEST(test_wrench_helpers);
    RUN_TEST(test_energy_closed_form_and_rigid_limit);
    return TEST_RESULT();
}
