/* The constraint stage (engine/constraint.h, docs/contact-lcp.md).
 *
 * Velocities. Each free root b has the generalized velocity ν_b = (v_WCm, w_W) with the
 * block-diagonal mass M_b = diag(m I, I_W), I_W = R_WB I_B R_WBᵀ (contact_space_haptics.md sec. 1).
 * A row of the contact Jacobian along unit d_W at contact point p, between geom a's root and geom
 * b's root, has the blocks (d, r_b x d) for b and -(d, r_a x d) for a, r = p - p_WCm (peg.md sec.
 * 1 with the normal from a into b), so J ν = d . (v_b(p) - v_a(p)) and an impulse z on the row
 * gives b the impulse +z d at p and a the impulse -z d.
 *
 * Problem per island (Stewart and Trinkle, peg.md eqs. 5-9 and sec. 8; A = J M⁻¹ Jᵀ, the
 * Delassus matrix, which is Ruspini and Khatib's Λ⁻¹ of eq. 4):
 *
 *   Lemke:  0 <= p_n ⊥ A_nn p_n + A_nf β + J_n v* - b     >= 0
 *           0 <= β   ⊥ A_fn p_n + A_ff β + J_f v* + E λ   >= 0
 *           0 <= λ   ⊥ μ p_n - Eᵀ β                       >= 0
 *
 *   PGS:    normal rows as above; two tangent rows t1, t2 per contact whose impulse lies in
 *           the disc |(z_t1, z_t2)| <= μ p_n (isotropic friction, engine/constraint_pgs.h)
 *
 * b is the target of the normal velocity J_n v+: depth / h for a contact still within its
 * margin (it may close the gap, no more), stabilization * depth / h for a penetrating one, and
 * at least -e v_n⁻ for one that approaches faster than the restitution threshold and would
 * close its gap during the step (v_n⁻: the velocity at the start of the step).
 */
#include "engine/constraint.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contact/contact.h"
#include "dynamics/contact_space.h"
#include "dynamics/free_body.h"
#include "engine/constraint_pgs.h"
#include "engine/engine_internal.h"
#include "math/vec.h"
#include "solver/lemke.h"

/* A contact's rows as its model described them (contact/rows.h), and where they belong. */
typedef struct contact_rows {
    tch_row_contact row;
    int entry;                  /* its index in the sink, and in the impulses handed back */
    int pair;                   /* index into data->pair_results */
    int island;
} contact_rows;

/* The island's unknowns for one solver: normal rows, friction rows, then Lemke's λ rows. */
typedef struct island_layout {
    int nc;                     /* contacts */
    int nr;                     /* Jacobian rows: nc normal rows, then friction rows */
    int n;                      /* unknowns: nr, plus one λ per frictional contact (Lemke) */
    int* friction_start;        /* [nc] first friction row of each contact */
    int* edges;                 /* [nc] its friction rows */
    int* lambda;                /* [nc] its λ unknown, -1 when none */
    tch_real* mu;               /* [nc] its friction coefficient */
} island_layout;

typedef struct stage {
    const tch_model* m;
    tch_data* d;
    tch_real h;
    tch_arena* arena;
    tch_vec3* v;                /* [body_count] centre-of-mass velocity, world (v*, then v+) */
    tch_vec3* w;                /* [body_count] angular velocity, world */
    tch_real* kinetic_start;    /* [body_count] kinetic energy at the step's start (before v*) */
    const tch_mat3* I_W;        /* [body_count] inertia about the centre of mass, world (the
                                 * kinematics outputs data->body_I_W) */
    const tch_mat3* I_inv_W;    /* [body_count] its inverse (data->body_I_inv_W) */
    unsigned char* moved;       /* [body_count] 1 when an impulse reached the body */
    tch_pair_state** states;    /* [pair_result_count] constraint pairs' states, or NULL */
    contact_rows* contacts;     /* [contact_count]: in the sink's order, then sorted by island */
    int contact_count;
    int contact_capacity;
    int* pair_start;            /* [pair_result_count] each pair's first entry in the sink */
    int current_pair;           /* the pair whose model is describing its rows */
    tch_row_impulse* impulses;  /* [contact_count] by entry: what the models get back */
    int* island_start;          /* [island_count + 1] */
    int* island_body_start;     /* [island_count + 1] */
    int* island_bodies;         /* island k's free bodies: island_body_start[k] .. [k + 1] */
    int island_count;
    tch_sparse_spd* subspace;   /* the row solver's sparse Cholesky (the workspace's) */
} stage;

static int geom_root(const tch_model* m, int geom) {
    return m->body_root[m->geom_body[geom]];
}

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
        int root = geom_root(m, g);
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

/* ---- islands (union-find over free roots, path halving) ---- */

static int find_island(int* parent, int b) {
    while (parent[b] != b) {
        parent[b] = parent[parent[b]];
        b = parent[b];
    }
    return b;
}

static void join_islands(int* parent, int a, int b) {
    a = find_island(parent, a);
    b = find_island(parent, b);
    if (a != b) {
        parent[a > b ? a : b] = a < b ? a : b;
    }
}

/* The free bodies of each island (island_of_root[r]: the island of union-find root r, or -1),
 * in body order. Returns 0, -1 when out of memory. */
static int list_island_bodies(stage* s, int* parent, const int* island_of_root) {
    const tch_model* m = s->m;
    s->island_body_start = tch_arena_alloc(s->arena, (size_t)(s->island_count + 1) * sizeof(int),
                                           "island body starts");
    s->island_bodies = tch_arena_alloc(s->arena, (size_t)m->body_count * sizeof(int),
                                       "island bodies");
    if (!s->island_body_start || !s->island_bodies) {
        return -1;
    }
    int* start = s->island_body_start;
    memset(start, 0, (size_t)(s->island_count + 1) * sizeof *start);
    for (int b = 1; b < m->body_count; ++b) {
        int k = island_of_root[find_island(parent, b)];
        start[k + 1] += k >= 0;
    }
    for (int k = 0; k < s->island_count; ++k) {
        start[k + 1] += start[k];
    }
    for (int b = 1; b < m->body_count; ++b) {
        int k = island_of_root[find_island(parent, b)];
        if (k >= 0) {
            s->island_bodies[start[k]++] = b;
        }
    }
    for (int k = s->island_count; k > 0; --k) {
        start[k] = start[k - 1];
    }
    start[0] = 0;
    return 0;
}

/* The island of every contact (numbered in order of first appearance) and the contacts sorted
 * by island, stably. Returns 0, -1 when out of memory. */
static int group_islands(stage* s, int* parent) {
    const tch_model* m = s->m;
    for (int b = 0; b < m->body_count; ++b) {
        parent[b] = b;
    }
    for (int i = 0; i < s->contact_count; ++i) {
        const tch_row_contact* c = &s->contacts[i].row;
        int ra = geom_root(m, c->geom_a), rb = geom_root(m, c->geom_b);
        if (ra > 0 && rb > 0) {
            join_islands(parent, ra, rb);
        }
    }
    int* index = tch_arena_alloc(s->arena, (size_t)m->body_count * sizeof *index, "islands");
    s->island_start = tch_arena_alloc(s->arena, (size_t)(s->contact_count + 1) * sizeof(int),
                                      "island starts");
    contact_rows* sorted =
        tch_arena_alloc(s->arena, (size_t)s->contact_count * sizeof *sorted, "sorted contacts");
    if (!index || !s->island_start || !sorted) {
        return -1;
    }
    memset(index, -1, (size_t)m->body_count * sizeof *index);
    s->island_count = 0;
    for (int i = 0; i < s->contact_count; ++i) {
        const tch_row_contact* c = &s->contacts[i].row;
        int ra = geom_root(m, c->geom_a), rb = geom_root(m, c->geom_b);
        int rep = find_island(parent, ra > 0 ? ra : rb);
        if (index[rep] < 0) {
            index[rep] = s->island_count++;
        }
        s->contacts[i].island = index[rep];
    }
    memset(s->island_start, 0, (size_t)(s->island_count + 1) * sizeof(int));
    for (int i = 0; i < s->contact_count; ++i) {
        s->island_start[s->contacts[i].island + 1]++;
    }
    for (int k = 0; k < s->island_count; ++k) {
        s->island_start[k + 1] += s->island_start[k];
    }
    if (list_island_bodies(s, parent, index) != 0) {
        return -1;
    }
    int* fill = index; /* reused: next free slot per island */
    memcpy(fill, s->island_start, (size_t)s->island_count * sizeof *fill);
    for (int i = 0; i < s->contact_count; ++i) {
        sorted[fill[s->contacts[i].island]++] = s->contacts[i];
    }
    s->contacts = sorted;
    return 0;
}

/* ---- Jacobian rows ---- */

/* What a contact's rows share on one side: the body, the lever arm r = p - p_WCm and the
 * inverse mass and inertia. */
typedef struct row_body {
    int body;                   /* free root, or 0 (static) */
    int dof;                    /* its first velocity in qvel */
    tch_vec3 r;
    tch_real inverse_mass;
    const tch_mat3* I_inv_W;
} row_body;

static row_body row_body_at(const stage* s, int geom, tch_vec3 p_W) {
    row_body side = {geom_root(s->m, geom), 0, tch_v3_zero(), 0, NULL};
    if (side.body != 0) {
        side.dof = s->m->body_qvel_adr[side.body];
        side.r = tch_v3_sub(p_W, s->d->body_p_WCm[side.body]);
        side.inverse_mass = 1 / s->m->body_total_mass[side.body];
        side.I_inv_W = &s->I_inv_W[side.body];
    }
    return side;
}

/* Writes the side in place: a side returned by value went through the stack, and reading it
 * back as wider words than it was written in stalled the stage (a tenth of a stack's step). */
static void make_side(const row_body* b, tch_vec3 d_W, tch_real sign, tch_row_side* side) {
    side->body = b->body;
    side->kind = b->body != 0 ? TCH_ROW_SIDE_BODY : TCH_ROW_SIDE_NONE;
    side->tree = 0;
    side->dof = b->dof;
    side->count = b->body != 0 ? 6 : 0;
    if (b->body == 0) {
        side->lin = side->ang = side->inv_lin = side->inv_ang = tch_v3_zero();
        return;
    }
    side->lin = tch_v3_scale(d_W, sign);
    side->ang = tch_v3_scale(tch_v3_cross(b->r, d_W), sign);
    side->inv_lin = tch_v3_scale(side->lin, b->inverse_mass);
    side->inv_ang = tch_m3_mul_v3(*b->I_inv_W, side->ang);
}

/* The row along d_W of a contact whose sides are (geom b's root, geom a's root). */
static void make_row(const row_body sides[2], tch_vec3 d_W, tch_jacobian_row* row) {
    make_side(&sides[0], d_W, 1, &row->side[0]);
    make_side(&sides[1], d_W, -1, &row->side[1]);
}

/* J ν with the stage's current velocities. */
static tch_real row_velocity(const stage* s, const tch_jacobian_row* row) {
    return tch_row_dot(row, s->v, s->w);
}

/* Marks the bodies an impulse z on the row reaches. */
static void mark_moved(stage* s, const tch_jacobian_row* row, tch_real z) {
    for (int k = 0; k < 2 && z != 0; ++k) {
        s->moved[row->side[k].body] = 1;
    }
}

/* ν += M⁻¹ Jᵀ z on the stage's velocities, marking the bodies reached. */
static void apply_row_impulse(stage* s, const tch_jacobian_row* row, tch_real z) {
    tch_row_add_impulse(row, z, s->v, s->w);
    mark_moved(s, row, z);
}

/* Friction direction e of `count` of a contact: the tangents t1, t2 (PGS, count 2) or the
 * cone edges cos(2 pi e / count) t1 + sin(2 pi e / count) t2 (Lemke). */
static tch_vec3 friction_direction(const contact_rows* cr, int e, int count) {
    if (count == 2) {
        return e == 0 ? cr->row.t1_W : cr->row.t2_W;
    }
    tch_real angle = 2 * TCH_PI * e / count;
    return tch_v3_add(tch_v3_scale(cr->row.t1_W, cos(angle)), tch_v3_scale(cr->row.t2_W, sin(angle)));
}

/* ---- the models' rows ---- */

/* The sink's point_velocity: v* of geom's material point at p_W (centre-of-mass velocities of
 * the stage, world). */
static tch_vec3 sink_point_velocity(const tch_row_sink* sink, int geom, tch_vec3 p_W) {
    const stage* s = sink->engine;
    int body = geom_root(s->m, geom);
    if (body == 0) {
        return tch_v3_zero();
    }
    tch_vec3 r = tch_v3_sub(p_W, s->d->body_p_WCm[body]);
    return tch_v3_add(s->v[body], tch_v3_cross(s->w[body], r));
}

/* The sink's add_contact: the next entry, zeroed, for the pair being described (the entries
 * grow geometrically in the arena). */
static tch_row_contact* sink_add_contact(tch_row_sink* sink) {
    stage* s = sink->engine;
    if (s->contact_count == s->contact_capacity) {
        int capacity = 2 * s->contact_capacity + 16;
        contact_rows* grown =
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
    contact_rows* cr = &s->contacts[s->contact_count];
    memset(cr, 0, sizeof *cr);
    cr->entry = s->contact_count++;
    cr->pair = s->current_pair;
    return &cr->row;
}

/* The context of constraint pair i for its model. */
static tch_pair_context constraint_context(const stage* s, int i) {
    return (tch_pair_context){&s->d->pair_results[i], s->states[i], s->d->internal->committing,
                              s->d->internal->model_scratch[s->d->pair_results[i].model]};
}

/* The pair states of the constraint pairs whose models keep one, created when new and marked
 * seen this step. Touching first and looking up after keeps the pointers valid (touching may
 * move the table). */
static int recall_pair_states(stage* s) {
    tch_data* d = s->d;
    struct tch_data_internal* in = d->internal;
    s->states = tch_arena_alloc(s->arena, (size_t)d->pair_result_count * sizeof *s->states,
                                "constraint pair states");
    if (!s->states) {
        return -1;
    }
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* pair = &d->pair_results[i];
        if (is_constraint_pair(s->m, pair) && tch_model_contact_ops(s->m, pair->model)->uses_state &&
            !tch_pair_state_touch(&in->pair_states, pair->geom_a, pair->geom_b, in->step_count)) {
            return -1;
        }
    }
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* pair = &d->pair_results[i];
        s->states[i] = is_constraint_pair(s->m, pair) &&
                               tch_model_contact_ops(s->m, pair->model)->uses_state
                           ? tch_pair_state_find(&in->pair_states, pair->geom_a, pair->geom_b)
                           : NULL;
    }
    return 0;
}

/* Every constraint pair's model describes its rows (tch_contact_ops.build_rows), in pair
 * order. Returns 0, -1 when out of memory. */
static int collect_rows(stage* s) {
    tch_data* d = s->d;
    s->pair_start = tch_arena_alloc(s->arena, ((size_t)d->pair_result_count + 1) * sizeof(int),
                                    "constraint pair starts");
    if (!s->pair_start) {
        return -1;
    }
    tch_row_sink sink = {s->h, sink_add_contact, sink_point_velocity, s};
    s->contact_count = s->contact_capacity = 0;
    s->contacts = NULL;
    for (int i = 0; i < d->pair_result_count; ++i) {
        s->pair_start[i] = s->contact_count;
        if (!is_constraint_pair(s->m, &d->pair_results[i])) {
            continue;
        }
        s->current_pair = i;
        tch_pair_context context = constraint_context(s, i);
        if (tch_model_contact_ops(s->m, d->pair_results[i].model)
                ->build_rows(s->m, d, &context, &sink) != 0) {
            return -1;
        }
    }
    s->pair_start[d->pair_result_count] = s->contact_count;
    s->impulses = tch_arena_alloc(s->arena, ((size_t)s->contact_count + 1) * sizeof *s->impulses,
                                  "constraint impulses");
    if (!s->impulses) {
        return -1;
    }
    memset(s->impulses, 0, ((size_t)s->contact_count + 1) * sizeof *s->impulses);
    return 0;
}

/* Hands every constraint pair's model the impulses of its rows (tch_contact_ops.take_impulses). */
static void hand_back_impulses(stage* s) {
    tch_data* d = s->d;
    for (int i = 0; i < d->pair_result_count; ++i) {
        if (is_constraint_pair(s->m, &d->pair_results[i])) {
            tch_pair_context context = constraint_context(s, i);
            tch_model_contact_ops(s->m, d->pair_results[i].model)
                ->take_impulses(s->m, d, &context, s->impulses + s->pair_start[i],
                                s->pair_start[i + 1] - s->pair_start[i]);
        }
    }
}

/* Kinetic energy of free body b with centre-of-mass velocity v and angular velocity w (world). */
static tch_real kinetic_energy(const stage* s, int b, tch_vec3 v, tch_vec3 w) {
    return 0.5 * s->m->body_total_mass[b] * tch_v3_dot(v, v) +
           0.5 * tch_v3_dot(w, tch_m3_mul_v3(s->I_W[b], w));
}

/* Body velocities from qvel (v*), the world inertias of the kinematics outputs, and the kinetic
 * energies of the step's start from the velocities the step started from (data->body_v_WCm,
 * body_w_W). */
static int read_bodies(stage* s) {
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
        if (m->body_free[b]) {
            s->kinetic_start[b] = kinetic_energy(s, b, s->d->body_v_WCm[b], s->d->body_w_W[b]);
            tch_free_body_com_velocity(m, s->d->qpos, s->d->qvel, b, &s->v[b], &s->w[b]);
        }
    }
    return 0;
}

static int prepare(stage* s, int* island_parent) {
    if (read_bodies(s) != 0 || recall_pair_states(s) != 0 || collect_rows(s) != 0) {
        return -1;
    }
    return group_islands(s, island_parent);
}

/* ---- one island ---- */

/* How an island is solved. The model's solver comes first; the others are the fallbacks of
 * solve_island, in this order. */
typedef enum island_solver {
    SOLVE_LEMKE = TCH_CONSTRAINT_LEMKE,               /* Stewart-Trinkle, cone edges, Lemke */
    SOLVE_PGS = TCH_CONSTRAINT_PGS,                   /* disc friction, PGS, subspace steps */
    SOLVE_NORMAL_LEMKE = TCH_CONSTRAINT_NORMAL_LEMKE, /* normal rows only (no friction), Lemke */
    SOLVE_NORMAL_PGS = TCH_CONSTRAINT_NORMAL_PGS,     /* normal rows, PGS from zero: no energy */
} island_solver;

static int is_lemke(island_solver solver) {
    return solver == SOLVE_LEMKE || solver == SOLVE_NORMAL_LEMKE;
}

static int has_friction(island_solver solver) {
    return solver == SOLVE_LEMKE || solver == SOLVE_PGS;
}

static int layout_island(stage* s, const contact_rows* cr, int nc, island_solver solver,
                         island_layout* L) {
    L->nc = nc;
    L->friction_start = tch_arena_alloc(s->arena, (size_t)nc * 3 * sizeof(int), "lcp layout");
    L->mu = tch_arena_alloc(s->arena, (size_t)nc * sizeof *L->mu, "lcp layout mu");
    if (!L->friction_start || !L->mu) {
        return -1;
    }
    L->edges = L->friction_start + nc;
    L->lambda = L->edges + nc;
    L->nr = nc;
    for (int i = 0; i < nc; ++i) {
        L->edges[i] = cr[i].row.cone_edges == 0 || !has_friction(solver) ? 0
                      : solver == SOLVE_LEMKE                      ? cr[i].row.cone_edges
                                                                   : 2;
        L->friction_start[i] = L->nr;
        L->nr += L->edges[i];
        L->mu[i] = cr[i].row.mu;
    }
    L->n = L->nr;
    for (int i = 0; i < nc; ++i) {
        L->lambda[i] = solver == SOLVE_LEMKE && L->edges[i] > 0 ? L->n++ : -1;
    }
    return 0;
}

static void build_rows(const stage* s, const contact_rows* cr, const island_layout* L,
                       tch_jacobian_row* rows) {
    for (int i = 0; i < L->nc; ++i) {
        const tch_row_contact* c = &cr[i].row;
        const row_body sides[2] = {row_body_at(s, c->geom_b, c->p_W),
                                   row_body_at(s, c->geom_a, c->p_W)};
        make_row(sides, c->n_W, &rows[i]);
        for (int e = 0; e < L->edges[i]; ++e) {
            make_row(sides, friction_direction(&cr[i], e, L->edges[i]),
                     &rows[L->friction_start[i] + e]);
        }
    }
}

/* M = [A, E; μ, -Eᵀ] (A = J M⁻¹ Jᵀ over the Jacobian rows) and q = (J v* - b, 0), for Lemke. */
static void build_problem(const stage* s, const contact_rows* cr, const island_layout* L,
                          const tch_jacobian_row* rows, tch_real* M, tch_real* q) {
    int n = L->n;
    memset(M, 0, (size_t)n * (size_t)n * sizeof *M);
    for (int i = 0; i < L->nr; ++i) {
        for (int j = i; j < L->nr; ++j) {
            M[i * n + j] = M[j * n + i] = tch_row_coupling(&rows[i], &rows[j]);
        }
        q[i] = row_velocity(s, &rows[i]) - (i < L->nc ? cr[i].row.target : 0);
    }
    for (int i = 0; i < L->nc; ++i) {
        int l = L->lambda[i];
        if (l < 0) {
            continue;
        }
        q[l] = 0;
        M[l * n + i] = cr[i].row.mu;
        for (int e = 0; e < L->edges[i]; ++e) {
            int f = L->friction_start[i] + e;
            M[f * n + l] = 1;
            M[l * n + f] = -1;
        }
    }
}

/* Friction impulses below this share of the cone's bound start Lemke with no friction edge in
 * the basis: each edge in it adds a row to the start basis's factorization. */
static const tch_real WARM_FRICTION_FLOOR = 1e-6;

/* Nonnegative weights of the two cone edges that bracket the friction impulse (tx, ty) in the
 * tangent basis, written to the contact's edge unknowns (Lemke's warm start only needs which
 * are positive). */
static void warm_cone(const contact_rows* cr, int edges, tch_real* beta) {
    tch_real tx = cr->row.warm[1], ty = cr->row.warm[2];
    tch_real magnitude = hypot(tx, ty);
    if (!(magnitude > WARM_FRICTION_FLOOR * cr->row.mu * cr->row.warm[0])) {
        return; /* rounding-level friction (at rest): its edges stay out of Lemke's start basis */
    }
    tch_real sector = 2 * TCH_PI / edges;
    tch_real angle = atan2(ty, tx);
    angle = angle < 0 ? angle + 2 * TCH_PI : angle;
    int e0 = (int)floor(angle / sector) % edges;
    tch_real offset = angle - e0 * sector;
    beta[e0] = magnitude * sin(sector - offset) / sin(sector);
    beta[(e0 + 1) % edges] = magnitude * sin(offset) / sin(sector);
}

static void warm_start(const contact_rows* cr, const island_layout* L, island_solver solver,
                       tch_real* z) {
    memset(z, 0, (size_t)L->n * sizeof *z);
    for (int i = 0; i < L->nc; ++i) {
        z[i] = cr[i].row.warm[0];
        tch_real* friction = z + L->friction_start[i];
        if (L->edges[i] == 0) {
            continue;
        }
        if (solver == SOLVE_PGS) {
            friction[0] = cr[i].row.warm[1];
            friction[1] = cr[i].row.warm[2];
            continue;
        }
        warm_cone(&cr[i], L->edges[i], friction);
        tch_real total = 0;
        for (int e = 0; e < L->edges[i]; ++e) {
            total += friction[e];
        }
        /* At the cone's boundary the contact slid: its sliding speed λ was positive. */
        z[L->lambda[i]] = total >= (1 - 1e-6) * cr[i].row.mu * z[i] && total > 0 ? 1 : 0;
    }
}

/* An island's problem for the stage's row solver, with the right-hand side rhs. */
static tch_row_problem row_problem(const stage* s, const island_layout* L,
                                   const tch_jacobian_row* rows, const tch_real* rhs) {
    return (tch_row_problem){L->nc, L->nr, L->friction_start, L->edges, L->mu, rows, rhs,
                             s->m->body_count, NULL, NULL};
}

/* An island's impulses are applied when their natural-map residual is at most the model's
 * tolerance or this, m/s (the target for frictional problems), whichever is larger. */
static const tch_real ACCEPT_RESIDUAL = 1e-6;

/* The row solver's options: the model's tolerance and `sweeps`, subspace minimization on. */
static tch_row_solve_options row_options(const stage* s, int sweeps) {
    return (tch_row_solve_options){sweeps, s->m->lcp_tolerance,
                                   fmax(s->m->lcp_tolerance, ACCEPT_RESIDUAL),
                                   s->subspace, false};
}

/* PGS gives up on an island early when it converges slowly and Lemke's problem has at most this
 * many unknowns: PGS on a box that slides and tilts with box friction can need 1e5 sweeps, and
 * Lemke solves a single box's 40 unknowns in tens of microseconds. Lemke's O(n³) makes it the
 * dearer solver on large islands, which PGS keeps with its subspace steps. */
enum { CHEAP_LEMKE_SIZE = 96 };

/* The unknowns of the island's Lemke problem: a normal row per contact, and for a frictional
 * one its cone edges and λ. */
static int lemke_size(const contact_rows* cr, int nc) {
    int n = 0;
    for (int i = 0; i < nc; ++i) {
        n += 1 + (cr[i].row.cone_edges > 0 ? cr[i].row.cone_edges + 1 : 0);
    }
    return n;
}

static tch_status solve_lemke(stage* s, const island_layout* L, const tch_real* M,
                              const tch_real* q, tch_real* z, tch_lcp_result* result) {
    tch_lemke_options options = tch_lemke_options_default();
    options.max_pivots = s->m->lcp_iterations;
    options.warm_start = true;
    options.accept_residual = s->m->lcp_tolerance;
    return tch_lemke_solve(M, q, L->n, &options, s->arena, z, result, NULL);
}

/* The contact's impulse on geom b, world: normal plus friction rows. */
static tch_vec3 contact_impulse(const contact_rows* cr, const island_layout* L, int i,
                                const tch_real* z) {
    tch_vec3 impulse = tch_v3_scale(cr->row.n_W, z[i]);
    for (int e = 0; e < L->edges[i]; ++e) {
        impulse = tch_v3_madd(impulse, z[L->friction_start[i] + e],
                              friction_direction(cr, e, L->edges[i]));
    }
    return impulse;
}

/* Keeps contact cr's impulse, the impulse to warm-start its next step from and its rows'
 * velocity errors for its model (hand_back_impulses). */
static void keep_impulse(stage* s, const contact_rows* cr, tch_vec3 impulse, tch_vec3 warm,
                         const tch_real* error) {
    tch_row_impulse* out = &s->impulses[cr->entry];
    out->solved = 1;
    out->impulse_W = impulse;
    out->warm_W = warm;
    for (int k = 0; k < 3; ++k) {
        out->error[k] = error[k];
    }
}

/* One attempt at an island: its layout, Jacobian rows, impulses z, and the change of the
 * island's kinetic energy that z makes, ΔT = zᵀ J v* + ½ zᵀ A z. */
typedef struct island_solution {
    island_layout L;
    tch_jacobian_row* rows;
    tch_real* z;
    tch_real kinetic_change;
    tch_lcp_result result;
    bool in_velocities;         /* the stage's velocities include z (the row solver's) */
    const tch_real* lemke_M;    /* Lemke's problem (n x n and n), or NULL */
    const tch_real* lemke_q;
    const tch_real* steady;     /* the row solver's impulses for the next warm start, or NULL */
    const tch_real* errors;     /* [nr] its rows' velocity errors (tch_row_errors), or NULL */
} island_solution;

/* Applies the solution: velocities (unless they have it), and the impulses the models get
 * back. */
static void apply_solution(stage* s, const contact_rows* cr, const island_solution* x) {
    const island_layout* L = &x->L;
    for (int r = 0; r < L->nr; ++r) {
        if (x->in_velocities) {
            mark_moved(s, &x->rows[r], x->z[r]);
        } else {
            apply_row_impulse(s, &x->rows[r], x->z[r]);
        }
    }
    for (int i = 0; i < L->nc; ++i) {
        tch_vec3 impulse = contact_impulse(&cr[i], L, i, x->z);
        tch_vec3 warm = x->steady ? contact_impulse(&cr[i], L, i, x->steady) : impulse;
        tch_real error[3] = {0, 0, 0};
        for (int k = 0; k < 3 && x->errors; ++k) {
            error[k] = k == 0 ? x->errors[i]
                       : k <= L->edges[i] ? x->errors[L->friction_start[i] + k - 1] : 0;
        }
        keep_impulse(s, &cr[i], impulse, warm, error);
    }
}

/* Takes an attempt's impulses back out of the stage's velocities when they are in them. */
static void withdraw(stage* s, island_solution* x) {
    for (int r = 0; r < x->L.nr && x->in_velocities; ++r) {
        tch_row_add_impulse(&x->rows[r], -x->z[r], s->v, s->w);
    }
    x->in_velocities = false;
}

/* Lemke on the dense problem M = [A, E; μ, -Eᵀ], q = (J v* - b, 0) (build_problem); ΔT from A. */
static tch_status solve_dense(stage* s, const contact_rows* cr, island_solution* x) {
    size_t n = (size_t)x->L.n;
    tch_real* M = tch_arena_alloc(s->arena, n * n * sizeof *M, "lcp matrix");
    tch_real* q = tch_arena_alloc(s->arena, n * sizeof *q, "lcp q");
    if (!M || !q) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    build_problem(s, cr, &x->L, x->rows, M, q);
    x->lemke_M = M;
    x->lemke_q = q;
    tch_status status = solve_lemke(s, &x->L, M, q, x->z, &x->result);
    x->kinetic_change = 0;
    for (int i = 0; i < x->L.nr; ++i) {
        tch_real Az = 0;
        for (int j = 0; j < x->L.nr; ++j) {
            Az += M[(size_t)i * n + (size_t)j] * x->z[j];
        }
        x->kinetic_change += x->z[i] * (0.5 * Az + q[i] + (i < x->L.nc ? cr[i].row.target : 0));
    }
    return status;
}

/* The velocity errors the last step left on the island's rows (its memory), in row order. */
static void carried_errors(const contact_rows* cr, const island_layout* L, tch_real* carried) {
    for (int i = 0; i < L->nc; ++i) {
        carried[i] = cr[i].row.carried[0];
        for (int e = 0; e < L->edges[i]; ++e) {
            carried[L->friction_start[i] + e] = e < 2 ? cr[i].row.carried[1 + e] : 0;
        }
    }
}

/* The kinetic energy of island k's bodies at the stage's velocities. */
static tch_real island_kinetic_energy(const stage* s, int k) {
    tch_real energy = 0;
    for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
        int b = s->island_bodies[i];
        energy += kinetic_energy(s, b, s->v[b], s->w[b]);
    }
    return energy;
}

/* Matrix-free PGS for island k on the stage's velocities (rhs = -b on the normal rows), which
 * keep the impulses (withdraw takes them out when the attempt is not applied); ΔT from the
 * island's bodies before and after. */
static tch_status solve_sparse(stage* s, int k, int sweeps, bool warm, tch_real accept,
                               island_solution* x) {
    const contact_rows* cr = s->contacts + s->island_start[k];
    const island_layout* L = &x->L;
    tch_real* rhs = tch_arena_alloc(s->arena, (size_t)L->nr * 4 * sizeof *rhs, "pgs rhs");
    if (!rhs) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    tch_real *carried = rhs + L->nr, *steady = carried + L->nr, *errors = steady + L->nr;
    for (int r = 0; r < L->nr; ++r) {
        rhs[r] = r < L->nc ? -cr[r].row.target : 0;
        x->z[r] = warm ? x->z[r] : 0;
    }
    carried_errors(cr, L, carried);
    tch_real kinetic_before = island_kinetic_energy(s, k);
    tch_row_problem problem = row_problem(s, L, x->rows, rhs);
    problem.carried = warm ? carried : NULL;
    problem.steady = steady;
    tch_row_solve_options options = row_options(s, sweeps);
    options.accept = fmax(options.accept, accept);
    options.give_up_when_slow = lemke_size(cr, L->nc) <= CHEAP_LEMKE_SIZE;
    tch_status status = tch_row_solve(&problem, &options, s->arena, s->v, s->w, x->z, &x->result);
    x->kinetic_change = island_kinetic_energy(s, k) - kinetic_before;
    x->in_velocities = true;
    tch_row_errors(&problem, s->v, s->w, x->z, errors);
    x->steady = steady;
    x->errors = errors;
    return status;
}

/* Builds and solves the island's problem with `solver` (PGS with at most `sweeps` sweeps, which
 * stops on a stall once the residual is within `accept`, the attempt's acceptance), from
 * `start` (the unknowns of the same solver's last attempt) or, when NULL, from the warm start.
 * Returns the solver's status; x holds the solution or the last iterate. */
static tch_status solve_island_with(stage* s, int k, island_solver solver, int sweeps,
                                    const tch_real* start, tch_real accept, island_solution* x) {
    const contact_rows* cr = s->contacts + s->island_start[k];
    int nc = s->island_start[k + 1] - s->island_start[k];
    x->result = (tch_lcp_result){TCH_OK, TCH_LCP_SOLVED, 0, 0};
    x->kinetic_change = 0;
    x->in_velocities = false;
    x->lemke_M = x->lemke_q = NULL;
    x->steady = x->errors = NULL;
    if (layout_island(s, cr, nc, solver, &x->L) != 0) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    x->rows = tch_arena_alloc(s->arena, (size_t)x->L.nr * sizeof *x->rows, "lcp rows");
    x->z = tch_arena_alloc(s->arena, (size_t)x->L.n * sizeof *x->z, "lcp z");
    if (!x->rows || !x->z) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    build_rows(s, cr, &x->L, x->rows);
    if (start) {
        memcpy(x->z, start, (size_t)x->L.n * sizeof *x->z);
    } else {
        warm_start(cr, &x->L, solver, x->z);
    }
    return is_lemke(solver) ? solve_dense(s, cr, x)
                            : solve_sparse(s, k, sweeps, solver == SOLVE_PGS, accept, x);
}

/* Does z add no more kinetic energy than an exact solution could? At a solution,
 * complementarity gives zᵀ(A z + J v*) = Σ p_n b − Σ λ μ p_n (Lemke; for the row solver's
 * friction discs z_t . w_t <= 0 instead), so ΔT = Σ p_n b − Σ λ μ p_n − ½ zᵀ A z <= Σ p_n b:
 * only restitution targets (b > 0) may give energy back. A residual r moves each product by at
 * most |z_i| r, hence the slack r Σ |z_i|. */
static int adds_no_energy(const contact_rows* cr, const island_solution* x, tch_real r) {
    tch_real allowed = 0, size = 0;
    for (int i = 0; i < x->L.nr; ++i) {
        size += fabs(x->z[i]);
    }
    for (int i = 0; i < x->L.nc; ++i) {
        allowed += x->z[i] * cr[i].row.target;
    }
    return x->kinetic_change <= allowed + r * size;
}

/* PGS as a fallback runs at least this many sweeps. */
static const int FALLBACK_SWEEPS = 2000;
/* Is the attempt a solution that can be applied: solved or stopped at a limit with a residual
 * within the acceptance, and adding no energy? */
static int acceptable(const contact_rows* cr, tch_status status, const island_solution* x,
                      tch_real accept) {
    return (status == TCH_OK || status == TCH_ERR_NUMERICAL) && x->result.residual <= accept &&
           adds_no_energy(cr, x, accept);
}

/* The box form (with discs) of an applied row-solver attempt, for the observer: M = A = J M⁻¹ Jᵀ over the
 * rows, q = w - A z from the row velocities w = J v+ + rhs after the attempt. */
static int box_problem(stage* s, const contact_rows* cr, const island_solution* x,
                       tch_island_problem* out) {
    const island_layout* L = &x->L;
    size_t n = (size_t)L->nr;
    tch_real* A = tch_arena_alloc(s->arena, n * n * sizeof *A, "observed matrix");
    tch_real* q = tch_arena_alloc(s->arena, 3 * n * sizeof *q, "observed q");
    int* normal_index = tch_arena_alloc(s->arena, n * sizeof *normal_index, "observed index");
    if (!A || !q || !normal_index) {
        return -1;
    }
    tch_real *lo = q + n, *hi = lo + n;
    for (size_t i = 0; i < n; ++i) {
        tch_real w = row_velocity(s, &x->rows[i]) - ((int)i < L->nc ? cr[i].row.target : 0);
        for (size_t j = 0; j < n; ++j) {
            A[i * n + j] = tch_row_coupling(&x->rows[i], &x->rows[j]);
            w -= A[i * n + j] * x->z[j];
        }
        q[i] = w;
        lo[i] = 0, hi[i] = INFINITY, normal_index[i] = -1;
    }
    for (int i = 0; i < L->nc; ++i) {
        for (int f = L->friction_start[i]; f < L->friction_start[i] + L->edges[i]; ++f) {
            lo[f] = -L->mu[i], hi[f] = L->mu[i], normal_index[f] = i;
        }
    }
    *out = (tch_island_problem){L->nr, A, q, lo, hi, normal_index, x->z, 0, 0, true};
    return 0;
}

/* Hands the applied attempt's problem to the user's observer (tch_data_observe_islands). */
static void report_island(stage* s, const contact_rows* cr, const island_solution* x,
                          island_solver solver) {
    const tch_constraint_workspace* ws = &s->d->internal->constraint;
    if (!ws->observer) {
        return;
    }
    tch_island_problem problem = {x->L.n, x->lemke_M, x->lemke_q, NULL, NULL, NULL, x->z, 0, 0,
                                  false};
    if (!is_lemke(solver) && box_problem(s, cr, x, &problem) != 0) {
        return; /* out of memory: this island is not reported */
    }
    problem.path = (tch_constraint_path)solver;
    problem.residual = x->result.residual;
    ws->observer(&problem, ws->observer_user);
}

void tch_data_observe_islands(tch_data* d, tch_island_observer observer, void* user) {
    d->internal->constraint.observer = observer;
    d->internal->constraint.observer_user = user;
}

/* With the `pgs` solver, an island whose Lemke problem has more unknowns than this skips the
 * Lemke attempt (and the frictionless Lemke attempt when it has more contacts than this), and
 * its PGS attempts are acceptable up to LARGE_ISLAND_ACCEPT m/s. On pile100's
 * settling islands (500 to 580 unknowns) Lemke took 110 to 150 ms and often stopped at its pivot
 * limit unsolved; PGS with subspace steps had brought 99% of them below 1e-4 m/s, which over a
 * 2 ms step is a 2e-7 m position error. */
enum { LEMKE_MAX_SIZE = 240 };
static const tch_real LARGE_ISLAND_ACCEPT = 1e-4;

/* The attempts at an island, in order: the model's solver, then the other frictional solver
 * (and PGS again with the fallback's sweeps), then the frictionless problem by Lemke and by PGS
 * from zero. */
typedef struct solver_chain {
    int length;
    island_solver step[5];
} solver_chain;
static const solver_chain LEMKE_CHAIN = {
    4, {SOLVE_LEMKE, SOLVE_PGS, SOLVE_NORMAL_LEMKE, SOLVE_NORMAL_PGS}};
static const solver_chain PGS_CHAIN = {
    5, {SOLVE_PGS, SOLVE_PGS, SOLVE_LEMKE, SOLVE_NORMAL_LEMKE, SOLVE_NORMAL_PGS}};

/* A PGS attempt that was not applied, for the next PGS attempt of the chain to go on from
 * instead of starting over from the warm start (its sweeps would repeat the first's). */
typedef struct carried_pgs {
    tch_real* z;        /* [3 nc]: the attempt's impulses, or NULL when out of memory */
    int sweeps;         /* the sweeps it took; 0: nothing carried */
} carried_pgs;

static void carry_over(island_solver solver, const island_solution* x, carried_pgs* carry) {
    carry->sweeps = 0;
    if (solver == SOLVE_PGS && carry->z && x->z && x->result.iterations > 0) {
        memcpy(carry->z, x->z, (size_t)x->L.n * sizeof *carry->z);
        carry->sweeps = x->result.iterations;
    }
}

/* Does island k have a frictional contact? */
static bool has_friction_rows(const stage* s, int k) {
    for (int i = s->island_start[k]; i < s->island_start[k + 1]; ++i) {
        if (s->contacts[i].row.cone_edges > 0) {
            return true;
        }
    }
    return false;
}

/* Records a warning of `kind` at the step's start time for island k's first body. */
static void warn(stage* s, int k, tch_warning kind) {
    s->d->warning_count[kind]++;
    s->d->warning_time[kind] = s->d->time;
    s->d->warning_body[kind] = s->island_bodies[s->island_body_start[k]];
}

/* Warns when the applied attempt changed the physics the model asked for: friction dropped, or
 * a residual looser than both the model's tolerance and ACCEPT_RESIDUAL. */
static void warn_about_physics(stage* s, int k, island_solver solver, tch_real residual) {
    if (!has_friction(solver) && has_friction_rows(s, k)) {
        warn(s, k, TCH_WARN_FRICTION_DROPPED);
    }
    if (residual > fmax(s->m->lcp_tolerance, ACCEPT_RESIDUAL)) {
        warn(s, k, TCH_WARN_LOOSE_RESIDUAL);
    }
}

/* Solves island k and applies the first acceptable attempt of its chain. PGS as the model's
 * solver runs the model's sweep limit; as the fallback it goes on from where that attempt
 * stopped, up to FALLBACK_SWEEPS in all (or the model's limit when larger). The last attempt
 * is always applied: from zero, each PGS update lowers ½ pᵀ A_nn p + pᵀ (J_n v* − b) (A_nn is
 * symmetric PSD), so with b <= 0 it never adds kinetic energy, whatever the residual. An island
 * whose first attempt was not applied counts in constraint_failed_islands; the applied path in
 * constraint_path_islands. */
static void solve_island(stage* s, int k) {
    tch_data* d = s->d;
    const contact_rows* cr = s->contacts + s->island_start[k];
    int nc = s->island_start[k + 1] - s->island_start[k];
    const solver_chain* chain = s->m->lcp_solver == TCH_LCP_SOLVER_PGS ? &PGS_CHAIN : &LEMKE_CHAIN;
    int large = chain == &PGS_CHAIN && lemke_size(cr, nc) > LEMKE_MAX_SIZE;
    tch_real accept = fmax(s->m->lcp_tolerance, ACCEPT_RESIDUAL);
    int fallback_sweeps = s->m->lcp_iterations > FALLBACK_SWEEPS ? s->m->lcp_iterations
                                                                 : FALLBACK_SWEEPS;
    size_t outer = tch_arena_mark(s->arena);
    tch_real* carried = tch_arena_alloc(s->arena, (size_t)nc * 3 * sizeof *carried, "lcp carry");
    carried_pgs carry = {carried, 0};
    size_t mark = tch_arena_mark(s->arena);
    island_solution x;
    int applied = 0;
    int length = chain->length;
    for (int attempt = 0; attempt < length && !applied; ++attempt) {
        island_solver solver = chain->step[attempt];
        if ((large && solver == SOLVE_LEMKE) ||
            (chain == &PGS_CHAIN && solver == SOLVE_NORMAL_LEMKE && nc > LEMKE_MAX_SIZE)) {
            continue; /* dense O(n³): a 4 000-contact island of pile_1000 took 30 to 90 s */
        }
        tch_arena_release(s->arena, mark);
        const tch_real* start = solver == SOLVE_PGS && carry.sweeps > 0 ? carry.z : NULL;
        int sweeps = (attempt == 0 ? s->m->lcp_iterations : fallback_sweeps) -
                     (start ? carry.sweeps : 0);
        if (sweeps <= 0) {
            continue; /* the last attempt already ran this attempt's sweeps */
        }
        tch_real attempt_accept = large && solver == SOLVE_PGS ? LARGE_ISLAND_ACCEPT : accept;
        tch_status status = solve_island_with(s, k, solver, sweeps, start, attempt_accept, &x);
        d->constraint_iterations += x.result.iterations;
        applied = attempt == length - 1 ? status == TCH_OK || status == TCH_ERR_NUMERICAL
                                        : acceptable(cr, status, &x, attempt_accept);
        if (applied) {
            warn_about_physics(s, k, solver, x.result.residual);
            d->constraint_failed_islands += attempt > 0;
            d->constraint_path_islands[solver]++;
            d->constraint_residual = fmax(d->constraint_residual, x.result.residual);
            apply_solution(s, cr, &x);
            report_island(s, cr, &x, solver);
        } else {
            withdraw(s, &x);
            carry_over(solver, &x, &carry);
        }
    }
    d->constraint_failed_islands += !applied;
    tch_arena_release(s->arena, outer);
}

/* qvel of every body an impulse reached, from (v_WCm, w_W). */
static void write_velocities(const stage* s) {
    for (int b = 1; b < s->m->body_count; ++b) {
        if (s->moved[b]) {
            tch_contact_space_write_body_velocity(s->m, s->d->qpos, s->d->qvel, b, s->v[b],
                                                  s->w[b]);
        }
    }
}

/* ---- split impulse: position correction ---- */

/* The energy the step takes out of the bodies the impulses reached, before any correction:
 * kinetic at the start minus kinetic after, minus the work of gravity over h v+ (first order
 * in h: the position update moves each centre of mass by h v+). */
static tch_real dissipated_energy(const stage* s) {
    tch_real lost = 0;
    for (int b = 1; b < s->m->body_count; ++b) {
        if (s->moved[b]) {
            lost += s->kinetic_start[b] - kinetic_energy(s, b, s->v[b], s->w[b]) +
                    s->h * s->m->body_total_mass[b] * tch_v3_dot(s->m->gravity, s->v[b]);
        }
    }
    return lost;
}

/* Island k's pseudo-velocity impulses: 0 <= p ⊥ A_nn p - push >= 0 over its normal rows (no
 * friction), by PGS from zero; (u, u_w) += M⁻¹ J_nᵀ p. An iterate that stops at the sweep
 * limit is used as it is: it only pushes apart. */
static void solve_push(stage* s, int k, tch_vec3* u, tch_vec3* u_w) {
    const contact_rows* cr = s->contacts + s->island_start[k];
    int nc = s->island_start[k + 1] - s->island_start[k];
    int pushes = 0;
    for (int i = 0; i < nc; ++i) {
        pushes += cr[i].row.push > 0;
    }
    size_t mark = tch_arena_mark(s->arena);
    island_layout L;
    if (pushes > 0 && layout_island(s, cr, nc, SOLVE_NORMAL_PGS, &L) == 0) {
        tch_jacobian_row* rows = tch_arena_alloc(s->arena, (size_t)nc * sizeof *rows, "push rows");
        tch_real* rhs = tch_arena_alloc(s->arena, (size_t)nc * 2 * sizeof *rhs, "push rhs");
        if (rows && rhs) {
            tch_real* z = rhs + nc;
            build_rows(s, cr, &L, rows);
            for (int i = 0; i < nc; ++i) {
                rhs[i] = -cr[i].row.push;
                z[i] = 0;
            }
            tch_lcp_result result;
            tch_row_problem problem = row_problem(s, &L, rows, rhs);
            tch_row_solve_options options = row_options(s, s->m->lcp_iterations);
            tch_row_solve(&problem, &options, s->arena, u, u_w, z, &result);
        }
    }
    tch_arena_release(s->arena, mark);
}

/* Moves body b's pose by h (u, u_w) (centre of mass, world) and keeps its kinetic energy:
 * v_WCm and the body-frame angular velocity are rewritten for the new pose. */
static void displace_body(const stage* s, int b, tch_vec3 u, tch_vec3 u_w, tch_real* pseudo) {
    const tch_model* m = s->m;
    tch_real* qpos = s->d->qpos;
    tch_real* qvel = s->d->qvel + m->body_qvel_adr[b];
    tch_vec3 w_B = {qvel[3], qvel[4], qvel[5]};
    tch_contact_space_write_body_velocity(m, qpos, pseudo, b, u, u_w);
    tch_free_body_advance_position(m, qpos, pseudo, b, s->h);
    tch_vec3 w_W = tch_q_rotate(tch_free_body_pose(m, qpos, b).q, w_B);
    tch_contact_space_write_body_velocity(m, qpos, s->d->qvel, b, s->v[b], w_W);
}

/* The push is not solved when the energy budget would scale it below this share of the
 * potential energy that lifting every body the impulses reached by the largest push would take
 * (a resting stack dissipates rounding-level energy: its push would be scaled to nothing). */
static const tch_real PUSH_MIN_SHARE = 1e-3;

/* h max(push) Σ m |g| over the bodies the impulses reached: the potential energy of lifting
 * them all by the largest push of the step. */
static tch_real largest_lift_energy(const stage* s) {
    tch_real largest = 0, mass = 0;
    for (int i = 0; i < s->contact_count; ++i) {
        largest = fmax(largest, s->contacts[i].row.push);
    }
    for (int b = 1; b < s->m->body_count; ++b) {
        mass += s->moved[b] ? s->m->body_total_mass[b] : 0;
    }
    return s->h * largest * mass * tch_v3_norm(s->m->gravity);
}

/* Split impulse (docs/contact-lcp.md, "Stabilization"): the velocity rows of penetrating
 * contacts aim at J_n v+ >= 0, and the penetration is pushed out by a pseudo-velocity u with
 * J_n u >= stabilization * depth / h that moves the poses (q += h u) and is then dropped, so it
 * adds no kinetic energy. The potential energy it adds, -h Σ m g·u, is held to half the energy
 * the step dissipated (u is scaled down, to zero at rest), so the total never grows. */
static void correct_positions(stage* s) {
    const tch_model* m = s->m;
    tch_real budget = 0.5 * dissipated_energy(s);
    if (!(budget > 0) || budget < PUSH_MIN_SHARE * largest_lift_energy(s)) {
        return;
    }
    size_t nb = (size_t)m->body_count;
    tch_vec3* u = tch_arena_alloc(s->arena, 2 * nb * sizeof *u, "push velocities");
    tch_real* pseudo = tch_arena_alloc(s->arena, (size_t)m->nv * sizeof *pseudo, "push qvel");
    if (!u || !pseudo) {
        return;
    }
    tch_vec3* u_w = u + nb;
    memset(u, 0, 2 * nb * sizeof *u);
    for (int k = 0; k < s->island_count; ++k) {
        solve_push(s, k, u, u_w);
    }
    tch_real rise = 0; /* over the bodies that move: those the velocity impulses reached */
    for (int b = 1; b < m->body_count; ++b) {
        rise -= s->moved[b] ? s->h * m->body_total_mass[b] * tch_v3_dot(m->gravity, u[b]) : 0;
    }
    tch_real scale = rise > budget ? budget / rise : 1;
    for (int b = 1; b < m->body_count; ++b) {
        if (s->moved[b] && (tch_v3_norm2(u[b]) > 0 || tch_v3_norm2(u_w[b]) > 0)) {
            displace_body(s, b, tch_v3_scale(u[b], scale), tch_v3_scale(u_w[b], scale), pseudo);
        }
    }
}

/* ---- sleeping islands ---- */

/* An island sleeps once every body in it has ended SLEEP_TIME of steps in a row at rest: no
 * point of the body (within its reach, the largest bounding radius of its geoms) faster than
 * REST_SPEED. While it sleeps its bodies keep zero velocity and its contacts the impulses of
 * the last solve; it wakes when a body of it starts a step moving (the user set a velocity),
 * when a force other than gravity changes a body's velocity by more than WAKE_SPEED (an applied
 * force or torque, a force model's contact), or when it touches at a point that is not a stored
 * one (a new contact, an awake body joining it). Both limits are times and speeds, so the rule
 * does not depend on the time step (docs/contact-lcp.md, "Sleeping islands"). */
static const tch_real SLEEP_TIME = 0.5;
static const tch_real REST_SPEED = 1e-3;
static const tch_real WAKE_SPEED = 1e-9;

static int sleep_steps(const stage* s) {
    return (int)ceil(SLEEP_TIME / s->h - 1e-9);
}

/* Is free body b's every point slower than `speed` at the velocities (v, w)? */
static bool body_slower_than(const stage* s, int b, tch_vec3 v, tch_vec3 w, tch_real speed) {
    tch_real reach = s->d->internal->constraint.reach[b];
    return tch_v3_norm(v) + tch_v3_norm(w) * reach <= speed;
}

/* Did something other than gravity change body b's velocity in this step, or did it start the
 * step moving though it slept (the user set its velocity)? */
static bool body_disturbed(const stage* s, int b, bool asleep) {
    const tch_data* d = s->d;
    tch_vec3 kick = tch_v3_madd(tch_v3_sub(s->v[b], d->body_v_WCm[b]), -s->h, s->m->gravity);
    tch_vec3 turn = tch_v3_sub(s->w[b], d->body_w_W[b]);
    bool moving = tch_v3_norm2(d->body_v_WCm[b]) > 0 || tch_v3_norm2(d->body_w_W[b]) > 0;
    return (asleep && moving) || !body_slower_than(s, b, kick, turn, WAKE_SPEED);
}

/* Does island k sleep this step (see SLEEP_TIME)? A body's rest count is sleep_steps + 1 while
 * its island sleeps. */
static bool island_sleeps(const stage* s, int k) {
    const int* rest = s->d->internal->constraint.rest_steps;
    int needed = sleep_steps(s);
    for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
        int b = s->island_bodies[i];
        if (rest[b] < needed || body_disturbed(s, b, rest[b] > needed)) {
            return false;
        }
    }
    for (int i = s->island_start[k]; i < s->island_start[k + 1]; ++i) {
        if (!s->contacts[i].row.remembered) {
            return false;
        }
    }
    return true;
}

/* Holds a sleeping island: its bodies at zero velocity, its contacts at their warm starts
 * (which their models report as forces and keep for the next step). */
static void hold_island(stage* s, int k) {
    for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
        int b = s->island_bodies[i];
        s->v[b] = s->w[b] = tch_v3_zero();
        s->moved[b] = 1;
    }
    for (int i = s->island_start[k]; i < s->island_start[k + 1]; ++i) {
        const contact_rows* cr = &s->contacts[i];
        tch_vec3 impulse = tch_v3_scale(cr->row.n_W, cr->row.warm[0]);
        impulse = tch_v3_madd(impulse, cr->row.warm[1], cr->row.t1_W);
        impulse = tch_v3_madd(impulse, cr->row.warm[2], cr->row.t2_W);
        keep_impulse(s, cr, impulse, impulse, cr->row.carried);
    }
    s->d->constraint_sleeping_islands++;
}

/* The rest counts after the step: a body of a solved island counts one more step at rest (up
 * to sleep_steps) when it ends the step at rest, and starts over otherwise or when its island
 * was woken (it was due to sleep but was disturbed); a sleeping island's bodies are marked
 * asleep (sleep_steps + 1); a body in no island has none. */
static void count_rest_steps(const stage* s, const bool* held) {
    int* rest = s->d->internal->constraint.rest_steps;
    unsigned char* in_island = tch_arena_alloc(s->arena, (size_t)s->m->body_count, "rest");
    if (!in_island) {
        memset(rest, 0, (size_t)s->m->body_count * sizeof *rest);
        return;
    }
    memset(in_island, 0, (size_t)s->m->body_count);
    int needed = sleep_steps(s);
    for (int k = 0; k < s->island_count; ++k) {
        bool woken = !held[k];
        for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1] && woken; ++i) {
            woken = rest[s->island_bodies[i]] >= needed;
        }
        for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
            int b = s->island_bodies[i];
            in_island[b] = 1;
            bool still = !woken && body_slower_than(s, b, s->v[b], s->w[b], REST_SPEED);
            rest[b] = held[k] ? needed + 1 : still ? (rest[b] < needed ? rest[b] + 1 : needed) : 0;
        }
    }
    for (int b = 0; b < s->m->body_count; ++b) {
        rest[b] = in_island[b] ? rest[b] : 0;
    }
}

void tch_constraint_stage(const tch_model* m, tch_data* d, tch_real h) {
    d->constraint_island_count = 0;
    d->constraint_iterations = 0;
    d->constraint_residual = 0;
    d->constraint_failed_islands = 0;
    d->constraint_sleeping_islands = 0;
    memset(d->constraint_path_islands, 0, sizeof d->constraint_path_islands);
    if (!step_has_constraint_pairs(m, d)) {
        memset(d->internal->constraint.rest_steps, 0, (size_t)m->body_count * sizeof(int));
        return;
    }
    struct tch_data_internal* in = d->internal;
    stage s;
    memset(&s, 0, sizeof s);
    s.m = m, s.d = d, s.h = h, s.arena = &in->arena, s.subspace = in->constraint.subspace;
    size_t mark = tch_arena_mark(s.arena);
    if (prepare(&s, in->constraint.island_parent) != 0) {
        d->constraint_failed_islands = 1; /* out of memory: no impulse this step */
    } else {
        bool* held = tch_arena_alloc(s.arena, (size_t)s.island_count + 1, "lcp held");
        for (int k = 0; k < s.island_count; ++k) {
            bool sleeps = held && island_sleeps(&s, k);
            if (held) {
                held[k] = sleeps;
            }
            if (sleeps) {
                hold_island(&s, k);
            } else {
                solve_island(&s, k);
            }
        }
        if (held) {
            count_rest_steps(&s, held);
        }
        write_velocities(&s);
        hand_back_impulses(&s);
        correct_positions(&s);
        d->constraint_island_count = s.island_count;
    }
    tch_arena_release(s.arena, mark);
}
