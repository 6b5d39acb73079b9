/* peg's constraints and its LCP (peg.md §4-8): the slack encoding of eqs. 20-24, Jacobians
 * against finite differences, the feature-pair cases on closed forms, and the standard-model
 * traps of figs. 2, 3 and 5 as one-step problems and short time-stepping runs, where the
 * standard model (one row per vertex at its deepest contact) is infeasible or traps the vertex
 * and peg passes the corner without interpenetration; friction's sign through momentum. */
#include <math.h>
#include <stdlib.h>

#include "contact/peg_build.h"
#include "contact/peg_lcp.h"
#include "peg_sampling.h"
#include "solver/lemke.h"
#include "test.h"

static const double gravity = 9.81;

/* ---- eqs. 20-24: the slack encoding ---- */

/* A constraint over contacts with the given gaps (first = primary), zero Jacobians. */
static void constraint_of_gaps(tch_peg_constraints* list, tch_peg_kind kind, const double* gaps,
                               int count) {
    const tch_peg_params params = tch_peg_params_default(3, 0.01);
    tch_peg_contact set[8] = {{0}};
    for (int i = 0; i < count; ++i) {
        set[i].gap = gaps[i];
        set[i].feasible = true;
        set[i].applicability = i == 0 ? 1 : -1; /* only the first qualifies: it is primary */
    }
    list->count = list->contact_count = 0;
    tch_peg_emit(list, kind, TCH_FEATURE_VERTEX_EDGE, 0, 0, set, count, &params);
}

/* peg.md §11.1: forward substitution of eq. 20 gives c_s = max(0, psi_{s+1} - psi_1 -
 * sum_{l<s} c_l) and psi_1 + sum c = max psi; Lemke on the slack block (G = 0) agrees. */
static void test_slack_encoding(void) {
    unsigned long long state = 7;
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
    for (int trial = 0; trial < 20000; ++trial) {
        const int count = 2 + trial % 6;
        double gaps[8], largest = -INFINITY;
        for (int i = 0; i < count; ++i) {
            gaps[i] = 2 * fixture_uniform(&state) - 1;
            largest = fmax(largest, gaps[i]);
        }
        constraint_of_gaps(&list, TCH_PEG_I, gaps, count);
        ENSURE(list.count == 1 && list.constraints[0].count == count);
        ENSURE(list.contacts[0].gap == gaps[0]); /* the primary leads */
        ENSURE(tch_peg_constraint_value(&list, 0) == largest);
        double row0, rows[8], c[8], sum = 0;
        tch_peg_jacobian j;
        tch_peg_constraint_row(&list, 0, 0, &row0, &j);
        for (int s = 1; s < count; ++s) {
            tch_peg_constraint_row(&list, 0, s, &rows[s], &j);
            c[s] = fmax(0, -(rows[s] + sum));
            sum += c[s];
        }
        ENSURE_NEAR(row0 + sum, largest, 1e-15);
        if (trial % 50 == 0) {
            const int k = count - 1; /* LCP: w = L c + rows, L lower-triangular ones */
            double m[49], q[7], z[7];
            for (int r = 0; r < k; ++r) {
                q[r] = rows[r + 1];
                for (int col = 0; col < k; ++col) {
                    m[r * k + col] = col <= r;
                }
            }
            ENSURE(tch_lemke_solve(m, q, k, NULL, &arena, z, NULL, NULL) == TCH_OK);
            for (int s = 1; s < count; ++s) {
                ENSURE_NEAR(z[s - 1], c[s], 1e-12);
            }
        }
    }
    tch_arena_destroy(&arena);
    tch_peg_constraints_free(&list);
}

/* ---- Jacobians ---- */

static tch_transform advance(tch_transform X, tch_vec3 v, tch_vec3 w, double h) {
    return (tch_transform){tch_q_normalize(tch_q_mul(tch_q_from_rotvec(tch_v3_scale(w, h)), X.q)),
                           tch_v3_madd(X.p, h, v)};
}

/* The gap of the contact matching c (same kind and features) in list, or NAN. */
static double matching_gap(const tch_peg_constraints* list, const tch_peg_contact* c) {
    for (int i = 0; i < list->contact_count; ++i) {
        const tch_peg_contact* d = &list->contacts[i];
        if (d->kind == c->kind && d->feature_a == c->feature_a && d->feature_b == c->feature_b) {
            return d->gap;
        }
    }
    return NAN;
}

/* psi' = J nu is exact to first order for vertex-face and edge-edge contacts (the rotation of
 * n multiplies n . n' = 0 or a zero lever): central differences of every contact's gap under
 * random twists of both bodies match J nu. */
static void test_jacobians_against_differences(void) {
    unsigned long long state = 11;
    const tch_peg_params params = tch_peg_params_default(3, 0.01);
    tch_peg_constraints list, moved;
    tch_peg_constraints_init(&list);
    tch_peg_constraints_init(&moved);
    int checked = 0;
    for (int trial = 0; trial < 60; ++trial) {
        peg_solid a, b;
        ENSURE(peg_solid_init(&a, &state) && peg_solid_init(&b, &state));
        peg_sample_3d(&state, trial % 2, &a, &b, &params, &list);
        const tch_vec3 va = fixture_unit_vector(&state), wa = fixture_unit_vector(&state);
        const tch_vec3 vb = fixture_unit_vector(&state), wb = fixture_unit_vector(&state);
        const double h = 1e-6;
        peg_solid a2 = a, b2 = b, a0 = a, b0 = b;
        a2.pose = advance(a.pose, va, wa, h);
        b2.pose = advance(b.pose, vb, wb, h);
        a0.pose = advance(a.pose, va, wa, -h);
        b0.pose = advance(b.pose, vb, wb, -h);
        for (int i = 0; i < list.contact_count; ++i) {
            const tch_peg_contact* c = &list.contacts[i];
            ENSURE(tch_peg_constraints_build(&a2.f, a2.pose, a2.pose.p, &b2.f, b2.pose, b2.pose.p,
                                             &params, &moved, NULL) == TCH_OK);
            const double plus = matching_gap(&moved, c);
            ENSURE(tch_peg_constraints_build(&a0.f, a0.pose, a0.pose.p, &b0.f, b0.pose, b0.pose.p,
                                             &params, &moved, NULL) == TCH_OK);
            const double minus = matching_gap(&moved, c);
            if (isnan(plus) || isnan(minus)) {
                continue; /* left the candidate list */
            }
            const double rate = tch_peg_jacobian_dot(&c->jacobian, va, wa, vb, wb);
            ENSURE_NEAR((plus - minus) / (2 * h), rate, 1e-6);
            checked++;
        }
        peg_solid_free(&a);
        peg_solid_free(&b);
    }
    ENSURE(checked > 200);
    tch_peg_constraints_free(&list);
    tch_peg_constraints_free(&moved);
}

/* ---- closed forms of the cases ---- */

static peg_polygon square(double half) {
    peg_polygon p = {.n = 4};
    const double x[4] = {-1, 1, 1, -1}, y[4] = {-1, -1, 1, 1};
    for (int i = 0; i < 4; ++i) {
        p.local[i] = tch_v3(half * x[i], half * y[i], 0);
    }
    return p;
}

static int count_kind(const tch_peg_constraints* list, tch_peg_kind kind,
                      tch_feature_pair_kind source) {
    int n = 0;
    for (int i = 0; i < list->count; ++i) {
        n += list->constraints[i].kind == kind && list->constraints[i].source == source;
    }
    return n;
}

/* 2D, eq. 33: squares corner to corner, A's bottom-left vertex (vertex 0) at (dx, dy) from B's
 * top-right vertex (vertex 2). C1 = C(va, eb-) (B's edge 1, the right side x = 0), C2 =
 * C(va, eb+) (edge 2, the top y = 0), C3 = C(vb, ea-) (A's edge 3, its left side), C4 =
 * C(vb, ea+) (edge 0, its bottom): gaps dx, dy, dx, dy; I(C1,C2), I(C3,C4), X(C1,C4),
 * X(C2,C3). Away from the corner, eq. 32 gives U alone. */
static void test_2d_vertex_vertex_labels(void) {
    const tch_peg_params params = tch_peg_params_default(2, 0.01);
    peg_polygon a = square(0.5), b = square(0.5);
    const double dx = 0.002, dy = -0.0005;
    peg_pose_polygon(&a, tch_v3(0.5 + dx, 0.5 + dy, 0), 0);
    peg_pose_polygon(&b, tch_v3(-0.5, -0.5, 0), 0);
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    ENSURE(tch_peg_constraints_build_2d(a.world, 4, tch_v3(0.5, 0.5, 0), b.world, 4,
                                        tch_v3(-0.5, -0.5, 0), &params, &list, NULL) == TCH_OK);
    ENSURE(list.count == 4);
    ENSURE(count_kind(&list, TCH_PEG_I, TCH_FEATURE_VERTEX_VERTEX) == 2);
    ENSURE(count_kind(&list, TCH_PEG_X, TCH_FEATURE_VERTEX_VERTEX) == 2);
    /* X(C1, C4): A's vertex past the line x = 0 by dx, B's vertex under A's bottom by -dy */
    const tch_peg_constraint* x1 = &list.constraints[2];
    double gaps[2] = {list.contacts[x1->first].gap, list.contacts[x1->first + 1].gap};
    ENSURE(fabs(fmax(gaps[0], gaps[1]) - dx) < 1e-15 && fabs(fmin(gaps[0], gaps[1]) - dy) < 1e-15);
    for (int i = 0; i < list.count; ++i) {
        ENSURE_NEAR(tch_peg_constraint_value(&list, i), dx, 1e-15); /* max of dx, dy */
    }
    /* the primary of I(C1, C2) is the touching, applicable one: C2, the top, at gap dy */
    const tch_peg_contact* primary = &list.contacts[list.constraints[0].first];
    ENSURE(primary->feature_b == 2 && fabs(primary->gap - dy) < 1e-15);
    ENSURE(tch_v3_dist(primary->normal, tch_v3(0, -1, 0)) < 1e-15);
    ENSURE(tch_peg_constraints_hold(&list));
    /* slide A to the left: a vertex-edge U of A's vertex 0 on B's top */
    peg_pose_polygon(&a, tch_v3(0.2, 0.5 + 0.001, 0), 0);
    ENSURE(tch_peg_constraints_build_2d(a.world, 4, tch_v3(0.2, 0.5, 0), b.world, 4,
                                        tch_v3(-0.5, -0.5, 0), &params, &list, NULL) == TCH_OK);
    ENSURE(list.count == 2); /* A's vertex 0 on B's top, B's vertex 2 under A's bottom */
    ENSURE(count_kind(&list, TCH_PEG_U, TCH_FEATURE_VERTEX_EDGE) == 1);
    ENSURE(count_kind(&list, TCH_PEG_U, TCH_FEATURE_EDGE_VERTEX) == 1);
    ENSURE_NEAR(list.contacts[0].gap, 0.001, 1e-15);
    tch_peg_constraints_free(&list);
}

static tch_features box_features(tch_vec3 half, tch_convex_hull* hull) {
    *hull = fixture_box(half, tch_v3_zero());
    const tch_polytope view = {hull->vertex_count, hull->vertices_G,    hull->face_count,
                               hull->face_start,   hull->face_vertices, hull->face_normals_G,
                               {{0, 0, 0}}};
    tch_features f;
    tch_features_build(&view, "box", &f, NULL);
    return f;
}

static tch_transform at(tch_vec3 p) {
    return (tch_transform){{1, 0, 0, 0}, p};
}

/* 3D, eqs. 34-36: a small cube resting in the middle of a big one gives four vertex-face U at
 * the gap along -z; slid so that one bottom edge overhangs the big cube's top edge (two
 * vertices 0.01 past its plane), those two vertices get the vertex set {top, side} as I (eq. 36)
 * with the top touching as primary. */
static void test_3d_cube_cases(void) {
    tch_convex_hull ha, hb;
    tch_features a = box_features(tch_v3(0.25, 0.25, 0.25), &ha);
    tch_features b = box_features(tch_v3(1, 1, 1), &hb);
    const tch_peg_params params = tch_peg_params_default(3, 0.01);
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    const double gap = 0.003;
    ENSURE(tch_peg_constraints_build(&a, at(tch_v3(0, 0, 1.25 + gap)), tch_v3(0, 0, 1.25), &b,
                                     at(tch_v3_zero()), tch_v3_zero(), &params, &list,
                                     NULL) == TCH_OK);
    ENSURE(list.count == 4 && count_kind(&list, TCH_PEG_U, TCH_FEATURE_VERTEX_FACE) == 4);
    for (int i = 0; i < 4; ++i) {
        ENSURE_NEAR(list.contacts[i].gap, gap, 1e-14);
        ENSURE(tch_v3_dist(list.contacts[i].normal, tch_v3(0, 0, -1)) < 1e-15);
    }
    /* overhang by 0.01 past x = 1 */
    ENSURE(tch_peg_constraints_build(&a, at(tch_v3(1 - 0.25 + 0.01, 0, 1.25)), tch_v3_zero(), &b,
                                     at(tch_v3_zero()), tch_v3_zero(), &params, &list,
                                     NULL) == TCH_OK);
    ENSURE(count_kind(&list, TCH_PEG_I, TCH_FEATURE_VERTEX_EDGE) == 2);
    ENSURE(count_kind(&list, TCH_PEG_U, TCH_FEATURE_VERTEX_FACE) == 2);
    for (int i = 0; i < list.count; ++i) {
        const tch_peg_constraint* c = &list.constraints[i];
        if (c->kind == TCH_PEG_I) {
            ENSURE(c->count == 2);
            ENSURE_NEAR(list.contacts[c->first].gap, 0, 1e-14);        /* top, touching */
            ENSURE_NEAR(list.contacts[c->first + 1].gap, 0.01, 1e-14); /* past the side's plane */
        }
    }
    ENSURE(tch_peg_constraints_hold(&list));
    tch_peg_constraints_free(&list);
    tch_features_free(&a);
    tch_features_free(&b);
    tch_hull_free(&ha);
    tch_hull_free(&hb);
}

/* ---- the LCP ---- */

static tch_peg_body static_body(void) {
    return (tch_peg_body){.inverse_mass = 0, .inverse_inertia = tch_m3_zero()};
}

static tch_peg_body free_body(tch_vec3 position, tch_vec3 velocity, double mass, double inertia) {
    return (tch_peg_body){.position = position,
                          .velocity = velocity,
                          .force = tch_v3(0, -mass * gravity, 0),
                          .inverse_mass = 1 / mass,
                          .inverse_inertia =
                              tch_m3_diag(tch_v3(0, 0, inertia > 0 ? 1 / inertia : 0))};
}

static tch_peg_step_options planar(double h, tch_peg_model model) {
    return (tch_peg_step_options){.h = h, .model = model, .friction_directions = 2, .planar = true};
}

/* peg.md §11.2, fig. 2: a point mass (vertex = centre of mass, no rotation) on the top edge of
 * the static box [-1,0]^2 at x = -0.01, moving right at 0.2 m/s. C_top (gap 0) and C_side
 * (gap -0.01 to the line x = 0). The standard model's row at the deepest contact, the side,
 * forces v_x >= 1 m/s; peg's I(C_top primary, C_side) keeps v = (0.2, 0), the top impulse
 * m g h cancelling gravity. */
static void test_fig2_one_step(void) {
    const double h = 0.01;
    const tch_vec3 v = tch_v3(-0.01, 0, 0);
    tch_peg_body bodies[2] = {free_body(v, tch_v3(0.2, 0, 0), 1, 0), static_body()};
    const tch_peg_params params = tch_peg_params_default(2, h);
    tch_peg_contact set[2] = {tch_peg_vertex_facet_contact(true, 0, 0, v, tch_v3(0, 1, 0),
                                                           tch_v3_zero(), v, tch_v3_zero()),
                              tch_peg_vertex_facet_contact(true, 0, 1, v, tch_v3(1, 0, 0),
                                                           tch_v3_zero(), v, tch_v3_zero())};
    set[0].applicability = set[1].applicability = 0;
    set[0].feasible = set[1].feasible = true;
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    ENSURE(tch_peg_emit(&list, TCH_PEG_I, TCH_FEATURE_VERTEX_VERTEX, 0, 0, set, 2, &params));
    const tch_peg_pair pair = {0, 1, &list, 0, NULL, NULL};
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
    tch_vec3 vel[2], ang[2];
    tch_peg_step_options options = planar(h, TCH_PEG_MODEL_PEG);
    ENSURE(tch_peg_step_velocities(bodies, 2, &pair, 1, &options, &arena, vel, ang, NULL, NULL) ==
           TCH_OK);
    ENSURE_NEAR(vel[0].x, 0.2, 1e-12);
    ENSURE_NEAR(vel[0].y, 0, 1e-12);
    options.model = TCH_PEG_MODEL_STANDARD;
    ENSURE(tch_peg_step_velocities(bodies, 2, &pair, 1, &options, &arena, vel, ang, NULL, NULL) ==
           TCH_OK);
    ENSURE(vel[0].x >= 1.0 - 1e-12); /* the spurious jump */
    tch_arena_destroy(&arena);
    tch_peg_constraints_free(&list);
}

/* 2D body state of the time-stepping tests. */
typedef struct planar_body {
    peg_polygon shape;
    tch_vec3 x, v;
    double angle, w;
    double mass, inertia; /* mass 0: static */
    double g;             /* gravity along -y */
} planar_body;

static void place(planar_body* b) {
    peg_pose_polygon(&b->shape, b->x, b->angle);
}

static tch_peg_body as_peg_body(const planar_body* b) {
    if (b->mass == 0) {
        tch_peg_body s = static_body();
        s.position = b->x;
        return s;
    }
    tch_peg_body p = free_body(b->x, b->v, b->mass, b->inertia);
    p.force = tch_v3(0, -b->mass * b->g, 0);
    p.angular_velocity = tch_v3(0, 0, b->w);
    return p;
}

/* One step of A against static B: constraints, LCP, symplectic Euler. */
static tch_status step_pair(planar_body* a, planar_body* b, tch_peg_model model, double h,
                            tch_peg_constraints* list, tch_arena* arena, double friction) {
    const tch_peg_params params = tch_peg_params_default(2, h);
    tch_status s = tch_peg_constraints_build_2d(a->shape.world, a->shape.n, a->x, b->shape.world,
                                                b->shape.n, b->x, &params, list, NULL);
    if (s != TCH_OK) {
        return s;
    }
    const tch_peg_body bodies[2] = {as_peg_body(a), as_peg_body(b)};
    const tch_peg_pair pair = {0, 1, list, friction, NULL, NULL};
    const tch_peg_step_options options = planar(h, model);
    tch_vec3 vel[2], ang[2];
    s = tch_peg_step_velocities(bodies, 2, &pair, 1, &options, arena, vel, ang, NULL, NULL);
    planar_body* both[2] = {a, b};
    for (int i = 0; i < 2; ++i) {
        if (both[i]->mass > 0) {
            both[i]->v = vel[i];
            both[i]->w = ang[i].z;
            both[i]->x = tch_v3_madd(both[i]->x, h, vel[i]);
            both[i]->angle += h * ang[i].z;
            place(both[i]);
        }
    }
    return s;
}

/* Fig. 5's unit squares (below): B static, A at (-0.5, -0.02) m/s, its bottom-left vertex
 * 0.001 right of and above B's top-right one, under gravity g. */
static void fig5_squares(planar_body* a, planar_body* b, double g) {
    *b = (planar_body){.shape = square(0.5), .x = tch_v3(-0.5, -0.5, 0)};
    *a = (planar_body){.shape = square(0.5),
                       .x = tch_v3(0.5 + 0.001, 0.5 + 0.001, 0),
                       .v = tch_v3(-0.5, -0.02, 0),
                       .mass = 1,
                       .inertia = 1.0 / 6,
                       .g = g};
    place(a);
    place(b);
}

/* The Gauss-Seidel path (peg_lcp.h, options.sweeps) against Lemke from the same state: A
 * against static B, over-relaxed by `relaxation`. *difference: the largest velocity
 * difference of the sweeps from zero impulses, and of the sweeps started at Lemke's solution,
 * to Lemke's; *swept when the first converged. Started at Lemke's solution the sweeps must
 * stay there (every block keeps the solution nearest its impulse: an I-constraint held by its
 * impulse is not dropped to 0 when another of its contacts is ahead at 0) and converge within
 * two sweeps. */
static void sweeps_agree(const planar_body* a, const planar_body* b, double h, double relaxation,
                         tch_peg_constraints* list, tch_arena* arena, double* difference,
                         int* swept) {
    const tch_peg_params params = tch_peg_params_default(2, h);
    ENSURE(tch_peg_constraints_build_2d(a->shape.world, a->shape.n, a->x, b->shape.world,
                                        b->shape.n, b->x, &params, list, NULL) == TCH_OK);
    const tch_peg_body bodies[2] = {as_peg_body(a), as_peg_body(b)};
    tch_real unknowns[64] = {0};
    tch_peg_pair pair = {0, 1, list, 0, NULL, unknowns};
    tch_peg_step_options options = planar(h, TCH_PEG_MODEL_PEG);
    ENSURE(tch_peg_pair_unknowns(&pair, &options) <= 64);
    tch_vec3 vel[3][2], ang[3][2];
    tch_peg_step_result result;
    ENSURE(tch_peg_step_velocities(bodies, 2, &pair, 1, &options, arena, vel[0], ang[0], &result,
                                   NULL) == TCH_OK);
    ENSURE(!result.swept && result.sweeps == 0);
    options.sweeps = 200;
    options.tolerance = 1e-12;
    options.relaxation = relaxation;
    options.warm_start = true; /* from Lemke's solution, in the pair's unknowns */
    ENSURE(tch_peg_step_velocities(bodies, 2, &pair, 1, &options, arena, vel[2], ang[2], &result,
                                   NULL) == TCH_OK);
    ENSURE(result.sweeps == 0 || (result.swept && result.sweeps <= 2));
    pair.unknowns = NULL; /* from zero impulses */
    ENSURE(tch_peg_step_velocities(bodies, 2, &pair, 1, &options, arena, vel[1], ang[1], &result,
                                   NULL) == TCH_OK);
    *difference = 0;
    for (int k = 1; k < 3; ++k) {
        *difference = fmax(*difference, fmax(tch_v3_norm(tch_v3_sub(vel[0][0], vel[k][0])),
                                             tch_v3_norm(tch_v3_sub(ang[0][0], ang[k][0]))));
    }
    ENSURE(!result.swept || result.residual <= 1e-12);
    *swept += result.swept;
}

/* Fig. 5's slide (below, with gravity) under Lemke, each step also solved by the sweeps, plain
 * and over-relaxed as the engine runs them (1.3): they converge at every step with contact
 * (the corner's I and X constraints included; over-relaxed, all but one) and give Lemke's
 * velocities to 1e-9, and Lemke's solution is a fixed point of theirs. */
static void test_sweeps_agree_with_lemke(void) {
    const double h = 0.01;
    planar_body a, b;
    fig5_squares(&a, &b, gravity);
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
    int swept[2] = {0, 0}, touching = 0;
    for (int step = 0; step < 100; ++step) {
        for (int k = 0; k < 2; ++k) {
            double difference = INFINITY;
            sweeps_agree(&a, &b, h, k ? 1.3 : 1, &list, &arena, &difference, &swept[k]);
            ENSURE(difference < 1e-9);
        }
        touching += list.count > 0;
        ENSURE(step_pair(&a, &b, TCH_PEG_MODEL_PEG, h, &list, &arena, 0) == TCH_OK);
    }
    /* measured: 41 of 41 plain; over-relaxed 40 (at the first step with contact they stall
     * and Lemke solves it) */
    ENSURE(touching > 30 && swept[0] == touching && swept[1] >= touching - 1);
    tch_arena_destroy(&arena);
    tch_peg_constraints_free(&list);
}

/* A block with several solutions: one I-constraint of a free point mass A (m = 1, at its
 * contacts) against static B over C1 (primary, n1 = (0, -1), A falling onto it at 1 m/s) and
 * C2 (n2 = (0.6, 0.8), receding at 0.62 m/s, and closing by 0.8 per unit of C1's impulse).
 * 0 <= p ⊥ max(g1, g2) >= 0 holds at p = 0 (C2 ahead), at p = 0.775 (g2 = 0 falling) and at
 * p = 1 (g1 = 0). Lemke warm-started on p's basis answers p = 1 without a pivot; the sweeps
 * started there must keep it, plain and over-relaxed (a rule that takes p = 0 whenever it
 * is a solution drops it and lands A elsewhere). */
static void test_sweeps_keep_a_held_constraint(void) {
    const tch_vec3 n1 = tch_v3(0, -1, 0), n2 = tch_v3(0.6, 0.8, 0);
    tch_peg_contact contacts[2];
    for (int k = 0; k < 2; ++k) {
        const tch_vec3 n = k ? n2 : n1;
        contacts[k] = (tch_peg_contact){.kind = TCH_PEG_VERTEX_FACET, .feature_b = k,
                                        .normal = n, .applicability = 1, .feasible = true,
                                        .jacobian = {{n, tch_v3_neg(n)}, {tch_v3_zero(), tch_v3_zero()}}};
    }
    tch_peg_constraint constraint = {TCH_PEG_I, TCH_FEATURE_VERTEX_VERTEX, 0, 0, 0, 2};
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    list.contacts = contacts;
    list.contact_count = 2;
    list.constraints = &constraint;
    list.count = 1;
    const tch_peg_body bodies[2] = {
        {.velocity = tch_v3(0.3, -1, 0), .inverse_mass = 1, .inverse_inertia = tch_m3_identity()},
        {.inverse_mass = 0}};
    tch_real unknowns[2] = {0.5, 0};
    const tch_peg_pair pair = {0, 1, &list, 0, NULL, unknowns};
    tch_peg_step_options options = planar(0.01, TCH_PEG_MODEL_PEG);
    options.warm_start = true;
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 14) == 0);
    tch_vec3 v[2], w[2];
    tch_peg_step_result result;
    ENSURE(tch_peg_step_velocities(bodies, 2, &pair, 1, &options, &arena, v, w, &result, NULL) ==
           TCH_OK);
    ENSURE(result.lcp.iterations == 0 && fabs(unknowns[0] - 1) < 1e-12);
    ENSURE(tch_v3_norm(tch_v3_sub(v[0], tch_v3(0.3, 0, 0))) < 1e-12);
    options.sweeps = 200;
    options.tolerance = 1e-12;
    for (int k = 0; k < 2; ++k) {
        options.relaxation = k ? 1.3 : 1;
        tch_real start[2] = {unknowns[0], unknowns[1]};
        const tch_peg_pair swept = {0, 1, &list, 0, NULL, start};
        ENSURE(tch_peg_step_velocities(bodies, 2, &swept, 1, &options, &arena, v, w, &result,
                                       NULL) == TCH_OK);
        ENSURE(result.swept && result.sweeps == 1 && fabs(start[0] - 1) < 1e-12);
        ENSURE(tch_v3_norm(tch_v3_sub(v[0], tch_v3(0.3, 0, 0))) < 1e-12);
    }
    tch_arena_destroy(&arena);
}

static double energy(const planar_body* b) {
    return 0.5 * b->mass * tch_v3_norm2(b->v) + 0.5 * b->inertia * b->w * b->w +
           b->mass * b->g * b->x.y;
}

/* Fig. 3: a plank resting just above the top of the box [-1,1] x [-1,0], 0.004 shorter than
 * it, its bottom vertices within the proximity of the box's top corners, inside the lines of
 * the box's sides. Each vertex's deepest contact is the side line (gap -0.002): the standard
 * model asks the plank to move both right and left, and Lemke reports no solution; peg's
 * constraints let the plank settle on the top. */
static void test_fig3_infeasible_standard_model(void) {
    const double h = 0.01;
    planar_body box = {.shape = {.n = 4}, .x = tch_v3(0, -0.5, 0)};
    const double bx[4] = {-1, 1, 1, -1}, by[4] = {-0.5, -0.5, 0.5, 0.5};
    for (int i = 0; i < 4; ++i) {
        box.shape.local[i] = tch_v3(bx[i], by[i], 0);
    }
    place(&box);
    planar_body plank = {
        .shape = {.n = 4}, .x = tch_v3(0, 0.001 + 0.05, 0), .mass = 1, .g = gravity};
    const double px[4] = {-0.998, 0.998, 0.998, -0.998}, py[4] = {-0.05, -0.05, 0.05, 0.05};
    for (int i = 0; i < 4; ++i) {
        plank.shape.local[i] = tch_v3(px[i], py[i], 0);
    }
    plank.inertia = plank.mass * (4 * 0.998 * 0.998 + 0.01) / 12;
    place(&plank);
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
    planar_body trial = plank;
    ENSURE(step_pair(&trial, &box, TCH_PEG_MODEL_STANDARD, h, &list, &arena, 0) ==
           TCH_ERR_NUMERICAL);
    for (int step = 0; step < 100; ++step) {
        ENSURE(step_pair(&plank, &box, TCH_PEG_MODEL_PEG, h, &list, &arena, 0) == TCH_OK);
        ENSURE(peg_separation_2d(&plank.shape, &box.shape) > -1e-9);
    }
    ENSURE(fabs(plank.x.y - 0.05) < 1e-6 && fabs(plank.x.x) < 1e-9 && fabs(plank.angle) < 1e-9);
    tch_arena_destroy(&arena);
    tch_peg_constraints_free(&list);
}

/* Fig. 5: unit squares corner to corner; A (no gravity) moves at (-0.5, -0.02) m/s with its
 * bottom-left vertex 0.001 right of and above B's top-right vertex. The standard model stops A
 * at the line of B's right side (the dual trap: A loses 7/8 of its horizontal speed and pops
 * up at 0.36 m/s); with peg A's corner passes B's and A slides
 * on over B's top (landing on B's corner, it turns slowly: an off-centre impact), never
 * interpenetrating beyond the step's second-order drift, its energy never growing (to 1e-9
 * relative: the gap stabilization psi/h corrects that drift). */
static void test_fig5_dual_trap(void) {
    const double h = 0.01;
    for (int model = 0; model < 2; ++model) {
        planar_body a, b;
        fig5_squares(&a, &b, 0);
        tch_peg_constraints list;
        tch_peg_constraints_init(&list);
        tch_arena arena;
        ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
        double e = energy(&a), least_separation = INFINITY, fastest_turn = 0;
        int failures = 0;
        for (int step = 0; step < 100; ++step) {
            failures += step_pair(&a, &b, (tch_peg_model)model, h, &list, &arena, 0) != TCH_OK;
            least_separation = fmin(least_separation, peg_separation_2d(&a.shape, &b.shape));
            fastest_turn = fmax(fastest_turn, fabs(a.w));
            if (model == TCH_PEG_MODEL_PEG) {
                ENSURE(energy(&a) <= e * (1 + 1e-9));
                e = energy(&a);
            }
        }
        if (model == TCH_PEG_MODEL_PEG) {
            ENSURE(failures == 0);
            ENSURE(a.x.x < 0.01 && a.v.x < -0.49); /* its corner passed B's by 0.5 m */
            /* the velocity-level rows are exact to first order: sliding at 0.5 m/s along an
             * edge turning at w leaves up to h^2 v w (~3e-6 m here), removed by psi/h next */
            ENSURE(least_separation > -1.2 * h * h * 0.5 * fastest_turn);
        } else {
            /* the side row stops the slide at the corner (A pops up and away, turning) */
            ENSURE(failures > 0 || (a.x.x > 0.4 && fabs(a.v.x) < 0.1));
        }
        tch_arena_destroy(&arena);
        tch_peg_constraints_free(&list);
    }
}

/* peg.md §8's sign: A slides at 1 m/s on B, both free, pressed together by equal and opposite
 * forces (no gravity). With friction rows of the normal's signs the impulses are equal and
 * opposite: total momentum is kept, the relative slip drops by mu N h (1/m_a + 1/m_b). (The
 * authors' +(d, r x d) for both bodies would push both the same way.) */
static void test_friction_sign_keeps_momentum(void) {
    const double h = 0.01, mu = 0.3, press = 20;
    planar_body a = {.shape = square(0.25),
                     .x = tch_v3(0, 0.25, 0),
                     .v = tch_v3(1, 0, 0),
                     .mass = 1,
                     .inertia = 1.0 / 24};
    planar_body b = {.shape = square(1), .x = tch_v3(0, -1, 0), .mass = 4, .inertia = 4.0 * 4 / 6};
    place(&a);
    place(&b);
    const tch_peg_params params = tch_peg_params_default(2, h);
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    ENSURE(tch_peg_constraints_build_2d(a.shape.world, 4, a.x, b.shape.world, 4, b.x, &params,
                                        &list, NULL) == TCH_OK);
    ENSURE(list.count == 2);
    tch_peg_body bodies[2] = {as_peg_body(&a), as_peg_body(&b)};
    bodies[0].force = tch_v3(0, -press, 0);
    bodies[1].force = tch_v3(0, press, 0);
    const tch_peg_pair pair = {0, 1, &list, mu, NULL, NULL};
    const tch_peg_step_options options = planar(h, TCH_PEG_MODEL_PEG);
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
    tch_vec3 vel[2], ang[2];
    tch_peg_step_result result;
    ENSURE(tch_peg_step_velocities(bodies, 2, &pair, 1, &options, &arena, vel, ang, &result,
                                   NULL) == TCH_OK);
    ENSURE(result.force_rows == 2 && result.friction_rows == 6);
    const tch_vec3 momentum =
        tch_v3_add(tch_v3_scale(vel[0], a.mass), tch_v3_scale(vel[1], b.mass));
    ENSURE_NEAR(momentum.x, 1.0, 1e-12);
    ENSURE_NEAR(momentum.y, 0, 1e-12);
    const double slip = vel[0].x - vel[1].x;
    ENSURE_NEAR(slip, 1 - mu * press * h * (1 / a.mass + 1 / b.mass), 1e-9);
    tch_arena_destroy(&arena);
    tch_peg_constraints_free(&list);
}

/* With friction a polygon at rest on a 20 degree incline (mu = 0.5 > tan 20) stays at rest. */
static void test_friction_holds_on_incline(void) {
    const double h = 0.01, slope = 20 * TCH_PI / 180;
    planar_body ramp = {.shape = square(2), .x = tch_v3_zero(), .angle = slope};
    planar_body a = {
        .shape = square(0.2), .mass = 1, .inertia = 0.16 / 6, .angle = slope, .g = gravity};
    a.x = tch_v3(-sin(slope) * 2.2, cos(slope) * 2.2, 0);
    place(&ramp);
    place(&a);
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
    const tch_vec3 start = a.x;
    for (int step = 0; step < 100; ++step) {
        ENSURE(step_pair(&a, &ramp, TCH_PEG_MODEL_PEG, h, &list, &arena, 0.5) == TCH_OK);
    }
    ENSURE(tch_v3_dist(a.x, start) < 1e-9);
    ENSURE(tch_v3_norm(a.v) < 1e-9 && fabs(a.w) < 1e-9);
    tch_arena_destroy(&arena);
    tch_peg_constraints_free(&list);
}

/* ---- 3D ---- */

typedef struct solid_body {
    tch_features f;
    tch_convex_hull hull;
    tch_transform pose; /* origin = centre of mass */
    tch_vec3 v, w;
    double mass;      /* 0: static */
    tch_vec3 inertia; /* principal, body frame (the boxes' axes) */
    bool turns;       /* false: rotation locked (a zero inverse inertia) */
} solid_body;

static tch_peg_body as_peg_solid(const solid_body* b) {
    tch_peg_body p = static_body();
    p.position = b->pose.p;
    if (b->mass > 0) {
        p.velocity = b->v;
        p.angular_velocity = b->w;
        p.force = tch_v3(0, 0, -b->mass * gravity);
        p.inverse_mass = 1 / b->mass;
        const tch_mat3 R = tch_q_to_mat3(b->pose.q);
        const tch_vec3 inv = tch_v3(1 / b->inertia.x, 1 / b->inertia.y, 1 / b->inertia.z);
        p.inverse_inertia = b->turns ? tch_m3_rotate_tensor(R, tch_m3_diag(inv)) : tch_m3_zero();
    }
    return p;
}

/* One step of A against static B in 3D, frictionless, with or without gravity. */
static tch_status step_solid_in(solid_body* a, const solid_body* b, tch_peg_model model,
                                double h, tch_peg_constraints* list, tch_arena* arena,
                                bool gravity_on) {
    const tch_peg_params params = tch_peg_params_default(3, h);
    tch_status s = tch_peg_constraints_build(&a->f, a->pose, a->pose.p, &b->f, b->pose, b->pose.p,
                                             &params, list, NULL);
    if (s != TCH_OK) {
        return s;
    }
    tch_peg_body bodies[2] = {as_peg_solid(a), as_peg_solid(b)};
    if (!gravity_on) {
        bodies[0].force = tch_v3_zero();
    }
    const tch_peg_pair pair = {0, 1, list, 0, NULL, NULL};
    const tch_peg_step_options options = {.h = h, .model = model, .friction_directions = 4};
    tch_vec3 vel[2], ang[2];
    s = tch_peg_step_velocities(bodies, 2, &pair, 1, &options, arena, vel, ang, NULL, NULL);
    a->v = vel[0];
    a->w = ang[0];
    a->pose = advance(a->pose, a->v, a->w, h);
    return s;
}

static tch_status step_solid(solid_body* a, const solid_body* b, tch_peg_model model, double h,
                             tch_peg_constraints* list, tch_arena* arena) {
    return step_solid_in(a, b, model, h, list, arena, true);
}

static solid_body solid_box(tch_vec3 half, tch_vec3 at_point, double mass) {
    solid_body b = {.pose = at(at_point), .mass = mass, .turns = true};
    b.f = box_features(half, &b.hull);
    b.inertia =
        tch_v3_scale(tch_v3(half.y * half.y + half.z * half.z, half.x * half.x + half.z * half.z,
                            half.x * half.x + half.y * half.y),
                     mass / 3);
    return b;
}

static void solid_free(solid_body* b) {
    tch_features_free(&b->f);
    tch_hull_free(&b->hull);
}

/* Depth of A's deepest vertex below the plane z = 0. */
static double depth_below_floor(const solid_body* a) {
    double lowest = INFINITY;
    for (int v = 0; v < a->f.vertex_count; ++v) {
        lowest = fmin(lowest, tch_x_apply(a->pose, a->f.vertices[v]).z);
    }
    return -lowest;
}

/* peg.md §11.6: a unit cube (m = 1), tilted 0.2 rad, dropped from 0.5 m onto a static slab,
 * frictionless, h = 0.01 and 0.001: no solver failure; after 2 s it rests flat with
 * penetration <= 1e-6 m, its energy never grew, and it drifts by <= 1e-6 J/s at rest. */
static void test_3d_cube_drop_rests(void) {
    const double steps[2] = {0.01, 0.001};
    for (int k = 0; k < 2; ++k) {
        const double h = steps[k];
        solid_body floor_box = solid_box(tch_v3(5, 5, 0.5), tch_v3(0, 0, -0.5), 0);
        solid_body cube = solid_box(tch_v3(0.5, 0.5, 0.5), tch_v3(0, 0, 1.2), 1);
        cube.pose.q = tch_q_axis_angle(tch_v3_normalize(tch_v3(1, 1, 0)), 0.2);
        tch_peg_constraints list;
        tch_peg_constraints_init(&list);
        tch_arena arena;
        ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
        const int count = (int)lround(2 / h), rest = (int)lround(1.5 / h);
        double worst = 0, energy_at_rest = 0, e_prev = INFINITY;
        for (int step = 0; step < count; ++step) {
            ENSURE(step_solid(&cube, &floor_box, TCH_PEG_MODEL_PEG, h, &list, &arena) == TCH_OK);
            const double e = 0.5 * cube.mass * tch_v3_norm2(cube.v) +
                             0.5 * tch_v3_dot(cube.w, tch_v3_mul(cube.inertia, cube.w)) +
                             cube.mass * gravity * cube.pose.p.z;
            ENSURE(e <= e_prev + 1e-9);
            e_prev = e;
            if (step == rest) {
                energy_at_rest = e;
            }
            if (step >= rest) {
                worst = fmax(worst, depth_below_floor(&cube));
            }
        }
        ENSURE(worst <= 1e-6);
        ENSURE(tch_peg_constraints_trap_count(&list) == 0 && list.count == 4);
        ENSURE(fabs(cube.pose.p.z - 0.5) <= 1e-6);
        ENSURE(fabs(e_prev - energy_at_rest) <= 1e-6 * 0.5);
        tch_arena_destroy(&arena);
        tch_peg_constraints_free(&list);
        solid_free(&cube);
        solid_free(&floor_box);
    }
}

/* Fig. 2 in 3D: a small cube, turned 45 degrees about z and not turning, slides at 0.2 m/s
 * toward the top edge x = 1 of a static cube, its leading vertex 0.01 from that edge on the
 * top face (0.01 inside the side's plane). The standard model's row at that vertex's deepest
 * contact, the side plane, throws the cube to v_x >= 1 m/s; peg's vertex set {top, side}
 * keeps v = (0.2, 0, 0), the top impulses cancelling gravity. */
static void test_3d_fig2_one_step(void) {
    const double h = 0.01, half = 0.1;
    solid_body big = solid_box(tch_v3(1, 1, 1), tch_v3_zero(), 0);
    solid_body small =
        solid_box(tch_v3(half, half, half), tch_v3(0.99 - half * sqrt(2), 0, 1 + half), 1);
    small.pose.q = tch_q_axis_angle(tch_v3(0, 0, 1), TCH_PI / 4);
    small.turns = false;
    small.v = tch_v3(0.2, 0, 0);
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
    solid_body peg = small, standard = small;
    ENSURE(step_solid(&peg, &big, TCH_PEG_MODEL_PEG, h, &list, &arena) == TCH_OK);
    ENSURE(count_kind(&list, TCH_PEG_I, TCH_FEATURE_VERTEX_EDGE) == 1);
    ENSURE(tch_peg_constraints_trap_count(&list) == 1);
    ENSURE(tch_v3_dist(peg.v, tch_v3(0.2, 0, 0)) < 1e-12);
    ENSURE(step_solid(&standard, &big, TCH_PEG_MODEL_STANDARD, h, &list, &arena) == TCH_OK);
    ENSURE(standard.v.x >= 1.0 - 1e-12);
    tch_arena_destroy(&arena);
    tch_peg_constraints_free(&list);
    solid_free(&small);
    solid_free(&big);
}

static double solid_separation(const solid_body* a, const solid_body* b) {
    const peg_solid pa = {a->hull, a->f, a->pose}, pb = {b->hull, b->f, b->pose};
    return peg_separation_3d(&pa, &pb);
}

/* Fig. 5 in 3D: cubes corner to corner (vertex-vertex case with the separating-axis X), the
 * small one (no gravity) moving at (-0.5, -0.5, -0.02) m/s with its lowest corner 0.001 off
 * the big one's top corner along each axis. The standard model stops it at the corner; peg
 * lets it pass over the big cube's top (turning about the corner it slides on), overlap within
 * the first-order drift h^2 |v| w (~1e-5 m here), energy growing by at most 1e-7 per step
 * (the gap stabilization's correction of that drift; 2D fig. 5 sees 1e-11). */
static void test_3d_fig5_corner_passes(void) {
    const double h = 0.01;
    for (int model = 0; model < 2; ++model) {
        solid_body big = solid_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero(), 0);
        solid_body small = solid_box(tch_v3(0.25, 0.25, 0.25), tch_v3(0.751, 0.751, 0.751), 1);
        small.v = tch_v3(-0.5, -0.5, -0.02);
        tch_peg_constraints list;
        tch_peg_constraints_init(&list);
        tch_arena arena;
        ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
        double least = INFINITY, e = INFINITY, fastest_turn = 0;
        int failures = 0, vertex_vertex = 0;
        for (int step = 0; step < 100; ++step) {
            const tch_status s =
                step_solid_in(&small, &big, (tch_peg_model)model, h, &list, &arena, false);
            failures += s != TCH_OK;
            vertex_vertex += count_kind(&list, TCH_PEG_X, TCH_FEATURE_VERTEX_VERTEX) > 0;
            least = fmin(least, solid_separation(&small, &big));
            const double energy_now = 0.5 * tch_v3_norm2(small.v) +
                                      0.5 * tch_v3_dot(small.w, tch_v3_mul(small.inertia, small.w));
            if (model == TCH_PEG_MODEL_PEG) {
                ENSURE(energy_now <= e * (1 + 1e-7));
            }
            e = energy_now;
            fastest_turn = fmax(fastest_turn, tch_v3_norm(small.w));
        }
        if (model == TCH_PEG_MODEL_PEG) {
            ENSURE(failures == 0 && vertex_vertex > 0);
            ENSURE(small.pose.p.x < 0.35 && small.pose.p.y < 0.35); /* over the top */
            ENSURE(least > -1.2 * h * h * sqrt(0.5) * fastest_turn); /* as in 2D */
        } else {
            ENSURE(failures > 0 || (small.pose.p.x > 0.7 && small.pose.p.y > 0.7));
        }
        tch_arena_destroy(&arena);
        tch_peg_constraints_free(&list);
        solid_free(&small);
        solid_free(&big);
    }
}

int main(void) {
    RUN_TEST(test_slack_encoding);
    RUN_TEST(test_jacobians_against_differences);
    RUN_TEST(test_2d_vertex_vertex_labels);
    RUN_TEST(test_3d_cube_cases);
    RUN_TEST(test_fig2_one_step);
    RUN_TEST(test_fig3_infeasible_standard_model);
    RUN_TEST(test_fig5_dual_trap);
    RUN_TEST(test_sweeps_agree_with_lemke);
    RUN_TEST(test_sweeps_keep_a_held_constraint);
    RUN_TEST(test_friction_sign_keeps_momentum);
    RUN_TEST(test_friction_holds_on_incline);
    RUN_TEST(test_3d_cube_drop_rests);
    RUN_TEST(test_3d_fig2_one_step);
    RUN_TEST(test_3d_fig5_corner_passes);
    return TEST_RESULT();
}
