#include "dynamics/free_body.h"

#include "contact/planar.h"
#include "math/spin.h"
#include "math/vec.h"

static tch_vec3 read_v3(const tch_real* a) {
    return (tch_vec3){a[0], a[1], a[2]};
}

static void write_v3(tch_real* a, tch_vec3 v) {
    a[0] = v.x, a[1] = v.y, a[2] = v.z;
}

tch_transform tch_free_body_pose(const tch_model* model, const tch_real* qpos, int body) {
    const tch_real* q = qpos + model->body_qpos_adr[body];
    return (tch_transform){{q[3], q[4], q[5], q[6]}, {q[0], q[1], q[2]}};
}

void tch_free_body_set_pose(const tch_model* model, tch_real* qpos, int body, tch_transform X) {
    tch_real* q = qpos + model->body_qpos_adr[body];
    write_v3(q, X.p);
    q[3] = X.q.w, q[4] = X.q.x, q[5] = X.q.y, q[6] = X.q.z;
}

void tch_free_body_com_velocity(const tch_model* model, const tch_real* qpos,
                                const tch_real* qvel, int body, tch_vec3* v_WCm, tch_vec3* w_W) {
    tch_transform X_WB = tch_free_body_pose(model, qpos, body);
    const tch_real* v = qvel + model->body_qvel_adr[body];
    tch_vec3 r_W = tch_q_rotate(X_WB.q, model->body_total_p_BCm[body]);
    *w_W = tch_q_rotate(X_WB.q, read_v3(v + 3));
    *v_WCm = tch_v3_add(read_v3(v), tch_v3_cross(*w_W, r_W));
}

/* dw/dt in body axes: Euler's equation about the centre of mass (h = 0), or (w+ - w) / h over
 * a semi-implicit Euler step of h with the gyroscopic term implicit (math/spin.h); in the
 * planar mode the reduced one, I_yy dw_y/dt = tau_y (contact/planar.h: w along y has no
 * gyroscopic y term). */
static tch_vec3 angular_acceleration_B(const tch_model* model, tch_transform X_WB, tch_vec3 w_B,
                                       int body, tch_vec3 tau_W, tch_real h) {
    const tch_mat3* I_B = &model->body_total_I_BCm[body];
    if (tch_is_planar(model)) {
        tch_mat3 I_W = tch_m3_rotate_tensor(tch_q_to_mat3(X_WB.q), *I_B);
        tch_mat3 I_inv_W = tch_planar_inverse_inertia(model, I_W, I_W);
        return tch_q_inv_rotate(X_WB.q, tch_m3_mul_v3(I_inv_W, tau_W));
    }
    tch_vec3 tau_B = tch_q_inv_rotate(X_WB.q, tau_W);
    if (h > 0) {
        tch_vec3 w_next;
        tch_spin_step(*I_B, model->body_total_I_inv[body], w_B, tau_B, h, &w_next);
        return tch_v3_scale(tch_v3_sub(w_next, w_B), 1 / h);
    }
    tch_vec3 gyro_B = tch_v3_cross(w_B, tch_m3_mul_v3(*I_B, w_B));
    return tch_m3_mul_v3(model->body_total_I_inv[body], tch_v3_sub(tau_B, gyro_B));
}

void tch_free_body_acceleration(const tch_model* model, const tch_real* qpos,
                                const tch_real* qvel, int body, tch_vec3 F_W, tch_vec3 tau_W,
                                tch_real h, tch_real* qacc) {
    tch_transform X_WB = tch_free_body_pose(model, qpos, body);
    const tch_real* v = qvel + model->body_qvel_adr[body];
    tch_vec3 w_B = read_v3(v + 3);
    tch_vec3 dw_B = angular_acceleration_B(model, X_WB, w_B, body, tau_W, h);
    /* Origin acceleration from the centre-of-mass acceleration (rigid-body kinematics). */
    tch_vec3 a_WCm = tch_planar_linear(model, tch_v3_scale(F_W, 1 / model->body_total_mass[body]));
    tch_vec3 r_W = tch_q_rotate(X_WB.q, model->body_total_p_BCm[body]);
    tch_vec3 w_W = tch_q_rotate(X_WB.q, w_B);
    tch_vec3 dw_W = tch_q_rotate(X_WB.q, dw_B);
    tch_vec3 a_WBo = tch_v3_sub(a_WCm, tch_v3_add(tch_v3_cross(dw_W, r_W),
                                                  tch_v3_cross(w_W, tch_v3_cross(w_W, r_W))));
    tch_real* a = qacc + model->body_qvel_adr[body];
    write_v3(a, a_WBo);
    write_v3(a + 3, dw_B);
}

void tch_free_body_qpos_rate(const tch_model* model, const tch_real* qpos, const tch_real* qvel,
                             int body, tch_real rate[7]) {
    tch_transform X_WB = tch_free_body_pose(model, qpos, body);
    const tch_real* v = qvel + model->body_qvel_adr[body];
    tch_quat w_B = {0, v[3], v[4], v[5]};
    tch_quat dq = tch_q_mul(X_WB.q, w_B);
    rate[0] = v[0], rate[1] = v[1], rate[2] = v[2];
    rate[3] = dq.w / 2, rate[4] = dq.x / 2, rate[5] = dq.y / 2, rate[6] = dq.z / 2;
}

void tch_free_body_advance_position(const tch_model* model, tch_real* qpos,
                                    const tch_real* qvel, int body, tch_real h) {
    tch_transform X_WB = tch_free_body_pose(model, qpos, body);
    const tch_real* v = qvel + model->body_qvel_adr[body];
    X_WB.p = tch_v3_madd(X_WB.p, h, read_v3(v));
    /* Body-frame angular velocity: the increment multiplies on the right. */
    X_WB.q = tch_q_normalize(tch_q_mul(X_WB.q, tch_q_from_rotvec(tch_v3_scale(read_v3(v + 3), h))));
    tch_free_body_set_pose(model, qpos, body, X_WB);
}

tch_real tch_free_body_kinetic_energy(const tch_model* model, const tch_real* qpos,
                                      const tch_real* qvel, int body) {
    tch_vec3 v_WCm, w_W;
    tch_free_body_com_velocity(model, qpos, qvel, body, &v_WCm, &w_W);
    tch_vec3 w_B = read_v3(qvel + model->body_qvel_adr[body] + 3);
    tch_real rotational = tch_v3_dot(w_B, tch_m3_mul_v3(model->body_total_I_BCm[body], w_B));
    return 0.5 * model->body_total_mass[body] * tch_v3_norm2(v_WCm) + 0.5 * rotational;
}

void tch_free_body_project_planar(const tch_model* model, const tch_real* qpos, tch_real* qvel,
                                  int body) {
    if (!tch_is_planar(model)) {
        return;
    }
    tch_vec3 v_WCm, w_W;
    tch_free_body_com_velocity(model, qpos, qvel, body, &v_WCm, &w_W);
    tch_transform X_WB = tch_free_body_pose(model, qpos, body);
    w_W = tch_planar_angular(model, w_W);
    tch_vec3 r_W = tch_q_rotate(X_WB.q, model->body_total_p_BCm[body]);
    tch_real* v = qvel + model->body_qvel_adr[body];
    write_v3(v, tch_v3_sub(tch_planar_linear(model, v_WCm), tch_v3_cross(w_W, r_W)));
    write_v3(v + 3, tch_q_inv_rotate(X_WB.q, w_W));
}

tch_real tch_free_bodies_normalize(const tch_model* model, tch_real* qpos) {
    tch_real worst = 0;
    for (int b = 1; b < model->body_count; ++b) {
        if (!model->body_free[b]) {
            continue;
        }
        tch_transform X = tch_free_body_pose(model, qpos, b);
        worst = fmax(worst, fabs(1 - tch_q_norm(X.q)));
        X.q = tch_q_normalize(X.q);
        tch_free_body_set_pose(model, qpos, b, X);
    }
    return worst;
}
