/* Constraint rows: what a CONSTRAINT contact model hands the engine's constraints stage
 * (contact.h: tch_contact_ops.build_rows and take_impulses; docs/contact-lcp.md, "Rows").
 *
 * A row is one scalar velocity constraint J ν between two sides. A side is what one end of the
 * row moves:
 *
 *     NONE   the world, or anything that does not move: the block is zero
 *     BODY   a free body's six velocities ν_b = (v_WCm, w_W) (centre of mass, world), with the
 *            blocks (d, r x d) of a row along unit d_W at a point p, r = p - p_WCm, and M⁻¹
 *            times them, (d / m, I_W⁻¹ (r x d)), kept inline
 *     TREE   an articulated tree's generalized velocities qvel[dof .. dof + count) through a
 *            Jacobian: J (count values: d . the point Jacobian, dynamics/tree.h's
 *            tch_tree_point_jacobian) and A⁻¹ Jᵀ (tch_tree_solve_rows), held by the producer
 *
 * so that J ν = d . (v_b(p) - v_a(p)) and an impulse z on the row changes the velocities by
 * M⁻¹ Jᵀ z without a matrix (Ruspini and Khatib, seeds/003 eq. 17). Two rows couple, A_ij =
 * J_i M⁻¹ J_jᵀ (eq. 4: Λ⁻¹), only through a side they share: the same body, or the same tree.
 *
 * The constraints stage makes BODY and NONE sides for free bodies and TREE sides for points on
 * the links of articulated trees (engine/constraint_tree.c; issue 13); joint limits are rows
 * whose sides their producer fills (one TREE side). tests/dynamics/test_tree_rows.c checks the
 * coupling against tch_tree_inverse_inertia.
 *
 * What a model describes per contact (tch_row_contact) is a unilateral normal row and friction
 * coupled to it by μ, with its targets and warm start; the engine makes the rows' sides from
 * the geoms' bodies, chooses the friction rows (a disc: two rows along t1, t2; or Lemke's
 * pyramid of cone_edges directions), solves, and hands the impulses back (tch_row_impulse).
 */
#pragma once

#include "math/vec.h"

typedef enum tch_row_side_kind {
    TCH_ROW_SIDE_NONE = 0,
    TCH_ROW_SIDE_BODY,
    TCH_ROW_SIDE_TREE,
} tch_row_side_kind;

/* One side's block of a Jacobian row and of M⁻¹ times its transpose. */
typedef struct tch_row_side {
    int body;                   /* BODY: the free root; 0 for the other kinds (the solvers'
                                 * free-body loops test it alone) */
    short kind;                 /* tch_row_side_kind */
    short tree;                 /* TREE: the tree */
    union {                     /* (a side is as large as a free body's alone was) */
        struct {                /* BODY: its 6 velocities (v_WCm, w_W) */
            tch_vec3 lin, ang;          /* ±(d, r x d) */
            tch_vec3 inv_lin, inv_ang;  /* ±(d / m, I_W⁻¹ (r x d)) */
        };
        struct {                /* TREE */
            const tch_real* J;          /* [count], owned by the row's producer */
            const tch_real* inv_J;      /* [count] A⁻¹ Jᵀ */
            int dof, count;             /* J covers qvel[dof .. dof + count): the tree's */
            /* where the solvers read and move the tree's velocities: (*velocity)[dof + k] (the
             * engine points it at qvel, or at pseudo-velocities for position correction) */
            tch_real* const* velocity;
        };
    };
} tch_row_side;
_Static_assert(sizeof(tch_row_side) == 2 * sizeof(int) + 4 * sizeof(tch_vec3),
               "a row side stays as small as a free body's block: the solver streams rows");

typedef struct tch_jacobian_row {
    tch_row_side side[2];       /* a contact's: [0] geom b's side (+d), [1] geom a's (-d) */
} tch_jacobian_row;

/* The contribution of one body's blocks to J_i M⁻¹ J_jᵀ. */
static inline tch_real tch_row_side_coupling(const tch_row_side* i, const tch_row_side* j) {
    return tch_v3_dot(i->lin, j->inv_lin) + tch_v3_dot(i->ang, j->inv_ang);
}

/* The contribution of one tree's blocks to J_i M⁻¹ J_jᵀ (both cover the tree's velocities). */
static inline tch_real tch_row_tree_coupling(const tch_row_side* i, const tch_row_side* j) {
    tch_real sum = 0;
    for (int k = 0; k < i->count; ++k) {
        sum += i->J[k] * j->inv_J[k];
    }
    return sum;
}

/* J_i M⁻¹ J_jᵀ: the two rows' coupling through the bodies and trees they share. */
static inline tch_real tch_row_coupling(const tch_jacobian_row* i, const tch_jacobian_row* j) {
    tch_real sum = 0;
    for (int s = 0; s < 2; ++s) {
        for (int t = 0; t < 2; ++t) {
            const tch_row_side *a = &i->side[s], *b = &j->side[t];
            if (a->body != 0 && a->body == b->body) {
                sum += tch_row_side_coupling(a, b);
            } else if (a->kind == TCH_ROW_SIDE_TREE && b->kind == TCH_ROW_SIDE_TREE &&
                       a->tree == b->tree) {
                sum += tch_row_tree_coupling(a, b);
            }
        }
    }
    return sum;
}

/* J ν for the velocities (v, w) of the row's free bodies (centre of mass, world) and the
 * generalized velocities of its trees (the sides' velocity). */
static inline tch_real tch_row_dot(const tch_jacobian_row* row, const tch_vec3* v,
                                   const tch_vec3* w) {
    tch_real sum = 0;
    for (int k = 0; k < 2; ++k) {
        const tch_row_side* side = &row->side[k];
        if (side->body != 0) {
            sum += tch_v3_dot(side->lin, v[side->body]) + tch_v3_dot(side->ang, w[side->body]);
        } else if (side->kind == TCH_ROW_SIDE_TREE) {
            const tch_real* qvel = *side->velocity + side->dof;
            for (int i = 0; i < side->count; ++i) {
                sum += side->J[i] * qvel[i];
            }
        }
    }
    return sum;
}

/* ν += M⁻¹ Jᵀ z (eq. 17 of Ruspini and Khatib for one row): (v, w) of the row's free bodies,
 * and a tree's generalized velocities by A⁻¹ Jᵀ z. */
static inline void tch_row_add_impulse(const tch_jacobian_row* row, tch_real z, tch_vec3* v,
                                       tch_vec3* w) {
    for (int k = 0; k < 2 && z != 0; ++k) {
        const tch_row_side* side = &row->side[k];
        if (side->body != 0) {
            v[side->body] = tch_v3_madd(v[side->body], z, side->inv_lin);
            w[side->body] = tch_v3_madd(w[side->body], z, side->inv_ang);
        } else if (side->kind == TCH_ROW_SIDE_TREE) {
            tch_real* qvel = *side->velocity + side->dof;
            for (int i = 0; i < side->count; ++i) {
                qvel[i] += z * side->inv_J[i];
            }
        }
    }
}

/* One contact's rows as a model describes them (tch_contact_ops.build_rows): a unilateral
 * normal row along n_W, J_n v+ >= target with a nonnegative impulse, and, when cone_edges > 0,
 * friction in the plane of (t1_W, t2_W) whose impulse is bounded by mu times the normal one
 * (the Coulomb disc, or the pyramid of the cone_edges directions cos(2 pi e / E) t1 +
 * sin(2 pi e / E) t2: the solver chooses). The rows act on geom b's side along +d and on geom
 * a's along -d. */
typedef struct tch_row_contact {
    int geom_a, geom_b;
    tch_vec3 p_W;               /* the point, world */
    tch_vec3 n_W;               /* the normal, from a into b */
    tch_vec3 t1_W, t2_W;        /* the tangent basis the friction rows and impulses use */
    tch_real mu;                /* friction coefficient */
    int cone_edges;             /* the pyramid's edges; 0: frictionless */
    tch_real target;            /* J_n v+ >= target, m/s: a gap the step may close, restitution */
    tch_real push;              /* position correction, m/s: the pseudo-velocity u of the split
                                 * impulse aims at J_n u >= push (0: none) */
    tch_real warm[3];           /* warm start: impulses along n, t1, t2, N s */
    tch_real carried[3];        /* the velocity error its rows were left with in the last step */
    int remembered;             /* 1 when the warm start is the last step's impulse at this
                                 * point: an island of such contacts may sleep */
} tch_row_contact;

/* What the engine hands back for one tch_row_contact (tch_contact_ops.take_impulses). */
typedef struct tch_row_impulse {
    int solved;                 /* 0: the contact got no impulse (its island ran out of memory) */
    tch_vec3 impulse_W;         /* on geom b's side at p_W (the opposite on a's), N s */
    tch_real warm[3];           /* the impulse to warm-start the next step from, along the
                                 * contact's n, t1, t2 (as tch_row_contact.warm) */
    tch_real error[3];          /* the velocity error left on its normal and tangent rows */
} tch_row_impulse;

/* Where a model puts its rows, made by the engine for each evaluation of the constraints stage. */
typedef struct tch_row_sink tch_row_sink;
struct tch_row_sink {
    tch_real h;                 /* the step */
    /* A slot for one more contact (zeroed), or NULL when out of memory. */
    tch_row_contact* (*add_contact)(tch_row_sink* sink);
    /* The velocity of geom b's material point at p_W relative to geom a's, world: at the
     * step's start (*before) and the one the impulses start from (*now: v*, after the step's
     * velocity update). */
    void (*relative_velocity)(const tch_row_sink* sink, int geom_a, int geom_b, tch_vec3 p_W,
                              tch_vec3* before, tch_vec3* now);
    void* engine;               /* the engine's */
};

/* An island whose rows a CONSTRAINT model solves itself (tch_contact_ops.solve_island): models
 * whose constraints are not one normal row plus friction per contact (peg's U/I/X constraints,
 * with their slack unknowns). The engine still owns islands, sleeping, the velocities and
 * position correction; the model reads its pairs' rows and the bodies' mobility (their masses
 * and world inverse inertias, data->body_I_inv_W) and returns the velocities and impulses. */
typedef struct tch_row_island {
    tch_real h;
    int count;                        /* the island's contacts */
    const tch_row_contact* const* rows; /* [count] as their models described them */
    const int* pairs;                 /* [count] each one's pair, index into data->pair_results */
    const int* index;                 /* [count] its place among its pair's build_rows contacts */
    int body_count;
    const int* bodies;                /* [body_count] the island's free roots */
    tch_vec3 *v, *w;                  /* [model body_count] the velocities (centre of mass,
                                       * world): v* in, v+ out for the island's bodies */
    tch_vec3* impulses;               /* [count] out: each contact's impulse on geom b's side
                                       * at its p_W (the opposite on a's), N s */
    struct tch_arena* arena;          /* scratch, released by the engine after the call */
} tch_row_island;

