/* Constraint rows with TREE sides (contact/rows.h, dynamics/tree_rows.h): the coupling
 * J_i A⁻¹ J_jᵀ that the solvers read through tch_row_coupling, for rows from a tree to the
 * world, from the world to a tree, and between two bodies of one tree, against the tree's
 * contact-space inverse inertia tch_tree_inverse_inertia of the rows' whole Jacobians; and a
 * free body's side next to a tree's. */
#include <string.h>

#include "../math/test_util.h"
#include "dynamics/tree_rows.h"
#include "test.h"

enum { ROWS = 3, NV = 6 };

/* Three bodies: a hinge from the world; a slide and a hinge below it; a ball on the first. */
static tch_tree* small_tree(void) {
    tch_tree_body_def bodies[3];
    tch_tree_joint_def joints[4];
    const int parents[3] = {-1, 0, 0};
    for (int i = 0; i < 3; ++i) {
        bodies[i] = tch_tree_body_def_default();
        snprintf(bodies[i].name, sizeof bodies[i].name, "body%d", i);
        bodies[i].parent = parents[i];
        bodies[i].X_PB = (tch_transform){tch_q_identity(), tch_v3(0.1 * i, 0.3, -0.2 * i)};
        bodies[i].mass = 1 + 0.5 * i;
        bodies[i].p_BCm = tch_v3(0.05, -0.02 * i, 0.1);
        bodies[i].I_Cm = tch_m3_diag(tch_v3(0.02 + 0.01 * i, 0.03, 0.025));
    }
    const int joint_body[4] = {0, 1, 1, 2};
    const tch_tree_joint_type types[4] = {TCH_TREE_JOINT_HINGE, TCH_TREE_JOINT_SLIDE,
                                          TCH_TREE_JOINT_HINGE, TCH_TREE_JOINT_BALL};
    for (int j = 0; j < 4; ++j) {
        joints[j] = tch_tree_joint_def_default();
        snprintf(joints[j].name, sizeof joints[j].name, "joint%d", j);
        joints[j].body = joint_body[j];
        joints[j].type = types[j];
        joints[j].axis = tch_v3(0.2 * j, 1 - 0.3 * j, 0.5);
        joints[j].pos = tch_v3(0.02, 0.01 * j, -0.03);
    }
    tch_tree_def def = {3, bodies, 4, joints, 0, NULL, {0, 0, -9.81}};
    tch_tree* tree = NULL;
    return tch_tree_create(&def, &tree, NULL) == TCH_OK ? tree : NULL;
}

/* Row i's whole Jacobian over the tree: the sum of its TREE sides' J. */
static void whole_jacobian(const tch_jacobian_row* row, int nv, tch_real* J) {
    memset(J, 0, (size_t)nv * sizeof *J);
    for (int s = 0; s < 2; ++s) {
        for (int k = 0; k < nv && row->side[s].kind == TCH_ROW_SIDE_TREE; ++k) {
            J[k] += row->side[s].J[k];
        }
    }
}

static void test_tree_rows_couple_as_the_inverse_inertia(void) {
    tch_tree* t = small_tree();
    ENSURE(t != NULL && t->nv == NV);
    tch_tree_data* d = NULL;
    ENSURE(tch_tree_data_create(t, ROWS, &d, NULL) == TCH_OK);
    rng r = {17};
    tch_real qpos[16];
    tch_tree_default_qpos(t, qpos);
    for (int k = 0; k < t->nq; ++k) {
        qpos[k] += 0.3 * uniform(&r);
    }
    tch_tree_normalize_quaternions(t, qpos);
    tch_tree_positions(t, d, qpos);
    tch_tree_mass_matrix(t, d);
    ENSURE(tch_tree_factor(t, d, NULL) == TCH_OK);

    /* tree side: (row, side, body); the other sides stay NONE */
    const int on[4][3] = {{0, 0, 1}, {1, 1, 2}, {2, 0, 1}, {2, 1, 2}};
    tch_jacobian_row rows[ROWS];
    memset(rows, 0, sizeof rows);
    tch_real J[4][NV], inv_J[4][NV], qvel[NV];
    tch_real* velocity = qvel;
    tch_vec3 p_W[ROWS], d_W[ROWS];
    for (int i = 0; i < ROWS; ++i) {
        p_W[i] = tch_v3_add(tch_tree_body_pose(t, d, 1 + i % 2).p,
                            tch_v3_scale(random_vec3(&r), 0.1));
        d_W[i] = tch_v3_normalize(random_vec3(&r));
    }
    for (int e = 0; e < 4; ++e) {
        int i = on[e][0], s = on[e][1];
        tch_tree_row_side(t, d, 0, 0, NV, on[e][2], p_W[i], d_W[i], s == 0 ? 1 : -1, &velocity,
                          J[e], inv_J[e], &rows[i].side[s]);
    }
    tch_real whole[ROWS * NV], lambda[ROWS * ROWS];
    for (int i = 0; i < ROWS; ++i) {
        whole_jacobian(&rows[i], NV, &whole[i * NV]);
    }
    tch_tree_inverse_inertia(t, d, ROWS, whole, lambda);
    for (int i = 0; i < ROWS; ++i) {
        for (int j = 0; j < ROWS; ++j) {
            ENSURE_NEAR(tch_row_coupling(&rows[i], &rows[j]), lambda[i * ROWS + j],
                        1e-12 * (1 + fabs(lambda[i * ROWS + j])));
        }
    }
    ENSURE(lambda[0] > 0 && lambda[1 * ROWS + 1] > 0 && lambda[2 * ROWS + 2] > 0);

    /* the solvers' view: J qvel is the point's velocity along d (relative for row 2), and an
     * impulse z on row 0 moves row j's velocity by Lambda^-1_j0 z */
    for (int k = 0; k < NV; ++k) {
        qvel[k] = uniform(&r);
    }
    tch_tree_velocities(t, d, qvel);
    tch_vec3 w_W, v1, v2;
    tch_tree_point_velocity(t, d, 1, p_W[2], &w_W, &v1);
    tch_tree_point_velocity(t, d, 2, p_W[2], &w_W, &v2);
    ENSURE_NEAR(tch_row_dot(&rows[2], NULL, NULL), tch_v3_dot(d_W[2], tch_v3_sub(v1, v2)), 1e-12);
    tch_real before[ROWS];
    for (int j = 0; j < ROWS; ++j) {
        before[j] = tch_row_dot(&rows[j], NULL, NULL);
    }
    tch_row_add_impulse(&rows[0], 0.7, NULL, NULL);
    for (int j = 0; j < ROWS; ++j) {
        ENSURE_NEAR(tch_row_dot(&rows[j], NULL, NULL) - before[j], 0.7 * lambda[j * ROWS], 1e-12);
    }

    /* a joint limit's row reads its dof alone; its diagonal is (A^-1)_kk */
    tch_real limit_J[NV], limit_inv_J[NV], unit[NV] = {0};
    tch_jacobian_row limit;
    memset(&limit, 0, sizeof limit);
    const tch_real minus_one = -1;
    tch_tree_limit_side(t, d, 0, 0, NV, 2, &minus_one, 1, &velocity, limit_J, limit_inv_J,
                        &limit.side[0]);
    ENSURE_NEAR(tch_row_dot(&limit, NULL, NULL), -qvel[2], 1e-15);
    unit[2] = 1;
    tch_tree_solve(t, d, unit);
    ENSURE_NEAR(tch_row_coupling(&limit, &limit), unit[2], 1e-12);

    /* a free body's side next to the tree's adds its own block only */
    tch_jacobian_row mixed = rows[0], other = rows[0];
    tch_row_side body = {.body = 3, .kind = TCH_ROW_SIDE_BODY};
    body.lin = body.inv_lin = tch_v3(0, 0, 1);
    body.ang = tch_v3(0.1, 0, 0);
    body.inv_ang = tch_v3(2, 0, 0);
    mixed.side[1] = other.side[1] = body;
    ENSURE_NEAR(tch_row_coupling(&mixed, &other), lambda[0] + 1 + 0.2, 1e-12);
    tch_tree_data_destroy(d);
    tch_tree_destroy(t);
}

int main(void) {
    RUN_TEST(test_tree_rows_couple_as_the_inverse_inertia);
    return TEST_RESULT();
}
