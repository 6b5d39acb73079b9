/* The step of include/touche/step.h, whose diagram this file follows: tch_step =
 * tch_step_begin (kinematics, velocities, collision, forces, accelerations at the current
 * state) + tch_step_end (the integrator: semi-implicit Euler with the constraints stage between
 * its velocity and position updates, linearly implicit Euler, or RK4, whose three more
 * evaluations make the contacts part of its derivative while the step reports those of the
 * first). This file alone knows the order.
 */
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "base/error.h"
#include "collision/narrowphase.h"
#include "contact/contact.h"
#include "contact/params.h"
#include "contact/peg.h"
#include "dynamics/articulation.h"
#include "dynamics/free_body.h"
#include "dynamics/kinematics.h"
#include "engine/engine_internal.h"
#include "engine/implicit.h"
#include "engine/integrator_adaptive.h"
#include "engine/watch.h"
#include "geometry/model_shape.h"
#include "math/vec.h"
#include "touche/step.h"

/* A body faster than this is taken as diverged (runaway energy), m/s and rad/s. */
static const tch_real RUNAWAY_LINEAR_SPEED = 1e4;
static const tch_real RUNAWAY_ANGULAR_SPEED = 1e5;

/* ---- positions and velocities ---- */

/* Free bodies from their own coordinates, articulated models through their tree. */
static void positions(const tch_model* m, tch_data* d) {
    if (m->articulation) {
        tch_articulation_positions(m, d, d->internal->articulation);
    } else {
        tch_kinematics_positions(m, d);
    }
}

static void velocities(const tch_model* m, tch_data* d) {
    if (m->articulation) {
        tch_articulation_velocities(m, d, d->internal->articulation);
    } else {
        tch_kinematics_velocities(m, d);
    }
}

void tch_stage_kinematics(const tch_model* m, tch_data* d) {
    positions(m, d);
    d->internal->kinematics_current = 0; /* the velocities may be of another state */
}

void tch_stage_velocities(const tch_model* m, tch_data* d) {
    velocities(m, d);
    d->internal->kinematics_current = 0;
}

/* The kinematics and velocities stages, skipped while qpos and qvel are bit for bit those they
 * were last computed from here: tch_step_end leaves them for the new state, so the next
 * evaluation does not compute them again (step.h). Never skipped with mocap bodies, whose
 * poses the user sets between steps. */
static void update_kinematics(const tch_model* m, tch_data* d) {
    struct tch_data_internal* in = d->internal;
    size_t q = (size_t)m->nq * sizeof *d->qpos, v = (size_t)m->nv * sizeof *d->qvel;
    if (in->kinematics_current && m->mocap_count == 0 &&
        memcmp(in->kinematics_qpos, d->qpos, q) == 0 &&
        memcmp(in->kinematics_qvel, d->qvel, v) == 0) {
        return;
    }
    positions(m, d);
    velocities(m, d);
    memcpy(in->kinematics_qpos, d->qpos, q);
    memcpy(in->kinematics_qvel, d->qvel, v);
    in->kinematics_current = 1;
}

/* ---- collision ---- */

static tch_real geom_margin(const tch_model* m, int g) {
    tch_real margin = m->geom_contact[g].margin;
    return isnan(margin) ? m->contact_default.margin : margin;
}

/* MuJoCo's filter: geoms of one rigid body never collide, nor those of adjacent links;
 * otherwise the contype/conaffinity bitmasks must match in one direction, unless an explicit
 * pair names the two geoms (explicit_pair >= 0, from the model's pair table). */
static int pair_may_collide(const tch_model* m, int a, int b, int explicit_pair) {
    int root_a = m->body_root[m->geom_body[a]], root_b = m->body_root[m->geom_body[b]];
    if (root_a == root_b) {
        return 0;
    }
    /* MuJoCo's filterparent: a link and its parent link do not collide (their geoms overlap
     * at the joint) unless a pair names them; the world is no parent here, so free bodies
     * are unaffected */
    if (explicit_pair < 0 && root_a > 0 && root_b > 0 &&
        (m->body_root[m->body_parent[root_b]] == root_a ||
         m->body_root[m->body_parent[root_a]] == root_b)) {
        return 0;
    }
    return (m->geom_contype[a] & m->geom_conaffinity[b]) ||
           (m->geom_contype[b] & m->geom_conaffinity[a]) || explicit_pair >= 0;
}

/* The narrow phase's points for pair (a, b), appended to data; returns their count. */
static int narrow_phase_points(const tch_model* m, tch_data* d, tch_pair_result* pair) {
    int a = pair->geom_a, b = pair->geom_b;
    tch_shape shape_a = tch_model_geom_shape(m, a), shape_b = tch_model_geom_shape(m, b);
    tch_transform X_AB = tch_x_relative(d->geom_X_WG[a], d->geom_X_WG[b]);
    tch_manifold_point points[TCH_MANIFOLD_CAPACITY];
    tch_real margin = fmax(geom_margin(m, a), geom_margin(m, b));
    int count = tch_collide(&shape_a, &shape_b, X_AB, margin, points);
    if (count == 0 || tch_contact_reserve(d, count, 0, 0) != 0) {
        return count == 0 ? 0 : -1;
    }
    const tch_transform X_WA = d->geom_X_WG[a];
    tch_vec3 n_W = tch_q_rotate(X_WA.q, points[0].n_A);
    for (int i = 0; i < count; ++i) {
        /* a face manifold's points share their normal: rotated once (bit for bit the same) */
        if (i > 0 && memcmp(&points[i].n_A, &points[i - 1].n_A, sizeof n_W) != 0) {
            n_W = tch_q_rotate(X_WA.q, points[i].n_A);
        }
        tch_contact* c = &d->contacts[d->contact_count++];
        *c = (tch_contact){a, b, pair->model, tch_x_apply(X_WA, points[i].p_A), n_W,
                           points[i].depth, tch_v3_zero()};
    }
    pair->contact_count = count;
    return 1;
}

/* The pair's state slot, or a zeroed fresh one in `scratch` when the pair has none yet. */
static tch_pair_state* lookup_state(tch_data* d, int a, int b, tch_pair_state* scratch) {
    tch_pair_state* state = tch_pair_state_find(&d->internal->pair_states, a, b);
    if (state) {
        return state;
    }
    memset(scratch, 0, sizeof *scratch);
    scratch->geom_a = a < b ? a : b;
    scratch->geom_b = a < b ? b : a;
    scratch->fresh = 1;
    return scratch;
}

/* Marks the pair's state as seen this step, storing a fresh one; a committing evaluation
 * marks it initialised (RK4's intermediate evaluations and queries leave a new slot fresh, so
 * the model initialises it in the next step's first evaluation). -1 when out of memory. */
static int keep_state(tch_data* d, tch_pair_state* state, const tch_pair_state* scratch,
                      int commit) {
    struct tch_data_internal* in = d->internal;
    tch_pair_state* slot =
        tch_pair_state_touch(&in->pair_states, state->geom_a, state->geom_b, in->step_count);
    if (!slot) {
        return -1;
    }
    if (state == scratch) {
        memcpy(slot->bytes, scratch->bytes, sizeof slot->bytes);
    }
    slot->initialised |= commit;
    return 0;
}

/* The next pair result for (a, b): no contacts or patch yet, its parameters resolved in place
 * (once per evaluation). It is kept only when the pair touches. Everything around the
 * parameters is zeroed as two short blocks (zeroing the whole struct and then writing the
 * parameters over it took a `rep stos` of 256 bytes per pair). */
static void start_pair_result(const tch_model* m, const tch_data* d, int a, int b,
                              int explicit_pair, tch_pair_result* pair) {
    const size_t params_begin = offsetof(tch_pair_result, params);
    const size_t params_end = params_begin + sizeof pair->params;
    memset(pair, 0, params_begin);
    memset((unsigned char*)pair + params_end, 0, sizeof *pair - params_end);
    tch_pair_params_lookup(m, a, b, explicit_pair, &pair->params);
    pair->geom_a = a;
    pair->geom_b = b;
    pair->model = pair->params.model;
    pair->contact_start = d->contact_count;
    pair->polygon_start = d->polygon_count;
}

/* Runs the geometry of candidate pair (a, b) and keeps it as a pair result when touching. */
static tch_status collide_pair(const tch_model* m, tch_data* d, int a, int b, int explicit_pair,
                               tch_error* err) {
    if (tch_contact_reserve(d, 0, 0, 0) != 0) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for contacts");
    }
    tch_pair_result* pair = &d->pair_results[d->pair_result_count];
    start_pair_result(m, d, a, b, explicit_pair, pair);
    const tch_contact_ops* ops = tch_model_contact_ops(m, pair->model);
    if (!ops) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                        "contact model '%s' is not supported yet",
                        tch_contact_model_label(pair->model));
    }
    int touching;
    if (ops->pair_geometry) {
        tch_pair_state scratch;
        tch_pair_context context = {pair, NULL, d->internal->committing,
                                    d->internal->model_scratch[pair->model]};
        context.state = ops->uses_state ? lookup_state(d, a, b, &scratch) : NULL;
        int saved_contacts = d->contact_count, saved_polygons = d->polygon_count;
        int saved_vertices = d->polygon_vertex_count;
        touching = ops->pair_geometry(m, d, &context);
        if (touching == 1 && context.state &&
            keep_state(d, context.state, &scratch, context.commit) != 0) {
            touching = -1;
        }
        if (touching != 1) {
            d->contact_count = saved_contacts;
            d->polygon_count = saved_polygons;
            d->polygon_vertex_count = saved_vertices;
        }
    } else {
        touching = narrow_phase_points(m, d, pair);
        if (touching == 1 && !ops->uses_state && ops->pair_uses_state &&
            ops->pair_uses_state(m, &pair->params)) {
            tch_pair_state scratch;
            if (keep_state(d, lookup_state(d, a, b, &scratch), &scratch,
                           d->internal->committing) != 0) {
                touching = -1;
            }
        }
        if (touching == 1 && ops->complete_points) {
            tch_pair_context context = {
                pair, ops->uses_state ? tch_pair_state_find(&d->internal->pair_states, a, b) : NULL,
                d->internal->committing, d->internal->model_scratch[pair->model]};
            touching = ops->complete_points(m, d, &context) == 0 ? 1 : -1;
        }
    }
    if (touching < 0) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for contacts");
    }
    d->pair_result_count += touching;
    return TCH_OK;
}

/* Hands every model that prepares its pairs ahead (tch_contact_ops.prepare_pairs) the
 * candidate pairs it will see in the loop below, in the same order; only worth it on threads,
 * so on one thread none (which drops what an earlier evaluation left). The list lives in the
 * arena until the stage releases it. -1 when out of memory. */
static int prepare_models(const tch_model* m, tch_data* d, const tch_pair* pairs, int count) {
    count = d->thread_count > 1 ? count : 0;
    tch_pair* mine = count > 0 ? tch_arena_alloc(&d->internal->arena,
                                                 (size_t)count * sizeof *mine, "pairs to prepare")
                               : NULL;
    if (count > 0 && !mine) {
        return -1;
    }
    for (int model = 0; model < TCH_CONTACT_MODEL_END; ++model) {
        const tch_contact_ops* ops = tch_model_contact_ops(m, (tch_contact_model)model);
        if (!ops || !ops->prepare_pairs) {
            continue;
        }
        int n = 0;
        for (int i = 0; i < count; ++i) {
            int a = pairs[i].a, b = pairs[i].b, explicit_pair = tch_pair_table_find(m, a, b);
            if (pair_may_collide(m, a, b, explicit_pair) &&
                (int)tch_pair_model(m, a, b, explicit_pair) == model) {
                mine[n++] = pairs[i];
            }
        }
        ops->prepare_pairs(m, d, mine, n, d->internal->model_scratch[model]);
    }
    return 0;
}

/* How far geom g's points can move in one step at its free body's current velocity, with the
 * implicit integrator (0 otherwise): its box is grown by that much, so a pair that the step
 * brings into contact is a candidate at its start, and a model that linearizes about the
 * step's predicted pose (the pressure model's linearize_surface) sees it. */
static tch_real step_reach(const tch_model* m, const tch_data* d, int g) {
    int root = m->body_root[m->geom_body[g]];
    if (m->integrator != TCH_INTEGRATOR_IMPLICIT || !root) {
        return 0;
    }
    tch_vec3 v = tch_contact_point_velocity(m, d, g, d->geom_X_WG[g].p);
    return m->timestep * (tch_v3_norm(v) + tch_v3_norm(d->body_w_W[root]) * m->geom_rbound[g]);
}

tch_status tch_stage_collision(const tch_model* m, tch_data* d, tch_error* err) {
    struct tch_data_internal* in = d->internal;
    d->contact_count = 0;
    d->pair_result_count = 0;
    d->polygon_count = 0;
    d->polygon_vertex_count = 0;
    for (int g = 0; g < m->geom_count; ++g) {
        tch_shape shape = tch_model_geom_shape(m, g);
        tch_real reach = fmax(step_reach(m, d, g), tch_peg_geom_reach(m, d, g));
        in->geom_aabb[g] = tch_shape_aabb(&shape, d->geom_X_WG[g], geom_margin(m, g) + reach);
    }
    size_t mark = tch_arena_mark(&in->arena);
    tch_pair* pairs = NULL;
    int count = tch_broadphase_find_pairs(in->broadphase, in->geom_aabb, in->geom_static,
                                          m->geom_count, &in->arena, &pairs);
    if (count < 0) {
        tch_arena_release(&in->arena, mark);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory in the broad phase");
    }
    d->broadphase_pair_count = count;
    tch_status status = TCH_OK;
    if (prepare_models(m, d, pairs, count) != 0) {
        status = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for contacts");
    }
    for (int i = 0; i < count && status == TCH_OK; ++i) {
        int a = pairs[i].a, b = pairs[i].b, explicit_pair = tch_pair_table_find(m, a, b);
        if (pair_may_collide(m, a, b, explicit_pair)) {
            status = collide_pair(m, d, a, b, explicit_pair, err);
        }
    }
    tch_arena_release(&in->arena, mark);
    return status;
}

/* ---- forces and accelerations ---- */

/* The context of pair result i for its model's force functions. */
static tch_pair_context pair_context(const tch_model* m, tch_data* d, const tch_contact_ops* ops,
                                     int i) {
    tch_pair_result* pair = &d->pair_results[i];
    tch_pair_state* state =
        tch_contact_pair_uses_state(m, ops, &pair->params)
            ? tch_pair_state_find(&d->internal->pair_states, pair->geom_a, pair->geom_b)
            : NULL;
    return (tch_pair_context){pair, state, d->internal->committing,
                              d->internal->model_scratch[pair->model]};
}

/* Does a pair of the step take friction forces from the velocity prediction? */
static bool has_friction_forces(const tch_model* m, const tch_data* d) {
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_contact_ops* ops = tch_model_contact_ops(m, d->pair_results[i].model);
        if (ops->kind == TCH_CONTACT_KIND_FORCE && ops->friction_forces) {
            return true;
        }
    }
    return false;
}

/* The forces stage; with the implicit integrator, *implicit receives the factored system
 * (in the arena: the caller releases it) that corrected friction's prediction. */
static tch_status forces(const tch_model* m, tch_data* d, tch_implicit_system** implicit,
                         tch_error* err) {
    for (int b = 0; b < m->body_count; ++b) {
        tch_real mass = m->body_free[b] ? m->body_total_mass[b] : 0;
        d->body_force_W[b] = tch_v3_madd(d->body_force_applied_W[b], mass, m->gravity);
        d->body_torque_W[b] = d->body_torque_applied_W[b];
    }
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_contact_ops* ops = tch_model_contact_ops(m, d->pair_results[i].model);
        if (ops->kind == TCH_CONTACT_KIND_FORCE) {
            tch_pair_context context = pair_context(m, d, ops, i);
            ops->normal_forces(m, d, &context);
        }
    }
    if (m->integrator != TCH_INTEGRATOR_IMPLICIT && !has_friction_forces(m, d)) {
        return TCH_OK; /* no prediction to make (a scene of constraint pairs only, or none) */
    }
    tch_velocity_prediction* prediction = &d->internal->prediction;
    tch_contact_predict_velocities(m, d, m->timestep, prediction);
    if (m->articulation) {
        tch_status s = tch_articulation_predict_links(m, d, d->internal->articulation, prediction,
                                                      err);
        if (s != TCH_OK) {
            return s;
        }
    }
    if (m->integrator == TCH_INTEGRATOR_IMPLICIT) {
        tch_status s = tch_implicit_prepare(m, d, implicit, err);
        if (s != TCH_OK) {
            return s;
        }
        tch_implicit_correct_prediction(*implicit, m, d, prediction);
    }
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_contact_ops* ops = tch_model_contact_ops(m, d->pair_results[i].model);
        if (ops->kind == TCH_CONTACT_KIND_FORCE && ops->friction_forces) {
            tch_pair_context context = pair_context(m, d, ops, i);
            ops->friction_forces(m, d, &context, prediction);
        }
    }
    return TCH_OK;
}

tch_status tch_stage_forces(const tch_model* m, tch_data* d, tch_error* err) {
    size_t mark = tch_arena_mark(&d->internal->arena);
    tch_implicit_system* implicit = NULL;
    tch_status s = forces(m, d, &implicit, err);
    tch_arena_release(&d->internal->arena, mark);
    return s;
}

/* The step over which qacc is a velocity change divided by it, with the free bodies'
 * gyroscopic term implicit (semi-implicit Euler and the linearly implicit step:
 * dynamics/free_body.h); 0 where qacc is the time derivative (RK4, the adaptive integrator,
 * whose own stages handle the term). */
static tch_real velocity_step(const tch_model* m) {
    bool derivative =
        m->integrator == TCH_INTEGRATOR_RK4 || m->integrator == TCH_INTEGRATOR_ADAPTIVE;
    return derivative ? 0 : m->timestep;
}

static tch_status compute_accelerations(const tch_model* m, tch_data* d, tch_error* err) {
    if (m->articulation) {
        return tch_articulation_accelerations(m, d, d->internal->articulation, err);
    }
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b]) {
            tch_free_body_acceleration(m, d->qpos, d->qvel, b, d->body_force_W[b],
                                       d->body_torque_W[b], velocity_step(m), d->qacc);
        }
    }
    return TCH_OK;
}

/* The whole pipeline at the current state, ending with qacc (with the implicit integrator,
 * the implicit step's dv / h). */
static tch_status evaluate(const tch_model* m, tch_data* d, tch_error* err) {
    update_kinematics(m, d);
    tch_status s = tch_stage_collision(m, d, err);
    size_t mark = tch_arena_mark(&d->internal->arena);
    tch_implicit_system* implicit = NULL;
    if (s == TCH_OK) {
        s = forces(m, d, &implicit, err);
    }
    if (s == TCH_OK) {
        s = compute_accelerations(m, d, err);
    }
    if (s == TCH_OK) {
        if (implicit) {
            tch_implicit_correct_accelerations(implicit, m, d);
        }
    }
    tch_arena_release(&d->internal->arena, mark);
    return s;
}

tch_status tch_forward(const tch_model* m, tch_data* d, tch_error* err) {
    d->internal->committing = 0;
    return evaluate(m, d, err);
}

/* The planar mode (docs/planar.md): a velocity set from outside (a keyframe, the API) may
 * leave the plane; the step starts from its planar part. */
static void project_planar(const tch_model* m, tch_data* d) {
    for (int b = 1; b < m->body_count && m->planar != TCH_PLANAR_NONE; ++b) {
        if (m->body_free[b]) {
            tch_free_body_project_planar(m, d->qpos, d->qvel, b);
        }
    }
}

tch_status tch_step_begin(const tch_model* m, tch_data* d, tch_error* err) {
    if (tch_arena_grow_if_needed(&d->internal->arena) > 0) {
        d->warning_count[TCH_WARN_ARENA_GROWN]++;
    }
    project_planar(m, d);
    d->internal->committing = 1;
    tch_status s = evaluate(m, d, err);
    d->internal->committing = 0;
    if (s == TCH_OK && !m->articulation) { /* the watch knows free bodies only */
        tch_watch_step(m, d, d->internal->watch);
    }
    return s;
}

/* ---- constraints ---- */

void tch_stage_constraints(const tch_model* m, tch_data* d) {
    tch_constraint_stage(m, d, m->timestep);
}

/* ---- integration ---- */

/* v += h qacc. */
static void integrate_velocities(const tch_model* m, tch_data* d) {
    for (int i = 0; i < m->nv; ++i) {
        d->qvel[i] += m->timestep * d->qacc[i];
    }
}

/* q += h v (free bodies and joints; rotations exact for the body-frame rate). */
static void integrate_positions(const tch_model* m, tch_data* d) {
    if (m->articulation) {
        tch_articulation_advance_positions(m->articulation, d->qpos, d->qvel, m->timestep);
        return;
    }
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b]) {
            tch_free_body_advance_position(m, d->qpos, d->qvel, b, m->timestep);
        }
    }
}

static void semi_implicit_euler(const tch_model* m, tch_data* d) {
    integrate_velocities(m, d);
    tch_stage_constraints(m, d);
    integrate_positions(m, d);
}

/* qpos_rate[nq] of the current (qpos, qvel). */
static void qpos_rates(const tch_model* m, const tch_data* d, tch_real* rate) {
    if (m->articulation) {
        tch_tree_qpos_rate(m->articulation->tree, d->qpos, d->qvel, rate);
        return;
    }
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b]) {
            tch_free_body_qpos_rate(m, d->qpos, d->qvel, b, rate + m->body_qpos_adr[b]);
        }
    }
}

/* A copy of the contact outputs (points, pair results, polygons), so that the step reports
 * those of its first evaluation after RK4's later evaluations overwrote them. */
typedef struct contact_snapshot {
    tch_contact* contacts;
    tch_pair_result* pairs;
    tch_contact_polygon* polygons;
    tch_vec3* vertices;
    tch_real* pressures;
    int contact_count, pair_count, polygon_count, vertex_count;
} contact_snapshot;

/* memcpy of count elements; nothing (and no NULL pointer passed) when count is 0. */
static void copy_elements(void* dst, const void* src, int count, size_t size) {
    if (count > 0) {
        memcpy(dst, src, (size_t)count * size);
    }
}

/* Copies count elements of `size` bytes from src to a new arena block. */
static void* arena_copy(tch_arena* arena, const void* src, int count, size_t size) {
    void* dst = tch_arena_alloc(arena, (size_t)count * size, "contact snapshot");
    copy_elements(dst, src, count, size);
    return dst;
}

static void snapshot_take(tch_data* d, contact_snapshot* s) {
    tch_arena* arena = &d->internal->arena;
    s->contact_count = d->contact_count;
    s->pair_count = d->pair_result_count;
    s->polygon_count = d->polygon_count;
    s->vertex_count = d->polygon_vertex_count;
    s->contacts = arena_copy(arena, d->contacts, s->contact_count, sizeof *s->contacts);
    s->pairs = arena_copy(arena, d->pair_results, s->pair_count, sizeof *s->pairs);
    s->polygons = arena_copy(arena, d->polygons, s->polygon_count, sizeof *s->polygons);
    s->vertices = arena_copy(arena, d->polygon_vertices_W, s->vertex_count, sizeof *s->vertices);
    s->pressures =
        arena_copy(arena, d->polygon_vertex_pressure, s->vertex_count, sizeof *s->pressures);
}

/* Restores a snapshot; the buffers only ever grow, so they hold it. */
static void snapshot_restore(tch_data* d, const contact_snapshot* s) {
    d->contact_count = s->contact_count;
    d->pair_result_count = s->pair_count;
    d->polygon_count = s->polygon_count;
    d->polygon_vertex_count = s->vertex_count;
    copy_elements(d->contacts, s->contacts, s->contact_count, sizeof *s->contacts);
    copy_elements(d->pair_results, s->pairs, s->pair_count, sizeof *s->pairs);
    copy_elements(d->polygons, s->polygons, s->polygon_count, sizeof *s->polygons);
    copy_elements(d->polygon_vertices_W, s->vertices, s->vertex_count, sizeof *s->vertices);
    copy_elements(d->polygon_vertex_pressure, s->pressures, s->vertex_count,
                  sizeof *s->pressures);
}

typedef struct rk4_scratch {
    tch_real *qpos0, *qvel0, *qpos_sum, *qvel_sum, *qpos_rate;
    contact_snapshot contacts0;
} rk4_scratch;

static void rk4_allocate(const tch_model* m, tch_data* d, rk4_scratch* s) {
    tch_arena* arena = &d->internal->arena;
    size_t q = (size_t)m->nq * sizeof(tch_real), v = (size_t)m->nv * sizeof(tch_real);
    s->qpos0 = tch_arena_alloc(arena, q, "rk4 qpos0");
    s->qvel0 = tch_arena_alloc(arena, v, "rk4 qvel0");
    s->qpos_sum = tch_arena_alloc(arena, q, "rk4 qpos sum");
    s->qvel_sum = tch_arena_alloc(arena, v, "rk4 qvel sum");
    s->qpos_rate = tch_arena_alloc(arena, q, "rk4 qpos rate");
    snapshot_take(d, &s->contacts0);
    memcpy(s->qpos0, d->qpos, q);
    memcpy(s->qvel0, d->qvel, v);
    memset(s->qpos_sum, 0, q);
    memset(s->qvel_sum, 0, v);
}

/* Adds weight * (current rates) to the sums, then moves the state to y0 + step * rates. */
static void rk4_stage(const tch_model* m, tch_data* d, rk4_scratch* s, tch_real weight,
                      tch_real step) {
    qpos_rates(m, d, s->qpos_rate);
    for (int i = 0; i < m->nq; ++i) {
        s->qpos_sum[i] += weight * s->qpos_rate[i];
    }
    for (int i = 0; i < m->nv; ++i) {
        s->qvel_sum[i] += weight * d->qacc[i];
    }
    if (step > 0) {
        for (int i = 0; i < m->nq; ++i) {
            d->qpos[i] = s->qpos0[i] + step * s->qpos_rate[i];
        }
        for (int i = 0; i < m->nv; ++i) {
            d->qvel[i] = s->qvel0[i] + step * d->qacc[i];
        }
    }
}

/* Classical RK4: y1 = y0 + h/6 (k1 + 2 k2 + 2 k3 + k4); k1 from tch_step_begin. */
static tch_status runge_kutta_4(const tch_model* m, tch_data* d, tch_error* err) {
    tch_real h = m->timestep;
    size_t mark = tch_arena_mark(&d->internal->arena);
    rk4_scratch s;
    rk4_allocate(m, d, &s);
    static const tch_real weights[4] = {1, 2, 2, 1};
    static const tch_real fractions[4] = {0.5, 0.5, 1, 0};
    tch_status status = TCH_OK;
    for (int k = 0; k < 4 && status == TCH_OK; ++k) {
        rk4_stage(m, d, &s, weights[k], fractions[k] * h);
        if (k < 3) {
            status = evaluate(m, d, err);
        }
    }
    if (status == TCH_OK) {
        for (int i = 0; i < m->nq; ++i) {
            d->qpos[i] = s.qpos0[i] + h / 6 * s.qpos_sum[i];
        }
        for (int i = 0; i < m->nv; ++i) {
            d->qvel[i] = s.qvel0[i] + h / 6 * s.qvel_sum[i];
        }
        if (m->articulation) {
            tch_tree_normalize_quaternions(m->articulation->tree, d->qpos);
        } else {
            tch_free_bodies_normalize(m, d->qpos);
        }
        snapshot_restore(d, &s.contacts0);
    }
    tch_arena_release(&d->internal->arena, mark);
    return status;
}

/* ARKODE's implicit Runge-Kutta over the whole pipeline (engine/integrator_adaptive.h); the
 * step reports the contacts of its first evaluation, as RK4's. */
static tch_status adaptive(const tch_model* m, tch_data* d, tch_error* err) {
    size_t mark = tch_arena_mark(&d->internal->arena);
    contact_snapshot contacts0;
    snapshot_take(d, &contacts0);
    tch_status s = tch_adaptive_advance(m, d, &d->internal->adaptive, evaluate, err);
    if (s == TCH_OK) {
        snapshot_restore(d, &contacts0);
    }
    tch_arena_release(&d->internal->arena, mark);
    return s;
}

/* The constraints stage sits in semi-implicit Euler alone (as io/compile.c refuses constraint
 * models with RK4): the linearly implicit step has no place for it. */
static tch_status refuse_constraint_pairs(const tch_model* m, const tch_data* d,
                                          tch_error* err) {
    for (int i = 0; i < d->pair_result_count; ++i) {
        tch_contact_model model = d->pair_results[i].model;
        if (tch_model_contact_ops(m, model)->kind != TCH_CONTACT_KIND_FORCE) {
            return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                            "contact model '%s' (geoms '%s' and '%s') needs the semi-implicit "
                            "Euler integrator (option integrator=\"Euler\"); the scene uses "
                            "the implicit integrator, which takes force models only",
                            tch_contact_model_label(model),
                            m->geom_name[d->pair_results[i].geom_a],
                            m->geom_name[d->pair_results[i].geom_b]);
        }
    }
    return TCH_OK;
}

/* Linearly implicit Euler (engine/implicit.h): qacc already holds the implicit step's dv / h,
 * so the update is semi-implicit Euler's, without the constraints stage. */
static tch_status linearly_implicit_euler(const tch_model* m, tch_data* d, tch_error* err) {
    tch_status s = refuse_constraint_pairs(m, d, err);
    if (s == TCH_OK) {
        integrate_velocities(m, d);
        integrate_positions(m, d);
    }
    return s;
}

/* The joint whose entries (first at `adr` of each joint, in order) hold index i. */
static int joint_holding(const tch_model* m, const int* adr, int i) {
    int j = 0;
    while (j + 1 < m->joint_count && adr[j + 1] <= i) {
        ++j;
    }
    return j;
}

/* An articulated model's state: NaN anywhere or a dof beyond the angular runaway limit (rad/s
 * or m/s) names the joint's body. */
static tch_status check_joint_divergence(const tch_model* m, const tch_data* d, tch_error* err) {
    int body = 0;
    bool finite = true;
    for (int i = 0; i < m->nq && body == 0; ++i) {
        if (!isfinite(d->qpos[i])) {
            body = m->joint_body[joint_holding(m, m->joint_qpos_adr, i)], finite = false;
        }
    }
    for (int i = 0; i < m->nv && body == 0; ++i) {
        if (!(fabs(d->qvel[i]) <= RUNAWAY_ANGULAR_SPEED)) {
            body = m->joint_body[joint_holding(m, m->joint_qvel_adr, i)];
            finite = isfinite(d->qvel[i]);
        }
    }
    if (body == 0) {
        return TCH_OK;
    }
    return tch_fail(err, TCH_ERR_DIVERGED, NULL, 0,
                    "simulation diverged at t = %.6g s: body '%s' %s", d->time, m->body_name[body],
                    finite ? "ran away (a joint speed beyond 1e5 rad/s or m/s)"
                           : "has a non-finite state");
}

/* NaN anywhere, or a body faster than the runaway limits: names the body and the time. */
static tch_status check_divergence(const tch_model* m, const tch_data* d, tch_error* err) {
    if (m->articulation) {
        return check_joint_divergence(m, d, err);
    }
    for (int b = 1; b < m->body_count; ++b) {
        if (!m->body_free[b]) {
            continue;
        }
        const tch_real* q = d->qpos + m->body_qpos_adr[b];
        const tch_real* v = d->qvel + m->body_qvel_adr[b];
        int finite = 1;
        for (int i = 0; i < 7; ++i) finite &= isfinite(q[i]);
        for (int i = 0; i < 6; ++i) finite &= isfinite(v[i]);
        tch_real linear = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        tch_real angular = sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5]);
        if (!finite || linear > RUNAWAY_LINEAR_SPEED || angular > RUNAWAY_ANGULAR_SPEED) {
            return tch_fail(err, TCH_ERR_DIVERGED, NULL, 0,
                            "simulation diverged at t = %.6g s: body '%s' %s", d->time,
                            m->body_name[b],
                            finite ? "ran away (speed beyond 1e4 m/s or 1e5 rad/s)"
                                   : "has a non-finite state");
        }
    }
    return TCH_OK;
}

tch_status tch_step_end(const tch_model* m, tch_data* d, tch_error* err) {
    tch_status s = TCH_OK;
    if (m->integrator == TCH_INTEGRATOR_RK4) {
        s = runge_kutta_4(m, d, err);
    } else if (m->integrator == TCH_INTEGRATOR_IMPLICIT) {
        s = linearly_implicit_euler(m, d, err);
    } else if (m->integrator == TCH_INTEGRATOR_ADAPTIVE) {
        s = adaptive(m, d, err);
    } else {
        semi_implicit_euler(m, d);
    }
    if (s != TCH_OK) {
        return s;
    }
    d->time += m->timestep;
    tch_pair_state_sweep(&d->internal->pair_states, d->internal->step_count);
    d->internal->step_count++;
    tch_data_update_allocation_count(d);
    s = check_divergence(m, d, err);
    if (s == TCH_OK) {
        update_kinematics(m, d);
    }
    return s;
}

tch_status tch_step(const tch_model* m, tch_data* d, tch_error* err) {
    tch_status s = tch_step_begin(m, d, err);
    return s == TCH_OK ? tch_step_end(m, d, err) : s;
}
