/* One interface for all contact models. Their part of the step (the whole step is the
 * diagram of include/touche/step.h):
 *
 *     collision stage:  candidate pairs -> narrow phase (-> complete_points: lcp's points kept
 *                       from the last step) -> data->contacts, grouped per pair in
 *                       data->pair_results (points with normal and depth, forces zero)
 *     forces stage:     (1) for each pair result, its model's normal forces
 *                       (2) every body's velocity after one step under the loads so far
 *                           (gravity, applied, normal forces): tch_contact_predict_velocities
 *                       (3) for each pair result, its model's friction forces, which see
 *                           those predicted velocities
 *
 * Splitting normal and friction forces makes friction semi-implicit: it opposes the slip the
 * step is about to produce, so it can hold a body still against gravity exactly instead of
 * letting it creep at the speed one step of gravity gives (see docs/contact-point.md).
 *
 * Models of kind FORCE (point, volume, pressure) add wrenches as above. Models of kind
 * CONSTRAINT (lcp, peg) add none here: in the constraints stage (tch_stage_constraints, between
 * semi-implicit Euler's velocity and position updates) each describes its pairs' rows
 * (build_rows, contact/rows.h) and receives their impulses back (take_impulses); the engine
 * owns the islands, the solvers and their fallbacks, sleeping and position correction. A model
 * may find its own contact geometry (pair_geometry: the volume model's overlap polyhedron, the
 * pressure model's contact surface) instead of taking the narrow phase's points, keep per-pair
 * state across steps (uses_state), and compile per-geom data into the model (build_geoms).
 *
 * The engine never looks inside a model: it calls the table below. A model that this build
 * does not offer has a NULL entry and the compiler refuses scenes that use it, so the step
 * never meets one.
 */
#pragma once

#include "collision/broadphase.h"
#include "contact/pair_state.h"
#include "contact/params.h"
#include "contact/rows.h"
#include "touche/data.h"

/* Every free root's velocity after one step of h under its current loads, kept up to date as
 * friction forces are added (tch_contact_apply_friction). Arrays [body_count], owned by the
 * engine; entries of non-root bodies are unused. The inverse inertias it uses are the
 * kinematics outputs (tch_data.body_I_inv_W). */
typedef struct tch_velocity_prediction {
    tch_real h;
    tch_vec3* v_WCm;      /* predicted centre-of-mass velocity, world */
    tch_vec3* w_W;        /* predicted angular velocity, world */
    /* [body_count] in articulated models (else NULL): how each link of a tree answers a
     * wrench, filled with the link's prediction by the engine (dynamics/articulation.h) */
    struct tch_link_mobility* links;
} tch_velocity_prediction;

/* A link's velocity change over one step h under a wrench (f, tau about its centre of mass):
 * dv = h (v_f f + v_tau tau), dw = h (v_tau^T f + w_tau tau), the link's 6x6 block of the
 * contact-space inverse inertia J A^-1 J^T at its centre of mass (Ruspini and Khatib,
 * seeds/003 eq. 4), with J its world Jacobian. What the joints forbid, it does not move; the
 * coupling to other links of the tree is left out (each link answers its own wrenches). A body
 * with `joined` 0 answers as a free body (1 / m, I^-1). */
typedef struct tch_link_mobility {
    int joined;
    tch_mat3 v_f, v_tau, w_tau;
} tch_link_mobility;

/* The mobility of root's link in a prediction, NULL for a body that moves as a free body. */
static inline const tch_link_mobility* tch_prediction_link(const tch_velocity_prediction* p,
                                                           int root) {
    return p->links && p->links[root].joined ? &p->links[root] : NULL;
}

typedef enum tch_contact_kind {
    TCH_CONTACT_KIND_FORCE = 0,
    TCH_CONTACT_KIND_CONSTRAINT,
} tch_contact_kind;

/* What a model sees of one touching pair in one evaluation of the pipeline. */
typedef struct tch_pair_context {
    tch_pair_result* pair;  /* geoms, resolved params, its points and polygons in data */
    tch_pair_state* state;  /* the pair's persistent slot (uses_state models), else NULL */
    int commit;             /* 1 in a step's first evaluation: models advance their state only
                             * then (RK4's intermediate evaluations and queries must not) */
    void* scratch;          /* the model's working memory in this data (scratch_create), or NULL */
} tch_pair_context;

/* A pair's contact forces linearized about the current state (docs/integrators.md). Each body
 * moves by a displacement of its centre of mass and a small rotation, both world (δ, φ), at the
 * rates (v_WCm, w_W); its generalized force is the force on its centre of mass and the torque
 * about it, world. Rows and columns are ordered (a, b) for the roots of geom a and geom b, each
 * (translation, rotation); those of a static root are filled and meaningless. The stiffness
 * ∂(f_a, τ_a, f_b, τ_b) / ∂(δ_a, φ_a, δ_b, φ_b) is K + G:
 *     K  the springs' stiffness carried to the bodies (symmetric, negative semidefinite for
 *        passive springs),
 *     G  the geometric part: the wrench carried along as the contact frame turns and its point
 *        moves (of the order of the force times the lever arms, not symmetric),
 * and D = ∂(f_a, τ_a, f_b, τ_b) / ∂(v_a, w_a, v_b, w_b). */
typedef struct tch_pair_linearization {
    int geometric;      /* set by the caller: 1 to have G filled, 0 to leave it alone */
    tch_real K[12][12];
    tch_real G[12][12];
    tch_real D[12][12];
} tch_pair_linearization;

/* One rank-one term of a pair's linearization (docs/integrators.md): a spring k and a damper b
 * along the direction u over the rows (a, b) of tch_pair_linearization, K += -k u u^T and
 * D += -b u u^T (a point's normal spring: u = (-j_a, j_b), j = (n, r x n)). The parts of u of
 * a static root are meaningless. */
typedef struct tch_rank_one_term {
    tch_real u[12];
    tch_real k, b;
} tch_rank_one_term;

/* A penalty wrench described for linearization: force F_W at o_W plus moment M_W on geom b's
 * body (the opposite on a's). o_W lies midway between the two surfaces, `depth` apart along
 * the normal n_W (from a into b). K and D (6x6) are the local derivatives of (F, moment about
 * o) with respect to the displacement of b's material point at o relative to a's and the
 * relative rotation (b's minus a's), and to their rates. How the contact frame itself moves
 * (the geometric terms, docs/integrators.md): against a static body the plane stays with it and
 * o slides with the free body's surface point; between two free bodies both follow the mean of
 * the two motions. */
typedef struct tch_wrench_linearization {
    tch_vec3 o_W, n_W, F_W, M_W;
    tch_real depth;
    tch_real K[6][6];
    tch_real D[6][6];
} tch_wrench_linearization;

/* What a model's build_geoms reads from the scene beyond the compiled model. */
typedef struct tch_geom_sources {
    const char* const* tetmesh_files; /* [geom_count] each geom's touche:tetmesh, or "" */
    const char* const* mesh_files;    /* [mesh_count] each mesh asset's file, or "" (inline) */
    const tch_vec3* mesh_scale;       /* [mesh_count] the scale applied to its file's vertices */
    const tch_transform* mesh_X_MI;   /* [mesh_count] its geoms' frame I in the file frame M */
} tch_geom_sources;

typedef struct tch_contact_ops {
    const char* name; /* in scenes (touche:contact) and outputs: the one place a model is named */
    tch_contact_kind kind;
    int uses_state;
    /* Optional, for a model without pair_geometry whose uses_state is 0: 1 when a touching pair
     * with these parameters keeps a state slot all the same, created by the collision stage
     * (the point model's impact memory when its restitution acts, contact/restitution.h). */
    int (*pair_uses_state)(const tch_model* model, const tch_pair_params* params);
    /* Optional: the model's compiled per-geom data (the volume model's convex pieces, the
     * pressure model's tet meshes and surfaces), built by the compiler once when a pair of the
     * scene may use the model. *geoms receives it, also when the build fails part way, and the
     * model keeps it (tch_contact_model_geoms) until free_geoms. Errors name the geom. */
    tch_status (*build_geoms)(const tch_model* model, const tch_geom_sources* sources,
                              void** geoms, tch_error* err);
    void (*free_geoms)(const tch_model* model, void* geoms);
    /* Optional. The model's own geometry for candidate pair->geom_a/b: appends the pair's points
     * and polygons after tch_contact_reserve and fills the patch fields of pair. Returns 1 when
     * touching, 0 when apart (the engine then discards what was appended), -1 when out of
     * memory. NULL: the narrow phase's points are the pair's geometry. */
    int (*pair_geometry)(const tch_model* model, tch_data* data, tch_pair_context* context);
    /* Optional, for models with pair_geometry. Called by the collision stage once per
     * evaluation, before any pair_geometry call of it, with the candidate pairs of this model
     * in the order their pair_geometry calls will come (broad-phase order, pairs[i].a =
     * geom_a) when the data asks for more than one thread (tch_data.thread_count), else with
     * none (count 0). The model may compute their geometry ahead (e.g. on its threads) into
     * its scratch and hand it out in pair_geometry; it reads data only, and pair_geometry must
     * give the same bits whether or not this ran. */
    void (*prepare_pairs)(const tch_model* model, const tch_data* data, const tch_pair* pairs,
                          int count, void* scratch);
    /* FORCE models: sets f_W of the pair's points to their normal forces and applies them with
     * tch_contact_apply_force. */
    void (*normal_forces)(const tch_model* model, tch_data* data, tch_pair_context* context);
    /* FORCE models, optional: adds the friction forces, applied with tch_contact_apply_friction
     * so that the prediction follows. */
    void (*friction_forces)(const tch_model* model, tch_data* data, tch_pair_context* context,
                            tch_velocity_prediction* prediction);
    /* Optional: working memory the model keeps per data (NULL when out of memory), and its
     * release. */
    void* (*scratch_create)(void);
    void (*scratch_destroy)(void* scratch);
    /* FORCE models, optional: the pair's forces linearized about the current state, after the
     * forces stage (the implicit integrator, docs/integrators.md). NULL: the integrator treats
     * the pair's forces explicitly. */
    void (*linearize)(const tch_model* model, const tch_data* data,
                      const tch_pair_context* context, tch_pair_linearization* out);
    /* FORCE models with linearize, optional: the same K and D (without G) as rank-one terms,
     * at most `capacity` of them into terms; returns their count, or -1 when the pair needs
     * more (the integrator then calls linearize). The implicit integrator assembles and
     * multiplies these at a fraction of the work of K and D's 12x12 blocks. */
    int (*linearize_terms)(const tch_model* model, const tch_data* data,
                           const tch_pair_context* context, tch_rank_one_term* terms,
                           int capacity);
    /* Optional, for models without pair_geometry: called by the collision stage after the
     * narrow phase has appended the pair's points, which it may reorder and add to (after
     * tch_contact_reserve; pair->contact_count grows): the lcp model's points kept from the last
     * step. context->state is the pair's slot when it has one (not created here), else NULL.
     * Returns 0, or -1 when out of memory. */
    int (*complete_points)(const tch_model* model, tch_data* data, tch_pair_context* context);
    /* CONSTRAINT models: describes the pair's rows into the sink (contact/rows.h), one
     * tch_row_contact per sink->add_contact. Returns 0, or -1 when out of memory. */
    int (*build_rows)(const tch_model* model, const tch_data* data, tch_pair_context* context,
                      tch_row_sink* sink);
    /* CONSTRAINT models: the impulses of the rows build_rows described for the pair in this
     * evaluation, in its order (count of them), after the solve: the model reports them as its
     * contacts' forces (impulse / model->timestep, tch_contact_apply_force) and keeps what it
     * needs (warm starts) in its pair state. */
    void (*take_impulses)(const tch_model* model, tch_data* data, tch_pair_context* context,
                          const tch_row_impulse* impulses, int count);
    /* CONSTRAINT models, optional: solves an island that holds rows of this model (and maybe
     * of others) itself, in place of the engine's solver chain (contact/rows.h,
     * tch_row_island; engine/constraint_model_solve.c). Returns 0, or -1 when it cannot (the
     * engine then solves the rows as they are described, through its chain). */
    int (*solve_island)(const tch_model* model, const tch_data* data, void* scratch,
                        tch_row_island* island);
    /* FORCE models: 1 when the unset parameters are physical values (not derived from the
     * time step) that need the implicit integrator: a scene that names no integrator then
     * gets it (io/compile.c, docs/integrators.md). */
    int physical_defaults;
} tch_contact_ops;

/* Whether a pair of `ops` with these parameters has a state slot (uses_state or
 * pair_uses_state). */
static inline int tch_contact_pair_uses_state(const tch_model* model, const tch_contact_ops* ops,
                                              const tch_pair_params* params) {
    return ops->uses_state || (ops->pair_uses_state && ops->pair_uses_state(model, params));
}

/* Makes room for `points` more contacts, one more pair result, `polygons` more polygons and
 * `vertices` more polygon vertices in data's buffers (grown geometrically, counted in
 * data->buffer_growth_count). Returns 0, or -1 when out of memory. */
int tch_contact_reserve(tch_data* data, int points, int polygons, int vertices);

/* The ops of `model`, or NULL when this build does not offer it. */
const tch_contact_ops* tch_contact_model_ops(tch_contact_model model);

/* The ops that compiled `model` runs for pairs of contact model `slot`: those it was given by
 * tch_model_replace_contact_ops, else tch_contact_model_ops(slot). The step asks here. */
const tch_contact_ops* tch_model_contact_ops(const tch_model* model, tch_contact_model slot);

/* Makes `model` run `ops` for the pairs of `slot` (NULL: the built-in table again), e.g. a model
 * of one's own behind a slot the scene names; of the same kind as the slot's, and before any
 * data of the model is made. Per model: nothing global changes. */
void tch_model_replace_contact_ops(tch_model* model, tch_contact_model slot,
                                   const tch_contact_ops* ops);

/* The name of `model` in scenes and outputs: its ops' name, or, for "inherit" and the models
 * this build does not offer (peg), contact.c's; "unknown" out of range. Every other place
 * (touche/spec.h's tch_contact_model_name, the MJCF reader) takes names from here. */
const char* tch_contact_model_label(tch_contact_model model);

/* What tch_model keeps beyond its public arrays (model->internal), built by io/compile.c. */
struct tch_model_internal {
    void* model_geoms[TCH_CONTACT_MODEL_END]; /* each model's build_geoms result, or NULL */
    tch_pair_table pairs;                     /* the explicit pairs by geoms (params.h) */
    const tch_contact_ops* ops[TCH_CONTACT_MODEL_END]; /* replacements of the built-in tables
                                                        * (tch_model_replace_contact_ops) */
};

/* The per-geom data that `model`'s build_geoms made for this model (NULL when no pair of the
 * scene uses it). */
static inline const void* tch_contact_model_geoms(const tch_model* model,
                                                  tch_contact_model contact_model) {
    return model->internal->model_geoms[contact_model];
}

/* Adds force f_W (on geom b's body, -f_W on a's) acting at p_W: to the bodies' totals (about
 * their centres of mass) and to the pair's net force and torque about the world origin. */
void tch_contact_apply_force(const tch_model* model, tch_data* data, tch_pair_result* pair,
                             tch_vec3 p_W, tch_vec3 f_W);

/* Adds a pure moment m_W (world) on geom b's body and -m_W on a's, and to the pair's net
 * torque. */
void tch_contact_apply_moment(const tch_model* model, tch_data* data, tch_pair_result* pair,
                              tch_vec3 m_W);

/* The speed below which a contact that still touches is settling on it rather than leaving
 * it: 4 |g| h, a few steps of what gravity adds to a speed. A force model linearized for the
 * implicit step keeps such a contact's stiffness even when its force is clamped at zero or
 * the step's predictor takes it apart (point.c, pressure.c): a resting body sinks far less
 * than gravity moves it in a step, so the step that lifts it back leaves it rising at up to
 * g h / 2, and without the stiffness it fell through the next step, every other step. */
tch_real tch_contact_settling_speed(const tch_model* model);

/* Velocity of the material point at p_W of geom g's body, world (zero for static bodies). */
tch_vec3 tch_contact_point_velocity(const tch_model* model, const tch_data* data, int geom,
                                    tch_vec3 p_W);

/* The change (dv, dw) of a link's predicted motion under the wrench (f, tau about its centre
 * of mass) over h (tch_link_mobility). */
void tch_link_velocity_change(const tch_link_mobility* link, tch_real h, tch_vec3 f_W,
                              tch_vec3 tau_W, tch_vec3* dv, tch_vec3* dw);

/* Fills the prediction from the bodies' current velocities, forces and torques, every root as
 * a free body (the engine then predicts the links of articulated models). */
void tch_contact_predict_velocities(const tch_model* model, const tch_data* data, tch_real h,
                                    tch_velocity_prediction* prediction);

/* Predicted velocity of the material point at p_W of geom g's body (zero for static bodies). */
tch_vec3 tch_contact_predicted_point_velocity(const tch_model* model, const tch_data* data,
                                              const tch_velocity_prediction* prediction,
                                              int geom, tch_vec3 p_W);

/* tch_contact_apply_force, and the change of the predicted velocities that the force makes. */
void tch_contact_apply_friction(const tch_model* model, tch_data* data,
                                tch_velocity_prediction* prediction, tch_pair_result* pair,
                                tch_vec3 p_W, tch_vec3 f_W);

/* Adds to `out` the body-level Jacobians of the wrench `w` of `pair` (docs/integrators.md):
 * its local stiffness and damping carried to both bodies' centres of mass (K, D) and the
 * geometric terms of the turning plane and the moving point (G). */
void tch_contact_linearize_wrench(const tch_model* model, const tch_data* data,
                                  const tch_pair_result* pair,
                                  const tch_wrench_linearization* w,
                                  tch_pair_linearization* out);

/* The models (contact/point.c, contact/volume.c). */
extern const tch_contact_ops tch_point_ops;
extern const tch_contact_ops tch_lcp_ops;
extern const tch_contact_ops tch_volume_ops;
extern const tch_contact_ops tch_pressure_ops;

/* The volume model's linearize op (contact/volume_linearize.c). */
void tch_volume_linearize(const tch_model* model, const tch_data* data,
                          const tch_pair_context* context, tch_pair_linearization* out);
