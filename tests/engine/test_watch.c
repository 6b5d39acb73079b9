/* The watch (touche/watch.h): its energy account against closed forms (free fall, constant
 * applied loads, an elastic bounce), and its warnings (an energy gain, a deep penetration),
 * each recorded once with the body, the pair and the time. */
#include "scene_builder.h"
#include "test.h"

static const tch_quat IDENTITY = {1, 0, 0, 0};

static tch_data* make_data(const tch_model* m) {
    tch_data* d = NULL;
    tch_error err;
    return m && tch_data_create(m, &d, &err) == TCH_OK ? d : NULL;
}

static int run(const tch_model* m, tch_data* d, int steps) {
    for (int i = 0; i < steps; ++i) {
        if (tch_step(m, d, NULL) != TCH_OK) {
            return 0;
        }
    }
    return 1;
}

/* A ball of radius 0.1 m and mass m at p, alone under gravity g. */
static tch_model* lone_ball(double g, double h, tch_integrator integrator, double m, tch_vec3 p) {
    tch_spec* spec = test_spec(g, h, integrator);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, m, p, IDENTITY);
    return test_compile(spec);
}

/* Every pair on the pressure model, modulus 1e5 Pa, tet meshes of edge `resolution`. */
static void use_pressure(tch_spec* spec, double resolution) {
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_PRESSURE;
    opt.contact.modulus = 1e5;
    opt.contact.resolution = resolution;
    tch_spec_set_option(spec, &opt, NULL);
}

static tch_watch_report report_of(const tch_data* d) {
    tch_watch_report r;
    tch_data_watch_report(d, &r);
    return r;
}

/* Semi-implicit Euler loses exactly m g^2 h^2 / 2 per step in free fall
 * (v' = v - g h, z' = z + h v': dE = m g h (v' + v) / 2 ... = -m g^2 h^2 / 2); RK4 is exact for a
 * constant acceleration. The watch's first measure is at the start of step 1, its last at the
 * start of step n: n - 1 steps apart. */
static void check_free_fall(tch_integrator integrator, double expected_loss_per_step) {
    const double g = 9.81, h = 1e-3, m = 2;
    const int n = 1000;
    tch_model* model = lone_ball(g, h, integrator, m, (tch_vec3){0, 0, 100});
    tch_data* d = make_data(model);
    ENSURE(d && run(model, d, n));
    tch_watch_report r = report_of(d);
    ENSURE(r.steps == n);
    ENSURE_NEAR(r.energy_start, m * g * 100, 1e-9);
    ENSURE_NEAR(r.energy - r.energy_start, -(n - 1) * expected_loss_per_step, 1e-9);
    ENSURE(r.largest_gain <= 1e-9);
    ENSURE(r.work_applied == 0 && r.warning_count == 0);
    ENSURE_NEAR(r.energy_scale, m * g * 0.2 + 0.5 * m * pow((n - 1) * g * h, 2), 1e-6);
    tch_data_destroy(d);
    tch_model_destroy(model);
}

static void test_free_fall_closes(void) {
    check_free_fall(TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, 0.5 * 2 * 9.81 * 9.81 * 1e-6);
    check_free_fall(TCH_INTEGRATOR_RK4, 0);
}

/* A constant force and torque on a sphere without gravity: the trapezoid rule of the watch is
 * exact for the explicit velocity update, so the work put in is the kinetic energy,
 * 1/2 m v^2 + 1/2 I w^2 with v = t F / m and w = t T / I, and nothing is gained. */
static void test_applied_work_closes(void) {
    const double h = 1e-3, m = 0.5, r = 0.1, I = 0.4 * m * r * r;
    const int n = 500;
    tch_spec* spec = test_spec(0, h, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){r, 0, 0}, m, (tch_vec3){0, 0, 1},
                  IDENTITY);
    tch_model* model = test_compile(spec);
    tch_data* d = make_data(model);
    ENSURE(d);
    d->body_force_applied_W[1] = (tch_vec3){2, -1, 0};
    d->body_torque_applied_W[1] = (tch_vec3){0, 0, 0.01};
    ENSURE(run(model, d, n));
    tch_watch_report rep = report_of(d);
    double t = (n - 1) * h, v = t * sqrt(5.0) / m, w = t * 0.01 / I;
    ENSURE_REL(rep.work_applied, 0.5 * m * v * v + 0.5 * I * w * w, 1e-9);
    ENSURE_NEAR(rep.energy - rep.energy_start, rep.work_applied, 1e-9 * rep.work_applied);
    ENSURE(fabs(rep.largest_gain) <= 1e-9 * rep.work_applied);
    ENSURE(rep.warning_count == 0);
    tch_data_destroy(d);
    tch_model_destroy(model);
}

/* A compliant ball (pressure model, no dissipation) dropped 5 cm onto a rigid floor: with the
 * model's elastic energy counted, kinetic + potential + elastic stays at its start through the
 * impact (to the explicit step's O(h) error), and the watch stays silent. */
static void test_elastic_bounce_closes(void) {
    const double g = 9.81, m = 1, R = 0.1, drop = 0.05;
    tch_spec* spec = test_spec(g, 1e-4, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    use_pressure(spec, 0.02);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.dissipation = 0;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, IDENTITY, 0.5);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){R, 0, 0}, m,
                  (tch_vec3){0, 0, R + drop}, IDENTITY);
    tch_model* model = test_compile(spec);
    tch_data* d = make_data(model);
    ENSURE(d);
    d->contact_energy = true;
    double top = 0, lowest = 1, largest_loss = 0;
    for (int i = 0; i < 2500; ++i) { /* 0.25 s: down in 0.1 s, the contact, back up */
        ENSURE(tch_step(model, d, NULL) == TCH_OK);
        lowest = fmin(lowest, d->body_p_WCm[1].z);
        if (lowest < R) top = fmax(top, d->body_p_WCm[1].z);
        tch_watch_report now = report_of(d);
        largest_loss = fmax(largest_loss, now.energy_start - now.energy);
    }
    tch_watch_report r = report_of(d);
    ENSURE(lowest < R - 1e-3);                       /* it did press into the floor */
    ENSURE(fabs(r.largest_gain) <= 5e-3 * m * g * drop);
    ENSURE(largest_loss <= 5e-3 * m * g * drop);     /* the elastic energy is counted */
    ENSURE(top > R + 0.9 * drop);                    /* and came back up */
    ENSURE(r.deepest[TCH_CONTACT_PRESSURE] > 1e-3 && r.warning_count == 0);
    tch_data_destroy(d);
    tch_model_destroy(model);
}

/* examples/box_slide.xml at dt 0.01: its set stiffness (40000 N/m on 2 kg) outruns the
 * explicit step and the box bounces higher and higher. One energy warning, naming the box and
 * its pair with the floor. */
static void test_energy_gain_warns_once(void) {
    tch_spec* spec = test_spec(9.81, 0.01, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    test_add_plane(spec, IDENTITY, 0.4);
    tch_body_id box = test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 2,
                                    (tch_vec3){0, 0, 0.1}, IDENTITY);
    (void)box;
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.stiffness = 40000;
    opt.contact.damping = 200;
    tch_spec_set_option(spec, &opt, NULL);
    tch_model* model = test_compile(spec);
    tch_data* d = make_data(model);
    ENSURE(d && run(model, d, 300));
    tch_watch_report r = report_of(d);
    ENSURE(r.warning_count == 1 && d->warning_count[TCH_WARN_ENERGY_GAIN] > 100);
    const tch_watch_warning* w = tch_data_watch_warning(d, 0);
    ENSURE(w && w->kind == TCH_WARN_ENERGY_GAIN && w->body == 1);
    ENSURE(w->geom_a == 0 && w->geom_b == 1); /* floor, box */
    ENSURE(w->time > 0 && w->time < 1 && w->value > w->limit && w->worst >= w->value);
    ENSURE(w->steps == d->warning_count[TCH_WARN_ENERGY_GAIN]);
    ENSURE(r.largest_gain > 10 * r.energy_start);
    ENSURE(tch_data_watch_warning(d, 1) == NULL);
    tch_data_reset(model, d);                 /* a reset forgets the account and the warnings */
    r = report_of(d);
    ENSURE(r.warning_count == 0 && r.steps == 0 && d->warning_count[TCH_WARN_ENERGY_GAIN] == 0);
    tch_data_destroy(d);
    tch_model_destroy(model);
}

/* A 100 kg ball of radius 5 cm on a 1000 N/m floor sinks to m g / k = 0.98 m, past half its
 * diameter: one warning for the pair, naming the ball. */
static void test_deep_penetration_warns_once(void) {
    tch_spec* spec = test_spec(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.stiffness = 1000;
    opt.contact.damping = 2000;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, IDENTITY, 0.5);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.05, 0, 0}, 100,
                  (tch_vec3){0, 0, 0.05}, IDENTITY);
    tch_model* model = test_compile(spec);
    tch_data* d = make_data(model);
    ENSURE(d && run(model, d, 1000));
    tch_watch_report r = report_of(d);
    ENSURE(r.warning_count == 1);
    const tch_watch_warning* w = tch_data_watch_warning(d, 0);
    ENSURE(w->kind == TCH_WARN_DEEP_PENETRATION && w->body == 1);
    ENSURE(w->geom_a == 0 && w->geom_b == 1);
    ENSURE_NEAR(w->limit, 0.05, 1e-12);       /* half the ball's diameter */
    ENSURE(w->value > w->limit && w->steps > 1 && w->worst > 0.1);
    ENSURE(r.deepest[TCH_CONTACT_POINT] == w->worst);
    tch_data_destroy(d);
    tch_model_destroy(model);
}

/* Lifting a falling ball by hand (tch_data_set_body_state) is input, not a gain: the account
 * takes the energy change between the last measure and the next as input, so it also takes in
 * the step between them, whose free-fall loss (m g^2 h^2 / 2) it then misses: 1000 steps
 * measured, 20 of them across a lift. */
static void test_state_set_by_hand_is_input(void) {
    tch_model* model =
        lone_ball(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, 1, (tch_vec3){0, 0, 0});
    tch_data* d = make_data(model);
    ENSURE(d);
    for (int lift = 0; lift < 20; ++lift) {
        ENSURE(run(model, d, 50));
        tch_transform X;
        tch_vec3 v, w;
        tch_data_body_state(model, d, 1, &X, &v, &w);
        X.p.z += 1;
        ENSURE(tch_data_set_body_state(model, d, 1, &X, v, w, NULL) == TCH_OK);
    }
    ENSURE(run(model, d, 1));
    tch_watch_report r = report_of(d);
    ENSURE(r.warning_count == 0 && r.largest_gain <= 1e-9);
    ENSURE_NEAR(r.energy - r.energy_start, -(1000 - 20) * 0.5 * 9.81 * 9.81 * 1e-6, 1e-9);
    tch_data_destroy(d);
    tch_model_destroy(model);
}

/* The pressure model's patch carries the depth its field tells (the deepest polygon vertex's
 * pressure over the field's gradient): a ball of radius 0.1 m held 1 cm into the floor reports
 * the 1 cm within 8%: the mesh's surface points stand outside the sphere by up to about
 * h²/4R (h = 0.02 m: 1e-3 m, 0.6 mm measured), as its surface is fitted to cut through the
 * sphere rather than be inscribed in it (docs/pressure-meshes.md). */
static void test_pressure_depth(void) {
    tch_spec* spec = test_spec(0, 1e-4, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    use_pressure(spec, 0.02);
    test_add_plane(spec, IDENTITY, 0.5);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, 1,
                  (tch_vec3){0, 0, 0.09}, IDENTITY);
    tch_model* model = test_compile(spec);
    tch_data* d = make_data(model);
    ENSURE(d && run(model, d, 1));
    ENSURE_NEAR(report_of(d).deepest[TCH_CONTACT_PRESSURE], 0.01, 8e-4);
    tch_data_destroy(d);
    tch_model_destroy(model);
}

static void test_settings(void) {
    tch_model* model =
        lone_ball(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, 1, (tch_vec3){0, 0, 0});
    tch_data* d = make_data(model);
    ENSURE(d);
    tch_watch_settings s = tch_data_watch_settings(d);
    ENSURE(s.enabled && s.energy_tolerance == 0.1 && s.penetration_fraction == 0.5);
    tch_watch_settings bad = s;
    bad.energy_tolerance = -1;
    tch_error err;
    ENSURE(tch_data_set_watch_settings(d, &bad, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_data_watch_settings(d).energy_tolerance == 0.1);
    d->body_force_applied_W[1] = (tch_vec3){0, 0, 20}; /* work before the watch stops ... */
    ENSURE(run(model, d, 10) && report_of(d).work_applied > 0);
    d->body_force_applied_W[1] = (tch_vec3){0, 0, 0};
    s.enabled = false;
    ENSURE(tch_data_set_watch_settings(d, &s, &err) == TCH_OK);
    ENSURE(run(model, d, 10) && report_of(d).steps == 10);
    s.enabled = true; /* ... is not in the new account, nor the fall it did not watch */
    ENSURE(tch_data_set_watch_settings(d, &s, &err) == TCH_OK);
    ENSURE(run(model, d, 100));
    tch_watch_report r = report_of(d);
    ENSURE(r.steps == 110 && r.work_applied == 0 && r.warning_count == 0);
    ENSURE(r.largest_gain <= 1e-9);
    ENSURE_NEAR(r.energy - r.energy_start, -99 * 0.5 * 9.81 * 9.81 * 1e-6, 1e-9);
    tch_data_destroy(d);
    tch_model_destroy(model);
}

int main(void) {
    RUN_TEST(test_free_fall_closes);
    RUN_TEST(test_applied_work_closes);
    RUN_TEST(test_elastic_bounce_closes);
    RUN_TEST(test_energy_gain_warns_once);
    RUN_TEST(test_deep_penetration_warns_once);
    RUN_TEST(test_state_set_by_hand_is_input);
    RUN_TEST(test_pressure_depth);
    RUN_TEST(test_settings);
    return TEST_RESULT();
}
