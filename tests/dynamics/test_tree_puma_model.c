#include "test_tree_puma_model.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct dh_row {
    double d, a, alpha, mass;
    tch_vec3 com, moments;
    double armature, damping;
} dh_row;

/* reference/puma560.md, standard DH set and drive table (link side) */
static const dh_row puma_rows[PUMA_DOF] = {
    {0, 0, TCH_PI / 2, 0, {0, 0, 0}, {0, 0.35, 0}, 0.784, 5.80},
    {0, 0.4318, 0, 17.4, {-0.3638, 0.006, 0.2275}, {0.13, 0.524, 0.539}, 2.325, 9.50},
    {0.15005,
     0.0203,
     -TCH_PI / 2,
     4.8,
     {-0.0203, -0.0141, 0.070},
     {0.066, 0.086, 0.0125},
     0.577,
     3.98},
    {0.4318, 0, TCH_PI / 2, 0.82, {0, 0.019, 0}, {1.8e-3, 1.3e-3, 1.8e-3}, 0.191, 0.412},
    {0, 0, -TCH_PI / 2, 0.34, {0, 0, 0}, {0.3e-3, 0.4e-3, 0.3e-3}, 0.171, 0.427},
    {0, 0, 0, 0.09, {0, 0, 0.032}, {0.15e-3, 0.15e-3, 0.04e-3}, 0.194, 0.216},
};

static const double puma_limits_deg[PUMA_DOF][2] = {{-160, 160}, {-45, 225},  {-225, 45},
                                                    {-110, 170}, {-100, 100}, {-266, 266}};

tch_status puma_tree_create(bool repair_link1, bool repair_link3, tch_tree** tree, tch_error* err) {
    tch_tree_body_def bodies[PUMA_DOF];
    tch_tree_joint_def joints[PUMA_DOF];
    for (int i = 0; i < PUMA_DOF; ++i) {
        const dh_row* r = &puma_rows[i];
        tch_tree_body_def* b = &bodies[i];
        *b = tch_tree_body_def_default();
        snprintf(b->name, sizeof b->name, "link%d", i + 1);
        b->parent = i - 1;
        b->X_PB = (tch_transform){tch_q_axis_angle((tch_vec3){1, 0, 0}, r->alpha), {r->a, 0, r->d}};
        b->mass = r->mass;
        b->p_BCm = r->com;
        b->I_Cm = tch_m3_diag(r->moments);
        b->repair_triangle_inequality = (i == 0 && repair_link1) || (i == 2 && repair_link3);
        tch_tree_joint_def* j = &joints[i];
        *j = tch_tree_joint_def_default();
        snprintf(j->name, sizeof j->name, "joint%d", i + 1);
        j->body = i;
        j->axis = (tch_vec3){0, sin(r->alpha), cos(r->alpha)};
        j->pos = (tch_vec3){-r->a, -r->d * sin(r->alpha), -r->d * cos(r->alpha)};
        j->armature = r->armature;
        j->damping = r->damping;
        j->limited = true;
        j->range[0] = puma_limits_deg[i][0] * TCH_PI / 180;
        j->range[1] = puma_limits_deg[i][1] * TCH_PI / 180;
    }
    tch_tree_site_def tool = {
        .name = "tool", .body = PUMA_DOF - 1, .X_BS = {{1, 0, 0, 0}, {0, 0, 0.03}}};
    tch_tree_def def = {PUMA_DOF, bodies, PUMA_DOF, joints, 1, &tool, {0, 0, -9.81}};
    return tch_tree_create(&def, tree, err);
}

void puma_pose(const char* name, tch_real q[PUMA_DOF]) {
    memset(q, 0, PUMA_DOF * sizeof *q);
    if (strcmp(name, "qr") == 0) {
        q[1] = TCH_PI / 2;
        q[2] = -TCH_PI / 2;
    } else if (strcmp(name, "qs") == 0) {
        q[2] = -TCH_PI / 2;
    } else if (strcmp(name, "qn") == 0) {
        q[1] = TCH_PI / 4;
        q[2] = -TCH_PI;
        q[4] = TCH_PI / 4;
    }
}
