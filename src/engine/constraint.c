/* The constraints stage (engine/constraint.h, docs/contact-lcp.md), in this order:
 *
 *     1. the bodies' velocities v* (from qvel) and kinetic energies at the step's start
 *     2. every constraint pair's model describes its rows into the sink (build_rows,
 *        contact/rows.h): per contact a normal row, its friction, targets and warm start
 *     3. islands (constraint_islands.c): connected components through the contacts
 *     4. each island sleeps (held at its warm start), or is solved by a model that solves its
 *        islands itself (constraint_model_solve.c: peg), or along the solver chain
 *        (constraint_chain.c), which applies M⁻¹ Jᵀ p to the velocities
 *     5. qvel from the velocities; every model gets its contacts' impulses back
 *        (take_impulses: it reports the forces and keeps its warm starts)
 *     6. position correction (constraint_position.c)
 *
 * The engine reads the rows' data, never what they mean to their model.
 */
#include "engine/constraint_stage.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dynamics/contact_space.h"
#include "dynamics/free_body.h"
#include "engine/constraint_model_solve.h"

static int is_constraint_pair(const tch_model* m, const tch_pair_result* pair) {
    const tch_contact_ops* ops = tch_model_contact_ops(m, pair->model);
    return ops && ops->kind == TCH_CONTACT_KIND_CONSTRAINT;
}

int tch_constraint_workspace_init(tch_constraint_workspace* ws, const tch_model* m) {
    ws->island_parent = calloc((size_t)m->body_count, sizeof *ws->island_parent);
    ws->rest_steps = calloc((size_t)m->body_count, sizeof *ws->rest_steps);
    ws->reach = calloc((size_t)m->body_count, sizeof *ws->reach);
    ws->subspace = tch_sparse_spd_create();
    ws->observer = NULL;
    ws->observer_user = NULL;
    if (!ws->island_parent || !ws->rest_steps || !ws->reach || !ws->subspace) {
        return -1;
    }
    for (int g = 0; g < m->geom_count; ++g) {
        int root = tch_constraint_root(m, g);
        ws->reach[root] = fmax(ws->reach[root], m->geom_rbound[g]);
    }
    return 0;
}

void tch_constraint_workspace_free(tch_constraint_workspace* ws) {
    free(ws->island_parent);
    free(ws->rest_steps);
    free(ws->reach);
    tch_sparse_spd_destroy(ws->subspace);
    ws->island_parent = NULL;
    ws->rest_steps = NULL;
    ws->reach = NULL;
    ws->subspace = NULL;
}

static int step_has_constraint_pairs(const tch_model* m, const tch_data* d) {
    for (int i = 0; i < d->pair_result_count; ++i) {
        if (is_constraint_pair(m, &d->pair_results[i])) {
            return 1;
        }
    }
    return 0;
}

/* ---- the models' rows ---- */

/* The velocity of body's material point at r from its centre of mass for per-body velocities
 * (v, w) (centre of mass, world). */
static inline tch_vec3 point_velocity(const tch_vec3* v, const tch_vec3* w, int body, tch_vec3 r) {
    return tch_v3_add(v[body], tch_v3_cross(w[body], r));
}

/* The velocities of geom's material point at p_W at the step's start (*before) and from the
 * stage's velocities (*now); zero for the world. */
static inline void geom_point_velocities(const tch_constraint_run* s, int geom, tch_vec3 p_W,
                                         tch_vec3* before, tch_vec3* now) {
    int body = tch_constraint_root(s->m, geom);
    if (body == 0) {
        *before = *now = tch_v3_zero();
        return;
    }
    tch_vec3 r = tch_v3_sub(p_W, s->d->body_p_WCm[body]);
    *before = point_velocity(s->d->body_v_WCm, s->d->body_w_W, body, r);
    *now = tch_constraint_is_link(s->m, body) ? tch_constraint_link_point_velocity(s, body, p_W)
                                              : point_velocity(s->v, s->w, body, r);
}

/* The sink's relative_velocity. */
static void sink_relative_velocity(const tch_row_sink* sink, int geom_a, int geom_b,
                                   tch_vec3 p_W, tch_vec3* before, tch_vec3* now) {
    const tch_constraint_run* s = sink->engine;
    tch_vec3 before_a, now_a, before_b, now_b;
    geom_point_velocities(s, geom_a, p_W, &before_a, &now_a);
    geom_point_velocities(s, geom_b, p_W, &before_b, &now_b);
    *before = tch_v3_sub(before_b, before_a);
    *now = tch_v3_sub(now_b, now_a);
}

/* The next entry, zeroed, for the pair being described (the entries grow geometrically in the
 * arena). */
tch_constraint_contact* tch_constraint_add_contact(tch_constraint_run* s) {
    if (s->contact_count == s->contact_capacity) {
        int capacity = 2 * s->contact_capacity + 16;
        tch_constraint_contact* grown =
            tch_arena_alloc(s->arena, (size_t)capacity * sizeof *grown, "constraint contacts");
        if (!grown) {
            return NULL;
        }
        if (s->contact_count > 0) {
            memcpy(grown, s->contacts, (size_t)s->contact_count * sizeof *grown);
        }
        s->contacts = grown;
        s->contact_capacity = capacity;
    }
    tch_constraint_contact* cr = &s->contacts[s->contact_count];
    *cr = (tch_constraint_contact){.entry = s->contact_count++, .pair = s->current_pair};
    return cr;
}

/* The sink's add_contact. */
static tch_row_contact* sink_add_contact(tch_row_sink* sink) {
    tch_constraint_contact* cr = tch_constraint_add_contact(sink->engine);
    return cr ? &cr->row : NULL;
}

/* The context of constraint pair i for its model. */
static tch_pair_context constraint_context(const tch_constraint_run* s, int i) {
    return (tch_pair_context){&s->d->pair_results[i], s->states[i], s->d->internal->committing,
                              s->d->internal->model_scratch[s->d->pair_results[i].model]};
}

/* Each pair's constraint model (NULL for a force model's pair), and the pair states of those
 * whose models keep one, created when new and marked seen this step. Touching first and
 * looking up after keeps the pointers valid (touching may move the table). */
static int recall_constraint_pairs(tch_constraint_run* s) {
    tch_data* d = s->d;
    struct tch_data_internal* in = d->internal;
    size_t count = (size_t)d->pair_result_count;
    s->ops = tch_arena_alloc(s->arena, count * sizeof *s->ops, "constraint pair models");
    s->states = tch_arena_alloc(s->arena, count * sizeof *s->states, "constraint pair states");
    if (!s->ops || !s->states) {
        return -1;
    }
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* pair = &d->pair_results[i];
        s->ops[i] = is_constraint_pair(s->m, pair) ? tch_model_contact_ops(s->m, pair->model)
                                                   : NULL;
        if (s->ops[i] && s->ops[i]->uses_state &&
            !tch_pair_state_touch(&in->pair_states, pair->geom_a, pair->geom_b, in->step_count)) {
            return -1;
        }
    }
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* pair = &d->pair_results[i];
        s->states[i] = s->ops[i] && s->ops[i]->uses_state
                           ? tch_pair_state_find(&in->pair_states, pair->geom_a, pair->geom_b)
                           : NULL;
    }
    return 0;
}

/* Every constraint pair's model describes its rows (tch_contact_ops.build_rows), in pair
 * order. Returns 0, -1 when out of memory. */
static int collect_rows(tch_constraint_run* s) {
    tch_data* d = s->d;
    s->pair_start = tch_arena_alloc(s->arena, ((size_t)d->pair_result_count + 1) * sizeof(int),
                                    "constraint pair starts");
    if (!s->pair_start) {
        return -1;
    }
    tch_row_sink sink = {s->h, sink_add_contact, sink_relative_velocity, s};
    s->contact_count = 0;
    s->contact_capacity = d->contact_count + 1; /* lcp's: one per contact */
    s->contacts = tch_arena_alloc(s->arena, (size_t)s->contact_capacity * sizeof *s->contacts,
                                  "constraint contacts");
    if (!s->contacts) {
        return -1;
    }
    for (int i = 0; i < d->pair_result_count; ++i) {
        s->pair_start[i] = s->contact_count;
        if (!s->ops[i]) {
            continue;
        }
        s->current_pair = i;
        tch_pair_context context = constraint_context(s, i);
        if (s->ops[i]->build_rows(s->m, d, &context, &sink) != 0) {
            return -1;
        }
    }
    s->pair_start[d->pair_result_count] = s->contact_count;
    if (tch_constraint_add_joint_rows(s) != 0) { /* after every pair's: not handed back */
        return -1;
    }
    s->impulses = tch_arena_alloc(s->arena, ((size_t)s->contact_count + 1) * sizeof *s->impulses,
                                  "constraint impulses");
    if (!s->impulses) {
        return -1;
    }
    for (int i = 0; i < s->contact_count; ++i) {
        s->impulses[i].solved = 0; /* until its island is solved or held */
    }
    return 0;
}

/* Hands every constraint pair's model the impulses of its rows (tch_contact_ops.take_impulses). */
static void hand_back_impulses(tch_constraint_run* s) {
    tch_data* d = s->d;
    for (int i = 0; i < d->pair_result_count; ++i) {
        if (s->ops[i]) {
            tch_pair_context context = constraint_context(s, i);
            s->ops[i]->take_impulses(s->m, d, &context, s->impulses + s->pair_start[i],
                                     s->pair_start[i + 1] - s->pair_start[i]);
        }
    }
}

/* Body velocities from qvel (v*), the world inertias of the kinematics outputs, and the kinetic
 * energies of the step's start from the velocities the step started from (data->body_v_WCm,
 * body_w_W). */
static int read_bodies(tch_constraint_run* s) {
    const tch_model* m = s->m;
    size_t nb = (size_t)m->body_count;
    s->v = tch_arena_alloc(s->arena, nb * sizeof *s->v, "lcp v");
    s->w = tch_arena_alloc(s->arena, nb * sizeof *s->w, "lcp w");
    s->kinetic_start = tch_arena_alloc(s->arena, nb * sizeof *s->kinetic_start, "lcp energy");
    s->I_W = s->d->body_I_W;
    s->I_inv_W = s->d->body_I_inv_W;
    s->moved = tch_arena_alloc(s->arena, nb, "lcp moved");
    if (!s->v || !s->w || !s->kinetic_start || !s->moved) {
        return -1;
    }
    memset(s->moved, 0, nb);
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b] && !tch_constraint_is_link(m, b)) {
            s->kinetic_start[b] =
                tch_constraint_kinetic_energy(s, b, s->d->body_v_WCm[b], s->d->body_w_W[b]);
            tch_free_body_com_velocity(m, s->d->qpos, s->d->qvel, b, &s->v[b], &s->w[b]);
        } else if (m->articulation) { /* links move in qvel (constraint_tree.c) */
            s->kinetic_start[b] = 0;
            s->v[b] = s->w[b] = tch_v3_zero();
        }
    }
    return 0;
}

static int prepare(tch_constraint_run* s, int* island_parent) {
    if (read_bodies(s) != 0 || tch_constraint_tree_prepare(s) != 0 ||
        recall_constraint_pairs(s) != 0 || collect_rows(s) != 0) {
        return -1;
    }
    return tch_constraint_group_islands(s, island_parent);
}

/* Keeps contact cr's impulse, the impulse to warm-start its next step from and its rows'
 * velocity errors for its model (hand_back_impulses). */
void tch_constraint_keep_impulse(tch_constraint_run* s, const tch_constraint_contact* cr,
                                 tch_vec3 impulse, tch_vec3 warm, const tch_real* error) {
    tch_row_impulse* out = &s->impulses[cr->entry];
    out->solved = 1;
    out->impulse_W = impulse;
    out->warm[0] = tch_v3_dot(warm, cr->row.n_W);
    out->warm[1] = tch_v3_dot(warm, cr->row.t1_W);
    out->warm[2] = tch_v3_dot(warm, cr->row.t2_W);
    for (int k = 0; k < 3; ++k) {
        out->error[k] = error[k];
    }
}

/* qvel of every body an impulse reached, from (v_WCm, w_W). */
static void write_velocities(const tch_constraint_run* s) {
    for (int b = 1; b < s->m->body_count; ++b) {
        if (s->moved[b]) {
            tch_contact_space_write_body_velocity(s->m, s->d->qpos, s->d->qvel, b, s->v[b],
                                                  s->w[b]);
        }
    }
}

void tch_constraint_stage(const tch_model* m, tch_data* d, tch_real h) {
    d->constraint_island_count = 0;
    d->constraint_iterations = 0;
    d->constraint_residual = 0;
    d->constraint_failed_islands = 0;
    d->constraint_sleeping_islands = 0;
    memset(d->constraint_path_islands, 0, sizeof d->constraint_path_islands);
    if (!step_has_constraint_pairs(m, d) && !tch_constraint_joint_rows_due(m, d, h)) {
        memset(d->internal->constraint.rest_steps, 0, (size_t)m->body_count * sizeof(int));
        return;
    }
    struct tch_data_internal* in = d->internal;
    tch_constraint_run s;
    memset(&s, 0, sizeof s);
    s.m = m, s.d = d, s.h = h, s.arena = &in->arena, s.subspace = in->constraint.subspace;
    size_t mark = tch_arena_mark(s.arena);
    if (prepare(&s, in->constraint.island_parent) != 0) {
        d->constraint_failed_islands = 1; /* out of memory: no impulse this step */
    } else {
        bool* held = tch_arena_alloc(s.arena, (size_t)s.island_count + 1, "lcp held");
        for (int k = 0; k < s.island_count; ++k) {
            bool sleeps = held && tch_constraint_island_sleeps(&s, k);
            if (held) {
                held[k] = sleeps;
            }
            if (sleeps) {
                tch_constraint_hold_island(&s, k);
            } else if (!tch_constraint_model_solve_island(&s, k)) {
                tch_constraint_solve_island(&s, k);
            }
        }
        if (held) {
            tch_constraint_count_rest_steps(&s, held);
        }
        write_velocities(&s);
        hand_back_impulses(&s);
        tch_constraint_correct_positions(&s);
        d->constraint_island_count = s.island_count;
    }
    tch_arena_release(s.arena, mark);
}
