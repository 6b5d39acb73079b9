/* Articulated models in the step (see articulation.h). */
#include "dynamics/articulation.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "dynamics/kinematics.h"
#include "math/vec.h"

/* Joint limits for the force models are one-sided spring-dampers with the joint's limit
 * impedance solreflimit = (tc, zeta) (MuJoCo's default (0.02 s, 1): critical damping) on the
 * joint's own inertia A_jj at qpos0 (armature included), as MuJoCo's reference acceleration
 * -b v - k r with b = 2 / tc and k = 1 / (tc zeta)^2 per unit of inertia: k = A_jj / (tc zeta)^2
 * and b = 2 A_jj / tc, whatever the time step. */
/* Joint Coulomb friction (frictionloss) is the regularized force -f tanh(v / v_s). v_s is
 * FRICTION_SPEED, raised where an explicit step of h would make it unstable (its slope f / v_s
 * on the dof's inertia must keep h f / (v_s A_jj) <= 1): v_s = max(FRICTION_SPEED,
 * h f / A_jj). The implicit integrator takes the slope into its step (add_joint_step_terms)
 * and keeps FRICTION_SPEED at any step. */
static const tch_real FRICTION_SPEED = 1e-2;

#define CALLOC_ARRAY(ptr, n) ((ptr) = calloc((size_t)((n) > 0 ? (n) : 1), sizeof *(ptr)))

void tch_articulation_destroy(tch_articulation* a) {
    if (!a) {
        return;
    }
    tch_tree_destroy(a->tree);
    free(a->dof_frictionloss);
    free(a->dof_friction_speed);
    free(a->joint_limit_stiffness);
    free(a->joint_limit_damping);
    free(a->body_lone);
    free(a->body_top);
    free(a->body_dof_first);
    free(a->body_dof_count);
    free(a->equalities);
    free(a);
}

/* The diagonal of A at qpos0 sets the limit springs and the friction regularization (h the
 * explicit integrator's step, 0 for the implicit one). */
static tch_status set_passive_parameters(tch_articulation* a, const tch_joint_passive* passive,
                                         tch_real h, tch_error* err) {
    const tch_tree* t = a->tree;
    tch_tree_data* data = NULL;
    tch_real* qpos = calloc((size_t)(t->nq > 0 ? t->nq : 1), sizeof *qpos);
    tch_status s = qpos ? tch_tree_data_create(t, 0, &data, err)
                        : tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory");
    if (s == TCH_OK) {
        tch_tree_default_qpos(t, qpos);
        tch_tree_positions(t, data, qpos);
        tch_tree_mass_matrix(t, data);
        for (int j = 0; j < t->joint_count; ++j) {
            const tch_tree_joint* joint = &t->joints[j];
            tch_real inertia = 0; /* a ball's: the mean of its three */
            for (int k = joint->dof; k < joint->dof + joint->nv; ++k) {
                inertia += data->M[(size_t)k * (size_t)t->nv + (size_t)k] / joint->nv;
            }
            tch_real tc = passive[j].limit_solref[0], zeta = passive[j].limit_solref[1];
            a->joint_limit_stiffness[j] = inertia / (tc * zeta * tc * zeta);
            a->joint_limit_damping[j] = 2 * inertia / tc;
            tch_real frictionloss = passive[j].frictionloss;
            for (int k = joint->dof; k < joint->dof + joint->nv; ++k) {
                tch_real diagonal = data->M[(size_t)k * (size_t)t->nv + (size_t)k];
                a->dof_frictionloss[k] = frictionloss;
                a->dof_friction_speed[k] =
                    diagonal > 0 ? fmax(FRICTION_SPEED, h * frictionloss / diagonal)
                                 : FRICTION_SPEED;
            }
        }
    }
    tch_tree_data_destroy(data);
    free(qpos);
    return s;
}

/* body_lone (model numbering: tree body + 1): a free joint's body none of whose descendants
 * has a joint. */
static void mark_lone_bodies(tch_articulation* a) {
    const tch_tree* t = a->tree;
    for (int j = 0; j < t->joint_count; ++j) {
        if (t->joints[j].type == TCH_TREE_JOINT_FREE) {
            a->body_lone[t->joints[j].body + 1] = 1;
        }
    }
    for (int j = 0; j < t->joint_count; ++j) {
        if (t->joints[j].type == TCH_TREE_JOINT_FREE) {
            continue;
        }
        for (int b = t->body_parent[t->joints[j].body]; b >= 0; b = t->body_parent[b]) {
            a->body_lone[b + 1] = 0;
        }
    }
}

/* body_top and each subtree's dof range (model numbering: tree body + 1). A subtree's dofs
 * are contiguous when bodies come depth first (as MJCF and URDF list them); otherwise the
 * range is the whole tree, which holds every ancestor too. */
static void mark_subtrees(tch_articulation* a) {
    const tch_tree* t = a->tree;
    for (int b = 0; b < t->body_count; ++b) {
        int parent = t->body_parent[b];
        a->body_top[b + 1] = parent < 0 ? b + 1 : a->body_top[parent + 1];
    }
    for (int b = 1; b <= t->body_count; ++b) {
        a->body_dof_first[b] = t->nv;
        a->body_dof_count[b] = 0;
    }
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        int top = a->body_top[link->body + 1];
        if (link->dof_count > 0) {
            int end = a->body_dof_first[top] + a->body_dof_count[top];
            end = a->body_dof_count[top] > 0 && end > link->dof + link->dof_count
                      ? end
                      : link->dof + link->dof_count;
            a->body_dof_first[top] =
                link->dof < a->body_dof_first[top] ? link->dof : a->body_dof_first[top];
            a->body_dof_count[top] = end - a->body_dof_first[top];
        }
    }
    bool contiguous = true;
    for (int b = 1; b <= t->body_count; ++b) {
        for (int k = a->body_dof_first[b]; b == a->body_top[b] &&
                                           k < a->body_dof_first[b] + a->body_dof_count[b];
             ++k) {
            contiguous = contiguous && a->body_top[t->links[t->dof_link[k]].body + 1] == b;
        }
    }
    for (int b = 1; b <= t->body_count; ++b) {
        int top = a->body_top[b];
        a->body_dof_first[b] = contiguous ? a->body_dof_first[top] : 0;
        a->body_dof_count[b] = contiguous ? a->body_dof_count[top] : t->nv;
    }
}

tch_status tch_articulation_create(const tch_tree_def* def, const tch_joint_passive* passive,
                                   tch_real timestep, tch_integrator integrator,
                                   tch_articulation** out, tch_error* err) {
    *out = NULL;
    tch_articulation* a = calloc(1, sizeof *a);
    if (!a) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the joints");
    }
    tch_status s = tch_tree_create(def, &a->tree, err);
    if (s == TCH_OK && (!CALLOC_ARRAY(a->dof_frictionloss, a->tree->nv) ||
                        !CALLOC_ARRAY(a->dof_friction_speed, a->tree->nv) ||
                        !CALLOC_ARRAY(a->joint_limit_stiffness, a->tree->joint_count) ||
                        !CALLOC_ARRAY(a->joint_limit_damping, a->tree->joint_count))) {
        s = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the joints");
    }
    if (s == TCH_OK) {
        s = set_passive_parameters(a, passive,
                                   integrator == TCH_INTEGRATOR_IMPLICIT ? 0 : timestep, err);
    }
    if (s == TCH_OK && (!CALLOC_ARRAY(a->body_lone, def->body_count + 1) ||
                        !CALLOC_ARRAY(a->body_top, def->body_count + 1) ||
                        !CALLOC_ARRAY(a->body_dof_first, def->body_count + 1) ||
                        !CALLOC_ARRAY(a->body_dof_count, def->body_count + 1))) {
        s = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the joints");
    }
    if (s == TCH_OK) {
        mark_lone_bodies(a);
        mark_subtrees(a);
    }
    if (s != TCH_OK) {
        tch_articulation_destroy(a);
        return s;
    }
    *out = a;
    return TCH_OK;
}

tch_status tch_articulation_work_create(const tch_articulation* a, tch_articulation_work** out) {
    *out = NULL;
    tch_articulation_work* w = calloc(1, sizeof *w);
    tch_error ignored;
    if (!w || tch_tree_data_create(a->tree, 6, &w->tree, &ignored) != TCH_OK ||
        !CALLOC_ARRAY(w->tau, a->tree->nv) || !CALLOC_ARRAY(w->bias, a->tree->nv) ||
        !CALLOC_ARRAY(w->jacobian, 6 * a->tree->nv) || !CALLOC_ARRAY(w->qvel_next, a->tree->nv) ||
        !CALLOC_ARRAY(w->link_read, a->tree->body_count + 1)) {
        tch_articulation_work_destroy(w);
        return TCH_ERR_OUT_OF_MEMORY;
    }
    *out = w;
    return TCH_OK;
}

void tch_articulation_work_destroy(tch_articulation_work* w) {
    if (!w) {
        return;
    }
    tch_tree_data_destroy(w->tree);
    free(w->tau);
    free(w->bias);
    free(w->jacobian);
    free(w->qvel_next);
    free(w->link_read);
    free(w);
}

/* ---- equality constraints ---- */

/* 3 / trace of the 3x3 block of J A^-1 J^T for the relative motion rows J (3 x nv, the
 * factor in data): the constraint direction's mean effective mass or inertia. */
static tch_real effective_mass(const tch_tree* t, tch_tree_data* data, const tch_real* J) {
    tch_real L[9];
    tch_tree_inverse_inertia(t, data, 3, J, L);
    tch_real trace = L[0] + L[4] + L[8];
    return trace > 0 ? 3 / trace : 0;
}

/* J_body1 - J_body2 of the world point p_W (angular rows when `angular`) into J (3 x nv). */
static void relative_jacobian(const tch_tree* t, const tch_tree_data* data,
                              const tch_articulation_equality* e, tch_vec3 p_W, bool angular,
                              tch_real* J, tch_real* scratch) {
    int nv = t->nv;
    tch_tree_point_jacobian(t, data, e->body1, p_W, angular ? J : NULL, angular ? NULL : J);
    memset(scratch, 0, 3 * (size_t)nv * sizeof *scratch);
    if (e->body2 >= 0) {
        tch_tree_point_jacobian(t, data, e->body2, p_W, angular ? scratch : NULL,
                                angular ? NULL : scratch);
    }
    for (int k = 0; k < 3 * nv; ++k) {
        J[k] -= scratch[k];
    }
}

static tch_transform body_pose_or_world(const tch_tree* t, const tch_tree_data* data, int body) {
    return body >= 0 ? tch_tree_body_pose(t, data, body) : tch_x_identity();
}

/* The points, relative pose and springs of e at the poses in data (qpos0, factored). */
static tch_status prepare_equality(const tch_tree* t, tch_tree_data* data, int index,
                                   tch_articulation_equality* e, tch_real* J, tch_real* scratch,
                                   tch_error* err) {
    tch_transform X1 = tch_tree_body_pose(t, data, e->body1);
    tch_transform X2 = body_pose_or_world(t, data, e->body2);
    if (e->weld && !e->relpose_set) {
        tch_transform X12 = tch_x_mul(tch_x_inverse(X1), X2);
        e->p1 = X12.p;
        e->q12 = X12.q;
    }
    tch_vec3 p_W = tch_x_apply(X1, e->p1);
    e->p2 = tch_x_apply(tch_x_inverse(X2), p_W);
    relative_jacobian(t, data, e, p_W, false, J, scratch);
    tch_real mass = effective_mass(t, data, J);
    tch_real inertia = 0;
    if (e->weld) {
        relative_jacobian(t, data, e, p_W, true, J, scratch);
        inertia = effective_mass(t, data, J);
    }
    if (!(mass > 0) || (e->weld && !(inertia > 0))) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "equality constraint %d moves no mass (its bodies are fixed)", index + 1);
    }
    tch_real tc = e->solref[0], z = e->solref[1];
    e->k = mass / (tc * z * tc * z);
    e->b = 2 * mass / tc;
    e->k_rot = inertia / (tc * z * tc * z);
    e->b_rot = 2 * inertia / tc;
    return TCH_OK;
}

tch_status tch_articulation_set_equalities(tch_articulation* a,
                                           const tch_articulation_equality* equalities, int count,
                                           tch_error* err) {
    const tch_tree* t = a->tree;
    a->equalities = calloc((size_t)(count > 0 ? count : 1), sizeof *a->equalities);
    tch_real* qpos = calloc((size_t)(t->nq > 0 ? t->nq : 1), sizeof *qpos);
    tch_real* J = calloc(6 * (size_t)(t->nv > 0 ? t->nv : 1), sizeof *J);
    tch_tree_data* data = NULL;
    tch_status s = a->equalities && qpos && J
                       ? tch_tree_data_create(t, 3, &data, err)
                       : tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory");
    if (s == TCH_OK) {
        memcpy(a->equalities, equalities, (size_t)count * sizeof *equalities);
        a->equality_count = count;
        tch_tree_default_qpos(t, qpos);
        tch_tree_positions(t, data, qpos);
        tch_tree_mass_matrix(t, data);
        s = tch_tree_factor(t, data, err);
    }
    for (int i = 0; i < count && s == TCH_OK; ++i) {
        s = prepare_equality(t, data, i, &a->equalities[i], J, J + 3 * t->nv, err);
    }
    tch_tree_data_destroy(data);
    free(qpos);
    free(J);
    return s;
}

/* The connect part's offset e = p1_W - p2_W and the weld's rotation r (world) that turns body2
 * onto its place in body1's frame. */
static void equality_errors(const tch_tree* t, const tch_tree_data* data,
                            const tch_articulation_equality* e, tch_vec3* p1_W, tch_vec3* p2_W,
                            tch_vec3* r_W) {
    tch_transform X1 = tch_tree_body_pose(t, data, e->body1);
    tch_transform X2 = body_pose_or_world(t, data, e->body2);
    *p1_W = tch_x_apply(X1, e->p1);
    *p2_W = tch_x_apply(X2, e->p2);
    *r_W = e->weld ? tch_q_rotate(X2.q, tch_tree_rotation_from(X2.q, tch_q_mul(X1.q, e->q12)))
                   : tch_v3_zero();
}

/* Q += the equality springs' generalized forces (after positions and velocities). */
static void add_equality_forces(const tch_articulation* a, const tch_tree_data* data,
                                tch_real* Q) {
    const tch_tree* t = a->tree;
    for (int i = 0; i < a->equality_count; ++i) {
        const tch_articulation_equality* e = &a->equalities[i];
        tch_vec3 p1_W, p2_W, r_W, w1, v1, w2 = tch_v3_zero(), v2 = tch_v3_zero();
        equality_errors(t, data, e, &p1_W, &p2_W, &r_W);
        tch_tree_point_velocity(t, data, e->body1, p1_W, &w1, &v1);
        if (e->body2 >= 0) {
            tch_tree_point_velocity(t, data, e->body2, p2_W, &w2, &v2);
        }
        tch_vec3 f = tch_v3_add(tch_v3_scale(tch_v3_sub(p1_W, p2_W), -e->k),
                                tch_v3_scale(tch_v3_sub(v1, v2), -e->b));
        tch_vec3 tau = e->weld ? tch_v3_add(tch_v3_scale(r_W, e->k_rot),
                                            tch_v3_scale(tch_v3_sub(w2, w1), -e->b_rot))
                               : tch_v3_zero();
        tch_tree_add_wrench(t, data, e->body1, p1_W, f, tch_v3_scale(tau, -1), Q);
        if (e->body2 >= 0) {
            tch_tree_add_wrench(t, data, e->body2, p2_W, tch_v3_scale(f, -1), tau, Q);
        }
    }
}

/* S(r) = [1, -[r]x]: the displacement of the material point at r from a body's centre of
 * mass under its (delta, phi), as columns col .. col + 5 of the 3 x 12 map G, times sign. */
static void point_map(tch_real G[3][12], int col, tch_vec3 r, tch_real sign) {
    tch_real rx[3][3] = {{0, -r.z, r.y}, {r.z, 0, -r.x}, {-r.y, r.x, 0}};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            G[i][col + j] = sign * (tch_real)(i == j);
            G[i][col + 3 + j] = -sign * rx[i][j];
        }
    }
}

/* out -= gain G^T G over the 12 twist coordinates. */
static void add_gram(tch_real out[12][12], tch_real G[3][12], tch_real gain) {
    for (int r = 0; r < 12; ++r) {
        for (int c = 0; c < 12; ++c) {
            out[r][c] -= gain * (G[0][r] * G[0][c] + G[1][r] * G[1][c] + G[2][r] * G[2][c]);
        }
    }
}

void tch_articulation_linearize_equality(const tch_model* m, const tch_data* d,
                                         const tch_articulation_work* w, int i, int root[2],
                                         tch_pair_linearization* out) {
    const tch_articulation_equality* e = &m->articulation->equalities[i];
    tch_vec3 p1_W, p2_W, r_W;
    equality_errors(m->articulation->tree, w->tree, e, &p1_W, &p2_W, &r_W);
    root[0] = m->body_root[e->body1 + 1];
    root[1] = e->body2 >= 0 ? m->body_root[e->body2 + 1] : 0;
    memset(out->K, 0, sizeof out->K);
    memset(out->D, 0, sizeof out->D);
    tch_real G[3][12]; /* the connect's relative displacement p1 - p2 */
    point_map(G, 0, tch_v3_sub(p1_W, d->body_p_WCm[root[0]]), 1);
    point_map(G, 6, tch_v3_sub(p2_W, d->body_p_WCm[root[1]]), -1);
    add_gram(out->K, G, e->k);
    add_gram(out->D, G, e->b);
    if (e->weld) { /* the relative rotation phi_2 - phi_1 */
        memset(G, 0, sizeof G);
        for (int k = 0; k < 3; ++k) {
            G[k][3 + k] = -1;
            G[k][9 + k] = 1;
        }
        add_gram(out->K, G, e->k_rot);
        add_gram(out->D, G, e->b_rot);
    }
}

/* The equality springs' potential energy. */
static tch_real equality_energy(const tch_articulation* a, const tch_tree_data* data) {
    tch_real energy = 0;
    for (int i = 0; i < a->equality_count; ++i) {
        const tch_articulation_equality* e = &a->equalities[i];
        tch_vec3 p1_W, p2_W, r_W;
        equality_errors(a->tree, data, e, &p1_W, &p2_W, &r_W);
        energy += 0.5 * e->k * tch_v3_norm2(tch_v3_sub(p1_W, p2_W)) +
                  0.5 * e->k_rot * tch_v3_norm2(r_W);
    }
    return energy;
}

/* ---- kinematics ---- */

void tch_articulation_positions(const tch_model* m, tch_data* d, tch_articulation_work* w) {
    const tch_tree* t = m->articulation->tree;
    w->step_factored = false;
    tch_tree_positions(t, w->tree, d->qpos);
    d->body_X_WB[0] = tch_x_identity();
    d->body_R_WB[0] = tch_m3_identity();
    for (int b = 1; b < m->body_count; ++b) {
        tch_transform X = tch_tree_body_pose(t, w->tree, b - 1);
        tch_mat3 R = tch_q_to_mat3(X.q);
        bool link = m->body_free[b];
        d->body_X_WB[b] = X;
        d->body_R_WB[b] = R;
        d->body_p_WCm[b] = tch_x_apply(X, link ? m->body_total_p_BCm[b] : m->body_p_BCm[b]);
        d->body_I_W[b] = link ? tch_m3_rotate_tensor(R, m->body_total_I_BCm[b]) : tch_m3_zero();
        d->body_I_inv_W[b] = link ? tch_m3_rotate_tensor(R, m->body_total_I_inv[b]) : tch_m3_zero();
    }
    tch_kinematics_frames(m, d);
}

void tch_articulation_velocities(const tch_model* m, tch_data* d, tch_articulation_work* w) {
    const tch_tree* t = m->articulation->tree;
    w->step_factored = false;
    tch_tree_velocities(t, w->tree, d->qvel);
    for (int b = 1; b < m->body_count; ++b) {
        tch_tree_point_velocity(t, w->tree, b - 1, d->body_p_WCm[b], &d->body_w_W[b],
                                &d->body_v_WCm[b]);
    }
}

/* ---- forces ---- */

/* w->jacobian: link b's Jacobian at its centre of mass, 6 x nv, angular rows then linear. */
static void link_jacobian(const tch_model* m, const tch_data* d, tch_articulation_work* w, int b) {
    int nv = m->articulation->tree->nv;
    tch_tree_point_jacobian(m->articulation->tree, w->tree, b - 1, d->body_p_WCm[b], w->jacobian,
                            w->jacobian + 3 * nv);
}

tch_ball_cone tch_articulation_ball_cone(const tch_tree_joint* joint, const tch_real* qpos) {
    const tch_real* q = qpos + joint->qpos;
    tch_vec3 r = tch_tree_rotation_from(tch_q_identity(), (tch_quat){q[0], q[1], q[2], q[3]});
    tch_ball_cone cone = {.angle = tch_v3_norm(r),
                          .limit = fmax(joint->range[0], joint->range[1]),
                          .axis = tch_v3(1, 0, 0)};
    if (cone.angle > 0) {
        cone.axis = tch_v3_scale(r, 1 / cone.angle);
    }
    return cone;
}

/* A limited ball's one-sided spring-damper on the cone, added to its three dofs: the torque
 * -max(0, k (theta - limit) + b theta') along the rotation's axis beyond the limit, where
 * theta' = axis . w (w the body-axes angular velocity, its dofs). */
static void add_ball_limit_torque(const tch_articulation* a, int j, const tch_real* qpos,
                                  const tch_real* qvel, tch_real* qfrc) {
    const tch_tree_joint* joint = &a->tree->joints[j];
    tch_ball_cone cone = tch_articulation_ball_cone(joint, qpos);
    if (cone.angle <= cone.limit) {
        return;
    }
    const tch_real* w = qvel + joint->dof;
    tch_real rate = cone.axis.x * w[0] + cone.axis.y * w[1] + cone.axis.z * w[2];
    tch_real torque = fmax(0, a->joint_limit_stiffness[j] * (cone.angle - cone.limit) +
                                  a->joint_limit_damping[j] * rate);
    for (int i = 0; i < 3; ++i) {
        qfrc[joint->dof + i] -= torque * tch_v3_get(cone.axis, i);
    }
}

/* How far joint j is beyond its limits (rad or m; a ball's angle beyond its cone). */
static tch_real limit_excess(const tch_tree_joint* joint, const tch_real* qpos) {
    if (joint->type == TCH_TREE_JOINT_BALL) {
        tch_ball_cone cone = tch_articulation_ball_cone(joint, qpos);
        return fmax(0, cone.angle - cone.limit);
    }
    tch_real q = qpos[joint->qpos];
    return fmax(0, fmax(joint->range[0] - q, q - joint->range[1]));
}

/* The one-sided limit spring-damper of a hinge or slide at q, v: pushes back in, never pulls. */
static tch_real limit_force(const tch_articulation* a, int j, tch_real q, tch_real v) {
    const tch_tree_joint* joint = &a->tree->joints[j];
    tch_real k = a->joint_limit_stiffness[j], b = a->joint_limit_damping[j];
    if (q < joint->range[0]) {
        return fmax(0, k * (joint->range[0] - q) - b * v);
    }
    if (q > joint->range[1]) {
        return fmin(0, -k * (q - joint->range[1]) - b * v);
    }
    return 0;
}

void tch_articulation_passive_forces(const tch_articulation* a, const tch_real* qpos,
                                     const tch_real* qvel, tch_real* qfrc) {
    const tch_tree* t = a->tree;
    tch_tree_passive_forces(t, qpos, qvel, qfrc);
    for (int j = 0; j < t->joint_count; ++j) {
        const tch_tree_joint* joint = &t->joints[j];
        if (joint->limited && !a->limit_rows && joint->type == TCH_TREE_JOINT_BALL) {
            add_ball_limit_torque(a, j, qpos, qvel, qfrc);
        } else if (joint->limited && !a->limit_rows) {
            qfrc[joint->dof] += limit_force(a, j, qpos[joint->qpos], qvel[joint->dof]);
        }
    }
    for (int j = 0; j < t->joint_count; ++j) {
        const tch_tree_joint* joint = &t->joints[j];
        for (int k = joint->dof; k < joint->dof + joint->nv; ++k) {
            if (a->dof_frictionloss[k] > 0 && !tch_articulation_friction_rows(a, joint)) {
                qfrc[k] -= a->dof_frictionloss[k] * tanh(qvel[k] / a->dof_friction_speed[k]);
            }
        }
    }
}

/* MuJoCo's gain and bias forms: with l = gear q and l' = gear q', f = ctrl (motor),
 * kp (ctrl - l) (position), kv (ctrl - l') (velocity); the joint receives gear f. */
static tch_real actuator_force(const tch_model* m, const tch_data* d, int a) {
    int joint = m->actuator_joint[a];
    tch_real gear = m->actuator_gear[a], ctrl = d->ctrl[a];
    if (m->actuator_ctrl_limited[a]) {
        ctrl = fmin(fmax(ctrl, m->actuator_ctrl_range[a][0]), m->actuator_ctrl_range[a][1]);
    }
    switch ((tch_actuator_type)m->actuator_type[a]) {
    case TCH_ACTUATOR_POSITION:
        return m->actuator_kp[a] * (ctrl - gear * d->qpos[m->joint_qpos_adr[joint]]);
    case TCH_ACTUATOR_VELOCITY:
        return m->actuator_kv[a] * (ctrl - gear * d->qvel[m->joint_qvel_adr[joint]]);
    default:
        return ctrl;
    }
}

void tch_articulation_actuator_forces(const tch_model* m, tch_data* d, tch_real* qfrc) {
    for (int a = 0; a < m->actuator_count; ++a) {
        d->actuator_force[a] = actuator_force(m, d, a);
        qfrc[m->joint_qvel_adr[m->actuator_joint[a]]] += m->actuator_gear[a] * d->actuator_force[a];
    }
}

/* ---- the linearly implicit step in the joints' own forces ---- */

/* With the implicit integrator the joints' own forces are in the step (docs/articulated.md,
 * "Implicit joint forces"): the linearly implicit Euler step of docs/integrators.md,
 *
 *     (A - h D_J - h^2 K_J) qacc = Q - (b + g) + h K_J q',
 *
 * with K_J and D_J the stiffness and damping of the joints' springs, dampers, limits and
 * regularized friction on the joint's own dofs (the diagonal, a ball's 3x3 block). They keep
 * the tree's sparsity (a dof couples only with itself and its ancestors), so A's L^T D L
 * factor takes them at no cost, whether or not the tree touches anything, and the implicit
 * contact system takes the same matrix as a tree's block (engine/implicit.c). Terms are
 * added to the step matrix M (nv x nv, row-major) and the right-hand side rhs. */

/* A one-sided limit in the step: e is how far the joint is beyond the limit (negative inside)
 * and rate de/dt. The force k e + b rate pushes back while it is positive beyond the limit
 * (the passive force has it). Inside the limit, a step that at this rate would pass it takes
 * the spring unclamped over the whole step (so the gap closes within the step, as the lcp
 * row's target lets it, instead of a step late by up to h times the speed); *missing is then
 * the unclamped force, which the passive force (zero inside) lacks. Whether the step takes the
 * spring and damper. */
static bool limit_in_step(tch_real k, tch_real b, tch_real e, tch_real rate, tch_real h,
                          tch_real* missing) {
    *missing = 0;
    if (e >= 0) {
        return k * e + b * rate > 0;
    }
    if (e + h * rate > 0) {
        *missing = k * e + b * rate;
        return true;
    }
    return false;
}

/* A hinge's or slide's limits in the step: the force s (k e + b e') with s = +1 at the lower
 * limit (e = lower - q) and -1 at the upper (e = q - upper), so K = -k and D = -b on its dof. */
static void add_limit_step_terms(const tch_articulation* a, int j, const tch_real* qpos,
                                 const tch_real* qvel, tch_real h, tch_real* M, tch_real* rhs) {
    const tch_tree_joint* joint = &a->tree->joints[j];
    int nv = a->tree->nv, k = joint->dof;
    tch_real q = qpos[joint->qpos], v = qvel[k];
    tch_real stiffness = a->joint_limit_stiffness[j], damping = a->joint_limit_damping[j];
    for (int side = 0; side < 2; ++side) {
        tch_real s = side == 0 ? 1 : -1; /* the direction the limit pushes */
        tch_real e = s * (joint->range[side] - q), missing;
        if (limit_in_step(stiffness, damping, e, -s * v, h, &missing)) {
            if (M) {
                M[(size_t)k * (size_t)nv + (size_t)k] += h * damping + h * h * stiffness;
            }
            rhs[k] += s * missing - h * stiffness * v;
            return;
        }
    }
}

/* A limited ball's cone in the step: the torque -(k e + b e') a on its dofs (e = theta - limit,
 * e' = a . w), so K = -k a a^T and D = -b a a^T on its 3x3 block (a's own turn with the
 * rotation, a term of the size of the torque, is left out: the step stays a W-method). */
static void add_ball_limit_step_terms(const tch_articulation* a, int j, const tch_real* qpos,
                                      const tch_real* qvel, tch_real h, tch_real* M,
                                      tch_real* rhs) {
    const tch_tree_joint* joint = &a->tree->joints[j];
    tch_ball_cone cone = tch_articulation_ball_cone(joint, qpos);
    const tch_real* w = qvel + joint->dof;
    tch_real axis[3] = {cone.axis.x, cone.axis.y, cone.axis.z};
    tch_real rate = axis[0] * w[0] + axis[1] * w[1] + axis[2] * w[2];
    tch_real stiffness = a->joint_limit_stiffness[j], damping = a->joint_limit_damping[j];
    tch_real missing;
    if (!limit_in_step(stiffness, damping, cone.angle - cone.limit, rate, h, &missing)) {
        return;
    }
    int nv = a->tree->nv;
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3 && M; ++c) {
            M[(size_t)(joint->dof + r) * (size_t)nv + (size_t)(joint->dof + c)] +=
                (h * damping + h * h * stiffness) * axis[r] * axis[c];
        }
        rhs[joint->dof + r] -= (missing + h * stiffness * rate) * axis[r];
    }
}

/* The slope of the regularized friction -f tanh(v / v_s) that the step takes, given the
 * velocity v_next the dof would reach by its own explicit step: the tangent f / v_s
 * sech^2(v / v_s) (0 while the joint slides fast: the step then slows it by exactly h f over
 * its inertia), but the secant f tanh(v / v_s) / v when v_next is past zero, where the
 * tangent would let one step turn the joint around (and the next one back: the explicit
 * step's instability). With the secant the step brings the velocity toward zero without
 * passing it. */
static tch_real friction_step_damping(tch_real f, tch_real speed, tch_real v, tch_real v_next) {
    tch_real x = v / speed;
    if (v * v_next <= 0) {
        return fabs(x) > 1e-8 ? f * tanh(x) / v : f / speed;
    }
    tch_real sech = 1 / cosh(fmin(fabs(x), 350)); /* cosh overflows beyond 710 */
    return f / speed * sech * sech;
}

/* Each dof's damper, spring and regularized friction, and every limit, into the step (M NULL:
 * the right-hand side alone, for a matrix already made at this state). */
static void add_joint_step_terms(const tch_articulation* a, const tch_real* qpos,
                                 const tch_real* qvel, tch_real h, tch_real* M, tch_real* rhs) {
    const tch_tree* t = a->tree;
    for (int k = 0; k < t->nv; ++k) {
        int joint = t->links[t->dof_link[k]].joint;
        tch_real stiffness = joint >= 0 ? t->joints[joint].stiffness : 0;
        if (M) {
            tch_real* M_kk = &M[(size_t)k * (size_t)t->nv + (size_t)k];
            tch_real damping = t->dof_damping[k];
            if (a->dof_frictionloss[k] > 0 &&
                !tch_articulation_friction_rows(a, &t->joints[joint])) {
                tch_real v_next = qvel[k] + h * rhs[k] / *M_kk; /* the dof alone, explicitly */
                damping += friction_step_damping(a->dof_frictionloss[k],
                                                 a->dof_friction_speed[k], qvel[k], v_next);
            }
            *M_kk += h * damping + h * h * stiffness;
        }
        rhs[k] -= h * stiffness * qvel[k];
    }
    for (int j = 0; j < t->joint_count && !a->limit_rows; ++j) {
        const tch_tree_joint* joint = &t->joints[j];
        if (joint->limited && joint->type == TCH_TREE_JOINT_BALL) {
            add_ball_limit_step_terms(a, j, qpos, qvel, h, M, rhs);
        } else if (joint->limited) {
            add_limit_step_terms(a, j, qpos, qvel, h, M, rhs);
        }
    }
}

/* qacc = M^-1 (Q - b - g) through the factor of the step's matrix M: A, and with the implicit
 * integrator the joints' terms above (Q in w->tau). A and b + g come from one pass
 * (tch_tree_mass_matrix_bias: the RNEA in the CRBA's frames). With `reuse` the factor and
 * w->bias in w are this state's already (tch_articulation_predict_links made them in this
 * evaluation). */
static tch_status factored_accelerations(const tch_model* m, const tch_data* d,
                                         tch_articulation_work* w, tch_real* qacc, bool reuse,
                                         tch_error* err) {
    const tch_tree* t = m->articulation->tree;
    if (!reuse) {
        tch_tree_mass_matrix_bias(t, w->tree, d->qvel, w->bias);
    }
    for (int k = 0; k < t->nv; ++k) {
        qacc[k] = w->tau[k] - w->bias[k];
    }
    if (m->integrator == TCH_INTEGRATOR_IMPLICIT) {
        add_joint_step_terms(m->articulation, d->qpos, d->qvel, m->timestep,
                             reuse ? NULL : w->tree->M, qacc);
    }
    tch_status s = reuse ? TCH_OK : tch_tree_factor(t, w->tree, err);
    if (s == TCH_OK) {
        tch_tree_solve(t, w->tree, qacc);
    }
    return s;
}

/* Q into w->tau: the joints' passive and actuator forces and every link's wrench in d. */
static void generalized_forces(const tch_model* m, tch_data* d, tch_articulation_work* w) {
    const tch_articulation* a = m->articulation;
    tch_articulation_passive_forces(a, d->qpos, d->qvel, w->tau);
    tch_articulation_actuator_forces(m, d, w->tau);
    add_equality_forces(a, w->tree, w->tau);
    for (int b = 1; b < m->body_count; ++b) {
        if (!m->body_free[b]) {
            continue;
        }
        /* the tree's bias force holds the link's weight */
        tch_vec3 f = tch_v3_madd(d->body_force_W[b], -m->body_total_mass[b], m->gravity);
        tch_vec3 tau = d->body_torque_W[b];
        if (f.x != 0 || f.y != 0 || f.z != 0 || tau.x != 0 || tau.y != 0 || tau.z != 0) {
            /* Q += J^T (f, tau) at the link's centre of mass, over its ancestors' dofs */
            tch_tree_add_wrench(m->articulation->tree, w->tree, b - 1, d->body_p_WCm[b], f, tau,
                                w->tau);
        }
    }
}

tch_status tch_articulation_accelerations(const tch_model* m, tch_data* d, tch_articulation_work* w,
                                          tch_error* err) {
    generalized_forces(m, d, w);
    if (m->integrator == TCH_INTEGRATOR_IMPLICIT) {
        bool reuse = w->step_factored;
        w->step_factored = false;
        return factored_accelerations(m, d, w, d->qacc, reuse, err);
    }
    return tch_tree_aba(m->articulation->tree, w->tree, w->tau, d->qacc, err);
}

/* Link b's mobility: its 6x6 block of Lambda^-1 = J A^-1 J^T (J: angular rows, then linear;
 * seeds/003 eq. 4), with the factor, its Jacobian in w->jacobian. */
static tch_link_mobility link_mobility(const tch_tree* t, tch_articulation_work* w) {
    tch_real L[36];
    tch_tree_inverse_inertia(t, w->tree, 6, w->jacobian, L);
    tch_link_mobility link = {.joined = 1};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            link.w_tau.m[i][j] = L[i * 6 + j];
            link.v_tau.m[i][j] = L[(3 + i) * 6 + j];
            link.v_f.m[i][j] = L[(3 + i) * 6 + 3 + j];
        }
    }
    return link;
}

/* Row r of w->jacobian times x. */
static tch_real jacobian_row_dot(const tch_articulation_work* w, int nv, int r, const tch_real* x) {
    tch_real sum = 0;
    for (int k = 0; k < nv; ++k) {
        sum += w->jacobian[r * nv + k] * x[k];
    }
    return sum;
}

/* Link b's predicted twist from w->qvel_next through its Jacobian in w->jacobian. */
static void predict_link_twist(const tch_model* m, tch_articulation_work* w, int b,
                               tch_velocity_prediction* prediction) {
    int nv = m->articulation->tree->nv;
    prediction->w_W[b] = tch_v3(jacobian_row_dot(w, nv, 0, w->qvel_next),
                                jacobian_row_dot(w, nv, 1, w->qvel_next),
                                jacobian_row_dot(w, nv, 2, w->qvel_next));
    prediction->v_WCm[b] = tch_v3(jacobian_row_dot(w, nv, 3, w->qvel_next),
                                  jacobian_row_dot(w, nv, 4, w->qvel_next),
                                  jacobian_row_dot(w, nv, 5, w->qvel_next));
}

/* Is model body b a link that the prediction takes (not welded to one, not a lone body) and
 * that a pair's friction reads (w->link_read)? */
static bool predicted_link(const tch_model* m, const tch_articulation_work* w, int b) {
    return m->body_free[b] && !m->articulation->body_lone[b] && w->link_read[b];
}

/* w->link_read: the roots of the pairs whose model reads the prediction (the mobility of the
 * other links, a tenth of the two-arm scene's step, would go unread). */
static void mark_read_links(const tch_model* m, const tch_data* d, tch_articulation_work* w) {
    memset(w->link_read, 0, (size_t)m->body_count);
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* pair = &d->pair_results[i];
        const tch_contact_ops* ops = tch_model_contact_ops(m, pair->model);
        if (ops->kind == TCH_CONTACT_KIND_FORCE && ops->friction_forces) {
            w->link_read[m->body_root[m->geom_body[pair->geom_a]]] = 1;
            w->link_read[m->body_root[m->geom_body[pair->geom_b]]] = 1;
        }
    }
}

tch_status tch_articulation_predict_links(const tch_model* m, tch_data* d,
                                          tch_articulation_work* w,
                                          tch_velocity_prediction* prediction, tch_error* err) {
    const tch_articulation* a = m->articulation;
    const tch_tree* t = a->tree;
    int nv = t->nv;
    generalized_forces(m, d, w);
    tch_status s = factored_accelerations(m, d, w, w->qvel_next, false, err);
    w->step_factored = s == TCH_OK && m->integrator == TCH_INTEGRATOR_IMPLICIT;
    if (s != TCH_OK) {
        return s;
    }
    for (int k = 0; k < nv; ++k) {
        w->qvel_next[k] = d->qvel[k] + prediction->h * w->qvel_next[k];
    }
    mark_read_links(m, d, w);
    for (int b = 1; b < m->body_count; ++b) {
        prediction->links[b].joined = 0;
        if (!predicted_link(m, w, b)) {
            continue; /* welded to a link, a lone free body or unread: as a free body */
        }
        link_jacobian(m, d, w, b);
        predict_link_twist(m, w, b, prediction);
        prediction->links[b] = link_mobility(t, w);
    }
    return TCH_OK;
}

void tch_articulation_predict_link_velocities(const tch_model* m, const tch_data* d,
                                              tch_articulation_work* w,
                                              tch_velocity_prediction* prediction) {
    for (int b = 1; b < m->body_count; ++b) {
        if (predicted_link(m, w, b)) {
            link_jacobian(m, d, w, b);
            predict_link_twist(m, w, b, prediction);
        }
    }
}

void tch_articulation_link_twist_jacobian(const tch_model* m, const tch_data* d,
                                          tch_articulation_work* w, int b, int first, int count,
                                          tch_real* T) {
    int nv = m->articulation->tree->nv;
    link_jacobian(m, d, w, b);
    for (int k = 0; k < count; ++k) {
        for (int i = 0; i < 3; ++i) {
            T[i * count + k] = w->jacobian[(3 + i) * nv + first + k];       /* v_WCm */
            T[(3 + i) * count + k] = w->jacobian[i * nv + first + k];       /* w_W */
        }
    }
}

const tch_real* tch_articulation_step_matrix(const tch_articulation_work* w) {
    return w->tree->M;
}

/* ---- energy and integration ---- */

tch_real tch_articulation_energy(const tch_model* m, const tch_data* d,
                                 const tch_articulation_work* w) {
    const tch_articulation* a = m->articulation;
    const tch_tree* t = a->tree;
    tch_real energy = tch_tree_kinetic_energy(t, w->tree, d->qvel) +
                      tch_tree_potential_energy(t, w->tree, d->qpos) +
                      equality_energy(a, w->tree);
    for (int j = 0; j < t->joint_count; ++j) {
        const tch_tree_joint* joint = &t->joints[j];
        if (joint->limited && !a->limit_rows) {
            tch_real beyond = limit_excess(joint, d->qpos);
            energy += a->joint_limit_stiffness[j] * beyond * beyond / 2;
        }
    }
    return energy;
}

void tch_articulation_advance_positions(const tch_articulation* a, tch_real* qpos,
                                        const tch_real* qvel, tch_real h) {
    const tch_tree* t = a->tree;
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        if (link->type == TCH_TREE_LINK_BALL) {
            tch_real* q = &qpos[link->qpos];
            const tch_real* v = &qvel[link->dof];
            tch_quat turned = tch_q_mul((tch_quat){q[0], q[1], q[2], q[3]},
                                        tch_q_from_rotvec(tch_v3(h * v[0], h * v[1], h * v[2])));
            turned = tch_q_normalize(turned);
            q[0] = turned.w, q[1] = turned.x, q[2] = turned.y, q[3] = turned.z;
        } else {
            for (int k = 0; k < link->dof_count; ++k) {
                qpos[link->qpos + k] += h * qvel[link->dof + k];
            }
        }
    }
}
