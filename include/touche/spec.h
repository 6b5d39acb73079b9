/// touche: the scene specification, an editable description of a scene.
///
/// Loaders (MJCF, later URDF) and C programs fill a tch_spec through the functions below;
/// tch_compile (model.h) validates it and builds the immutable tch_model. Every element
/// carries its source location so that compile errors can name file and line.
///
/// Inputs are `*_def` structs that must start from `tch_*_def_default()`: the default
/// functions set a cookie that the add functions check, so an uninitialised def is an
/// error rather than garbage.
#pragma once

#include "touche/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Geometry types, numbered as MuJoCo's mjtGeom (hfield, 1, is not supported).
typedef enum tch_geom_type {
    TCH_GEOM_PLANE = 0,     ///< half-space below the geom's local z = 0 plane (infinite)
    TCH_GEOM_SPHERE = 2,    ///< size[0] = radius
    TCH_GEOM_CAPSULE = 3,   ///< size[0] = radius, size[1] = half-length of the segment along z
    TCH_GEOM_ELLIPSOID = 4, ///< size = the three semi-axes
    TCH_GEOM_CYLINDER = 5,  ///< size[0] = radius, size[1] = half-height along z
    TCH_GEOM_BOX = 6,       ///< size = the three half-extents
    TCH_GEOM_MESH = 7,      ///< convex hull of a mesh asset (`mesh` names it)
    TCH_GEOM_TYPE_END = 8   ///< one past the last value, for tables
} tch_geom_type;

/// Contact models (see docs/design.md). TCH_CONTACT_INHERIT means "not set here".
typedef enum tch_contact_model {
    TCH_CONTACT_INHERIT = 0,
    TCH_CONTACT_POINT,    ///< penalty spring-damper at contact points, regularized Coulomb
    TCH_CONTACT_VOLUME,   ///< Hasegawa-Sato contact volume: distributed springs and dampers
    TCH_CONTACT_PRESSURE, ///< Elandt et al. pressure field (hydroelastic) contact surfaces
    TCH_CONTACT_LCP,      ///< velocity-level complementarity (Stewart-Trinkle, Anitescu-Potra)
    TCH_CONTACT_PEG,      ///< Williams-Lu-Trinkle polytope model (not supported yet)
    TCH_CONTACT_MODEL_END
} tch_contact_model;

/// Normal force law of the point model.
typedef enum tch_point_law {
    TCH_POINT_LAW_INHERIT = 0,
    TCH_POINT_LAW_LINEAR,        ///< f = k d + b d'  (clamped at zero: never pulls)
    TCH_POINT_LAW_HUNT_CROSSLEY, ///< f = k d^e (1 + 3/2 alpha d')  (Hunt-Crossley 1975)
} tch_point_law;

/// Integrators.
typedef enum tch_integrator {
    TCH_INTEGRATOR_SEMI_IMPLICIT_EULER = 0, ///< symplectic Euler: v += h a(q, v); q += h v
    TCH_INTEGRATOR_RK4,                     ///< classical fourth-order Runge-Kutta
    TCH_INTEGRATOR_IMPLICIT, ///< linearly implicit Euler in the contacts' stiffness and damping
    TCH_INTEGRATOR_AUTO,     ///< unset (the default): the compiler picks IMPLICIT when a contact
                             ///< model with physical defaults (volume) may run and no constraint
                             ///< model (lcp) may, else SEMI_IMPLICIT_EULER (docs/integrators.md)
    TCH_INTEGRATOR_ADAPTIVE, ///< variable-step L-stable DIRK (SUNDIALS ARKODE) to the tolerances
                             ///< adaptive_rtol and adaptive_atol, for accuracy studies
} tch_integrator;

/// The planar mode (MJCF `<option touche:planar="xz"/>`, docs/mjcf.md and docs/planar.md).
typedef enum tch_planar {
    TCH_PLANAR_NONE = 0, ///< bodies move in 3D (the default)
    TCH_PLANAR_XZ,       ///< every free body moves in the world x-z plane and turns about world
                         ///< y only: three velocities per body (v_x, v_z, w_y)
} tch_planar;

/// The adaptive integrator's default tolerances (TCH_INTEGRATOR_ADAPTIVE).
#define TCH_ADAPTIVE_DEFAULT_RTOL 1e-4
#define TCH_ADAPTIVE_DEFAULT_ATOL 1e-6

/// Solvers for the constraint models' complementarity problems.
typedef enum tch_lcp_solver {
    TCH_LCP_SOLVER_INHERIT = 0,
    TCH_LCP_SOLVER_LEMKE, ///< Lemke's complementary pivoting: exact, O(n^3)
    TCH_LCP_SOLVER_PGS,   ///< projected Gauss-Seidel over the contact rows, warm-started, with
                          ///< Lemke as the exact fallback (the default)
} tch_lcp_solver;

/// The real-valued contact parameters, as an X-macro:
/// X(field, must_be_positive, how two geoms' values combine, meaning and unit).
/// The struct below, the scene attributes (touche:<field>), the writer, the defaults and the
/// checks are all generated from this one list, so they cannot drift apart.
#define TCH_CONTACT_REAL_PARAMS(X)                                                                \
    X(stiffness, 1, series, "normal stiffness k, N/m (Hunt-Crossley: N/m^e)")                     \
    X(damping, 0, series, "normal damping b, N s/m")                                              \
    X(dissipation, 0, mean, "Hunt-Crossley dissipation alpha, s/m")                               \
    X(exponent, 1, mean, "Hunt-Crossley exponent e (1.5 for Hertzian spheres)")                   \
    X(friction, 0, larger, "dynamic (sliding) Coulomb coefficient mu")                            \
    X(static_friction, 0, larger, "static Coulomb coefficient mu_0 (at least mu)")                \
    X(stiction_velocity, 1, smaller, "slip speed below which friction is static, m/s")            \
    X(margin, 0, larger, "contacts are generated this far before touching, m")                    \
    X(tangential_stiffness, 1, series, "static-friction spring k^S of the volume model, N/m")     \
    X(tangential_damping, 0, series, "static-friction damper b^S of the volume model, N s/m")     \
    X(resolution, 1, smaller, "edge length of polyhedral or tet approximations of curved geoms, m") \
    X(restitution, 0, larger, "restitution of impacts (lcp, point, volume), 0 to 1")              \
    X(cone_edges, 1, larger, "edges of the linearized friction cone (lcp), at least 3")           \
    X(stabilization, 0, mean, "fraction of the penetration removed per step (lcp), 0 to 1")      \
    X(modulus, 1, series, "hydroelastic modulus E of a compliant geom (pressure), Pa")            \
    X(layer, 1, larger, "thickness of a compliant layer over a rigid core (pressure), m")

/// Whether a geom is rigid for the pressure model (the rigid limit of Elandt et al.).
typedef enum tch_rigidity {
    TCH_RIGIDITY_INHERIT = 0,
    TCH_RIGIDITY_COMPLIANT, ///< a tet mesh with a pressure field (touche:rigid="false")
    TCH_RIGIDITY_RIGID,     ///< its surface only (touche:rigid="true")
} tch_rigidity;

/// How a device renders through a mocap body (touche:haptic; docs/haptics.md, docs/mjcf.md).
typedef enum tch_haptic_renderer {
    TCH_HAPTIC_NONE = 0,
    TCH_HAPTIC_PROXY,    ///< the god-object / virtual proxy (not supported yet)
    TCH_HAPTIC_COUPLING, ///< a spring-damper between the mocap pose and a free tool body
    TCH_HAPTIC_POINTER,  ///< the mocap body itself touches the scene: its contact wrench
} tch_haptic_renderer;

/// A mocap body's haptic settings. Unset reals are NaN (defaults in docs/haptics.md).
typedef struct tch_haptic_def {
    tch_haptic_renderer renderer;
    char tool[64];              ///< coupling: name of the free body the device drives
    tch_real linear_stiffness;  ///< coupling, N/m
    tch_real linear_damping;    ///< coupling, N s/m
    tch_real angular_stiffness; ///< coupling, N m/rad
    tch_real angular_damping;   ///< coupling, N m s/rad
    tch_real proxy_radius;      ///< proxy, m
} tch_haptic_def;

/// Contact parameters, per geom, pair or default class. A value that is NaN (or an enum that
/// is INHERIT) is "not set" and is taken from the next level: pair, then the two geoms
/// (combined as docs/contact-point.md documents), then the scene option.
typedef struct tch_contact_params {
    tch_contact_model model;
    tch_point_law law;
    tch_rigidity rigid;
#define TCH_DECLARE_PARAM(field, positive, combine, doc) tch_real field;
    TCH_CONTACT_REAL_PARAMS(TCH_DECLARE_PARAM)
#undef TCH_DECLARE_PARAM
} tch_contact_params;

/// Source location of a spec element; file may be "" for elements built in C.
typedef struct tch_source {
    char file[256];
    int line;
} tch_source;

typedef struct tch_spec tch_spec;

/// Body handle: 1-based index into the spec's bodies; index 0 is the world.
typedef struct tch_body_id {
    int index;
} tch_body_id;

/// Geom handle: 1-based index; 0 is null.
typedef struct tch_geom_id {
    int index;
} tch_geom_id;

/// Mesh handle: 1-based index; 0 is null.
typedef struct tch_mesh_id {
    int index;
} tch_mesh_id;

/// The world body.
#define TCH_WORLD_BODY ((tch_body_id){0})

/// Scene-wide options (MJCF `option` plus touche's attributes).
typedef struct tch_option_def {
    tch_real timestep;            ///< s, > 0
    tch_vec3 gravity;             ///< m/s^2, world frame
    tch_integrator integrator;
    tch_contact_params contact;   ///< scene default contact parameters
    tch_lcp_solver lcp_solver;    ///< solver of the constraint models (default Lemke)
    int lcp_iterations;           ///< iteration (PGS) or pivot (Lemke) limit; 0: the default
    tch_real lcp_tolerance;       ///< residual at which PGS stops; NaN: the default
    tch_real adaptive_rtol;       ///< adaptive integrator's relative tolerance, in (1e-14, 1);
                                  ///< NaN: TCH_ADAPTIVE_DEFAULT_RTOL
    tch_real adaptive_atol;       ///< its absolute tolerance (> 0, SI units of qpos and qvel);
                                  ///< NaN: TCH_ADAPTIVE_DEFAULT_ATOL
    tch_planar planar;            ///< TCH_PLANAR_NONE (default) or TCH_PLANAR_XZ
    int cookie;
} tch_option_def;

/// A body. Its pose is given relative to its parent body.
typedef struct tch_body_def {
    char name[64];            ///< may be empty; unique when not empty
    tch_body_id parent;       ///< TCH_WORLD_BODY or an earlier body
    tch_vec3 p_PB;            ///< position in the parent frame, m
    tch_quat q_PB;            ///< orientation in the parent frame (normalized on compile)
    bool free_joint;          ///< true: 6-DOF free body; false: welded to its parent
    bool mocap;               ///< MuJoCo's mocap body: a child of the world whose pose is set
                              ///< from outside each step (tch_data.mocap_*), not integrated
    tch_haptic_def haptic;    ///< mocap bodies: how a device renders through it
    bool has_inertial;        ///< true: the fields below give the mass properties explicitly
    tch_real mass;            ///< kg (> 0 for a free body)
    tch_vec3 p_BCm;           ///< centre of mass in the body frame, m
    tch_quat q_BI;            ///< principal axes frame I in the body frame
    tch_vec3 inertia_diag;    ///< principal moments about the centre of mass, kg m^2
    bool has_full_inertia;    ///< true: use inertia_full instead of q_BI / inertia_diag
    tch_real inertia_full[6]; ///< Ixx Iyy Izz Ixy Ixz Iyz about the centre of mass, body axes
    tch_source source;
    int cookie;
} tch_body_def;

/// Joint types, numbered as MuJoCo's mjtJoint. qpos and qvel follow MuJoCo, joint after
/// joint in body order: free 7 / 6 (p_WB, q_WB; v_WBo in W, w_WB in B), ball 4 / 3 (quaternion;
/// angular velocity in body axes), slide and hinge 1 / 1.
typedef enum tch_joint_type {
    TCH_JOINT_FREE = 0,
    TCH_JOINT_BALL,
    TCH_JOINT_SLIDE,
    TCH_JOINT_HINGE,
} tch_joint_type;

/// A joint between a body and its parent (MJCF `joint`); a body may carry several, which act
/// in order, each on the frame its predecessors left (docs/articulated.md). A body whose only
/// joint is free may also say so with tch_body_def.free_joint.
typedef struct tch_joint_def {
    char name[64];           ///< may be empty; unique when not empty
    tch_joint_type type;
    tch_vec3 pos;            ///< anchor in the body frame, m (hinge, ball)
    tch_vec3 axis;           ///< hinge and slide, body frame, any non-zero length
    tch_real ref;            ///< hinge and slide: the qpos at which the body sits at its pose
    tch_real stiffness;      ///< joint spring, N m/rad or N/m, >= 0
    tch_real springref;      ///< hinge and slide: the spring's rest position
    tch_real damping;        ///< N m s/rad or N s/m, >= 0
    tch_real armature;       ///< rotor inertia added to each dof, kg m^2 or kg, >= 0
    tch_real frictionloss;   ///< Coulomb joint friction, N m or N, >= 0
    bool limited;            ///< range enforced (hinge and slide)
    tch_real range[2];       ///< lower <= upper, rad or m
    /// The limit's impedance under the force models (MJCF `solreflimit`): time constant, s, and
    /// damping ratio, both > 0; MuJoCo's default (0.02, 1)
    tch_real solreflimit[2];
    tch_source source;
    int cookie;
} tch_joint_def;

/// A site: a named frame fixed to a body (MJCF `site`), for sensors and haptic tools.
typedef struct tch_site_def {
    char name[64];            ///< may be empty; unique when not empty
    tch_vec3 p_BS;            ///< position in the body frame, m
    tch_quat q_BS;            ///< orientation in the body frame (normalized on compile)
    tch_source source;
    int cookie;
} tch_site_def;

/// A geom attached to a body.
typedef struct tch_geom_def {
    char name[64];
    tch_geom_type type;
    tch_real size[3];          ///< meaning depends on type (see tch_geom_type), m
    tch_vec3 p_BG;             ///< position in the body frame, m
    tch_quat q_BG;             ///< orientation in the body frame
    tch_mesh_id mesh;          ///< for TCH_GEOM_MESH
    tch_real mass;             ///< kg; NaN: use density
    tch_real density;          ///< kg/m^3 (MJCF default 1000)
    int contype;               ///< MJCF collision bitmasks
    int conaffinity;
    tch_contact_params contact;
    char tetmesh[512];         ///< pressure model: a .vtk or .msh tet mesh for this geom, or ""
    tch_source source;
    int cookie;
} tch_geom_def;

/// A mesh asset. Vertices are copied. The geom uses the convex hull of the vertices.
typedef struct tch_mesh_def {
    char name[64];
    char file[512];            ///< path it was read from (informational), may be empty
    const tch_vec3* vertices;  ///< vertex_count points in the mesh frame, m
    int vertex_count;
    tch_vec3 scale;            ///< per-axis scale applied to the vertices
    tch_source source;
    int cookie;
} tch_mesh_def;

/// An explicit contact pair (MJCF `contact/pair`), overriding the geoms' parameters.
typedef struct tch_pair_def {
    tch_geom_id geom_a;
    tch_geom_id geom_b;
    tch_contact_params contact;
    tch_source source;
    int cookie;
} tch_pair_def;

/// A keyframe (MJCF `keyframe/key`). qpos/qvel use MuJoCo's free-joint conventions: for each
/// free body in order, qpos = (p_WB, q_WB as w x y z) and qvel = (v_WBo expressed in W,
/// w_WB expressed in B). Arrays are copied; a NULL array means "the model's default".
typedef struct tch_key_def {
    char name[64];
    tch_real time;
    const tch_real* qpos;
    int qpos_count;
    const tch_real* qvel;
    int qvel_count;
    const tch_real* ctrl;     ///< one control per actuator, or NULL (zero)
    int ctrl_count;
    tch_source source;
    int cookie;
} tch_key_def;

/// Actuator types (MJCF `motor`, `position`, `velocity`). With the actuator's length
/// l = gear q and rate l' = gear q', its force is f = ctrl (motor), kp (ctrl - l) (position) or
/// kv (ctrl - l') (velocity), and the joint receives gear f, as in MuJoCo.
typedef enum tch_actuator_type {
    TCH_ACTUATOR_MOTOR = 0,
    TCH_ACTUATOR_POSITION,
    TCH_ACTUATOR_VELOCITY,
} tch_actuator_type;

/// An actuator on a hinge or slide joint.
typedef struct tch_actuator_def {
    char name[64];
    tch_actuator_type type;
    int joint;                ///< 1-based index of a spec joint (tch_spec_add_joint)
    tch_real gear;            ///< transmission ratio (MJCF gear's first number), default 1
    tch_real kp;              ///< position gain, N m/rad or N/m (position)
    tch_real kv;              ///< velocity gain, N m s/rad or N s/m (velocity)
    bool ctrl_limited;        ///< ctrl clamped to ctrl_range
    tch_real ctrl_range[2];   ///< lower <= upper
    tch_source source;
    int cookie;
} tch_actuator_def;

/// Equality constraint types (MJCF `connect` and `weld`).
typedef enum tch_equality_type {
    TCH_EQUALITY_CONNECT = 0, ///< a point of body1 held at the same point of body2 (3 dof)
    TCH_EQUALITY_WELD,        ///< body2's pose held fixed in body1's frame (6 dof)
} tch_equality_type;

/// An equality constraint between two bodies (docs/articulated.md, "Equality constraints"):
/// a stiff spring-damper with MuJoCo's soft-constraint impedance solref (time constant,
/// damping ratio) on the constraint's effective mass at qpos0, for every contact model.
typedef struct tch_equality_def {
    char name[64];
    tch_equality_type type;
    tch_body_id body1;        ///< a body (not the world)
    tch_body_id body2;        ///< another body, or TCH_WORLD_BODY
    tch_vec3 anchor;          ///< connect: the point, body1 frame, m
    bool relpose_set;         ///< weld: relpose given; else body2's pose in body1's at qpos0
    tch_vec3 rel_p;           ///< weld: body2's origin in body1's frame, m
    tch_quat rel_q;           ///< weld: body2's orientation in body1's frame
    tch_real solref[2];       ///< time constant (s, > 0) and damping ratio (> 0); 0.02, 1
    tch_source source;
    int cookie;
} tch_equality_def;

/// Contact parameters with every field "not set".
TCH_API tch_contact_params tch_contact_params_unset(void);

TCH_API tch_option_def tch_option_def_default(void);
TCH_API tch_body_def tch_body_def_default(void);
TCH_API tch_joint_def tch_joint_def_default(void);
TCH_API tch_site_def tch_site_def_default(void);
TCH_API tch_actuator_def tch_actuator_def_default(void);
TCH_API tch_equality_def tch_equality_def_default(void);
TCH_API tch_geom_def tch_geom_def_default(void);
TCH_API tch_mesh_def tch_mesh_def_default(void);
TCH_API tch_pair_def tch_pair_def_default(void);
TCH_API tch_key_def tch_key_def_default(void);

/// A new empty spec with default options, or NULL when out of memory.
TCH_API tch_spec* tch_spec_create(void);
/// Frees the spec. NULL is allowed.
TCH_API void tch_spec_destroy(tch_spec* spec);

/// Sets the scene options (copied).
TCH_API tch_status tch_spec_set_option(tch_spec* spec, const tch_option_def* def, tch_error* err);
/// The current options (owned by the spec).
TCH_API const tch_option_def* tch_spec_option(const tch_spec* spec);

/// Adds a body; its parent must already exist. `out` may be NULL.
TCH_API tch_status tch_spec_add_body(tch_spec* spec, const tch_body_def* def, tch_body_id* out,
                                     tch_error* err);
/// Adds a joint to `body` (after the body's earlier joints). `out` (the joint's 1-based index)
/// may be NULL.
TCH_API tch_status tch_spec_add_joint(tch_spec* spec, tch_body_id body, const tch_joint_def* def,
                                      int* out, tch_error* err);
/// Adds a site to `body` (TCH_WORLD_BODY for a fixed frame).
TCH_API tch_status tch_spec_add_site(tch_spec* spec, tch_body_id body, const tch_site_def* def,
                                     tch_error* err);
/// Adds a geom to `body` (TCH_WORLD_BODY for static geometry). `out` may be NULL.
TCH_API tch_status tch_spec_add_geom(tch_spec* spec, tch_body_id body, const tch_geom_def* def,
                                     tch_geom_id* out, tch_error* err);
/// Adds a mesh asset (vertices are copied). `out` may be NULL.
TCH_API tch_status tch_spec_add_mesh(tch_spec* spec, const tch_mesh_def* def, tch_mesh_id* out,
                                     tch_error* err);
TCH_API tch_status tch_spec_add_pair(tch_spec* spec, const tch_pair_def* def, tch_error* err);
TCH_API tch_status tch_spec_add_key(tch_spec* spec, const tch_key_def* def, tch_error* err);
/// Adds an actuator (its joint must exist).
TCH_API tch_status tch_spec_add_actuator(tch_spec* spec, const tch_actuator_def* def,
                                         tch_error* err);
TCH_API int tch_spec_actuator_count(const tch_spec* spec);
TCH_API const tch_actuator_def* tch_spec_actuator(const tch_spec* spec, int index1);
/// Adds an equality constraint (its bodies must exist and differ).
TCH_API tch_status tch_spec_add_equality(tch_spec* spec, const tch_equality_def* def,
                                         tch_error* err);
TCH_API int tch_spec_equality_count(const tch_spec* spec);
TCH_API const tch_equality_def* tch_spec_equality(const tch_spec* spec, int index1);

/// Replaces the contact parameters of a geom, or of the pair of 1-based index `index1` (the
/// CLI's --set: tch_compile checks the values).
TCH_API tch_status tch_spec_set_geom_contact(tch_spec* spec, tch_geom_id id,
                                             const tch_contact_params* contact, tch_error* err);
TCH_API tch_status tch_spec_set_pair_contact(tch_spec* spec, int index1,
                                             const tch_contact_params* contact, tch_error* err);

/// Replaces a geom's definition (its size, mass, density, pose, contact parameters ...: the
/// CLI's --set geom:NAME.size and sweeps over shapes). The geom keeps its name and body; the
/// sizes its type needs must be positive (a sphere 1, a capsule and a cylinder 2, a box and
/// an ellipsoid 3); tch_compile checks the rest.
TCH_API tch_status tch_spec_update_geom(tch_spec* spec, tch_geom_id id, const tch_geom_def* def,
                                        tch_error* err);
/// Replaces a body's definition except its place in the tree: name, parent, free joint and
/// mocap flag must stay as they are (the CLI's --set body:NAME.mass).
TCH_API tch_status tch_spec_update_body(tch_spec* spec, tch_body_id id, const tch_body_def* def,
                                        tch_error* err);

/// Makes every pair use `model` at compile time, whatever the scene says (the CLI's
/// --contact). TCH_CONTACT_INHERIT restores the scene's choice.
TCH_API void tch_spec_force_contact_model(tch_spec* spec, tch_contact_model model);

/// Records a warning (for example an unknown XML element) that the caller may print.
TCH_API void tch_spec_add_warning(tch_spec* spec, const char* file, int line, const char* message);
TCH_API int tch_spec_warning_count(const tch_spec* spec);
/// The i-th warning as "file:line: message" (owned by the spec), or NULL when out of range.
TCH_API const char* tch_spec_warning(const tch_spec* spec, int i);

/// Counts and read access, for writers (export-mjcf) and tools. Indices are 1-based ids.
TCH_API int tch_spec_body_count(const tch_spec* spec);  ///< excluding the world
TCH_API int tch_spec_geom_count(const tch_spec* spec);
TCH_API int tch_spec_mesh_count(const tch_spec* spec);
TCH_API int tch_spec_pair_count(const tch_spec* spec);
TCH_API int tch_spec_key_count(const tch_spec* spec);
TCH_API int tch_spec_joint_count(const tch_spec* spec);
TCH_API int tch_spec_site_count(const tch_spec* spec);
/// The site of 1-based index `index1`, and the body it is fixed to.
TCH_API const tch_site_def* tch_spec_site(const tch_spec* spec, int index1);
TCH_API tch_body_id tch_spec_site_body(const tch_spec* spec, int index1);
/// The joint of 1-based index `index1`, and the body it moves.
TCH_API const tch_joint_def* tch_spec_joint(const tch_spec* spec, int index1);
TCH_API tch_body_id tch_spec_joint_body(const tch_spec* spec, int index1);
TCH_API const tch_body_def* tch_spec_body(const tch_spec* spec, tch_body_id id);
TCH_API const tch_geom_def* tch_spec_geom(const tch_spec* spec, tch_geom_id id);
/// Body a geom is attached to.
TCH_API tch_body_id tch_spec_geom_body(const tch_spec* spec, tch_geom_id id);
/// A mesh def whose `vertices` point into the spec's own copy.
TCH_API const tch_mesh_def* tch_spec_mesh(const tch_spec* spec, tch_mesh_id id);
TCH_API const tch_pair_def* tch_spec_pair(const tch_spec* spec, int index1);
/// A key def whose arrays point into the spec's own copy.
TCH_API const tch_key_def* tch_spec_key(const tch_spec* spec, int index1);
/// Finds by name; the null id (index 0) when absent.
TCH_API tch_body_id tch_spec_find_body(const tch_spec* spec, const char* name);
TCH_API tch_geom_id tch_spec_find_geom(const tch_spec* spec, const char* name);
TCH_API tch_mesh_id tch_spec_find_mesh(const tch_spec* spec, const char* name);
/// The 1-based index of the joint named `name`, 0 when none.
TCH_API int tch_spec_find_joint(const tch_spec* spec, const char* name);
/// Name of a joint type as in MJCF ("hinge"), "unknown" out of range.
TCH_API const char* tch_joint_type_name(tch_joint_type type);
/// The qpos (7, 4, 1, 1) and qvel (6, 3, 1, 1) entries of a joint of `type` (free, ball,
/// slide, hinge); 0 out of range.
TCH_API int tch_joint_qpos_count(tch_joint_type type);
TCH_API int tch_joint_qvel_count(tch_joint_type type);

/// Names of the enums as used in scene files ("point", "box", "rk4", ...). Never NULL.
TCH_API const char* tch_contact_model_name(tch_contact_model model);
TCH_API const char* tch_geom_type_name(tch_geom_type type);
/// What an integrator does, for reports ("semi-implicit Euler", "RK4", "linearly implicit
/// Euler"). Never NULL.
TCH_API const char* tch_integrator_description(tch_integrator integrator);
/// Parses an integrator name as in scene files ("Euler", "RK4", "implicit", "adaptive"); false
/// when unknown.
TCH_API bool tch_integrator_parse(const char* name, tch_integrator* out);
/// Name of an LCP solver as in scene files ("lemke", "pgs"). Never NULL.
TCH_API const char* tch_lcp_solver_name(tch_lcp_solver solver);
/// Parses a contact model name; false when unknown.
TCH_API bool tch_contact_model_parse(const char* name, tch_contact_model* out);

#ifdef __cplusplus
}
#endif
