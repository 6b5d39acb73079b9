/* Lifetime and look-ups of a compiled model. */
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "dynamics/articulation.h"
#include "geometry/hull.h"
#include "touche/model.h"

void tch_model_destroy(tch_model* m) {
    if (!m) {
        return;
    }
    for (int i = 0; m->mesh_hull && i < m->mesh_count; ++i) {
        tch_hull_free(&m->mesh_hull[i]);
    }
    if (m->internal) {
        for (int i = 0; i < TCH_CONTACT_MODEL_END; ++i) {
            const tch_contact_ops* ops = tch_contact_model_ops((tch_contact_model)i);
            if (ops && ops->free_geoms && m->internal->model_geoms[i]) {
                ops->free_geoms(m, m->internal->model_geoms[i]);
            }
        }
        tch_pair_table_free(&m->internal->pairs);
        free(m->internal);
    }
    void* arrays[] = {
        m->body_name, m->body_parent, m->body_root, m->body_free, m->body_qpos_adr,
        m->body_qvel_adr, m->body_X_PB, m->body_X_RB, m->body_mass, m->body_p_BCm,
        m->body_I_BCm, m->body_total_mass, m->body_total_p_BCm, m->body_total_I_BCm,
        m->body_total_I_inv, m->geom_name, m->geom_type, m->geom_body, m->geom_size,
        m->geom_X_BG, m->geom_X_RG, m->geom_mesh, m->geom_contype, m->geom_conaffinity,
        m->geom_rbound, m->geom_contact, m->mesh_name, m->mesh_hull, m->pair_geom_a,
        m->pair_geom_b, m->pair_params, m->key_name, m->key_time, m->key_qpos, m->key_qvel,
        m->qpos0, m->joint_name, m->joint_type, m->joint_body, m->joint_qpos_adr,
        m->joint_qvel_adr, m->joint_limited, m->joint_range, m->site_name, m->site_body,
        m->site_X_BS, m->actuator_name, m->actuator_type, m->actuator_joint, m->actuator_gear,
        m->actuator_kp, m->actuator_kv, m->actuator_ctrl_limited, m->actuator_ctrl_range,
        m->key_ctrl,
        m->body_mocap, m->body_haptic, m->body_haptic_tool,
    };
    tch_articulation_destroy(m->articulation);
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) {
        free(arrays[i]);
    }
    free(m);
}

static int find_name(const char (*names)[64], int count, const char* name) {
    if (!name || !name[0]) {
        return -1;
    }
    for (int i = 0; i < count; ++i) {
        if (strcmp(names[i], name) == 0) {
            return i;
        }
    }
    return -1;
}

int tch_model_body_index(const tch_model* m, const char* name) {
    return find_name((const char(*)[64])m->body_name, m->body_count, name);
}

int tch_model_geom_index(const tch_model* m, const char* name) {
    return find_name((const char(*)[64])m->geom_name, m->geom_count, name);
}

int tch_model_key_index(const tch_model* m, const char* name) {
    return find_name((const char(*)[64])m->key_name, m->key_count, name);
}

int tch_model_site_index(const tch_model* m, const char* name) {
    return find_name((const char(*)[64])m->site_name, m->site_count, name);
}

int tch_model_joint_index(const tch_model* m, const char* name) {
    return find_name((const char(*)[64])m->joint_name, m->joint_count, name);
}

int tch_model_actuator_index(const tch_model* m, const char* name) {
    return find_name((const char(*)[64])m->actuator_name, m->actuator_count, name);
}
