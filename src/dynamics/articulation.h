/* Articulated models in the step (docs/articulated.md, "What steps"): the compiled tree of a
 * model with joints, and what a step does with it.
 *
 * A model with a hinge, slide or ball joint is *articulated*: every body becomes a body of one
 * tch_tree (tree body b - 1 is model body b; free bodies are free joints of the tree, so qpos
 * and qvel keep MuJoCo's layout, joint after joint in body order). A body with joints is a
 * *link*: the model marks it body_free (it carries its own dofs) and body_root (its welded
 * children move with it), and body_total_* hold its welded subtree's mass properties, so the
 * contact models see a link as they see a free body: its forces and torques about its centre
 * of mass accumulate in tch_data.body_force_W / body_torque_W (gravity included, as for free
 * bodies), and its velocity is read from body_v_WCm and body_w_W.
 *
 * Per evaluation: tch_articulation_positions and _velocities fill tch_data's body and geom
 * outputs from the tree's forward kinematics; tch_articulation_accelerations maps each link's
 * wrench (less its weight, which the tree's bias force holds) to generalized forces through
 * the link Jacobian, Q = J_v^T f + J_w^T tau (Ruspini and Khatib, seeds/003, eq. 1 with
 * Gamma = J^T F), adds the joints' passive forces, and solves the articulated-body algorithm.
 */
#pragma once

#include "contact/contact.h"
#include "dynamics/tree.h"
#include "touche/data.h"
#include "touche/model.h"

/* An equality constraint (MJCF connect and weld; docs/articulated.md, "Equality constraints"):
 * a spring-damper holding a point of body1 on a point of body2 (connect, weld) and, for a weld,
 * body2's orientation in body1's frame, with MuJoCo's soft-constraint reference solref =
 * (time constant tc, damping ratio z) on the constraint's effective mass m at qpos0:
 * k = m / (tc z)^2, b = 2 m / tc (MuJoCo's stiffness and damping with the impedance at 1). */
typedef struct tch_articulation_equality {
    bool weld;
    int body1, body2;  /* tree bodies; body2 -1: the world */
    tch_vec3 p1;       /* body1 frame: the connect anchor, or the weld's relpose position */
    tch_quat q12;      /* weld: body2's orientation in body1's frame (relpose) */
    bool relpose_set;  /* weld: p1 and q12 given; else body2's pose in body1's at qpos0 */
    tch_real solref[2];
    /* from qpos0 (tch_articulation_set_equalities) */
    tch_vec3 p2;       /* the point held on p1, body2 frame (world frame for the world) */
    tch_real k, b;         /* N/m, N s/m */
    tch_real k_rot, b_rot; /* weld: N m/rad, N m s/rad */
} tch_articulation_equality;

/* What a model with joints compiles beyond its arrays. */
typedef struct tch_articulation {
    tch_tree* tree;
    tch_real* dof_frictionloss;      /* [nv] Coulomb joint friction, N m or N */
    tch_real* dof_friction_speed;    /* [nv] its regularization speed, rad/s or m/s */
    tch_real* joint_limit_stiffness; /* [joints] of the one-sided limit spring, N m/rad or N/m */
    tch_real* joint_limit_damping;   /* [joints] N m s/rad or N s/m */
    /* [bodies] 1 for a free body whose welded subtree carries no joint: it moves as a lone
     * rigid body, as in a model without joints (the implicit contact system takes it) */
    unsigned char* body_lone;
    /* [bodies] model numbering: the body of the world whose subtree holds b (b itself for a
     * body of the world; 0 for the world), and the dofs first .. first + count of that subtree
     * (A is block diagonal over them): a constraint row on b couples within them */
    int* body_top;
    int* body_dof_first;
    int* body_dof_count;
    /* Joint limits of hinges and slides as unilateral constraint rows (the constraints stage's,
     * engine/constraint_tree.c) instead of one-sided springs: set when the scene uses a
     * constraint contact model (tch_articulation_create's caller) */
    bool limit_rows;
    tch_articulation_equality* equalities;
    int equality_count;
} tch_articulation;

/* Per-data buffers of the articulated step. */
typedef struct tch_articulation_work {
    tch_tree_data* tree;
    tch_real* tau;      /* [nv] generalized forces */
    tch_real* bias;     /* [nv] b + g at the state of the factor (step_factored) */
    tch_real* jacobian; /* [6 nv] angular rows, then linear rows */
    tch_real* qvel_next; /* [nv] the predicted qvel of friction's prediction */
    /* [model bodies] the links whose prediction a pair's friction reads this evaluation (a
     * root of a pair whose model takes friction from the prediction) */
    unsigned char* link_read;
    /* the tree data's factor is the implicit step's matrix at this evaluation's state, and
     * bias its b + g (made by tch_articulation_predict_links, reused by _accelerations;
     * cleared by the kinematics) */
    bool step_factored;
} tch_articulation_work;

/* Builds the tree (errors name the body or joint: tch_error.element) and the passive-force
 * data. frictionloss is per joint. The limit springs and friction regularization are set from
 * the joint-space inertia at qpos0, the regularization for the model's integrator and step
 * (see articulation.c). */
/* A joint's passive parameters that the tree does not keep. */
typedef struct tch_joint_passive {
    tch_real frictionloss;    /* Coulomb joint friction, N m or N */
    tch_real limit_solref[2]; /* the limit's time constant, s, and damping ratio (MJCF
                               * solreflimit) */
} tch_joint_passive;

tch_status tch_articulation_create(const tch_tree_def* def, const tch_joint_passive* passive,
                                   tch_real timestep, tch_integrator integrator,
                                   tch_articulation** out, tch_error* err);
void tch_articulation_destroy(tch_articulation* a);
/* Copies the equality constraints and sets their points and springs from qpos0. Errors name
 * the constraint's index when its effective mass is zero (it moves nothing). */
tch_status tch_articulation_set_equalities(tch_articulation* a,
                                           const tch_articulation_equality* equalities, int count,
                                           tch_error* err);

tch_status tch_articulation_work_create(const tch_articulation* a, tch_articulation_work** out);
void tch_articulation_work_destroy(tch_articulation_work* w);

/* Body poses, centres of mass, link inertias and geom poses from qpos. */
void tch_articulation_positions(const tch_model* m, tch_data* d, tch_articulation_work* w);
/* Body velocities (centre of mass, angular) from qvel, after the positions. */
void tch_articulation_velocities(const tch_model* m, tch_data* d, tch_articulation_work* w);
/* qacc from the links' forces and torques in d (after the forces stage), the joints' passive
 * forces and the bias force. TCH_ERR_NUMERICAL when a dof moves no mass. */
tch_status tch_articulation_accelerations(const tch_model* m, tch_data* d, tch_articulation_work* w,
                                          tch_error* err);
/* Friction's prediction for the links (contact/contact.h, after the normal forces): the
 * generalized velocities after one step under the links' loads so far, qvel + h (A [+ h D])^-1
 * (Q - b - g), give each link's predicted v_WCm and w_W, and each link gets its mobility
 * (tch_link_mobility): each link that a pair's friction reads (a root of a touching pair whose
 * model has friction_forces); the others, lone free bodies and bodies welded to links are
 * left as they are.
 * TCH_ERR_NUMERICAL when a dof moves no mass. */
tch_status tch_articulation_predict_links(const tch_model* m, tch_data* d,
                                          tch_articulation_work* w,
                                          tch_velocity_prediction* prediction, tch_error* err);
/* Link b's Jacobian at its centre of mass over the dofs first .. first + count (which hold its
 * ancestors'), rows ordered as the implicit contact system orders a twist, (v_WCm, w_W): into
 * T (6 x count, row-major), after the positions. */
void tch_articulation_link_twist_jacobian(const tch_model* m, const tch_data* d,
                                          tch_articulation_work* w, int b, int first, int count,
                                          tch_real* T);
/* The step's joint-space matrix, A + h D with the implicit integrator (nv x nv, row-major), as
 * the last tch_articulation_predict_links or _accelerations left it in w. */
const tch_real* tch_articulation_step_matrix(const tch_articulation_work* w);
/* Each link's predicted v_WCm and w_W again from the generalized velocities w->qvel_next (after
 * tch_articulation_predict_links, when something corrected them). */
void tch_articulation_predict_link_velocities(const tch_model* m, const tch_data* d,
                                              tch_articulation_work* w,
                                              tch_velocity_prediction* prediction);
/* Equality i's spring-damper linearized for the implicit step (engine/implicit.c, after the
 * positions): root[0] and root[1] receive the model roots of body1 and body2 (0 for the
 * world), and out's K and D (12 x 12 over (delta, phi) of root[0], then root[1], centre-of-mass
 * coordinates as contact/contact.h's) the stiffness and damping of its connect part, -k G^T G
 * with G = [S(r1), -S(r2)] the relative displacement of p1 and p2 (S(r) = [1, -[r]x], r from
 * the root's centre of mass), and of a weld's rotation, -k_rot H^T H with H = [0, -1, 0, 1].
 * The lever arms' own turn (a geometric term of the size of the force) is left out, as the
 * contact models' G is; out->G is not touched. */
void tch_articulation_linearize_equality(const tch_model* m, const tch_data* d,
                                         const tch_articulation_work* w, int i, int root[2],
                                         tch_pair_linearization* out);
/* A limited ball joint's cone (docs/articulated.md, "Limits of ball joints"): the rotation
 * angle theta = |r| of its quaternion (r its rotation vector, the same in the parent's and the
 * body's axes), the unit axis r / theta (x when theta is 0), and the limit angle
 * max(range[0], range[1]) (MuJoCo's). */
typedef struct tch_ball_cone {
    tch_real angle, limit;
    tch_vec3 axis;
} tch_ball_cone;
tch_ball_cone tch_articulation_ball_cone(const tch_tree_joint* joint, const tch_real* qpos);

/* Does joint's Coulomb friction (frictionloss) act as constraint rows (a->limit_rows: the
 * scene's constraint model; every joint but a free one, whose body's rows are a free body's)
 * rather than the regularized force? */
static inline bool tch_articulation_friction_rows(const tch_articulation* a,
                                                  const tch_tree_joint* joint) {
    return a->limit_rows && joint->type != TCH_TREE_JOINT_FREE;
}

/* Springs, dampers, limit springs (unless a->limit_rows) and regularized friction (unless
 * tch_articulation_friction_rows) of the joints, into qfrc [nv]. */
void tch_articulation_passive_forces(const tch_articulation* a, const tch_real* qpos,
                                     const tch_real* qvel, tch_real* qfrc);
/* Each actuator's force into d->actuator_force, and gear times it added to qfrc [nv]. */
void tch_articulation_actuator_forces(const tch_model* m, tch_data* d, tch_real* qfrc);
/* Kinetic, gravitational, joint-spring, limit-spring and equality-spring energy, J (after the positions and
 * velocities). */
tch_real tch_articulation_energy(const tch_model* m, const tch_data* d,
                                 const tch_articulation_work* w);
/* qpos += h * rate(qvel): hinge and slide linear, quaternions turned exactly by exp(h w / 2)
 * in their own frame. */
void tch_articulation_advance_positions(const tch_articulation* a, tch_real* qpos,
                                        const tch_real* qvel, tch_real h);
