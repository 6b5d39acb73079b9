/* Symmetric bodies stay symmetric in contact (issue 11, "What must hold"): a box and a
 * 128-vertex prism dropped flat at any yaw keep zero sideways velocity and zero yaw rate, a
 * prism dropped on its rim stays in its plane, a box slid in any direction stops where
 * Coulomb's closed form says, and the Lemke problems of a rim impact, which used to end on a
 * secondary ray, are solved. */

#include "base/arena.h"
#include "lemke_rim_problems.h"
#include "math/vec.h"
#include "scene_builder.h"
#include "solver/lemke.h"
#include "test.h"

static const double G = 9.81;
static const double MU = 0.5;

enum { RING = 128 };

/* A 128-vertex elliptic prism (semi-axes a along x and b along z of its frame, thickness 2 t
 * along y) as a mesh asset named "ring". */
static void add_ring_mesh(tch_spec* spec, double a, double b, double t) {
    tch_vec3 vertices[2 * RING];
    for (int k = 0; k < RING; ++k) {
        const double angle = 2 * TCH_PI * k / RING;
        vertices[k] = (tch_vec3){a * cos(angle), -t, b * sin(angle)};
        vertices[RING + k] = (tch_vec3){a * cos(angle), t, b * sin(angle)};
    }
    tch_mesh_def mesh = tch_mesh_def_default();
    snprintf(mesh.name, sizeof mesh.name, "ring");
    mesh.vertices = vertices;
    mesh.vertex_count = 2 * RING;
    tch_spec_add_mesh(spec, &mesh, NULL, NULL);
}

typedef enum body_shape { BOX, RING_FLAT, RING_ON_RIM } body_shape;

/* A spec with the floor and one body of `shape` at orientation q, its lowest point 1 mm
 * above the floor; the contact model and lcp solver given, the defaults otherwise (the lcp
 * model's default 5 mm margin). */
static tch_model* drop_scene(body_shape shape, tch_quat q, double lowest, tch_contact_model model,
                             tch_lcp_solver solver) {
    tch_spec* spec = test_spec(G, 2e-3, TCH_INTEGRATOR_AUTO);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = model;
    opt.lcp_solver = solver;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), MU);
    const tch_vec3 p = {0, 0, lowest + 0.001};
    if (shape == BOX) {
        test_add_body(spec, "body", TCH_GEOM_BOX, (tch_vec3){0.1, 0.07, 0.05}, 0.1, p, q);
        return test_compile(spec);
    }
    add_ring_mesh(spec, 0.07, 0.045, 0.005);
    tch_body_def body = tch_body_def_default();
    snprintf(body.name, sizeof body.name, "body");
    body.free_joint = true;
    body.p_PB = p;
    body.q_PB = q;
    tch_body_id id = {0};
    tch_spec_add_body(spec, &body, &id, NULL);
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_MESH;
    g.mesh = tch_spec_find_mesh(spec, "ring");
    g.mass = 0.1;
    tch_spec_add_geom(spec, id, &g, NULL, NULL);
    return test_compile(spec);
}

/* The largest sideways speed (along `side`, or horizontal when side is zero) and the largest
 * angular speed about the axes `spin` must stay zero on (yaw: z; on a rim also the roll axis)
 * over 0.03 s from a drop at 2 m/s. */
typedef struct drop_motion {
    double sideways;
    double turning;
    int failed_islands;
} drop_motion;

static drop_motion drop(const tch_model* m, tch_vec3 side, tch_vec3 roll_axis) {
    drop_motion out = {0, 0, 0};
    tch_data* d = NULL;
    if (tch_data_create(m, &d, NULL) != TCH_OK) {
        out.sideways = INFINITY;
        return out;
    }
    d->qvel[2] = -2;
    for (int i = 0; i < 15; ++i) {
        if (tch_step(m, d, NULL) != TCH_OK) {
            out.sideways = INFINITY;
            break;
        }
        const tch_vec3 v = d->body_v_WCm[1], w = d->body_w_W[1];
        const double horizontal = tch_v3_norm2(side) > 0 ? fabs(tch_v3_dot(v, side)) : hypot(v.x, v.y);
        out.sideways = fmax(out.sideways, horizontal);
        out.turning = fmax(out.turning, fmax(fabs(w.z), fabs(tch_v3_dot(w, roll_axis))));
        out.failed_islands += d->constraint_failed_islands;
    }
    tch_data_destroy(d);
    return out;
}

static const double YAWS[] = {0, 0.3, 0.7854, 1.1, 2.0, 4.0};
enum { YAW_COUNT = sizeof YAWS / sizeof YAWS[0] };

/* Dropped flat (a face down) at each yaw, with `lcp` (PGS, the default, and Lemke) and
 * `point`: sideways speed below 1e-6 m/s and yaw and tilting rates below 1e-6 rad/s (measured:
 * below 6e-9 m/s and 2e-7 rad/s with PGS, 1e-12 with Lemke and point). */
static void check_level_drops(body_shape shape) {
    const struct {
        tch_contact_model model;
        tch_lcp_solver solver;
    } runs[3] = {{TCH_CONTACT_LCP, TCH_LCP_SOLVER_PGS},
                 {TCH_CONTACT_LCP, TCH_LCP_SOLVER_LEMKE},
                 {TCH_CONTACT_POINT, TCH_LCP_SOLVER_PGS}};
    for (int r = 0; r < 3; ++r) {
        for (int y = 0; y < YAW_COUNT; ++y) {
            tch_quat yaw = tch_q_axis_angle(tch_v3(0, 0, 1), YAWS[y]);
            tch_quat q = shape == BOX ? yaw
                                      : tch_q_mul(yaw, tch_q_axis_angle(tch_v3(1, 0, 0), TCH_PI / 2));
            tch_model* m = drop_scene(shape, q, shape == BOX ? 0.05 : 0.005, runs[r].model,
                                      runs[r].solver);
            ENSURE(m != NULL);
            const drop_motion motion = drop(m, tch_v3_zero(), tch_v3(0, 0, 0));
            tch_model_destroy(m);
            if (motion.sideways >= 1e-6 || motion.turning >= 1e-6) {
                fprintf(stderr, "shape %d run %d yaw %g: sideways %g m/s, turning %g rad/s\n",
                        shape, r, YAWS[y], motion.sideways, motion.turning);
            }
            ENSURE(motion.sideways < 1e-6);
            ENSURE(motion.turning < 1e-6);
        }
    }
}

static void test_box_dropped_flat_stays_level(void) {
    check_level_drops(BOX);
}

static void test_ring_dropped_flat_stays_level(void) {
    check_level_drops(RING_FLAT);
}

/* The prism dropped on its rim (a planar impact: the ellipse upright, tilted 0.2-0.5 rad in its
 * plane, at each yaw), with `model` (for `lcp` its default solver): no sideways speed (below 1e-6 m/s) and no
 * yaw or roll (below 2e-5 rad/s: PGS leaves its rows' residual, about 1e-6 m/s at the rim's
 * twins 1 cm apart). Before the reduction kept twins: 0.19 m/s and 4 rad/s. */
static void check_rim_drops(tch_contact_model model) {
    for (int y = 0; y < YAW_COUNT; ++y) {
        const double tilt = 0.2 + 0.05 * y;
        tch_quat q = tch_q_mul(tch_q_axis_angle(tch_v3(0, 0, 1), YAWS[y]),
                               tch_q_axis_angle(tch_v3(0, 1, 0), tilt));
        const double lowest = hypot(0.07 * sin(tilt), 0.045 * cos(tilt));
        tch_model* m = drop_scene(RING_ON_RIM, q, lowest, model, TCH_LCP_SOLVER_PGS);
        ENSURE(m != NULL);
        const tch_vec3 axis = tch_q_rotate(q, tch_v3(0, 1, 0));
        const tch_vec3 roll = tch_v3_normalize(tch_v3(axis.y, -axis.x, 0));
        const drop_motion motion = drop(m, axis, roll);
        tch_model_destroy(m);
        if (motion.sideways >= 1e-6 || motion.turning >= 2e-5) {
            fprintf(stderr, "rim, model %d, yaw %g: sideways %g m/s, yaw/roll %g rad/s\n", model,
                    YAWS[y], motion.sideways, motion.turning);
        }
        ENSURE(motion.sideways < 1e-6);
        ENSURE(motion.turning < 2e-5);
        ENSURE(motion.failed_islands == 0);
    }
}

static void test_ring_dropped_on_its_rim_stays_planar(void) {
    check_rim_drops(TCH_CONTACT_LCP);
}

/* The same drops with `point`: its friction sweeps are blind to the points' order
 * (contact/friction.c), so the rim's twins get mirrored forces (with point-by-point
 * Gauss-Seidel: 3-7 mm/s sideways and 0.3-1.3 rad/s of yaw or roll). */
static void test_ring_dropped_on_its_rim_stays_planar_with_point(void) {
    check_rim_drops(TCH_CONTACT_POINT);
}

/* A 0.2 x 0.14 x 0.1 m box at yaw `yaw` launched at 2 m/s along `heading` on the floor
 * (mu = 0.5): the distance it slides until it stops (0.5 s). */
static double slide_distance(double yaw, double heading, tch_lcp_solver solver) {
    tch_model* m = drop_scene(BOX, tch_q_axis_angle(tch_v3(0, 0, 1), yaw), 0.05 - 0.001,
                              TCH_CONTACT_LCP, solver);
    if (!m) {
        return NAN;
    }
    tch_data* d = NULL;
    if (tch_data_create(m, &d, NULL) != TCH_OK) {
        tch_model_destroy(m);
        return NAN;
    }
    const double v0 = 2;
    d->qvel[0] = v0 * cos(heading);
    d->qvel[1] = v0 * sin(heading);
    const tch_vec3 start = d->body_X_WB[1].p;
    for (int i = 0; i < 250; ++i) {
        if (tch_step(m, d, NULL) != TCH_OK) {
            break;
        }
    }
    const tch_vec3 end = d->body_X_WB[1].p;
    tch_data_destroy(d);
    tch_model_destroy(m);
    return hypot(end.x - start.x, end.y - start.y);
}

/* Slid in 16 directions at 3 yaws with `lcp` (PGS, its disc friction): every distance within
 * 1% of every other and of Coulomb's v0^2 / (2 mu g) = 0.408 m (semi-implicit Euler stops
 * short by about v0 h / 2 = 2 mm, 0.5%). */
static void test_slide_distance_is_isotropic(void) {
    const double v0 = 2, closed_form = v0 * v0 / (2 * MU * G);
    const double yaws[3] = {0, 0.3, 0.7854};
    double shortest = INFINITY, longest = 0;
    for (int y = 0; y < 3; ++y) {
        for (int k = 0; k < 16; ++k) {
            const double distance = slide_distance(yaws[y], 2 * TCH_PI * k / 16,
                                                   TCH_LCP_SOLVER_PGS);
            shortest = fmin(shortest, distance);
            longest = fmax(longest, distance);
        }
    }
    if (longest > 1.01 * shortest || fabs(shortest / closed_form - 1) > 0.01 ||
        fabs(longest / closed_form - 1) > 0.01) {
        fprintf(stderr, "slides %g to %g m, closed form %g m\n", shortest, longest, closed_form);
    }
    ENSURE(longest <= 1.01 * shortest);
    ENSURE_REL(shortest, closed_form, 0.01);
    ENSURE_REL(longest, closed_form, 0.01);
}

/* The recorded rim-impact problems (lemke_rim_problems.h) are solved by Lemke as the stage
 * calls it (warm start, acceptance 1e-8 m/s) and from the cold start: status OK, natural-map
 * residual of the returned z on the original problem below 1e-10. Before the regularized
 * retry both ended on a secondary ray. */
static void test_rim_impact_problems_solve_with_lemke(void) {
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 20) == 0);
    for (int k = 0; k < RIM_PROBLEM_COUNT; ++k) {
        for (int warm = 0; warm < 2; ++warm) {
            double z[RIM_PROBLEM_N];
            memcpy(z, rim_problem_warm[k], sizeof z);
            tch_lemke_options options = tch_lemke_options_default();
            options.warm_start = warm;
            options.accept_residual = 1e-8;
            tch_lcp_result result;
            const tch_status status = tch_lemke_solve(rim_problem_m[k], rim_problem_q[k],
                                                      RIM_PROBLEM_N, &options, &arena, z,
                                                      &result, NULL);
            const tch_lcp_matrix m = tch_lcp_matrix_dense(rim_problem_m[k], RIM_PROBLEM_N);
            const double residual = tch_lcp_residuals(&m, rim_problem_q[k], NULL, z).natural_map;
            ENSURE(status == TCH_OK);
            ENSURE(residual < 1e-10);
            ENSURE_NEAR(result.residual, residual, 1e-12);
        }
    }
    tch_arena_destroy(&arena);
}

int main(void) {
    RUN_TEST(test_box_dropped_flat_stays_level);
    RUN_TEST(test_ring_dropped_flat_stays_level);
    RUN_TEST(test_ring_dropped_on_its_rim_stays_planar);
    RUN_TEST(test_ring_dropped_on_its_rim_stays_planar_with_point);
    RUN_TEST(test_slide_distance_is_isotropic);
    RUN_TEST(test_rim_impact_problems_solve_with_lemke);
    return TEST_RESULT();
}
