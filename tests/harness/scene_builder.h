/* Scenes built in C for tests, through the public spec API (no XML needed). */
#pragma once

#include <math.h>
#include <stdio.h>

#include "touche/touche.h"

/* The model of an MJCF text (files it names are read relative to the working directory), or
 * NULL with *err filled. */
static inline tch_model* test_compile_xml(const char* xml, tch_error* err) {
    tch_spec* spec = NULL;
    tch_model* model = NULL;
    if (tch_mjcf_load_string(xml, ".", "scene.xml", &spec, err) == TCH_OK) {
        tch_compile(spec, &model, err);
    }
    tch_spec_destroy(spec);
    return model;
}

/* A spec with gravity g along -z, the given step and integrator, and the point model. */
static inline tch_spec* test_spec(double g, double dt, tch_integrator integrator) {
    tch_spec* spec = tch_spec_create();
    tch_option_def opt = tch_option_def_default();
    opt.timestep = dt;
    opt.gravity = (tch_vec3){0, 0, -g};
    opt.integrator = integrator;
    tch_spec_set_option(spec, &opt, NULL);
    return spec;
}

/* A static plane through the origin whose normal is the z axis rotated by q. */
static inline tch_geom_id test_add_plane(tch_spec* spec, tch_quat q, double friction) {
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_PLANE;
    g.q_BG = q;
    g.contact.friction = friction;
    snprintf(g.name, sizeof g.name, "floor");
    tch_geom_id id = {0};
    tch_spec_add_geom(spec, TCH_WORLD_BODY, &g, &id, NULL);
    return id;
}

/* A free body at p with orientation q carrying one geom of `type` and `size`, of mass m. */
static inline tch_body_id test_add_body(tch_spec* spec, const char* name, tch_geom_type type,
                                        tch_vec3 size, double mass, tch_vec3 p, tch_quat q) {
    tch_body_def b = tch_body_def_default();
    snprintf(b.name, sizeof b.name, "%s", name);
    b.free_joint = true;
    b.p_PB = p;
    b.q_PB = q;
    tch_body_id id = {0};
    tch_spec_add_body(spec, &b, &id, NULL);
    tch_geom_def g = tch_geom_def_default();
    snprintf(g.name, sizeof g.name, "%s", name);
    g.type = type;
    g.size[0] = size.x, g.size[1] = size.y, g.size[2] = size.z;
    g.mass = mass;
    tch_spec_add_geom(spec, id, &g, NULL, NULL);
    return id;
}

/* A column of `count` 1 x 1 x 2 m, 1 kg boxes named prefix0, prefix1, ... (Hasegawa and Sato's
 * blocks), the lowest centred at z = bottom and each next one `pitch` higher (2: exactly
 * touching). */
static inline void test_add_block_stack(tch_spec* spec, const char* prefix, int count,
                                        double bottom, double pitch) {
    for (int i = 0; i < count; ++i) {
        char name[32];
        snprintf(name, sizeof name, "%s%d", prefix, i);
        test_add_body(spec, name, TCH_GEOM_BOX, (tch_vec3){0.5, 0.5, 1}, 1,
                      (tch_vec3){0, 0, bottom + pitch * i}, (tch_quat){1, 0, 0, 0});
    }
}

static inline tch_model* test_compile(tch_spec* spec) {
    tch_model* model = NULL;
    tch_error err;
    if (tch_compile(spec, &model, &err) != TCH_OK) {
        fprintf(stderr, "compile failed: %s\n", err.message);
    }
    tch_spec_destroy(spec);
    return model;
}

/* What a run of a stack (test_add_block_stack) shows: its top block's largest drift from where
 * it was after the first `settle` steps, m, and the energy at the start and at its highest, J.
 * ok is 0 when a step failed (the run stops there). */
typedef struct test_stack_run {
    double drift, start_energy, highest_energy;
    int ok;
} test_stack_run;

/* Steps data `steps` times; `top` is the top block's body. */
static inline test_stack_run test_run_stack(const tch_model* m, tch_data* d, int top, int steps,
                                            int settle) {
    test_stack_run run = {0, tch_data_energy(m, d), tch_data_energy(m, d), 1};
    tch_vec3 settled = {0, 0, 0};
    for (int step = 0; step < steps && run.ok; ++step) {
        run.ok = tch_step(m, d, NULL) == TCH_OK;
        run.highest_energy = fmax(run.highest_energy, tch_data_energy(m, d));
        tch_vec3 p = d->body_p_WCm[top];
        if (step == settle - 1) {
            settled = p;
        } else if (step >= settle) {
            run.drift = fmax(run.drift, hypot(hypot(p.x - settled.x, p.y - settled.y),
                                              p.z - settled.z));
        }
    }
    return run;
}

/* Steps data for `seconds`: the highest centre-of-mass height of body 1 from the first step
 * with a contact on, or -1 when no contact came (or a step failed: *ok 0). */
static inline double test_highest_after_contact(const tch_model* m, tch_data* d, double seconds,
                                                int* ok) {
    double highest = -1;
    int touched = 0;
    *ok = 1;
    for (long i = 0; i < lround(seconds / m->timestep) && *ok; ++i) {
        *ok = tch_step(m, d, NULL) == TCH_OK;
        touched |= d->contact_count > 0;
        if (touched) {
            highest = fmax(highest, d->body_p_WCm[1].z);
        }
    }
    return highest;
}
