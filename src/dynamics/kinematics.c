#include "dynamics/kinematics.h"

#include "contact/planar.h"
#include "dynamics/free_body.h"
#include "math/vec.h"

/* A free body's pose and its world inertia; a welded body's pose from its root's. */
static void body_position(const tch_model* m, tch_data* d, int b) {
    if (m->body_free[b]) {
        d->body_X_WB[b] = tch_free_body_pose(m, d->qpos, b);
        d->body_X_WB[b].q = tch_q_normalize(d->body_X_WB[b].q);
    } else if (m->body_mocap[b] >= 0) {
        d->body_X_WB[b] = d->mocap_X_WB[m->body_mocap[b]];
        d->body_X_WB[b].q = tch_q_normalize(d->body_X_WB[b].q);
    } else {
        d->body_X_WB[b] = tch_x_mul(d->body_X_WB[m->body_root[b]], m->body_X_RB[b]);
    }
    const tch_mat3 R = tch_q_to_mat3(d->body_X_WB[b].q);
    d->body_R_WB[b] = R;
    d->body_p_WCm[b] = tch_x_apply(d->body_X_WB[b], m->body_free[b] ? m->body_total_p_BCm[b]
                                                                    : m->body_p_BCm[b]);
    d->body_I_W[b] = m->body_free[b] ? tch_m3_rotate_tensor(R, m->body_total_I_BCm[b])
                                     : tch_m3_zero();
    /* in the planar mode the constrained system's (contact/planar.h) */
    const tch_mat3 I_inv_W = tch_m3_rotate_tensor(R, m->body_total_I_inv[b]);
    d->body_I_inv_W[b] = m->body_free[b] ? tch_planar_inverse_inertia(m, d->body_I_W[b], I_inv_W)
                                         : tch_m3_zero();
}

void tch_kinematics_positions(const tch_model* m, tch_data* d) {
    d->body_X_WB[0] = tch_x_identity();
    d->body_R_WB[0] = tch_m3_identity();
    for (int b = 1; b < m->body_count; ++b) {
        body_position(m, d, b);
    }
    tch_kinematics_frames(m, d);
}

void tch_kinematics_frames(const tch_model* m, tch_data* d) {
    for (int g = 0; g < m->geom_count; ++g) {
        int root = m->body_root[m->geom_body[g]];
        d->geom_X_WG[g] = root ? tch_x_mul(d->body_X_WB[root], m->geom_X_RG[g]) : m->geom_X_RG[g];
        d->geom_R_WG[g] = tch_q_to_mat3(d->geom_X_WG[g].q);
    }
    for (int s = 0; s < m->site_count; ++s) {
        d->site_X_WS[s] = tch_x_mul(d->body_X_WB[m->site_body[s]], m->site_X_BS[s]);
    }
}

void tch_kinematics_velocities(const tch_model* m, tch_data* d) {
    for (int b = 1; b < m->body_count; ++b) {
        int root = m->body_root[b];
        if (root == 0) {
            d->body_v_WCm[b] = d->body_w_W[b] = tch_v3_zero();
        } else if (m->body_mocap[b] >= 0) {
            int k = m->body_mocap[b];
            tch_vec3 r = tch_v3_sub(d->body_p_WCm[b], d->body_X_WB[b].p);
            d->body_w_W[b] = d->mocap_w_W[k];
            d->body_v_WCm[b] = tch_v3_add(d->mocap_v_W[k], tch_v3_cross(d->mocap_w_W[k], r));
        } else if (root == b) {
            tch_free_body_com_velocity(m, d->qpos, d->qvel, b, &d->body_v_WCm[b], &d->body_w_W[b]);
        }
    }
    for (int b = 1; b < m->body_count; ++b) {
        int root = m->body_root[b];
        if (root != 0 && root != b) {
            d->body_w_W[b] = d->body_w_W[root];
            tch_vec3 r = tch_v3_sub(d->body_p_WCm[b], d->body_p_WCm[root]);
            d->body_v_WCm[b] = tch_v3_add(d->body_v_WCm[root], tch_v3_cross(d->body_w_W[root], r));
        }
    }
}
