/// touche: the simulation data, everything that changes while simulating.
///
/// A tch_data belongs to one model and one thread at a time. Fixed arrays are allocated by
/// tch_data_create; per-step scratch comes from an arena inside the data, so that after the
/// first steps of a scene a step allocates nothing.
#pragma once

#include "touche/base.h"
#include "touche/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Kinds of numerical trouble counted per data (see tch_data.warning_count).
typedef enum tch_warning {
    TCH_WARN_CONTACT_FULL = 0, ///< contact buffer was grown during a step
    TCH_WARN_ARENA_GROWN,      ///< the scratch arena overflowed to the heap and was grown
    TCH_WARN_BAD_QUAT,         ///< a quaternion had to be renormalized from far off unit length
    TCH_WARN_DEEP_PENETRATION, ///< a pair penetrated deeper than half its thinner geom
    TCH_WARN_ENERGY_GAIN,      ///< the energy grew beyond its start plus the work put in
                               ///< (touche/watch.h)
    TCH_WARN_FRICTION_DROPPED, ///< an lcp island was solved without friction for a step (its
                               ///< frictional attempts failed; docs/contact-lcp.md, "Fallbacks")
    TCH_WARN_LOOSE_RESIDUAL,   ///< an lcp island's impulses were applied with a natural-map
                               ///< residual above 1e-6 m/s and the model's tolerance (an island
                               ///< too large for Lemke, or the last resort)
    TCH_WARN_COUNT
} tch_warning;

/// A spring-damper inside the user's applied wrench on one free body (a haptic coupling,
/// touche/haptics.h), for the linearly implicit integrator. The caller puts the spring's force
/// and torque at the step's start, on the centre of mass, into body_force_applied_W and
/// body_torque_applied_W, and its stiffness and damping here; the integrator takes the spring
/// into its system with the contacts as the element f = -stiffness p_WCm - damping v_WCm,
/// tau = -angular_stiffness theta - angular_damping w_W (theta the rotation vector), so that a
/// stiff spring against a stiff contact is integrated as one (docs/integrators.md, "Applied
/// springs"). The other integrators, and a body that is not a free body of its own (a link),
/// ignore it. `body` 0 (after tch_data_create and tch_data_reset): no spring.
typedef struct tch_applied_spring {
    int body;                   ///< the free body, or 0 for none
    tch_real stiffness;         ///< N/m, >= 0
    tch_real damping;           ///< N s/m, >= 0
    tch_real angular_stiffness; ///< N m/rad, >= 0
    tch_real angular_damping;   ///< N m s/rad, >= 0
} tch_applied_spring;

/// One contact point between geoms a and b (a < b in model order unless an explicit pair
/// orders them).
typedef struct tch_contact {
    int geom_a, geom_b;
    tch_contact_model model;
    tch_vec3 p_W;     ///< contact point (midway between the surfaces), world, m
    tch_vec3 n_W;     ///< unit normal pointing from a into b, world
    tch_real depth;   ///< penetration depth, m (> 0 overlapping, < 0 within the margin)
    tch_vec3 f_W;     ///< force applied to b at p_W, world, N (a receives -f_W)
} tch_contact;

/// A polygon of a contact patch (volume and pressure models): its vertices are
/// polygon_vertices_W[vertex_start .. vertex_start + vertex_count) of tch_data, with the
/// pressure at each vertex in polygon_vertex_pressure (Pa; 0 where the model has none).
typedef struct tch_contact_polygon {
    int vertex_start;
    int vertex_count;
    tch_vec3 n_W;          ///< unit normal of the polygon, from a into b
} tch_contact_polygon;

/// Net result of one geom pair in contact, after the contact forces stage.
typedef struct tch_pair_result {
    int geom_a, geom_b;
    tch_contact_model model;
    int contact_start;     ///< first of this pair's points in tch_data.contacts
    int contact_count;
    tch_vec3 f_W;          ///< net force on b, N
    tch_vec3 tau_Wo_W;     ///< net torque on b about the world origin, N m
    tch_pair_params params; ///< the resolved contact parameters used for this pair
    // ---- patch models (zero for point contacts) ----
    int polygon_start;     ///< first of this pair's polygons in tch_data.polygons
    int polygon_count;
    tch_real area;         ///< contact area, m^2
    tch_real volume;       ///< overlap volume, m^3 (volume model)
    tch_real max_pressure; ///< Pa (pressure model)
    tch_real elastic_energy; ///< J (pressure model)
} tch_pair_result;

/// How the constraint stage (lcp model) solved a contact island: the attempts it makes in
/// turn until one is acceptable (docs/contact-lcp.md, "Fallbacks").
typedef enum tch_constraint_path {
    TCH_CONSTRAINT_LEMKE = 0,    ///< Lemke on the Stewart-Trinkle LCP with the cone edges
    TCH_CONSTRAINT_PGS,          ///< matrix-free projected Gauss-Seidel on the box-friction MLCP
    TCH_CONSTRAINT_NORMAL_LEMKE, ///< Lemke on the normal rows: no friction in that step
    TCH_CONSTRAINT_NORMAL_PGS,   ///< PGS on the normal rows from zero: the last resort
    TCH_CONSTRAINT_PATH_COUNT
} tch_constraint_path;

/// The adaptive integrator's work (TCH_INTEGRATOR_ADAPTIVE; zero with the others).
typedef struct tch_adaptive_work {
    long steps;        ///< internal steps taken (accepted)
    long rejected;     ///< internal steps rejected (error test or Newton failure)
    long jacobians;    ///< Jacobian evaluations (each 13 pipeline evaluations per free body)
    long evaluations;  ///< evaluations of the whole pipeline, the Jacobians' included
} tch_adaptive_work;

typedef struct tch_data {
    tch_real time;              ///< s
    // ---- state ----
    tch_real* qpos;             ///< [nq] per free body: p_WB (3), q_WB (w x y z)
    tch_real* qvel;             ///< [nv] per free body: v_WBo in W (3), w_WB in B (3)
    tch_real* qacc;             ///< [nv] last computed accelerations
    // ---- inputs ----
    tch_real* ctrl;             ///< [actuator_count] actuator controls (clamped to their range
                                ///< when limited)
    tch_vec3* body_force_applied_W;  ///< [body_count] user force at the centre of mass, N
    tch_vec3* body_torque_applied_W; ///< [body_count] user torque, N m
    tch_applied_spring applied_spring; ///< the stiffness and damping of a spring in the
                                       ///< applied wrench, for the implicit integrator
    bool contact_energy;        ///< compute each pressure-model pair's elastic energy (eq. 1),
                                ///< which costs about as much as its contact surface; off by
                                ///< default, on in the CLI's run and query
    int thread_count;           ///< threads a step may use (0 or 1: the calling thread only);
                                ///< results are bit-identical for every count
    tch_transform* mocap_X_WB;  ///< [mocap_count] each mocap body's pose (MuJoCo's mocap_pos
                                ///< and mocap_quat; the scene's pose after a reset)
    tch_vec3* mocap_v_W;        ///< [mocap_count] its origin's velocity, m/s (zero after a
                                ///< reset): what contacts see, the pose is not integrated
    tch_vec3* mocap_w_W;        ///< [mocap_count] its angular velocity, rad/s
    // ---- kinematics (position stage) ----
    tch_transform* body_X_WB;   ///< [body_count] body frames in the world
    tch_mat3* body_R_WB;        ///< [body_count]
    tch_vec3* body_p_WCm;       ///< [body_count] composite centre of mass of free bodies
    tch_mat3* body_I_W;         ///< [body_count] each free body's inertia about its centre of
                                ///< mass, world axes (R I_B R^T; zero for other bodies)
    tch_mat3* body_I_inv_W;     ///< [body_count] its inverse (R I_B^-1 R^T)
    tch_transform* geom_X_WG;   ///< [geom_count]
    tch_transform* site_X_WS;   ///< [site_count] site frames in the world
    tch_mat3* geom_R_WG;        ///< [geom_count]
    // ---- velocities (velocity stage), free bodies ----
    tch_vec3* body_v_WCm;       ///< [body_count] velocity of the centre of mass, world
    tch_vec3* body_w_W;         ///< [body_count] angular velocity, world
    // ---- contacts (collision and contact stages) ----
    int contact_count;
    int contact_capacity;
    tch_contact* contacts;      ///< [contact_capacity]
    int pair_result_count;
    int pair_result_capacity;
    tch_pair_result* pair_results;
    int polygon_count;
    int polygon_capacity;
    tch_contact_polygon* polygons;        ///< [polygon_capacity]
    int polygon_vertex_count;
    int polygon_vertex_capacity;
    tch_vec3* polygon_vertices_W;         ///< [polygon_vertex_capacity], m
    tch_real* polygon_vertex_pressure;    ///< [polygon_vertex_capacity], Pa
    // ---- forces ----
    tch_vec3* body_force_W;     ///< [body_count] total force on the centre of mass, N
    tch_vec3* body_torque_W;    ///< [body_count] total torque about the centre of mass, N m
    tch_real* actuator_force;   ///< [actuator_count] each actuator's force f (the joint gets
                                ///< gear f), N m or N
    // ---- diagnostics ----
    int warning_count[TCH_WARN_COUNT];
    tch_real warning_time[TCH_WARN_COUNT]; ///< time of the step of the last warning of each kind
    int warning_body[TCH_WARN_COUNT];      ///< a body it concerned (0: none or the world)
    long heap_allocation_count; ///< allocations made by steps (flat after warm-up)
    long buffer_growth_count;   ///< times the contact, pair or polygon buffers grew
    int broadphase_pair_count;  ///< candidate pairs of the last collision stage
    // ---- constraint solve (lcp model) of the last step, zero when it had no lcp contacts ----
    int constraint_island_count;   ///< contact islands solved (each its own LCP)
    int constraint_iterations;     ///< Lemke pivots or PGS sweeps, summed over the islands
    tch_real constraint_residual;  ///< largest natural-map residual of an island's solution, m/s
    int constraint_failed_islands; ///< islands whose first attempt (the model's solver) was not
                                   ///< applied: a fallback's was, or none (out of memory)
    int constraint_path_islands[TCH_CONSTRAINT_PATH_COUNT]; ///< islands applied per path
    int constraint_sleeping_islands; ///< islands held at rest without a solve (asleep: their
                                     ///< bodies keep zero velocity, their contacts the last
                                     ///< solve's impulses); not in the path counts
    // ---- adaptive integrator ----
    tch_adaptive_work adaptive_step;  ///< the last step's work
    tch_adaptive_work adaptive_total; ///< summed since tch_data_create

    struct tch_data_internal* internal; ///< arena, per-pair contact state, caches; opaque
} tch_data;

/// A new data for `model`, in the model's initial state (qpos0, zero velocity).
TCH_API tch_status tch_data_create(const tch_model* model, tch_data** out, tch_error* err);
/// Frees a data. NULL is allowed.
TCH_API void tch_data_destroy(tch_data* data);
/// Back to the initial state: qpos0, zero velocity, time 0, contact state dropped.
TCH_API void tch_data_reset(const tch_model* model, tch_data* data);
/// Sets the state of keyframe `key` (0-based).
TCH_API tch_status tch_data_reset_key(const tch_model* model, tch_data* data, int key,
                                      tch_error* err);

/// A contact island's complementarity problem as the `lcp` model posed it in a step, with the
/// impulses it applied: w = M z + q (velocities, m/s; impulses, N s). With bounds (the paths
/// TCH_CONSTRAINT_PGS and TCH_CONSTRAINT_NORMAL_PGS) it is the box MLCP of the Jacobian rows
/// (each normal row, lo 0 and hi +inf; each friction row, lo -mu and hi mu times its normal
/// row's impulse, normal_index): z_i = P_[lo_i, hi_i](z_i - w_i). Without (the Lemke paths) it
/// is the Stewart-Trinkle LCP with the cone edges and the lambda rows: 0 <= z ⊥ w >= 0. The
/// row solver's friction rows are discs (friction_disc), not the box of their lo and hi.
/// docs/contact-lcp.md, "Island problems".
typedef struct tch_island_problem {
    int n;                     ///< unknowns
    const tch_real* matrix;    ///< [n * n] M, row-major
    const tch_real* q;         ///< [n]
    const tch_real* lo;        ///< [n] box form, or NULL (LCP)
    const tch_real* hi;        ///< [n] box form, or NULL (LCP)
    const int* normal_index;   ///< [n] box form (-1: fixed bounds), or NULL (LCP)
    const tch_real* z;         ///< [n] the impulses applied
    tch_constraint_path path;  ///< the attempt that was applied
    tch_real residual;         ///< its natural-map residual as the stage measured it, m/s
    bool friction_disc;        ///< box form: each contact's two friction rows are one disc,
                               ///< |(z_t1, z_t2)| <= mu z_n (the row solver's isotropic
                               ///< friction), with the natural map |z_t - P_disc(z_t - w_t)|
} tch_island_problem;

/// Receives every island problem the `lcp` model solves; the arrays are valid during the call.
typedef void (*tch_island_observer)(const tch_island_problem* problem, void* user);

/// Calls `observer` for every contact island the `lcp` model solves in later steps of `data`
/// (NULL: none, the default). For tests, solver research and export: forming the dense matrix
/// costs O(n^2) per island and step.
TCH_API void tch_data_observe_islands(tch_data* data, tch_island_observer observer, void* user);

/// The peg contact model's constraint behind one contact of the last step (peg reports one
/// contact per U-, I- or X-constraint, at its primary; docs/peg.md).
typedef struct tch_peg_constraint_info {
    const char* type;         ///< "U", "I" or "X"
    const char* feature_pair; ///< the case that made it: "vertex-face", "edge-edge", ...
    int contacts;             ///< its contacts (1 for U)
    int trapped;              ///< 1 when it holds while one of its contacts is violated: the
                              ///< standard model (a row per contact) would push without cause
} tch_peg_constraint_info;

/// The constraint behind data->contacts[contact] when its pair runs peg.
/// TCH_ERR_INVALID_ARGUMENT when the contact is out of range or not peg's.
TCH_API tch_status tch_data_peg_constraint(const tch_model* model, const tch_data* data,
                                           int contact, tch_peg_constraint_info* out,
                                           tch_error* err);

/// Kinetic plus gravitational potential energy of all free bodies, J (contact potential
/// energy excluded).
TCH_API tch_real tch_data_energy(const tch_model* model, const tch_data* data);
/// Total linear momentum (kg m/s) and angular momentum about the world origin (kg m^2/s).
TCH_API void tch_data_momentum(const tch_model* model, const tch_data* data, tch_vec3* p_W,
                               tch_vec3* L_Wo_W);

/// Generalized forces of an articulated model's joints at the data's state (qpos, qvel), each
/// [nv] in qvel's order (NULL to skip): `bias`, the gravity and velocity-product force b + g
/// (the torque that holds the tree still at rest), `passive`, the joints' springs, dampers,
/// limit springs and friction, and `actuator`, the actuators' gear f at the current ctrl (also
/// updating actuator_force). Updates the kinematics outputs. TCH_ERR_UNSUPPORTED for a model
/// without joints (tch_model.joint_count 0).
TCH_API tch_status tch_data_joint_forces(const tch_model* model, tch_data* data, tch_real* bias,
                                         tch_real* passive, tch_real* actuator, tch_error* err);

/// Sets body b's state from world-frame quantities: origin pose X_WB, origin velocity v_WBo
/// and angular velocity w_WB. Only for free bodies.
TCH_API tch_status tch_data_set_body_state(const tch_model* model, tch_data* data, int body,
                                           const tch_transform* X_WB, tch_vec3 v_WBo_W,
                                           tch_vec3 w_WB_W, tch_error* err);
/// Reads body b's world pose and velocities of its origin (any body; static ones are at rest).
TCH_API void tch_data_body_state(const tch_model* model, const tch_data* data, int body,
                                 tch_transform* X_WB, tch_vec3* v_WBo_W, tch_vec3* w_WB_W);

#ifdef __cplusplus
}
#endif
