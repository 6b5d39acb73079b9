/* Kinematic trees in generalized coordinates: the dynamics kernels of articulated bodies
 * (docs/articulated.md). The step uses them through dynamics/articulation.h.
 *
 * Ruspini and Khatib (seeds/003, eq. 1; reference/contact_space_haptics.md sec. 1) write the
 * dynamics of a robot as A(q) qdd + b(q, qd) + g(q) = Gamma. Here:
 *
 *   tch_tree_rnea            b + g + A qdd, the recursive Newton-Euler algorithm
 *   tch_tree_mass_matrix     A, the composite-rigid-body algorithm
 *   tch_tree_mass_matrix_bias  A and b + g in one pass (the RNEA in the CRBA's frames)
 *   tch_tree_factor / solve  A = L^T D L with the tree's sparsity, and A^-1 x
 *   tch_tree_aba             qdd, the articulated-body algorithm (the cross-check)
 *   tch_tree_point_jacobian  J of a point fixed to a body
 *   tch_tree_solve_rows      rows of J A^-1 (= (A^-1 J^T)^T) without forming A^-1
 *   tch_tree_inverse_inertia Lambda^-1 = J A^-1 J^T, the contact-space inverse inertia
 *
 * Equation numbers refer to R. Featherstone, "Rigid Body Dynamics Algorithms" (2008), in the
 * spatial conventions of math/spatial.h.
 *
 * Model. Bodies are numbered in topological order: a body's parent (-1 for the world) comes
 * before it. Each body carries zero or more joints as MJCF allows (none: welded to its parent).
 * Joint types, qpos and qvel follow MuJoCo (mjtJoint order; joints numbered by body, then in
 * the order given):
 *
 *   free   qpos (p_WBo, q_WB) 7, qvel (v_WBo in W, w_B in B) 6; only on a body of the world,
 *          as its one joint; the body's rest placement is qpos0
 *   ball   qpos q (unit quaternion, body axes) 4, qvel w (body axes) 3, about the anchor
 *   slide  qpos s 1, qvel 1, along the axis
 *   hinge  qpos theta 1, qvel 1, about the axis through the anchor
 *
 * Axis and anchor are in the body frame, as in MJCF; the joints of one body act in order, each
 * on the frame its predecessors left (MuJoCo's mj_kinematics). The body frame at qpos0 sits at
 * X_PB in its parent.
 *
 * Internally each joint becomes a link, a frame with a constant motion subspace S (eq. 4.7):
 * hinge, slide, ball, and the free joint as a translation link (world axes) followed by a ball
 * link at the body origin. A body's first link is placed by X_PB, its later links carry no
 * mass, and the body frame sits in its last link at that link's X_body; a welded body is a link
 * without dofs. So every algorithm is Featherstone's for single joints with S fixed in the link
 * frame (c_J = 0, eq. 4.34), whatever the joints of a body.
 *
 * Link frames are chosen to make S a unit column (Featherstone sec. 4.2, the joint's own frame):
 * a hinge's frame has its origin on the anchor and z along the axis (S = e_z, angular), a
 * slide's z along the axis (S = e_z, linear), a ball's origin on the anchor (S = [1; 0]); so the
 * kernels read S^T f as one or three entries of f and the placement is X_fixed Rz(q) (one
 * sincos and 12 products per hinge).
 *
 * Memory: tch_tree_data holds every buffer the kernels use, sized at creation; the kernels
 * allocate nothing and never fail except where they say so.
 */
#pragma once

#include <stdbool.h>

#include "math/spatial.h"
#include "touche/base.h"

#define TCH_TREE_NAME_SIZE 64

typedef enum tch_tree_joint_type {
    TCH_TREE_JOINT_FREE = 0,
    TCH_TREE_JOINT_BALL,
    TCH_TREE_JOINT_SLIDE,
    TCH_TREE_JOINT_HINGE,
} tch_tree_joint_type;

typedef struct tch_tree_body_def {
    char name[TCH_TREE_NAME_SIZE];
    int parent;         /* -1 (world) or an earlier body */
    tch_transform X_PB; /* body frame in the parent's at qpos0 (unused under a free joint) */
    tch_real mass;      /* kg, >= 0 */
    tch_vec3 p_BCm;     /* centre of mass, body frame, m */
    tch_mat3 I_Cm;      /* rotational inertia about the centre of mass, body axes, kg m^2 */
    /* Opt-in repair of a rotational inertia whose principal moments violate the triangle
     * inequality: the two smaller moments are raised by the same amount until they sum to the
     * largest, which is kept (the joint-axis moment of a link like the PUMA's). Off, such an
     * inertia is an error. */
    bool repair_triangle_inequality;
} tch_tree_body_def;

typedef struct tch_tree_joint_def {
    char name[TCH_TREE_NAME_SIZE];
    int body;
    tch_tree_joint_type type;
    tch_vec3 pos;       /* anchor, body frame, m (ignored by free joints) */
    tch_vec3 axis;      /* hinge and slide, body frame, any nonzero length */
    tch_real ref;       /* hinge and slide: the qpos at which the body sits at X_PB */
    tch_real armature;  /* kg m^2 or kg, added to each of the joint's dofs */
    tch_real damping;   /* N m s/rad or N s/m, per dof */
    tch_real stiffness; /* N m/rad or N/m */
    tch_real springref; /* hinge and slide: spring rest position (ball and free: qpos0) */
    bool limited;
    tch_real range[2]; /* lower <= upper; kept, not enforced yet */
} tch_tree_joint_def;

typedef struct tch_tree_site_def {
    char name[TCH_TREE_NAME_SIZE];
    int body;
    tch_transform X_BS; /* site frame in the body frame */
} tch_tree_site_def;

typedef struct tch_tree_def {
    int body_count;
    const tch_tree_body_def* bodies;
    int joint_count;
    const tch_tree_joint_def* joints; /* grouped by body, bodies in order */
    int site_count;
    const tch_tree_site_def* sites;
    tch_vec3 gravity; /* m/s^2, world frame */
} tch_tree_def;

/* Defaults: world parent, identity placement, no mass; hinge about z; identity site. */
tch_tree_body_def tch_tree_body_def_default(void);
tch_tree_joint_def tch_tree_joint_def_default(void);

typedef enum tch_tree_link_type {
    TCH_TREE_LINK_WELD,        /* no dof */
    TCH_TREE_LINK_HINGE,       /* S = (e_z, 0) in its link frame (axis z, origin on the anchor) */
    TCH_TREE_LINK_SLIDE,       /* S = (0, e_z) (axis z) */
    TCH_TREE_LINK_BALL,        /* S = [1; 0] (origin on the anchor), qpos a quaternion */
    TCH_TREE_LINK_TRANSLATION, /* S = [0; 1], the free joint's first link */
} tch_tree_link_type;

typedef struct tch_tree_link {
    tch_tree_link_type type;
    int parent;                    /* link index, -1 for the world */
    int top;                       /* the link of the world at the root of this link's subtree */
    int body;                      /* the body this link moves */
    int joint;                     /* -1 for a weld */
    int dof;                       /* first dof */
    int dof_count;                 /* 0, 1 or 3 */
    int qpos;                      /* first qpos entry */
    tch_spatial_transform X_fixed; /* placement in the parent link at qpos_zero (ball: at the
                                      identity quaternion) */
    tch_spatial_transform X_body;  /* the frame the joint leaves, in the link frame: the body
                                      frame for the body's last link */
    tch_real qpos_zero;            /* hinge, slide: the joint's ref */
    bool has_inertia;              /* inertia is not zero */
    tch_spatial_rbi inertia;       /* link frame; the body's on its last link, zero before */
} tch_tree_link;

typedef struct tch_tree_joint {
    char name[TCH_TREE_NAME_SIZE];
    tch_tree_joint_type type;
    int body;
    int qpos, dof; /* first entries */
    int nq, nv;
    tch_real stiffness;
    bool limited;
    tch_real range[2];
} tch_tree_joint;

typedef struct tch_tree_site {
    char name[TCH_TREE_NAME_SIZE];
    int body;
    tch_transform X_BS;
} tch_tree_site;

typedef struct tch_tree {
    int nq, nv;
    int body_count, joint_count, site_count, link_count;
    char (*body_name)[TCH_TREE_NAME_SIZE];
    int* body_parent;       /* [body_count] */
    int* body_link;         /* [body_count] the link whose frame is the body frame */
    tch_tree_link* links;   /* [link_count], topological order */
    tch_tree_joint* joints; /* [joint_count] */
    tch_tree_site* sites;   /* [site_count] */
    int* dof_parent;        /* [nv] the nearest dof toward the root, -1: lambda of ch. 6 */
    /* The packed rows of the L^T D L factor (tch_tree_data.LD): row k holds dof k's entries
     * for the dofs of its path, root first and k last (dof_depth[k] + 1 of them, at
     * dof_row[k]); dof_path lists those dofs in the same layout. A dof's path is the start
     * of each of its descendants' paths, so the factor's updates run over contiguous rows. */
    int* dof_depth; /* [nv] the number of dofs above k */
    int* dof_row;   /* [nv] */
    int* dof_path;  /* [row_size] */
    int* dof_path_row; /* [row_size] dof_row of each dof_path entry: the ancestors' rows */
    int row_size;
    int* dof_link;          /* [nv] */
    tch_real* dof_armature; /* [nv] */
    tch_real* dof_damping;  /* [nv] */
    tch_real* qpos0;        /* [nq] MuJoCo's qpos0 */
    tch_real* qpos_spring;  /* [nq] spring rest configuration */
    tch_vec3 gravity;
} tch_tree;

/* Per-call state and every buffer the kernels use (one per thread). */
typedef struct tch_tree_data {
    int max_rows;                   /* capacity of the contact-space calls */
    tch_spatial_transform* X_up;    /* [links] X_lambda(i),i: link i in its parent link */
    tch_spatial_transform* X_world; /* [links] X_W,i */
    tch_spatial_vec* v;             /* [links] link velocity, link frame */
    tch_spatial_vec* c;             /* [links] v x (S qd): velocity-product acceleration */
    tch_spatial_vec* a;             /* [links] scratch: accelerations */
    tch_spatial_vec* f;             /* [links] scratch: forces */
    tch_spatial_rbi* I_composite;   /* [links] CRBA scratch */
    tch_spatial_vec* S_top;         /* [nv] CRBA scratch: S in the top link's frame T (below) */
    tch_sv_lanes* S_lanes;          /* [nv] CRBA scratch: S_top in lanes (math/spatial.h) */
    tch_spatial_vec* v_top;         /* [links] tch_tree_mass_matrix_bias scratch: v in T */
    tch_spatial_abi* I_articulated; /* [links] ABA scratch */
    tch_spatial_vec* U;             /* [nv] ABA: I^A S per dof */
    tch_mat3* D_inverse;            /* [links] ABA: (S^T I^A S + armature)^-1, dof_count^2 */
    tch_real* u;                    /* [nv] ABA */
    tch_real* M;                    /* [nv*nv] A(q), row-major, full */
    tch_real* LD;                   /* [row_size] L^T D L in packed rows (tch_tree.dof_row): each
                                       row L's entries, then D's */
    tch_real* inverse_pivot;        /* [nv] 1 / D_kk, set with LD */
    tch_real* rows;                 /* [2*max_rows*nv] scratch of tch_tree_inverse_inertia */
    int* row_dof;                   /* [max_rows] scratch of tch_tree_inverse_inertia */
} tch_tree_data;

/* Validates the definition and builds the tree. Errors (TCH_ERR_INVALID_ARGUMENT, the message
 * naming the body or joint and tch_error.element its name): a parent that is not an earlier
 * body, joints out of body order, a free joint not alone on a body of the world, an axis of
 * zero length, a negative or non-finite mass, an inertia not symmetric, not positive definite
 * (a body with mass) or breaking the triangle inequality, a massless body on a free joint,
 * a range with lower > upper, a site on no body. */
tch_status tch_tree_create(const tch_tree_def* def, tch_tree** out, tch_error* err);
void tch_tree_destroy(tch_tree* tree);

/* max_rows: the largest Jacobian (rows) tch_tree_inverse_inertia will be given. */
tch_status tch_tree_data_create(const tch_tree* tree, int max_rows, tch_tree_data** out,
                                tch_error* err);
void tch_tree_data_destroy(tch_tree_data* data);

int tch_tree_find_body(const tch_tree* tree, const char* name);
int tch_tree_find_joint(const tch_tree* tree, const char* name);
int tch_tree_find_site(const tch_tree* tree, const char* name);

/* ---- configuration (tree_kinematics.c) ---- */

/* qpos0: hinge and slide at ref, balls at identity, free bodies at their placement. */
void tch_tree_default_qpos(const tch_tree* tree, tch_real* qpos);
/* dqpos/dt [nq] from qvel: quaternions q' = 1/2 q (0, w_B), free positions v. */
void tch_tree_qpos_rate(const tch_tree* tree, const tch_real* qpos, const tch_real* qvel,
                        tch_real* rate);
void tch_tree_normalize_quaternions(const tch_tree* tree, tch_real* qpos);

/* ---- kinematics (tree_kinematics.c) ---- */

/* Link poses X_up and X_world from qpos (quaternions used as given: keep them unit). */
void tch_tree_positions(const tch_tree* tree, tch_tree_data* data, const tch_real* qpos);
/* Link velocities v and velocity products c from qvel, after tch_tree_positions. */
void tch_tree_velocities(const tch_tree* tree, tch_tree_data* data, const tch_real* qvel);
tch_transform tch_tree_body_pose(const tch_tree* tree, const tch_tree_data* data, int body);
tch_transform tch_tree_site_pose(const tch_tree* tree, const tch_tree_data* data, int site);
/* The world position of the point p_B fixed to body (after positions). */
tch_vec3 tch_tree_body_point(const tch_tree* tree, const tch_tree_data* data, int body,
                             tch_vec3 p_B);
/* World angular velocity and world velocity of the body point at p_W (after velocities). */
void tch_tree_point_velocity(const tch_tree* tree, const tch_tree_data* data, int body,
                             tch_vec3 p_W, tch_vec3* w_W, tch_vec3* v_W);
/* World-frame Jacobians of the point p_W fixed to body: w = J_ang qvel, v = J_lin qvel; each
 * 3 x nv row-major, either may be NULL (after positions). */
void tch_tree_point_jacobian(const tch_tree* tree, const tch_tree_data* data, int body,
                             tch_vec3 p_W, tch_real* J_ang, tch_real* J_lin);
/* The world velocity of the point p_W fixed to body for the generalized velocities qvel (any,
 * not only those of tch_tree_velocities), after positions. */
tch_vec3 tch_tree_point_velocity_of(const tch_tree* tree, const tch_tree_data* data, int body,
                                    tch_vec3 p_W, const tch_real* qvel);
/* The rotation vector of q_rest^-1 q (MuJoCo's mju_subQuat; q_rest's frame), the shorter
 * way round. */
tch_vec3 tch_tree_rotation_from(tch_quat q_rest, tch_quat q);
/* Q += J^T (f_W, tau_W) for the force f_W at the point p_W fixed to body and the torque tau_W
 * (world), after positions. */
void tch_tree_add_wrench(const tch_tree* tree, const tch_tree_data* data, int body, tch_vec3 p_W,
                         tch_vec3 f_W, tch_vec3 tau_W, tch_real* Q);
/* d_W . J_lin(p_W) over the dofs first .. first + count into J[count] (zero off the point's
 * ancestors), which must hold the ancestors' dofs: a constraint row's Jacobian (after
 * positions). */
void tch_tree_point_jacobian_along(const tch_tree* tree, const tch_tree_data* data, int body,
                                   tch_vec3 p_W, tch_vec3 d_W, int first, int count, tch_real* J);
/* Kinetic energy 1/2 qvel^T A qvel (link inertias and armature), after velocities. */
tch_real tch_tree_kinetic_energy(const tch_tree* tree, const tch_tree_data* data,
                                 const tch_real* qvel);
/* Gravity and spring potential energy, after positions. */
tch_real tch_tree_potential_energy(const tch_tree* tree, const tch_tree_data* data,
                                   const tch_real* qpos);
/* Spring and damper generalized forces (MuJoCo's mj_passive without fluid): hinge and slide
 * -k (q - springref), ball (and a free joint's rotation) -k times the rotation vector from the
 * rest quaternion, free position -k (p - p0); damping -d qvel per dof. */
void tch_tree_passive_forces(const tch_tree* tree, const tch_real* qpos, const tch_real* qvel,
                             tch_real* qfrc);

/* ---- dynamics (tree_dynamics.c), all after tch_tree_positions and tch_tree_velocities ---- */

/* Inverse dynamics: tau = A qacc + b + g (armature included); qacc NULL means zero, which
 * gives the bias force b + g (tau holding the tree still at rest when qvel = 0). */
void tch_tree_rnea(const tch_tree* tree, tch_tree_data* data, const tch_real* qacc, tch_real* tau);
/* A(q) into data->M (armature on the diagonal). Needs tch_tree_positions only. */
void tch_tree_mass_matrix(const tch_tree* tree, tch_tree_data* data);
/* A(q) into data->M and the bias force b + g at qvel into bias[nv] (tch_tree_rnea's with qacc
 * NULL) in one pass: the RNEA runs in the CRBA's frames on its link inertias, so forward
 * dynamics by CRBA costs no transform per link beyond the CRBA's. Needs tch_tree_positions
 * only (data->v and c are left alone). */
void tch_tree_mass_matrix_bias(const tch_tree* tree, tch_tree_data* data, const tch_real* qvel,
                               tch_real* bias);
/* data->LD = L^T D L factor of data->M. TCH_ERR_NUMERICAL, naming the joint, when a pivot is
 * not positive (A not positive definite: a dof that moves no mass). */
tch_status tch_tree_factor(const tch_tree* tree, tch_tree_data* data, tch_error* err);
/* x = A^-1 x in place, with the factor. */
void tch_tree_solve(const tch_tree* tree, const tch_tree_data* data, tch_real* x);
/* Forward dynamics by the articulated-body algorithm: qacc = A^-1 (tau - b - g).
 * TCH_ERR_NUMERICAL, naming the joint, when a dof's articulated inertia is not positive. */
tch_status tch_tree_aba(const tch_tree* tree, tch_tree_data* data, const tch_real* tau,
                        tch_real* qacc, tch_error* err);
/* x = A^-1 x restricted to the dofs first .. first + count (x[0] is dof first's), which must
 * hold every ancestor of their dofs (a subtree of the world's, as
 * tch_articulation.body_dof_first gives): A is block diagonal over such subtrees. */
void tch_tree_solve_range(const tch_tree* tree, const tch_tree_data* data, int first, int count,
                          tch_real* x);
/* Rows of J A^-1 in place: each of the m rows of rows (m x nv) becomes A^-1 row^T, the columns
 * of A^-1 J^T (Ruspini and Khatib's impulse update, eq. 17), with the factor. */
void tch_tree_solve_rows(const tch_tree* tree, const tch_tree_data* data, int m, tch_real* rows);
/* Lambda^-1 = J A^-1 J^T (m x m, m <= max_rows; seeds/003 eq. 4) from J (m x nv), with the
 * factor: (J L^-1) D^-1 (J L^-1)^T. */
void tch_tree_inverse_inertia(const tch_tree* tree, tch_tree_data* data, int m, const tch_real* J,
                              tch_real* inverse_inertia);

/* S x: the motion of a link's joint for the dof values x (x indexed like qvel); S is a unit
 * column per dof in the link frame (see the header). */
static inline tch_spatial_vec tch_tree_link_motion(const tch_tree_link* link, const tch_real* x) {
    const tch_real* q = &x[link->dof];
    tch_spatial_vec m = tch_sv_zero();
    switch (link->type) {
    case TCH_TREE_LINK_HINGE:
        m.ang.z = q[0];
        break;
    case TCH_TREE_LINK_SLIDE:
        m.lin.z = q[0];
        break;
    case TCH_TREE_LINK_BALL:
        m.ang = (tch_vec3){q[0], q[1], q[2]};
        break;
    case TCH_TREE_LINK_TRANSLATION:
        m.lin = (tch_vec3){q[0], q[1], q[2]};
        break;
    case TCH_TREE_LINK_WELD:
        break;
    }
    return m;
}

/* X S_k for the link's dof k (0, 1 or 2), S_k carried by X (a link frame in another): S_k is
 * a unit column (see the header), so this is a column of X's rotation, the axis, and for a
 * rotation its moment p x axis about the other frame's origin (eq. 2.24). */
static inline tch_spatial_vec tch_tree_link_dof_motion(const tch_tree_link* link, int k,
                                                       const tch_spatial_transform* X) {
    bool along_z = link->type == TCH_TREE_LINK_HINGE || link->type == TCH_TREE_LINK_SLIDE;
    int column = along_z ? 2 : k;
    tch_vec3 axis = {X->R.m[0][column], X->R.m[1][column], X->R.m[2][column]};
    if (link->type == TCH_TREE_LINK_HINGE || link->type == TCH_TREE_LINK_BALL) {
        return tch_sv(axis, tch_v3_cross(X->p, axis));
    }
    return tch_sv(tch_v3_zero(), axis);
}

/* S_k^T f for the link's dof k (0, 1 or 2): the entry of f that S picks. */
static inline tch_real tch_tree_link_dof_force(const tch_tree_link* link, int k,
                                               tch_spatial_vec f) {
    switch (link->type) {
    case TCH_TREE_LINK_HINGE:
        return f.ang.z;
    case TCH_TREE_LINK_SLIDE:
        return f.lin.z;
    case TCH_TREE_LINK_BALL:
        return k == 0 ? f.ang.x : k == 1 ? f.ang.y : f.ang.z;
    case TCH_TREE_LINK_TRANSLATION:
        return k == 0 ? f.lin.x : k == 1 ? f.lin.y : f.lin.z;
    case TCH_TREE_LINK_WELD:
        break;
    }
    return 0;
}
