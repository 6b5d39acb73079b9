/* The point model at derived (default) stiffness and damping in a passive scene: a body made of
 * several boxes resting on a plane never gains energy, nor does a tower of four boxes, whose
 * friction between several pairs must do no work. Before the per-body bound of derived
 * values (docs/contact-point.md), the eight corner points of a cup and its handle, each
 * critically damped against the whole body, made the explicit damping overshoot: the mug of
 * bench_pressure_step_timing hopped 0.22 m and went from 0.132 to 0.140 J in 1 s. */
#include <string.h>

#include "contact/contact.h"
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

static const double cup_half = 0.04, cup_mass = 0.3, handle_mass = 0.05;

static void add_box(tch_spec* spec, tch_body_id body, tch_vec3 half, tch_vec3 p_BG, double mass) {
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_BOX;
    g.size[0] = half.x, g.size[1] = half.y, g.size[2] = half.z;
    g.p_BG = p_BG;
    g.mass = mass;
    tch_spec_add_geom(spec, body, &g, NULL, NULL);
}

/* The handle of bench_pressure_step_timing's mug: a 2 x 1 x 6 cm box beside the cup, its
 * bottom on the table with the cup's. */
static void add_handle(tch_spec* spec, tch_body_id mug) {
    add_box(spec, mug, (tch_vec3){0.01, 0.005, 0.03}, (tch_vec3){0.055, 0, -0.01}, handle_mass);
}

/* The cup as one 8 cm box (the bench's point-model scene) or, with `walls`, as a 1 cm bottom
 * and four 1 cm walls standing on it (MuJoCo's five boxes in the same bench); with the handle,
 * one free body resting on a rigid plane, its bottom just touching. Default contact
 * parameters, friction 0.5. */
static tch_model* mug_scene(tch_integrator integrator, int walls) {
    tch_spec* spec = test_spec(9.81, 1e-3, integrator);
    test_add_plane(spec, tch_q_identity(), 0.5);
    tch_body_def b = tch_body_def_default();
    b.free_joint = true;
    b.p_PB = (tch_vec3){0, 0, cup_half};
    tch_body_id mug = {0};
    tch_spec_add_body(spec, &b, &mug, NULL);
    double h = cup_half, wall = h / 4, inner = h - wall;
    if (!walls) {
        add_box(spec, mug, (tch_vec3){h, h, h}, tch_v3_zero(), cup_mass);
    } else {
        add_box(spec, mug, (tch_vec3){h, h, wall / 2}, (tch_vec3){0, 0, -h + wall / 2},
                cup_mass / 5);
        for (int side = -1; side <= 1; side += 2) {
            double across = side * (inner + wall / 2);
            add_box(spec, mug, (tch_vec3){wall / 2, h, h - wall / 2},
                    (tch_vec3){across, 0, wall / 2}, cup_mass / 5);
            add_box(spec, mug, (tch_vec3){inner, wall / 2, h - wall / 2},
                    (tch_vec3){0, across, wall / 2}, cup_mass / 5);
        }
    }
    add_handle(spec, mug);
    return test_compile(spec);
}

/* Kinetic, gravitational and the springs' energy (1/2 k d^2 at each touching point of the
 * linear law), J. */
static double total_energy(const tch_model* m, const tch_data* d) {
    double e = tch_data_energy(m, d);
    for (int p = 0; p < d->pair_result_count; ++p) {
        const tch_pair_result* pair = &d->pair_results[p];
        for (int i = 0; i < pair->contact_count; ++i) {
            double depth = d->contacts[pair->contact_start + i].depth;
            e += depth > 0 ? 0.5 * pair->params.stiffness * depth * depth : 0;
        }
    }
    return e;
}

/* Over 2 s no step adds more than 1e-5 J (the start holds 0.13 J; the springs at rest hold
 * 7e-5 J, and the discrete energy of a step swaps a few percent of that between the springs
 * and the motion while the mug settles), the energy never rises above its start, and the mug
 * never leaves the table. */
static void check_rests_without_gaining_energy(tch_integrator integrator, int walls) {
    tch_model* m = mug_scene(integrator, walls);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    double e0 = total_energy(m, d), previous = e0, largest_gain = 0, highest = e0;
    double z0 = d->body_p_WCm[1].z, top = z0;
    for (int i = 0; i < 2000; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        double e = total_energy(m, d);
        largest_gain = fmax(largest_gain, e - previous);
        highest = fmax(highest, e);
        top = fmax(top, d->body_p_WCm[1].z);
        previous = e;
    }
    if (largest_gain > 1e-5 || highest > e0 + 1e-9 || top > z0 + 1e-4) {
        fprintf(stderr, "integrator %d walls %d: largest gain %g J, highest %g J (start %g), "
                        "top %g m (start %g)\n",
                integrator, walls, largest_gain, highest, e0, top, z0);
    }
    ENSURE(largest_gain < 1e-5);
    ENSURE(highest <= e0 + 1e-9);
    ENSURE(top < z0 + 1e-4);
    ENSURE(previous < e0);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_cup_and_handle_rest_without_gaining_energy(void) {
    check_rests_without_gaining_energy(TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, 0);
    check_rests_without_gaining_energy(TCH_INTEGRATOR_RK4, 0);
}

static void test_five_box_cup_and_handle_rest_without_gaining_energy(void) {
    check_rests_without_gaining_energy(TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, 1);
    check_rests_without_gaining_energy(TCH_INTEGRATOR_RK4, 1);
}

/* A single box within the bound's stiffness limit keeps its derived stiffness (it rests at
 * m g / (4 k) on its four corners), and with the dampers bounded it comes to rest: before,
 * each corner's damper, critical against the whole box, reversed its velocity every step
 * (h mu_max = 3.0: a chatter of 5 mm/s that never died out). */
static void test_default_box_settles_at_weight_depth_without_chatter(void) {
    double mass = 0.35, g = 9.81;
    tch_spec* spec = test_spec(g, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.04, 0.04, 0.04}, mass,
                  (tch_vec3){0, 0, 0.04}, tch_q_identity());
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    for (int i = 0; i < 500; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
    }
    double fastest = 0;
    for (int i = 0; i < 100; ++i) {
        ENSURE(tch_step(m, d, NULL) == TCH_OK);
        fastest = fmax(fastest, tch_v3_norm(d->body_v_WCm[1]));
    }
    ENSURE(fastest < 1e-6);
    ENSURE(d->contact_count == 4);
    double k = d->pair_results[0].params.stiffness;
    ENSURE_REL(d->contacts[0].depth, mass * g / (4 * k), 1e-3);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* ---- a tower of four boxes: friction between several pairs ---- */

/* Four 20 cm boxes of 1 kg stacked on a plane, 1 mm apart, each tilted 0.3 degrees about the
 * horizontal axis (0.6, 0.8, 0) one way and the next the other way, each turned `twist`
 * degrees about z from the one below; stiffness 2e4 N/m, damping 30 N s/m, friction 0.5,
 * dt 2 ms, semi-implicit Euler (the engineer's tower scenes ttower0 and ttower30; the twisted
 * test also runs 45 degrees). */
static tch_model* tower_scene(double twist) {
    tch_spec* spec = tch_spec_create();
    tch_option_def opt = tch_option_def_default();
    opt.timestep = 2e-3;
    opt.gravity = (tch_vec3){0, 0, -9.81};
    opt.integrator = TCH_INTEGRATOR_SEMI_IMPLICIT_EULER;
    opt.contact.stiffness = 2e4;
    opt.contact.damping = 30;
    opt.contact.friction = 0.5;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    double tilt = 0.3 * TCH_PI / 180, turn = twist * TCH_PI / 180;
    for (int i = 0; i < 4; ++i) {
        double sign = i % 2 ? -1 : 1, s = sin(tilt / 2);
        tch_quat q_tilt = {cos(tilt / 2), sign * 0.6 * s, sign * 0.8 * s, 0};
        tch_quat q_turn = {cos(i * turn / 2), 0, 0, sin(i * turn / 2)};
        char name[8];
        snprintf(name, sizeof name, "box%d", i);
        test_add_body(spec, name, TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1,
                      (tch_vec3){0, 0, 0.101 + 0.201 * i}, tch_q_mul(q_turn, q_tilt));
    }
    return test_compile(spec);
}

enum { TOWER_MAX_POINTS = 64 };

/* One step; *power receives the power of the step's friction on the velocities after the
 * step, summed over the points, W: the forces of the step's evaluation (f_W less its normal
 * part) against the velocities of the same material points after the step, b's minus a's. */
static void step_with_friction_power(const tch_model* m, tch_data* d, double* power) {
    tch_contact before[TOWER_MAX_POINTS];
    ENSURE(tch_step_begin(m, d, NULL) == TCH_OK);
    int n = d->contact_count;
    ENSURE(n <= TOWER_MAX_POINTS);
    memcpy(before, d->contacts, (size_t)n * sizeof *before);
    ENSURE(tch_step_end(m, d, NULL) == TCH_OK);
    tch_stage_kinematics(m, d);
    tch_stage_velocities(m, d);
    *power = 0;
    for (int i = 0; i < n; ++i) {
        const tch_contact* c = &before[i];
        tch_vec3 v = tch_v3_sub(tch_contact_point_velocity(m, d, c->geom_b, c->p_W),
                                tch_contact_point_velocity(m, d, c->geom_a, c->p_W));
        tch_vec3 f_t = tch_v3_madd(c->f_W, -tch_v3_dot(c->f_W, c->n_W), c->n_W);
        *power += tch_v3_dot(f_t, v);
    }
}

/* Kinetic, gravitational and the springs' energy of the current state with its own contact
 * points (tch_forward), J. */
static void energy_now(const tch_model* m, tch_data* d, double* energy) {
    ENSURE(tch_forward(m, d, NULL) == TCH_OK);
    *energy = total_energy(m, d);
}

/* Friction that stops each point's predicted slip must do no work on the velocities after the
 * step (docs/contact-point.md, "Friction between several pairs"). Solving one pair after the
 * other left a box's earlier pairs pushing along the slip that its later pairs made: after the
 * first second (the boxes' 1 mm drop), 0.26 J (aligned) and 0.19 J (twisted) of positive work
 * by 6 s, the energy up to 0.04 and 0.05 J above its value at 1 s, and the towers swaying at
 * 0.09 and 0.24 rad/s at 6 s; now 0 and 8e-8 J, no rise, 0.0002 and 0.003 rad/s. Checked
 * from 1 s to 6 s: friction's positive work on the after-step velocities below 1e-6 J in
 * all, the energy never more than 0.1 mJ above its value at 1 s (the springs' share of the
 * discrete energy), and at the end every box slower than 1 cm/s and 0.01 rad/s. */
static void check_tower_settles(double twist) {
    tch_model* m = tower_scene(twist);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    double friction_gain = 0, settled = 0, highest = -INFINITY;
    int steps = (int)(6 / m->timestep + 0.5), second = (int)(1 / m->timestep + 0.5);
    for (int i = 0; i < steps; ++i) {
        double power = 0, energy = 0;
        step_with_friction_power(m, d, &power);
        friction_gain += i >= second ? fmax(0, power * m->timestep) : 0;
        if (i + 1 == second) {
            energy_now(m, d, &settled);
        } else if (i + 1 > second && (i + 1) % 10 == 0) {
            energy_now(m, d, &energy);
            highest = fmax(highest, energy);
        }
    }
    double fastest = 0, spinning = 0;
    for (int b = 1; b < m->body_count; ++b) {
        fastest = fmax(fastest, tch_v3_norm(d->body_v_WCm[b]));
        spinning = fmax(spinning, tch_v3_norm(d->body_w_W[b]));
    }
    if (friction_gain > 1e-6 || highest > settled + 1e-4 || fastest > 1e-2 ||
        spinning > 1e-2) {
        fprintf(stderr, "twist %g: friction's positive work %g J, energy %g J above %g J, "
                        "speeds %g m/s %g rad/s\n",
                twist, friction_gain, highest - settled, settled, fastest, spinning);
    }
    ENSURE(friction_gain < 1e-6);
    ENSURE(highest < settled + 1e-4);
    ENSURE(fastest < 1e-2);
    ENSURE(spinning < 1e-2);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_aligned_tower_settles_without_friction_work(void) {
    check_tower_settles(0);
}

static void test_twisted_tower_settles_without_friction_work(void) {
    check_tower_settles(30);
    check_tower_settles(45);
}

int main(void) {
    RUN_TEST(test_cup_and_handle_rest_without_gaining_energy);
    RUN_TEST(test_five_box_cup_and_handle_rest_without_gaining_energy);
    RUN_TEST(test_default_box_settles_at_weight_depth_without_chatter);
    RUN_TEST(test_aligned_tower_settles_without_friction_work);
    RUN_TEST(test_twisted_tower_settles_without_friction_work);
    return TEST_RESULT();
}
