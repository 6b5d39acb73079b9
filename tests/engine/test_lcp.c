/* The lcp contact model (velocity-level time stepping, docs/contact-lcp.md): resting contact
 * without drift and with the weight carried, an indeterminate table, Coulomb sticking and
 * sliding within the cone discretization, Newton's cradle, restitution, energy, determinism. */
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

static const double G = 9.81;

/* A spec with the lcp model, the given margin and friction and the scene's defaults otherwise. */
static tch_spec* lcp_spec(double g, double dt, double margin, tch_lcp_solver solver) {
    tch_spec* spec = test_spec(g, dt, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_LCP;
    opt.contact.margin = margin;
    opt.lcp_solver = solver;
    tch_spec_set_option(spec, &opt, NULL);
    return spec;
}

static void set_contact_option(tch_spec* spec, double restitution, double cone_edges) {
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.restitution = restitution;
    opt.contact.cone_edges = cone_edges;
    tch_spec_set_option(spec, &opt, NULL);
}

static int run_steps(const tch_model* m, tch_data* d, long steps) {
    for (long i = 0; i < steps; ++i) {
        tch_error err;
        if (tch_step(m, d, &err) != TCH_OK) {
            fprintf(stderr, "step failed: %s\n", err.message);
            return 0;
        }
    }
    return 1;
}

/* Sum of the z forces of all pair results. */
static double total_normal_force(const tch_data* d) {
    double f = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        f += d->pair_results[i].f_W.z;
    }
    return f;
}

static double deepest(const tch_data* d) {
    double depth = -INFINITY;
    for (int i = 0; i < d->contact_count; ++i) {
        depth = fmax(depth, d->contacts[i].depth);
    }
    return depth;
}

/* A 0.2 m box of 2 kg resting on the floor, 10 s: the depth stays below 1e-4 m, the box does not
 * drift, and the contact forces carry m g. Run with both solvers; PGS stops at a velocity
 * residual, which becomes a force error of m residual / h, so it is asked for 1e-12 m/s. */
static void check_resting_box(tch_lcp_solver solver) {
    double mass = 2;
    tch_spec* spec = lcp_spec(G, 1e-3, 0.005, solver);
    tch_option_def opt = *tch_spec_option(spec);
    opt.lcp_tolerance = 1e-12;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, mass,
                  (tch_vec3){0, 0, 0.1}, tch_q_identity());
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(run_steps(m, d, 1000));
    tch_vec3 p1 = d->body_X_WB[1].p;
    for (int i = 0; i < 9000; ++i) {
        ENSURE(run_steps(m, d, 1));
        ENSURE(d->contact_count == 4);
        ENSURE(fabs(deepest(d)) < 1e-4);
        ENSURE_REL(total_normal_force(d), mass * G, 1e-6);
    }
    ENSURE(tch_v3_dist(d->body_X_WB[1].p, p1) < 1e-6);
    ENSURE(d->constraint_island_count == 1);
    ENSURE(d->constraint_failed_islands == 0);
    ENSURE(d->heap_allocation_count < 100);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_resting_box_lemke(void) {
    check_resting_box(TCH_LCP_SOLVER_LEMKE);
}

static void test_resting_box_pgs(void) {
    check_resting_box(TCH_LCP_SOLVER_PGS);
}

/* A 1 m x 0.6 m table top on four sphere feet welded to it (one rigid body): four contacts,
 * rank-3 contact space, so the forces are indeterminate; the table must still rest level with
 * the weight carried and no foot pulling. */
static void test_four_legged_table_is_stable(void) {
    double mass = 10, foot = 0.02;
    tch_spec* spec = lcp_spec(G, 2e-3, 0.005, TCH_LCP_SOLVER_LEMKE);
    test_add_plane(spec, tch_q_identity(), 0.6);
    tch_body_id table = test_add_body(spec, "table", TCH_GEOM_BOX, (tch_vec3){0.5, 0.3, 0.02},
                                      mass, (tch_vec3){0, 0, 0.3}, tch_q_identity());
    for (int k = 0; k < 4; ++k) {
        tch_geom_def g = tch_geom_def_default();
        g.type = TCH_GEOM_SPHERE;
        g.size[0] = foot;
        g.p_BG = (tch_vec3){k & 1 ? 0.45 : -0.45, k & 2 ? 0.25 : -0.25, -0.3 + foot};
        g.mass = 0.1;
        tch_spec_add_geom(spec, table, &g, NULL, NULL);
    }
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(run_steps(m, d, 500));
    tch_transform X0 = d->body_X_WB[1];
    ENSURE(run_steps(m, d, 4500));
    ENSURE(d->contact_count == 4);
    ENSURE(tch_v3_dist(d->body_X_WB[1].p, X0.p) < 1e-6);
    ENSURE(fabs(d->body_X_WB[1].q.w) > 1 - 1e-12);
    ENSURE_REL(total_normal_force(d), (mass + 0.4) * G, 1e-6);
    for (int i = 0; i < d->contact_count; ++i) {
        ENSURE(d->contacts[i].f_W.z >= -1e-9);
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A 0.2 m box on a plane tilted by theta about y: returns the distance slid down the slope in
 * `seconds` after 0.2 s of settling, and the acceleration fitted to it. */
static double slide(double theta, double mu, int edges, double seconds, double* accel) {
    tch_spec* spec = lcp_spec(G, 1e-3, 0.005, TCH_LCP_SOLVER_LEMKE);
    set_contact_option(spec, 0, edges);
    tch_quat tilt = tch_q_axis_angle((tch_vec3){0, 1, 0}, theta);
    test_add_plane(spec, tilt, mu);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1,
                  tch_q_rotate(tilt, (tch_vec3){0, 0, 0.1}), tilt);
    tch_model* m = test_compile(spec);
    tch_data* d = NULL;
    if (!m || tch_data_create(m, &d, NULL) != TCH_OK) {
        return NAN;
    }
    run_steps(m, d, 200);
    tch_vec3 down = tch_q_rotate(tilt, (tch_vec3){1, 0, 0});
    tch_vec3 x0 = d->body_X_WB[1].p;
    double v0 = tch_v3_dot(d->body_v_WCm[1], down);
    run_steps(m, d, lround(seconds / m->timestep));
    double dist = tch_v3_dot(tch_v3_sub(d->body_X_WB[1].p, x0), down);
    *accel = 2 * (dist - v0 * seconds) / (seconds * seconds);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return dist;
}

/* A 0.2 m box of 1 kg resting on the floor (mu = 0.5, the default solver, dt 0.5 ms), turned by
 * `yaw` and launched at 1 m/s along `heading`: the distance it slides before it stops. */
static double slide_on_floor(double yaw, double heading) {
    const double mu = 0.5, speed = 1;
    tch_spec* spec = lcp_spec(G, 5e-4, 0.005, TCH_LCP_SOLVER_PGS);
    test_add_plane(spec, tch_q_identity(), mu);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1,
                  (tch_vec3){0, 0, 0.1}, tch_q_axis_angle((tch_vec3){0, 0, 1}, yaw));
    tch_model* m = test_compile(spec);
    tch_data* d = NULL;
    if (!m || tch_data_create(m, &d, NULL) != TCH_OK) {
        return NAN;
    }
    tch_real* v = d->qvel + m->body_qvel_adr[1];
    v[0] = speed * cos(heading), v[1] = speed * sin(heading);
    run_steps(m, d, 600); /* it stops after 0.2 s */
    tch_vec3 moved = d->body_X_WB[1].p;
    double stopped = tch_v3_norm(d->body_v_WCm[1]);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return stopped < 1e-6 ? hypot(moved.x, moved.y) : NAN;
}

/* Friction is isotropic: a box launched in 16 directions, each with another yaw, stops at the
 * same distance to 1% and at the Coulomb distance v² / (2 mu g) to 1% (semi-implicit Euler
 * comes short by v h / 2, 0.25%). Box friction along two tangent axes stopped the box 29%
 * sooner on the diagonals. */
static void test_friction_is_isotropic(void) {
    const double expected = 1.0 / (2 * 0.5 * G);
    double shortest = INFINITY, longest = 0;
    for (int k = 0; k < 16; ++k) {
        double distance = slide_on_floor(0.37 * k, 2 * TCH_PI * k / 16);
        ENSURE_NEAR(distance, expected, 0.01 * expected);
        shortest = fmin(shortest, distance);
        longest = fmax(longest, distance);
    }
    ENSURE(longest - shortest <= 0.01 * shortest);
}

/* Two 0.2 m boxes of 1 kg resting on the floor 3 m apart (dt 1 ms, mu 0.5). */
static tch_model* sleeper_model(void) {
    tch_spec* spec = lcp_spec(G, 1e-3, 0.005, TCH_LCP_SOLVER_PGS);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "rest", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1,
                  (tch_vec3){0, 0, 0.1}, tch_q_identity());
    test_add_body(spec, "drop", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1,
                  (tch_vec3){3, 0, 0.1}, tch_q_identity());
    return test_compile(spec);
}

/* Islands sleep at rest and wake (docs/contact-lcp.md, "Sleeping islands"): boxes at rest fall
 * asleep after 0.5 s, keep zero velocity and carry m g through their contacts; a horizontal
 * force below mu m g wakes one but it stays; one above it slides it; a box dropped on a
 * sleeping one wakes its island. */
static void test_islands_sleep_and_wake(void) {
    tch_model* m = sleeper_model();
    tch_data* d = NULL;
    ENSURE(m && tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(run_steps(m, d, 400));
    ENSURE(d->constraint_sleeping_islands == 0);
    ENSURE(run_steps(m, d, 200));
    ENSURE(d->constraint_sleeping_islands == 2);
    ENSURE(tch_v3_norm(d->body_v_WCm[1]) == 0 && tch_v3_norm(d->body_w_W[1]) == 0);
    ENSURE_NEAR(total_normal_force(d), 2 * G, 2e-6 * G);
    tch_vec3 rest = d->body_X_WB[1].p;
    d->body_force_applied_W[1] = (tch_vec3){0.4 * G, 0, 0}; /* below mu m g: it sticks */
    ENSURE(run_steps(m, d, 1));
    ENSURE(d->constraint_sleeping_islands == 1);
    ENSURE(run_steps(m, d, 100));
    ENSURE(tch_v3_dist(d->body_X_WB[1].p, rest) < 1e-6);
    d->body_force_applied_W[1] = (tch_vec3){0.6 * G, 0, 0}; /* above: it slides */
    ENSURE(run_steps(m, d, 100));
    ENSURE(d->body_X_WB[1].p.x - rest.x > 0.5 * 0.5 * 0.1 * G * 0.1 * 0.1);
    d->body_force_applied_W[1] = tch_v3_zero();
    ENSURE(run_steps(m, d, 700));
    ENSURE(d->constraint_sleeping_islands == 2);
    tch_real* drop = d->qpos + m->body_qpos_adr[2];
    drop[0] = d->body_X_WB[1].p.x, drop[1] = d->body_X_WB[1].p.y, drop[2] = 0.4;
    int woken = 0;
    for (int i = 0; i < 300; ++i) { /* it lands after 0.2 s */
        ENSURE(run_steps(m, d, 1));
        woken |= d->constraint_island_count == 1 && d->constraint_sleeping_islands == 0 &&
                 d->contact_count > 4;
    }
    ENSURE(woken);
    ENSURE(d->body_X_WB[2].p.z > 0.29 && d->body_X_WB[1].p.z > 0.099);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_block_sticks_below_friction_angle(void) {
    double accel;
    ENSURE(fabs(slide(0.4, 0.5, 4, 10.0, &accel)) < 1e-4); /* tan 0.4 = 0.42 < 0.5 */
    ENSURE(fabs(slide(0.4, 0.5, 8, 10.0, &accel)) < 1e-4);
}

/* Above the friction angle a = g (sin - mu cos), up to the cone discretization: an edge-aligned
 * slide has the exact friction mu f_n, and between edges the pyramid's bound is no lower than
 * mu cos(pi / k) f_n. */
static void test_block_slides_above_friction_angle(void) {
    double theta = 0.5, mu = 0.3;
    double expected = G * (sin(theta) - mu * cos(theta));
    for (int edges = 4; edges <= 8; edges += 4) {
        double accel;
        slide(theta, mu, edges, 1.0, &accel);
        double discretization = G * mu * cos(theta) * (1 - cos(TCH_PI / edges));
        ENSURE_NEAR(accel, expected, discretization + 1e-3 * expected);
    }
}

/* n spheres in a row along x with 1 mm gaps, no gravity, frictionless, restitution 1; the first
 * moves at 1 m/s: the last leaves with that speed and the others stop. */
static void check_newtons_cradle(int n) {
    double r = 0.05, gap = 1e-3, u = 1.0;
    tch_spec* spec = lcp_spec(0, 1e-3, 0, TCH_LCP_SOLVER_LEMKE);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.friction = 0;
    opt.contact.restitution = 1;
    tch_spec_set_option(spec, &opt, NULL);
    for (int i = 0; i < n; ++i) {
        char name[16];
        snprintf(name, sizeof name, "ball%d", i);
        test_add_body(spec, name, TCH_GEOM_SPHERE, (tch_vec3){r, 0, 0}, 1,
                      (tch_vec3){i * (2 * r + gap), 0, 0}, tch_q_identity());
    }
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    tch_transform X = d->body_X_WB[1];
    ENSURE(tch_data_set_body_state(m, d, 1, &X, (tch_vec3){u, 0, 0}, tch_v3_zero(), NULL) ==
           TCH_OK);
    double e0 = tch_data_energy(m, d);
    ENSURE(run_steps(m, d, 300));
    for (int i = 1; i < n; ++i) {
        ENSURE_NEAR(d->body_v_WCm[i].x, 0, 0.03 * u);
    }
    ENSURE_NEAR(d->body_v_WCm[n].x, u, 0.03 * u);
    tch_vec3 p, L;
    tch_data_momentum(m, d, &p, &L);
    ENSURE_NEAR(p.x, u, 1e-12);
    ENSURE(tch_data_energy(m, d) <= e0 * (1 + 1e-12));
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_newtons_cradle_three(void) {
    check_newtons_cradle(3);
}

static void test_newtons_cradle_five(void) {
    check_newtons_cradle(5);
}

/* A ball dropped from H bounces to e^2 H (Newton's restitution on the impact speed). */
static void check_bounce(double e) {
    double r = 0.1, H = 1.0, dt = 2e-4;
    tch_spec* spec = lcp_spec(G, dt, 0, TCH_LCP_SOLVER_LEMKE);
    set_contact_option(spec, e, 4);
    test_add_plane(spec, tch_q_identity(), 0);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){r, 0, 0}, 1, (tch_vec3){0, 0, r + H},
                  tch_q_identity());
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    double fall = sqrt(2 * H / G), rise = e * fall;
    long steps = lround((fall + 0.5 * rise) / dt);
    ENSURE(run_steps(m, d, steps)); /* past the impact, rising */
    ENSURE(d->body_v_WCm[1].z > 0);
    double top = 0;
    long more = lround(rise / dt);
    for (long i = 0; i < more; ++i) {
        ENSURE(run_steps(m, d, 1));
        top = fmax(top, d->body_X_WB[1].p.z - r);
    }
    ENSURE_REL(top, e * e * H, 0.02);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_bounce_height_follows_restitution_squared(void) {
    check_bounce(0.5);
    check_bounce(0.8);
}

/* A pile of boxes dropped onto each other, slightly turned, with friction and no restitution,
 * and the given stabilization. */
static tch_model* pile_model(double stabilization) {
    tch_spec* spec = lcp_spec(G, 2e-3, 0.005, TCH_LCP_SOLVER_LEMKE);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.stabilization = stabilization;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    for (int i = 0; i < 6; ++i) {
        char name[16];
        snprintf(name, sizeof name, "box%d", i);
        tch_quat q = tch_q_axis_angle((tch_vec3){0.3, 0.2, 1}, 0.15 * i);
        tch_vec3 p = {0.05 * (i % 3) - 0.05, 0.04 * (i % 2), 0.12 + 0.25 * i};
        test_add_body(spec, name, TCH_GEOM_BOX, (tch_vec3){0.1, 0.08, 0.06}, 1 + 0.2 * i, p, q);
    }
    return test_compile(spec);
}

/* Largest energy growth of one step of the pile over 3 s (it lands by 1 s), as a share of the
 * initial energy (kinetic plus potential measured from the floor). */
static double largest_energy_growth(double stabilization) {
    tch_model* m = pile_model(stabilization);
    tch_data* d = NULL;
    if (!m || tch_data_create(m, &d, NULL) != TCH_OK) {
        return INFINITY;
    }
    double scale = tch_data_energy(m, d);
    double before = scale, worst = -INFINITY;
    for (int i = 0; i < 1500 && run_steps(m, d, 1); ++i) {
        double now = tch_data_energy(m, d);
        worst = fmax(worst, (now - before) / scale);
        before = now;
    }
    worst = before < scale ? worst : INFINITY;
    tch_data_destroy(d);
    tch_model_destroy(m);
    return worst;
}

/* Kinetic plus potential energy of a passive scene never grows by more than 1e-9 of its scale
 * per step, without stabilization and with the default 0.2: the split impulse pushes
 * penetrations out by a pseudo-velocity that is not kept, and holds the potential energy it adds
 * to half of what the step dissipated (docs/contact-lcp.md, "Stabilization"). */
static void test_energy_never_grows_in_a_pile(void) {
    ENSURE(largest_energy_growth(0) <= 1e-9);
    ENSURE(largest_energy_growth(0.2) <= 1e-9);
    ENSURE(largest_energy_growth(1) <= 1e-9);
}

/* A stack of 8 blocks (examples/stack13.xml's blocks: 1 x 1 x 2 m, 1 kg, mu = 0.6, four corner
 * contacts per face) starting 6 mm deep in each other, at dt = 5 ms: Lemke solves every step's
 * Stewart-Trinkle problem (no ray left unverified, no PGS fallback), the natural-map residual
 * stays below the tolerance and the stack stands still, since at rest no step dissipates the
 * energy that pushing the penetration out would add. */
static void test_stack_of_blocks_stands(void) {
    const int n = 8;
    tch_spec* spec = lcp_spec(G, 5e-3, 0.01, TCH_LCP_SOLVER_LEMKE);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.friction = 0.6;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0);
    test_add_block_stack(spec, "block", n, 0.994, 1.994);
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    tch_transform top0 = d->body_X_WB[n];
    int failed = 0;
    double residual = 0;
    for (int i = 0; i < 600; ++i) {
        ENSURE(run_steps(m, d, 1));
        failed += d->constraint_failed_islands;
        residual = fmax(residual, d->constraint_residual);
    }
    ENSURE(failed == 0);
    ENSURE(residual <= m->lcp_tolerance);
    ENSURE_NEAR(d->body_X_WB[n].p.z, top0.p.z, 1e-6);
    ENSURE_NEAR(d->body_X_WB[n].p.x, top0.p.x, 1e-6);
    ENSURE(fabs(d->body_X_WB[n].q.w) > 1 - 1e-12);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Uniform in [-a, a] from a linear congruential generator (Knuth's MMIX constants). */
static double jitter(unsigned long long* state, double a) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return a * (2.0 * (double)(*state >> 11) / 9007199254740992.0 - 1);
}

/* tools/gen_scenes.py's pile with 12 boxes: 0.2 m, 1 kg, mu = 0.5, on a 2 x 2 grid of 0.3 m in
 * three layers, jittered by 3 cm and turned by up to 0.4 rad about random axes, dt 2 ms, margin
 * 5 mm. They fall onto each other and the floor, where Lemke fails on some islands. */
static tch_model* jittered_pile_model(void) {
    tch_spec* spec = lcp_spec(G, 2e-3, 0.005, TCH_LCP_SOLVER_LEMKE);
    test_add_plane(spec, tch_q_identity(), 0.5);
    unsigned long long state = 20261122;
    for (int i = 0; i < 12; ++i) {
        char name[16];
        snprintf(name, sizeof name, "box%d", i);
        int layer = i / 4, row = (i % 4) / 2, col = i % 2;
        tch_vec3 p = {(col - 0.5) * 0.3 + jitter(&state, 0.03),
                      (row - 0.5) * 0.3 + jitter(&state, 0.03), 0.15 + 0.3 * layer};
        tch_vec3 axis = {jitter(&state, 1), jitter(&state, 1), jitter(&state, 1)};
        tch_quat q = tch_q_axis_angle(tch_v3_normalize(axis), jitter(&state, 0.4));
        test_add_body(spec, name, TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1, p, q);
    }
    return test_compile(spec);
}

/* The 12-box pile for 2 s: whatever the solvers meet, the impulses applied never add energy
 * (no step grows kinetic plus potential energy by more than 1e-9 of the initial), every applied
 * solution has a natural-map residual of at most 1e-6 m/s (Lemke, else PGS, else the
 * frictionless problem; docs/contact-lcp.md, "Fallbacks"), and the penetration is bounded: below
 * 1 cm while the boxes land, below 1 mm once they have settled (the last 0.5 s). Before the
 * fallback chain, PGS's last iterate (residual 150 m/s) was applied and the pile gained 4 kJ in
 * one step; before the retained points (docs/contact-lcp.md, "Persistent manifold"), boxes
 * resting on boxes sank at 1 cm/s. */
static void test_pile_never_applies_a_bad_iterate(void) {
    tch_model* m = jittered_pile_model();
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    double scale = tch_data_energy(m, d), before = scale, growth = -INFINITY;
    double depth = 0, settled_depth = 0, residual = 0;
    int failed = 0;
    for (int i = 0; i < 1000; ++i) {
        int warned = d->warning_count[TCH_WARN_FRICTION_DROPPED];
        ENSURE(run_steps(m, d, 1));
        int dropped = d->constraint_path_islands[TCH_CONSTRAINT_NORMAL_LEMKE] +
                      d->constraint_path_islands[TCH_CONSTRAINT_NORMAL_PGS];
        /* every island solved without friction is reported, with the step's time and a body */
        ENSURE(d->warning_count[TCH_WARN_FRICTION_DROPPED] - warned == dropped);
        ENSURE(dropped == 0 ||
               (fabs(d->warning_time[TCH_WARN_FRICTION_DROPPED] - (d->time - 2e-3)) < 1e-9 &&
                d->warning_body[TCH_WARN_FRICTION_DROPPED] > 0));
        double now = tch_data_energy(m, d);
        growth = fmax(growth, (now - before) / scale);
        before = now;
        depth = fmax(depth, deepest(d));
        settled_depth = i >= 750 ? fmax(settled_depth, deepest(d)) : 0;
        residual = fmax(residual, d->constraint_residual);
        failed += d->constraint_failed_islands;
    }
    ENSURE(growth <= 1e-9);
    ENSURE(depth < 0.01);
    ENSURE(settled_depth < 1e-3);
    ENSURE(residual <= 1e-6);
    ENSURE(failed > 0); /* the fallbacks were exercised */
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* The largest |Σ f_W of a pair's listed contacts − the pair's f_W| over the lcp pairs, N. */
static double pair_force_mismatch(const tch_data* d) {
    double mismatch = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* pair = &d->pair_results[i];
        tch_vec3 sum = tch_v3_zero();
        for (int k = 0; k < pair->contact_count; ++k) {
            sum = tch_v3_add(sum, d->contacts[pair->contact_start + k].f_W);
        }
        mismatch = fmax(mismatch, tch_v3_norm(tch_v3_sub(sum, pair->f_W)));
    }
    return mismatch;
}

/* The points of the last step that the stage keeps as contacts (the persistent manifold) are
 * listed in data->contacts with their pair's own points: over the 12-box pile's 2 s, each pair's
 * listed contacts sum to the pair's force (to rounding). Before they were listed, their forces
 * were in the pair totals only and some pairs missed up to their whole weight. */
static void test_retained_points_are_listed(void) {
    tch_model* m = jittered_pile_model();
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    double mismatch = 0;
    for (int i = 0; i < 1000; ++i) {
        ENSURE(run_steps(m, d, 1));
        mismatch = fmax(mismatch, pair_force_mismatch(d));
    }
    ENSURE(mismatch < 1e-9);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A box resting on a box turned by 5 degrees about z and tilted by 1e-3 rad: the separating axis
 * of largest separation is then the cross product of two horizontal edges, so the narrow phase
 * gives one point per step (a different corner each step as the box rocks). With only that
 * point the top box sank at about 1 cm/s; the retained points of the last steps (the persistent
 * manifold) hold it. Over 2 s no contact gets deeper than 0.1 mm and the top box's centre stays
 * within 0.1 mm of its height. */
static void test_box_on_turned_box_does_not_sink(void) {
    tch_spec* spec = lcp_spec(G, 2e-3, 0, TCH_LCP_SOLVER_LEMKE);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "bottom", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1,
                  (tch_vec3){0, 0, 0.1}, tch_q_identity());
    tch_quat turned = tch_q_mul(tch_q_axis_angle((tch_vec3){0, 0, 1}, 5 * TCH_PI / 180),
                                tch_q_axis_angle((tch_vec3){1, 0, 0}, 1e-3));
    tch_body_id top = test_add_body(spec, "top", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1,
                                    (tch_vec3){0.004, -0.004, 0.3 + 1e-4}, turned);
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    ENSURE(run_steps(m, d, 50));
    tch_transform X0;
    tch_vec3 v, w;
    tch_data_body_state(m, d, top.index, &X0, &v, &w);
    double depth = 0;
    for (int i = 0; i < 1000; ++i) {
        ENSURE(run_steps(m, d, 1));
        depth = fmax(depth, deepest(d));
    }
    tch_transform X;
    tch_data_body_state(m, d, top.index, &X, &v, &w);
    ENSURE(depth < 1e-4);
    ENSURE(fabs(X.p.z - X0.p.z) < 1e-4);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* The lcp model finds its contacts 5 mm before they touch when the scene sets no margin
 * (src/io/compile.c): for the scene default and for a geom of a point scene that asks for lcp;
 * a margin the scene sets is kept. */
static void test_default_margin(void) {
    tch_spec* spec = test_spec(G, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_LCP;
    tch_spec_set_option(spec, &opt, NULL);
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL && m->contact_default.margin == 0.005);
    tch_model_destroy(m);

    spec = lcp_spec(G, 1e-3, 0.002, TCH_LCP_SOLVER_LEMKE);
    m = test_compile(spec);
    ENSURE(m != NULL && m->contact_default.margin == 0.002);
    tch_model_destroy(m);

    spec = test_spec(G, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_SPHERE;
    g.size[0] = 0.05;
    g.contact.model = TCH_CONTACT_LCP;
    tch_spec_add_geom(spec, TCH_WORLD_BODY, &g, NULL, NULL);
    m = test_compile(spec);
    ENSURE(m != NULL && m->contact_default.margin == 0 && m->geom_contact[0].margin == 0.005);
    tch_model_destroy(m);
}

/* Two runs of the pile give the same state, bit for bit. */
static void test_determinism(void) {
    tch_model* m = pile_model(0.2);
    ENSURE(m != NULL);
    tch_data* runs[2] = {NULL, NULL};
    for (int k = 0; k < 2; ++k) {
        ENSURE(tch_data_create(m, &runs[k], NULL) == TCH_OK);
        ENSURE(run_steps(m, runs[k], 1000));
    }
    ENSURE(memcmp(runs[0]->qpos, runs[1]->qpos, (size_t)m->nq * sizeof(tch_real)) == 0);
    ENSURE(memcmp(runs[0]->qvel, runs[1]->qvel, (size_t)m->nv * sizeof(tch_real)) == 0);
    tch_data_destroy(runs[0]);
    tch_data_destroy(runs[1]);
    tch_model_destroy(m);
}

/* The lcp model's impulses live in the Euler step, so RK4 scenes using it are refused. */
static void test_rk4_is_refused(void) {
    tch_spec* spec = test_spec(G, 1e-3, TCH_INTEGRATOR_RK4);
    test_add_plane(spec, tch_q_identity(), 0.5);
    tch_body_id b = test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, 1,
                                  (tch_vec3){0, 0, 0.1}, tch_q_identity());
    (void)b;
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_SPHERE;
    g.size[0] = 0.05;
    g.contact.model = TCH_CONTACT_LCP;
    tch_spec_add_geom(spec, TCH_WORLD_BODY, &g, NULL, NULL);
    tch_model* m = NULL;
    tch_error err;
    ENSURE(tch_compile(spec, &m, &err) == TCH_ERR_UNSUPPORTED);
    ENSURE(m == NULL);
    ENSURE(strstr(err.message, "lcp") != NULL && strstr(err.message, "Euler") != NULL);
    tch_spec_destroy(spec);
}

int main(void) {
    RUN_TEST(test_resting_box_lemke);
    RUN_TEST(test_resting_box_pgs);
    RUN_TEST(test_four_legged_table_is_stable);
    RUN_TEST(test_block_sticks_below_friction_angle);
    RUN_TEST(test_block_slides_above_friction_angle);
    RUN_TEST(test_friction_is_isotropic);
    RUN_TEST(test_islands_sleep_and_wake);
    RUN_TEST(test_newtons_cradle_three);
    RUN_TEST(test_newtons_cradle_five);
    RUN_TEST(test_bounce_height_follows_restitution_squared);
    RUN_TEST(test_energy_never_grows_in_a_pile);
    RUN_TEST(test_stack_of_blocks_stands);
    RUN_TEST(test_pile_never_applies_a_bad_iterate);
    RUN_TEST(test_box_on_turned_box_does_not_sink);
    RUN_TEST(test_retained_points_are_listed);
    RUN_TEST(test_default_margin);
    RUN_TEST(test_determinism);
    RUN_TEST(test_rk4_is_refused);
    return TEST_RESULT();
}
