/* Articulated trees in the constraints stage (engine/constraint_stage.h; docs/articulated.md,
 * "Constraint rows on trees").
 *
 * A contact on a link acts on the tree's generalized velocities: its row's side there is the
 * TREE side J = ±d . J_lin(p) over the dofs of the link's subtree of the world, with A⁻¹ Jᵀ
 * (Ruspini and Khatib, seeds/003 eqs. 4 and 17; dynamics/tree_rows.h), so the solvers' impulse
 * z moves qvel by A⁻¹ Jᵀ z and two rows on one tree couple by J_i A⁻¹ J_jᵀ, the contact-space
 * inverse inertia. A joint limit is one unilateral row on its dof, J = ±e_k: with q+ = q + h v+
 * (hinges and slides are linear in their coordinate), the target v+ >= (lower - q) / h lets the
 * joint close its gap within the step and never pass the limit. A ball's cone limit (rotation
 * angle theta = |r| at most the limit) is one row on its three dofs, J = -a (a = r / theta, so
 * J w = -theta', exact for the turn about a that closes the gap), with the same target on
 * limit - theta. A dof's Coulomb friction (frictionloss f) is a bounded row on it, J = e_k,
 * target 0, its impulse in [-f h, f h]: the joint sticks while the rest of the step's impulses
 * hold it with less than f, and slips against f otherwise (maximal dissipation on the dof).
 */
#include "engine/constraint_stage.h"

#include <math.h>
#include <string.h>

#include "dynamics/tree_rows.h"

/* A limit row is made when the joint, at its velocity v* of the step, would reach its limit
 * within LIMIT_LOOKAHEAD steps. */
static const tch_real LIMIT_LOOKAHEAD = 2;
/* A joint found past its limit (at the start, or by a solver's residual) is brought back by
 * this share of the violation per step (Baumgarte's; the target then allows that much
 * energy: constraint_chain.c's adds_no_energy). */
static const tch_real LIMIT_RECOVERY = 0.2;

static tch_tree_data* tree_data(const tch_constraint_run* s) {
    return s->d->internal->articulation->tree;
}

/* The gap of joint j to its lower (side 0) or upper (side 1) limit at qpos, and its rate (a
 * ball: to its cone, side 1). */
static void limit_gap(const tch_tree_joint* joint, const tch_real* qpos, const tch_real* qvel,
                      int side, tch_real* gap, tch_real* rate) {
    if (joint->type == TCH_TREE_JOINT_BALL) {
        tch_ball_cone cone = tch_articulation_ball_cone(joint, qpos);
        const tch_real* w = qvel + joint->dof;
        *gap = cone.limit - cone.angle;
        *rate = -(cone.axis.x * w[0] + cone.axis.y * w[1] + cone.axis.z * w[2]);
        return;
    }
    tch_real q = qpos[joint->qpos], v = qvel[joint->dof];
    *gap = side == 0 ? q - joint->range[0] : joint->range[1] - q;
    *rate = side == 0 ? v : -v;
}

static bool limit_due(tch_real gap, tch_real rate, tch_real h) {
    return gap + LIMIT_LOOKAHEAD * h * fmin(rate, 0) <= 0;
}

/* Hinges, slides and balls with limits, when the model takes them as rows. */
static bool has_limit_rows(const tch_model* m, const tch_tree_joint* joint) {
    return m->articulation->limit_rows && joint->limited && joint->type != TCH_TREE_JOINT_FREE;
}

/* The first side of joint's limits: a ball has its cone only (side 1). */
static int first_limit_side(const tch_tree_joint* joint) {
    return joint->type == TCH_TREE_JOINT_BALL ? 1 : 0;
}

/* Does a dof of the model take a Coulomb friction row (lcp scenes with frictionloss)? */
static bool has_friction_rows(const tch_model* m) {
    const tch_articulation* a = m->articulation;
    for (int j = 0; a && a->limit_rows && j < a->tree->joint_count; ++j) {
        const tch_tree_joint* joint = &a->tree->joints[j];
        for (int k = joint->dof; k < joint->dof + joint->nv; ++k) {
            if (a->dof_frictionloss[k] > 0 && tch_articulation_friction_rows(a, joint)) {
                return true;
            }
        }
    }
    return false;
}

bool tch_constraint_joint_rows_due(const tch_model* m, const tch_data* d, tch_real h) {
    const tch_articulation* a = m->articulation;
    if (has_friction_rows(m)) {
        return true;
    }
    for (int j = 0; a && a->limit_rows && j < a->tree->joint_count; ++j) {
        const tch_tree_joint* joint = &a->tree->joints[j];
        for (int side = first_limit_side(joint); side < 2 && has_limit_rows(m, joint); ++side) {
            tch_real gap, rate;
            limit_gap(joint, d->qpos, d->qvel, side, &gap, &rate);
            if (limit_due(gap, rate, h)) {
                return true;
            }
        }
    }
    return false;
}

/* Does the step have a pair on a link or a limit row, the only rows with TREE sides? */
static bool has_tree_rows(const tch_constraint_run* s) {
    const tch_model* m = s->m;
    for (int i = 0; i < s->d->pair_result_count; ++i) {
        const tch_pair_result* pair = &s->d->pair_results[i];
        if (tch_constraint_is_link(m, tch_constraint_root(m, pair->geom_a)) ||
            tch_constraint_is_link(m, tch_constraint_root(m, pair->geom_b))) {
            return true;
        }
    }
    return tch_constraint_joint_rows_due(m, s->d, s->h);
}

int tch_constraint_tree_prepare(tch_constraint_run* s) {
    if (!s->m->articulation || !has_tree_rows(s)) {
        return 0; /* no factor needed: every row is between free bodies */
    }
    const tch_tree* tree = s->m->articulation->tree;
    s->tree_velocity = s->d->qvel;
    tch_tree_mass_matrix(tree, tree_data(s));
    return tch_tree_factor(tree, tree_data(s), NULL) == TCH_OK ? 0 : -1;
}

/* J and A⁻¹ Jᵀ storage for a TREE side over `count` dofs, from the stage's arena. */
static tch_real* side_storage(const tch_constraint_run* s, int count) {
    return tch_arena_alloc(s->arena, 2 * (size_t)count * sizeof(tch_real), "tree row");
}

/* A new row of joint j's (no pair: not handed back to a model) with its side's storage: the
 * entry, or NULL when out of memory. */
static tch_constraint_contact* add_joint_row(tch_constraint_run* s, int j, tch_jacobian_row** row,
                                             tch_real** J) {
    const tch_articulation* a = s->m->articulation;
    int body = a->tree->joints[j].body + 1;
    *row = tch_arena_alloc(s->arena, sizeof **row, "joint row");
    *J = side_storage(s, a->body_dof_count[body]);
    int saved_pair = s->current_pair;
    s->current_pair = -1;
    tch_constraint_contact* cr = *row && *J ? tch_constraint_add_contact(s) : NULL;
    s->current_pair = saved_pair;
    if (cr) {
        memset(*row, 0, sizeof **row);
        cr->given = *row;
        cr->given_body = a->body_top[body];
        cr->row.geom_a = cr->row.geom_b = -1;
        cr->row.n_W = tch_v3(1, 0, 0); /* the impulse's carrier (no model reads it back) */
    }
    return cr; /* starts cold: no state between steps, so checkpoints restore exactly */
}

/* Joint j's row at its lower (side 0) or upper (side 1) limit. */
static int add_limit_row(tch_constraint_run* s, int j, int side, tch_real gap) {
    const tch_articulation* a = s->m->articulation;
    const tch_tree_joint* joint = &a->tree->joints[j];
    int body = joint->body + 1, count = a->body_dof_count[body];
    tch_jacobian_row* row;
    tch_real* J;
    tch_constraint_contact* cr = add_joint_row(s, j, &row, &J);
    if (!cr) {
        return -1;
    }
    tch_real direction[3] = {side == 0 ? 1 : -1, 0, 0};
    int n = 1;
    if (joint->type == TCH_TREE_JOINT_BALL) { /* -a on the ball's angular velocity */
        tch_vec3 axis = tch_articulation_ball_cone(joint, s->d->qpos).axis;
        direction[0] = -axis.x, direction[1] = -axis.y, direction[2] = -axis.z;
        n = 3;
    }
    tch_tree_limit_side(a->tree, tree_data(s), a->body_top[body], a->body_dof_first[body], count,
                        joint->dof, direction, n, &s->tree_velocity, J, J + count,
                        &row->side[0]);
    cr->row.target = gap >= 0 ? -gap / s->h : -LIMIT_RECOVERY * gap / s->h;
    return 0;
}

/* Dof k's Coulomb friction row (of joint j): J = e_k, |z| <= frictionloss h, target 0. */
static int add_friction_row(tch_constraint_run* s, int j, int k) {
    const tch_articulation* a = s->m->articulation;
    int body = a->tree->joints[j].body + 1, count = a->body_dof_count[body];
    tch_jacobian_row* row;
    tch_real* J;
    tch_constraint_contact* cr = add_joint_row(s, j, &row, &J);
    if (!cr) {
        return -1;
    }
    const tch_real one = 1;
    tch_tree_limit_side(a->tree, tree_data(s), a->body_top[body], a->body_dof_first[body], count,
                        k, &one, 1, &s->tree_velocity, J, J + count, &row->side[0]);
    cr->bound = a->dof_frictionloss[k] * s->h;
    return 0;
}

int tch_constraint_add_joint_rows(tch_constraint_run* s) {
    const tch_articulation* a = s->m->articulation;
    for (int j = 0; a && a->limit_rows && j < a->tree->joint_count; ++j) {
        const tch_tree_joint* joint = &a->tree->joints[j];
        for (int k = joint->dof; k < joint->dof + joint->nv; ++k) {
            if (a->dof_frictionloss[k] > 0 && tch_articulation_friction_rows(a, joint) &&
                add_friction_row(s, j, k) != 0) {
                return -1;
            }
        }
    }
    for (int j = 0; a && a->limit_rows && j < a->tree->joint_count; ++j) {
        const tch_tree_joint* joint = &a->tree->joints[j];
        for (int side = first_limit_side(joint); side < 2 && has_limit_rows(s->m, joint);
             ++side) {
            tch_real gap, rate;
            limit_gap(joint, s->d->qpos, s->d->qvel, side, &gap, &rate);
            if (limit_due(gap, rate, s->h) && add_limit_row(s, j, side, gap) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* The TREE side of the row along d_W at p_W on link `root` (sign: +1 for geom b's side). */
static void link_side(const tch_constraint_run* s, int root, tch_vec3 p_W, tch_vec3 d_W,
                      tch_real sign, tch_row_side* side) {
    const tch_articulation* a = s->m->articulation;
    int count = a->body_dof_count[root];
    tch_real* J = side_storage(s, count);
    if (!J) {
        memset(side, 0, sizeof *side); /* out of memory: the link holds still for this row */
        return;
    }
    tch_tree_row_side(a->tree, tree_data(s), a->body_top[root], a->body_dof_first[root], count,
                      root - 1, p_W, d_W, sign, &s->tree_velocity, J, J + count, side);
}

void tch_constraint_tree_sides(const tch_constraint_run* s, const tch_row_contact* c,
                               tch_vec3 d_W, tch_jacobian_row* row) {
    const int geoms[2] = {c->geom_b, c->geom_a};
    for (int k = 0; k < 2; ++k) {
        int root = tch_constraint_root(s->m, geoms[k]);
        if (tch_constraint_is_link(s->m, root)) {
            link_side(s, root, c->p_W, d_W, k == 0 ? 1 : -1, &row->side[k]);
        }
    }
}

tch_vec3 tch_constraint_link_point_velocity(const tch_constraint_run* s, int root, tch_vec3 p_W) {
    return tch_tree_point_velocity_of(s->m->articulation->tree, tree_data(s), root - 1, p_W,
                                      s->tree_velocity);
}

/* Is body b the top of a subtree of the world that moves as a tree (not a lone free body)? */
static bool is_tree_top(const tch_model* m, int b) {
    const tch_articulation* a = m->articulation;
    return a && a->body_top[b] == b && !a->body_lone[b] && a->body_dof_count[b] > 0;
}

bool tch_constraint_island_has_tree(const tch_constraint_run* s, int k) {
    for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
        if (is_tree_top(s->m, s->island_bodies[i])) {
            return true;
        }
    }
    return false;
}

tch_real tch_constraint_island_tree_energy(const tch_constraint_run* s, int k) {
    const tch_articulation* a = s->m->articulation;
    tch_real twice = 0;
    for (int i = s->island_body_start[k]; a && i < s->island_body_start[k + 1]; ++i) {
        int b = s->island_bodies[i];
        if (!is_tree_top(s->m, b)) {
            continue;
        }
        int nv = a->tree->nv, first = a->body_dof_first[b], end = first + a->body_dof_count[b];
        const tch_real* M = tree_data(s)->M;
        const tch_real* qvel = s->tree_velocity;
        for (int r = first; r < end; ++r) {
            tch_real Mv = 0;
            for (int c = first; c < end; ++c) {
                Mv += M[(size_t)r * (size_t)nv + (size_t)c] * qvel[c];
            }
            twice += qvel[r] * Mv;
        }
    }
    return twice / 2;
}
