#include "contact/contact.h"

#include <stdlib.h>

#include "math/vec.h"

/* Grows *buffer (of `size` bytes per element) to hold `needed` elements; doubles. */
static int grow_buffer(void** buffer, int* capacity, int needed, size_t size, long* growth) {
    if (needed <= *capacity) {
        return 0;
    }
    int grown = *capacity > 0 ? *capacity : 16;
    while (grown < needed) {
        grown *= 2;
    }
    void* p = realloc(*buffer, (size_t)grown * size);
    if (!p) {
        return -1;
    }
    *buffer = p;
    *capacity = grown;
    (*growth)++;
    return 0;
}

int tch_contact_reserve(tch_data* d, int points, int polygons, int vertices) {
    long* growth = &d->buffer_growth_count;
    int vertex_capacity = d->polygon_vertex_capacity;
    int failed =
        grow_buffer((void**)&d->contacts, &d->contact_capacity, d->contact_count + points,
                    sizeof *d->contacts, growth) ||
        grow_buffer((void**)&d->pair_results, &d->pair_result_capacity,
                    d->pair_result_count + 1, sizeof *d->pair_results, growth) ||
        grow_buffer((void**)&d->polygons, &d->polygon_capacity, d->polygon_count + polygons,
                    sizeof *d->polygons, growth) ||
        grow_buffer((void**)&d->polygon_vertices_W, &vertex_capacity,
                    d->polygon_vertex_count + vertices, sizeof *d->polygon_vertices_W, growth) ||
        grow_buffer((void**)&d->polygon_vertex_pressure, &d->polygon_vertex_capacity,
                    d->polygon_vertex_count + vertices, sizeof *d->polygon_vertex_pressure,
                    growth);
    return failed ? -1 : 0;
}

const tch_contact_ops* tch_contact_model_ops(tch_contact_model model) {
    /* Models arrive with their issues; a NULL entry is refused by the compiler. */
    switch (model) {
    case TCH_CONTACT_POINT: return &tch_point_ops;
    case TCH_CONTACT_LCP: return &tch_lcp_ops;
    case TCH_CONTACT_VOLUME: return &tch_volume_ops;
    case TCH_CONTACT_PRESSURE: return &tch_pressure_ops;
    default: return NULL;
    }
}

static int geom_root(const tch_model* model, int geom) {
    return model->body_root[model->geom_body[geom]];
}

void tch_contact_apply_force(const tch_model* model, tch_data* data, tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 f_W) {
    int root_a = geom_root(model, pair->geom_a);
    int root_b = geom_root(model, pair->geom_b);
    if (root_b > 0) {
        tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root_b]);
        data->body_force_W[root_b] = tch_v3_add(data->body_force_W[root_b], f_W);
        data->body_torque_W[root_b] = tch_v3_add(data->body_torque_W[root_b], tch_v3_cross(r, f_W));
    }
    if (root_a > 0) {
        tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root_a]);
        data->body_force_W[root_a] = tch_v3_sub(data->body_force_W[root_a], f_W);
        data->body_torque_W[root_a] = tch_v3_sub(data->body_torque_W[root_a], tch_v3_cross(r, f_W));
    }
    pair->f_W = tch_v3_add(pair->f_W, f_W);
    pair->tau_Wo_W = tch_v3_add(pair->tau_Wo_W, tch_v3_cross(p_W, f_W));
}

void tch_contact_apply_moment(const tch_model* model, tch_data* data, tch_pair_result* pair,
                              tch_vec3 m_W) {
    int root_a = geom_root(model, pair->geom_a);
    int root_b = geom_root(model, pair->geom_b);
    if (root_b > 0) {
        data->body_torque_W[root_b] = tch_v3_add(data->body_torque_W[root_b], m_W);
    }
    if (root_a > 0) {
        data->body_torque_W[root_a] = tch_v3_sub(data->body_torque_W[root_a], m_W);
    }
    pair->tau_Wo_W = tch_v3_add(pair->tau_Wo_W, m_W);
}

tch_vec3 tch_contact_point_velocity(const tch_model* model, const tch_data* data, int geom,
                                    tch_vec3 p_W) {
    int root = geom_root(model, geom);
    if (root == 0) {
        return tch_v3_zero();
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    return tch_v3_add(data->body_v_WCm[root], tch_v3_cross(data->body_w_W[root], r));
}

void tch_contact_predict_velocities(const tch_model* model, const tch_data* data, tch_real h,
                                    tch_velocity_prediction* prediction) {
    prediction->h = h;
    for (int b = 1; b < model->body_count; ++b) {
        if (!model->body_free[b]) {
            continue;
        }
        const tch_mat3* R = &data->body_R_WB[b];
        tch_mat3 I_inv_W = tch_m3_rotate_tensor(*R, model->body_total_I_inv[b]);
        tch_vec3 w = data->body_w_W[b];
        /* Euler's equation about the centre of mass: I dw/dt = tau - w x (I w), with
         * I w = R I_B R^T w (three products instead of forming I_W). */
        tch_vec3 Iw = tch_m3_mul_v3(*R, tch_m3_mul_v3(model->body_total_I_BCm[b],
                                                      tch_m3_tmul_v3(*R, w)));
        tch_vec3 dw = tch_m3_mul_v3(I_inv_W,
                                    tch_v3_sub(data->body_torque_W[b], tch_v3_cross(w, Iw)));
        prediction->I_inv_W[b] = I_inv_W;
        prediction->w_W[b] = tch_v3_madd(w, h, dw);
        prediction->v_WCm[b] = tch_v3_madd(data->body_v_WCm[b], h / model->body_total_mass[b],
                                           data->body_force_W[b]);
    }
}

tch_vec3 tch_contact_predicted_point_velocity(const tch_model* model, const tch_data* data,
                                              const tch_velocity_prediction* prediction,
                                              int geom, tch_vec3 p_W) {
    int root = geom_root(model, geom);
    if (root == 0) {
        return tch_v3_zero();
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    return tch_v3_add(prediction->v_WCm[root], tch_v3_cross(prediction->w_W[root], r));
}

static void predict_change(const tch_model* model, const tch_data* data,
                           tch_velocity_prediction* prediction, int root, tch_vec3 p_W,
                           tch_vec3 f_W) {
    if (root == 0) {
        return;
    }
    tch_real h = prediction->h;
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    prediction->v_WCm[root] =
        tch_v3_madd(prediction->v_WCm[root], h / model->body_total_mass[root], f_W);
    prediction->w_W[root] = tch_v3_madd(prediction->w_W[root], h,
                                        tch_m3_mul_v3(prediction->I_inv_W[root],
                                                      tch_v3_cross(r, f_W)));
}

void tch_contact_apply_friction(const tch_model* model, tch_data* data,
                                tch_velocity_prediction* prediction, tch_pair_result* pair,
                                tch_vec3 p_W, tch_vec3 f_W) {
    tch_contact_apply_force(model, data, pair, p_W, f_W);
    predict_change(model, data, prediction, geom_root(model, pair->geom_b), p_W, f_W);
    predict_change(model, data, prediction, geom_root(model, pair->geom_a), p_W,
                   tch_v3_neg(f_W));
}

tch_real tch_contact_inverse_mass(const tch_model* model, const tch_data* data,
                                  const tch_velocity_prediction* prediction, int geom,
                                  tch_vec3 p_W, tch_vec3 t_W) {
    int root = geom_root(model, geom);
    if (root == 0) {
        return 0;
    }
    tch_vec3 u = tch_v3_cross(tch_v3_sub(p_W, data->body_p_WCm[root]), t_W);
    return 1 / model->body_total_mass[root] +
           tch_v3_dot(u, tch_m3_mul_v3(prediction->I_inv_W[root], u));
}
