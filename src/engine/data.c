/* tch_data: creation, reset, state access and the energy and momentum diagnostics. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "dynamics/articulation.h"
#include "dynamics/free_body.h"
#include "engine/engine_internal.h"
#include "engine/watch.h"
#include "engine/implicit.h"
#include "engine/integrator_adaptive.h"
#include "math/vec.h"
#include "touche/step.h"

/* Initial scratch and contact capacity; both grow on demand. */
enum { INITIAL_ARENA_BYTES = 1 << 16, INITIAL_CONTACTS = 64 };

#define CALLOC_ARRAY(ptr, n) ((ptr) = calloc((size_t)((n) > 0 ? (n) : 1), sizeof *(ptr)))

static void free_arrays(tch_data* d) {
    void* arrays[] = {d->qpos, d->qvel, d->qacc, d->body_force_applied_W,
                      d->body_torque_applied_W, d->body_X_WB, d->body_R_WB, d->body_p_WCm,
                      d->body_I_W, d->body_I_inv_W, d->geom_X_WG, d->geom_R_WG, d->site_X_WS,
                      d->ctrl, d->actuator_force, d->body_v_WCm, d->body_w_W, d->contacts,
                      d->pair_results, d->body_force_W, d->body_torque_W, d->polygons,
                      d->polygon_vertices_W, d->polygon_vertex_pressure, d->mocap_X_WB,
                      d->mocap_v_W, d->mocap_w_W};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; ++i) {
        free(arrays[i]);
    }
}

void tch_data_destroy(tch_data* d) {
    if (!d) {
        return;
    }
    if (d->internal) {
        tch_arena_destroy(&d->internal->arena);
        tch_broadphase_destroy(d->internal->broadphase);
        free(d->internal->geom_aabb);
        free(d->internal->geom_static);
        free(d->internal->prediction.v_WCm);
        free(d->internal->prediction.w_W);
        free(d->internal->prediction.links);
        free(d->internal->kinematics_qpos);
        free(d->internal->kinematics_qvel);
        tch_pair_state_destroy(&d->internal->pair_states);
        tch_constraint_workspace_free(&d->internal->constraint);
        tch_watch_destroy(d->internal->watch);
        tch_implicit_cache_destroy(d->internal->implicit);
        tch_adaptive_destroy(d->internal->adaptive);
        tch_articulation_work_destroy(d->internal->articulation);
        for (int i = 0; i < TCH_CONTACT_MODEL_END; ++i) {
            const tch_contact_ops* ops = d->internal->scratch_ops[i];
            if (ops && ops->scratch_destroy) {
                ops->scratch_destroy(d->internal->model_scratch[i]);
            }
        }
        free(d->internal);
    }
    free_arrays(d);
    free(d);
}

static int allocate_arrays(const tch_model* m, tch_data* d) {
    int nb = m->body_count, ng = m->geom_count;
    d->contact_capacity = INITIAL_CONTACTS;
    d->pair_result_capacity = INITIAL_CONTACTS;
    return CALLOC_ARRAY(d->qpos, m->nq) && CALLOC_ARRAY(d->qvel, m->nv) &&
           CALLOC_ARRAY(d->qacc, m->nv) && CALLOC_ARRAY(d->body_force_applied_W, nb) &&
           CALLOC_ARRAY(d->body_torque_applied_W, nb) && CALLOC_ARRAY(d->body_X_WB, nb) &&
           CALLOC_ARRAY(d->body_R_WB, nb) && CALLOC_ARRAY(d->body_p_WCm, nb) &&
           CALLOC_ARRAY(d->body_I_W, nb) && CALLOC_ARRAY(d->body_I_inv_W, nb) &&
           CALLOC_ARRAY(d->geom_X_WG, ng) && CALLOC_ARRAY(d->geom_R_WG, ng) &&
           CALLOC_ARRAY(d->site_X_WS, m->site_count) && CALLOC_ARRAY(d->ctrl, m->actuator_count) &&
           CALLOC_ARRAY(d->actuator_force, m->actuator_count) &&
           CALLOC_ARRAY(d->body_v_WCm, nb) && CALLOC_ARRAY(d->body_w_W, nb) &&
           CALLOC_ARRAY(d->contacts, d->contact_capacity) &&
           CALLOC_ARRAY(d->pair_results, d->pair_result_capacity) &&
           CALLOC_ARRAY(d->body_force_W, nb) && CALLOC_ARRAY(d->body_torque_W, nb) &&
           CALLOC_ARRAY(d->mocap_X_WB, m->mocap_count) &&
           CALLOC_ARRAY(d->mocap_v_W, m->mocap_count) &&
           CALLOC_ARRAY(d->mocap_w_W, m->mocap_count);
}

static int allocate_internal(const tch_model* m, tch_data* d) {
    struct tch_data_internal* in = calloc(1, sizeof *in);
    d->internal = in;
    if (!in || tch_arena_init(&in->arena, INITIAL_ARENA_BYTES) != 0) {
        return 0;
    }
    in->broadphase = tch_broadphase_create(tch_broadphase_default_method(), m->geom_count);
    for (int i = 0; i < TCH_CONTACT_MODEL_END; ++i) {
        const tch_contact_ops* ops = tch_model_contact_ops(m, (tch_contact_model)i);
        in->scratch_ops[i] = ops;
        if (ops && ops->scratch_create && !(in->model_scratch[i] = ops->scratch_create())) {
            return 0;
        }
    }
    if (m->articulation &&
        tch_articulation_work_create(m->articulation, &in->articulation) != TCH_OK) {
        return 0;
    }
    return in->broadphase && (in->watch = tch_watch_create(m)) &&
           tch_constraint_workspace_init(&in->constraint, m) == 0 &&
           CALLOC_ARRAY(in->geom_aabb, m->geom_count) &&
           CALLOC_ARRAY(in->geom_static, m->geom_count) &&
           CALLOC_ARRAY(in->prediction.v_WCm, m->body_count) &&
           CALLOC_ARRAY(in->prediction.w_W, m->body_count) &&
           (!m->articulation || CALLOC_ARRAY(in->prediction.links, m->body_count)) &&
           CALLOC_ARRAY(in->kinematics_qpos, m->nq) && CALLOC_ARRAY(in->kinematics_qvel, m->nv);
}

tch_status tch_data_create(const tch_model* m, tch_data** out, tch_error* err) {
    *out = NULL;
    tch_data* d = calloc(1, sizeof *d);
    if (!d || !allocate_arrays(m, d) || !allocate_internal(m, d)) {
        tch_data_destroy(d);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the data");
    }
    for (int g = 0; g < m->geom_count; ++g) {
        d->internal->geom_static[g] = m->body_root[m->geom_body[g]] == 0;
    }
    tch_data_reset(m, d);
    *out = d;
    return TCH_OK;
}

void tch_data_reset(const tch_model* m, tch_data* d) {
    d->time = 0;
    memcpy(d->qpos, m->qpos0, (size_t)m->nq * sizeof *d->qpos);
    memset(d->qvel, 0, (size_t)m->nv * sizeof *d->qvel);
    memset(d->qacc, 0, (size_t)m->nv * sizeof *d->qacc);
    memset(d->ctrl, 0, (size_t)m->actuator_count * sizeof *d->ctrl);
    memset(d->body_force_applied_W, 0, (size_t)m->body_count * sizeof(tch_vec3));
    memset(d->body_torque_applied_W, 0, (size_t)m->body_count * sizeof(tch_vec3));
    d->applied_spring = (tch_applied_spring){0};
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_mocap[b] >= 0) {
            d->mocap_X_WB[m->body_mocap[b]] = m->body_X_PB[b];
            d->mocap_v_W[m->body_mocap[b]] = d->mocap_w_W[m->body_mocap[b]] = tch_v3_zero();
        }
    }
    memset(d->warning_count, 0, sizeof d->warning_count);
    memset(d->warning_time, 0, sizeof d->warning_time);
    memset(d->warning_body, 0, sizeof d->warning_body);
    d->contact_count = 0;
    d->pair_result_count = 0;
    d->polygon_count = 0;
    d->polygon_vertex_count = 0;
    tch_pair_state_clear(&d->internal->pair_states);
    tch_watch_restart(d->internal->watch);
    tch_stage_kinematics(m, d);
    tch_stage_velocities(m, d);
}

tch_status tch_data_reset_key(const tch_model* m, tch_data* d, int key, tch_error* err) {
    if (key < 0 || key >= m->key_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "keyframe %d does not exist; the model has %d", key, m->key_count);
    }
    tch_data_reset(m, d);
    d->time = m->key_time[key];
    memcpy(d->qpos, m->key_qpos + (size_t)key * (size_t)m->nq, (size_t)m->nq * sizeof *d->qpos);
    memcpy(d->qvel, m->key_qvel + (size_t)key * (size_t)m->nv, (size_t)m->nv * sizeof *d->qvel);
    memcpy(d->ctrl, m->key_ctrl + (size_t)key * (size_t)m->actuator_count,
           (size_t)m->actuator_count * sizeof *d->ctrl);
    if (m->articulation) {
        tch_tree_normalize_quaternions(m->articulation->tree, d->qpos);
    } else {
        tch_free_bodies_normalize(m, d->qpos);
    }
    tch_stage_kinematics(m, d);
    tch_stage_velocities(m, d);
    return TCH_OK;
}

void tch_data_update_allocation_count(tch_data* d) {
    d->heap_allocation_count = d->internal->arena.heap_allocation_count +
                               d->buffer_growth_count +
                               d->internal->pair_states.allocation_count +
                               tch_implicit_cache_allocations(d->internal->implicit);
}

tch_real tch_data_energy(const tch_model* m, const tch_data* d) {
    if (m->articulation) {
        return tch_articulation_energy(m, d, d->internal->articulation);
    }
    tch_real energy = 0;
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b]) {
            energy += tch_free_body_kinetic_energy(m, d->qpos, d->qvel, b);
            energy -= m->body_total_mass[b] * tch_v3_dot(m->gravity, d->body_p_WCm[b]);
        }
    }
    return energy;
}

void tch_data_momentum(const tch_model* m, const tch_data* d, tch_vec3* p_W, tch_vec3* L_Wo_W) {
    *p_W = tch_v3_zero();
    *L_Wo_W = tch_v3_zero();
    for (int b = 1; b < m->body_count; ++b) {
        if (!m->body_free[b]) {
            continue;
        }
        tch_vec3 v_WCm, w_W, c;
        tch_mat3 I_W;
        if (m->articulation) { /* the links' composites, from the velocities stage */
            v_WCm = d->body_v_WCm[b], w_W = d->body_w_W[b], c = d->body_p_WCm[b];
            I_W = d->body_I_W[b];
        } else {
            tch_free_body_com_velocity(m, d->qpos, d->qvel, b, &v_WCm, &w_W);
            tch_mat3 R = tch_q_to_mat3(tch_free_body_pose(m, d->qpos, b).q);
            I_W = tch_m3_rotate_tensor(R, m->body_total_I_BCm[b]);
            c = tch_x_apply(tch_free_body_pose(m, d->qpos, b), m->body_total_p_BCm[b]);
        }
        tch_vec3 p = tch_v3_scale(v_WCm, m->body_total_mass[b]);
        tch_vec3 spin = tch_m3_mul_v3(I_W, w_W);
        *p_W = tch_v3_add(*p_W, p);
        *L_Wo_W = tch_v3_add(*L_Wo_W, tch_v3_add(spin, tch_v3_cross(c, p)));
    }
}

tch_status tch_data_joint_forces(const tch_model* m, tch_data* d, tch_real* bias,
                                 tch_real* passive, tch_real* actuator, tch_error* err) {
    if (!m->articulation) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                        "the model has no joints (joint forces are for articulated models)");
    }
    tch_stage_kinematics(m, d);
    tch_stage_velocities(m, d);
    if (bias) {
        tch_tree_rnea(m->articulation->tree, d->internal->articulation->tree, NULL, bias);
    }
    if (passive) {
        tch_articulation_passive_forces(m->articulation, d->qpos, d->qvel, passive);
    }
    if (actuator) {
        memset(actuator, 0, (size_t)m->nv * sizeof *actuator);
        tch_articulation_actuator_forces(m, d, actuator);
    }
    return TCH_OK;
}

tch_status tch_data_set_body_state(const tch_model* m, tch_data* d, int b,
                                   const tch_transform* X_WB, tch_vec3 v_WBo_W, tch_vec3 w_WB_W,
                                   tch_error* err) {
    if (b <= 0 || b >= m->body_count || !m->body_free[b] || m->body_qpos_adr[b] < 0) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "body %d is not a free body; only free bodies have a state", b);
    }
    tch_transform X = {tch_q_normalize(X_WB->q), X_WB->p};
    tch_free_body_set_pose(m, d->qpos, b, X);
    tch_watch_note_state_set(d->internal->watch);
    tch_real* v = d->qvel + m->body_qvel_adr[b];
    tch_vec3 w_B = tch_q_inv_rotate(X.q, w_WB_W);
    v[0] = v_WBo_W.x, v[1] = v_WBo_W.y, v[2] = v_WBo_W.z;
    v[3] = w_B.x, v[4] = w_B.y, v[5] = w_B.z;
    tch_stage_kinematics(m, d);
    tch_stage_velocities(m, d);
    return TCH_OK;
}

void tch_data_body_state(const tch_model* m, const tch_data* d, int b, tch_transform* X_WB,
                         tch_vec3* v_WBo_W, tch_vec3* w_WB_W) {
    *X_WB = d->body_X_WB[b];
    int root = m->body_root[b];
    if (root == 0) {
        *v_WBo_W = tch_v3_zero();
        *w_WB_W = tch_v3_zero();
        return;
    }
    *w_WB_W = d->body_w_W[root];
    tch_vec3 r = tch_v3_sub(X_WB->p, d->body_p_WCm[root]);
    *v_WBo_W = tch_v3_add(d->body_v_WCm[root], tch_v3_cross(d->body_w_W[root], r));
}
