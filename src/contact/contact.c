#include "contact/contact.h"

#include "math/vec.h"

const tch_contact_ops* tch_contact_model_ops(tch_contact_model model) {
    switch (model) {
    case TCH_CONTACT_POINT: return &tch_point_ops;
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

tch_vec3 tch_contact_point_velocity(const tch_model* model, const tch_data* data, int geom,
                                    tch_vec3 p_W) {
    int root = geom_root(model, geom);
    if (root == 0) {
        return tch_v3_zero();
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    return tch_v3_add(data->body_v_WCm[root], tch_v3_cross(data->body_w_W[root], r));
}

/* dw/dt in W from Euler's equation about the centre of mass. */
static tch_vec3 angular_acceleration(const tch_model* model, const tch_data* data, int root) {
    const tch_mat3* R = &data->body_R_WB[root];
    tch_vec3 w_B = tch_m3_tmul_v3(*R, data->body_w_W[root]);
    tch_vec3 tau_B = tch_m3_tmul_v3(*R, data->body_torque_W[root]);
    tch_vec3 gyro_B = tch_v3_cross(w_B, tch_m3_mul_v3(model->body_total_I_BCm[root], w_B));
    tch_vec3 dw_B = tch_m3_mul_v3(model->body_total_I_inv[root], tch_v3_sub(tau_B, gyro_B));
    return tch_m3_mul_v3(*R, dw_B);
}

tch_vec3 tch_contact_predicted_point_velocity(const tch_model* model, const tch_data* data,
                                              int geom, tch_vec3 p_W, tch_real h) {
    int root = geom_root(model, geom);
    if (root == 0) {
        return tch_v3_zero();
    }
    tch_vec3 a = tch_v3_scale(data->body_force_W[root], 1 / model->body_total_mass[root]);
    tch_vec3 v = tch_v3_madd(data->body_v_WCm[root], h, a);
    tch_vec3 w = tch_v3_madd(data->body_w_W[root], h, angular_acceleration(model, data, root));
    return tch_v3_add(v, tch_v3_cross(w, tch_v3_sub(p_W, data->body_p_WCm[root])));
}

tch_real tch_contact_inverse_mass(const tch_model* model, const tch_data* data, int geom,
                                  tch_vec3 p_W, tch_vec3 t_W) {
    int root = geom_root(model, geom);
    if (root == 0) {
        return 0;
    }
    tch_vec3 r = tch_v3_sub(p_W, data->body_p_WCm[root]);
    tch_vec3 u_B = tch_m3_tmul_v3(data->body_R_WB[root], tch_v3_cross(r, t_W));
    tch_real rotational = tch_v3_dot(u_B, tch_m3_mul_v3(model->body_total_I_inv[root], u_B));
    return 1 / model->body_total_mass[root] + rotational;
}
