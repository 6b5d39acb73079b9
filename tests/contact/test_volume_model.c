/* The contact-volume model in the engine (src/contact/volume.c): resting, slopes, spinning. */
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

static tch_model* box_on_plane(double tilt, double mu, double k, double b, double dt) {
    tch_spec* spec = test_spec(9.81, dt, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_VOLUME;
    opt.contact.stiffness = k;
    opt.contact.damping = b;
    opt.contact.tangential_stiffness = k;
    opt.contact.tangential_damping = b;
    tch_spec_set_option(spec, &opt, NULL);
    tch_quat q = tch_q_axis_angle((tch_vec3){0, 1, 0}, tilt);
    test_add_plane(spec, q, mu);
    tch_vec3 p = tch_q_rotate(q, (tch_vec3){0, 0, 0.1 - 9.81 / k});
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1, p, q);
    return test_compile(spec);
}

static void run(const tch_model* m, tch_data* d, double seconds) {
    long steps = lround(seconds / m->timestep);
    for (long i = 0; i < steps; ++i) {
        tch_step(m, d, NULL);
    }
}

/* With a uniform depth d the normal force is k^N d (eq. 7 integrated): at rest d = m g / k^N,
 * and the reported overlap volume is that depth times the face area. */
static void test_resting_box_sinks_weight_over_stiffness(void) {
    double k = 2e4;
    tch_model* m = box_on_plane(0, 0.5, k, 200, 1e-3);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    run(m, d, 2.0);
    ENSURE(d->pair_result_count == 1);
    const tch_pair_result* p = &d->pair_results[0];
    ENSURE(p->model == TCH_CONTACT_VOLUME && p->polygon_count == 1);
    ENSURE_REL(p->f_W.z, 9.81, 1e-6);
    ENSURE_REL(d->contacts[p->contact_start].depth, 9.81 / k, 1e-3);
    ENSURE_REL(p->area, 0.04, 1e-6);
    ENSURE_REL(p->volume, 0.04 * 9.81 / k, 1e-3);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static double slide(double tilt, double mu, double seconds, double* drift_late) {
    tch_model* m = box_on_plane(tilt, mu, 2e4, 200, 1e-3);
    tch_data* d = NULL;
    tch_data_create(m, &d, NULL);
    run(m, d, 1.0);
    tch_vec3 down = tch_q_rotate(tch_q_axis_angle((tch_vec3){0, 1, 0}, tilt), (tch_vec3){1, 0, 0});
    tch_vec3 x1 = d->body_X_WB[1].p;
    double v1 = tch_v3_dot(d->body_v_WCm[1], down);
    run(m, d, seconds);
    double dist = tch_v3_dot(tch_v3_sub(d->body_X_WB[1].p, x1), down);
    *drift_late = dist;
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 2 * (dist - v1 * seconds) / (seconds * seconds);
}

/* Below the friction angle the static springs hold the block; above it the block slides with
 * a = g (sin - mu cos) (dynamic friction, eqs. 13-17). */
static void test_block_on_slope_sticks_or_slides(void) {
    double drift = 0;
    slide(0.3, 0.5, 9.0, &drift);
    ENSURE(fabs(drift) < 1e-4);
    double accel = slide(0.5, 0.3, 1.0, &drift);
    ENSURE_REL(accel, 9.81 * (sin(0.5) - 0.3 * cos(0.5)), 0.02);
}

/* A box spinning flat on the floor stops: the distributed friction gives a torque about the
 * normal (Hasegawa and Sato, Fig. 4), which one friction point at the centre would not. */
static void test_spinning_box_stops_by_friction_torque(void) {
    tch_model* m = box_on_plane(0, 0.5, 2e4, 200, 1e-3);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    run(m, d, 0.5);
    d->qvel[5] = 10; /* spin about the vertical, rad/s */
    run(m, d, 0.05);
    ENSURE(d->qvel[5] < 10 && d->qvel[5] > 0);
    run(m, d, 3.0);
    ENSURE(fabs(d->qvel[5]) < 1e-3);
    ENSURE(tch_v3_norm(d->body_v_WCm[1]) < 1e-3);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

int main(void) {
    RUN_TEST(test_resting_box_sinks_weight_over_stiffness);
    RUN_TEST(test_block_on_slope_sticks_or_slides);
    RUN_TEST(test_spinning_box_stops_by_friction_torque);
    return TEST_RESULT();
}
