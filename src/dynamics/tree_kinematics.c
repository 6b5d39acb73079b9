/* Kinematic trees: configuration, forward kinematics, Jacobians, energy and passive forces. */
#include <string.h>

#include "dynamics/tree.h"
#include "math/lanes.h"
#include "math/sincos.h"

static inline tch_quat read_quaternion(const tch_real* q) {
    return (tch_quat){q[0], q[1], q[2], q[3]};
}

static void write_quaternion(tch_real* q, tch_quat value) {
    q[0] = value.w;
    q[1] = value.x;
    q[2] = value.y;
    q[3] = value.z;
}

void tch_tree_default_qpos(const tch_tree* t, tch_real* qpos) {
    memcpy(qpos, t->qpos0, (size_t)t->nq * sizeof *qpos);
}

/* The quaternion of a ball link (ball joints and a free joint's rotation). */
static bool link_has_quaternion(const tch_tree_link* link) {
    return link->type == TCH_TREE_LINK_BALL;
}

void tch_tree_qpos_rate(const tch_tree* t, const tch_real* qpos, const tch_real* qvel,
                        tch_real* rate) {
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        if (link_has_quaternion(link)) {
            /* q' = 1/2 q (0, w_B) */
            const tch_real* w = &qvel[link->dof];
            tch_quat r =
                tch_q_mul(read_quaternion(&qpos[link->qpos]), (tch_quat){0, w[0], w[1], w[2]});
            write_quaternion(&rate[link->qpos], (tch_quat){r.w / 2, r.x / 2, r.y / 2, r.z / 2});
        } else {
            for (int k = 0; k < link->dof_count; ++k) {
                rate[link->qpos + k] = qvel[link->dof + k];
            }
        }
    }
}

void tch_tree_normalize_quaternions(const tch_tree* t, tch_real* qpos) {
    for (int l = 0; l < t->link_count; ++l) {
        if (link_has_quaternion(&t->links[l])) {
            tch_real* q = &qpos[t->links[l].qpos];
            write_quaternion(q, tch_q_normalize(read_quaternion(q)));
        }
    }
}

/* The link's placement in its parent, X_fixed times the joint's motion in the link frame
 * (sec. 4.4: our inverse of Featherstone's ^iX_lambda = X_J X_T): a hinge turns by Rz(q - ref),
 * so R = R_fixed Rz mixes R_fixed's first two columns; a slide moves the origin along R_fixed's
 * z; a ball turns by R(q); the free joint's translation moves the origin by R_fixed q. */
TCH_CLONE_AVX2 static tch_spatial_transform link_placement(const tch_tree_link* link, const tch_real* q) {
    tch_spatial_transform X = link->X_fixed;
    const tch_mat3* F = &link->X_fixed.R;
    switch (link->type) {
    case TCH_TREE_LINK_HINGE: {
        tch_real c, s;
        tch_sincos(q[0] - link->qpos_zero, &s, &c);
        for (int i = 0; i < 3; ++i) {
            X.R.m[i][0] = c * F->m[i][0] + s * F->m[i][1];
            X.R.m[i][1] = c * F->m[i][1] - s * F->m[i][0];
        }
        break;
    }
    case TCH_TREE_LINK_BALL:
        X.R = tch_m3_mul(*F, tch_q_to_mat3(read_quaternion(q)));
        break;
    case TCH_TREE_LINK_SLIDE:
        X.p = tch_v3_madd(X.p, q[0] - link->qpos_zero,
                          (tch_vec3){F->m[0][2], F->m[1][2], F->m[2][2]});
        break;
    case TCH_TREE_LINK_TRANSLATION:
        X.p = tch_v3_add(X.p, tch_m3_mul_v3(*F, (tch_vec3){q[0], q[1], q[2]}));
        break;
    case TCH_TREE_LINK_WELD:
        break;
    }
    return X;
}

TCH_CLONE_AVX2 void tch_tree_positions(const tch_tree* t, tch_tree_data* d, const tch_real* qpos) {
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        d->X_up[l] = link_placement(link, &qpos[link->qpos]);
        d->X_world[l] =
            link->parent >= 0 ? tch_sx_mul(d->X_world[link->parent], d->X_up[l]) : d->X_up[l];
    }
}

/* v_i = ^iX_lambda v_lambda + S qd and c_i = v_i x S qd (Featherstone table 5.1, with c_J = 0
 * since S is constant in the link frame). For a hinge, S qd = qd e_z and
 * c = qd (w_y, -w_x, 0, v_y, -v_x, 0). */
TCH_CLONE_AVX2 void tch_tree_velocities(const tch_tree* t, tch_tree_data* d, const tch_real* qvel) {
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        tch_spatial_vec v = link->parent >= 0
                                ? tch_sx_apply_inverse_motion(d->X_up[l], d->v[link->parent])
                                : tch_sv_zero();
        if (link->type == TCH_TREE_LINK_HINGE) {
            tch_real qd = qvel[link->dof];
            v.ang.z += qd;
            d->c[l] = tch_sv((tch_vec3){qd * v.ang.y, -qd * v.ang.x, 0},
                             (tch_vec3){qd * v.lin.y, -qd * v.lin.x, 0});
        } else {
            tch_spatial_vec vJ = tch_tree_link_motion(link, qvel); /* eq. 4.7 */
            v = tch_sv_add(v, vJ);
            d->c[l] = tch_sv_cross_motion(v, vJ);
        }
        d->v[l] = v;
    }
}

static tch_transform transform_of(tch_spatial_transform X) {
    return (tch_transform){tch_q_from_mat3(X.R), X.p};
}

tch_transform tch_tree_body_pose(const tch_tree* t, const tch_tree_data* d, int body) {
    int l = t->body_link[body];
    return transform_of(tch_sx_mul(d->X_world[l], t->links[l].X_body));
}

tch_vec3 tch_tree_body_point(const tch_tree* t, const tch_tree_data* d, int body, tch_vec3 p_B) {
    int l = t->body_link[body];
    const tch_spatial_transform* X = &d->X_world[l];
    const tch_spatial_transform* B = &t->links[l].X_body;
    tch_vec3 p_L = tch_v3_add(tch_m3_mul_v3(B->R, p_B), B->p);
    return tch_v3_add(tch_m3_mul_v3(X->R, p_L), X->p);
}

tch_transform tch_tree_site_pose(const tch_tree* t, const tch_tree_data* d, int site) {
    const tch_tree_site* s = &t->sites[site];
    if (s->body < 0) {
        return s->X_BS;
    }
    return tch_x_mul(tch_tree_body_pose(t, d, s->body), s->X_BS);
}

void tch_tree_point_velocity(const tch_tree* t, const tch_tree_data* d, int body, tch_vec3 p_W,
                             tch_vec3* w_W, tch_vec3* v_W) {
    int l = t->body_link[body];
    tch_spatial_vec v = tch_sx_apply_motion(d->X_world[l], d->v[l]);
    *w_W = v.ang;
    *v_W = tch_v3_add(v.lin, tch_v3_cross(v.ang, p_W));
}

/* Column k of the Jacobian is S_k in world coordinates, (w, v_o) about the world origin, and
 * the point moves with v_o + w x p (v_o: the velocity of the body point at the origin,
 * math/spatial.h). */
TCH_CLONE_AVX2 void tch_tree_point_jacobian(const tch_tree* t, const tch_tree_data* d, int body, tch_vec3 p_W,
                             tch_real* J_ang, tch_real* J_lin) {
    int nv = t->nv;
    if (J_ang) {
        memset(J_ang, 0, 3 * (size_t)nv * sizeof *J_ang);
    }
    if (J_lin) {
        memset(J_lin, 0, 3 * (size_t)nv * sizeof *J_lin);
    }
    for (int l = body >= 0 ? t->body_link[body] : -1; l >= 0; l = t->links[l].parent) {
        const tch_tree_link* link = &t->links[l];
        for (int k = link->dof; k < link->dof + link->dof_count; ++k) {
            tch_spatial_vec s = tch_tree_link_dof_motion(link, k - link->dof, &d->X_world[l]);
            tch_vec3 v = tch_v3_add(s.lin, tch_v3_cross(s.ang, p_W));
            if (J_ang) {
                J_ang[k] = s.ang.x;
                J_ang[nv + k] = s.ang.y;
                J_ang[2 * nv + k] = s.ang.z;
            }
            if (J_lin) {
                J_lin[k] = v.x;
                J_lin[nv + k] = v.y;
                J_lin[2 * nv + k] = v.z;
            }
        }
    }
}

tch_vec3 tch_tree_point_velocity_of(const tch_tree* t, const tch_tree_data* d, int body,
                                    tch_vec3 p_W, const tch_real* qvel) {
    tch_vec3 v = tch_v3_zero();
    for (int l = body >= 0 ? t->body_link[body] : -1; l >= 0; l = t->links[l].parent) {
        const tch_tree_link* link = &t->links[l];
        for (int k = link->dof; k < link->dof + link->dof_count; ++k) {
            tch_spatial_vec s = tch_tree_link_dof_motion(link, k - link->dof, &d->X_world[l]);
            v = tch_v3_madd(v, qvel[k], tch_v3_add(s.lin, tch_v3_cross(s.ang, p_W)));
        }
    }
    return v;
}

void tch_tree_add_wrench(const tch_tree* t, const tch_tree_data* d, int body, tch_vec3 p_W,
                         tch_vec3 f_W, tch_vec3 tau_W, tch_real* Q) {
    for (int l = body >= 0 ? t->body_link[body] : -1; l >= 0; l = t->links[l].parent) {
        const tch_tree_link* link = &t->links[l];
        for (int k = link->dof; k < link->dof + link->dof_count; ++k) {
            tch_spatial_vec s = tch_tree_link_dof_motion(link, k - link->dof, &d->X_world[l]);
            Q[k] += tch_v3_dot(f_W, tch_v3_add(s.lin, tch_v3_cross(s.ang, p_W))) +
                    tch_v3_dot(tau_W, s.ang);
        }
    }
}

void tch_tree_point_jacobian_along(const tch_tree* t, const tch_tree_data* d, int body,
                                   tch_vec3 p_W, tch_vec3 d_W, int first, int count, tch_real* J) {
    memset(J, 0, (size_t)count * sizeof *J);
    for (int l = body >= 0 ? t->body_link[body] : -1; l >= 0; l = t->links[l].parent) {
        const tch_tree_link* link = &t->links[l];
        for (int k = link->dof; k < link->dof + link->dof_count; ++k) {
            tch_spatial_vec s = tch_tree_link_dof_motion(link, k - link->dof, &d->X_world[l]);
            J[k - first] = tch_v3_dot(d_W, tch_v3_add(s.lin, tch_v3_cross(s.ang, p_W)));
        }
    }
}

tch_real tch_tree_kinetic_energy(const tch_tree* t, const tch_tree_data* d, const tch_real* qvel) {
    tch_real twice = 0;
    for (int l = 0; l < t->link_count; ++l) {
        twice += tch_sv_dot(d->v[l], tch_rbi_apply(t->links[l].inertia, d->v[l]));
    }
    for (int k = 0; k < t->nv; ++k) {
        twice += t->dof_armature[k] * qvel[k] * qvel[k];
    }
    return twice / 2;
}

/* Rotation vector of q_rest^-1 q (MuJoCo's mju_subQuat), the shorter way round. */
tch_vec3 tch_tree_rotation_from(tch_quat q_rest, tch_quat q) {
    tch_quat r = tch_q_mul(tch_q_conj(q_rest), q);
    if (r.w < 0) {
        r = (tch_quat){-r.w, -r.x, -r.y, -r.z};
    }
    tch_vec3 v = {r.x, r.y, r.z};
    tch_real s = tch_v3_norm(v);
    if (s < 1e-12) {
        return tch_v3_scale(v, 2);
    }
    return tch_v3_scale(v, 2 * atan2(s, r.w) / s);
}

/* The displacement of each of a link's dofs from the spring's rest configuration. */
static void spring_displacement(const tch_tree* t, const tch_tree_link* link, const tch_real* qpos,
                                tch_real* out) {
    const tch_real* q = &qpos[link->qpos];
    const tch_real* rest = &t->qpos_spring[link->qpos];
    if (link_has_quaternion(link)) {
        tch_vec3 r = tch_tree_rotation_from(read_quaternion(rest), read_quaternion(q));
        out[0] = r.x;
        out[1] = r.y;
        out[2] = r.z;
        return;
    }
    for (int k = 0; k < link->dof_count; ++k) {
        out[k] = q[k] - rest[k];
    }
}

static tch_real link_stiffness(const tch_tree* t, const tch_tree_link* link) {
    return link->joint >= 0 ? t->joints[link->joint].stiffness : 0;
}

/* The potential V = 1/2 k |dq|^2 gives -k dq: for a rotation vector phi, the body-frame
 * gradient of 1/2 |phi|^2 is J_r(phi)^-T phi = phi. */
tch_real tch_tree_potential_energy(const tch_tree* t, const tch_tree_data* d,
                                   const tch_real* qpos) {
    tch_real energy = 0;
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        tch_spatial_rbi I = tch_rbi_transform(d->X_world[l], link->inertia);
        energy -= tch_v3_dot(t->gravity, I.h); /* -m g . c */
        tch_real k = link_stiffness(t, link);
        if (k > 0) {
            tch_real dq[3];
            spring_displacement(t, link, qpos, dq);
            for (int i = 0; i < link->dof_count; ++i) {
                energy += k * dq[i] * dq[i] / 2;
            }
        }
    }
    return energy;
}

void tch_tree_passive_forces(const tch_tree* t, const tch_real* qpos, const tch_real* qvel,
                             tch_real* qfrc) {
    for (int k = 0; k < t->nv; ++k) {
        qfrc[k] = -t->dof_damping[k] * qvel[k];
    }
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        tch_real k = link_stiffness(t, link);
        if (k > 0) {
            tch_real dq[3];
            spring_displacement(t, link, qpos, dq);
            for (int i = 0; i < link->dof_count; ++i) {
                qfrc[link->dof + i] -= k * dq[i];
            }
        }
    }
}
