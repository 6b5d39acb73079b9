/* Whole simulation steps (tch_step: kinematics, collision, contact forces, dynamics,
 * integration) with the pressure model at meshes of about 1e3, 1e4 and 1e5 tets, beside the
 * point model on the same scenes:
 *
 *     sphere-sphere  a free compliant sphere (R = 0.5 m, 1 kg) resting on a static compliant one
 *     sphere-box     the free sphere resting on a static rigid box (half 0.4 m)
 *     box-plane      a free compliant box (half 0.4 m, 1 kg) resting on a rigid plane
 *
 * E = 1e5 Pa, χ = 1 s/m, μ = 0.5, gravity 9.81, dt 1 ms, semi-implicit Euler. Each scene starts
 * just touching, runs 50 steps to come into contact, then is timed over a fixed number of steps
 * (best mean of three rounds). The elastic energy is not computed (tch_data.contact_energy off).
 *
 *     bench_pressure_step_timing [max_level]     (levels 0, 1, 2: about 1e3, 1e4, 1e5 tets;
 *                                                 default 2)
 *
 * stdout CSV: scene,model,tets,polygons_or_points (of the pair after the run),us_per_step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "pressure_bench.h"
#include "touche/touche.h"

static const double sphere_radius = 0.5, box_half = 0.4;

typedef enum scene { SPHERE_SPHERE, SPHERE_BOX, BOX_PLANE, SCENE_COUNT } scene;

static const char* const scene_names[SCENE_COUNT] = {"sphere-sphere", "sphere-box", "box-plane"};

static tch_contact_params compliant(double resolution) {
    tch_contact_params c = tch_contact_params_unset();
    c.rigid = TCH_RIGIDITY_COMPLIANT;
    c.modulus = 1e5;
    c.dissipation = 1;
    c.resolution = resolution;
    return c;
}

static tch_contact_params rigid(void) {
    tch_contact_params c = tch_contact_params_unset();
    c.rigid = TCH_RIGIDITY_RIGID;
    return c;
}

static void add_geom(tch_spec* spec, tch_body_id body, tch_geom_type type, double size,
                     tch_contact_params c) {
    tch_geom_def g = tch_geom_def_default();
    g.type = type;
    g.size[0] = g.size[1] = g.size[2] = size;
    g.mass = 1;
    g.contact = c;
    tch_spec_add_geom(spec, body, &g, NULL, NULL);
}

static tch_body_id add_body(tch_spec* spec, bool free_joint, tch_vec3 p_WB) {
    tch_body_def b = tch_body_def_default();
    b.free_joint = free_joint;
    b.p_PB = p_WB;
    tch_body_id id = {0};
    tch_spec_add_body(spec, &b, &id, NULL);
    return id;
}

static tch_model* make_scene(scene s, tch_contact_model model, double sphere_h, double box_h) {
    tch_spec* spec = tch_spec_create();
    tch_option_def opt = tch_option_def_default();
    opt.timestep = 1e-3;
    opt.gravity = (tch_vec3){0, 0, -9.81};
    opt.contact.model = model;
    opt.contact.friction = 0.5;
    tch_spec_set_option(spec, &opt, NULL);
    if (s == SPHERE_SPHERE) {
        add_geom(spec, add_body(spec, false, tch_v3_zero()), TCH_GEOM_SPHERE, sphere_radius,
                 compliant(sphere_h));
        add_geom(spec, add_body(spec, true, (tch_vec3){0.05, 0, 2 * sphere_radius}),
                 TCH_GEOM_SPHERE, sphere_radius, compliant(sphere_h));
    } else if (s == SPHERE_BOX) {
        add_geom(spec, add_body(spec, false, tch_v3_zero()), TCH_GEOM_BOX, box_half, rigid());
        add_geom(spec, add_body(spec, true, (tch_vec3){0.05, 0, box_half + sphere_radius}),
                 TCH_GEOM_SPHERE, sphere_radius, compliant(sphere_h));
    } else {
        tch_geom_def plane = tch_geom_def_default();
        plane.type = TCH_GEOM_PLANE;
        plane.size[0] = plane.size[1] = 5, plane.size[2] = 1;
        tch_spec_add_geom(spec, TCH_WORLD_BODY, &plane, NULL, NULL);
        add_geom(spec, add_body(spec, true, (tch_vec3){0, 0, box_half}), TCH_GEOM_BOX, box_half,
                 compliant(box_h));
    }
    tch_model* m = NULL;
    tch_error err = {0};
    if (tch_compile(spec, &m, &err) != TCH_OK) {
        fprintf(stderr, "%s: %s\n", scene_names[s], err.message);
        m = NULL;
    }
    tch_spec_destroy(spec);
    return m;
}

/* Tets of the compliant geom the generator makes at these resolutions. */
static int tet_count(scene s, double sphere_h, double box_h) {
    tch_tetmesh mesh = {0};
    tch_status status =
        s == BOX_PLANE
            ? tch_tetmesh_make_box((tch_vec3){box_half, box_half, box_half}, box_h, &mesh, NULL)
            : tch_tetmesh_make_sphere(sphere_radius, sphere_h, &mesh, NULL);
    int count = status == TCH_OK ? mesh.tet_count : 0;
    tch_tetmesh_free(&mesh);
    return count;
}

static int measure(scene s, tch_contact_model model, double sphere_h, double box_h, int steps) {
    tch_model* m = make_scene(s, model, sphere_h, box_h);
    tch_data* d = NULL;
    if (!m || tch_data_create(m, &d, NULL) != TCH_OK) {
        tch_model_destroy(m);
        return 1;
    }
    for (int i = 0; i < 50; ++i) {
        tch_step(m, d, NULL);
    }
    double best = INFINITY;
    for (int round = 0; round < 3; ++round) {
        double t0 = bench_now_seconds();
        for (int i = 0; i < steps; ++i) {
            tch_step(m, d, NULL);
        }
        best = fmin(best, (bench_now_seconds() - t0) / steps);
    }
    /* the patch's polygons (pressure) or the contact points (point) of the one pair */
    const tch_pair_result* pair = d->pair_result_count > 0 ? &d->pair_results[0] : NULL;
    int elements =
        !pair ? 0 : (model == TCH_CONTACT_POINT ? pair->contact_count : pair->polygon_count);
    printf("%s,%s,%d,%d,%.1f\n", scene_names[s], tch_contact_model_name(model),
           tet_count(s, sphere_h, box_h), elements, best * 1e6);
    fflush(stdout);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}

int main(int argc, char** argv) {
    int max_level = argc > 1 ? atoi(argv[1]) : 2;
    pb_print_run_header("bench_pressure_step_timing");
    printf("scene,model,tets,polygons_or_points,us_per_step\n");
    /* the resolutions of bench_pressure: about 1e3, 1e4, 1e5 tets */
    static const double sphere_h[3] = {0.2, 0.1, 0.05}, box_h[3] = {0.15, 0.07, 0.035};
    static const int steps[3] = {200, 40, 5};
    int status = 0;
    for (int level = 0; level <= max_level && level < 3; ++level) {
        for (int s = 0; s < SCENE_COUNT; ++s) {
            status |= measure((scene)s, TCH_CONTACT_PRESSURE, sphere_h[level], box_h[level],
                              steps[level]);
            status |=
                measure((scene)s, TCH_CONTACT_POINT, sphere_h[level], box_h[level], steps[level]);
        }
    }
    return status;
}
