/// touche: the compiled model, immutable while simulating.
///
/// Built by tch_compile from a tch_spec. Arrays are structure-of-arrays named
/// <object>_<attribute>, with their dimensions in the comment. Body 0 is the world.
/// Many tch_data may share one model, from any number of threads.
#pragma once

#include "touche/base.h"
#include "touche/spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Convex polyhedron of a mesh geom, in the geom frame G.
typedef struct tch_convex_hull {
    int vertex_count;
    tch_vec3* vertices_G;      ///< [vertex_count]
    int face_count;
    int* face_start;           ///< [face_count + 1] offsets into face_vertices
    int* face_vertices;        ///< counter-clockwise seen from outside
    tch_vec3* face_normals_G;  ///< [face_count] outward unit normals
    tch_real* face_offsets;    ///< [face_count] n . x = offset on the face plane
    int edge_count;
    int (*edges)[2];           ///< [edge_count] vertex index pairs
    tch_real volume;           ///< m^3
    tch_vec3 centroid_G;       ///< centre of volume, m
} tch_convex_hull;

/// Resolved contact parameters of a geom pair (every field set; see TCH_CONTACT_REAL_PARAMS).
typedef struct tch_pair_params {
    tch_contact_model model;     ///< the model that runs the pair
    tch_contact_model requested; ///< the model the scene asked for (differs when a pressure
                                 ///< pair of two rigid geoms falls back to point)
    tch_point_law law;
    bool stiffness_derived;      ///< stiffness was unset: the point model's default material
                                 ///< (implicit and adaptive integrators) or derived from mass
                                 ///< and time step (explicit ones)
    bool damping_derived;        ///< damping was unset: the material's (relaxation time times
                                 ///< stiffness) or critical damping for the linear law, zero
                                 ///< for Hunt-Crossley
    bool tangential_stiffness_derived; ///< tangential stiffness was unset (volume: k^N)
    bool tangential_damping_derived;   ///< tangential damping was unset (volume: b^N)
#define TCH_DECLARE_PARAM(field, positive, combine, doc) tch_real field;
    TCH_CONTACT_REAL_PARAMS(TCH_DECLARE_PARAM)
#undef TCH_DECLARE_PARAM
} tch_pair_params;

typedef struct tch_model {
    // ---- sizes ----
    int body_count;   ///< including the world body 0
    int geom_count;
    int mesh_count;
    int pair_count;   ///< explicit pairs
    int key_count;
    int free_count;   ///< free bodies
    int site_count;
    int actuator_count;
    int mocap_count;  ///< mocap bodies (their poses are tch_data.mocap_*)
    int joint_count;  ///< joints of an articulated model, its free joints included; else 0
    int nq;           ///< 7 * free_count, plus the joints' (articulated models)
    int nv;           ///< 6 * free_count, plus the joints'

    // ---- options ----
    tch_real timestep;          ///< s
    tch_vec3 gravity;           ///< m/s^2, world
    tch_integrator integrator;
    tch_contact_params contact_default; ///< scene defaults (stiffness and damping may be NaN:
                                        ///< derived per pair, see docs/contact-point.md)
    tch_lcp_solver lcp_solver;  ///< solver of the constraint models
    int lcp_iterations;         ///< PGS iteration / Lemke pivot limit
    tch_real lcp_tolerance;     ///< PGS stopping residual
    tch_real adaptive_rtol;     ///< adaptive integrator's relative tolerance
    tch_real adaptive_atol;     ///< and absolute one (m, m/s, rad/s, quaternion components)
    tch_planar planar;          ///< TCH_PLANAR_XZ: free bodies move in the x-z plane, turn
                                ///< about y (docs/planar.md)

    // ---- bodies [body_count] ----
    char (*body_name)[64];
    int* body_parent;           ///< parent body index (-1 for the world)
    int* body_root;             ///< the free body that carries it, or 0 when static
    int* body_free;             ///< 1 when the body carries its own dofs: a free joint, or (in an
                                ///< articulated model) any joint; its welded subtree moves with it
    int* body_qpos_adr;         ///< address in qpos (bodies with a free joint), -1 otherwise
    int* body_qvel_adr;         ///< address in qvel (bodies with a free joint), -1 otherwise
    tch_transform* body_X_PB;   ///< pose in the parent frame (initial pose for free bodies)
    tch_transform* body_X_RB;   ///< pose in its root's frame (welded chain composed)
    tch_real* body_mass;        ///< own mass, kg
    tch_vec3* body_p_BCm;       ///< own centre of mass in the body frame
    tch_mat3* body_I_BCm;       ///< own rotational inertia about Cm, body axes, kg m^2
    // aggregated over the welded subtree, meaningful where body_free (root frame R = B):
    tch_real* body_total_mass;  ///< kg
    tch_vec3* body_total_p_BCm; ///< composite centre of mass in the body frame
    tch_mat3* body_total_I_BCm; ///< composite inertia about that centre, body axes
    tch_mat3* body_total_I_inv; ///< its inverse
    // mocap bodies (MuJoCo's mocap="true"): roots of their welded subtrees, posed from outside,
    // with an infinite body_total_mass and a zero body_total_I_inv
    int* body_mocap;            ///< index into tch_data.mocap_*, or -1
    tch_haptic_def* body_haptic; ///< as the scene gave it (renderer NONE for most bodies)
    int* body_haptic_tool;      ///< a coupling's tool body (free), or -1

    // ---- joints [joint_count] (articulated models; MuJoCo's order, free joints included) ----
    char (*joint_name)[64];
    int* joint_type;            ///< tch_joint_type
    int* joint_body;            ///< the body it moves
    int* joint_qpos_adr;        ///< first qpos entry
    int* joint_qvel_adr;        ///< first qvel entry (dof)
    int* joint_limited;         ///< 1 when its range is enforced
    tch_real (*joint_range)[2]; ///< lower, upper (rad or m)

    // ---- actuators [actuator_count] (on hinge and slide joints; see tch_actuator_def) ----
    char (*actuator_name)[64];
    int* actuator_type;             ///< tch_actuator_type
    int* actuator_joint;            ///< the joint it drives (index into the joint arrays)
    tch_real* actuator_gear;
    tch_real* actuator_kp;          ///< position gain
    tch_real* actuator_kv;          ///< velocity gain
    int* actuator_ctrl_limited;
    tch_real (*actuator_ctrl_range)[2];

    // ---- sites [site_count] ----
    char (*site_name)[64];
    int* site_body;             ///< the body the site is fixed to (0: the world)
    tch_transform* site_X_BS;   ///< pose in its body frame

    // ---- geoms [geom_count] ----
    char (*geom_name)[64];
    int* geom_type;             ///< tch_geom_type
    int* geom_body;             ///< body the geom is attached to
    tch_real (*geom_size)[3];
    tch_transform* geom_X_BG;   ///< pose in its body frame
    tch_transform* geom_X_RG;   ///< pose in its root body's frame (world for static geoms)
    int* geom_mesh;             ///< mesh index or -1
    int* geom_contype;
    int* geom_conaffinity;
    tch_real* geom_rbound;      ///< radius of a sphere about the geom origin that bounds it (0: plane)
    tch_contact_params* geom_contact; ///< as given (unset fields NaN / INHERIT)

    // ---- meshes [mesh_count] ----
    char (*mesh_name)[64];
    tch_convex_hull* mesh_hull;

    // ---- explicit pairs [pair_count] ----
    int* pair_geom_a;
    int* pair_geom_b;
    tch_pair_params* pair_params;  ///< resolved

    // ---- keyframes [key_count] ----
    char (*key_name)[64];
    tch_real* key_time;         ///< [key_count]
    tch_real* key_qpos;         ///< [key_count][nq]
    tch_real* key_qvel;         ///< [key_count][nv]
    tch_real* key_ctrl;         ///< [key_count][actuator_count]

    // ---- initial state ----
    tch_real* qpos0;            ///< [nq]

    struct tch_model_internal* internal; ///< compiled per-model caches; opaque
    struct tch_articulation* articulation; ///< the kinematic tree of an articulated model (a
                                           ///< hinge, slide or ball joint), else NULL; opaque
} tch_model;

/// Compiles a spec into a model. On failure returns the status, fills `err` (with the source
/// file and line of the offending element) and sets *out to NULL.
TCH_API tch_status tch_compile(const tch_spec* spec, tch_model** out, tch_error* err);
/// Frees a model. NULL is allowed.
TCH_API void tch_model_destroy(tch_model* model);

/// Index of a named body / geom / key, or -1.
TCH_API int tch_model_body_index(const tch_model* model, const char* name);
TCH_API int tch_model_geom_index(const tch_model* model, const char* name);
TCH_API int tch_model_key_index(const tch_model* model, const char* name);
TCH_API int tch_model_site_index(const tch_model* model, const char* name);
TCH_API int tch_model_joint_index(const tch_model* model, const char* name);
TCH_API int tch_model_actuator_index(const tch_model* model, const char* name);

/// The resolved contact parameters for geoms a and b: explicit pair first, then the two geoms
/// (combined as docs/contact-point.md says), then the scene default.
TCH_API tch_pair_params tch_model_pair_params(const tch_model* model, int geom_a, int geom_b);

#ifdef __cplusplus
}
#endif
