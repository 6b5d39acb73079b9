/* The lcp stage's row solver (engine/constraint_pgs.h) on hand-built contact rows: a box resting
 * on the ground and one sliding on it (closed forms), a stack of 30 boxes from a cold start
 * (subspace minimization against plain PGS; the box-MLCP conditions checked here from the
 * contact points, not from the library's rows), an inconsistent free set, a warm start at the
 * solution, giving up when slow, a solve that stalls, and the residual and the row coupling
 * against direct computations.
 *
 * Boxes are axis-aligned with diagonal inertia; body 0 is the static ground. A contact between
 * bodies a (below) and b (above) at point p with normal +z has the normal row d . (v_b(p) -
 * v_a(p)) + rhs and, with friction, two rows along x and y. */
#include <math.h>
#include <string.h>

#include "base/arena.h"
#include "engine/constraint_pgs.h"
#include "test.h"

enum { MAX_BODIES = 64, MAX_CONTACTS = 256, MAX_ROWS = 3 * MAX_CONTACTS, STACK = 30 };

static const tch_real G_DT = 9.81 * 0.01; /* g h: the velocity gravity adds in one step */
static const tch_real MU = 0.5;
static const tch_vec3 HALF = {0.4, 0.3, 0.1}; /* a box's half extents */

typedef struct body {
    tch_real mass;          /* 0: static */
    tch_vec3 inertia;       /* principal moments, world-aligned */
    tch_vec3 p_WCm;
} body;

typedef struct contact {
    int a, b;               /* below, above */
    tch_vec3 p_W;
    tch_real rhs;
    int friction;           /* 1: two friction rows along x and y */
} contact;

/* A problem and the data it was built from. */
typedef struct scene {
    int body_count;
    body bodies[MAX_BODIES];
    tch_vec3 v0[MAX_BODIES], w0[MAX_BODIES];
    int nc;
    contact contacts[MAX_CONTACTS];
    /* built by build_problem */
    int nr;
    int row_contact[MAX_ROWS];
    tch_vec3 row_direction[MAX_ROWS];
    int friction_start[MAX_CONTACTS], edges[MAX_CONTACTS];
    tch_real mu[MAX_CONTACTS];
    tch_jacobian_row rows[MAX_ROWS];
    tch_real rhs[MAX_ROWS];
    tch_row_problem problem;
} scene;

static scene g_scene, g_other;

/* ---- building ---- */

static void start_scene(scene* s) {
    memset(s, 0, sizeof *s);
    s->body_count = 1; /* the ground */
}

/* A box of the given mass centred at p, with v = (0, 0, -g h) (gravity over one step). */
static int add_box(scene* s, tch_real mass, tch_vec3 p) {
    int k = s->body_count++;
    const tch_real x2 = HALF.x * HALF.x, y2 = HALF.y * HALF.y, z2 = HALF.z * HALF.z;
    s->bodies[k] = (body){mass, tch_v3(mass / 3 * (y2 + z2), mass / 3 * (x2 + z2),
                                       mass / 3 * (x2 + y2)), p};
    s->v0[k] = tch_v3(0, 0, -G_DT);
    s->w0[k] = tch_v3_zero();
    return k;
}

static void add_contact(scene* s, int a, int b, tch_vec3 p_W, tch_real rhs, int friction) {
    s->contacts[s->nc++] = (contact){a, b, p_W, rhs, friction};
}

/* Four contacts at the corners of b's bottom face, on a. */
static void add_corner_contacts(scene* s, int a, int b) {
    const tch_vec3 c = s->bodies[b].p_WCm;
    for (int k = 0; k < 4; ++k) {
        tch_real x = k & 1 ? HALF.x : -HALF.x, y = k & 2 ? HALF.y : -HALF.y;
        add_contact(s, a, b, tch_v3(c.x + x, c.y + y, c.z - HALF.z), 0, 1);
    }
}

/* One box on the ground. */
static void box_scene(scene* s, tch_real mass) {
    start_scene(s);
    add_box(s, mass, tch_v3(0, 0, HALF.z));
    add_corner_contacts(s, 0, 1);
}

/* n boxes of the given masses, each resting on the one below, the first on the ground. */
static void stack_scene(scene* s, int n, const tch_real* masses) {
    start_scene(s);
    for (int k = 1; k <= n; ++k) {
        add_box(s, masses[k - 1], tch_v3(0, 0, (2 * k - 1) * HALF.z));
        add_corner_contacts(s, k - 1, k);
    }
}

static void uniform_stack(scene* s, int n) {
    tch_real masses[MAX_BODIES];
    for (int k = 0; k < n; ++k) {
        masses[k] = 1;
    }
    stack_scene(s, n, masses);
}

/* Body k's side of a row along d at p: sign (d, r x d) and M⁻¹ times it. */
static tch_row_side row_side(const scene* s, int k, tch_real sign, tch_vec3 d, tch_vec3 p_W) {
    tch_row_side side = {0};
    const body* b = &s->bodies[k];
    if (k == 0) {
        return side;
    }
    tch_vec3 r_x_d = tch_v3_cross(tch_v3_sub(p_W, b->p_WCm), d);
    side.body = k;
    side.lin = tch_v3_scale(d, sign);
    side.ang = tch_v3_scale(r_x_d, sign);
    side.inv_lin = tch_v3_scale(d, sign / b->mass);
    side.inv_ang = tch_v3(sign * r_x_d.x / b->inertia.x, sign * r_x_d.y / b->inertia.y,
                          sign * r_x_d.z / b->inertia.z);
    return side;
}

static void add_row(scene* s, int i, tch_vec3 d, tch_real rhs) {
    const contact* c = &s->contacts[i];
    int r = s->nr++;
    s->row_contact[r] = i;
    s->row_direction[r] = d;
    s->rows[r].side[0] = row_side(s, c->b, 1, d, c->p_W);
    s->rows[r].side[1] = row_side(s, c->a, -1, d, c->p_W);
    s->rhs[r] = rhs;
}

/* Normal rows 0 .. nc-1, then each contact's friction rows. */
static const tch_row_problem* build_problem(scene* s) {
    s->nr = 0;
    for (int i = 0; i < s->nc; ++i) {
        add_row(s, i, tch_v3(0, 0, 1), s->contacts[i].rhs);
    }
    for (int i = 0; i < s->nc; ++i) {
        s->friction_start[i] = s->nr;
        s->edges[i] = s->contacts[i].friction ? 2 : 0;
        s->mu[i] = MU;
        if (s->contacts[i].friction) {
            add_row(s, i, tch_v3(1, 0, 0), 0);
            add_row(s, i, tch_v3(0, 1, 0), 0);
        }
    }
    s->problem = (tch_row_problem){s->nc, s->nr, s->friction_start, s->edges, s->mu,
                                   s->rows, s->rhs, s->body_count, NULL, NULL, NULL};
    return &s->problem;
}

/* ---- checks computed from the contact points, independently of the rows ---- */

/* (v, w) = (v0, w0) + the impulses z_r d_r at the rows' points, +on b and -on a. */
static void velocities_after(const scene* s, const tch_real* z, tch_vec3* v, tch_vec3* w) {
    memcpy(v, s->v0, (size_t)s->body_count * sizeof *v);
    memcpy(w, s->w0, (size_t)s->body_count * sizeof *w);
    for (int r = 0; r < s->nr; ++r) {
        const contact* c = &s->contacts[s->row_contact[r]];
        const int ends[2] = {c->b, c->a};
        for (int e = 0; e < 2; ++e) {
            const body* b = &s->bodies[ends[e]];
            if (ends[e] == 0) {
                continue;
            }
            tch_vec3 impulse = tch_v3_scale(s->row_direction[r], e == 0 ? z[r] : -z[r]);
            tch_vec3 torque = tch_v3_cross(tch_v3_sub(c->p_W, b->p_WCm), impulse);
            v[ends[e]] = tch_v3_add(v[ends[e]], tch_v3_scale(impulse, 1 / b->mass));
            w[ends[e]] = tch_v3_add(w[ends[e]], tch_v3(torque.x / b->inertia.x,
                                                       torque.y / b->inertia.y,
                                                       torque.z / b->inertia.z));
        }
    }
}

/* The velocity of body k's material point at p (zero for the ground). */
static tch_vec3 point_velocity(const scene* s, const tch_vec3* v, const tch_vec3* w, int k,
                               tch_vec3 p_W) {
    if (k == 0) {
        return tch_v3_zero();
    }
    return tch_v3_add(v[k], tch_v3_cross(w[k], tch_v3_sub(p_W, s->bodies[k].p_WCm)));
}

/* Row r's velocity d . (v_b(p) - v_a(p)) + rhs. */
static tch_real row_velocity(const scene* s, const tch_vec3* v, const tch_vec3* w, int r) {
    const contact* c = &s->contacts[s->row_contact[r]];
    tch_vec3 relative = tch_v3_sub(point_velocity(s, v, w, c->b, c->p_W),
                                   point_velocity(s, v, w, c->a, c->p_W));
    return tch_v3_dot(s->row_direction[r], relative) + s->rhs[r];
}

/* How far z is from solving the MLCP with friction discs: the largest of z_n < 0, w_n < 0,
 * min(z_n, w_n) > 0 (complementarity), |z_t| > μ z_n, and a contact's tangential velocity w_t
 * not opposed by a friction impulse on the disc's rim, min(|w_t|, |z_t + μ z_n w_t / |w_t||). */
static tch_real mlcp_violation(const scene* s, const tch_real* z) {
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    velocities_after(s, z, v, w);
    tch_real violation = 0;
    for (int i = 0; i < s->nc; ++i) {
        tch_real zn = z[i], wn = row_velocity(s, v, w, i);
        violation = fmax(violation, fmax(fmax(-zn, -wn), fmin(zn, wn)));
        if (s->edges[i] != 2) {
            continue;
        }
        int f = s->friction_start[i];
        tch_real bound = s->mu[i] * zn;
        tch_real w0 = row_velocity(s, v, w, f), w1 = row_velocity(s, v, w, f + 1);
        tch_real speed = hypot(w0, w1);
        violation = fmax(violation, hypot(z[f], z[f + 1]) - bound);
        if (speed > 0) {
            tch_real opposed = hypot(z[f] + bound * w0 / speed, z[f + 1] + bound * w1 / speed);
            violation = fmax(violation, fmin(speed, opposed));
        }
    }
    return violation;
}

/* max over contacts of |z_n - max(z_n - w_n, 0)| and |z_t - P_disc(z_t - w_t)|, the disc of
 * radius μ max(z_n, 0); w from the contact points. */
static tch_real natural_map_residual(const scene* s, const tch_vec3* v, const tch_vec3* w,
                                     const tch_real* z) {
    tch_real residual = 0;
    for (int i = 0; i < s->nc; ++i) {
        residual = fmax(residual, fabs(z[i] - fmax(z[i] - row_velocity(s, v, w, i), 0)));
        if (s->edges[i] != 2) {
            continue;
        }
        int f = s->friction_start[i];
        tch_real bound = s->mu[i] * fmax(z[i], 0);
        tch_real y0 = z[f] - row_velocity(s, v, w, f), y1 = z[f + 1] - row_velocity(s, v, w, f + 1);
        tch_real norm = hypot(y0, y1);
        tch_real scale = norm > bound ? bound / norm : 1;
        residual = fmax(residual, hypot(z[f] - scale * y0, z[f + 1] - scale * y1));
    }
    return residual;
}

/* The natural-map residual at z with the velocities computed from the contact points. */
static tch_real independent_residual(const scene* s, const tch_real* z) {
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    velocities_after(s, z, v, w);
    return natural_map_residual(s, v, w, z);
}

/* The solver's (v, w) are (v0, w0) plus its impulses, to rounding. */
static int velocities_match(const scene* s, const tch_vec3* v, const tch_vec3* w,
                            const tch_real* z, tch_real tolerance) {
    tch_vec3 v_check[MAX_BODIES], w_check[MAX_BODIES];
    velocities_after(s, z, v_check, w_check);
    int ok = 1;
    for (int k = 1; k < s->body_count; ++k) {
        ok &= tch_v3_dist(v[k], v_check[k]) <= tolerance;
        ok &= tch_v3_dist(w[k], w_check[k]) <= tolerance;
    }
    return ok;
}

static int all_finite(const scene* s, const tch_vec3* v, const tch_vec3* w, const tch_real* z) {
    int ok = 1;
    for (int r = 0; r < s->nr; ++r) {
        ok &= isfinite(z[r]) != 0;
    }
    for (int k = 0; k < s->body_count; ++k) {
        ok &= tch_v3_isfinite(v[k]) && tch_v3_isfinite(w[k]);
    }
    return ok;
}

/* The sum of the normal impulses of the contacts between bodies a and b. */
static tch_real interface_load(const scene* s, const tch_real* z, int a, int b) {
    tch_real sum = 0;
    for (int i = 0; i < s->nc; ++i) {
        sum += s->contacts[i].a == a && s->contacts[i].b == b ? z[i] : 0;
    }
    return sum;
}

/* ---- solving ---- */

static tch_row_solve_options options_with(int sweeps, tch_real tolerance,
                                          tch_sparse_spd* subspace) {
    return (tch_row_solve_options){.sweeps = sweeps,
                                   .tolerance = tolerance,
                                   .accept = tolerance,
                                   .subspace = subspace};
}

/* A solve from the warm start z (not yet applied to the scene's v0, w0) into (v, w, z). */
static tch_status solve(const scene* s, const tch_row_solve_options* options, tch_vec3* v,
                        tch_vec3* w, tch_real* z, tch_lcp_result* result) {
    tch_arena arena;
    if (tch_arena_init(&arena, 1 << 16) != 0) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    memcpy(v, s->v0, (size_t)s->body_count * sizeof *v);
    memcpy(w, s->w0, (size_t)s->body_count * sizeof *w);
    tch_status status = tch_row_solve(&s->problem, options, &arena, v, w, z, result);
    tch_arena_destroy(&arena);
    return status;
}

/* ---- tests ---- */

/* The sum of the impulses of the rows along d. */
static tch_real row_sum(const scene* s, const tch_real* z, tch_vec3 d) {
    tch_real sum = 0;
    for (int r = 0; r < s->nr; ++r) {
        sum += tch_v3_dot(s->row_direction[r], d) == 1 ? z[r] : 0;
    }
    return sum;
}

/* One box of mass 2 on four corners, cold start: Σ z_n = m g h, no net friction (the corners
 * may keep a self-equilibrated friction pattern: four coplanar contacts leave it undetermined),
 * at rest; with and without subspace minimization. */
static void check_box_at_rest(tch_real m, tch_sparse_spd* subspace) {
    box_scene(&g_scene, m);
    build_problem(&g_scene);
    tch_real z[MAX_ROWS] = {0};
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    tch_lcp_result result;
    const tch_row_solve_options o = options_with(1000, 1e-10, subspace);
    ENSURE(solve(&g_scene, &o, v, w, z, &result) == TCH_OK);
    ENSURE(result.reason == TCH_LCP_SOLVED && result.residual <= 1e-10);
    ENSURE_NEAR(interface_load(&g_scene, z, 0, 1), m * G_DT, 1e-9);
    ENSURE(fabs(row_sum(&g_scene, z, tch_v3(1, 0, 0))) <= 1e-9);
    ENSURE(fabs(row_sum(&g_scene, z, tch_v3(0, 1, 0))) <= 1e-9);
    ENSURE(tch_v3_norm(v[1]) <= 1e-9 && tch_v3_norm(w[1]) <= 1e-9);
    ENSURE(velocities_match(&g_scene, v, w, z, 1e-14));
    ENSURE(mlcp_violation(&g_scene, z) <= 1e-9);
}

static void test_box_resting_on_ground(void) {
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    check_box_at_rest(2, NULL);
    check_box_at_rest(2, context);
    tch_sparse_spd_destroy(context);
}

/* v0 = (2 μ g h, 0, -g h): the box slides; every contact's x friction is at -μ z_n, so the box
 * keeps v_x = 2 μ g h - μ g h = μ g h, does not turn, and Σ z_n = m g h. */
static void test_box_sliding_on_ground(void) {
    const tch_real m = 1.5;
    box_scene(&g_scene, m);
    g_scene.v0[1].x = 2 * MU * G_DT;
    build_problem(&g_scene);
    tch_real z[MAX_ROWS] = {0};
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    tch_lcp_result result;
    const tch_row_solve_options o = options_with(5000, 1e-11, NULL);
    tch_status st = solve(&g_scene, &o, v, w, z, &result);
    ENSURE(st == TCH_OK);
    ENSURE_NEAR(interface_load(&g_scene, z, 0, 1), m * G_DT, 1e-8);
    ENSURE_NEAR(v[1].x, MU * G_DT, 1e-8);
    ENSURE(fabs(v[1].y) <= 1e-8 && fabs(v[1].z) <= 1e-8 && tch_v3_norm(w[1]) <= 1e-8);
    for (int i = 0; i < g_scene.nc; ++i) {
        ENSURE_NEAR(z[g_scene.friction_start[i]], -MU * z[i], 1e-9);
    }
    ENSURE(mlcp_violation(&g_scene, z) <= 1e-9);
}

/* A cold-started stack of 30 unit boxes, with or without friction rows: with subspace
 * minimization the solve reaches 1e-8 in at most a fifth of the sweeps plain PGS needs (or plain
 * PGS fails within the same limit); the solution satisfies the box MLCP, the interface under
 * box k carries (31 - k) m g h, and every box is at rest. */
static void race_on_stack(int friction) {
    const int limit = 4000;
    const tch_real tolerance = 1e-8;
    uniform_stack(&g_scene, STACK);
    for (int i = 0; i < g_scene.nc; ++i) {
        g_scene.contacts[i].friction = friction;
    }
    build_problem(&g_scene);
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    tch_real z_sm[MAX_ROWS] = {0}, z_pgs[MAX_ROWS] = {0};
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES], v_pgs[MAX_BODIES], w_pgs[MAX_BODIES];
    tch_lcp_result sm, pgs;
    const tch_row_solve_options with = options_with(limit, tolerance, context);
    const tch_row_solve_options without = options_with(limit, tolerance, NULL);
    tch_status sm_status = solve(&g_scene, &with, v, w, z_sm, &sm);
    tch_status pgs_status = solve(&g_scene, &without, v_pgs, w_pgs, z_pgs, &pgs);
    tch_sparse_spd_destroy(context);
    printf("     stack of %d, %s: subspace %d sweeps (residual %.3g), plain PGS %d sweeps "
           "(residual %.3g, status %d)\n",
           STACK, friction ? "friction" : "frictionless", sm.iterations, sm.residual,
           pgs.iterations, pgs.residual, (int)pgs_status);
    ENSURE(sm_status == TCH_OK && sm.reason == TCH_LCP_SOLVED && sm.residual <= tolerance);
    ENSURE(pgs_status != TCH_OK || pgs.iterations >= 5 * sm.iterations);
    ENSURE(pgs_status == TCH_OK || (pgs.iterations == limit &&
                                    pgs.reason == TCH_LCP_MAX_ITERATIONS));
    ENSURE(velocities_match(&g_scene, v, w, z_sm, 1e-10));
    ENSURE(independent_residual(&g_scene, z_sm) <= tolerance);
    ENSURE(mlcp_violation(&g_scene, z_sm) <= 1e-7);
    /* Each corner's normal velocity is within the tolerance τ, so |v_k| <= k τ, |w_k| <= 2 k τ /
     * h_y, and the load under box k, m Σ_{j>=k} (g h + v_j), is within m N (N + 1) / 2 τ of
     * (N + 1 - k) m g h (bounds doubled for rounding). */
    const tch_real load_tolerance = 2 * STACK * (STACK + 1) / 2 * tolerance;
    for (int k = 1; k <= STACK; ++k) {
        ENSURE_NEAR(interface_load(&g_scene, z_sm, k - 1, k), (STACK + 1 - k) * G_DT,
                    load_tolerance);
        ENSURE(tch_v3_norm(v[k]) <= 2 * STACK * tolerance &&
               tch_v3_norm(w[k]) <= 2 * STACK * tolerance / HALF.y);
    }
}

static void test_stack_subspace_beats_plain_pgs(void) {
    race_on_stack(1);
}

static void test_frictionless_stack_subspace_beats_plain_pgs(void) {
    race_on_stack(0);
}

/* The exact stack solution: each corner of the interface under box k carries a quarter of
 * (n + 1 - k) m g h, no friction. */
static void exact_stack_impulses(const scene* s, int n, tch_real* z) {
    memset(z, 0, (size_t)s->nr * sizeof *z);
    for (int i = 0; i < s->nc; ++i) {
        z[i] = (n + 1 - s->contacts[i].b) * G_DT / 4;
    }
}

/* Warm-started at the exact solution: no sweep, TCH_OK, z unchanged, the boxes at rest. */
static void test_warm_start_at_solution(void) {
    uniform_stack(&g_scene, STACK);
    build_problem(&g_scene);
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    tch_real z[MAX_ROWS], exact[MAX_ROWS];
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    tch_lcp_result result;
    exact_stack_impulses(&g_scene, STACK, exact);
    memcpy(z, exact, sizeof z);
    const tch_row_solve_options o = options_with(100, 1e-10, context);
    tch_status status = solve(&g_scene, &o, v, w, z, &result);
    tch_sparse_spd_destroy(context);
    ENSURE(status == TCH_OK && result.status == TCH_OK);
    ENSURE(result.reason == TCH_LCP_SOLVED && result.iterations == 0);
    ENSURE(result.residual <= 1e-10);
    ENSURE(memcmp(z, exact, (size_t)g_scene.nr * sizeof *z) == 0);
    for (int k = 1; k <= STACK; ++k) {
        ENSURE(tch_v3_norm(v[k]) <= 1e-12 && tch_v3_norm(w[k]) <= 1e-12);
    }
}

/* A stack of 30 with a second normal row at corner 0 of the interface under box 16, at the same
 * point and direction as the first but with rhs = -10⁻³ (a target separation velocity): the two
 * rows' columns of A are equal while their velocities differ by 10⁻³, so while both carry
 * impulse A_FF is singular and w_F is not in its range. Warm-started at the stack's solution
 * with both rows loaded, the first subspace steps meet that free set; the solve still ends
 * within the tolerance, finite, with the first row unloaded (its velocity is 10⁻³). */
static void test_inconsistent_free_set(void) {
    const tch_real tolerance = 1e-8, separation = 1e-3;
    uniform_stack(&g_scene, STACK);
    int first = -1;
    for (int i = 0; i < g_scene.nc && first < 0; ++i) {
        first = g_scene.contacts[i].b == 16 ? i : -1;
    }
    contact twin = g_scene.contacts[first];
    add_contact(&g_scene, twin.a, twin.b, twin.p_W, -separation, 0);
    const int second = g_scene.nc - 1;
    build_problem(&g_scene);
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    tch_real z[MAX_ROWS];
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    tch_lcp_result result;
    exact_stack_impulses(&g_scene, STACK, z);
    z[first] *= 0.5;
    z[second] = z[first];
    const tch_row_solve_options o = options_with(20000, tolerance, context);
    tch_status status = solve(&g_scene, &o, v, w, z, &result);
    tch_sparse_spd_destroy(context);
    printf("     inconsistent free set: %d sweeps, residual %.3g, status %d\n",
           result.iterations, result.residual, (int)status);
    ENSURE(all_finite(&g_scene, v, w, z));
    ENSURE(status == TCH_OK && result.residual <= tolerance);
    /* undone steps of impulses ~10⁵ leave rounding of ~10⁻¹⁰ in (v, w) */
    ENSURE(velocities_match(&g_scene, v, w, z, 1e-9));
    ENSURE(independent_residual(&g_scene, z) <= tolerance);
    ENSURE(mlcp_violation(&g_scene, z) <= 1e-7);
    ENSURE(z[first] <= tolerance);
    ENSURE_NEAR(row_velocity(&g_scene, v, w, first), separation, 1e-7);
}

/* Plain PGS on a stack whose boxes alternate between masses 1 and 1000 (a heavy box on a light
 * one converges slowly) with a tolerance it cannot reach soon: with give_up_when_slow it stops
 * early, reporting TCH_LCP_STALLED (its residual barely moves over 8 sweeps: 0.10 after 64
 * sweeps, 0.02 after 20 000); without, it runs to the sweep limit. */
static void test_give_up_when_slow(void) {
    const int limit = 20000;
    tch_real masses[MAX_BODIES];
    for (int k = 0; k < STACK; ++k) {
        masses[k] = k % 2 ? 1000 : 1;
    }
    stack_scene(&g_scene, STACK, masses);
    build_problem(&g_scene);
    tch_real z_quit[MAX_ROWS] = {0}, z_all[MAX_ROWS] = {0};
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    tch_lcp_result quit, all;
    tch_row_solve_options o = options_with(limit, 1e-13, NULL);
    tch_status all_status = solve(&g_scene, &o, v, w, z_all, &all);
    o.give_up_when_slow = true;
    tch_status quit_status = solve(&g_scene, &o, v, w, z_quit, &quit);
    printf("     slow stack: gave up after %d sweeps (residual %.3g); without giving up %d "
           "sweeps (residual %.3g)\n",
           quit.iterations, quit.residual, all.iterations, all.residual);
    ENSURE(quit_status == TCH_ERR_NUMERICAL && quit.status == TCH_ERR_NUMERICAL);
    ENSURE(quit.reason == TCH_LCP_STALLED);
    ENSURE(all.reason == TCH_LCP_MAX_ITERATIONS);
    ENSURE(quit.iterations >= 64 && quit.iterations < limit && quit.residual > 1e-13);
    ENSURE(all_status == TCH_ERR_NUMERICAL && all.iterations == limit);
    ENSURE(all.iterations > quit.iterations);
    ENSURE(all_finite(&g_scene, v, w, z_quit));
}

/* Two rows at one point of a box that ask for v_z >= 0.1 and v_z <= 0 (no solution): each
 * sweep leaves v_z = 0 and the first row's natural-map component at 0.1 while the impulses grow,
 * so the residual sits still. Giving up when slow, the solve reports TCH_LCP_STALLED (the
 * solver chain then tries no second PGS attempt); without giving up it runs to its limit and
 * reports TCH_LCP_MAX_ITERATIONS. */
static void test_stalled_solve(void) {
    start_scene(&g_scene);
    add_box(&g_scene, 1, tch_v3(0, 0, HALF.z));
    add_contact(&g_scene, 0, 1, tch_v3(0, 0, 0), -0.1, 0); /* v_z >= 0.1 */
    add_contact(&g_scene, 1, 0, tch_v3(0, 0, 0), 0, 0);    /* -v_z >= 0 */
    build_problem(&g_scene);
    tch_real z[MAX_ROWS] = {0};
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    tch_lcp_result result;
    tch_row_solve_options o = options_with(1000, 1e-8, NULL);
    o.give_up_when_slow = true;
    ENSURE(solve(&g_scene, &o, v, w, z, &result) == TCH_ERR_NUMERICAL);
    ENSURE(result.reason == TCH_LCP_STALLED);
    ENSURE(result.iterations >= 64 && result.iterations < 1000);
    ENSURE_NEAR(result.residual, 0.1, 1e-9);
    memset(z, 0, sizeof z);
    o.give_up_when_slow = false;
    ENSURE(solve(&g_scene, &o, v, w, z, &result) == TCH_ERR_NUMERICAL);
    ENSURE(result.reason == TCH_LCP_MAX_ITERATIONS && result.iterations == 1000);
}

/* iterate_only (a push's solve): the same iterate as a measured solve of the same sweeps, with
 * no residual measured; and it stops before its limit once a sweep met only components within
 * the tolerance (a stack warm-started at its exact impulses). */
static void test_iterate_only(void) {
    uniform_stack(&g_scene, STACK);
    build_problem(&g_scene);
    tch_real z_measured[MAX_ROWS] = {0}, z_iterate[MAX_ROWS] = {0};
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES], v_iterate[MAX_BODIES], w_iterate[MAX_BODIES];
    tch_lcp_result measured, iterate;
    tch_row_solve_options o = options_with(4, 1e-12, NULL);
    ENSURE(solve(&g_scene, &o, v, w, z_measured, &measured) == TCH_ERR_NUMERICAL);
    o.iterate_only = true;
    ENSURE(solve(&g_scene, &o, v_iterate, w_iterate, z_iterate, &iterate) == TCH_ERR_NUMERICAL);
    ENSURE(measured.iterations == 4 && iterate.iterations == 4);
    ENSURE(measured.residual > 1e-12 && isinf(iterate.residual));
    for (int r = 0; r < g_scene.nr; ++r) {
        ENSURE(z_iterate[r] == z_measured[r]);
    }
    exact_stack_impulses(&g_scene, STACK, z_iterate);
    o.sweeps = 1000;
    o.tolerance = o.accept = 1e-10;
    solve(&g_scene, &o, v_iterate, w_iterate, z_iterate, &iterate);
    ENSURE(iterate.iterations == 1 && isinf(iterate.residual));
}

/* tch_row_residual on impulses with negative normals, friction outside its bounds and at them,
 * against the natural map computed from the contact points. */
static void test_residual_matches_direct_computation(void) {
    uniform_stack(&g_scene, 6);
    build_problem(&g_scene);
    tch_real z[MAX_ROWS];
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    unsigned state = 12345;
    for (int trial = 0; trial < 20; ++trial) {
        for (int r = 0; r < g_scene.nr; ++r) {
            state = state * 1664525u + 1013904223u;
            z[r] = ((tch_real)(state >> 8) / (1u << 24) - 0.3) * 0.2;
        }
        for (int i = 0; i < g_scene.nc; i += 3) {
            z[g_scene.friction_start[i]] = MU * z[i]; /* at the bound when z_n > 0 */
        }
        velocities_after(&g_scene, z, v, w);
        tch_real direct = natural_map_residual(&g_scene, v, w, z);
        ENSURE(direct > 0);
        ENSURE_NEAR(tch_row_residual(&g_scene.problem, v, w, z), direct, 1e-14);
    }
    /* at the exact solution both are (near) zero */
    exact_stack_impulses(&g_scene, 6, z);
    velocities_after(&g_scene, z, v, w);
    ENSURE(tch_row_residual(&g_scene.problem, v, w, z) <= 1e-14);
}

/* tch_row_coupling(i, j) = J_i M⁻¹ J_jᵀ is the change of row i's velocity under a unit impulse
 * on row j, computed from the contact points; tch_row_dot and tch_row_add_impulse agree. */
static void test_row_coupling_matches_impulse_response(void) {
    tch_real masses[3] = {1, 2.5, 0.7};
    stack_scene(&g_other, 3, masses);
    g_other.v0[2] = tch_v3(0.1, -0.2, 0.3);
    g_other.w0[2] = tch_v3(-1, 0.5, 2);
    build_problem(&g_other);
    tch_real z[MAX_ROWS] = {0};
    tch_vec3 v0[MAX_BODIES], w0[MAX_BODIES], v[MAX_BODIES], w[MAX_BODIES];
    velocities_after(&g_other, z, v0, w0);
    for (int j = 0; j < g_other.nr; ++j) {
        z[j] = 1;
        velocities_after(&g_other, z, v, w);
        z[j] = 0;
        tch_vec3 v_rows[MAX_BODIES], w_rows[MAX_BODIES];
        memcpy(v_rows, v0, sizeof v_rows);
        memcpy(w_rows, w0, sizeof w_rows);
        tch_row_add_impulse(&g_other.rows[j], 1, v_rows, w_rows);
        for (int i = 0; i < g_other.nr; ++i) {
            tch_real response = row_velocity(&g_other, v, w, i) -
                                row_velocity(&g_other, v0, w0, i);
            ENSURE_NEAR(tch_row_coupling(&g_other.rows[i], &g_other.rows[j]), response, 1e-12);
            ENSURE_NEAR(tch_row_dot(&g_other.rows[i], v_rows, w_rows) + g_other.rhs[i],
                        row_velocity(&g_other, v, w, i), 1e-12);
        }
    }
}

/* The natural-map residual of impulses z on the scene's problem, at v0 + M⁻¹ Jᵀ z. */
static tch_real residual_at(const scene* s, const tch_real* z) {
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    memcpy(v, s->v0, (size_t)s->body_count * sizeof *v);
    memcpy(w, s->w0, (size_t)s->body_count * sizeof *w);
    for (int r = 0; r < s->nr; ++r) {
        tch_row_add_impulse(&s->rows[r], z[r], v, w);
    }
    return tch_row_residual(&s->problem, v, w, z);
}

/* The warm start's two-step cycle: a 10-box stack solved exactly (z*), then a step whose rows
 * carry a velocity error e = 1e-7 m/s left by the step before (emulated in its right-hand
 * side) ends exact with z1 = z* − A⁻¹ e. Warm-starting the next step (no error left) with z1
 * would leave a residual of e; the steady impulses z1 + A⁻¹ e the solve gives with `carried`
 * leave under a thousandth of it. Without `carried` they are z1. */
static void test_steady_impulses_drop_the_carried_correction(void) {
    uniform_stack(&g_scene, 10);
    build_problem(&g_scene);
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    const tch_row_solve_options o = {1000, 1e-11, 1e-6, context, false, false, false, false};
    tch_vec3 v[MAX_BODIES], w[MAX_BODIES];
    tch_lcp_result result;
    static tch_real z_star[MAX_ROWS], z1[MAX_ROWS], plain[MAX_ROWS], steady[MAX_ROWS];
    static tch_real carried[MAX_ROWS], rhs[MAX_ROWS];
    ENSURE(solve(&g_scene, &o, v, w, z_star, &result) == TCH_OK);
    memcpy(rhs, g_scene.rhs, (size_t)g_scene.nr * sizeof *rhs);
    for (int r = 0; r < g_scene.nr; ++r) {
        carried[r] = r < g_scene.nc ? 1e-7 : 0;
        g_scene.rhs[r] = rhs[r] + carried[r];
    }
    memcpy(z1, z_star, sizeof z1);
    memcpy(plain, z_star, sizeof plain);
    g_scene.problem.steady = steady;
    g_scene.problem.carried = carried;
    ENSURE(solve(&g_scene, &o, v, w, z1, &result) == TCH_OK);
    g_scene.problem.steady = plain;
    g_scene.problem.carried = NULL;
    ENSURE(solve(&g_scene, &o, v, w, plain, &result) == TCH_OK);
    ENSURE(memcmp(plain, z1, (size_t)g_scene.nr * sizeof *z1) == 0);
    memcpy(g_scene.rhs, rhs, (size_t)g_scene.nr * sizeof *rhs); /* the next step: no error */
    g_scene.problem.steady = NULL;
    tch_real with_z1 = residual_at(&g_scene, z1), with_steady = residual_at(&g_scene, steady);
    ENSURE(with_z1 >= 0.5e-7);
    ENSURE(with_steady <= 1e-3 * with_z1);
    tch_sparse_spd_destroy(context);
}

int main(void) {
    RUN_TEST(test_box_resting_on_ground);
    RUN_TEST(test_box_sliding_on_ground);
    RUN_TEST(test_stack_subspace_beats_plain_pgs);
    RUN_TEST(test_frictionless_stack_subspace_beats_plain_pgs);
    RUN_TEST(test_warm_start_at_solution);
    RUN_TEST(test_inconsistent_free_set);
    RUN_TEST(test_give_up_when_slow);
    RUN_TEST(test_stalled_solve);
    RUN_TEST(test_iterate_only);
    RUN_TEST(test_residual_matches_direct_computation);
    RUN_TEST(test_row_coupling_matches_impulse_response);
    RUN_TEST(test_steady_impulses_drop_the_carried_correction);
    return TEST_RESULT();
}
