#include "anchor_scene.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "touche/touche.h"

bool anchor_scene_alloc(anchor_scene* scene, int body_count, int geom_count) {
    scene->body_count = body_count;
    scene->geom_count = geom_count;
    scene->bodies = calloc((size_t)body_count + 1, sizeof *scene->bodies);
    scene->geoms = calloc((size_t)geom_count + 1, sizeof *scene->geoms);
    return scene->bodies && scene->geoms;
}

void anchor_scene_free(anchor_scene* scene) {
    free(scene->bodies);
    free(scene->geoms);
    *scene = (anchor_scene){0};
}

bool anchor_geom_type_supported(int type) {
    return type == ANCHOR_GEOM_PLANE || type == ANCHOR_GEOM_SPHERE ||
           type == ANCHOR_GEOM_CAPSULE || type == ANCHOR_GEOM_CYLINDER || type == ANCHOR_GEOM_BOX;
}

/* Frame C: origin at Cm; axes those of B, or the principal axes (columns of V in
 * I_B = V diag(d) V^T, so R_BC = V and I_C = V^T I_B V = diag(d)). */
tch_transform anchor_body_describe(anchor_body* out, tch_transform X_WB, tch_real mass,
                                   tch_vec3 p_BCm, tch_mat3 I_BCm, bool principal_axes) {
    tch_transform X_BC = {tch_q_identity(), p_BCm};
    out->I_C = I_BCm;
    if (principal_axes) {
        tch_vec3 moments;
        tch_mat3 V;
        tch_m3_symmetric_eigen(I_BCm, &moments, &V);
        X_BC.q = tch_q_from_mat3(V);
        out->I_C = tch_m3_diag(moments);
    }
    out->X_WC = tch_x_mul(X_WB, X_BC);
    out->mass = mass;
    return X_BC;
}

tch_real anchor_pair_friction(const anchor_scene* scene, int geom_a, int geom_b) {
    return fmax(scene->geoms[geom_a].friction, scene->geoms[geom_b].friction);
}

static bool check_geom_types(const tch_model* model, char* why, size_t why_size) {
    for (int g = 0; g < model->geom_count; ++g) {
        if (!anchor_geom_type_supported(model->geom_type[g])) {
            snprintf(why, why_size, "geom %d (%s) is a %s: the anchors build only planes, spheres,"
                     " capsules, cylinders and boxes", g, model->geom_name[g],
                     tch_geom_type_name((tch_geom_type)model->geom_type[g]));
            return false;
        }
    }
    return true;
}

static tch_transform initial_pose(const tch_model* model, int body) {
    const tch_real* q = model->qpos0 + model->body_qpos_adr[body];
    return (tch_transform){{q[3], q[4], q[5], q[6]}, {q[0], q[1], q[2]}};
}

/* Bodies: one per free body, in body order; body_index[b] maps touche's index to ours. */
static void describe_bodies(const tch_model* model, bool principal_axes, anchor_scene* out,
                            int* body_index, tch_transform* X_BC) {
    int n = 0;
    for (int b = 0; b < model->body_count; ++b) {
        body_index[b] = -1;
        if (!model->body_free[b]) {
            continue;
        }
        body_index[b] = n;
        X_BC[n] = anchor_body_describe(&out->bodies[n], initial_pose(model, b),
                                       model->body_total_mass[b], model->body_total_p_BCm[b],
                                       model->body_total_I_BCm[b], principal_axes);
        ++n;
    }
}

static void describe_geoms(const tch_model* model, anchor_scene* out, const int* body_index,
                           const tch_transform* X_BC) {
    for (int g = 0; g < model->geom_count; ++g) {
        anchor_geom* geom = &out->geoms[g];
        int root = model->body_root[model->geom_body[g]];
        geom->type = (anchor_geom_type)model->geom_type[g];
        memcpy(geom->size, model->geom_size[g], sizeof geom->size);
        geom->body = root == 0 ? -1 : body_index[root];
        geom->X_CG = root == 0 ? model->geom_X_RG[g]
                               : tch_x_relative(X_BC[geom->body], model->geom_X_RG[g]);
        tch_real mu = model->geom_contact[g].friction;
        geom->friction = isnan(mu) ? model->contact_default.friction : mu;
    }
}

static bool describe_model(const tch_model* model, bool principal_axes, anchor_scene* out,
                           char* why, size_t why_size) {
    if (!check_geom_types(model, why, why_size)) {
        return false;
    }
    int* body_index = calloc((size_t)model->body_count, sizeof *body_index);
    tch_transform* X_BC = calloc((size_t)model->free_count + 1, sizeof *X_BC);
    bool ok = body_index && X_BC && anchor_scene_alloc(out, model->free_count, model->geom_count);
    if (ok) {
        out->timestep = model->timestep;
        out->gravity = model->gravity;
        describe_bodies(model, principal_axes, out, body_index, X_BC);
        describe_geoms(model, out, body_index, X_BC);
    } else {
        snprintf(why, why_size, "out of memory");
    }
    free(body_index);
    free(X_BC);
    return ok;
}

bool anchor_scene_load_touche(const char* path, bool principal_axes, anchor_scene* out,
                              char* why, size_t why_size) {
    *out = (anchor_scene){0};
    tch_spec* spec = NULL;
    tch_model* model = NULL;
    tch_error err = {0};
    if (tch_mjcf_load(path, &spec, &err) != TCH_OK || tch_compile(spec, &model, &err) != TCH_OK) {
        snprintf(why, why_size, "touche could not load %s: %s", path, err.message);
        tch_spec_destroy(spec);
        return false;
    }
    bool ok = describe_model(model, principal_axes, out, why, why_size);
    tch_model_destroy(model);
    tch_spec_destroy(spec);
    if (!ok) {
        anchor_scene_free(out);
    }
    return ok;
}

bool anchor_scene_load(const char* loader, const char* path, bool principal_axes,
                       anchor_scene* out, char* why, size_t why_size) {
    if (strcmp(loader, "mujoco") == 0) {
        return anchor_scene_load_mujoco(path, principal_axes, out, why, why_size);
    }
    return anchor_scene_load_touche(path, principal_axes, out, why, why_size);
}
