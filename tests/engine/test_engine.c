/* The step pipeline with the point contact model: resting, friction, bouncing, determinism,
 * threads and allocation after warm-up. */
#include <pthread.h>
#include <stdlib.h>

#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

static void run_steps(const tch_model* m, tch_data* d, long steps) {
    for (long i = 0; i < steps; ++i) {
        tch_status s = tch_step(m, d, NULL);
        if (s != TCH_OK) {
            fprintf(stderr, "step failed: %s\n", tch_status_name(s));
            return;
        }
    }
}

/* A 0.2 m box of mass m resting on the floor with the linear law settles where the four
 * corner springs carry its weight: each corner's depth is m g / (4 k). */
static void test_box_rests_on_four_points_at_weight_depth(void) {
    double k = 2e4, mass = 2, g = 9.81;
    tch_spec* spec = test_spec(g, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.stiffness = k;
    opt.contact.damping = 100;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, mass,
                  (tch_vec3){0, 0, 0.1}, tch_q_identity());
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    run_steps(m, d, 3000);
    for (int i = 0; i < 200; ++i) {
        run_steps(m, d, 1);
        ENSURE(d->contact_count == 4);
    }
    double expected = mass * g / (4 * k);
    for (int i = 0; i < 4; ++i) {
        ENSURE_REL(d->contacts[i].depth, expected, 0.01);
    }
    ENSURE_REL(d->pair_results[0].f_W.z, mass * g, 1e-3);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A box on a plane tilted by theta: it sticks when tan(theta) < mu_s and slides with
 * a = g (sin(theta) - mu cos(theta)) otherwise. */
static double slide_distance(double theta, double mu, double seconds, double* accel) {
    double g = 9.81;
    tch_spec* spec = test_spec(g, 5e-4, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.stiffness = 1e5;
    opt.contact.damping = 400;
    opt.contact.stiction_velocity = 1e-4;
    tch_spec_set_option(spec, &opt, NULL);
    tch_quat tilt = tch_q_axis_angle((tch_vec3){0, 1, 0}, theta);
    test_add_plane(spec, tilt, mu);
    tch_vec3 p = tch_q_rotate(tilt, (tch_vec3){0, 0, 0.1 - 1.0 * 2 * 9.81 / 4e5});
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1, p, tilt);
    tch_model* m = test_compile(spec);
    tch_data* d = NULL;
    tch_data_create(m, &d, NULL);
    run_steps(m, d, 1000); /* settle for 0.5 s */
    tch_vec3 x0 = d->body_X_WB[1].p;
    tch_vec3 v0 = d->body_v_WCm[1];
    long steps = lround(seconds / m->timestep);
    run_steps(m, d, steps);
    tch_vec3 down_slope = tch_q_rotate(tilt, (tch_vec3){1, 0, 0});
    double dist = tch_v3_dot(tch_v3_sub(d->body_X_WB[1].p, x0), down_slope);
    double v0s = tch_v3_dot(v0, down_slope);
    *accel = 2 * (dist - v0s * seconds) / (seconds * seconds);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return dist;
}

static void test_block_sticks_below_friction_angle(void) {
    double accel = 0;
    double dist = slide_distance(0.3, 0.5, 10.0, &accel); /* tan 0.3 = 0.31 < 0.5 */
    if (!(fabs(dist) < 1e-3)) fprintf(stderr, "drift %g m\n", dist);
    ENSURE(fabs(dist) < 1e-3);
}

static void test_block_slides_above_friction_angle_with_coulomb_acceleration(void) {
    double theta = 0.5, mu = 0.3, accel = 0;
    slide_distance(theta, mu, 1.0, &accel);
    double expected = 9.81 * (sin(theta) - mu * cos(theta));
    ENSURE_REL(accel, expected, 0.02);
}

/* With the linear law and no damping a ball bounces back to nearly its drop height. */
static void test_undamped_ball_bounces_back(void) {
    tch_spec* spec = test_spec(9.81, 1e-4, TCH_INTEGRATOR_RK4);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.stiffness = 1e5;
    opt.contact.damping = 0;
    opt.contact.friction = 0;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, 1,
                  (tch_vec3){0, 0, 0.6}, tch_q_identity());
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    double e0 = tch_data_energy(m, d), top = 0;
    for (int i = 0; i < 7000; ++i) { /* fall 0.5 m (0.32 s), bounce, rise */
        run_steps(m, d, 1);
        if (d->time > 0.4) top = fmax(top, d->qpos[2]);
    }
    ENSURE_NEAR(top, 0.6, 1e-3);
    ENSURE_REL(tch_data_energy(m, d), e0, 1e-4);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Restitution of a ball dropped with impact speed v onto the floor. */
static double hunt_crossley_restitution(double alpha, double v_impact) {
    double g = 9.81, r = 0.1;
    tch_spec* spec = test_spec(g, 1e-5, TCH_INTEGRATOR_RK4);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.law = TCH_POINT_LAW_HUNT_CROSSLEY;
    opt.contact.stiffness = 1e7;
    opt.contact.exponent = 1.5;
    opt.contact.dissipation = alpha;
    opt.contact.friction = 0;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){r, 0, 0}, 1,
                  (tch_vec3){0, 0, r + 1e-3}, tch_q_identity());
    tch_model* m = test_compile(spec);
    tch_data* d = NULL;
    tch_data_create(m, &d, NULL);
    d->qvel[2] = -v_impact;
    int touched = 0;
    double v_out = 0;
    for (int i = 0; i < 200000; ++i) {
        run_steps(m, d, 1);
        touched |= d->contact_count > 0 && d->contacts[0].depth > 0;
        if (touched && d->qpos[2] > r + 1e-3) {
            v_out = d->qvel[2];
            break;
        }
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
    return v_out / v_impact;
}

/* Hunt-Crossley: restitution falls with impact speed, e ~ 1 - alpha v for small alpha v
 * (Marhefka and Orin 1999), and alpha = 0 loses nothing. */
static void test_hunt_crossley_restitution_falls_with_speed(void) {
    double alpha = 0.05;
    double slow = hunt_crossley_restitution(alpha, 0.5);
    double fast = hunt_crossley_restitution(alpha, 2.0);
    ENSURE(fast < slow);
    ENSURE_NEAR(slow, 1 - alpha * 0.5, 0.01);
    ENSURE_NEAR(fast, 1 - alpha * 2.0, 0.02);
    ENSURE_NEAR(hunt_crossley_restitution(0, 2.0), 1.0, 1e-4);
}

/* RK4 evaluates the pipeline four times a step; a stateful model (volume) that first meets a
 * contact in an intermediate evaluation must still start it from an initialised state: a stiff,
 * undamped bounce then keeps (does not gain) its energy. */
static void test_rk4_with_a_stateful_model_gains_no_energy(void) {
    tch_spec* spec = test_spec(9.81, 5e-4, TCH_INTEGRATOR_RK4);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_VOLUME;
    opt.contact.stiffness = 2e6;
    opt.contact.damping = 0;
    opt.contact.friction = 0.5;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, 1,
                  (tch_vec3){0, 0, 1}, tch_q_identity());
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    double e0 = tch_data_energy(m, d), highest = 0;
    for (int i = 0; i < 4000; ++i) { /* two seconds: several bounces */
        run_steps(m, d, 1);
        highest = fmax(highest, tch_data_energy(m, d));
    }
    ENSURE(highest < e0 * 1.01);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static tch_model* small_pile(void) {
    tch_spec* spec = test_spec(9.81, 2e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    test_add_plane(spec, tch_q_identity(), 0.5);
    for (int i = 0; i < 12; ++i) {
        char name[16];
        snprintf(name, sizeof name, "box%d", i);
        tch_quat q = tch_q_normalize((tch_quat){1, 0.05 * (i % 3), 0.03 * (i % 5), 0.1});
        tch_vec3 p = {0.05 * (i % 4) - 0.1, 0.04 * (i % 3), 0.15 + 0.25 * i};
        test_add_body(spec, name, i % 2 ? TCH_GEOM_BOX : TCH_GEOM_SPHERE,
                      (tch_vec3){0.1, 0.1, 0.1}, 1, p, q);
    }
    return test_compile(spec);
}

/* Two datas of m, each stepped `steps` times from the initial state; 0 when either cannot be
 * made. */
static int two_runs(const tch_model* m, int steps, tch_data** a, tch_data** b) {
    if (tch_data_create(m, a, NULL) != TCH_OK || tch_data_create(m, b, NULL) != TCH_OK) {
        return 0;
    }
    run_steps(m, *a, steps);
    run_steps(m, *b, steps);
    return 1;
}

static void test_same_scene_gives_identical_states(void) {
    tch_model* m = small_pile();
    ENSURE(m != NULL);
    tch_data *a = NULL, *b = NULL;
    ENSURE(two_runs(m, 1500, &a, &b));
    ENSURE(memcmp(a->qpos, b->qpos, (size_t)m->nq * sizeof(tch_real)) == 0);
    ENSURE(memcmp(a->qvel, b->qvel, (size_t)m->nv * sizeof(tch_real)) == 0);
    ENSURE(a->contact_count > 0);
    tch_data_destroy(a);
    tch_data_destroy(b);
    tch_model_destroy(m);
}

typedef struct thread_job {
    const tch_model* model;
    tch_data* data;
} thread_job;

static void* thread_main(void* arg) {
    thread_job* job = arg;
    run_steps(job->model, job->data, 1500);
    return NULL;
}

static void test_two_datas_step_in_two_threads(void) {
    tch_model* m = small_pile();
    ENSURE(m != NULL);
    tch_data *a = NULL, *b = NULL, *reference = NULL;
    ENSURE(tch_data_create(m, &a, NULL) == TCH_OK && tch_data_create(m, &b, NULL) == TCH_OK &&
           tch_data_create(m, &reference, NULL) == TCH_OK);
    run_steps(m, reference, 1500);
    thread_job ja = {m, a}, jb = {m, b};
    pthread_t ta, tb;
    ENSURE(pthread_create(&ta, NULL, thread_main, &ja) == 0);
    ENSURE(pthread_create(&tb, NULL, thread_main, &jb) == 0);
    pthread_join(ta, NULL);
    pthread_join(tb, NULL);
    ENSURE(memcmp(a->qpos, reference->qpos, (size_t)m->nq * sizeof(tch_real)) == 0);
    ENSURE(memcmp(b->qpos, reference->qpos, (size_t)m->nq * sizeof(tch_real)) == 0);
    tch_data_destroy(a);
    tch_data_destroy(b);
    tch_data_destroy(reference);
    tch_model_destroy(m);
}

static void test_steps_allocate_nothing_after_warm_up(void) {
    tch_model* m = small_pile();
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    run_steps(m, d, 1000); /* the boxes land and pile up */
    long warm = d->heap_allocation_count;
    run_steps(m, d, 1000);
    ENSURE(d->heap_allocation_count == warm);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A step leaves the kinematics of the new state, with each free body's world inertia
 * R I_B R^T and its inverse; the next step reuses them, but sees a state written directly
 * into qpos and qvel between steps: the data then follows the same path as one whose
 * kinematics were recomputed by hand. */
static void test_kinematics_follow_the_state(void) {
    tch_model* m = small_pile();
    ENSURE(m != NULL);
    tch_data *a = NULL, *b = NULL;
    ENSURE(two_runs(m, 300, &a, &b));
    for (int body = 1; body < m->body_count; ++body) {
        tch_mat3 R = tch_q_to_mat3(a->body_X_WB[body].q);
        tch_mat3 I_W = tch_m3_mul(tch_m3_mul(R, m->body_total_I_BCm[body]), tch_m3_transpose(R));
        tch_mat3 product = tch_m3_mul(a->body_I_W[body], a->body_I_inv_W[body]);
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                ENSURE_NEAR(a->body_I_W[body].m[i][j], I_W.m[i][j], 1e-15);
                ENSURE_NEAR(product.m[i][j], i == j, 1e-12);
            }
        }
    }
    size_t nq = (size_t)m->nq * sizeof(tch_real), nv = (size_t)m->nv * sizeof(tch_real);
    for (int change = 0; change < 2; ++change) {
        tch_data* both[2] = {a, b};
        for (int k = 0; k < 2; ++k) {
            if (change == 0) {
                both[k]->qpos[2] += 0.3; /* lift the first body */
            } else {
                both[k]->qvel[5] += 2; /* spin it */
            }
        }
        tch_stage_kinematics(m, b);
        tch_stage_velocities(m, b);
        ENSURE(tch_forward(m, a, NULL) == TCH_OK && tch_forward(m, b, NULL) == TCH_OK);
        ENSURE(memcmp(a->geom_X_WG, b->geom_X_WG,
                      (size_t)m->geom_count * sizeof(tch_transform)) == 0);
        ENSURE(memcmp(a->body_w_W, b->body_w_W, (size_t)m->body_count * sizeof(tch_vec3)) == 0);
    }
    run_steps(m, a, 200);
    run_steps(m, b, 200);
    ENSURE(memcmp(a->qpos, b->qpos, nq) == 0 && memcmp(a->qvel, b->qvel, nv) == 0);
    tch_data_destroy(a);
    tch_data_destroy(b);
    tch_model_destroy(m);
}

static void test_divergence_names_the_body(void) {
    tch_spec* spec = test_spec(9.81, 1e-2, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.stiffness = 1e9; /* far too stiff for this step */
    opt.contact.damping = 0;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "pebble", TCH_GEOM_SPHERE, (tch_vec3){0.01, 0, 0}, 0.01,
                  (tch_vec3){0, 0, 0.009}, tch_q_identity());
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    tch_error err;
    tch_status s = TCH_OK;
    for (int i = 0; i < 1000 && s == TCH_OK; ++i) {
        s = tch_step(m, d, &err);
    }
    ENSURE(s == TCH_ERR_DIVERGED);
    ENSURE(strstr(err.message, "pebble") != NULL);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

int main(void) {
    RUN_TEST(test_box_rests_on_four_points_at_weight_depth);
    RUN_TEST(test_block_sticks_below_friction_angle);
    RUN_TEST(test_block_slides_above_friction_angle_with_coulomb_acceleration);
    RUN_TEST(test_undamped_ball_bounces_back);
    RUN_TEST(test_hunt_crossley_restitution_falls_with_speed);
    RUN_TEST(test_rk4_with_a_stateful_model_gains_no_energy);
    RUN_TEST(test_same_scene_gives_identical_states);
    RUN_TEST(test_two_datas_step_in_two_threads);
    RUN_TEST(test_steps_allocate_nothing_after_warm_up);
    RUN_TEST(test_kinematics_follow_the_state);
    RUN_TEST(test_divergence_names_the_body);
    return TEST_RESULT();
}
