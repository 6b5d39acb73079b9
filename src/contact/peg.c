/* The peg contact model: the geometrically exact polytope contact model of Williams, Lu and
 * Trinkle (2017, seed 001; ../shared/reference/peg.md), docs/peg.md.
 *
 *     compile:      every box, convex mesh and plane geom's features (collision/features.h); a
 *                   plane is the box under its surface (a polyhedral approximation, docs/peg.md);
 *                   a curved geom that a peg pair may meet is refused, naming it
 *     collision:    per candidate pair (pair_geometry), the U/I/X constraints of the two posed
 *                   polytopes within the pair's proximity (its margin, contact/peg_constraints.h),
 *                   kept in the model's scratch by pair; one reported contact per constraint, at
 *                   its primary (eq. 24), depth = -max psi (> 0 only when it is violated)
 *     constraints:  one tch_row_contact per constraint (build_rows), which places the pair in
 *                   the engine's islands; the engine hands every island with peg rows to
 *                   peg_solve_island, which assembles the mixed LCP of eqs. 39-49 over the
 *                   island's bodies and solves it by Lemke (contact/peg_lcp.h) and returns the
 *                   velocities and each constraint's impulse (take_impulses reports them as
 *                   forces). When Lemke fails, or the island also holds other models' rows,
 *                   the engine solves the described rows instead: one row per constraint at its
 *                   primary, aiming at J v+ >= -max psi / h (the standard model at the
 *                   constraint's value; counted as a fallback)
 *
 * Stabilization is the LCP's own psi / h (eq. 44): no split-impulse push.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "contact/contact.h"
#include "contact/peg.h"
#include "contact/peg_lcp.h"
#include "contact/peg_planar.h"
#include "contact/planar.h"
#include "geometry/model_shape.h"

/* An infinite plane (size 0) as a box of this half extent, m. */
static const tch_real PLANE_EXTENT = 1e3;

typedef struct peg_geoms {
    int count;
    tch_features* features; /* [count]; zeroed for the geoms peg never meets */
    bool* built;
} peg_geoms;

/* What identifies a constraint from one step to the next (its warm start). */
typedef struct peg_key {
    int kind, source, feature_a, feature_b, count, unknowns;
    int primary_a, primary_b; /* its primary contact's features */
} peg_key;

/* A geom pair's last LCP solution, per constraint (the warm start of the next step's Lemke). */
typedef struct peg_memory {
    int geom_a, geom_b;
    tch_real last_seen;    /* the time of its pair's last evaluation with constraints, s */
    int count, capacity;   /* constraints */
    peg_key* keys;         /* [capacity] */
    tch_vec3* impulses;    /* [capacity] each one's last impulse on B (world), N s */
    int* start;            /* [capacity + 1] offsets into z */
    int z_capacity;
    tch_real* z;
} peg_memory;

/* The model's working memory per data: each pair result's constraints, kept across steps
 * (the lists grow and are reused), the pairs' warm starts, and counts for reports. */
typedef struct peg_scratch {
    int capacity;
    tch_peg_constraints* lists; /* [capacity] by index into data->pair_results */
    int* slot_memory;           /* [capacity] each pair result's memory */
    int memory_count, memory_capacity;
    peg_memory* memories;       /* one per geom pair touching now (a pair's state holds its
                                 * index + 1); a pair's memory is free once the pair had no
                                 * constraint for a step (its state was dropped: separated) */
    tch_peg_report report;
    tch_peg_planar_scratch planar; /* the planar mode's polygons */
} peg_scratch;

/* ---- compile: features ---- */

static bool is_polytope(int type) {
    return type == TCH_GEOM_BOX || type == TCH_GEOM_MESH || type == TCH_GEOM_PLANE;
}

/* A plane (the half-space z <= 0 of its frame) as the box below its surface: the plane's half
 * extents (PLANE_EXTENT when infinite) and as deep as its smaller one. */
static tch_status plane_features(const tch_shape* plane, const char* name, tch_features* out,
                                 tch_error* err) {
    tch_real hx = plane->size[0] > 0 ? plane->size[0] : PLANE_EXTENT;
    tch_real hy = plane->size[1] > 0 ? plane->size[1] : PLANE_EXTENT;
    tch_real hz = fmin(hx, hy);
    tch_shape box = {.type = TCH_GEOM_BOX, .size = {hx, hy, hz}};
    tch_polytope poly;
    tch_polytope_init(&poly, &box);
    tch_status s = tch_features_build(&poly, name, out, err);
    if (s == TCH_OK) {
        for (int v = 0; v < out->vertex_count; ++v) {
            out->vertices[v].z -= hz;
        }
        out->centre.z -= hz;
    }
    return s;
}

static tch_status geom_features(const tch_model* m, int g, tch_features* out, tch_error* err) {
    tch_shape shape = tch_model_geom_shape(m, g);
    const char* name = m->geom_name ? m->geom_name[g] : NULL;
    if (shape.type == TCH_GEOM_PLANE) {
        return plane_features(&shape, name, out, err);
    }
    tch_polytope poly;
    tch_polytope_init(&poly, &shape);
    return tch_features_build(&poly, name, out, err);
}

static const char* curved_name(int type) {
    switch (type) {
    case TCH_GEOM_SPHERE: return "sphere";
    case TCH_GEOM_CAPSULE: return "capsule";
    case TCH_GEOM_ELLIPSOID: return "ellipsoid";
    case TCH_GEOM_CYLINDER: return "cylinder";
    default: return "curved shape";
    }
}

/* A geom of another body that g may meet under peg. */
static int peg_partner(const tch_model* m, int g) {
    for (int other = 0; other < m->geom_count; ++other) {
        int explicit_pair = tch_pair_table_find(m, g, other);
        bool may_touch = (m->geom_contype[g] & m->geom_conaffinity[other]) ||
                         (m->geom_contype[other] & m->geom_conaffinity[g]) || explicit_pair >= 0;
        if (m->body_root[m->geom_body[g]] != m->body_root[m->geom_body[other]] && may_touch &&
            tch_pair_model(m, g, other, explicit_pair) == TCH_CONTACT_PEG) {
            return other;
        }
    }
    return -1;
}

static tch_status peg_build_geoms(const tch_model* m, const tch_geom_sources* sources,
                                  void** geoms, tch_error* err) {
    (void)sources;
    peg_geoms* g = calloc(1, sizeof *g);
    *geoms = g;
    size_t n = (size_t)(m->geom_count > 0 ? m->geom_count : 1);
    if (g) {
        g->count = m->geom_count;
        g->features = calloc(n, sizeof *g->features);
        g->built = calloc(n, sizeof *g->built);
    }
    if (!g || !g->features || !g->built) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for peg's features");
    }
    for (int i = 0; i < m->geom_count; ++i) {
        if (!is_polytope(m->geom_type[i])) {
            int other = peg_partner(m, i);
            if (other >= 0) {
                return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                                "contact model 'peg' takes polytopes (box, convex mesh, plane): "
                                "geom '%s' is curved (a %s) and may touch geom '%s' under "
                                "peg; give it a box or mesh, or another contact model",
                                m->geom_name[i], curved_name(m->geom_type[i]),
                                m->geom_name[other]);
            }
            continue;
        }
        tch_status s = geom_features(m, i, &g->features[i], err);
        if (s != TCH_OK) {
            return s;
        }
        g->built[i] = true;
    }
    return TCH_OK;
}

static void peg_free_geoms(const tch_model* m, void* geoms) {
    (void)m;
    peg_geoms* g = geoms;
    for (int i = 0; g && g->features && i < g->count; ++i) {
        tch_features_free(&g->features[i]);
    }
    if (g) {
        free(g->features);
        free(g->built);
    }
    free(g);
}

/* ---- scratch ---- */

static void* peg_scratch_create(void) {
    return calloc(1, sizeof(peg_scratch));
}

static void peg_scratch_destroy(void* scratch) {
    peg_scratch* s = scratch;
    for (int i = 0; s && i < s->capacity; ++i) {
        tch_peg_constraints_free(&s->lists[i]);
    }
    for (int i = 0; s && i < s->memory_count; ++i) {
        free(s->memories[i].keys);
        free(s->memories[i].impulses);
        free(s->memories[i].start);
        free(s->memories[i].z);
    }
    if (s) {
        free(s->planar.points);
        free(s->lists);
        free(s->slot_memory);
        free(s->memories);
    }
    free(s);
}

/* Grows *array (elements of `size` bytes, *capacity of them) to hold `needed`; doubles.
 * Returns 0, -1 when out of memory. */
static int grow(void** array, int* capacity, int needed, size_t size) {
    if (needed <= *capacity) {
        return 0;
    }
    int grown = *capacity > 0 ? 2 * *capacity : 16;
    grown = grown > needed ? grown : needed;
    void* p = realloc(*array, (size_t)grown * size);
    if (!p) {
        return -1;
    }
    *array = p;
    *capacity = grown;
    return 0;
}

static int reserve_lists(peg_scratch* s, int needed) {
    if (needed <= s->capacity) {
        return 0;
    }
    int old = s->capacity, memory_capacity = s->capacity;
    if (grow((void**)&s->slot_memory, &memory_capacity, needed, sizeof(int)) != 0 ||
        grow((void**)&s->lists, &s->capacity, memory_capacity, sizeof *s->lists) != 0) {
        s->capacity = old;
        return -1;
    }
    for (int i = old; i < s->capacity; ++i) {
        tch_peg_constraints_init(&s->lists[i]);
    }
    return 0;
}

/* The memory of geom pair (a, b) whose state holds *handle (its index + 1, 0: none yet),
 * touching at time `now` (steps of h): its own while it keeps touching, else a free one (of a
 * pair that touched neither in this step nor in the last: separated), else a new one; so the
 * memories are as many as the pairs touching in two consecutive steps, and a pair that
 * separated and meets again starts cold, as its state does. -1 when out of memory. */
static int pair_memory(peg_scratch* s, int a, int b, tch_real now, tch_real h, int* handle) {
    int found = *handle > 0 && *handle <= s->memory_count ? *handle - 1 : -1;
    if (found >= 0 && (s->memories[found].geom_a != a || s->memories[found].geom_b != b)) {
        found = -1; /* taken over by another pair, or a state restored from a checkpoint */
    }
    for (int i = 0; found < 0 && i < s->memory_count; ++i) {
        found = s->memories[i].last_seen < now - 1.5 * h ? i : -1;
    }
    if (found < 0) {
        if (grow((void**)&s->memories, &s->memory_capacity, s->memory_count + 1,
                 sizeof *s->memories) != 0) {
            return -1;
        }
        s->memories[s->memory_count] = (peg_memory){0};
        found = s->memory_count++;
        s->report.memories = s->memory_count;
    }
    peg_memory* memory = &s->memories[found];
    if (memory->geom_a != a || memory->geom_b != b || *handle != found + 1) {
        memory->geom_a = a;
        memory->geom_b = b;
        memory->count = 0; /* the arrays are kept for the next pair */
    }
    memory->last_seen = now;
    *handle = found + 1;
    return found;
}

/* ---- collision: the constraints of a pair ---- */

/* The free root that moves geom g (0: the world, or a body that does not move freely). */
static int moving_root(const tch_model* m, int g) {
    int root = m->body_root[m->geom_body[g]];
    return m->body_free[root] ? root : 0;
}

static tch_vec3 centre_of_mass(const tch_model* m, const tch_data* d, int g) {
    int root = moving_root(m, g);
    return root ? d->body_p_WCm[root] : d->geom_X_WG[g].p;
}

/* The default proximity's factor on the distance a pair's closing speed covers in one step
 * (docs/peg.md, "Proximity"): 2 leaves room for the speed to double within the step. */
static const tch_real SPEED_PROXIMITY_FACTOR = 2;

/* The margin of the paper's default proximity (io/compile.c gives it to a geom whose scene
 * sets none), which the closing speed then widens. */
static tch_real paper_proximity(const tch_model* m) {
    return tch_features_default_proximity(tch_is_planar(m) ? 2 : 3, m->timestep);
}

/* How fast geom g's points move at most: its origin's speed plus its spin times its bounding
 * radius, m/s (0 for a geom of the world). */
static tch_real geom_speed_bound(const tch_model* m, const tch_data* d, int g, tch_vec3* v) {
    int root = moving_root(m, g);
    *v = root ? tch_contact_point_velocity(m, d, g, d->geom_X_WG[g].p) : tch_v3_zero();
    return root ? tch_v3_norm(d->body_w_W[root]) * m->geom_rbound[g] : 0;
}

tch_peg_params tch_peg_pair_params(const tch_model* m, const tch_data* d,
                                   const tch_pair_result* pair) {
    tch_peg_params params = tch_peg_params_default(tch_is_planar(m) ? 2 : 3, m->timestep);
    tch_real margin = pair->params.margin;
    if (margin > 0) {
        params.proximity = margin;
    }
    if (margin == paper_proximity(m)) {
        tch_vec3 v_a, v_b;
        tch_real spin = geom_speed_bound(m, d, pair->geom_a, &v_a) +
                        geom_speed_bound(m, d, pair->geom_b, &v_b);
        tch_real closing = tch_v3_dist(v_a, v_b) + spin;
        params.proximity = fmax(margin, SPEED_PROXIMITY_FACTOR * m->timestep * closing);
    }
    return params;
}

tch_real tch_peg_geom_reach(const tch_model* m, const tch_data* d, int g) {
    const peg_geoms* geoms = tch_contact_model_geoms(m, TCH_CONTACT_PEG);
    tch_real margin = m->geom_contact[g].margin;
    margin = isnan(margin) ? m->contact_default.margin : margin;
    if (!geoms || !geoms->built[g] || margin != paper_proximity(m)) {
        return 0;
    }
    tch_vec3 v;
    tch_real spin = geom_speed_bound(m, d, g, &v);
    return SPEED_PROXIMITY_FACTOR * m->timestep * (tch_v3_norm(v) + spin);
}

static int peg_pair_geometry(const tch_model* m, tch_data* d, tch_pair_context* context) {
    peg_scratch* s = context->scratch;
    tch_pair_result* pair = context->pair;
    int slot = (int)(pair - d->pair_results);
    const peg_geoms* g = tch_contact_model_geoms(m, TCH_CONTACT_PEG);
    int a = pair->geom_a, b = pair->geom_b;
    if (!s || reserve_lists(s, slot + 1) != 0) {
        return -1;
    }
    if (!g->built[a] || !g->built[b]) {
        return 0; /* compile refuses the pairs that reach here */
    }
    tch_peg_params params = tch_peg_pair_params(m, d, pair);
    tch_peg_constraints* list = &s->lists[slot];
    tch_status built =
        tch_is_planar(m)
            ? tch_peg_constraints_build_planar(&g->features[a], d->geom_X_WG[a],
                                               centre_of_mass(m, d, a), &g->features[b],
                                               d->geom_X_WG[b], centre_of_mass(m, d, b),
                                               &params, &s->planar, list, NULL)
            : tch_peg_constraints_build(&g->features[a], d->geom_X_WG[a],
                                        centre_of_mass(m, d, a), &g->features[b],
                                        d->geom_X_WG[b], centre_of_mass(m, d, b), &params,
                                        list, NULL);
    if (built != TCH_OK) {
        return -1; /* the parameters were checked at compile: out of memory */
    }
    if (list->count == 0) {
        return 0;
    }
    s->slot_memory[slot] = pair_memory(s, a, b, d->time, m->timestep, (int*)context->state->bytes);
    if (s->slot_memory[slot] < 0 || tch_contact_reserve(d, list->count, 0, 0) != 0) {
        return -1;
    }
    for (int k = 0; k < list->count; ++k) {
        const tch_peg_contact* primary = &list->contacts[list->constraints[k].first];
        d->contacts[d->contact_count++] =
            (tch_contact){a, b, pair->model, primary->point_a, primary->normal,
                          -tch_peg_constraint_value(list, k), tch_v3_zero()};
    }
    pair->contact_count = list->count;
    return 1;
}

const tch_peg_constraints* tch_peg_pair_constraints(const void* scratch, int pair) {
    const peg_scratch* s = scratch;
    return s && pair >= 0 && pair < s->capacity ? &s->lists[pair] : NULL;
}

/* ---- constraints stage ---- */

static int remembered_constraint(const tch_model* m, const peg_scratch* s, int slot,
                                 const tch_pair_result* pair,
                                 int constraint, tch_real h);

/* One row per constraint at its primary (the engine's islands, and its fallback solve), with
 * the constraint's last impulse as its warm start when the pair's memory has it (then the row
 * is `remembered`, and an island of such rows may sleep). */
static int peg_build_rows(const tch_model* m, const tch_data* d, tch_pair_context* context,
                          tch_row_sink* sink) {
    const peg_scratch* s = context->scratch;
    const tch_pair_result* pair = context->pair;
    const tch_peg_constraints* list = &s->lists[pair - d->pair_results];
    for (int k = 0; k < list->count; ++k) {
        const tch_peg_constraint* c = &list->constraints[k];
        const tch_peg_contact* primary = &list->contacts[c->first];
        tch_row_contact* row = sink->add_contact(sink);
        if (!row) {
            return -1;
        }
        row->geom_a = pair->geom_a;
        row->geom_b = pair->geom_b;
        row->p_W = primary->point_a;
        row->n_W = primary->normal;
        tch_planar_basis(m, primary->normal, &row->t1_W, &row->t2_W);
        row->mu = c->kind == TCH_PEG_X ? 0 : pair->params.friction;
        row->cone_edges = row->mu > 0 ? (int)pair->params.cone_edges : 0;
        row->target = -tch_peg_constraint_value(list, k) / sink->h;
        int found = remembered_constraint(m, s, (int)(pair - d->pair_results), pair, k,
                                          sink->h);
        if (found >= 0) {
            tch_vec3 impulse = s->memories[s->slot_memory[pair - d->pair_results]].impulses[found];
            row->remembered = 1;
            row->warm[0] = tch_v3_dot(impulse, row->n_W);
            row->warm[1] = tch_v3_dot(impulse, row->t1_W);
            row->warm[2] = tch_v3_dot(impulse, row->t2_W);
        }
    }
    return 0;
}

static void peg_take_impulses(const tch_model* m, tch_data* d, tch_pair_context* context,
                              const tch_row_impulse* impulses, int count) {
    tch_pair_result* pair = context->pair;
    tch_real inverse_h = 1 / m->timestep;
    for (int k = 0; k < count; ++k) {
        tch_contact* c = &d->contacts[pair->contact_start + k];
        if (impulses[k].solved) {
            c->f_W = tch_v3_scale(impulses[k].impulse_W, inverse_h);
            tch_contact_apply_force(m, d, pair, c->p_W, c->f_W);
        }
    }
}

/* ---- warm starts ---- */

static peg_key constraint_key(const tch_peg_pair* pair, int i, const tch_peg_step_options* o) {
    const tch_peg_constraint* c = &pair->constraints->constraints[i];
    const tch_peg_contact* primary = &pair->constraints->contacts[c->first];
    return (peg_key){c->kind, c->source, c->feature_a, c->feature_b, c->count,
                     tch_peg_constraint_unknowns(pair, i, o), primary->feature_a,
                     primary->feature_b};
}

static bool same_key(const peg_key* a, const peg_key* b) {
    return memcmp(a, b, sizeof *a) == 0;
}

/* The remembered constraint with this key (`guess` first: the same place), or -1. */
static int find_key(const peg_memory* memory, const peg_key* key, int guess) {
    if (guess < memory->count && same_key(&memory->keys[guess], key)) {
        return guess;
    }
    for (int i = 0; i < memory->count; ++i) {
        if (same_key(&memory->keys[i], key)) {
            return i;
        }
    }
    return -1;
}

/* The pair's unknowns from its memory: each constraint's last solution when it was there. */
static void recall_unknowns(const peg_memory* memory, const tch_peg_pair* pair,
                            const tch_peg_step_options* o) {
    int at = 0;
    for (int i = 0; i < pair->constraints->count; ++i) {
        peg_key key = constraint_key(pair, i, o);
        int found = find_key(memory, &key, i);
        for (int k = 0; k < key.unknowns; ++k) {
            pair->unknowns[at + k] = found >= 0 ? memory->z[memory->start[found] + k] : 0;
        }
        at += key.unknowns;
    }
}

/* Keeps the pair's solution for the next step. -1 when out of memory (nothing kept). */
static int remember_unknowns(peg_memory* memory, const tch_peg_pair* pair,
                             const tch_peg_step_options* o) {
    int count = pair->constraints->count, unknowns = tch_peg_pair_unknowns(pair, o);
    int key_capacity = memory->capacity, start_capacity = memory->capacity + 1;
    int impulse_capacity = memory->capacity;
    memory->count = 0;
    if (grow((void**)&memory->keys, &key_capacity, count, sizeof *memory->keys) != 0 ||
        grow((void**)&memory->impulses, &impulse_capacity, count,
             sizeof *memory->impulses) != 0 ||
        grow((void**)&memory->start, &start_capacity, count + 1, sizeof *memory->start) != 0 ||
        grow((void**)&memory->z, &memory->z_capacity, unknowns, sizeof *memory->z) != 0) {
        return -1;
    }
    memory->capacity = key_capacity < start_capacity - 1 ? key_capacity : start_capacity - 1;
    memory->capacity = impulse_capacity < memory->capacity ? impulse_capacity : memory->capacity;
    memory->start[0] = 0;
    for (int i = 0; i < count; ++i) {
        memory->keys[i] = constraint_key(pair, i, o);
        memory->impulses[i] = pair->impulses[i];
        memory->start[i + 1] = memory->start[i] + memory->keys[i].unknowns;
    }
    memcpy(memory->z, pair->unknowns, (size_t)unknowns * sizeof *memory->z);
    memory->count = count;
    return 0;
}

/* The LCP's options for a cone of `edges`: n_d = edges (3 .. 64) in 3D; in the planar mode
 * the two in-plane directions about y (contact/peg_lcp.h). */
static tch_peg_step_options step_options(const tch_model* m, tch_real h, int edges);

/* Constraint `constraint` of the pair's list in its memory (the last solve's place), or -1. */
static int remembered_constraint(const tch_model* m, const peg_scratch* s, int slot,
                                 const tch_pair_result* pair,
                                 int constraint, tch_real h) {
    const tch_peg_pair view = {0, 0, &s->lists[slot], pair->params.friction, NULL, NULL};
    const tch_peg_step_options o = step_options(m, h, (int)pair->params.cone_edges);
    peg_key key = constraint_key(&view, constraint, &o);
    return find_key(&s->memories[s->slot_memory[slot]], &key, constraint);
}

/* Island bodies as peg_lcp sees them: [0] the world, then the island's free roots; local[b]
 * is body b's place (set for the island's bodies only). */
static tch_peg_body* island_bodies(const tch_model* m, const tch_data* d,
                                   const tch_row_island* island, int* local) {
    tch_peg_body* bodies = tch_arena_alloc(island->arena,
                                           (size_t)(island->body_count + 1) * sizeof *bodies,
                                           "peg island bodies");
    if (!bodies) {
        return NULL;
    }
    memset(&bodies[0], 0, sizeof bodies[0]);
    for (int i = 0; i < island->body_count; ++i) {
        int b = island->bodies[i];
        local[b] = i + 1;
        bodies[i + 1] = (tch_peg_body){
            .position = d->body_p_WCm[b],
            .velocity = island->v[b],
            .angular_velocity = island->w[b],
            .inverse_mass = 1 / m->body_total_mass[b],
            .inverse_inertia = d->body_I_inv_W[b],
        };
    }
    return bodies;
}

/* The island's pairs (a pair's contacts are consecutive in the island, in its order) with an
 * impulse per constraint; NULL when out of memory. */
static tch_peg_pair* island_pairs(const tch_model* m, const tch_data* d, const peg_scratch* s,
                                  const tch_row_island* island, const int* local,
                                  const tch_peg_step_options* o, int* count) {
    tch_peg_pair* pairs =
        tch_arena_alloc(island->arena, (size_t)island->count * sizeof *pairs, "peg island pairs");
    if (!pairs) {
        return NULL;
    }
    *count = 0;
    for (int i = 0; i < island->count; ++i) {
        if (island->index[i] != 0) {
            continue; /* not the pair's first */
        }
        const tch_pair_result* pair = &d->pair_results[island->pairs[i]];
        const tch_peg_constraints* list = &s->lists[island->pairs[i]];
        int root_a = moving_root(m, pair->geom_a), root_b = moving_root(m, pair->geom_b);
        tch_vec3* impulses = tch_arena_alloc(island->arena, (size_t)list->count * sizeof(tch_vec3),
                                             "peg impulses");
        if (!impulses) {
            return NULL;
        }
        tch_peg_pair* out = &pairs[(*count)++];
        *out = (tch_peg_pair){root_a ? local[root_a] : 0, root_b ? local[root_b] : 0, list,
                              pair->params.friction, impulses, NULL};
        out->unknowns = tch_arena_alloc(
            island->arena, (size_t)(tch_peg_pair_unknowns(out, o) + 1) * sizeof(tch_real),
            "peg unknowns");
        if (!out->unknowns) {
            return NULL;
        }
        recall_unknowns(&s->memories[s->slot_memory[island->pairs[i]]], out, o);
    }
    return pairs;
}

/* Gauss-Seidel before Lemke (peg_lcp.h): at most this many sweeps, accepted at this
 * natural-map residual (m/s; Lemke's acceptance, 1e-10, in the velocity rows' units). */
enum { SWEEPS = 1000 };
static const tch_real SWEEP_TOLERANCE = 1e-10;
static const tch_real RELAXATION = 1.3;

static tch_peg_step_options step_options(const tch_model* m, tch_real h, int edges) {
    const bool planar = tch_is_planar(m);
    return (tch_peg_step_options){
        .h = h,
        .model = TCH_PEG_MODEL_PEG,
        .friction_directions = planar ? 2 : edges < 3 ? 3 : edges > 64 ? 64 : edges,
        .planar = planar,
        .warm_start = true,
        .plane_normal = planar ? tch_v3(0, 1, 0) : tch_v3_zero(),
        .sweeps = SWEEPS,
        .tolerance = SWEEP_TOLERANCE,
        .relaxation = RELAXATION,
    };
}

/* The cone of the island: the largest of its frictional rows' (at least 3). */
static int island_cone_edges(const tch_row_island* island) {
    int edges = 3;
    for (int i = 0; i < island->count; ++i) {
        edges = island->rows[i]->cone_edges > edges ? island->rows[i]->cone_edges : edges;
    }
    return edges;
}

/* The kinetic energy of the island's bodies at velocities (v, w) indexed by island->bodies
 * (`local`: by the bodies' places 1.., else by body). */
static tch_real island_kinetic_energy(const tch_model* m, const tch_data* d,
                                      const tch_row_island* island, const tch_vec3* v,
                                      const tch_vec3* w, bool local) {
    tch_real energy = 0;
    for (int i = 0; i < island->body_count; ++i) {
        int b = island->bodies[i], k = local ? i + 1 : b;
        energy += 0.5 * m->body_total_mass[b] * tch_v3_dot(v[k], v[k]) +
                  0.5 * tch_v3_dot(w[k], tch_m3_mul_v3(d->body_I_W[b], w[k]));
    }
    return energy;
}

/* The most kinetic energy the solve may add: psi / h closes a violated constraint within the
 * step (eq. 44), at most the deepest violation over h for all the island's mass; plus
 * rounding. A solution beyond it is not one (Lemke's verified residual is in its own units,
 * which a degenerate island's dependent rows can leave far from the velocities'). */
static tch_real allowed_gain(const tch_model* m, const peg_scratch* s, const tch_peg_pair* pairs,
                             int pair_count, const tch_row_island* island, tch_real start) {
    tch_real deepest = 0, mass = 0;
    for (int p = 0; p < pair_count; ++p) {
        for (int k = 0; k < pairs[p].constraints->count; ++k) {
            deepest = fmax(deepest, -tch_peg_constraint_value(pairs[p].constraints, k));
        }
    }
    for (int i = 0; i < island->body_count; ++i) {
        mass += m->body_total_mass[island->bodies[i]];
    }
    (void)s;
    tch_real speed = deepest / island->h;
    return 0.5 * mass * speed * speed + 1e-9 * start + 1e-12;
}

/* The island's LCP under `options` (the pairs' warm starts recalled from their memories) into
 * velocity and angular: 0; 1 when the solution adds more kinetic energy than allowed_gain;
 * -1 when Lemke failed or out of memory. */
static int solve_guarded(const tch_model* m, const tch_data* d, peg_scratch* s,
                         const tch_row_island* island, const int* local,
                         const tch_peg_body* bodies, const tch_peg_step_options* options,
                         tch_vec3* velocity, tch_vec3* angular, tch_peg_pair** pairs,
                         int* pair_count, tch_peg_step_result* result) {
    *pairs = island_pairs(m, d, s, island, local, options, pair_count);
    if (!*pairs || tch_peg_step_velocities(bodies, island->body_count + 1, *pairs, *pair_count,
                                           options, island->arena, velocity, angular, result,
                                           NULL) != TCH_OK) {
        return -1;
    }
    tch_real start = island_kinetic_energy(m, d, island, island->v, island->w, false);
    return island_kinetic_energy(m, d, island, velocity, angular, true) <=
                   start + allowed_gain(m, s, *pairs, *pair_count, island, start)
               ? 0
               : 1;
}

static int peg_solve_island(const tch_model* m, const tch_data* d, void* scratch,
                            tch_row_island* island) {
    peg_scratch* s = scratch;
    for (int i = 0; i < island->count; ++i) {
        if (d->pair_results[island->pairs[i]].model != TCH_CONTACT_PEG) {
            s->report.fallbacks++; /* another model's rows: the engine solves them all */
            return -1;
        }
    }
    int* local = tch_arena_alloc(island->arena, (size_t)m->body_count * sizeof *local, "peg local");
    tch_vec3* velocity = tch_arena_alloc(island->arena,
                                         2 * (size_t)(island->body_count + 1) * sizeof *velocity,
                                         "peg velocities");
    tch_peg_step_options options = step_options(m, island->h, island_cone_edges(island));
    tch_peg_body* bodies = local ? island_bodies(m, d, island, local) : NULL;
    if (!velocity || !bodies) {
        return -1;
    }
    tch_vec3* angular = velocity + island->body_count + 1;
    tch_peg_step_result result;
    tch_peg_pair* pairs = NULL;
    int pair_count = 0;
    s->report.solves++;
    int solved = solve_guarded(m, d, s, island, local, bodies, &options, velocity, angular,
                               &pairs, &pair_count, &result);
    if (solved == 1 && result.swept) {
        /* the sweeps found a solution that kicks (2D pour at 16 ms: 10 of 15 failed islands);
         * the LCP has several, and Lemke from the memories often finds one within the guard */
        options.sweeps = 0;
        solved = solve_guarded(m, d, s, island, local, bodies, &options, velocity, angular,
                               &pairs, &pair_count, &result);
        s->report.resolved += solved == 0;
    }
    if (solved != 0) {
        s->report.failures++;
        s->report.fallbacks++;
        return -1;
    }
    s->report.swept += result.swept;
    int size = result.force_rows + result.slack_rows + result.friction_rows;
    s->report.largest_lcp = size > s->report.largest_lcp ? size : s->report.largest_lcp;
    for (int p = 0, i = 0; p < pair_count; ++i) {
        if (island->index[i] == 0) {
            remember_unknowns(&s->memories[s->slot_memory[island->pairs[i]]], &pairs[p++],
                              &options); /* out of memory: a cold start next step */
        }
    }
    for (int i = 0; i < island->body_count; ++i) {
        island->v[island->bodies[i]] = velocity[i + 1];
        island->w[island->bodies[i]] = angular[i + 1];
    }
    for (int i = 0, p = -1; i < island->count; ++i) {
        p += island->index[i] == 0;
        island->impulses[i] = pairs[p].impulses[island->index[i]];
    }
    return 0;
}

const tch_peg_report* tch_peg_scratch_report(const void* scratch) {
    const peg_scratch* s = scratch;
    return s ? &s->report : NULL;
}

const tch_contact_ops tch_peg_ops = {
    .name = "peg",
    .kind = TCH_CONTACT_KIND_CONSTRAINT,
    .uses_state = 1,
    .build_geoms = peg_build_geoms,
    .free_geoms = peg_free_geoms,
    .pair_geometry = peg_pair_geometry,
    .scratch_create = peg_scratch_create,
    .scratch_destroy = peg_scratch_destroy,
    .build_rows = peg_build_rows,
    .take_impulses = peg_take_impulses,
    .solve_island = peg_solve_island,
};
