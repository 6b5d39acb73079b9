/* peg's velocity-level LCP (eqs. 39-49, friction of peg.md §8): see peg_lcp.h. */
#include "contact/peg_lcp.h"

#include <math.h>
#include <string.h>

#include "base/error.h"
#include "math/vec.h"
#include "solver/lemke.h"

typedef enum row_type { ROW_FORCE, ROW_SLACK, ROW_FRICTION, ROW_SIGMA } row_type;

/* One unknown of the reduced LCP and its row. */
typedef struct lcp_row {
    row_type type;
    int body[2];                     /* [0] B, [1] A (as tch_peg_jacobian) */
    tch_peg_jacobian j;              /* zero for a sigma row */
    tch_vec3 inv_lin[2], inv_ang[2]; /* M⁻¹ Jᵀ by side (force and friction rows) */
    tch_real constant;               /* psi / h */
    int first_slack;                 /* force, slack rows: the constraint's first slack row */
    int slack_index;                 /* force rows: slack count; slack rows: s = 1..K */
    int sigma;                       /* friction rows: their sigma row */
    int normal, first_friction, friction_count; /* sigma rows */
    tch_real mu;
    const tch_peg_pair* pair;        /* force and friction rows: whose constraint */
    int constraint;                  /* its index in the pair's list */
} lcp_row;

typedef struct assembly {
    const tch_peg_body* bodies;
    const tch_peg_step_options* options;
    lcp_row* rows;
    int count;
} assembly;

static bool carries_force(const lcp_row* r) {
    return r->type == ROW_FORCE || r->type == ROW_FRICTION;
}

static lcp_row* add_row(assembly* a, row_type type, const tch_peg_pair* pair,
                        const tch_peg_jacobian* j, tch_real constant) {
    lcp_row* r = &a->rows[a->count++];
    memset(r, 0, sizeof *r);
    r->type = type;
    r->body[0] = pair->body_b;
    r->body[1] = pair->body_a;
    r->pair = pair;
    if (j) {
        r->j = *j;
    }
    r->constant = constant;
    for (int s = 0; s < 2 && carries_force(r); ++s) {
        const tch_peg_body* b = &a->bodies[r->body[s]];
        r->inv_lin[s] = tch_v3_scale(r->j.lin[s], b->inverse_mass);
        r->inv_ang[s] = tch_m3_mul_v3(b->inverse_inertia, r->j.ang[s]);
    }
    return r;
}

/* The unit friction directions at a contact: +-t in the plane, else n_d evenly about n. */
static tch_vec3 friction_direction(const tch_peg_step_options* o, tch_vec3 n, int k) {
    if (o->planar) {
        const bool z = !(tch_v3_norm2(o->plane_normal) > 0);
        const tch_vec3 t = z ? tch_v3(-n.y, n.x, 0) : tch_v3_cross(o->plane_normal, n);
        return k == 0 ? t : tch_v3_neg(t);
    }
    tch_vec3 t, u;
    tch_v3_basis(n, &t, &u);
    const tch_real angle = 2 * TCH_PI * k / o->friction_directions;
    return tch_v3_add(tch_v3_scale(t, cos(angle)), tch_v3_scale(u, sin(angle)));
}

/* Friction rows of the force row `normal` at contact c (peg.md §8): per direction d, body A
 * (-d, r_a x (-d)) and body B (d, r_b x d), then sigma. */
static void add_friction(assembly* a, const tch_peg_pair* pair, const tch_peg_contact* c,
                         int normal, int constraint) {
    const int directions = a->options->planar ? 2 : a->options->friction_directions;
    const tch_vec3 point_b = tch_v3_madd(c->point_a, c->gap, c->normal);
    const tch_vec3 r_a = tch_v3_sub(c->point_a, a->bodies[pair->body_a].position);
    const tch_vec3 r_b = tch_v3_sub(point_b, a->bodies[pair->body_b].position);
    const int first = a->count, sigma = first + directions;
    for (int k = 0; k < directions; ++k) {
        const tch_vec3 d = friction_direction(a->options, c->normal, k);
        const tch_peg_jacobian j = {{d, tch_v3_neg(d)},
                                    {tch_v3_cross(r_b, d), tch_v3_cross(r_a, tch_v3_neg(d))}};
        lcp_row* r = add_row(a, ROW_FRICTION, pair, &j, 0);
        r->sigma = sigma;
        r->constraint = constraint;
    }
    lcp_row* s = add_row(a, ROW_SIGMA, pair, NULL, 0);
    s->normal = normal;
    s->first_friction = first;
    s->friction_count = directions;
    s->mu = pair->friction;
}

/* The rows of one constraint under the model. */
static void add_constraint(assembly* a, const tch_peg_pair* pair, int index) {
    const tch_peg_constraints* list = pair->constraints;
    const tch_peg_constraint* c = &list->constraints[index];
    const tch_real h = a->options->h;
    const tch_peg_contact* primary = &list->contacts[c->first];
    int slacks = c->count - 1;
    if (a->options->model == TCH_PEG_MODEL_STANDARD) {
        if (c->kind == TCH_PEG_X) {
            return;
        }
        for (int i = c->first; i < c->first + c->count; ++i) {
            primary = list->contacts[i].gap < primary->gap ? &list->contacts[i] : primary;
        }
        slacks = 0;
    }
    const int force = a->count;
    lcp_row* f = add_row(a, ROW_FORCE, pair, &primary->jacobian, primary->gap / h);
    f->first_slack = force + 1;
    f->slack_index = slacks;
    f->constraint = index;
    for (int s = 1; s <= slacks; ++s) {
        tch_real value;
        tch_peg_jacobian j;
        tch_peg_constraint_row(list, index, s, &value, &j); /* eq. 42 */
        lcp_row* r = add_row(a, ROW_SLACK, pair, &j, value / h);
        r->first_slack = force + 1;
        r->slack_index = s;
    }
    if (pair->friction > 0 && c->kind != TCH_PEG_X) {
        add_friction(a, pair, primary, force, index);
    }
}

int tch_peg_constraint_unknowns(const tch_peg_pair* pair, int i, const tch_peg_step_options* o) {
    const tch_peg_constraint* c = &pair->constraints->constraints[i];
    const int friction = pair->friction > 0 ? (o->planar ? 2 : o->friction_directions) + 1 : 0;
    if (c->kind == TCH_PEG_X) {
        return o->model == TCH_PEG_MODEL_PEG ? c->count : 0;
    }
    return (o->model == TCH_PEG_MODEL_PEG ? c->count : 1) + friction;
}

int tch_peg_pair_unknowns(const tch_peg_pair* pair, const tch_peg_step_options* o) {
    int rows = 0;
    for (int i = 0; i < pair->constraints->count; ++i) {
        rows += tch_peg_constraint_unknowns(pair, i, o);
    }
    return rows;
}

static tch_real row_dot(const lcp_row* r, const tch_vec3* v, const tch_vec3* w) {
    tch_real sum = 0;
    for (int s = 0; s < 2; ++s) {
        sum += tch_v3_dot(r->j.lin[s], v[r->body[s]]) + tch_v3_dot(r->j.ang[s], w[r->body[s]]);
    }
    return sum;
}

/* J_i M⁻¹ J_kᵀ through the bodies the two rows share. */
static tch_real coupling(const lcp_row* i, const lcp_row* k) {
    tch_real sum = 0;
    for (int s = 0; s < 2; ++s) {
        for (int t = 0; t < 2; ++t) {
            if (i->body[s] == k->body[t]) {
                sum +=
                    tch_v3_dot(i->j.lin[s], k->inv_lin[t]) + tch_v3_dot(i->j.ang[s], k->inv_ang[t]);
            }
        }
    }
    return sum;
}

/* The structural entries of row i (the E blocks of eq. 48 and the friction cone's). */
static void structural(const lcp_row* rows, int i, tch_real* m_row) {
    const lcp_row* r = &rows[i];
    switch (r->type) {
    case ROW_FORCE: /* eq. 45: + E_I2 c */
        for (int s = 0; s < r->slack_index; ++s) {
            m_row[r->first_slack + s] += 1;
        }
        break;
    case ROW_SLACK: /* eq. 46: + E_I1 c, lower-triangular ones */
        for (int l = 0; l < r->slack_index; ++l) {
            m_row[r->first_slack + l] += 1;
        }
        break;
    case ROW_FRICTION:
        m_row[r->sigma] += 1;
        break;
    case ROW_SIGMA:
        m_row[r->normal] += r->mu;
        for (int k = 0; k < r->friction_count; ++k) {
            m_row[r->first_friction + k] -= 1;
        }
        break;
    }
}

/* Do the two pairs' rows couple: a moving body in common? */
static bool pairs_couple(const assembly* a, const tch_peg_pair* p, const tch_peg_pair* r) {
    const int bp[2] = {p->body_a, p->body_b}, br[2] = {r->body_a, r->body_b};
    for (int s = 0; s < 2; ++s) {
        for (int t = 0; t < 2; ++t) {
            if (bp[s] == br[t] && a->bodies[bp[s]].inverse_mass > 0) {
                return true;
            }
        }
    }
    return false;
}

/* M and q; the rows of each pair are consecutive (pair_start[p] .. pair_start[p + 1]), and
 * J_i M⁻¹ J_kᵀ is summed only between pairs that share a moving body. */
static void assemble(const assembly* a, const tch_peg_pair* pairs, int pair_count,
                     const int* pair_start, const tch_vec3* v, const tch_vec3* w, tch_real* m,
                     tch_real* q) {
    const int n = a->count;
    memset(m, 0, (size_t)n * (size_t)n * sizeof *m);
    for (int p = 0; p < pair_count; ++p) {
        for (int r = 0; r < pair_count; ++r) {
            if (!pairs_couple(a, &pairs[p], &pairs[r])) {
                continue;
            }
            for (int i = pair_start[p]; i < pair_start[p + 1]; ++i) {
                tch_real* m_row = m + (size_t)i * (size_t)n;
                for (int k = pair_start[r]; k < pair_start[r + 1]; ++k) {
                    if (a->rows[i].type != ROW_SIGMA && carries_force(&a->rows[k])) {
                        m_row[k] += coupling(&a->rows[i], &a->rows[k]);
                    }
                }
            }
        }
    }
    for (int i = 0; i < n; ++i) {
        const lcp_row* r = &a->rows[i];
        structural(a->rows, i, m + (size_t)i * (size_t)n);
        q[i] = r->type == ROW_SIGMA ? 0 : row_dot(r, v, w) + r->constant;
    }
}

/* ---- Gauss-Seidel over the constraints (frictionless; peg_lcp.h) ---- */

/* Adds impulse `amount` along row r to the velocities. */
static void push(const lcp_row* r, tch_real amount, tch_vec3* v, tch_vec3* w) {
    for (int s = 0; s < 2; ++s) {
        v[r->body[s]] = tch_v3_madd(v[r->body[s]], amount, r->inv_lin[s]);
        w[r->body[s]] = tch_v3_madd(w[r->body[s]], amount, r->inv_ang[s]);
    }
}

/* rate[i]: a force row's J_1 M⁻¹ J_1ᵀ; slack row s's (J_1 - J_{s+1}) M⁻¹ J_1ᵀ (its change per
 * unit of the constraint's impulse). */
static void sweep_rates(const assembly* a, tch_real* rate) {
    for (int i = 0; i < a->count; ++i) {
        const lcp_row* r = &a->rows[i];
        rate[i] = r->type == ROW_FORCE   ? coupling(r, r)
                  : r->type == ROW_SLACK ? coupling(r, &a->rows[r->first_slack - 1])
                                         : 0;
    }
}

/* The block's solution set (peg_lcp.h): with the other constraints held, each g_s is affine in
 * the impulse, g_s(p') = at_zero_s + rise_s p', so f(p') = max_s g_s(p') is convex and
 * {p' : f(p') <= 0} is the interval [low, high], high the first root of a rising g_s and low
 * the last root of a falling one (empty when a constant g_s is > 0). The solutions of
 * 0 <= p' ⊥ f(p') >= 0 are p' = 0 when f(0) >= 0 and the interval's ends that are > 0. */
typedef struct block_solutions {
    tch_real largest_at_zero; /* f(0) */
    tch_real low, high;       /* the interval; low > high: empty */
} block_solutions;

static void block_add(block_solutions* b, tch_real at_zero, tch_real rise, tch_real tiny) {
    b->largest_at_zero = fmax(b->largest_at_zero, at_zero);
    if (rise > tiny) {
        b->high = fmin(b->high, -at_zero / rise);
    } else if (rise < -tiny) {
        b->low = fmax(b->low, -at_zero / rise);
    } else if (at_zero > 0) {
        b->low = INFINITY; /* f > 0 everywhere */
    }
}

/* The impulse solving force row f's block with the others held: of the block's solutions
 * (above), the one nearest the current impulse z[f]. From z[f] = 0 that is the rule p' = 0
 * when f(0) >= 0, else the first root of a rising g_s; from z[f] > 0 it keeps an
 * I-constraint on the branch it is on (held by its impulse at an end of the interval) where
 * the rule would drop it to 0 whenever another of its contacts is ahead at p' = 0, the flip
 * that made the sweeps cycle on piles (measured in the 2D pour: docs/peg.md). 0 when there
 * is none (f(0) < 0 and no g_s rises: Lemke's). *gap: max_s g_s at the current impulse. */
static tch_real block_impulse(const assembly* a, const tch_real* rate, const tch_real* z, int f,
                              const tch_vec3* v, const tch_vec3* w, tch_real* gap) {
    const lcp_row* force = &a->rows[f];
    const tch_real g1 = row_dot(force, v, w) + force->constant, a1 = rate[f], p = z[f];
    const tch_real tiny = 1e-12 * a1;
    block_solutions b = {-INFINITY, -INFINITY, INFINITY};
    *gap = g1;
    block_add(&b, g1 - p * a1, a1, tiny);
    for (int s = 1; s <= force->slack_index; ++s) {
        const lcp_row* slack = &a->rows[f + s];
        const tch_real g = g1 - (row_dot(slack, v, w) + slack->constant), rise = a1 - rate[f + s];
        *gap = fmax(*gap, g);
        block_add(&b, g - p * rise, rise, tiny);
    }
    tch_real best = 0, distance = b.largest_at_zero >= 0 ? p : INFINITY;
    const tch_real ends[2] = {b.low, b.high};
    for (int k = 0; k < 2 && b.low <= b.high; ++k) {
        if (ends[k] > 0 && ends[k] < INFINITY && fabs(ends[k] - p) < distance) {
            best = ends[k];
            distance = fabs(ends[k] - p);
        }
    }
    return best;
}

/* The slacks c of force row f at the velocities, by forward substitution (eqs. 46-47). */
static void fill_slacks(const assembly* a, int f, const tch_vec3* v, const tch_vec3* w,
                        tch_real* z) {
    tch_real sum = 0;
    for (int s = 1; s <= a->rows[f].slack_index; ++s) {
        const lcp_row* slack = &a->rows[f + s];
        const tch_real value = row_dot(slack, v, w) + slack->constant + sum;
        z[f + s] = value < 0 ? -value : 0;
        sum += z[f + s];
    }
}

/* The sweeps stop (and Lemke solves) when STALL_SWEEPS of them did not bring the largest
 * change below STALL_RATIO of what it was (measured in the 2D pour: 200 sweeps and 0.9 left a
 * quarter of the big islands to Lemke at h >= 8 ms, 1000 and 0.99 a twentieth at 8 ms, 5000
 * and 0.999 no fewer): a non-PSD problem's sweeps can cycle between blocks, or crawl (two
 * I-constraints of one pair with opposite primaries drifting along their null direction). */
enum { STALL_SWEEPS = 20 };
static const tch_real STALL_RATIO = 0.99;

/* The natural-map residual of the force rows at z and the velocities: max |min(p, max_s g_s)|
 * (the slack rows hold by construction, fill_slacks). */
static tch_real natural_residual(const assembly* a, const tch_real* rate, const tch_real* z,
                                 const tch_vec3* v, const tch_vec3* w) {
    tch_real residual = 0;
    for (int f = 0; f < a->count; ++f) {
        if (a->rows[f].type == ROW_FORCE) {
            tch_real gap;
            block_impulse(a, rate, z, f, v, w, &gap);
            residual = fmax(residual, fabs(fmin(z[f], gap)));
        }
    }
    return residual;
}

/* Sweeps from the warm start z over the force rows; v, w hold nu~ on entry and the velocities
 * of z on return. Stops when a sweep moves no row's velocity by more than the tolerance and
 * the end point's natural residual is within it; returns that residual (the last one
 * measured: INFINITY when no sweep got that close). */
static tch_real gauss_seidel(const assembly* a, tch_real* rate, tch_real* z, tch_vec3* v,
                             tch_vec3* w, const tch_peg_step_options* o, int* sweeps) {
    sweep_rates(a, rate);
    for (int i = 0; i < a->count; ++i) {
        if (a->rows[i].type == ROW_FORCE && z[i] > 0) {
            push(&a->rows[i], z[i], v, w);
        } else {
            z[i] = 0;
        }
    }
    tch_real residual = INFINITY, checkpoint = INFINITY;
    const tch_real omega = o->relaxation > 0 ? o->relaxation : 1;
    for (*sweeps = 0; *sweeps < o->sweeps;) {
        ++*sweeps;
        tch_real change = 0;
        for (int f = 0; f < a->count; ++f) {
            if (a->rows[f].type != ROW_FORCE) {
                continue;
            }
            tch_real gap;
            const tch_real exact = block_impulse(a, rate, z, f, v, w, &gap);
            const tch_real p = fmax(0, z[f] + omega * (exact - z[f]));
            change = fmax(change, fabs(p - z[f]) * rate[f]);
            push(&a->rows[f], p - z[f], v, w);
            z[f] = p;
        }
        if (*sweeps % STALL_SWEEPS == 0) {
            if (change > STALL_RATIO * checkpoint) {
                break; /* cycling: Lemke's */
            }
            checkpoint = change;
        }
        if (change <= o->tolerance) {
            residual = natural_residual(a, rate, z, v, w);
            if (residual <= o->tolerance) {
                break;
            }
        }
    }
    for (int f = 0; f < a->count; ++f) {
        if (a->rows[f].type == ROW_FORCE) {
            fill_slacks(a, f, v, w, z);
        }
    }
    return residual;
}

/* The Gauss-Seidel path (peg_lcp.h) when asked for and the problem is frictionless: z from
 * the warm start to the sweeps' end point; result->swept when it is accepted. The velocities
 * hold nu~ again on return. */
static tch_status sweep(const assembly* a, int body_count, tch_real* z, tch_vec3* v, tch_vec3* w,
                        tch_arena* arena, tch_peg_step_result* result, tch_error* err) {
    if (a->options->sweeps <= 0 || result->friction_rows > 0) {
        return TCH_OK;
    }
    tch_real* rate = tch_arena_alloc(arena, 2 * (size_t)a->count * sizeof *rate, "peg rates");
    tch_real* warm = rate + a->count;
    tch_vec3* start = tch_arena_alloc(arena, 2 * (size_t)body_count * sizeof *start, "peg nu~");
    if (!rate || !start) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory (peg sweeps)");
    }
    memcpy(warm, z, (size_t)a->count * sizeof *z);
    memcpy(start, v, (size_t)body_count * sizeof *start);
    memcpy(start + body_count, w, (size_t)body_count * sizeof *start);
    result->residual = gauss_seidel(a, rate, z, v, w, a->options, &result->sweeps);
    result->swept = result->residual <= a->options->tolerance;
    if (!result->swept) { /* Lemke from the caller's warm start: measured in the 2D pour,
                           * the sweeps' point of a stalled island cost it more pivots */
        memcpy(z, warm, (size_t)a->count * sizeof *z);
    }
    memcpy(v, start, (size_t)body_count * sizeof *start);
    memcpy(w, start + body_count, (size_t)body_count * sizeof *start);
    return TCH_OK;
}

/* The dense LCP solved by Lemke from z (warm when asked for). */
static tch_status solve_lemke(const assembly* a, const tch_peg_pair* pairs, int pair_count,
                              const int* pair_start, tch_real* z, const tch_vec3* v,
                              const tch_vec3* w, tch_arena* arena, tch_peg_step_result* result,
                              tch_error* err) {
    const int n = a->count;
    tch_real* m = tch_arena_alloc(arena, (size_t)n * (size_t)n * sizeof *m, "peg matrix");
    tch_real* q = tch_arena_alloc(arena, (size_t)n * sizeof *q, "peg q");
    if (!m || !q) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory (peg LCP)");
    }
    assemble(a, pairs, pair_count, pair_start, v, w, m, q);
    tch_lemke_options lemke = tch_lemke_options_default();
    lemke.accept_residual = 1e-10;
    lemke.warm_start = a->options->warm_start;
    return tch_lemke_solve(m, q, n, &lemke, arena, z, &result->lcp, err);
}

static tch_status check(int body_count, const tch_peg_pair* pairs, int pair_count,
                        const tch_peg_step_options* o, tch_error* err) {
    if (body_count < 0 || pair_count < 0 || !(o->h > 0) ||
        (!o->planar && (o->friction_directions < 3 || o->friction_directions > 64))) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "peg step: bad sizes, time step %g or friction directions %d", o->h,
                        o->friction_directions);
    }
    for (int p = 0; p < pair_count; ++p) {
        if (pairs[p].body_a < 0 || pairs[p].body_a >= body_count || pairs[p].body_b < 0 ||
            pairs[p].body_b >= body_count || pairs[p].body_a == pairs[p].body_b ||
            !(pairs[p].friction >= 0)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "peg step: pair %d names bodies %d and %d of %d, friction %g", p,
                            pairs[p].body_a, pairs[p].body_b, body_count, pairs[p].friction);
        }
    }
    return TCH_OK;
}

tch_status tch_peg_step_velocities(const tch_peg_body* bodies, int body_count,
                                   const tch_peg_pair* pairs, int pair_count,
                                   const tch_peg_step_options* options, tch_arena* arena,
                                   tch_vec3* velocity_out, tch_vec3* angular_out,
                                   tch_peg_step_result* result, tch_error* err) {
    tch_peg_step_result local;
    result = result ? result : &local;
    memset(result, 0, sizeof *result);
    tch_status status = check(body_count, pairs, pair_count, options, err);
    if (status != TCH_OK) {
        return status;
    }
    for (int p = 0; p < pair_count; ++p) {
        for (int i = 0; pairs[p].impulses && i < pairs[p].constraints->count; ++i) {
            pairs[p].impulses[i] = tch_v3_zero();
        }
    }
    /* nu~ = nu^l + h M⁻¹ lambda_ext */
    for (int b = 0; b < body_count; ++b) {
        const tch_peg_body* body = &bodies[b];
        velocity_out[b] = tch_v3_madd(body->velocity, options->h * body->inverse_mass, body->force);
        angular_out[b] = tch_v3_madd(body->angular_velocity, options->h,
                                     tch_m3_mul_v3(body->inverse_inertia, body->torque));
    }
    int n = 0;
    for (int p = 0; p < pair_count; ++p) {
        n += tch_peg_pair_unknowns(&pairs[p], options);
    }
    if (n == 0) {
        return TCH_OK;
    }
    const size_t mark = tch_arena_mark(arena);
    assembly a = {bodies, options, tch_arena_alloc(arena, (size_t)n * sizeof(lcp_row), "peg rows"),
                  0};
    tch_real* z = tch_arena_alloc(arena, (size_t)n * sizeof *z, "peg z");
    int* pair_start = tch_arena_alloc(arena, ((size_t)pair_count + 1) * sizeof *pair_start,
                                      "peg pair rows");
    if (!a.rows || !z || !pair_start) {
        tch_arena_release(arena, mark);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory (peg LCP)");
    }
    for (int p = 0; p < pair_count; ++p) {
        pair_start[p] = a.count;
        for (int i = 0; i < pairs[p].constraints->count; ++i) {
            add_constraint(&a, &pairs[p], i);
        }
        for (int i = 0; i < a.count - pair_start[p]; ++i) {
            z[pair_start[p] + i] = options->warm_start && pairs[p].unknowns
                                       ? pairs[p].unknowns[i] : 0;
        }
    }
    pair_start[pair_count] = a.count;
    for (int i = 0; i < n; ++i) {
        const row_type t = a.rows[i].type;
        result->force_rows += t == ROW_FORCE;
        result->slack_rows += t == ROW_SLACK;
        result->friction_rows += t == ROW_FRICTION || t == ROW_SIGMA;
    }
    status = sweep(&a, body_count, z, velocity_out, angular_out, arena, result, err);
    if (status == TCH_OK && !result->swept) {
        status = solve_lemke(&a, pairs, pair_count, pair_start, z, velocity_out, angular_out,
                             arena, result, err);
    }
    if (status == TCH_OK) {
        for (int p = 0; p < pair_count; ++p) {
            for (int i = 0; pairs[p].unknowns && i < pair_start[p + 1] - pair_start[p]; ++i) {
                pairs[p].unknowns[i] = z[pair_start[p] + i];
            }
        }
        for (int i = 0; i < n; ++i) {
            const lcp_row* r = &a.rows[i];
            if (carries_force(r) && r->pair->impulses) { /* lin[0]: n or d, on B */
                tch_vec3* impulse = &r->pair->impulses[r->constraint];
                *impulse = tch_v3_madd(*impulse, z[i], r->j.lin[0]);
            }
            if (carries_force(r) && z[i] != 0) {
                push(r, z[i], velocity_out, angular_out);
            }
        }
    }
    tch_arena_release(arena, mark);
    return status;
}
