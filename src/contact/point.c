/* The point contact model: a penalty spring-damper at each contact point with regularized
 * Coulomb friction (docs/contact-point.md). This is the baseline the other models are
 * compared with (Hasegawa and Sato, sec. 3: "point-based penalty method").
 *
 * Normal force on b, along n (from a into b), with depth d > 0 and penetration rate
 * d' = -(v_b(p) - v_a(p)) . n:
 *
 *     linear:         f_n = max(0, k d + b d')
 *     Hunt-Crossley:  f_n = max(0, k d^e (1 + 3/2 alpha d'))   (Hunt and Crossley 1975, with
 *                     lambda = 3/2 alpha k as in Marhefka and Orin 1999)
 *
 * Friction is semi-implicit: after every normal force of the scene is applied, each body's
 * velocity after one step under its loads so far is predicted, and the friction of a pair is the
 * force that stops the predicted slip at its points (a few Gauss-Seidel sweeps over the points,
 * each with the effective mass of both bodies at the point, translation and rotation), clamped to
 * the Coulomb disk |f_t| <= mu f_n. All point pairs of the scene are solved together, so that a
 * body's prediction holds the friction of all its pairs. The coefficient is the static mu_s
 * while the slip speed before the step is below the stiction velocity v_s, and falls smoothly
 * (cubic) to the dynamic mu_d at 3 v_s. A body can so rest on a slope without creeping, roll without slipping, and
 * slide with the Coulomb deceleration, at any stiffness the step allows.
 *
 * Unset stiffness and damping (contact/params.h): with the implicit and adaptive integrators
 * (the default of a scene that names none, io/compile.c) a material of 1e6 N/m per point and a
 * relaxation time of 20 ms, integrated implicitly through point_linearize; with the explicit
 * ones (a scene that names Euler or RK4) values derived from the pair's mass and the time step.
 * With the explicit integrators, the points that share a body are bounded together before any
 * force is applied: with M the body's mass matrix and K, D the sums of its points' k J^T J and
 * b J^T J (J = [n^T, (r x n)^T], twice for a point between two free bodies, which bounds the
 * coupled system by its bodies alone: (u - v)(u - v)^T <= 2 (u u^T + v v^T)), the derived
 * values of its points are scaled so that h^2 lambda_max(M^-1 K) <= 1 and
 * h mu_max(M^-1 D) <= 1 (docs/contact-point.md, "Derived stiffness and damping").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collision/narrowphase.h"
#include "contact/contact.h"
#include "contact/friction.h"
#include "contact/params.h"
#include "contact/restitution.h"
#include "math/vec.h"

enum { TCH_POINT_MAX_PAIR_POINTS = TCH_MANIFOLD_CAPACITY };

static tch_real normal_force(const tch_pair_params* p, tch_real depth, tch_real rate) {
    tch_real f;
    if (p->law == TCH_POINT_LAW_HUNT_CROSSLEY) {
        f = p->stiffness * pow(depth, p->exponent) * (1 + 1.5 * p->dissipation * rate);
    } else {
        f = p->stiffness * depth + p->damping * rate;
    }
    return fmax(f, 0);
}

static tch_vec3 relative_velocity(const tch_model* model, const tch_data* data,
                                  const tch_pair_result* pair, tch_vec3 p_W) {
    return tch_v3_sub(tch_contact_point_velocity(model, data, pair->geom_b, p_W),
                      tch_contact_point_velocity(model, data, pair->geom_a, p_W));
}

/* ∂f_n/∂d and ∂f_n/∂d' of the normal law at (depth, rate) for a touching point (depth >= 0).
 * A point that just touches (depth 0, not separating) keeps its derivatives although its force
 * is still 0: the implicit step then couples the bodies it joins within the step
 * (docs/integrators.md, "The point model"). Where the law pulls and is clamped, they are zero
 * for a point that leaves (separating faster than `settling`), and those of the law at rest
 * (rate 0) for one that settles: left out, a body wedged between two stiff points rocked
 * between them every two steps forever, each point's damper clamping it in turn (the step
 * that let one point go drove the body into the other, whose push then clamped the first;
 * docs/contact-point.md, "A body at rest"). */
static void normal_force_derivatives(const tch_pair_params* p, tch_real depth, tch_real rate,
                                     tch_real settling, tch_real* k, tch_real* b) {
    *k = *b = 0;
    tch_real unclamped = p->law == TCH_POINT_LAW_HUNT_CROSSLEY
                             ? 1 + 1.5 * p->dissipation * rate
                             : p->stiffness * depth + p->damping * rate;
    if (depth < 0 || (unclamped < 0 && rate < -settling)) {
        return;
    }
    if (unclamped < 0) {
        rate = 0;
    }
    if (p->law == TCH_POINT_LAW_HUNT_CROSSLEY) {
        tch_real e = p->exponent, lambda = 1.5 * p->dissipation;
        *k = p->stiffness * e * pow(depth, e - 1) * (1 + lambda * rate);
        *b = p->stiffness * pow(depth, e) * lambda;
    } else {
        *k = p->stiffness;
        *b = p->damping;
    }
}

/* ---- the per-body bound of derived stiffness and damping ---- */

/* What the bound keeps per body during one evaluation of the forces. */
typedef struct body_bound {
    unsigned epoch;        /* the evaluation that filled it; older entries are stale */
    tch_mat3 G_B;          /* I^-1/2 about the centre of mass, body axes (free roots) */
    tch_real K[6][6];      /* M^-1/2 (sum k J^T J) M^-1/2, translation then rotation (body
                            * axes); the upper triangle until scale_within */
    tch_real D[6][6];      /* the same with the dampers */
    tch_real scale_k, scale_b;
} body_bound;

/* Every point pair's friction points of one evaluation, solved together (point_friction_forces). */
typedef struct friction_set {
    int point_capacity, pair_capacity;
    tch_friction_point* points;  /* [point_capacity], pair by pair */
    tch_contact** owners;        /* [point_capacity]: the contact each point belongs to */
    tch_friction_pair* pairs;    /* [pair_capacity] */
} friction_set;

typedef struct point_scratch {
    unsigned epoch;           /* counts the evaluations (point_normal_forces' first pair) */
    unsigned friction_solved; /* the evaluation whose friction solve_all_point_pairs did */
    int capacity;
    body_bound* bodies;    /* [capacity] by root body index */
    friction_set friction;
} point_scratch;

/* An upper bound within 0.1% of the largest eigenvalue of a symmetric 6x6 matrix: cyclic
 * Jacobi rotations (Golub and Van Loan, sec. 8.5.2) until the off-diagonal part is small, then
 * Weyl's bound lambda_max <= max_i a_ii + |off-diagonal part|_F. `a` is overwritten. */
static tch_real largest_eigenvalue_bound(tch_real a[6][6]) {
    for (int sweep = 0;; ++sweep) {
        tch_real off = 0, largest = a[0][0];
        for (int p = 0; p < 6; ++p) {
            largest = fmax(largest, a[p][p]);
            for (int q = p + 1; q < 6; ++q) {
                off += 2 * a[p][q] * a[p][q];
            }
        }
        if (off <= 1e-6 * largest * largest || sweep == 16) {
            return largest + sqrt(off);
        }
        for (int p = 0; p < 5; ++p) {
            for (int q = p + 1; q < 6; ++q) {
                if (a[p][q] == 0) {
                    continue;
                }
                /* the rotation in (p, q) that zeroes a_pq: t = tan of its angle */
                tch_real theta = (a[q][q] - a[p][p]) / (2 * a[p][q]);
                tch_real t = (theta >= 0 ? 1 : -1) / (fabs(theta) + sqrt(theta * theta + 1));
                tch_real c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < 6; ++k) {
                    tch_real kp = a[k][p], kq = a[k][q];
                    a[k][p] = c * kp - s * kq;
                    a[k][q] = s * kp + c * kq;
                }
                for (int k = 0; k < 6; ++k) {
                    tch_real pk = a[p][k], qk = a[q][k];
                    a[p][k] = c * pk - s * qk;
                    a[q][k] = s * pk + c * qk;
                }
            }
        }
    }
}

/* min(1, limit / lambda_max(a)), lambda_max taken from above, for a symmetric positive
 * semidefinite `a` given by its upper triangle (overwritten); the trace, which bounds
 * lambda_max, spares the rotations when it is within the limit. */
static tch_real scale_within(tch_real a[6][6], tch_real limit) {
    tch_real trace = 0;
    for (int i = 0; i < 6; ++i) {
        trace += a[i][i];
        for (int j = 0; j < i; ++j) {
            a[i][j] = a[j][i];
        }
    }
    return trace <= limit ? 1 : fmin(1, limit / largest_eigenvalue_bound(a));
}

/* I^-1/2 = V diag(1 / sqrt(eigenvalues)) V^T. */
static tch_mat3 inverse_square_root(tch_mat3 I) {
    tch_vec3 e;
    tch_mat3 V;
    tch_m3_symmetric_eigen(I, &e, &V);
    tch_mat3 scaled = tch_m3_mul(V, tch_m3_diag((tch_vec3){1 / sqrt(e.x), 1 / sqrt(e.y),
                                                         1 / sqrt(e.z)}));
    return tch_m3_mul(scaled, tch_m3_transpose(V));
}

/* The body's entry for this evaluation, emptied on first use. */
static body_bound* fresh_bound(point_scratch* s, int root) {
    body_bound* b = &s->bodies[root];
    if (b->epoch != s->epoch) {
        memset(b->K, 0, sizeof b->K);
        memset(b->D, 0, sizeof b->D);
        b->epoch = s->epoch;
    }
    return b;
}

/* Adds weight (k, b) u u^T for the unit load along n at p on `root`, with u = M^-1/2 J^T. */
static void add_point_to_bound(const tch_model* model, const tch_data* data, point_scratch* s,
                               int root, tch_vec3 p_W, tch_vec3 n_W, tch_real k, tch_real b) {
    body_bound* bound = fresh_bound(s, root);
    tch_vec3 n = tch_v3_scale(n_W, 1 / sqrt(model->body_total_mass[root]));
    tch_vec3 arm = tch_v3_cross(tch_v3_sub(p_W, data->body_p_WCm[root]), n_W);
    tch_vec3 w = tch_m3_mul_v3(bound->G_B, tch_m3_tmul_v3(data->body_R_WB[root], arm));
    tch_real u[6] = {n.x, n.y, n.z, w.x, w.y, w.z};
    for (int i = 0; i < 6; ++i) {
        for (int j = i; j < 6; ++j) { /* the upper triangle: scale_within mirrors it */
            bound->K[i][j] += k * u[i] * u[j];
            bound->D[i][j] += b * u[i] * u[j];
        }
    }
}

static int root_of(const tch_model* model, int geom) {
    return model->body_root[model->geom_body[geom]];
}

static int pair_has_derived_values(const tch_pair_result* pair) {
    return pair->params.stiffness_derived || pair->params.damping_derived;
}

/* Adds the springs and dampers of a point pair's touching points to its free bodies. */
static void add_pair_to_bounds(const tch_model* model, const tch_data* data, point_scratch* s,
                               const tch_pair_result* pair) {
    int roots[2] = {root_of(model, pair->geom_a), root_of(model, pair->geom_b)};
    tch_real weight = roots[0] > 0 && roots[1] > 0 ? 2 : 1;
    for (int i = 0; i < pair->contact_count; ++i) {
        const tch_contact* c = &data->contacts[pair->contact_start + i];
        tch_real k, b;
        if (c->depth <= 0) {
            continue;
        }
        normal_force_derivatives(&pair->params, c->depth, 0, 0, &k, &b);
        for (int side = 0; side < 2; ++side) {
            if (roots[side] > 0) {
                add_point_to_bound(model, data, s, roots[side], c->p_W, c->n_W, weight * k,
                                   weight * b);
            }
        }
    }
}

/* Makes room for every body of the model in the scratch (a data keeps its model), with each
 * free root's I^-1/2; 0, or -1 when out of memory. */
static int reserve_bounds(const tch_model* model, point_scratch* s) {
    if (model->body_count <= s->capacity) {
        return 0;
    }
    body_bound* grown = realloc(s->bodies, (size_t)model->body_count * sizeof *grown);
    if (!grown) {
        return -1;
    }
    for (int i = s->capacity; i < model->body_count; ++i) {
        grown[i].epoch = 0;
        grown[i].G_B = model->body_free[i] ? inverse_square_root(model->body_total_I_BCm[i])
                                           : tch_m3_zero();
    }
    s->bodies = grown;
    s->capacity = model->body_count;
    return 0;
}

/* Fills every body's scales for this evaluation: sums its points' springs and dampers (of
 * every point pair, set or derived), then scale = min(1, 1 / (h^2 lambda_max)) for the
 * springs and min(1, 1 / (h mu_max)) for the dampers. Nothing when no point pair has derived
 * values, or when out of memory (the derived values then stand unbounded this step). */
static void bound_bodies(const tch_model* model, const tch_data* data, point_scratch* s) {
    int derived = 0;
    for (int i = 0; i < data->pair_result_count && !derived; ++i) {
        const tch_pair_result* pair = &data->pair_results[i];
        derived = pair->model == TCH_CONTACT_POINT && pair_has_derived_values(pair);
    }
    if (!derived || reserve_bounds(model, s) != 0) {
        return;
    }
    for (int i = 0; i < data->pair_result_count; ++i) {
        if (data->pair_results[i].model == TCH_CONTACT_POINT) {
            add_pair_to_bounds(model, data, s, &data->pair_results[i]);
        }
    }
    tch_real h = model->timestep;
    for (int root = 1; root < model->body_count; ++root) {
        body_bound* b = &s->bodies[root];
        if (b->epoch == s->epoch) {
            b->scale_k = scale_within(b->K, 1 / (h * h));
            b->scale_b = scale_within(b->D, 1 / h);
        }
    }
}

/* The bound's scale of `root` in this evaluation (1 for static and unbounded bodies). */
static void root_scales(const point_scratch* s, int root, tch_real* scale_k, tch_real* scale_b) {
    const body_bound* b = root > 0 && root < s->capacity ? &s->bodies[root] : NULL;
    int bounded = b && b->epoch == s->epoch;
    *scale_k = bounded ? b->scale_k : 1;
    *scale_b = bounded ? b->scale_b : 1;
}

/* The pair's parameters with its derived stiffness and damping scaled by the smaller scale of
 * its two bodies (explicit integrators only: the implicit and adaptive ones integrate the
 * springs and dampers implicitly and take the default material, docs/integrators.md). */
static tch_pair_params bounded_params(const tch_model* model, const point_scratch* s,
                                      const tch_pair_result* pair) {
    tch_pair_params p = pair->params;
    if (tch_integrator_takes_physical_defaults(model->integrator)) {
        return p;
    }
    tch_real ka, ba, kb, bb;
    root_scales(s, root_of(model, pair->geom_a), &ka, &ba);
    root_scales(s, root_of(model, pair->geom_b), &kb, &bb);
    if (p.stiffness_derived) {
        p.stiffness *= fmin(ka, kb);
    }
    if (p.damping_derived) {
        p.damping *= fmin(ba, bb);
    }
    return p;
}

/* Whether `pair` is the evaluation's first point pair: the engine evaluates the pairs' normal
 * forces in order, so that one fills the bound for all. */
static int first_point_pair(const tch_data* data, const tch_pair_result* pair) {
    for (int i = 0; i < data->pair_result_count; ++i) {
        if (data->pair_results[i].model == TCH_CONTACT_POINT) {
            return &data->pair_results[i] == pair;
        }
    }
    return 0;
}

static void* point_scratch_create(void) {
    return calloc(1, sizeof(point_scratch));
}

static void point_scratch_destroy(void* scratch) {
    point_scratch* s = scratch;
    if (s) {
        free(s->bodies);
        free(s->friction.points);
        free(s->friction.owners);
        free(s->friction.pairs);
        free(s);
    }
}

/* ---- forces ---- */

static void point_normal_forces(const tch_model* model, tch_data* data,
                                tch_pair_context* context) {
    tch_pair_result* pair = context->pair;
    point_scratch* scratch = context->scratch;
    if (first_point_pair(data, pair)) {
        scratch->epoch = scratch->epoch + 1 > 0 ? scratch->epoch + 1 : 1; /* 0: never filled */
        if (!tch_integrator_takes_physical_defaults(model->integrator)) {
            bound_bodies(model, data, scratch);
        }
    }
    tch_pair_params bounded = bounded_params(model, scratch, pair);
    const tch_pair_params* p = &bounded;
    for (int i = 0; i < pair->contact_count; ++i) {
        tch_contact* c = &data->contacts[pair->contact_start + i];
        c->f_W = tch_v3_zero();
        if (c->depth < 0) {
            continue;
        }
        tch_real v_n = tch_v3_dot(relative_velocity(model, data, pair, c->p_W), c->n_W);
        if (tch_point_impact_force(model, data, context, i, v_n) || c->depth == 0) {
            continue; /* an impact's force (contact/restitution.h), or just touching */
        }
        c->f_W = tch_v3_scale(c->n_W, normal_force(p, c->depth, -v_n));
        tch_contact_apply_force(model, data, pair, c->p_W, c->f_W);
    }
    tch_point_impacts_commit(model, data, context);
}

/* Tangential part of v. */
static tch_vec3 tangential(tch_vec3 v, tch_vec3 n) {
    return tch_v3_madd(v, -tch_v3_dot(v, n), n);
}

/* The pair's friction coefficient at point c: at its slip speed before the step, which only
 * matters when the static coefficient differs from the dynamic one. */
static tch_real coefficient_at(const tch_model* model, const tch_data* data,
                               const tch_pair_result* pair, const tch_contact* c) {
    const tch_pair_params* p = &pair->params;
    if (p->static_friction == p->friction) {
        return p->friction;
    }
    tch_real slip = tch_v3_norm(tangential(relative_velocity(model, data, pair, c->p_W), c->n_W));
    return tch_friction_coefficient(p, slip);
}

/* Prepares the pair's touching points for friction into points/owners; returns their count. */
static int gather_friction_points(const tch_model* model, tch_data* data,
                                  const tch_velocity_prediction* pred, tch_pair_result* pair,
                                  tch_friction_point* points, tch_contact** owners) {
    int n = 0;
    for (int i = 0; i < pair->contact_count && n < TCH_POINT_MAX_PAIR_POINTS; ++i) {
        tch_contact* c = &data->contacts[pair->contact_start + i];
        tch_real f_n = tch_v3_norm(c->f_W);
        if (!(f_n > 0)) {
            continue; /* no load, no friction */
        }
        tch_real limit = coefficient_at(model, data, pair, c) * f_n;
        if (limit > 0) {
            owners[n] = c;
            tch_friction_point_init(model, data, pred, pair, c->p_W, c->n_W, limit, &points[n++]);
        }
    }
    return n;
}

/* Adds each solved point's friction to its contact's force. */
static void record_friction(tch_friction_point* points, tch_contact** owners, int count) {
    for (int i = 0; i < count; ++i) {
        owners[i]->f_W = tch_v3_add(owners[i]->f_W, tch_friction_point_force(&points[i]));
    }
}

/* Grows `set` to hold `points` points in `pairs` pairs; 0, or -1 when out of memory (what it
 * holds stays valid). */
static int reserve_friction(friction_set* set, int points, int pairs) {
    if (points > set->point_capacity) {
        tch_friction_point* p = realloc(set->points, (size_t)points * sizeof *p);
        set->points = p ? p : set->points;
        tch_contact** o = realloc(set->owners, (size_t)points * sizeof *o);
        set->owners = o ? o : set->owners;
        if (!p || !o) {
            return -1;
        }
        set->point_capacity = points;
    }
    if (pairs > set->pair_capacity) {
        tch_friction_pair* r = realloc(set->pairs, (size_t)pairs * sizeof *r);
        if (!r) {
            return -1;
        }
        set->pairs = r;
        set->pair_capacity = pairs;
    }
    return 0;
}

/* Solves the friction of every point pair of the evaluation together; 1, or 0 when out of
 * memory (each pair then solves its own). */
static int solve_all_point_pairs(const tch_model* model, tch_data* data,
                                 tch_velocity_prediction* pred, point_scratch* s) {
    int pairs = 0;
    for (int i = 0; i < data->pair_result_count; ++i) {
        pairs += data->pair_results[i].model == TCH_CONTACT_POINT;
    }
    friction_set* set = &s->friction;
    if (reserve_friction(set, data->contact_count > 0 ? data->contact_count : 1, pairs) != 0) {
        return 0;
    }
    int j = 0, n = 0;
    for (int i = 0; i < data->pair_result_count; ++i) {
        tch_pair_result* pair = &data->pair_results[i];
        if (pair->model == TCH_CONTACT_POINT) {
            int count = gather_friction_points(model, data, pred, pair, set->points + n,
                                               set->owners + n);
            set->pairs[j++] = (tch_friction_pair){pair, n, count};
            n += count;
        }
    }
    tch_friction_solve_pairs(model, data, pred, set->points, set->pairs, pairs);
    record_friction(set->points, set->owners, n);
    return 1;
}

/* Friction stops the slip predicted from every force on a body, the other pairs' friction
 * included: the evaluation's first point pair solves them all (solving each pair alone
 * against the predictions left by the pairs before it let a body's earlier pairs push along
 * the slip that its later pairs made: positive work, docs/contact-point.md, "Friction
 * between several pairs"). */
static void point_friction_forces(const tch_model* model, tch_data* data,
                                  tch_pair_context* context, tch_velocity_prediction* pred) {
    tch_pair_result* pair = context->pair;
    point_scratch* scratch = context->scratch;
    if (first_point_pair(data, pair) && solve_all_point_pairs(model, data, pred, scratch)) {
        scratch->friction_solved = scratch->epoch;
    }
    if (scratch->friction_solved == scratch->epoch) {
        return;
    }
    tch_friction_point points[TCH_POINT_MAX_PAIR_POINTS];
    tch_contact* owners[TCH_POINT_MAX_PAIR_POINTS];
    int n = gather_friction_points(model, data, pred, pair, points, owners);
    tch_friction_solve(model, data, pred, pair, points, n);
    record_friction(points, owners, n);
}

/* The pair's i-th point's (k', b') (an impact's, contact/restitution.h, or the law's) and its
 * force direction j on both bodies: the depth falls by
 * j_b . x_b - j_a . x_a for motions x = (δ, φ) of the centres of mass, with j = (n, r x n) and
 * r from each centre of mass to the point, and the force f_n n at the point is (j_b f_n) on b
 * and (-j_a f_n) on a: u = (-j_a, j_b). 0 when the point is apart (depth < 0). */
static int point_direction(const tch_model* model, const tch_data* data,
                           const tch_pair_context* context, int i, tch_real* k, tch_real* b,
                           tch_real u[12]) {
    const tch_pair_result* pair = context->pair;
    const tch_contact* c = &data->contacts[pair->contact_start + i];
    if (c->depth < 0) {
        return 0;
    }
    tch_real v_n = tch_v3_dot(relative_velocity(model, data, pair, c->p_W), c->n_W);
    if (!tch_point_impact_derivatives(model, data, context, i, v_n, k, b)) {
        normal_force_derivatives(&pair->params, c->depth, -v_n,
                                 tch_contact_settling_speed(model), k, b);
    }
    const int roots[2] = {root_of(model, pair->geom_a), root_of(model, pair->geom_b)};
    for (int side = 0; side < 2; ++side) {
        tch_real sign = side == 0 ? -1 : 1;
        tch_vec3 arm = tch_v3_cross(tch_v3_sub(c->p_W, data->body_p_WCm[roots[side]]), c->n_W);
        tch_real* j = u + 6 * side;
        j[0] = sign * c->n_W.x, j[1] = sign * c->n_W.y, j[2] = sign * c->n_W.z;
        j[3] = sign * arm.x, j[4] = sign * arm.y, j[5] = sign * arm.z;
    }
    return 1;
}

/* sum[i][j] += w u_i u_j over the rows and columns [lo, hi) (the whole square: it vectorizes,
 * and the upper triangle alone, mirrored, measured 1.7 times the instructions). */
static void add_outer(tch_real sum[12][12], int lo, int hi, tch_real w, const tch_real u[12]) {
    for (int i = lo; i < hi; ++i) {
        tch_real wu = w * u[i];
        for (int j = lo; j < hi; ++j) {
            sum[i][j] += wu * u[j];
        }
    }
}

/* The pair's points carried to the bodies without the geometric terms (the system's case):
 * each a rank-one update
 *
 *     K += -k' u u^T,   D += -b' u u^T
 *
 * which is tch_contact_linearize_wrench's S(r)^T L S(r') for L = -k' n n^T at a fraction of
 * its work. Only the blocks of free roots are written (a static root's are meaningless,
 * contact.h), and under the linear law without impacts (a pair that keeps no impact memory),
 * where b' / k' = b / k at every point that counts, D is (b / k) K. */
static void linearize_rank_one(const tch_model* model, const tch_data* data,
                               const tch_pair_context* context, tch_pair_linearization* out) {
    const tch_pair_result* pair = context->pair;
    int lo = root_of(model, pair->geom_a) > 0 ? 0 : 6;
    int hi = root_of(model, pair->geom_b) > 0 ? 12 : 6;
    int proportional = pair->params.law == TCH_POINT_LAW_LINEAR && !context->state;
    tch_real sum_k[12][12], sum_b[12][12];
    for (int i = lo; i < hi; ++i) {
        for (int j = lo; j < hi; ++j) {
            sum_k[i][j] = sum_b[i][j] = 0;
        }
    }
    for (int p = 0; p < pair->contact_count; ++p) {
        tch_real k, b, u[12];
        if (point_direction(model, data, context, p, &k, &b, u)) {
            add_outer(sum_k, lo, hi, k, u);
            if (!proportional) {
                add_outer(sum_b, lo, hi, b, u);
            }
        }
    }
    tch_real ratio = proportional ? pair->params.damping / pair->params.stiffness : 0;
    for (int i = lo; i < hi; ++i) {
        for (int j = lo; j < hi; ++j) {
            out->K[i][j] -= sum_k[i][j];
            out->D[i][j] -= proportional ? ratio * sum_k[i][j] : sum_b[i][j];
        }
    }
}

/* Each touching point's spring and damper along n: the depth falls by n.u for a displacement u
 * of b's point relative to a's, so ∂F/∂u = -k' n n^T and ∂F/∂v = -b' n n^T
 * (docs/integrators.md). Points at depth 0 that are not separating count (see
 * normal_force_derivatives). With the geometric terms asked for, through
 * tch_contact_linearize_wrench; without, as rank-one updates. */
static void point_linearize(const tch_model* model, const tch_data* data,
                            const tch_pair_context* context, tch_pair_linearization* out) {
    const tch_pair_result* pair = context->pair;
    if (!out->geometric) {
        linearize_rank_one(model, data, context, out);
        return;
    }
    for (int i = 0; i < pair->contact_count; ++i) {
        const tch_contact* c = &data->contacts[pair->contact_start + i];
        tch_real k, b, u[12];
        if (!point_direction(model, data, context, i, &k, &b, u)) {
            continue;
        }
        tch_wrench_linearization w = {.o_W = c->p_W, .n_W = c->n_W, .F_W = c->f_W,
                                      .M_W = tch_v3_zero(), .depth = c->depth};
        tch_real n[3] = {c->n_W.x, c->n_W.y, c->n_W.z};
        for (int r = 0; r < 3; ++r) {
            for (int s = 0; s < 3; ++s) {
                w.K[r][s] = -k * n[r] * n[s];
                w.D[r][s] = -b * n[r] * n[s];
            }
        }
        tch_contact_linearize_wrench(model, data, pair, &w, out);
    }
}

/* The springs and dampers of point_linearize without the geometric terms as rank-one terms,
 * one per touching point (tch_contact_ops.linearize_terms). */
static int point_linearize_terms(const tch_model* model, const tch_data* data,
                                 const tch_pair_context* context, tch_rank_one_term* terms,
                                 int capacity) {
    const tch_pair_result* pair = context->pair;
    if (pair->contact_count > capacity) {
        return -1;
    }
    int count = 0;
    for (int p = 0; p < pair->contact_count; ++p) {
        tch_rank_one_term* term = &terms[count];
        count += point_direction(model, data, context, p, &term->k, &term->b, term->u);
    }
    return count;
}

const tch_contact_ops tch_point_ops = {
    .name = "point",
    .kind = TCH_CONTACT_KIND_FORCE,
    .uses_state = 0,
    .pair_uses_state = tch_point_pair_uses_state,
    .pair_geometry = NULL,
    .normal_forces = point_normal_forces,
    .friction_forces = point_friction_forces,
    .scratch_create = point_scratch_create,
    .scratch_destroy = point_scratch_destroy,
    .linearize = point_linearize,
    .linearize_terms = point_linearize_terms,
    .physical_defaults = 1,
};
