/* The point model at its defaults (issue 12): a scene that names no integrator runs the
 * linearly implicit one with the point material of contact/params.c (1e6 N/m per point, a
 * relaxation time of 20 ms); a scene that names Euler keeps the values derived from the time
 * step (docs/contact-point.md, "Defaults"). The 13-, 25- and 50-block stacks for 10 s and the
 * piles are in bench/ (bench/run.sh, the shared comparison scenes). */
#include "contact/contact.h"
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

static tch_spec* default_point_spec(double dt, tch_integrator integrator) {
    tch_spec* spec = test_spec(9.8, dt, integrator);
    test_add_plane(spec, tch_q_identity(), 0.5);
    return spec;
}

/* The 50-block stack of the comparison scenes (1 x 1 x 2 m blocks of 1 kg placed exactly
 * touching, friction 0.5, nothing else set) at dt 5 ms for 2 s: the top block moves less than
 * 1 cm after the first 0.5 s, and the energy never exceeds its start by 1% (no work is put
 * in). Before the point material, the derived 2.5e3 N/m per corner let its top block sink
 * 4.3 m and swing by metres. */
static void test_zero_gap_fifty_block_stack_stands(void) {
    enum { blocks = 50 };
    tch_spec* spec = default_point_spec(0.005, TCH_INTEGRATOR_AUTO);
    test_add_block_stack(spec, "b", blocks, 1, 2);
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    ENSURE(m->integrator == TCH_INTEGRATOR_IMPLICIT);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    test_stack_run run = test_run_stack(m, d, blocks, 400, 100);
    ENSURE(run.ok);
    double sag = 1 + 2 * (blocks - 1) - d->body_p_WCm[blocks].z;
    printf("     top sag %.3g m, drift after 0.5 s %.3g m, energy %.6g -> max %.6g J\n", sag,
           run.drift, run.start_energy, run.highest_energy);
    ENSURE(run.drift < 0.01);
    ENSURE(sag < 0.01);
    ENSURE(run.highest_energy <= run.start_energy + 0.01 * fabs(run.start_energy));
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* A 1 kg ball of radius 0.1 m dropped from 1 m onto the floor, nothing set, never rebounds
 * higher than it fell, at three steps. */
static void test_dropped_ball_never_rebounds_higher(void) {
    const double steps[3] = {0.01, 0.002, 0.0005};
    for (int k = 0; k < 3; ++k) {
        tch_spec* spec = default_point_spec(steps[k], TCH_INTEGRATOR_AUTO);
        test_add_body(spec, "ball", TCH_GEOM_SPHERE, (tch_vec3){0.1, 0, 0}, 1,
                      (tch_vec3){0, 0, 1.1}, tch_q_identity());
        tch_model* m = test_compile(spec);
        ENSURE(m != NULL);
        tch_data* d = NULL;
        ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
        int ok;
        double highest_after_contact = test_highest_after_contact(m, d, 2.0, &ok);
        ENSURE(ok);
        printf("     dt %g: highest after the first contact %.4f m (dropped from 1.1), at "
               "rest at %.6f m\n",
               steps[k], highest_after_contact, d->body_p_WCm[1].z);
        ENSURE(highest_after_contact > 0); /* it touched */
        ENSURE(highest_after_contact < 1.1);
        ENSURE(fabs(d->body_p_WCm[1].z - 0.1) < 1e-4); /* m g / k = 9.8 um */
        tch_data_destroy(d);
        tch_model_destroy(m);
    }
}

/* The pair's resolved values: the material with the implicit integrator, whatever the step;
 * the derived m (2 pi / 25 h)^2 and critical damping with a named Euler. */
static void test_defaults_follow_the_integrator(void) {
    const double dt[2] = {0.001, 0.005};
    for (int k = 0; k < 2; ++k) {
        for (int named_euler = 0; named_euler < 2; ++named_euler) {
            tch_spec* spec = default_point_spec(
                dt[k], named_euler ? TCH_INTEGRATOR_SEMI_IMPLICIT_EULER : TCH_INTEGRATOR_AUTO);
            test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 2,
                          (tch_vec3){0, 0, 0.1}, tch_q_identity());
            tch_model* m = test_compile(spec);
            ENSURE(m != NULL);
            tch_pair_params p = tch_model_pair_params(m, 0, 1);
            ENSURE(p.model == TCH_CONTACT_POINT);
            ENSURE(p.stiffness_derived && p.damping_derived);
            if (named_euler) {
                double omega = 2 * TCH_PI / (25 * dt[k]);
                ENSURE_NEAR(p.stiffness, 2 * omega * omega, 1e-9 * p.stiffness);
                ENSURE_NEAR(p.damping, 2 * sqrt(2 * p.stiffness), 1e-9 * p.damping);
            } else {
                ENSURE(m->integrator == TCH_INTEGRATOR_IMPLICIT);
                ENSURE_NEAR(p.stiffness, 1e6, 1e-6);
                ENSURE_NEAR(p.damping, 2e4, 1e-6);
            }
            tch_model_destroy(m);
        }
    }
}

int main(void) {
    RUN_TEST(test_zero_gap_fifty_block_stack_stands);
    RUN_TEST(test_dropped_ball_never_rebounds_higher);
    RUN_TEST(test_defaults_follow_the_integrator);
    return TEST_RESULT();
}
