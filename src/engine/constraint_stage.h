/* The constraints stage's parts (engine/constraint.h), shared by its files:
 *
 *     constraint.c            the stage: the models' rows (the sink), the bodies' velocities,
 *                             the order of the parts, the impulses handed back
 *     constraint_islands.c    islands (union-find over free roots) and sleeping
 *     constraint_chain.c      one island: Jacobian rows, the solver chain and its fallbacks,
 *                             warnings, the island observer
 *     constraint_position.c   position correction (the split impulse's push)
 *     constraint_pgs.c        the row solver (PGS with subspace minimization)
 *     constraint_tree.c       articulated trees: TREE sides of contacts on links, joint-limit
 *                             rows, the trees' energy
 *
 * The engine reads the rows' data only (contact/rows.h); what a row means (a contact's
 * restitution, its memory) is its model's.
 */
#pragma once

#include <stdbool.h>

#include "contact/contact.h"
#include "engine/constraint.h"
#include "engine/constraint_pgs.h"
#include "dynamics/articulation.h"
#include "engine/engine_internal.h"
#include "math/vec.h"

/* A contact's rows as its model described them (contact/rows.h), and where they belong. */
typedef struct tch_constraint_contact {
    tch_row_contact row;
    int entry; /* its index in the sink, and in the impulses handed back */
    int pair;  /* index into data->pair_results (-1: a joint limit's row) */
    int island;
    /* A row its producer filled (a joint limit: constraint_tree.c), with the body whose island
     * it joins; NULL: a contact, whose sides the geoms' bodies make */
    const tch_jacobian_row* given;
    int given_body;
    /* > 0: a bounded row (a joint's Coulomb friction, constraint_tree.c): its given row's
     * impulse lies in [-bound, bound] and it has no friction rows; 0: a unilateral row */
    tch_real bound;
} tch_constraint_contact;

/* The island's unknowns for one solver: normal rows, friction rows, then Lemke's λ rows. */
typedef struct tch_island_layout {
    int nc;              /* contacts */
    int nr;              /* Jacobian rows: nc normal rows, then friction rows */
    int n;               /* unknowns: nr, plus one λ per frictional contact (Lemke) */
    int* friction_start; /* [nc] first friction row of each contact */
    int* edges;          /* [nc] its friction rows */
    int* lambda;         /* [nc] its λ unknown, -1 when none */
    tch_real* mu;        /* [nc] its friction coefficient */
    tch_real* bound;     /* [nc] a bounded row's bound, else 0 (tch_constraint_contact) */
} tch_island_layout;

/* One run of the constraints stage: what its parts share. */
typedef struct tch_constraint_run {
    const tch_model* m;
    tch_data* d;
    tch_real h;
    tch_arena* arena;
    tch_vec3* v;             /* [body_count] centre-of-mass velocity, world (v*, then v+) */
    tch_vec3* w;             /* [body_count] angular velocity, world */
    tch_real* kinetic_start; /* [body_count] kinetic energy at the step's start (before v*) */
    const tch_mat3* I_W;     /* [body_count] inertia about the centre of mass, world (the
                              * kinematics outputs data->body_I_W) */
    const tch_mat3* I_inv_W; /* [body_count] its inverse (data->body_I_inv_W) */
    unsigned char* moved;    /* [body_count] 1 when an impulse reached the body */
    const tch_contact_ops** ops; /* [pair_result_count] constraint pairs' models, or NULL */
    tch_pair_state** states;     /* [pair_result_count] their states, or NULL */
    /* [contact_count]: in the sink's order, then sorted by island */
    tch_constraint_contact* contacts;
    int contact_count;
    int contact_capacity;
    int* pair_start;           /* [pair_result_count] each pair's first entry in the sink */
    int current_pair;          /* the pair whose model is describing its rows */
    tch_row_impulse* impulses; /* [contact_count] by entry: what the models get back */
    int* island_start;         /* [island_count + 1] */
    int* island_body_start;    /* [island_count + 1] */
    int* island_bodies;        /* island k's free bodies: island_body_start[k] .. [k + 1] */
    int island_count;
    tch_sparse_spd* subspace; /* the row solver's sparse Cholesky (the workspace's) */
    /* The generalized velocities the TREE sides read and move (contact/rows.h): data->qvel, or
     * the position correction's scratch */
    tch_real* tree_velocity;
    /* > 0: the most kinetic energy tch_constraint_solve_island may add to the island it
     * solves (a constraint model's island that the model handed back,
     * engine/constraint_model_solve.c); an attempt beyond it is not applied, and when none is
     * within it the island gets no impulse. 0: no limit. */
    tch_real gain_limit;
} tch_constraint_run;

/* How an island is solved. The model's solver comes first; the others are the fallbacks of
 * tch_constraint_solve_island, in this order. */
typedef enum tch_island_solver {
    /* Stewart-Trinkle, cone edges, Lemke */
    TCH_SOLVE_LEMKE = TCH_CONSTRAINT_LEMKE,
    /* disc friction, PGS, subspace steps */
    TCH_SOLVE_PGS = TCH_CONSTRAINT_PGS,
    /* normal rows only (no friction), Lemke */
    TCH_SOLVE_NORMAL_LEMKE = TCH_CONSTRAINT_NORMAL_LEMKE,
    /* normal rows, PGS from zero: no energy */
    TCH_SOLVE_NORMAL_PGS = TCH_CONSTRAINT_NORMAL_PGS,
} tch_island_solver;

/* The free root of geom's body (0: the world). */
static inline int tch_constraint_root(const tch_model* m, int geom) {
    int root = m->body_root[m->geom_body[geom]];
    return m->body_free[root] ? root : 0; /* a mocap root: static and at rest for the rows */
}

/* Is root (a free root, as tch_constraint_root gives) a link of an articulated tree, whose
 * rows have TREE sides? */
static inline bool tch_constraint_is_link(const tch_model* m, int root) {
    return root > 0 && m->articulation && !m->articulation->body_lone[root];
}

/* The body a root's islands are joined by: a link's subtree of the world (its bodies couple
 * through the tree), else the root itself. */
static inline int tch_constraint_island_node(const tch_model* m, int root) {
    return tch_constraint_is_link(m, root) ? m->articulation->body_top[root] : root;
}

/* Kinetic energy of free body b with centre-of-mass velocity v and angular velocity w (world). */
static inline tch_real tch_constraint_kinetic_energy(const tch_constraint_run* s, int b, tch_vec3 v,
                                                     tch_vec3 w) {
    return 0.5 * s->m->body_total_mass[b] * tch_v3_dot(v, v) +
           0.5 * tch_v3_dot(w, tch_m3_mul_v3(s->I_W[b], w));
}

/* ---- constraint.c ---- */

/* A new entry (zeroed) for the pair s->current_pair, or NULL when out of memory. */
tch_constraint_contact* tch_constraint_add_contact(tch_constraint_run* s);

/* Keeps contact cr's impulse, the impulse to warm-start its next step from and its rows'
 * velocity errors [3], for its model. */
void tch_constraint_keep_impulse(tch_constraint_run* s, const tch_constraint_contact* cr,
                                 tch_vec3 impulse, tch_vec3 warm, const tch_real* error);

/* ---- constraint_islands.c ---- */

/* The island of every contact (numbered in order of first appearance), the contacts sorted by
 * island, stably, and each island's free bodies; parent: [body_count] union-find scratch.
 * Returns 0, -1 when out of memory. */
int tch_constraint_group_islands(tch_constraint_run* s, int* parent);
/* Does island k sleep this step (constraint_islands.c, "sleeping islands")? */
bool tch_constraint_island_sleeps(const tch_constraint_run* s, int k);
/* Holds sleeping island k: its bodies at zero velocity, its contacts at their warm starts. */
void tch_constraint_hold_island(tch_constraint_run* s, int k);
/* The bodies' rest counts after the step; held[k]: island k slept. */
void tch_constraint_count_rest_steps(const tch_constraint_run* s, const bool* held);

/* ---- constraint_chain.c ---- */

/* Solves island k along its solver chain and applies the first acceptable attempt. */
void tch_constraint_solve_island(tch_constraint_run* s, int k);
/* The row solver's sweep limit for island k's velocities: the model's, or the solver budget's. */
int tch_constraint_island_sweeps(const tch_constraint_run* s, int k);
/* The row solver's options for island k's push (position correction): the model's sweep limit,
 * or within the solver budget its push's, with no residual measured (any iterate only pushes
 * apart). */
tch_row_solve_options tch_constraint_push_options(const tch_constraint_run* s, int k);
/* The unknowns of nc contacts cr for `solver`. Returns 0, -1 when out of memory. */
int tch_constraint_layout(tch_constraint_run* s, const tch_constraint_contact* cr, int nc,
                          tch_island_solver solver, tch_island_layout* L);
/* The Jacobian rows of the layout's contacts, at the stage's poses. */
void tch_constraint_build_rows(const tch_constraint_run* s, const tch_constraint_contact* cr,
                               const tch_island_layout* L, tch_jacobian_row* rows);
/* An island's problem for the row solver, with the right-hand side rhs. */
tch_row_problem tch_constraint_row_problem(const tch_constraint_run* s, const tch_island_layout* L,
                                           const tch_jacobian_row* rows, const tch_real* rhs);
/* The row solver's options: the model's tolerance and `sweeps`, subspace minimization on. */
tch_row_solve_options tch_constraint_row_options(const tch_constraint_run* s, int sweeps);

/* ---- constraint_tree.c (articulated models; each a no-op without joints) ---- */

/* Does the step need the stage for joint rows alone (with joint rows on: a dof with Coulomb
 * friction, or a limited joint at or heading into its limit within the step)? */
bool tch_constraint_joint_rows_due(const tch_model* m, const tch_data* d, tch_real h);
/* Factors the trees' joint-space inertia at the step's poses and points the TREE sides at
 * qvel. Returns 0, -1 when a dof moves no mass. */
int tch_constraint_tree_prepare(tch_constraint_run* s);
/* One bounded row per dof with Coulomb friction, and one unilateral row per limited joint at
 * or heading into its limit. Returns 0, -1 when out of memory. */
int tch_constraint_add_joint_rows(tch_constraint_run* s);
/* Replaces the sides of row (of contact c, along d_W) whose geom is on a link by TREE sides. */
void tch_constraint_tree_sides(const tch_constraint_run* s, const tch_row_contact* c,
                               tch_vec3 d_W, tch_jacobian_row* row);
/* The velocity of the point p_W fixed to link `root` at the stage's generalized velocities. */
tch_vec3 tch_constraint_link_point_velocity(const tch_constraint_run* s, int root, tch_vec3 p_W);
/* Does island k hold bodies of a tree (rows with TREE sides)? */
bool tch_constraint_island_has_tree(const tch_constraint_run* s, int k);
/* ½ q'ᵀ A q' over the trees of island k at the stage's generalized velocities. */
tch_real tch_constraint_island_tree_energy(const tch_constraint_run* s, int k);

/* ---- constraint_position.c ---- */

/* The split impulse's push of the penetrating contacts, within the energy the step dissipated. */
void tch_constraint_correct_positions(tch_constraint_run* s);
