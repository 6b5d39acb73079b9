/* Kinematic-tree kernels (dynamics/tree.h) on random trees with every joint type: RNEA, CRBA
 * and ABA against each other and against finite differences of the Lagrangian; Jacobians;
 * Lambda^-1 against a dense inverse; energy under RK4; a physical pendulum's period; bad
 * input; the spatial algebra they add. */
#include <stdlib.h>
#include <string.h>

#include "../math/test_util.h"
#include "dynamics/tree.h"
#include "math/dense.h"
#include "test.h"

enum { BODIES = 9, MAX_JOINTS = 16, MAX_NV = 32, MAX_NQ = 40, MAX_ROWS = 8 };

/* ---- fixtures ---- */

/* The inertia of a real body: principal moments (b + c, a + c, a + b) of second moments
 * a, b, c > 0 (so the triangle inequality holds), turned by a random rotation. */
static tch_mat3 random_inertia(rng* r, tch_real scale) {
    tch_real a = scale * (1.2 + uniform(r)), b = scale * (1.2 + uniform(r));
    tch_real c = scale * (1.2 + uniform(r));
    return tch_m3_rotate_tensor(tch_q_to_mat3(random_quat(r)),
                                tch_m3_diag((tch_vec3){b + c, a + c, a + b}));
}

static tch_tree_joint_type joint_type_of(char code) {
    switch (code) {
    case 'F':
        return TCH_TREE_JOINT_FREE;
    case 'B':
        return TCH_TREE_JOINT_BALL;
    case 'S':
        return TCH_TREE_JOINT_SLIDE;
    default:
        return TCH_TREE_JOINT_HINGE;
    }
}

/* Nine bodies: a free root, hinges, balls, slides, a welded body, bodies with two and three
 * joints, and a second root on a ball. The branching (`chain` false) or a chain (true) and
 * every number are drawn from `seed`. Armature on every dof; springs when asked; no damping. */
static tch_tree* random_tree(uint64_t seed, bool chain, bool springs) {
    static const char* patterns[BODIES] = {"F", "H", "B", "SH", "", "H", "HBS", "B", "S"};
    rng r = {seed * 0x9E3779B97F4A7C15ull + 1};
    tch_tree_body_def bodies[BODIES];
    tch_tree_joint_def joints[MAX_JOINTS];
    int joint_count = 0;
    for (int i = 0; i < BODIES; ++i) {
        tch_tree_body_def* b = &bodies[i];
        *b = tch_tree_body_def_default();
        snprintf(b->name, sizeof b->name, "body%d", i);
        int random_parent = (int)((uniform(&r) + 1) / 2 * i); /* 0 .. i-1 */
        b->parent = i == 0 || i == 7 ? -1 : (chain ? i - 1 : random_parent);
        b->X_PB = (tch_transform){random_quat(&r), tch_v3_scale(random_vec3(&r), 0.5)};
        b->mass = 1.5 + uniform(&r);
        b->p_BCm = tch_v3_scale(random_vec3(&r), 0.3);
        b->I_Cm = random_inertia(&r, 0.05);
        for (const char* p = patterns[i]; *p; ++p) {
            tch_tree_joint_def* j = &joints[joint_count];
            *j = tch_tree_joint_def_default();
            snprintf(j->name, sizeof j->name, "joint%d", joint_count++);
            j->body = i;
            j->type = joint_type_of(*p);
            j->axis = tch_v3_add(tch_v3_scale(random_vec3(&r), 2), (tch_vec3){0, 0, 0.5});
            j->pos = tch_v3_scale(random_vec3(&r), 0.3);
            j->ref = 0.2 * uniform(&r);
            j->armature = 0.05 * (1 + uniform(&r));
            j->stiffness = springs ? 2 * (1.5 + uniform(&r)) : 0;
            j->springref = 0.3 * uniform(&r);
        }
    }
    tch_tree_def def = {BODIES, bodies, joint_count, joints, 0, NULL, {0.3, -0.2, -9.81}};
    tch_tree* tree = NULL;
    tch_error err;
    if (tch_tree_create(&def, &tree, &err) != TCH_OK) {
        fprintf(stderr, "random_tree: %s\n", err.message);
    }
    return tree;
}

static void write_quat(tch_real* q, tch_quat value) {
    q[0] = value.w;
    q[1] = value.x;
    q[2] = value.y;
    q[3] = value.z;
}

static tch_quat read_quat(const tch_real* q) {
    return (tch_quat){q[0], q[1], q[2], q[3]};
}

static void random_state(const tch_tree* t, rng* r, tch_real* qpos, tch_real* qvel) {
    tch_tree_default_qpos(t, qpos);
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        if (link->type == TCH_TREE_LINK_BALL) {
            write_quat(&qpos[link->qpos], random_quat(r));
        } else {
            for (int k = 0; k < link->dof_count; ++k) {
                qpos[link->qpos + k] += uniform(r);
            }
        }
    }
    for (int k = 0; k < t->nv; ++k) {
        qvel[k] = 2 * uniform(r);
    }
}

static tch_real max_abs(const tch_real* x, int n) {
    tch_real m = 0;
    for (int i = 0; i < n; ++i) {
        m = fmax(m, fabs(x[i]));
    }
    return m;
}

static void kinematics(const tch_tree* t, tch_tree_data* d, const tch_real* qpos,
                       const tch_real* qvel) {
    tch_tree_positions(t, d, qpos);
    tch_tree_velocities(t, d, qvel);
}

/* ---- spatial algebra added for the trees ---- */

static void matrix_times(const tch_real M[36], const tch_real x[6], tch_real y[6]) {
    for (int i = 0; i < 6; ++i) {
        y[i] = 0;
        for (int j = 0; j < 6; ++j) {
            y[i] += M[i * 6 + j] * x[j];
        }
    }
}

/* The ten-number and block forms act and transform as the 6x6 matrices of eqs. 2.63, 2.66. */
static void test_rigid_and_articulated_inertias_match_their_matrices(void) {
    rng r = {42};
    tch_spatial_inertia I = {2.5, random_vec3(&r), random_inertia(&r, 0.3)};
    tch_spatial_transform X = tch_sx_from_transform(random_transform(&r));
    tch_spatial_rbi rbi = tch_rbi_from_inertia(I);
    tch_spatial_rbi moved = tch_rbi_transform(X, rbi);
    tch_spatial_rbi expected = tch_rbi_from_inertia(tch_si_transform(X, I));
    ENSURE_NEAR(moved.mass, expected.mass, 1e-14);
    ENSURE(tch_v3_norm(tch_v3_sub(moved.h, expected.h)) < 1e-12);
    ENSURE(m3_max_diff(moved.I_o, expected.I_o) < 1e-12);
    tch_spatial_vec v = {random_vec3(&r), random_vec3(&r)};
    tch_real M[36], vx[6], Mv[6], got[6];
    tch_si_matrix(I, M);
    tch_sv_to_array(v, vx);
    matrix_times(M, vx, Mv);
    tch_sv_to_array(tch_rbi_apply(rbi, v), got);
    for (int i = 0; i < 6; ++i) {
        ENSURE_NEAR(got[i], Mv[i], 1e-12);
    }
    /* a non-rigid symmetric inertia: the rigid one minus a rank-one term */
    tch_spatial_vec a = {random_vec3(&r), random_vec3(&r)};
    tch_spatial_abi abi = tch_abi_sub_outer(tch_abi_from_rbi(rbi), a, a);
    tch_real A[36], Xf[36], Xm_inverse[36], XA[36], moved_matrix[36];
    for (int i = 0; i < 6; ++i) {
        tch_real e[6] = {0};
        e[i] = 1;
        tch_real col[6];
        tch_sv_to_array(tch_abi_apply(abi, tch_sv_from_array(e)), col);
        for (int k = 0; k < 6; ++k) {
            A[k * 6 + i] = col[k];
        }
    }
    tch_sx_force_matrix(X, Xf);
    tch_sx_motion_matrix(tch_sx_inverse(X), Xm_inverse);
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
            XA[i * 6 + j] = 0;
            for (int k = 0; k < 6; ++k) {
                XA[i * 6 + j] += Xf[i * 6 + k] * A[k * 6 + j];
            }
        }
    }
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
            moved_matrix[i * 6 + j] = 0;
            for (int k = 0; k < 6; ++k) {
                moved_matrix[i * 6 + j] += XA[i * 6 + k] * Xm_inverse[k * 6 + j];
            }
        }
    }
    tch_spatial_abi moved_abi = tch_abi_transform(X, abi);
    for (int i = 0; i < 6; ++i) {
        tch_real e[6] = {0}, col[6];
        e[i] = 1;
        tch_sv_to_array(tch_abi_apply(moved_abi, tch_sv_from_array(e)), col);
        for (int k = 0; k < 6; ++k) {
            ENSURE_NEAR(col[k], moved_matrix[k * 6 + i], 1e-11);
        }
    }
}

/* ---- RNEA, CRBA, ABA ---- */

/* Forward dynamics by CRBA + L^T D L and by ABA agree; RNEA inverts them; RNEA's response to
 * unit accelerations is the CRBA's mass matrix. All to 1e-10 of the values' size. */
static void test_rnea_crba_and_aba_agree_on_random_trees(void) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
        tch_tree* t = random_tree(seed, false, true);
        ENSURE(t != NULL);
        ENSURE(t->nv == 22 && t->nq == 26);
        tch_tree_data* d = NULL;
        ENSURE(tch_tree_data_create(t, 0, &d, NULL) == TCH_OK);
        rng r = {seed + 100};
        tch_real qpos[MAX_NQ], qvel[MAX_NV], tau[MAX_NV], bias[MAX_NV];
        tch_real qacc_crba[MAX_NV], qacc_aba[MAX_NV], tau_back[MAX_NV], col[MAX_NV];
        random_state(t, &r, qpos, qvel);
        int nv = t->nv;
        for (int k = 0; k < nv; ++k) {
            tau[k] = 5 * uniform(&r);
        }
        kinematics(t, d, qpos, qvel);
        tch_tree_rnea(t, d, NULL, bias);
        tch_tree_mass_matrix(t, d);
        /* the fused pass: the same A, the same bias from the RNEA in the CRBA's frames */
        tch_real M[MAX_NV * MAX_NV], bias_fused[MAX_NV];
        memcpy(M, d->M, (size_t)(nv * nv) * sizeof *M);
        tch_tree_mass_matrix_bias(t, d, qvel, bias_fused);
        ENSURE(memcmp(M, d->M, (size_t)(nv * nv) * sizeof *M) == 0);
        for (int k = 0; k < nv; ++k) {
            ENSURE_NEAR(bias_fused[k], bias[k], 1e-10 * (1 + max_abs(bias, nv)));
        }
        ENSURE(tch_tree_factor(t, d, NULL) == TCH_OK);
        for (int k = 0; k < nv; ++k) {
            qacc_crba[k] = tau[k] - bias[k];
        }
        tch_tree_solve(t, d, qacc_crba);
        ENSURE(tch_tree_aba(t, d, tau, qacc_aba, NULL) == TCH_OK);
        tch_real acc_scale = 1 + max_abs(qacc_crba, nv);
        for (int k = 0; k < nv; ++k) {
            ENSURE_NEAR(qacc_aba[k], qacc_crba[k], 1e-10 * acc_scale);
        }
        tch_tree_rnea(t, d, qacc_aba, tau_back);
        tch_real force_scale = 1 + max_abs(tau, nv) + max_abs(bias, nv);
        for (int k = 0; k < nv; ++k) {
            ENSURE_NEAR(tau_back[k], tau[k], 1e-10 * force_scale);
        }
        tch_real mass_scale = max_abs(d->M, nv * nv);
        for (int k = 0; k < nv; ++k) {
            tch_real unit[MAX_NV] = {0};
            unit[k] = 1;
            tch_tree_rnea(t, d, unit, col);
            for (int i = 0; i < nv; ++i) {
                ENSURE_NEAR(col[i] - bias[i], d->M[i * nv + k], 1e-10 * (mass_scale + force_scale));
            }
        }
        tch_tree_data_destroy(d);
        tch_tree_destroy(t);
    }
}

/* ---- the Lagrangian in a chart ---- */

/* Generalized coordinates phi around q0: vector entries add, a quaternion turns by exp(phi)
 * in its own frame: q = q0 exp(phi). Then qvel = W(phi) phi' with W = 1 but for ball links,
 * where W is the right Jacobian of SO(3), J_r(phi) = 1 - (1 - cos t)/t^2 [phi]x +
 * (t - sin t)/t^3 [phi]x^2, t = |phi|. At phi = 0, W = 1 and W' phi' = -1/2 phi' x phi' = 0,
 * so there phi' = qvel, phi'' = qacc and the generalized forces are the same. */
static void chart_position(const tch_tree* t, const tch_real* q0, const tch_real* phi,
                           tch_real* q) {
    memcpy(q, q0, (size_t)t->nq * sizeof *q);
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        const tch_real* p = &phi[link->dof];
        if (link->type == TCH_TREE_LINK_BALL) {
            tch_quat turned = tch_q_mul(read_quat(&q0[link->qpos]),
                                        tch_q_from_rotvec((tch_vec3){p[0], p[1], p[2]}));
            write_quat(&q[link->qpos], turned);
        } else {
            for (int k = 0; k < link->dof_count; ++k) {
                q[link->qpos + k] += p[k];
            }
        }
    }
}

static tch_mat3 right_jacobian(tch_vec3 phi) {
    tch_real t2 = tch_v3_norm2(phi), t = sqrt(t2);
    tch_real c1, c2; /* (1 - cos t)/t^2, (t - sin t)/t^3 */
    if (t < 1e-2) {
        c1 = 0.5 - t2 / 24 + t2 * t2 / 720;
        c2 = 1.0 / 6 - t2 / 120 + t2 * t2 / 5040;
    } else {
        c1 = (1 - cos(t)) / t2;
        c2 = (t - sin(t)) / (t2 * t);
    }
    tch_mat3 K = tch_m3_skew(phi);
    return tch_m3_add(tch_m3_add(tch_m3_identity(), tch_m3_scale(K, -c1)),
                      tch_m3_scale(tch_m3_mul(K, K), c2));
}

static void chart_velocity(const tch_tree* t, const tch_real* phi, const tch_real* phi_dot,
                           tch_real* qvel) {
    memcpy(qvel, phi_dot, (size_t)t->nv * sizeof *qvel);
    for (int l = 0; l < t->link_count; ++l) {
        const tch_tree_link* link = &t->links[l];
        if (link->type == TCH_TREE_LINK_BALL) {
            const tch_real* p = &phi[link->dof];
            const tch_real* pd = &phi_dot[link->dof];
            tch_vec3 w = tch_m3_mul_v3(right_jacobian((tch_vec3){p[0], p[1], p[2]}),
                                       (tch_vec3){pd[0], pd[1], pd[2]});
            qvel[link->dof] = w.x;
            qvel[link->dof + 1] = w.y;
            qvel[link->dof + 2] = w.z;
        }
    }
}

typedef struct lagrangian_system {
    const tch_tree* tree;
    tch_tree_data* data;
    const tch_real* q0;
} lagrangian_system;

/* L = T - V (gravity and springs) at q0 (+) phi, velocity phi'. */
static tch_real lagrangian(const lagrangian_system* s, const tch_real* phi,
                           const tch_real* phi_dot) {
    tch_real q[MAX_NQ], qvel[MAX_NV];
    chart_position(s->tree, s->q0, phi, q);
    chart_velocity(s->tree, phi, phi_dot, qvel);
    kinematics(s->tree, s->data, q, qvel);
    return tch_tree_kinetic_energy(s->tree, s->data, qvel) -
           tch_tree_potential_energy(s->tree, s->data, q);
}

/* dL/dphi'_k: L is quadratic in phi', so a central difference of any step is exact. */
static tch_real momentum(const lagrangian_system* s, const tch_real* phi, const tch_real* phi_dot,
                         int k) {
    tch_real plus[MAX_NV], minus[MAX_NV];
    memcpy(plus, phi_dot, (size_t)s->tree->nv * sizeof *plus);
    memcpy(minus, phi_dot, (size_t)s->tree->nv * sizeof *minus);
    plus[k] += 1;
    minus[k] -= 1;
    return (lagrangian(s, phi, plus) - lagrangian(s, phi, minus)) / 2;
}

/* The five-point derivative (f(-2h) - 8 f(-h) + 8 f(h) - f(2h)) / 12h, error h^4 f^(5) / 30. */
static const tch_real stencil[4] = {-2, -1, 1, 2}, stencil_weight[4] = {1, -8, 8, -1};

/* Euler-Lagrange with the generalized force tau: d/dt dL/dphi' - dL/dphi = tau along the
 * motion phi(t) = t qvel + t^2/2 qacc, qacc = ABA(tau + springs), to the accuracy of the
 * five-point derivatives: h = 4e-4 gives truncation h^4 f^(5)/30 ~ 1e-15 f^(5) and rounding
 * eps |L| / h ~ 3e-11 for L ~ 100. The residuals seen are at most 4e-10 of the forces' size
 * (2e-8 with h = 1e-3, so truncation dominates); checked at 1e-8. */
static void test_dynamics_satisfy_euler_lagrange_by_finite_differences(void) {
    for (uint64_t seed = 1; seed <= 3; ++seed) {
        tch_tree* t = random_tree(seed, false, true);
        ENSURE(t != NULL);
        tch_tree_data* d = NULL;
        ENSURE(tch_tree_data_create(t, 0, &d, NULL) == TCH_OK);
        rng r = {seed + 200};
        int nv = t->nv;
        tch_real q0[MAX_NQ], qvel[MAX_NV], tau[MAX_NV], forces[MAX_NV], qacc[MAX_NV];
        random_state(t, &r, q0, qvel);
        for (int k = 0; k < nv; ++k) {
            tau[k] = 5 * uniform(&r);
        }
        tch_tree_passive_forces(t, q0, qvel, forces);
        for (int k = 0; k < nv; ++k) {
            forces[k] += tau[k];
        }
        kinematics(t, d, q0, qvel);
        ENSURE(tch_tree_aba(t, d, forces, qacc, NULL) == TCH_OK);
        lagrangian_system s = {t, d, q0};
        const tch_real h = 4e-4;
        tch_real residual[MAX_NV], scale = 1 + max_abs(forces, nv);
        for (int k = 0; k < nv; ++k) {
            tch_real dp_dt = 0, dL_dphi = 0;
            for (int i = 0; i < 4; ++i) {
                tch_real time = stencil[i] * h, phi[MAX_NV], phi_dot[MAX_NV], zero[MAX_NV] = {0};
                for (int j = 0; j < nv; ++j) {
                    phi[j] = time * qvel[j] + time * time / 2 * qacc[j];
                    phi_dot[j] = qvel[j] + time * qacc[j];
                }
                dp_dt += stencil_weight[i] * momentum(&s, phi, phi_dot, k);
                zero[k] = stencil[i] * h;
                dL_dphi += stencil_weight[i] * lagrangian(&s, zero, qvel);
            }
            residual[k] = (dp_dt - dL_dphi) / (12 * h) - tau[k];
            scale = fmax(scale, fabs(dL_dphi / (12 * h)));
        }
        for (int k = 0; k < nv; ++k) {
            ENSURE_NEAR(residual[k], 0, 1e-8 * scale);
        }
        tch_tree_data_destroy(d);
        tch_tree_destroy(t);
    }
}

/* ---- Jacobians and the contact space ---- */

/* J qvel is the velocity of the point from the velocity pass and the time derivative of its
 * position (central difference, h = 1e-5: error h^2 x''' / 6 + eps |x| / h ~ 1e-10). */
static void test_point_jacobian_gives_point_velocity(void) {
    tch_tree* t = random_tree(5, false, false);
    ENSURE(t != NULL);
    tch_tree_data* d = NULL;
    ENSURE(tch_tree_data_create(t, 0, &d, NULL) == TCH_OK);
    rng r = {77};
    int nv = t->nv;
    tch_real qpos[MAX_NQ], qvel[MAX_NV], J_ang[3 * MAX_NV], J_lin[3 * MAX_NV];
    random_state(t, &r, qpos, qvel);
    for (int body = 0; body < t->body_count; ++body) {
        kinematics(t, d, qpos, qvel);
        tch_vec3 p_B = random_vec3(&r);
        tch_vec3 p_W = tch_x_apply(tch_tree_body_pose(t, d, body), p_B);
        tch_vec3 w, v;
        tch_tree_point_velocity(t, d, body, p_W, &w, &v);
        tch_tree_point_jacobian(t, d, body, p_W, J_ang, J_lin);
        tch_real Jw[3], Jv[3];
        tch_dense_mat_vec(J_ang, 3, nv, qvel, Jw);
        tch_dense_mat_vec(J_lin, 3, nv, qvel, Jv);
        ENSURE(tch_v3_dist((tch_vec3){Jw[0], Jw[1], Jw[2]}, w) < 1e-12 * (1 + tch_v3_norm(w)));
        ENSURE(tch_v3_dist((tch_vec3){Jv[0], Jv[1], Jv[2]}, v) < 1e-12 * (1 + tch_v3_norm(v)));
        tch_vec3 x[2];
        for (int side = 0; side < 2; ++side) {
            tch_real phi[MAX_NV], q[MAX_NQ];
            for (int k = 0; k < nv; ++k) {
                phi[k] = (side ? 1e-5 : -1e-5) * qvel[k];
            }
            chart_position(t, qpos, phi, q);
            tch_tree_positions(t, d, q);
            x[side] = tch_x_apply(tch_tree_body_pose(t, d, body), p_B);
        }
        tch_vec3 fd = tch_v3_scale(tch_v3_sub(x[1], x[0]), 1 / 2e-5);
        ENSURE(tch_v3_dist(fd, v) < 1e-8 * (1 + tch_v3_norm(v)));
    }
    tch_tree_data_destroy(d);
    tch_tree_destroy(t);
}

/* tch_tree_inverse_inertia of J (m x nv) against J times dense = A^-1 J^T by rows. */
static bool inverse_inertia_matches(const tch_tree* t, tch_tree_data* d, int m, const tch_real* J,
                                    const tch_real* dense) {
    int nv = t->nv;
    tch_real lambda[MAX_ROWS * MAX_ROWS];
    tch_tree_inverse_inertia(t, d, m, J, lambda);
    for (int a = 0; a < m; ++a) {
        for (int b = 0; b < m; ++b) {
            tch_real expected = 0;
            for (int k = 0; k < nv; ++k) {
                expected += J[a * nv + k] * dense[b * nv + k];
            }
            if (!(fabs(lambda[a * m + b] - expected) <= 1e-10 * (1 + fabs(expected)))) {
                return false;
            }
        }
    }
    return true;
}

/* Lambda^-1 = J A^-1 J^T and the rows of J A^-1 against a dense Cholesky inverse of A. */
static void test_inverse_inertia_matches_a_dense_inverse(void) {
    tch_tree* t = random_tree(6, false, false);
    ENSURE(t != NULL);
    tch_tree_data* d = NULL;
    ENSURE(tch_tree_data_create(t, MAX_ROWS, &d, NULL) == TCH_OK);
    rng r = {91};
    int nv = t->nv, m = MAX_ROWS;
    tch_real qpos[MAX_NQ], qvel[MAX_NV], J[MAX_ROWS * MAX_NV], J3[3 * MAX_NV];
    random_state(t, &r, qpos, qvel);
    kinematics(t, d, qpos, qvel);
    for (int row = 0; row < m; ++row) { /* normal rows at points on bodies 2, 4, 6, 8 */
        int body = 2 * (row / 2) + 2;
        tch_vec3 p_W = tch_x_apply(tch_tree_body_pose(t, d, body), random_vec3(&r));
        tch_tree_point_jacobian(t, d, body, p_W, NULL, J3);
        tch_vec3 n = tch_v3_normalize(random_vec3(&r));
        for (int k = 0; k < nv; ++k) {
            J[row * nv + k] = n.x * J3[k] + n.y * J3[nv + k] + n.z * J3[2 * nv + k];
        }
    }
    tch_tree_mass_matrix(t, d);
    ENSURE(tch_tree_factor(t, d, NULL) == TCH_OK);
    tch_real chol[MAX_NV * MAX_NV], dense[MAX_ROWS * MAX_NV];
    memcpy(chol, d->M, (size_t)(nv * nv) * sizeof *chol);
    ENSURE(tch_dense_cholesky(chol, nv) == 0);
    memcpy(dense, J, (size_t)(m * nv) * sizeof *dense);
    for (int row = 0; row < m; ++row) {
        tch_dense_cholesky_solve(chol, nv, &dense[row * nv]);
    }
    tch_real rows[MAX_ROWS * MAX_NV];
    memcpy(rows, J, (size_t)(m * nv) * sizeof *rows);
    tch_tree_solve_rows(t, d, m, rows);
    tch_real row_scale = max_abs(dense, m * nv);
    for (int i = 0; i < m * nv; ++i) {
        ENSURE_NEAR(rows[i], dense[i], 1e-10 * row_scale);
    }
    ENSURE(inverse_inertia_matches(t, d, m, J, dense));
    /* rows off every dof's path (random entries) and a zero row: the computation over all dofs */
    for (int k = 0; k < nv; ++k) {
        J[1 * nv + k] = random_vec3(&r).x;
        J[3 * nv + k] = 0;
    }
    memcpy(dense, J, (size_t)(m * nv) * sizeof *dense);
    for (int row = 0; row < m; ++row) {
        tch_dense_cholesky_solve(chol, nv, &dense[row * nv]);
    }
    ENSURE(inverse_inertia_matches(t, d, m, J, dense));
    tch_tree_data_destroy(d);
    tch_tree_destroy(t);
}

/* ---- integration ---- */

typedef struct state {
    tch_real qpos[MAX_NQ];
    tch_real qvel[MAX_NV];
} state;

/* d/dt (qpos, qvel) = (rate(qpos, qvel), ABA(passive forces)) */
static void derivative(const tch_tree* t, tch_tree_data* d, const state* s, state* rate) {
    tch_real forces[MAX_NV];
    kinematics(t, d, s->qpos, s->qvel);
    tch_tree_passive_forces(t, s->qpos, s->qvel, forces);
    tch_tree_qpos_rate(t, s->qpos, s->qvel, rate->qpos);
    tch_tree_aba(t, d, forces, rate->qvel, NULL);
}

/* out = s + h k, entry by entry */
static void add_scaled(const tch_tree* t, const state* s, tch_real h, const state* k, state* out) {
    for (int i = 0; i < t->nq; ++i) {
        out->qpos[i] = s->qpos[i] + h * k->qpos[i];
    }
    for (int i = 0; i < t->nv; ++i) {
        out->qvel[i] = s->qvel[i] + h * k->qvel[i];
    }
}

/* Classical RK4 on (qpos, qvel), quaternions renormalized after the step. */
static void rk4_step(const tch_tree* t, tch_tree_data* d, state* s, tch_real h) {
    state k1, k2, k3, k4, tmp;
    derivative(t, d, s, &k1);
    add_scaled(t, s, h / 2, &k1, &tmp);
    derivative(t, d, &tmp, &k2);
    add_scaled(t, s, h / 2, &k2, &tmp);
    derivative(t, d, &tmp, &k3);
    add_scaled(t, s, h, &k3, &tmp);
    derivative(t, d, &tmp, &k4);
    for (int i = 0; i < t->nq; ++i) {
        s->qpos[i] += h / 6 * (k1.qpos[i] + 2 * k2.qpos[i] + 2 * k3.qpos[i] + k4.qpos[i]);
    }
    for (int i = 0; i < t->nv; ++i) {
        s->qvel[i] += h / 6 * (k1.qvel[i] + 2 * k2.qvel[i] + 2 * k3.qvel[i] + k4.qvel[i]);
    }
    tch_tree_normalize_quaternions(t, s->qpos);
}

static tch_real total_energy(const tch_tree* t, tch_tree_data* d, const state* s) {
    kinematics(t, d, s->qpos, s->qvel);
    return tch_tree_kinetic_energy(t, d, s->qvel) + tch_tree_potential_energy(t, d, s->qpos);
}

/* A chain of nine bodies with every joint type (a free root, hinges, slides, balls, springs,
 * no damping) keeps its energy under RK4: drift per second below 1e-8 of the initial kinetic
 * energy over 0.5 s. */
static void test_passive_chain_conserves_energy_under_rk4(void) {
    tch_tree* t = random_tree(7, true, true);
    ENSURE(t != NULL);
    tch_tree_data* d = NULL;
    ENSURE(tch_tree_data_create(t, 0, &d, NULL) == TCH_OK);
    rng r = {313};
    state s;
    random_state(t, &r, s.qpos, s.qvel);
    kinematics(t, d, s.qpos, s.qvel);
    tch_real kinetic0 = tch_tree_kinetic_energy(t, d, s.qvel);
    tch_real e0 = total_energy(t, d, &s), h = 2.5e-4, duration = 0.5;
    for (int step = 0; step < (int)lround(duration / h); ++step) {
        rk4_step(t, d, &s, h);
    }
    tch_real drift = fabs(total_energy(t, d, &s) - e0) / kinetic0 / duration;
    printf("     energy drift per second %.3g of the kinetic energy\n", drift);
    ENSURE(drift < 1e-8);
    tch_tree_data_destroy(d);
    tch_tree_destroy(t);
}

/* A hinge pendulum: mass m, centre of mass at distance l below the axis, inertia I_y about
 * its centre of mass along the axis, armature a. Small oscillations have the period
 * 2 pi sqrt((I_y + m l^2 + a) / (m g l)); amplitude 1e-3 rad shifts it by 6e-8 (theta^2/16). */
static void test_physical_pendulum_period_matches_closed_form(void) {
    tch_real m = 1.7, l = 0.4, Iy = 0.03, armature = 0.01, g = 9.81;
    tch_tree_body_def body = tch_tree_body_def_default();
    snprintf(body.name, sizeof body.name, "bob");
    body.X_PB.p = (tch_vec3){0, 0, 1};
    body.mass = m;
    body.p_BCm = (tch_vec3){0, 0, -l};
    body.I_Cm = tch_m3_diag((tch_vec3){0.02, Iy, 0.015});
    tch_tree_joint_def hinge = tch_tree_joint_def_default();
    snprintf(hinge.name, sizeof hinge.name, "pivot");
    hinge.axis = (tch_vec3){0, 2, 0};
    hinge.armature = armature;
    tch_tree_def def = {1, &body, 1, &hinge, 0, NULL, {0, 0, -g}};
    tch_tree* t = NULL;
    ENSURE(tch_tree_create(&def, &t, NULL) == TCH_OK);
    tch_tree_data* d = NULL;
    ENSURE(tch_tree_data_create(t, 0, &d, NULL) == TCH_OK);
    tch_real period = 2 * TCH_PI * sqrt((Iy + m * l * l + armature) / (m * g * l));
    state s = {{1e-3}, {0}};
    tch_real h = 1e-3, time = 0, crossings[3];
    int found = 0;
    while (found < 3 && time < 5 * period) {
        tch_real before = s.qpos[0];
        rk4_step(t, d, &s, h);
        time += h;
        if ((before > 0) != (s.qpos[0] > 0)) { /* linear interpolation of the zero */
            crossings[found++] = time - h * s.qpos[0] / (s.qpos[0] - before);
        }
    }
    ENSURE(found == 3);
    ENSURE_REL(crossings[2] - crossings[0], period, 1e-6);
    tch_tree_data_destroy(d);
    tch_tree_destroy(t);
}

/* ---- MuJoCo's conventions ---- */

/* MuJoCo 2.2.2 on this MJCF (gravity 0.3 -0.2 -9.81), at the state below, reported the body
 * position, bias force, mass matrix diagonal and free acceleration recorded here (mj_forward):
 *
 *   <body name="A" pos="0.1 0.2 1.0" quat="0.9 0.1 -0.3 0.2"> <freejoint/>
 *     <inertial pos="0.05 -0.02 0.03" mass="2.0" diaginertia="0.1 0.12 0.15"/>
 *     <body name="B" pos="0.3 0.1 -0.2" quat="0.8 0.2 0.1 -0.4">
 *       <joint type="hinge" axis="0.3 1 0.2" pos="0.05 0.02 -0.1" armature="0.02"/>
 *       <joint type="slide" axis="1 0.2 -0.3" armature="0.03"/>
 *       <joint type="ball" pos="-0.04 0.06 0.01" armature="0.01"/>
 *       <inertial pos="0.1 0.05 -0.02" mass="1.3" diaginertia="0.05 0.06 0.07"/>
 *       <body name="C" pos="0.2 -0.1 0.15">
 *         <joint type="hinge" axis="0 0.6 0.8" pos="0.1 -0.05 0"/>
 *         <joint type="ball" pos="0.02 0 0.03"/>
 *         <inertial pos="0.03 0.02 0.1" mass="0.7" diaginertia="0.02 0.025 0.03"/>
 *
 * so the qpos/qvel layout, the free joint's velocities, several joints on one body acting in
 * order about their anchors, and armature are MuJoCo's. */
static void test_multi_joint_bodies_match_mujoco(void) {
    static const double qpos[18] = {
        -0.34599999999999997, -0.16800000000000004, 0.15599999999999992, -0.37469941678694174,
        0.83717476748115194,  0.22274323013027267,  0.33033953621015022, -0.95399999999999996,
        0.06800000000000006,  -0.59527593267290169, 0.61303383987326066, -0.31192150038891348,
        0.41538061190404812,  -0.79200000000000004, 0.48177895599750414, 0.61284587676214652,
        0.44145067268530647,  0.44433126435046344};
    static const double qvel[15] = {1.668,  1.418, -1.952, 0.216, -0.242, 1.534,  -1.966, -1.864,
                                    -1.876, 1.466, 1.716,  0.076, -0.424, -1.932, 1.088};
    static const double bias[15] = {
        -15.520750772473486,  -6.428280395840904,   44.964370163143307,  -2.5984261947758194,
        5.828286992561722,    -4.8843531901258093,  5.1465495396192722,  13.836493382105758,
        -1.5315517813679951,  -0.69306708128801509, 6.6380084938267601,  0.065879532337876578,
        -0.16230050734693091, 0.64796608324572247,  -0.14807234626285859};
    static const double diagonal[15] = {4,
                                        4,
                                        4,
                                        0.26599589236715426,
                                        0.38092100670709178,
                                        0.38896320881850688,
                                        0.26239871802764941,
                                        2.0299999999999985,
                                        0.12775423693124202,
                                        0.22621507194096993,
                                        0.23109384571614761,
                                        0.02308475712227178,
                                        0.023710000000000026,
                                        0.028500000000000029,
                                        0.030350000000000037};
    static const double qacc_free[15] = {
        1.5532889428845273,   0.17917177547113414,  -10.053087244953291, 6.7544755430657846,
        -6.744648264188486,   0.76005532106889584,  -0.2217500985238281, 0.44655094730800704,
        -0.98790869341441945, -4.9252963727729595,  -15.087220319787043, 5.7099269478962604,
        -2.1248651698827055,  -0.39905239030144868, 2.9753368495442949};
    tch_tree_body_def b[3];
    tch_tree_joint_def j[6];
    static const struct {
        tch_quat q;
        tch_vec3 p, com, moments;
        double mass;
    } bodies[3] = {
        {{0.9, 0.1, -0.3, 0.2}, {0.1, 0.2, 1.0}, {0.05, -0.02, 0.03}, {0.1, 0.12, 0.15}, 2.0},
        {{0.8, 0.2, 0.1, -0.4}, {0.3, 0.1, -0.2}, {0.1, 0.05, -0.02}, {0.05, 0.06, 0.07}, 1.3},
        {{1, 0, 0, 0}, {0.2, -0.1, 0.15}, {0.03, 0.02, 0.1}, {0.02, 0.025, 0.03}, 0.7}};
    static const struct {
        int body;
        tch_tree_joint_type type;
        tch_vec3 axis, pos;
        double armature;
    } joints[6] = {{0, TCH_TREE_JOINT_FREE, {0, 0, 1}, {0, 0, 0}, 0},
                   {1, TCH_TREE_JOINT_HINGE, {0.3, 1, 0.2}, {0.05, 0.02, -0.1}, 0.02},
                   {1, TCH_TREE_JOINT_SLIDE, {1, 0.2, -0.3}, {0, 0, 0}, 0.03},
                   {1, TCH_TREE_JOINT_BALL, {0, 0, 1}, {-0.04, 0.06, 0.01}, 0.01},
                   {2, TCH_TREE_JOINT_HINGE, {0, 0.6, 0.8}, {0.1, -0.05, 0}, 0},
                   {2, TCH_TREE_JOINT_BALL, {0, 0, 1}, {0.02, 0, 0.03}, 0}};
    for (int i = 0; i < 3; ++i) {
        b[i] = tch_tree_body_def_default();
        snprintf(b[i].name, sizeof b[i].name, "%c", 'A' + i);
        b[i].parent = i - 1;
        b[i].X_PB = (tch_transform){tch_q_normalize(bodies[i].q), bodies[i].p};
        b[i].mass = bodies[i].mass;
        b[i].p_BCm = bodies[i].com;
        b[i].I_Cm = tch_m3_diag(bodies[i].moments);
    }
    for (int i = 0; i < 6; ++i) {
        j[i] = tch_tree_joint_def_default();
        snprintf(j[i].name, sizeof j[i].name, "j%d", i);
        j[i].body = joints[i].body;
        j[i].type = joints[i].type;
        j[i].axis = joints[i].axis;
        j[i].pos = joints[i].pos;
        j[i].armature = joints[i].armature;
    }
    tch_tree_def def = {3, b, 6, j, 0, NULL, {0.3, -0.2, -9.81}};
    tch_tree* t = NULL;
    ENSURE(tch_tree_create(&def, &t, NULL) == TCH_OK);
    ENSURE(t->nq == 18 && t->nv == 15);
    tch_tree_data* d = NULL;
    ENSURE(tch_tree_data_create(t, 0, &d, NULL) == TCH_OK);
    kinematics(t, d, qpos, qvel);
    tch_vec3 p_C = tch_tree_body_pose(t, d, 2).p;
    ENSURE(tch_v3_dist(p_C, (tch_vec3){-0.15840774241889635, -0.14542688913684959,
                                       0.33286434716359647}) < 1e-14);
    tch_real tau[15], zero[15] = {0}, qacc[15];
    tch_tree_rnea(t, d, NULL, tau);
    tch_tree_mass_matrix(t, d);
    ENSURE(tch_tree_aba(t, d, zero, qacc, NULL) == TCH_OK);
    for (int k = 0; k < 15; ++k) {
        ENSURE_NEAR(tau[k], bias[k], 1e-12);
        ENSURE_NEAR(d->M[k * 15 + k], diagonal[k], 1e-13);
        ENSURE_NEAR(qacc[k], qacc_free[k], 1e-11);
    }
    tch_tree_data_destroy(d);
    tch_tree_destroy(t);
}

/* ---- the rest of the model ---- */

/* Damping opposes each dof's velocity; springs pull toward springref; sites ride on bodies. */
static void test_passive_forces_and_sites(void) {
    tch_tree_body_def body = tch_tree_body_def_default();
    snprintf(body.name, sizeof body.name, "slider");
    body.mass = 2;
    body.I_Cm = tch_m3_diag((tch_vec3){0.1, 0.1, 0.1});
    tch_tree_joint_def joint = tch_tree_joint_def_default();
    snprintf(joint.name, sizeof joint.name, "rail");
    joint.type = TCH_TREE_JOINT_SLIDE;
    joint.axis = (tch_vec3){3, 0, 0};
    joint.damping = 4;
    joint.stiffness = 10;
    joint.springref = 0.25;
    tch_tree_site_def site = {.name = "tip", .body = 0, .X_BS = {{1, 0, 0, 0}, {0, 0, 0.5}}};
    tch_tree_def def = {1, &body, 1, &joint, 1, &site, {0, 0, -9.81}};
    tch_tree* t = NULL;
    ENSURE(tch_tree_create(&def, &t, NULL) == TCH_OK);
    tch_real qpos[1] = {0.75}, qvel[1] = {-2}, qfrc[1];
    tch_tree_passive_forces(t, qpos, qvel, qfrc);
    ENSURE_NEAR(qfrc[0], -10 * 0.5 + 4 * 2, 1e-14);
    ENSURE(tch_tree_find_site(t, "tip") == 0 && tch_tree_find_body(t, "slider") == 0);
    ENSURE(tch_tree_find_joint(t, "rail") == 0 && tch_tree_find_joint(t, "none") == -1);
    tch_tree_data* d = NULL;
    ENSURE(tch_tree_data_create(t, 0, &d, NULL) == TCH_OK);
    tch_tree_positions(t, d, qpos);
    tch_transform X = tch_tree_site_pose(t, d, 0);
    ENSURE(tch_v3_dist(X.p, (tch_vec3){0.75, 0, 0.5}) < 1e-14);
    tch_tree_data_destroy(d);
    tch_tree_destroy(t);
}

/* Each bad definition fails with TCH_ERR_INVALID_ARGUMENT and names its body or joint. */
static void test_bad_trees_are_refused_by_name(void) {
    enum { CASES = 8 };
    for (int c = 0; c < CASES; ++c) {
        tch_tree_body_def bodies[2];
        tch_tree_joint_def joints[2];
        for (int i = 0; i < 2; ++i) {
            bodies[i] = tch_tree_body_def_default();
            snprintf(bodies[i].name, sizeof bodies[i].name, "b%d", i);
            bodies[i].parent = i - 1;
            bodies[i].mass = 1;
            bodies[i].I_Cm = tch_m3_diag((tch_vec3){0.1, 0.1, 0.1});
            joints[i] = tch_tree_joint_def_default();
            snprintf(joints[i].name, sizeof joints[i].name, "j%d", i);
            joints[i].body = i;
        }
        const char* expected = NULL;
        switch (c) {
        case 0:
            bodies[1].parent = 1;
            expected = "b1";
            break; /* cycle */
        case 1:
            joints[1].axis = tch_v3_zero();
            expected = "j1";
            break;
        case 2:
            bodies[1].I_Cm.m[2][2] = 0;
            expected = "b1";
            break; /* not PD */
        case 3:
            bodies[1].I_Cm.m[2][2] = 0.3;
            expected = "b1";
            break; /* triangle */
        case 4:
            joints[0].type = TCH_TREE_JOINT_FREE;
            bodies[0].mass = 0;
            bodies[0].I_Cm = tch_m3_zero();
            expected = "j0";
            break; /* massless */
        case 5:
            joints[1].limited = true;
            joints[1].range[0] = 1;
            joints[1].range[1] = -1;
            expected = "j1";
            break;
        case 6:
            joints[1].type = TCH_TREE_JOINT_FREE;
            expected = "j1";
            break; /* not a root */
        case 7:
            bodies[1].I_Cm.m[0][1] = 0.05;
            expected = "b1";
            break; /* asymmetric */
        }
        tch_tree_def def = {2, bodies, 2, joints, 0, NULL, {0, 0, -9.81}};
        tch_tree* t = NULL;
        tch_error err;
        ENSURE(tch_tree_create(&def, &t, &err) == TCH_ERR_INVALID_ARGUMENT);
        ENSURE(t == NULL);
        if (strcmp(err.element, expected) != 0 || strstr(err.message, expected) == NULL) {
            fprintf(stderr, "case %d: %s (element '%s')\n", c, err.message, err.element);
            ENSURE(0);
        }
    }
}

/* A dof that moves no mass and has no armature makes A singular: factor and ABA say which. */
static void test_singular_mass_matrix_names_the_joint(void) {
    tch_tree_body_def body = tch_tree_body_def_default();
    snprintf(body.name, sizeof body.name, "ghost");
    tch_tree_joint_def joint = tch_tree_joint_def_default();
    snprintf(joint.name, sizeof joint.name, "spin");
    tch_tree_def def = {1, &body, 1, &joint, 0, NULL, {0, 0, -9.81}};
    tch_tree* t = NULL;
    ENSURE(tch_tree_create(&def, &t, NULL) == TCH_OK);
    tch_tree_data* d = NULL;
    ENSURE(tch_tree_data_create(t, 0, &d, NULL) == TCH_OK);
    tch_real q[1] = {0}, tau[1] = {1}, qacc[1];
    kinematics(t, d, q, q);
    tch_tree_mass_matrix(t, d);
    tch_error err;
    ENSURE(tch_tree_factor(t, d, &err) == TCH_ERR_NUMERICAL);
    ENSURE(strcmp(err.element, "spin") == 0);
    ENSURE(tch_tree_aba(t, d, tau, qacc, &err) == TCH_ERR_NUMERICAL);
    ENSURE(strcmp(err.element, "spin") == 0);
    tch_tree_data_destroy(d);
    tch_tree_destroy(t);
}

int main(void) {
    RUN_TEST(test_rigid_and_articulated_inertias_match_their_matrices);
    RUN_TEST(test_rnea_crba_and_aba_agree_on_random_trees);
    RUN_TEST(test_dynamics_satisfy_euler_lagrange_by_finite_differences);
    RUN_TEST(test_point_jacobian_gives_point_velocity);
    RUN_TEST(test_inverse_inertia_matches_a_dense_inverse);
    RUN_TEST(test_passive_chain_conserves_energy_under_rk4);
    RUN_TEST(test_physical_pendulum_period_matches_closed_form);
    RUN_TEST(test_multi_joint_bodies_match_mujoco);
    RUN_TEST(test_passive_forces_and_sites);
    RUN_TEST(test_bad_trees_are_refused_by_name);
    RUN_TEST(test_singular_mass_matrix_names_the_joint);
    return TEST_RESULT();
}
