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
    tch_real* m = tch_arena_alloc(arena, (size_t)n * (size_t)n * sizeof *m, "peg matrix");
    tch_real* q = tch_arena_alloc(arena, (size_t)n * sizeof *q, "peg q");
    tch_real* z = tch_arena_alloc(arena, (size_t)n * sizeof *z, "peg z");
    int* pair_start = tch_arena_alloc(arena, ((size_t)pair_count + 1) * sizeof *pair_start,
                                      "peg pair rows");
    if (!a.rows || !m || !q || !z || !pair_start) {
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
    assemble(&a, pairs, pair_count, pair_start, velocity_out, angular_out, m, q);
    for (int i = 0; i < n; ++i) {
        const row_type t = a.rows[i].type;
        result->force_rows += t == ROW_FORCE;
        result->slack_rows += t == ROW_SLACK;
        result->friction_rows += t == ROW_FRICTION || t == ROW_SIGMA;
    }
    tch_lemke_options lemke = tch_lemke_options_default();
    lemke.accept_residual = 1e-10;
    lemke.warm_start = options->warm_start;
    status = tch_lemke_solve(m, q, n, &lemke, arena, z, &result->lcp, err);
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
            for (int s = 0; s < 2 && carries_force(r) && z[i] != 0; ++s) {
                velocity_out[r->body[s]] =
                    tch_v3_madd(velocity_out[r->body[s]], z[i], r->inv_lin[s]);
                angular_out[r->body[s]] = tch_v3_madd(angular_out[r->body[s]], z[i], r->inv_ang[s]);
            }
        }
    }
    tch_arena_release(arena, mark);
    return status;
}
