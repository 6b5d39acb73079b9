/* Elandt et al. 2019, Fig. 4: a pencil in a pinch grasp between two compliant fingertips.
 * Loosening the grasp lets it turn under gravity about the axis through the fingertips;
 * tightening stops it: the frictional (scrubbing) moment of the contact patch about its
 * normal holds it, which a point contact cannot give (one point has no moment about its
 * normal).
 *
 * Scene: the pencil is a rigid capsule (radius 4 mm, segment 0.15 m, 0.03 kg) along x, held
 * 0.01 m from its centre of mass; the fingertips are compliant spheres (radius 20 mm,
 * E = 2e6 Pa, χ = 1 s/m, resolution 3 mm) welded to the world on either side along y,
 * pressed `squeeze` into the pencil (kinematic grasp); μ = 0.5, stiction speed v_s = 2e-3 m/s,
 * gravity 9.81 along -z, dt = v_s / (100 m/s) by default, the step of the recorded runs
 * (--dt S sets it; --implicit takes the implicit integrator, whose friction is the
 * regularized law integrated implicitly: docs/contact-pressure.md, "Implicit integration").
 * The `point` runs use the same scene with the point model, its stiffness chosen so that the
 * squeeze gives the same normal force as the pressure model's first step (linear law, damping
 * 2 N s/m, semi-implicit friction).
 *
 *     bench_pressure_pencil [seconds] [--stiction V] [--dt S] [--implicit] [--series FILE]
 *                                                                      (default 0.5 s)
 *
 * stdout, one line per run: model,squeeze_mm,normal_force_N,moment_capacity_estimate_Nm,
 * gravity_moment_Nm,angle_at_0.1s,angle_at_end (rad, how far the free end has turned down),
 * spin_at_end (|w_y|, rad/s),drop_mm (how far the grasp point slid down),us_per_step.
 * FILE: model,squeeze_mm,t,angle. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "pressure_bench.h"
#include "touche/touche.h"

static const double pencil_radius = 0.004, pencil_half = 0.075, pencil_mass = 0.03,
                    grasp_offset = 0.01, finger_radius = 0.02, modulus = 2e6, mu = 0.5,
                    gravity = 9.81;

/* The run's settings from the command line. */
typedef struct settings {
    double seconds, stiction, dt;
    tch_integrator integrator;
    FILE* series;
} settings;

typedef struct run_result {
    double normal_force, angle_early, angle_end, spin_end, drop, us_per_step;
} run_result;

static tch_contact_params contact_params(tch_contact_model model, double stiffness,
                                         double stiction) {
    tch_contact_params c = tch_contact_params_unset();
    c.model = model;
    c.friction = mu;
    c.static_friction = mu;
    c.stiction_velocity = stiction;
    if (model == TCH_CONTACT_POINT) {
        c.law = TCH_POINT_LAW_LINEAR;
        c.stiffness = 2 * stiffness; /* the two geoms' stiffnesses combine in series */
        c.damping = 2;
    }
    return c;
}

static void add_finger(tch_spec* spec, double side, double squeeze, tch_contact_params c) {
    tch_body_def b = tch_body_def_default();
    snprintf(b.name, sizeof b.name, side > 0 ? "finger_left" : "finger_right");
    b.p_PB = (tch_vec3){0, side * (pencil_radius + finger_radius - squeeze), 0};
    tch_body_id id = {0};
    tch_spec_add_body(spec, &b, &id, NULL);
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_SPHERE;
    g.size[0] = finger_radius;
    g.contact = c;
    g.contact.rigid = TCH_RIGIDITY_COMPLIANT;
    g.contact.modulus = modulus;
    g.contact.dissipation = 1;
    g.contact.resolution = 3e-3;
    tch_spec_add_geom(spec, id, &g, NULL, NULL);
}

static tch_model* pencil_scene(tch_contact_model model, double squeeze, double stiffness,
                               const settings* set) {
    tch_spec* spec = tch_spec_create();
    tch_option_def opt = tch_option_def_default();
    opt.timestep = set->dt;
    opt.integrator = set->integrator;
    opt.gravity = (tch_vec3){0, 0, -gravity};
    opt.contact.model = model;
    tch_spec_set_option(spec, &opt, NULL);
    tch_contact_params c = contact_params(model, stiffness, set->stiction);
    add_finger(spec, 1, squeeze, c);
    add_finger(spec, -1, squeeze, c);
    tch_body_def b = tch_body_def_default();
    snprintf(b.name, sizeof b.name, "pencil");
    b.free_joint = true;
    tch_body_id pencil = {0};
    tch_spec_add_body(spec, &b, &pencil, NULL);
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_CAPSULE;
    g.size[0] = pencil_radius;
    g.size[1] = pencil_half;
    g.p_BG = (tch_vec3){grasp_offset, 0, 0};
    g.q_BG = tch_q_axis_angle((tch_vec3){0, 1, 0}, TCH_PI / 2);
    g.mass = pencil_mass;
    g.contact = c;
    g.contact.rigid = TCH_RIGIDITY_RIGID;
    g.contact.resolution = 1e-3;
    tch_spec_add_geom(spec, pencil, &g, NULL, NULL);
    tch_model* m = NULL;
    tch_error err = {0};
    if (tch_compile(spec, &m, &err) != TCH_OK) {
        fprintf(stderr, "pencil: %s\n", err.message);
        m = NULL;
    }
    tch_spec_destroy(spec);
    return m;
}

/* How far the free end has turned down about y, rad. */
static double pencil_angle(const tch_data* d, int body) {
    tch_vec3 axis = tch_q_rotate(d->body_X_WB[body].q, (tch_vec3){1, 0, 0});
    return -atan2(axis.z, axis.x);
}

/* Normal force of the first pair (along y). */
static double grasp_force(const tch_data* d) {
    return d->pair_result_count > 0 ? fabs(d->pair_results[0].f_W.y) : 0;
}

static int run(tch_contact_model model, double squeeze, double stiffness, const settings* set,
               run_result* out) {
    tch_model* m = pencil_scene(model, squeeze, stiffness, set);
    tch_data* d = NULL;
    if (!m || tch_data_create(m, &d, NULL) != TCH_OK) {
        tch_model_destroy(m);
        return 1;
    }
    int body = m->body_count - 1;
    long steps = lround(set->seconds / set->dt);
    double elapsed = 0;
    memset(out, 0, sizeof *out);
    for (long i = 1; i <= steps; ++i) {
        double t0 = bench_now_seconds();
        tch_step(m, d, NULL);
        elapsed += bench_now_seconds() - t0;
        if (i == 1) {
            out->normal_force = grasp_force(d);
        }
        if (i == lround(0.1 / set->dt)) {
            out->angle_early = pencil_angle(d, body);
        }
        if (set->series && i % 500 == 0) {
            fprintf(set->series, "%s,%.2f,%.4f,%.5f\n", tch_contact_model_name(model),
                    squeeze * 1e3, d->time, pencil_angle(d, body));
        }
    }
    out->angle_end = pencil_angle(d, body);
    out->spin_end = fabs(d->body_w_W[body].y);
    out->drop = -d->body_X_WB[body].p.z;
    out->us_per_step = elapsed * 1e6 / (double)steps;
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}

static void print_run(const char* model, double squeeze, const run_result* r) {
    /* a uniform patch of radius a holds μ F (2/3) a about its normal; a ≈ √(R_eff δ) with the
     * pencil's and the fingertip's radii: a rough estimate, printed beside the gravity moment */
    double a = sqrt(squeeze * finger_radius * pencil_radius / (finger_radius + pencil_radius) * 2);
    double capacity = 2 * mu * r->normal_force * 2.0 / 3.0 * a;
    printf("%s,%.2f,%.3f,%.2e,%.2e,%.4f,%.4f,%.4f,%.3f,%.1f\n", model, squeeze * 1e3,
           r->normal_force, strcmp(model, "point") == 0 ? 0.0 : capacity,
           pencil_mass * gravity * grasp_offset, r->angle_early, r->angle_end, r->spin_end,
           r->drop * 1e3, r->us_per_step);
}

int main(int argc, char** argv) {
    settings set = {.seconds = 0.5, .stiction = 2e-3, .dt = 0, .series = NULL};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--series") == 0 && i + 1 < argc) {
            set.series = fopen(argv[++i], "w");
            if (set.series)
                fprintf(set.series, "model,squeeze_mm,t,angle\n");
        } else if (strcmp(argv[i], "--stiction") == 0 && i + 1 < argc) {
            set.stiction = atof(argv[++i]);
        } else if (strcmp(argv[i], "--dt") == 0 && i + 1 < argc) {
            set.dt = atof(argv[++i]);
        } else if (strcmp(argv[i], "--implicit") == 0) {
            set.integrator = TCH_INTEGRATOR_IMPLICIT;
        } else {
            set.seconds = atof(argv[i]);
        }
    }
    set.dt = set.dt > 0 ? set.dt : set.stiction / 100;
    pb_print_run_header("bench_pressure_pencil");
    printf("# stiction speed %g m/s, dt %g s, %s\n", set.stiction, set.dt,
           tch_integrator_description(set.integrator));
    printf("model,squeeze_mm,normal_force_N,moment_capacity_estimate_Nm,gravity_moment_Nm,"
           "angle_at_0.1s,angle_at_end,spin_at_end,drop_mm,us_per_step\n");
    static const double squeezes[2] = {0.7e-3, 1.2e-3};
    int status = 0;
    for (int k = 0; k < 2; ++k) {
        run_result pressure, point;
        status |= run(TCH_CONTACT_PRESSURE, squeezes[k], 0, &set, &pressure);
        print_run("pressure", squeezes[k], &pressure);
        double stiffness = pressure.normal_force / squeezes[k];
        status |= run(TCH_CONTACT_POINT, squeezes[k], stiffness, &set, &point);
        print_run("point", squeezes[k], &point);
        fflush(stdout);
    }
    if (set.series)
        fclose(set.series);
    return status;
}
