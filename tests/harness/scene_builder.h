/* Scenes built in C for tests, through the public spec API (no XML needed). */
#pragma once

#include <math.h>
#include <stdio.h>

#include "touche/touche.h"

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
