/* The PUMA 560 from the standard DH set (reference/puma560.md): static gravity torques at the
 * four named poses against the reference table, and its inertia data flagged as the note asks. */
#include <stdlib.h>

#include "test.h"
#include "test_tree_puma_model.h"

/* Link 3's moments break the triangle inequality: the tree names the link and refuses it
 * unless the caller opts in to the repair (never a silent average). Link 1 (massless, one
 * moment) breaks it too. */
static void test_puma_inertia_violations_are_flagged(void) {
    tch_tree* tree = NULL;
    tch_error err;
    ENSURE(puma_tree_create(true, false, &tree, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tree == NULL);
    ENSURE(strcmp(err.element, "link3") == 0);
    ENSURE(strstr(err.message, "triangle inequality") != NULL);
    ENSURE(puma_tree_create(false, true, &tree, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strcmp(err.element, "link1") == 0);
}

/* The repair keeps the largest moment, link 3's y axis (the elbow axis), and raises the other
 * two by (0.086 - 0.066 - 0.0125) / 2 = 0.00375 each. */
static void test_puma_repair_keeps_the_joint_axis_moment(void) {
    tch_tree* tree = NULL;
    ENSURE(puma_tree_create(true, true, &tree, NULL) == TCH_OK);
    const tch_tree_link* link3 = &tree->links[2]; /* its inertia in the link frame, back to link
                                                    3's body frame */
    const tch_spatial_rbi I3 = tch_rbi_transform(tch_sx_inverse(link3->X_body), link3->inertia);
    tch_spatial_inertia point = {I3.mass, tch_v3_scale(I3.h, 1 / I3.mass), tch_m3_zero()};
    tch_mat3 offset = tch_si_inertia_about(point, tch_v3_zero()); /* m [c]x [c]x^T */
    tch_mat3 I_Cm = tch_m3_add(I3.I_o, tch_m3_scale(offset, -1));
    ENSURE_NEAR(I_Cm.m[1][1], 0.086, 1e-12);
    ENSURE_NEAR(I_Cm.m[0][0], 0.066 + 0.00375, 1e-12);
    ENSURE_NEAR(I_Cm.m[2][2], 0.0125 + 0.00375, 1e-12);
    tch_tree_destroy(tree);
}

/* reference/puma560.md, "Validation: static gravity torques", three independent sources. */
static void test_puma_static_gravity_torques_match_the_reference(void) {
    static const struct {
        const char* pose;
        double tau[PUMA_DOF];
    } table[] = {
        {"qz", {0, 37.4837, 0.2489, 0, 0, 0}},
        {"qr", {0, -0.7752, 0.2489, 0, 0, 0}},
        {"qs", {0, 46.0069, 8.7722, 0, 0.0283, 0}},
        {"qn", {0, 31.6399, 6.0351, 0, 0.0283, 0}},
    };
    tch_tree* tree = NULL;
    ENSURE(puma_tree_create(true, true, &tree, NULL) == TCH_OK);
    tch_tree_data* data = NULL;
    ENSURE(tch_tree_data_create(tree, 0, &data, NULL) == TCH_OK);
    for (size_t p = 0; p < sizeof table / sizeof table[0]; ++p) {
        tch_real q[PUMA_DOF], qd[PUMA_DOF] = {0}, tau[PUMA_DOF];
        puma_pose(table[p].pose, q);
        tch_tree_positions(tree, data, q);
        tch_tree_velocities(tree, data, qd);
        tch_tree_rnea(tree, data, NULL, tau);
        for (int k = 0; k < PUMA_DOF; ++k) {
            ENSURE_NEAR(tau[k], table[p].tau[k], 1e-4);
        }
    }
    tch_tree_data_destroy(data);
    tch_tree_destroy(tree);
}

/* The arm moving: bias force, mass matrix and passive forces equal MuJoCo 2.2.2's on
 * bench/dynamics/puma560.xml (the same arm; link 1 there has 1e-9 kg on its joint axis), as
 * mj_forward reported them at this state (qfrc_bias, mj_fullM of qM, qfrc_passive). */
static void test_puma_moving_matches_mujoco(void) {
    static const double q[PUMA_DOF] = {0.3, -0.7, 1.1, -0.4, 0.9, 2.0};
    static const double qd[PUMA_DOF] = {1.0, -0.5, 0.8, 2.0, -1.5, 3.0};
    static const double bias[PUMA_DOF] = {-0.9245912533982702,   25.431805666018477,
                                          -3.0008505069967537,   -0.002818830067711442,
                                          -0.026774410940181931, 0.00015195684642953233};
    static const double diagonal[PUMA_DOF] = {3.1112999299009543,  3.7555729930411381,
                                              0.93771994055934327, 0.19276404558773158,
                                              0.17164216000000002, 0.19404000000000002};
    static const double passive[PUMA_DOF] = {-5.8, 4.75, -3.184, -0.824, 0.6405, -0.648};
    tch_tree* tree = NULL;
    ENSURE(puma_tree_create(true, true, &tree, NULL) == TCH_OK);
    tch_tree_data* data = NULL;
    ENSURE(tch_tree_data_create(tree, 0, &data, NULL) == TCH_OK);
    tch_real tau[PUMA_DOF], qfrc[PUMA_DOF];
    tch_tree_positions(tree, data, q);
    tch_tree_velocities(tree, data, qd);
    tch_tree_rnea(tree, data, NULL, tau);
    tch_tree_mass_matrix(tree, data);
    tch_tree_passive_forces(tree, q, qd, qfrc);
    for (int k = 0; k < PUMA_DOF; ++k) {
        ENSURE_NEAR(tau[k], bias[k], 1e-9);
        ENSURE_NEAR(data->M[k * PUMA_DOF + k], diagonal[k], 1e-9);
        ENSURE_NEAR(qfrc[k], passive[k], 1e-12);
    }
    ENSURE_NEAR(data->M[1], 0.29755374217688757, 1e-9);
    ENSURE_NEAR(data->M[PUMA_DOF + 2], 0.021589465800240563, 1e-9);
    ENSURE_NEAR(data->M[2 * PUMA_DOF + 3], 0.00041767817054306594, 1e-9);
    tch_tree_data_destroy(data);
    tch_tree_destroy(tree);
}

int main(void) {
    RUN_TEST(test_puma_inertia_violations_are_flagged);
    RUN_TEST(test_puma_repair_keeps_the_joint_axis_moment);
    RUN_TEST(test_puma_static_gravity_torques_match_the_reference);
    RUN_TEST(test_puma_moving_matches_mujoco);
    return TEST_RESULT();
}
