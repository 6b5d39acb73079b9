/* One island of the constraints stage (engine/constraint_stage.h): its Jacobian rows, the
 * solver chain with its fallbacks (docs/contact-lcp.md, "Fallbacks"), the warnings of a
 * fallback that changed the physics, and the island observer.
 *
 * Velocities. Each free root b has the generalized velocity ν_b = (v_WCm, w_W) with the
 * block-diagonal mass M_b = diag(m I, I_W), I_W = R_WB I_B R_WBᵀ (contact_space_haptics.md sec.
 * 1). A row along unit d_W at a contact point p, between geom a's root and geom b's root, has
 * the blocks (d, r_b x d) for b and -(d, r_a x d) for a, r = p - p_WCm (peg.md sec. 1 with the
 * normal from a into b), so J ν = d . (v_b(p) - v_a(p)) and an impulse z on the row gives b the
 * impulse +z d at p and a the impulse -z d (contact/rows.h).
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
 * A bounded row (a joint's Coulomb friction, |z| <= c, no friction rows) is a box for PGS;
 * for Lemke its impulse is shifted, z = y - c, with 0 <= y ⊥ w + λ >= 0 and
 * 0 <= λ ⊥ 2 c - y >= 0 (Stewart and Trinkle's friction block with the constant bound c in
 * place of μ p_n), the shift moving q by -A c.
 *
 * b is the target of the normal row (tch_row_contact.target), which the contact's model sets.
 */
#include "engine/constraint_stage.h"

#include <math.h>
#include <string.h>

#include "contact/planar.h"
#include "solver/lemke.h"

/* ---- Jacobian rows ---- */

/* What a contact's rows share on one side: the body, the lever arm r = p - p_WCm and the
 * inverse mass and inertia (in the planar mode the constrained system's: contact/planar.h;
 * I_inv_W is already masked by the kinematics). */
typedef struct row_body {
    int body; /* free root, or 0 (static) */
    tch_vec3 r;
    tch_real inverse_mass;
    const tch_mat3* I_inv_W;
    const tch_model* m;
} row_body;

static row_body row_body_at(const tch_constraint_run* s, int geom, tch_vec3 p_W) {
    row_body side = {tch_constraint_root(s->m, geom), tch_v3_zero(), 0, NULL, s->m};
    if (side.body != 0) {
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
    if (b->body == 0) {
        side->lin = side->ang = side->inv_lin = side->inv_ang = tch_v3_zero();
        return;
    }
    side->lin = tch_v3_scale(d_W, sign);
    side->ang = tch_v3_scale(tch_v3_cross(b->r, d_W), sign);
    side->inv_lin = tch_planar_linear(b->m, tch_v3_scale(side->lin, b->inverse_mass));
    side->inv_ang = tch_m3_mul_v3(*b->I_inv_W, side->ang);
}

/* The row along d_W of a contact whose sides are (geom b's root, geom a's root). */
static void make_row(const row_body sides[2], tch_vec3 d_W, tch_jacobian_row* row) {
    make_side(&sides[0], d_W, 1, &row->side[0]);
    make_side(&sides[1], d_W, -1, &row->side[1]);
}

/* J ν with the stage's current velocities. */
static tch_real row_velocity(const tch_constraint_run* s, const tch_jacobian_row* row) {
    return tch_row_dot(row, s->v, s->w);
}

/* Marks the bodies an impulse z on the row reaches. */
static void mark_moved(tch_constraint_run* s, const tch_jacobian_row* row, tch_real z) {
    for (int k = 0; k < 2 && z != 0; ++k) {
        s->moved[row->side[k].body] = 1;
    }
}

/* ν += M⁻¹ Jᵀ z on the stage's velocities, marking the bodies reached. */
static void apply_row_impulse(tch_constraint_run* s, const tch_jacobian_row* row, tch_real z) {
    tch_row_add_impulse(row, z, s->v, s->w);
    mark_moved(s, row, z);
}

/* Friction direction e of `count` of a contact: the tangents t1, t2 (PGS, count 2) or the
 * cone edges cos(2 pi e / count) t1 + sin(2 pi e / count) t2 (Lemke). */
static tch_vec3 friction_direction(const tch_constraint_contact* cr, int e, int count) {
    if (count == 2) {
        return e == 0 ? cr->row.t1_W : cr->row.t2_W;
    }
    tch_real angle = 2 * TCH_PI * e / count;
    return tch_v3_add(tch_v3_scale(cr->row.t1_W, cos(angle)),
                      tch_v3_scale(cr->row.t2_W, sin(angle)));
}

static int is_lemke(tch_island_solver solver) {
    return solver == TCH_SOLVE_LEMKE || solver == TCH_SOLVE_NORMAL_LEMKE;
}

static int has_friction(tch_island_solver solver) {
    return solver == TCH_SOLVE_LEMKE || solver == TCH_SOLVE_PGS;
}

int tch_constraint_layout(tch_constraint_run* s, const tch_constraint_contact* cr, int nc,
                          tch_island_solver solver, tch_island_layout* L) {
    L->nc = nc;
    L->friction_start = tch_arena_alloc(s->arena, (size_t)nc * 3 * sizeof(int), "lcp layout");
    L->mu = tch_arena_alloc(s->arena, 2 * (size_t)nc * sizeof *L->mu, "lcp layout mu");
    if (!L->friction_start || !L->mu) {
        return -1;
    }
    L->bound = L->mu + nc;
    L->edges = L->friction_start + nc;
    L->lambda = L->edges + nc;
    L->nr = nc;
    for (int i = 0; i < nc; ++i) {
        L->edges[i] = cr[i].row.cone_edges == 0 || !has_friction(solver) ? 0
                      : solver == TCH_SOLVE_LEMKE                        ? cr[i].row.cone_edges
                                                                         : 2;
        L->friction_start[i] = L->nr;
        L->nr += L->edges[i];
        L->mu[i] = cr[i].row.mu;
        L->bound[i] = cr[i].bound;
    }
    L->n = L->nr;
    for (int i = 0; i < nc; ++i) {
        bool lambda = (solver == TCH_SOLVE_LEMKE && L->edges[i] > 0) ||
                      (is_lemke(solver) && L->bound[i] > 0);
        L->lambda[i] = lambda ? L->n++ : -1;
    }
    return 0;
}

void tch_constraint_build_rows(const tch_constraint_run* s, const tch_constraint_contact* cr,
                               const tch_island_layout* L, tch_jacobian_row* rows) {
    for (int i = 0; i < L->nc; ++i) {
        const tch_row_contact* c = &cr[i].row;
        if (cr[i].given) {
            rows[i] = *cr[i].given; /* a joint limit's (constraint_tree.c) */
            continue;
        }
        const row_body sides[2] = {row_body_at(s, c->geom_b, c->p_W),
                                   row_body_at(s, c->geom_a, c->p_W)};
        make_row(sides, c->n_W, &rows[i]);
        for (int e = 0; e < L->edges[i]; ++e) {
            make_row(sides, friction_direction(&cr[i], e, L->edges[i]),
                     &rows[L->friction_start[i] + e]);
        }
        for (int e = -1; s->m->articulation && e < L->edges[i]; ++e) { /* links: TREE sides */
            tch_vec3 d_W = e < 0 ? c->n_W : friction_direction(&cr[i], e, L->edges[i]);
            tch_constraint_tree_sides(s, c, d_W, &rows[e < 0 ? i : L->friction_start[i] + e]);
        }
    }
}

/* M = [A, E; μ, -Eᵀ] (A = J M⁻¹ Jᵀ over the Jacobian rows) and q = (J v* - b, 0), for Lemke. */
static void build_problem(const tch_constraint_run* s, const tch_constraint_contact* cr,
                          const tch_island_layout* L, const tch_jacobian_row* rows, tch_real* M,
                          tch_real* q) {
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
        if (l >= 0 && L->bound[i] > 0) { /* y <= 2 c ⊥ λ: w_i + λ, 2 c - y */
            q[l] = 2 * L->bound[i];
            M[i * n + l] = 1;
            M[l * n + i] = -1;
            continue;
        }
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
static void warm_cone(const tch_constraint_contact* cr, int edges, tch_real* beta) {
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

static void warm_start(const tch_constraint_contact* cr, const tch_island_layout* L,
                       tch_island_solver solver, tch_real* z) {
    memset(z, 0, (size_t)L->n * sizeof *z);
    for (int i = 0; i < L->nc; ++i) {
        z[i] = cr[i].row.warm[0];
        tch_real* friction = z + L->friction_start[i];
        if (L->edges[i] == 0) {
            continue;
        }
        if (solver == TCH_SOLVE_PGS) {
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
tch_row_problem tch_constraint_row_problem(const tch_constraint_run* s, const tch_island_layout* L,
                                           const tch_jacobian_row* rows, const tch_real* rhs) {
    return (tch_row_problem){L->nc, L->nr, L->friction_start, L->edges, L->mu,
                             rows,  rhs,   s->m->body_count,  NULL,     NULL, L->bound};
}

/* An island's impulses are applied when their natural-map residual is at most the model's
 * tolerance or this, m/s (the target for frictional problems), whichever is larger. */
static const tch_real ACCEPT_RESIDUAL = 1e-6;

/* The row solver's options: the model's tolerance and `sweeps`, subspace minimization on. */
tch_row_solve_options tch_constraint_row_options(const tch_constraint_run* s, int sweeps) {
    return (tch_row_solve_options){.sweeps = sweeps,
                                   .tolerance = s->m->lcp_tolerance,
                                   .accept = fmax(s->m->lcp_tolerance, ACCEPT_RESIDUAL),
                                   .subspace = s->subspace};
}

/* PGS gives up on an island early when it converges slowly and Lemke's problem has at most this
 * many unknowns: PGS on a box that slides and tilts with box friction can need 1e5 sweeps, and
 * Lemke solves a single box's 40 unknowns in tens of microseconds. Lemke's O(n³) makes it the
 * dearer solver on large islands, which PGS keeps with its subspace steps. */
enum { CHEAP_LEMKE_SIZE = 96 };

/* The unknowns of the island's Lemke problem: a normal row per contact, and for a frictional
 * one its cone edges and λ. */
static int lemke_size(const tch_constraint_contact* cr, int nc) {
    int n = 0;
    for (int i = 0; i < nc; ++i) {
        n += 1 + (cr[i].row.cone_edges > 0 ? cr[i].row.cone_edges + 1 : 0);
    }
    return n;
}

/* Islands whose Lemke problem has more than CHEAP_LEMKE_SIZE unknowns (more than a box or two)
 * are solved within a budget of sweeps per step when the model's solver is PGS (docs/
 * contact-lcp.md, "Solver budget"): the row solver from the warm start, at most BUDGET_SWEEPS
 * sweeps (fewer when it reaches the tolerance or stalls within the acceptance), applied with
 * the residual it reached when it adds no energy; else the same from zero, and else the
 * frictionless rows from zero, which never add energy. Such an island never reaches Lemke. */
enum { BUDGET_SWEEPS = 10, PUSH_BUDGET_SWEEPS = 4 };

static bool on_budget(const tch_constraint_run* s, int k) {
    const tch_constraint_contact* cr = s->contacts + s->island_start[k];
    int nc = s->island_start[k + 1] - s->island_start[k];
    return s->m->lcp_solver == TCH_LCP_SOLVER_PGS && lemke_size(cr, nc) > CHEAP_LEMKE_SIZE;
}

int tch_constraint_island_sweeps(const tch_constraint_run* s, int k) {
    int limit = s->m->lcp_iterations;
    return on_budget(s, k) && limit > BUDGET_SWEEPS ? BUDGET_SWEEPS : limit;
}

tch_row_solve_options tch_constraint_push_options(const tch_constraint_run* s, int k) {
    int limit = s->m->lcp_iterations;
    bool budget = on_budget(s, k);
    tch_row_solve_options options =
        tch_constraint_row_options(s, budget && limit > PUSH_BUDGET_SWEEPS ? PUSH_BUDGET_SWEEPS
                                                                           : limit);
    options.iterate_only = budget;
    return options;
}

static tch_status solve_lemke(tch_constraint_run* s, const tch_island_layout* L, const tch_real* M,
                              const tch_real* q, tch_real* z, tch_lcp_result* result) {
    tch_lemke_options options = tch_lemke_options_default();
    options.max_pivots = s->m->lcp_iterations;
    options.warm_start = true;
    options.accept_residual = s->m->lcp_tolerance;
    return tch_lemke_solve(M, q, L->n, &options, s->arena, z, result, NULL);
}

/* The contact's impulse on geom b, world: normal plus friction rows. */
static tch_vec3 contact_impulse(const tch_constraint_contact* cr, const tch_island_layout* L, int i,
                                const tch_real* z) {
    tch_vec3 impulse = tch_v3_scale(cr->row.n_W, z[i]);
    for (int e = 0; e < L->edges[i]; ++e) {
        impulse = tch_v3_madd(impulse, z[L->friction_start[i] + e],
                              friction_direction(cr, e, L->edges[i]));
    }
    return impulse;
}

/* One attempt at an island: its layout, Jacobian rows, impulses z, and the change of the
 * island's kinetic energy that z makes, ΔT = zᵀ J v* + ½ zᵀ A z. */
typedef struct island_solution {
    tch_island_layout L;
    tch_jacobian_row* rows;
    tch_real* z;
    tch_real kinetic_change;
    tch_lcp_result result;
    bool in_velocities;      /* the stage's velocities include z (the row solver's) */
    const tch_real* lemke_M; /* Lemke's problem (n x n and n), or NULL */
    const tch_real* lemke_q;
    const tch_real* steady; /* the row solver's impulses for the next warm start, or NULL */
    const tch_real* errors; /* [nr] its rows' velocity errors (tch_row_errors), or NULL */
    bool on_budget;         /* solved within the solver budget (solve_island_on_budget) */
} island_solution;

/* Applies the solution: velocities (unless they have it), and the impulses the models get
 * back. */
static void apply_solution(tch_constraint_run* s, const tch_constraint_contact* cr,
                           const island_solution* x) {
    const tch_island_layout* L = &x->L;
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
            error[k] = k == 0             ? x->errors[i]
                       : k <= L->edges[i] ? x->errors[L->friction_start[i] + k - 1]
                                          : 0;
        }
        tch_constraint_keep_impulse(s, &cr[i], impulse, warm, error);
    }
}

/* Takes an attempt's impulses back out of the stage's velocities when they are in them. */
static void withdraw(tch_constraint_run* s, island_solution* x) {
    for (int r = 0; r < x->L.nr && x->in_velocities; ++r) {
        tch_row_add_impulse(&x->rows[r], -x->z[r], s->v, s->w);
    }
    x->in_velocities = false;
}

/* The bounded rows' shift z = y - c: q' = q - A c over the Jacobian rows into shifted, and the
 * impulses z into y. */
static void shift_bounded_rows(const tch_island_layout* L, const tch_real* M, const tch_real* q,
                               tch_real* shifted, tch_real* z) {
    size_t n = (size_t)L->n;
    memcpy(shifted, q, n * sizeof *shifted);
    for (int i = 0; i < L->nc; ++i) {
        if (L->bound[i] > 0 && L->lambda[i] >= 0) {
            z[i] += L->bound[i];
            for (int j = 0; j < L->nr; ++j) {
                shifted[j] -= M[(size_t)j * n + (size_t)i] * L->bound[i];
            }
        }
    }
}

/* Lemke on the dense problem M = [A, E; μ, -Eᵀ], q = (J v* - b, 0) (build_problem), bounded
 * rows shifted; ΔT from A. */
static tch_status solve_dense(tch_constraint_run* s, const tch_constraint_contact* cr,
                              island_solution* x) {
    size_t n = (size_t)x->L.n;
    tch_real* M = tch_arena_alloc(s->arena, n * n * sizeof *M, "lcp matrix");
    tch_real* q = tch_arena_alloc(s->arena, 2 * n * sizeof *q, "lcp q");
    if (!M || !q) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    build_problem(s, cr, &x->L, x->rows, M, q);
    tch_real* shifted = q + n; /* the problem Lemke solves, in y */
    shift_bounded_rows(&x->L, M, q, shifted, x->z);
    x->lemke_M = M;
    x->lemke_q = shifted;
    tch_status status = solve_lemke(s, &x->L, M, shifted, x->z, &x->result);
    for (int i = 0; i < x->L.nc; ++i) { /* back to z */
        x->z[i] -= x->L.bound[i] > 0 && x->L.lambda[i] >= 0 ? x->L.bound[i] : 0;
    }
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

/* The velocity errors the last step left on the island's rows (tch_row_contact.carried), in
 * row order. */
static void carried_errors(const tch_constraint_contact* cr, const tch_island_layout* L,
                           tch_real* carried) {
    for (int i = 0; i < L->nc; ++i) {
        carried[i] = cr[i].row.carried[0];
        for (int e = 0; e < L->edges[i]; ++e) {
            carried[L->friction_start[i] + e] = e < 2 ? cr[i].row.carried[1 + e] : 0;
        }
    }
}

/* The kinetic energy of island k's bodies at the stage's velocities. */
static tch_real island_kinetic_energy(const tch_constraint_run* s, int k) {
    tch_real energy = 0;
    for (int i = s->island_body_start[k]; i < s->island_body_start[k + 1]; ++i) {
        int b = s->island_bodies[i];
        energy += tch_constraint_kinetic_energy(s, b, s->v[b], s->w[b]);
    }
    return energy + tch_constraint_island_tree_energy(s, k);
}

/* Do island k's bodies touch as a tree (a stack, a chain): is the number of body pairs in
 * contact one less than its bodies? Then A_FF, whose blocks couple rows through shared bodies,
 * has a factor without fill beyond its blocks: a new factorization costs in proportion to the
 * island's rows, like a few sweeps. A pile's bodies touch in cycles, and its factorizations cost
 * far more (10 ms against the 0.1 ms of a sweep on pile_100's settling islands of 800 contacts).
 * A pair of bodies that touches through several geom pairs counts several times: no tree. */
static bool bodies_touch_as_tree(const tch_constraint_run* s, int k) {
    int pairs = 0, last_a = -1, last_b = -1;
    for (int i = s->island_start[k]; i < s->island_start[k + 1]; ++i) {
        const tch_row_contact* c = &s->contacts[i].row;
        int a = tch_constraint_root(s->m, c->geom_a), b = tch_constraint_root(s->m, c->geom_b);
        if (a != 0 && b != 0 && (a != last_a || b != last_b)) {
            pairs++;
        }
        last_a = a, last_b = b;
    }
    return pairs == s->island_body_start[k + 1] - s->island_body_start[k] - 1;
}

/* Matrix-free PGS for island k on the stage's velocities (rhs = -b on the normal rows), which
 * keep the impulses (withdraw takes them out when the attempt is not applied); ΔT from the
 * island's bodies before and after. */
static tch_status solve_sparse(tch_constraint_run* s, int k, int sweeps, bool warm,
                               island_solution* x) {
    const tch_constraint_contact* cr = s->contacts + s->island_start[k];
    const tch_island_layout* L = &x->L;
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
    tch_row_problem problem = tch_constraint_row_problem(s, L, x->rows, rhs);
    problem.carried = warm ? carried : NULL;
    problem.steady = steady;
    tch_row_solve_options options = tch_constraint_row_options(s, sweeps);
    options.give_up_when_slow = lemke_size(cr, L->nc) <= CHEAP_LEMKE_SIZE;
    options.budget = x->on_budget;
    options.kept_factor_only = x->on_budget && !bodies_touch_as_tree(s, k);
    tch_status status = tch_row_solve(&problem, &options, s->arena, s->v, s->w, x->z, &x->result);
    x->kinetic_change = island_kinetic_energy(s, k) - kinetic_before;
    x->in_velocities = true;
    x->steady = steady;
    x->errors = NULL; /* a budgeted island without new factorizations takes no carried
                       * correction (constraint_pgs.c, correct_steady): its rows' errors are
                       * not worth a pass over them */
    if (!options.kept_factor_only) {
        tch_row_errors(&problem, s->v, s->w, x->z, errors);
        x->errors = errors;
    }
    return status;
}

/* Builds and solves the island's problem with `solver` (PGS with at most `sweeps` sweeps, which
 * stops on a stall once the residual is within the acceptance), from
 * `start` (the unknowns of the same solver's last attempt) or, when NULL, from the warm start.
 * Returns the solver's status; x holds the solution or the last iterate. */
static tch_status solve_island_with(tch_constraint_run* s, int k, tch_island_solver solver,
                                    int sweeps, const tch_real* start, island_solution* x) {
    const tch_constraint_contact* cr = s->contacts + s->island_start[k];
    int nc = s->island_start[k + 1] - s->island_start[k];
    x->result = (tch_lcp_result){TCH_OK, TCH_LCP_SOLVED, 0, 0};
    x->kinetic_change = 0;
    x->in_velocities = false;
    x->lemke_M = x->lemke_q = NULL;
    x->steady = x->errors = NULL;
    x->on_budget = on_budget(s, k);
    if (tch_constraint_layout(s, cr, nc, solver, &x->L) != 0) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    x->rows = tch_arena_alloc(s->arena, (size_t)x->L.nr * sizeof *x->rows, "lcp rows");
    x->z = tch_arena_alloc(s->arena, (size_t)x->L.n * sizeof *x->z, "lcp z");
    if (!x->rows || !x->z) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    tch_constraint_build_rows(s, cr, &x->L, x->rows);
    if (start) {
        memcpy(x->z, start, (size_t)x->L.n * sizeof *x->z);
    } else {
        warm_start(cr, &x->L, solver, x->z);
    }
    return is_lemke(solver) ? solve_dense(s, cr, x)
                            : solve_sparse(s, k, sweeps, solver == TCH_SOLVE_PGS, x);
}

/* Does z add no more kinetic energy than an exact solution could? At a solution,
 * complementarity gives zᵀ(A z + J v*) = Σ p_n b − Σ λ μ p_n (Lemke; for the row solver's
 * friction discs z_t . w_t <= 0 instead), so ΔT = Σ p_n b − Σ λ μ p_n − ½ zᵀ A z <= Σ p_n b:
 * only restitution targets (b > 0) may give energy back. A residual r moves each product by at
 * most |z_i| r, hence the slack r Σ |z_i|. */
static int adds_no_energy(const tch_constraint_contact* cr, const island_solution* x, tch_real r) {
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
static int acceptable(const tch_constraint_contact* cr, tch_status status, const island_solution* x,
                      tch_real accept) {
    return (status == TCH_OK || status == TCH_ERR_NUMERICAL) && x->result.residual <= accept &&
           adds_no_energy(cr, x, accept);
}

/* Does the attempt stay within the run's gain limit (tch_constraint_run.gain_limit)? */
static bool within_gain_limit(const tch_constraint_run* s, const island_solution* x) {
    return !(s->gain_limit > 0) || x->kinetic_change <= s->gain_limit;
}

/* The box form (with discs) of an applied row-solver attempt, for the observer: M = A = J M⁻¹ Jᵀ
 * over the rows, q = w - A z from the row velocities w = J v+ + rhs after the attempt. */
static int box_problem(tch_constraint_run* s, const tch_constraint_contact* cr,
                       const island_solution* x, tch_island_problem* out) {
    const tch_island_layout* L = &x->L;
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
        bool bounded = (int)i < L->nc && L->bound[i] > 0;
        lo[i] = bounded ? -L->bound[i] : 0, hi[i] = bounded ? L->bound[i] : INFINITY;
        normal_index[i] = -1;
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
static void report_island(tch_constraint_run* s, const tch_constraint_contact* cr,
                          const island_solution* x, tch_island_solver solver) {
    const tch_constraint_workspace* ws = &s->d->internal->constraint;
    if (!ws->observer) {
        return;
    }
    tch_island_problem problem = {x->L.n, x->lemke_M, x->lemke_q, NULL, NULL,
                                  NULL,   x->z,       0,          0,    false};
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

/* The attempts at an island, in order: the model's solver, then the other frictional solver
 * (and PGS again with the fallback's sweeps), then the frictionless problem by Lemke and by PGS
 * from zero. */
typedef struct solver_chain {
    int length;
    tch_island_solver step[5];
} solver_chain;
static const solver_chain LEMKE_CHAIN = {
    4, {TCH_SOLVE_LEMKE, TCH_SOLVE_PGS, TCH_SOLVE_NORMAL_LEMKE, TCH_SOLVE_NORMAL_PGS}};
static const solver_chain PGS_CHAIN = {
    5,
    {TCH_SOLVE_PGS, TCH_SOLVE_PGS, TCH_SOLVE_LEMKE, TCH_SOLVE_NORMAL_LEMKE, TCH_SOLVE_NORMAL_PGS}};

/* A PGS attempt that was not applied, for the next PGS attempt of the chain to go on from
 * instead of starting over from the warm start (its sweeps would repeat the first's). An
 * attempt that stalled (TCH_LCP_STALLED: its residual sat still over its last sweeps) has no
 * next PGS attempt: on haptic_100 and pile_100 such a continuation ended within the acceptance
 * at most 3 times in 71 and cost as much as the Lemke solve that follows it (docs/contact-lcp.md,
 * "Small islands that stall"). */
typedef struct carried_pgs {
    tch_real* z;  /* [3 nc]: the attempt's impulses, or NULL when out of memory */
    int sweeps;   /* the sweeps it took; 0: nothing carried */
    bool stalled; /* a PGS attempt stalled: no more PGS attempts */
} carried_pgs;

static void carry_over(tch_island_solver solver, const island_solution* x, carried_pgs* carry) {
    carry->sweeps = 0;
    carry->stalled = carry->stalled ||
                     (solver == TCH_SOLVE_PGS && x->result.reason == TCH_LCP_STALLED);
    if (solver == TCH_SOLVE_PGS && carry->z && x->z && x->result.iterations > 0) {
        memcpy(carry->z, x->z, (size_t)x->L.n * sizeof *carry->z);
        carry->sweeps = x->result.iterations;
    }
}

/* Does island k have a frictional contact? */
static bool has_friction_rows(const tch_constraint_run* s, int k) {
    for (int i = s->island_start[k]; i < s->island_start[k + 1]; ++i) {
        if (s->contacts[i].row.cone_edges > 0) {
            return true;
        }
    }
    return false;
}

/* Records a warning of `kind` at the step's start time for island k's first body. */
static void warn(tch_constraint_run* s, int k, tch_warning kind) {
    s->d->warning_count[kind]++;
    s->d->warning_time[kind] = s->d->time;
    s->d->warning_body[kind] = s->island_bodies[s->island_body_start[k]];
}

/* Warns when the applied attempt changed the physics the model asked for: friction dropped, or
 * a residual looser than both the model's tolerance and ACCEPT_RESIDUAL. */
static void warn_about_physics(tch_constraint_run* s, int k, tch_island_solver solver,
                               tch_real residual) {
    if (!has_friction(solver) && has_friction_rows(s, k)) {
        warn(s, k, TCH_WARN_FRICTION_DROPPED);
    }
    if (residual > fmax(s->m->lcp_tolerance, ACCEPT_RESIDUAL)) {
        warn(s, k, TCH_WARN_LOOSE_RESIDUAL);
    }
}

/* Applies attempt x of island k (the chain's attempt `attempt`, by `solver`): its warnings,
 * counts, impulses and the observer's report. */
static void apply_attempt(tch_constraint_run* s, int k, tch_island_solver solver, int attempt,
                          const island_solution* x) {
    tch_data* d = s->d;
    warn_about_physics(s, k, solver, x->result.residual);
    d->constraint_failed_islands += attempt > 0;
    d->constraint_path_islands[solver]++;
    d->constraint_residual = fmax(d->constraint_residual, x->result.residual);
    apply_solution(s, s->contacts + s->island_start[k], x);
    report_island(s, s->contacts + s->island_start[k], x, solver);
}

/* Island k within the solver budget (BUDGET_SWEEPS): its attempts in ORDER, the first that adds
 * no energy applied, the last always (within the run's gain limit, when it has one). */
static void solve_island_on_budget(tch_constraint_run* s, int k) {
    const tch_constraint_contact* cr = s->contacts + s->island_start[k];
    int nc = s->island_start[k + 1] - s->island_start[k];
    static const tch_island_solver ORDER[3] = {TCH_SOLVE_PGS, TCH_SOLVE_PGS, TCH_SOLVE_NORMAL_PGS};
    tch_real accept = fmax(s->m->lcp_tolerance, ACCEPT_RESIDUAL);
    size_t outer = tch_arena_mark(s->arena);
    tch_real* zero = tch_arena_alloc(s->arena, (size_t)nc * 3 * sizeof *zero, "lcp zero start");
    if (zero) {
        memset(zero, 0, (size_t)nc * 3 * sizeof *zero);
    }
    size_t mark = tch_arena_mark(s->arena);
    island_solution x;
    int applied = 0;
    for (int attempt = 0; attempt < 3 && !applied; ++attempt) {
        if (attempt == 1 && !zero) {
            continue;
        }
        tch_arena_release(s->arena, mark);
        tch_status status =
            solve_island_with(s, k, ORDER[attempt], tch_constraint_island_sweeps(s, k),
                              attempt == 1 ? zero : NULL, &x);
        s->d->constraint_iterations += x.result.iterations;
        int solved = status == TCH_OK || status == TCH_ERR_NUMERICAL;
        applied = (attempt == 2 ? solved : solved && adds_no_energy(cr, &x, accept)) &&
                  within_gain_limit(s, &x);
        if (applied) {
            apply_attempt(s, k, ORDER[attempt], attempt, &x);
        } else {
            withdraw(s, &x);
        }
    }
    s->d->constraint_failed_islands += !applied;
    tch_arena_release(s->arena, outer);
}

/* Solves island k and applies the first acceptable attempt of its chain. PGS as the model's
 * solver runs the model's sweep limit; as the fallback it goes on from where that attempt
 * stopped, up to FALLBACK_SWEEPS in all (or the model's limit when larger). The last attempt
 * is always applied: from zero, each PGS update lowers ½ pᵀ A_nn p + pᵀ (J_n v* − b) (A_nn is
 * symmetric PSD), so with b <= 0 it never adds kinetic energy, whatever the residual. With a
 * gain limit (tch_constraint_run.gain_limit; a model's targets b > 0 can ask for any energy) an
 * attempt beyond it is never applied, the last included: the island then gets no impulse. An
 * island whose first attempt was not applied counts in constraint_failed_islands; the applied
 * path in constraint_path_islands. */
void tch_constraint_solve_island(tch_constraint_run* s, int k) {
    if (on_budget(s, k)) {
        solve_island_on_budget(s, k);
        return;
    }
    tch_data* d = s->d;
    const tch_constraint_contact* cr = s->contacts + s->island_start[k];
    int nc = s->island_start[k + 1] - s->island_start[k];
    const solver_chain* chain = s->m->lcp_solver == TCH_LCP_SOLVER_PGS ? &PGS_CHAIN : &LEMKE_CHAIN;
    tch_real accept = fmax(s->m->lcp_tolerance, ACCEPT_RESIDUAL);
    int fallback_sweeps =
        s->m->lcp_iterations > FALLBACK_SWEEPS ? s->m->lcp_iterations : FALLBACK_SWEEPS;
    size_t outer = tch_arena_mark(s->arena);
    tch_real* carried = tch_arena_alloc(s->arena, (size_t)nc * 3 * sizeof *carried, "lcp carry");
    carried_pgs carry = {carried, 0, false};
    size_t mark = tch_arena_mark(s->arena);
    island_solution x;
    int applied = 0;
    int length = chain->length;
    for (int attempt = 0; attempt < length && !applied; ++attempt) {
        tch_island_solver solver = chain->step[attempt];
        tch_arena_release(s->arena, mark);
        const tch_real* start = solver == TCH_SOLVE_PGS && carry.sweeps > 0 ? carry.z : NULL;
        int sweeps =
            (attempt == 0 ? s->m->lcp_iterations : fallback_sweeps) - (start ? carry.sweeps : 0);
        if (sweeps <= 0 || (solver == TCH_SOLVE_PGS && carry.stalled)) {
            continue; /* the last attempt already ran this attempt's sweeps, or stalled */
        }
        tch_status status = solve_island_with(s, k, solver, sweeps, start, &x);
        d->constraint_iterations += x.result.iterations;
        applied = (attempt == length - 1 ? status == TCH_OK || status == TCH_ERR_NUMERICAL
                                         : acceptable(cr, status, &x, accept)) &&
                  within_gain_limit(s, &x);
        if (applied) {
            apply_attempt(s, k, solver, attempt, &x);
        } else {
            withdraw(s, &x);
            carry_over(solver, &x, &carry);
        }
    }
    d->constraint_failed_islands += !applied;
    tch_arena_release(s->arena, outer);
}
