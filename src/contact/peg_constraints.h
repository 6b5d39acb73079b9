/* The constraints of the geometrically exact polytope contact model `peg` (Williams, Lu and
 * Trinkle 2017, seed 001; restored equations in ../shared/reference/peg.md, "peg.md" below):
 * the row producer that turns two posed polytopes into U-, I- and X-constraints.
 *
 *     features A at pose_a, features B at pose_b (3D)  --tch_peg_constraints_build-->
 *     CCW polygons A and B in the plane z = 0 (2D)      --tch_peg_constraints_build_2d-->
 *         contacts   C = {A, B, p_a, n, psi} with the feature pair, relaxed applicability,
 *                    feasibility and the Jacobian of psi w.r.t. the two bodies' twists
 *         constraints U (eqs. 17-18), I (eqs. 19-24, one primary), X (eq. 25), each a run of
 *                    contacts whose first is the primary (psi_1 of eqs. 20-24)
 *
 * The feature-pair cases (peg.md §6; docs/peg.md has the details and measured rates): 2D
 * vertex-edge U (eq. 32) and vertex-vertex (eq. 33: I(C1,C2), I(C3,C4), X(C1,C4), X(C2,C3));
 * 3D edge-edge U (eq. 35), and for every vertex within the proximity of the other body one U
 * or I over its vertex set, every facet of the other body within the proximity (the sets of
 * eqs. 34, 36 and 37 widened so that max psi >= 0 is exact for the vertex, likewise the 2D
 * I-sets of eq. 33), the X-constraints of the vertex-edge case (eq. 36) and, for the lost
 * eq. 38, the separating-axis X of peg.md §6.6 (one X over the applicable vertex-face and
 * edge-edge contacts of the two vertices).
 *
 * Rows. Each contact's Jacobian J gives psi' = J nu (rotation of n neglected, peg.md §1); a
 * constraint's rows (tch_peg_constraint_row) are, with psi_1, J_1 its primary:
 *
 *     row 0               psi_1              J_1              (force row of U and I, eq. 24)
 *     row s = 1..count-1  psi_1 - psi_{s+1}  J_1 - J_{s+1}    (slack rows, eqs. 20, 42)
 *
 * so that a U is row 0 alone, and an I or X gets count-1 slacks c_s with
 * 0 <= c_s ⊥ row_s + sum_{l<=s} c_l >= 0 and row_0 + sum c >= 0 (eqs. 20-21, 24). The
 * constraint holds exactly when tch_peg_constraint_value (the largest psi of its contacts,
 * which row_0 + sum c equals, eq. 20) is >= 0.
 *
 * The body twist form is that of src/engine/constraint_rows.h: side [0] is body B with
 * (n, r_b x n), side [1] is body A with (-n, r_a x (-n)), r = point - centre of mass, so that
 * J nu = n . (v_B(p_b) - v_A(p_a)). An engine adapter copies these blocks into its rows.
 */
#pragma once

#include <stdbool.h>

#include "collision/features.h"

typedef enum tch_peg_kind {
    TCH_PEG_U = 0, /* unilateral: 0 <= lambda ⊥ psi >= 0 */
    TCH_PEG_I = 1, /* inter-contact: max psi >= 0, force only at the primary */
    TCH_PEG_X = 2, /* cross-contact: max psi >= 0, no force */
} tch_peg_kind;

typedef enum tch_peg_contact_kind {
    TCH_PEG_VERTEX_FACET = 0, /* vertex of A against the plane (3D) or line (2D) of B's facet */
    TCH_PEG_FACET_VERTEX = 1, /* facet of A against a vertex of B */
    TCH_PEG_EDGE_EDGE = 2,    /* 3D: the lines of an edge of A and an edge of B */
} tch_peg_contact_kind;

/* psi' = sum over the sides of lin . v + ang . w (velocities of the centre of mass, world). */
typedef struct tch_peg_jacobian {
    tch_vec3 lin[2], ang[2]; /* [0]: body B, [1]: body A */
} tch_peg_jacobian;

typedef struct tch_peg_contact {
    tch_peg_contact_kind kind;
    int feature_a, feature_b; /* vertex, facet (2D: edge) or edge indices, by kind */
    tch_vec3 point_a;         /* on A; the point on B is point_a + gap normal */
    tch_vec3 normal;          /* unit, from A toward B */
    tch_real gap;             /* psi, signed (< 0 past the facet's plane or the edge's line) */
    tch_real applicability;   /* relaxed, eqs. 29-31, in [-1, 1] */
    bool feasible;            /* peg.md §5.2: it may carry a force */
    tch_peg_jacobian jacobian;
} tch_peg_contact;

typedef struct tch_peg_constraint {
    tch_peg_kind kind;
    tch_feature_pair_kind source; /* the feature-pair case that made it (eqs. 32-38) */
    int feature_a, feature_b;     /* that case's features (vertex or edge indices); -1 on
                                     the other side of a 3D vertex set (several faces) */
    int first, count;             /* contacts[first .. first + count); contacts[first] is the
                                     primary (eq. 24) */
} tch_peg_constraint;

typedef struct tch_peg_params {
    tch_real proximity;                 /* epsilon: feature pairs within it are candidates */
    tch_real applicability_facet;       /* epsilon_theta of vertex-facet contacts (eqs. 29-30) */
    tch_real applicability_edge;        /* epsilon_theta of edge-edge contacts (eq. 31) */
    tch_real applicability_corner;      /* the separating-axis X's filter (peg.md §6.6) */
    tch_real depth_tolerance;           /* delta of feasibility (peg.md §5.2) */
    tch_real feasibility_angle;         /* phi of feasibility, rad */
    tch_real touch_tolerance;           /* tau of the primary heuristic (peg.md §5.2) */
    tch_real flat_edge_cosine;          /* eq. 36's flat edge: n1 . n2 above this gives one U */
    tch_real parallel_sine;             /* edges at a smaller |sin| of their angle are parallel:
                                           no edge-edge contact (eq. 31 calls parallel edges not
                                           applicable; their endpoints' contacts cover them) */
} tch_peg_params;

/* The authors' values (peg.md §5): dimension 2 or 3, time step h for the 2D proximity. */
tch_peg_params tch_peg_params_default(int dimension, tch_real h);

/* Growing lists, kept across calls: init once, build many times, free once. */
typedef struct tch_peg_constraints {
    int contact_count, contact_capacity;
    tch_peg_contact* contacts;
    int count, capacity;
    tch_peg_constraint* constraints;
    tch_feature_pairs pairs; /* scratch of the 3D proximity query */
    int mark_capacity;
    int* vertex_marks; /* scratch: per vertex of A then of B, the cases that took it */
    int scratch_capacity;
    tch_peg_contact* scratch; /* scratch: the contact sets of a case */
    int index_capacity;
    int* vertex_faces; /* scratch (3D): the query's vertex-face pairs by vertex */
    int edge_capacity;
    tch_peg_contact* edge_contacts; /* scratch (3D): the separating-axis X's edge-edge contacts
                                       by pair of the query, computed once per build */
    unsigned char* edge_state;
} tch_peg_constraints;

void tch_peg_constraints_init(tch_peg_constraints* out);
void tch_peg_constraints_free(tch_peg_constraints* out);

/* 3D: the constraints of polytope A (at pose_a, centre of mass com_a in world) against B.
 * Replaces the lists' content. TCH_ERR_INVALID_ARGUMENT for a bad proximity,
 * TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_peg_constraints_build(const tch_features* a, tch_transform pose_a, tch_vec3 com_a,
                                     const tch_features* b, tch_transform pose_b, tch_vec3 com_b,
                                     const tch_peg_params* params, tch_peg_constraints* out,
                                     tch_error* err);

/* 2D: convex polygons given by their world vertices counter-clockwise in the plane z = 0
 * (edge k runs vertex k -> k+1), centres of mass in that plane. The Jacobians are the 3D ones
 * of planar motion (lin in the plane, ang along z). TCH_ERR_INVALID_ARGUMENT for fewer than
 * 3 vertices or a bad proximity, TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_peg_constraints_build_2d(const tch_vec3* a, int a_count, tch_vec3 com_a,
                                        const tch_vec3* b, int b_count, tch_vec3 com_b,
                                        const tch_peg_params* params, tch_peg_constraints* out,
                                        tch_error* err);

/* max psi over the constraint's contacts: >= 0 exactly when it holds (eqs. 18, 20-21, 25). */
tch_real tch_peg_constraint_value(const tch_peg_constraints* list, int constraint);

/* Whether every constraint holds at the listed gaps. */
bool tch_peg_constraints_hold(const tch_peg_constraints* list);

/* Standard-model traps (figs. 2-5): the I- and X-constraints that hold while one of their
 * contacts is violated (max psi >= 0 > min psi), where a row per contact, as the standard
 * model has, would push the bodies apart without cause. */
int tch_peg_constraints_trap_count(const tch_peg_constraints* list);
/* Whether that holds for this one constraint. */
bool tch_peg_constraint_trapped(const tch_peg_constraints* list, int constraint);

/* Row `row` (0 .. count-1) of a constraint as described above: its value and Jacobian. */
void tch_peg_constraint_row(const tch_peg_constraints* list, int constraint, int row,
                            tch_real* value, tch_peg_jacobian* jacobian);

/* psi' = J nu for the two bodies' twists. */
tch_real tch_peg_jacobian_dot(const tch_peg_jacobian* j, tch_vec3 v_a, tch_vec3 w_a, tch_vec3 v_b,
                              tch_vec3 w_b);

/* Short names: "U", "I", "X"; "vertex-face", "edge-edge", ... of a case. Never NULL. */
const char* tch_peg_kind_name(tch_peg_kind kind);
const char* tch_peg_source_name(tch_feature_pair_kind source);
