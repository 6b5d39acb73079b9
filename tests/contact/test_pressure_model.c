/* The pressure field model in the engine (src/contact/pressure.c). */
#include "math/vec.h"
#include "scene_builder.h"
#include "test.h"

/* A compliant sphere (ε = 1 - r/R) of modulus E on a rigid floor. */
static tch_model* sphere_on_floor(double E, double chi, double resolution, double z, double dt) {
    tch_spec* spec = test_spec(9.81, dt, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_PRESSURE;
    opt.contact.friction = 0;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0);
    tch_body_def b = tch_body_def_default();
    snprintf(b.name, sizeof b.name, "ball");
    b.free_joint = true;
    b.p_PB = (tch_vec3){0, 0, z};
    tch_body_id id;
    tch_spec_add_body(spec, &b, &id, NULL);
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_SPHERE;
    g.size[0] = 0.1;
    g.mass = 1;
    g.contact.modulus = E;
    g.contact.dissipation = chi;
    g.contact.resolution = resolution;
    tch_spec_add_geom(spec, id, &g, NULL, NULL);
    return test_compile(spec);
}

static void run(const tch_model* m, tch_data* d, double seconds) {
    long steps = lround(seconds / m->timestep);
    for (long i = 0; i < steps; ++i) {
        tch_step(m, d, NULL);
    }
}

/* At rest the net force carries m g, and the depth d satisfies the closed form of a sphere
 * with a linear field on a rigid half-space, F = π E d² (1 - 2d / 3R) (docs/contact-pressure.md). */
static void test_resting_sphere_sinks_to_the_closed_form_depth(void) {
    double E = 1e5, R = 0.1, mg = 9.81;
    tch_model* m = sphere_on_floor(E, 2.0, 0.01, 0.095, 1e-3);
    ENSURE(m != NULL);
    tch_data* d = NULL;
    ENSURE(tch_data_create(m, &d, NULL) == TCH_OK);
    d->contact_energy = true;
    run(m, d, 0.6);
    ENSURE(d->pair_result_count == 1);
    const tch_pair_result* p = &d->pair_results[0];
    ENSURE(p->model == TCH_CONTACT_PRESSURE && p->polygon_count > 10);
    ENSURE_REL(p->f_W.z, mg, 1e-3);
    double depth = R - d->qpos[2], closed = 0;
    for (double lo = 0, hi = R, i = 0; i < 60; ++i) { /* bisection for F(d) = m g */
        closed = (lo + hi) / 2;
        double F = TCH_PI * E * closed * closed * (1 - 2 * closed / (3 * R));
        if (F < mg) lo = closed; else hi = closed;
    }
    ENSURE_REL(depth, closed, 0.03);
    ENSURE(p->max_pressure > 0 && p->max_pressure <= E * (depth / R) * 1.0001);
    ENSURE(p->elastic_energy > 0);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* Without dissipation a dropped ball bounces back up (the pressure forces are conservative,
 * Theorem 1); with χ > 0 it loses energy (Hunt-Crossley-like dissipation, eq. 5). */
static double bounce_height(double chi) {
    tch_model* m = sphere_on_floor(1e5, chi, 0.02, 0.2, 5e-4);
    tch_data* d = NULL;
    tch_data_create(m, &d, NULL);
    double top = 0;
    for (double t = 0; t < 0.42; t += m->timestep) {
        tch_step(m, d, NULL);
        if (d->time > 0.2) top = fmax(top, d->qpos[2]);
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
    return top;
}

static void test_dissipation_sets_the_bounce(void) {
    double elastic = bounce_height(0), damped = bounce_height(2.0);
    ENSURE_NEAR(elastic, 0.2, 0.004);
    ENSURE(damped < 0.19);
}

/* Two rigid geoms have no pressure field: their pair falls back to the point model. */
static void test_rigid_pairs_fall_back_to_point(void) {
    tch_spec* spec = test_spec(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_PRESSURE;
    opt.contact.rigid = TCH_RIGIDITY_RIGID;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    test_add_body(spec, "box", TCH_GEOM_BOX, (tch_vec3){0.1, 0.1, 0.1}, 1,
                  (tch_vec3){0, 0, 0.099}, tch_q_identity());
    tch_model* m = test_compile(spec);
    ENSURE(m != NULL);
    ENSURE(tch_model_pair_params(m, 0, 1).model == TCH_CONTACT_POINT);
    tch_model_destroy(m);
}

int main(void) {
    RUN_TEST(test_resting_sphere_sinks_to_the_closed_form_depth);
    RUN_TEST(test_dissipation_sets_the_bounce);
    RUN_TEST(test_rigid_pairs_fall_back_to_point);
    return TEST_RESULT();
}
