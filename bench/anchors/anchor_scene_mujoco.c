#include <stdio.h>
#include <stdlib.h>

#include <mujoco/mujoco.h>

#include "anchor_scene.h"
#include "math/vec.h"

static tch_vec3 vec_at(const mjtNum* a, int i) {
    return (tch_vec3){a[3 * i], a[3 * i + 1], a[3 * i + 2]};
}

static tch_quat quat_at(const mjtNum* a, int i) {
    return (tch_quat){a[4 * i], a[4 * i + 1], a[4 * i + 2], a[4 * i + 3]};
}

static bool is_free_body(const mjModel* m, int b) {
    return m->body_jntnum[b] == 1 && m->jnt_type[m->body_jntadr[b]] == mjJNT_FREE;
}

/* The anchors take free bodies and world-welded bodies; other joints and bodies welded to a
 * free body (whose inertia would need combining) are refused. */
static bool check_model(const mjModel* m, char* why, size_t why_size) {
    for (int b = 1; b < m->nbody; ++b) {
        bool welded_to_world = m->body_jntnum[b] == 0 && !is_free_body(m, m->body_rootid[b]);
        if (!is_free_body(m, b) && !welded_to_world) {
            snprintf(why, why_size, "body %d has joints other than one free joint or is welded to"
                     " a free body: the mujoco loader of the anchors does not take it", b);
            return false;
        }
    }
    for (int g = 0; g < m->ngeom; ++g) {
        if (!anchor_geom_type_supported(m->geom_type[g])) {
            snprintf(why, why_size, "geom %d has MuJoCo type %d: the anchors build only planes,"
                     " spheres, capsules, cylinders and boxes", g, m->geom_type[g]);
            return false;
        }
    }
    return true;
}

static int count_free_bodies(const mjModel* m) {
    int n = 0;
    for (int b = 1; b < m->nbody; ++b) {
        n += is_free_body(m, b);
    }
    return n;
}

/* I_B = R_BI diag(d) R_BI^T from MuJoCo's principal moments d in the frame (ipos, iquat). */
static tch_mat3 inertia_in_body_axes(const mjModel* m, int b) {
    tch_mat3 R_BI = tch_q_to_mat3(quat_at(m->body_iquat, b));
    return tch_m3_rotate_tensor(R_BI, tch_m3_diag(vec_at(m->body_inertia, b)));
}

static void describe(const mjModel* m, const mjData* d, bool principal_axes, anchor_scene* out,
                     int* body_index, tch_transform* X_BC) {
    out->timestep = m->opt.timestep;
    out->gravity = vec_at(m->opt.gravity, 0);
    int n = 0;
    for (int b = 0; b < m->nbody; ++b) {
        body_index[b] = -1;
        if (b > 0 && is_free_body(m, b)) {
            tch_transform X_WB = {quat_at(d->xquat, b), vec_at(d->xpos, b)};
            body_index[b] = n;
            X_BC[n] = anchor_body_describe(&out->bodies[n], X_WB, m->body_mass[b],
                                           vec_at(m->body_ipos, b), inertia_in_body_axes(m, b),
                                           principal_axes);
            ++n;
        }
    }
    for (int g = 0; g < m->ngeom; ++g) {
        anchor_geom* geom = &out->geoms[g];
        int body = body_index[m->geom_bodyid[g]];
        geom->type = (anchor_geom_type)m->geom_type[g];
        for (int k = 0; k < 3; ++k) {
            geom->size[k] = m->geom_size[3 * g + k];
        }
        geom->body = body;
        if (body < 0) {
            const mjtNum* R = d->geom_xmat + 9 * g;
            tch_mat3 R_WG = {{{R[0], R[1], R[2]}, {R[3], R[4], R[5]}, {R[6], R[7], R[8]}}};
            geom->X_CG = (tch_transform){tch_q_from_mat3(R_WG), vec_at(d->geom_xpos, g)};
        } else {
            tch_transform X_BG = {quat_at(m->geom_quat, g), vec_at(m->geom_pos, g)};
            geom->X_CG = tch_x_relative(X_BC[body], X_BG);
        }
        geom->friction = m->geom_friction[3 * g];
    }
}

bool anchor_scene_load_mujoco(const char* path, bool principal_axes, anchor_scene* out,
                              char* why, size_t why_size) {
    *out = (anchor_scene){0};
    char error[1000] = "";
    mjModel* m = mj_loadXML(path, NULL, error, (int)sizeof error);
    if (!m) {
        snprintf(why, why_size, "MuJoCo could not load %s: %s", path, error);
        return false;
    }
    mjData* d = mj_makeData(m);
    int* body_index = calloc((size_t)m->nbody, sizeof *body_index);
    tch_transform* X_BC = calloc((size_t)m->nbody, sizeof *X_BC);
    bool ok = check_model(m, why, why_size);
    if (ok && !(d && body_index && X_BC && anchor_scene_alloc(out, count_free_bodies(m), m->ngeom))) {
        snprintf(why, why_size, "out of memory");
        ok = false;
    }
    if (ok) {
        mj_forward(m, d);
        describe(m, d, principal_axes, out, body_index, X_BC);
    } else {
        anchor_scene_free(out);
    }
    free(body_index);
    free(X_BC);
    mj_deleteData(d);
    mj_deleteModel(m);
    return ok;
}
