/* The adaptive integrator (engine/integrator_adaptive.c, docs/integrators.md "The adaptive
 * integrator"): SUNDIALS ARKODE's SDIRK over the whole pipeline, to user tolerances. */
#include <stdlib.h>

#include "scene_builder.h"
#include "test.h"
#include "math/vec.h"
#include "touche/io.h"

static const double g = 9.81;

/* A spec for the adaptive integrator at step dt and tolerances rtol, atol; the contact model
 * `model` with stiffness k and damping b set (no default derived from the step), no friction. */
static tch_spec* adaptive_spec(double dt, double rtol, double atol, tch_contact_model model,
                               double k, double b) {
    tch_spec* spec = test_spec(g, dt, TCH_INTEGRATOR_ADAPTIVE);
    tch_option_def opt = *tch_spec_option(spec);
    opt.adaptive_rtol = rtol;
    opt.adaptive_atol = atol;
    opt.contact.model = model;
    opt.contact.law = TCH_POINT_LAW_LINEAR;
    opt.contact.stiffness = k;
    opt.contact.damping = b;
    opt.contact.friction = opt.contact.static_friction = 0;
    tch_spec_set_option(spec, &opt, NULL);
    return spec;
}

static tch_data* make_data(const tch_model* m) {
    tch_data* d = NULL;
    return m && tch_data_create(m, &d, NULL) == TCH_OK ? d : NULL;
}

static int run(const tch_model* m, tch_data* d, double seconds) {
    long steps = lround(seconds / m->timestep);
    for (long i = 0; i < steps; ++i) {
        if (tch_step(m, d, NULL) != TCH_OK) {
            return 0;
        }
    }
    return 1;
}

/* A spinning sphere thrown in the air (no floor): p(t) = p0 + v0 t - g t^2 / 2 and, its inertia
 * being isotropic, a constant spin w about z, q(t) = (cos(w t / 2), 0, 0, sin(w t / 2)). The
 * quaternion stays unit (each step ends renormalized). */
static void test_free_fall_and_spin_match_closed_forms(void) {
    const double T = 1, w = 3, v0[3] = {1, 0, 2};
    tch_spec* spec = adaptive_spec(0.01, 1e-8, 1e-10, TCH_CONTACT_POINT, 1e5, 0);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, 1,
                  (tch_vec3){0, 0, 5}, tch_q_identity());
    tch_model* m = test_compile(spec);
    tch_data* d = make_data(m);
    ENSURE(d != NULL);
    d->qvel[0] = v0[0], d->qvel[2] = v0[2], d->qvel[5] = w;
    ENSURE(run(m, d, T));
    ENSURE_NEAR(d->qpos[0], v0[0] * T, 1e-8);
    ENSURE_NEAR(d->qpos[2], 5 + v0[2] * T - 0.5 * g * T * T, 1e-8);
    ENSURE_NEAR(d->qvel[2], v0[2] - g * T, 1e-8);
    ENSURE_NEAR(d->qpos[3], cos(w * T / 2), 1e-7);
    ENSURE_NEAR(d->qpos[6], sin(w * T / 2), 1e-7);
    double norm = sqrt(d->qpos[3] * d->qpos[3] + d->qpos[4] * d->qpos[4] +
                       d->qpos[5] * d->qpos[5] + d->qpos[6] * d->qpos[6]);
    ENSURE_NEAR(norm, 1, 1e-14);
    ENSURE(d->adaptive_step.steps >= 1 && d->adaptive_total.steps >= 100);
    ENSURE(d->adaptive_total.evaluations > d->adaptive_total.steps);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Undamped and frictionless, a 1 kg box (1 x 1 x 2 m) on the volume model pressed 1.5 m g / k
 * into the floor never leaves it: a spring-mass about the rest depth m g / k,
 * z(t) = z_rest - (g / 2k) cos(sqrt(k) t). Returns the largest |z - z(t)| over the steps of
 * 0.1 s (five periods), or NAN when a step fails. */
static double spring_mass_error(double dt, double rtol, double atol) {
    const double k = 1e5, w = sqrt(k), z_rest = 1 - g / k;
    tch_spec* spec = adaptive_spec(dt, rtol, atol, TCH_CONTACT_VOLUME, k, 0);
    test_add_plane(spec, tch_q_identity(), 0);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.5, 0.5, 1}, 1,
                  (tch_vec3){0, 0, 1 - 1.5 * g / k}, tch_q_identity());
    tch_model* m = test_compile(spec);
    tch_data* d = make_data(m);
    double error = d ? 0 : NAN;
    for (int i = 1; d && i <= lround(0.1 / dt) && !isnan(error); ++i) {
        if (tch_step(m, d, NULL) != TCH_OK) {
            error = NAN;
            break;
        }
        double exact = z_rest - 0.5 * g / k * cos(w * i * dt);
        error = fmax(error, fabs(d->qpos[2] - exact));
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
    return error;
}

/* The spring-mass to the tolerance: within 1e-10 m (2e-6 of its amplitude, 4.9e-5 m) at
 * rtol 1e-8, atol 1e-10 (3.7e-12 m measured). */
static void test_spring_mass_matches_closed_form(void) {
    double error = spring_mass_error(0.002, 1e-8, 1e-10);
    printf("     spring-mass: largest error %.3e m (amplitude %.3e m)\n", error, 0.5 * g / 1e5);
    ENSURE(error < 1e-10);
}

/* Tighter tolerances, smaller errors: the spring-mass error shrinks by at least 10x per 100x on
 * rtol (and atol); about 60x measured. */
static void test_error_shrinks_with_the_tolerance(void) {
    const double rtol[3] = {1e-4, 1e-6, 1e-8};
    double error[3];
    for (int i = 0; i < 3; ++i) {
        error[i] = spring_mass_error(0.002, rtol[i], 1e-2 * rtol[i]);
        ENSURE(!isnan(error[i]));
    }
    printf("     spring-mass error at rtol 1e-4, 1e-6, 1e-8: %.3e %.3e %.3e m\n", error[0],
           error[1], error[2]);
    ENSURE(error[1] * 10 < error[0]);
    ENSURE(error[2] * 10 < error[1]);
}

/* A sphere (r = 0.1 m, 1 kg) dropped 0.2 m onto a stiff, lightly damped point contact
 * (k = 1e5 N/m, b = 20 N s/m) bounces once; at t = 0.5 s it is in its second flight. The
 * first-order linearly implicit integrator converges to the adaptive one's answer: its
 * difference at 2e-5 s is under 1% of the rebound speed and about halves at 1e-5 s. */
static void drop_ball(tch_integrator integrator, double dt, double state[2],
                      tch_adaptive_work* work) {
    tch_spec* spec = adaptive_spec(dt, 1e-7, 1e-9, TCH_CONTACT_POINT, 1e5, 20);
    tch_option_def opt = *tch_spec_option(spec);
    opt.integrator = integrator;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0);
    test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, 1,
                  (tch_vec3){0, 0, 0.3}, tch_q_identity());
    tch_model* m = test_compile(spec);
    tch_data* d = make_data(m);
    state[0] = state[1] = NAN;
    if (d && run(m, d, 0.5)) {
        state[0] = d->qpos[2];
        state[1] = d->qvel[2];
    }
    if (d && work) {
        *work = d->adaptive_total;
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
}

static void test_bounce_agrees_with_the_implicit_integrator_at_small_steps(void) {
    double adaptive[2], coarse[2], fine[2];
    tch_adaptive_work work = {0, 0, 0, 0};
    drop_ball(TCH_INTEGRATOR_ADAPTIVE, 0.005, adaptive, &work);
    drop_ball(TCH_INTEGRATOR_IMPLICIT, 2e-5, coarse, NULL);
    drop_ball(TCH_INTEGRATOR_IMPLICIT, 1e-5, fine, NULL);
    ENSURE(!isnan(adaptive[0]) && !isnan(coarse[0]) && !isnan(fine[0]));
    const double rebound = sqrt(2 * g * 0.2);
    double coarse_difference = hypot(coarse[0] - adaptive[0], 0.1 * (coarse[1] - adaptive[1]));
    double fine_difference = hypot(fine[0] - adaptive[0], 0.1 * (fine[1] - adaptive[1]));
    printf("     bounce: adaptive z %.6f m vz %.6f m/s; implicit at 2e-5 s differs by %.3e, at "
           "1e-5 s by %.3e; %ld internal steps (%ld rejected), %ld Jacobians for 100 steps\n",
           adaptive[0], adaptive[1], coarse_difference, fine_difference,
           work.steps, work.rejected,
           work.jacobians);
    ENSURE(adaptive[0] > 0.15); /* back in flight after the bounce */
    ENSURE(fabs(coarse[1] - adaptive[1]) < 0.01 * rebound);
    ENSURE(coarse_difference / fine_difference > 1.6 && coarse_difference / fine_difference < 2.4);
    ENSURE(work.steps > 100 && work.jacobians >= 1);
}

/* Tolerances out of range are refused by the spec, naming the attribute. */
static void test_bad_tolerances_are_refused(void) {
    const double bad_rtol[] = {0, -1e-6, 1, 1e-20, INFINITY};
    const double bad_atol[] = {0, -1e-6, INFINITY};
    tch_spec* spec = test_spec(g, 0.01, TCH_INTEGRATOR_ADAPTIVE);
    tch_option_def opt = *tch_spec_option(spec);
    tch_error err;
    for (size_t i = 0; i < sizeof bad_rtol / sizeof *bad_rtol; ++i) {
        tch_option_def bad = opt;
        bad.adaptive_rtol = bad_rtol[i];
        ENSURE(tch_spec_set_option(spec, &bad, &err) == TCH_ERR_INVALID_ARGUMENT);
        ENSURE(strstr(err.message, "touche:rtol") != NULL);
    }
    for (size_t i = 0; i < sizeof bad_atol / sizeof *bad_atol; ++i) {
        tch_option_def bad = opt;
        bad.adaptive_atol = bad_atol[i];
        ENSURE(tch_spec_set_option(spec, &bad, &err) == TCH_ERR_INVALID_ARGUMENT);
        ENSURE(strstr(err.message, "touche:atol") != NULL);
    }
    tch_spec_destroy(spec);
    spec = NULL;
    ENSURE(tch_mjcf_load_string("<mujoco xmlns:touche=\"urn:touche\"><option "
                                "integrator=\"adaptive\" touche:rtol=\"0\"/></mujoco>",
                                ".", "bad.xml", &spec, &err) != TCH_OK);
    printf("     %s\n", err.message);
    ENSURE(strstr(err.message, "touche:rtol") != NULL);
}

/* MJCF reads integrator="adaptive" and its tolerances, and the writer keeps them; plain MJCF
 * (for MuJoCo, which has no such integrator) gets MuJoCo's RK4 instead. */
static void test_mjcf_reads_and_writes_the_adaptive_integrator(void) {
    tch_spec* spec = NULL;
    ENSURE(tch_mjcf_load_string("<mujoco xmlns:touche=\"urn:touche\"><option "
                                "integrator=\"adaptive\" touche:rtol=\"1e-7\" "
                                "touche:atol=\"1e-9\"/></mujoco>",
                                ".", "adaptive.xml", &spec, NULL) == TCH_OK);
    const char* path = "test_adaptive_saved.xml";
    ENSURE(tch_mjcf_save(spec, path, true, NULL) == TCH_OK);
    tch_spec_destroy(spec);
    spec = NULL;
    ENSURE(tch_mjcf_load(path, &spec, NULL) == TCH_OK);
    remove(path);
    const tch_option_def* opt = tch_spec_option(spec);
    ENSURE(opt->integrator == TCH_INTEGRATOR_ADAPTIVE);
    ENSURE(opt->adaptive_rtol == 1e-7 && opt->adaptive_atol == 1e-9);
    ENSURE(tch_mjcf_save(spec, path, false, NULL) == TCH_OK); /* plain MJCF, for MuJoCo */
    tch_spec_destroy(spec);
    spec = NULL;
    ENSURE(tch_mjcf_load(path, &spec, NULL) == TCH_OK);
    remove(path);
    ENSURE(tch_spec_option(spec)->integrator == TCH_INTEGRATOR_RK4);
    tch_spec_destroy(spec);
}

/* The lcp model's impulses live in semi-implicit Euler's velocity update: refused at compile
 * time, naming the integrator. */
static void test_lcp_model_refuses_the_adaptive_integrator(void) {
    tch_spec* spec = adaptive_spec(0.01, NAN, NAN, TCH_CONTACT_LCP, 1e5, 0);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.5, 0.5, 1}, 1, (tch_vec3){0, 0, 1},
                  tch_q_identity());
    tch_model* m = NULL;
    tch_error err;
    ENSURE(tch_compile(spec, &m, &err) == TCH_ERR_UNSUPPORTED);
    ENSURE(strstr(err.message, "lcp") != NULL && strstr(err.message, "ARKODE") != NULL);
    tch_spec_destroy(spec);
}

int main(void) {
    RUN_TEST(test_free_fall_and_spin_match_closed_forms);
    RUN_TEST(test_spring_mass_matches_closed_form);
    RUN_TEST(test_error_shrinks_with_the_tolerance);
    RUN_TEST(test_bounce_agrees_with_the_implicit_integrator_at_small_steps);
    RUN_TEST(test_bad_tolerances_are_refused);
    RUN_TEST(test_mjcf_reads_and_writes_the_adaptive_integrator);
    RUN_TEST(test_lcp_model_refuses_the_adaptive_integrator);
    return TEST_RESULT();
}
