/* The pressure model on several threads (contact/pressure_surface.h, "Threads"): contact
 * surfaces, wrenches and whole simulations bit-identical for 1, 2 and 3 threads, whether the
 * threads split one query or take the pairs of a step one each (contact/pressure.c), and no
 * heap allocation per query or step after a warm-up with the threads on. Allocations are counted by
 * wrapping malloc, calloc and realloc at link time (tests/contact/CMakeLists.txt). */
#include <stdatomic.h>
#include <stdlib.h>

#include "allocation_count.h"
#include "base/workers.h"
#include "scene_builder.h"
#include "test.h"
#include "test_pressure_fixtures.h"


/* Whether two surfaces hold the same bits: polygons, vertices, pressures and summaries. */
static int same_surface(const tch_pressure_surface* a, const tch_pressure_surface* b) {
    if (a->polygon_count != b->polygon_count || a->vertex_count != b->vertex_count ||
        a->pairs_tested != b->pairs_tested || a->pairs_culled != b->pairs_culled) {
        return 0;
    }
    size_t np = (size_t)a->polygon_count, nv = (size_t)a->vertex_count;
    return memcmp(a->polygons, b->polygons, np * sizeof *a->polygons) == 0 &&
           memcmp(a->vertices_A, b->vertices_A, nv * sizeof *a->vertices_A) == 0 &&
           memcmp(a->pressures, b->pressures, nv * sizeof *a->pressures) == 0 &&
           memcmp(&a->total_area, &b->total_area, sizeof a->total_area) == 0 &&
           memcmp(&a->max_pressure, &b->max_pressure, sizeof a->max_pressure) == 0 &&
           memcmp(&a->mean_pressure, &b->mean_pressure, sizeof a->mean_pressure) == 0;
}

/* The wrench with dissipation, friction and the 3-point rule, under a sliding spinning motion. */
static tch_wrench moving_wrench(const tch_pressure_surface* s) {
    tch_pressure_traction_params tp = tch_pressure_traction_params_default();
    tp.dissipation = 0.3;
    tp.friction = 0.5;
    tp.quadrature = TCH_PRESSURE_QUADRATURE_THREE_POINT;
    tch_pressure_motion motion = {{0.1, 0, 0}, {0.02, -0.01, -0.05}, {0.3, 0.1, -0.2}};
    tch_wrench w = {0};
    tch_pressure_wrench(s, &tp, &motion, &w, NULL);
    return w;
}

typedef struct query_case {
    const fixture_body* a;
    const fixture_body* b;          /* compliant B, or NULL */
    const fixture_rigid_box* rigid; /* rigid B, or NULL */
    tch_transform X_AB;
} query_case;

static tch_status run_case(const query_case* c, tch_pressure_surface* s) {
    return c->b ? tch_pressure_surface_compliant(&c->a->body, &c->b->body, c->X_AB, s, NULL)
                : tch_pressure_surface_rigid(&c->a->body, &c->rigid->surface, c->X_AB, s, NULL);
}

/* The case on 1, 2 and 3 threads with the given parallel threshold (0: the default): the
 * surfaces and wrenches match the one-thread run bit for bit; returns the parts used on 3
 * threads, or -1 on a mismatch. */
static int threads_agree(const query_case* c, long min_work) {
    tch_pressure_surface reference, s;
    tch_pressure_surface_init(&reference);
    if (run_case(c, &reference) != TCH_OK || reference.polygon_count == 0) {
        return -1;
    }
    tch_wrench w_ref = moving_wrench(&reference);
    int parts = -1;
    for (int threads = 2; threads <= 3; ++threads) {
        tch_workers* pool = NULL;
        tch_workers_create(threads, &pool, NULL);
        tch_pressure_surface_init(&s);
        s.workers = pool;
        s.parallel_min_work = min_work;
        for (int round = 0; round < 3 && parts != -2; ++round) { /* reused buffers too */
            tch_wrench w = {0};
            int ok = run_case(c, &s) == TCH_OK && same_surface(&s, &reference);
            w = moving_wrench(&s);
            parts = ok && memcmp(&w, &w_ref, sizeof w) == 0 ? s.parts : -2;
        }
        tch_pressure_surface_free(&s);
        tch_workers_destroy(pool);
    }
    tch_pressure_surface_free(&reference);
    return parts < 0 ? -1 : parts;
}

static void test_sphere_sphere_bit_identical(void) {
    fixture_body a = {0}, b = {0};
    ENSURE(fixture_sphere(&a, 0.5, 0.2, 1e6) == 0);
    ENSURE(fixture_sphere(&b, 0.5, 0.2, 3e6) == 0);
    /* overlapping 0.05 m on a tilted axis, so the surface crosses elements generically */
    query_case c = {&a, &b, NULL,
                    {tch_q_axis_angle(tch_v3_normalize((tch_vec3){1, 2, 3}), 0.3),
                     tch_v3_scale(tch_v3_normalize((tch_vec3){0.3, 0.2, 1}), 0.95)}};
    ENSURE(threads_agree(&c, 1) > 1);  /* forced onto the threads */
    ENSURE(threads_agree(&c, 0) >= 1); /* the default threshold */
    /* the elastic energy too */
    tch_real reference = 0, energy = 0;
    ENSURE(tch_pressure_energy_compliant(&a.body, &b.body, c.X_AB, &reference, NULL) == TCH_OK);
    ENSURE(reference > 0);
    for (int threads = 2; threads <= 3; ++threads) {
        tch_workers* pool = NULL;
        ENSURE(tch_workers_create(threads, &pool, NULL) == TCH_OK);
        tch_status st = tch_pressure_energy_compliant_on(&a.body, &b.body, c.X_AB, pool, &energy,
                                                         NULL);
        tch_workers_destroy(pool);
        ENSURE(st == TCH_OK && memcmp(&energy, &reference, sizeof energy) == 0);
    }
    fixture_body_free(&a);
    fixture_body_free(&b);
}

static void test_sphere_on_rigid_box_bit_identical(void) {
    fixture_body a = {0};
    fixture_rigid_box box = {0};
    ENSURE(fixture_sphere(&a, 0.5, 0.15, 1e6) == 0);
    ENSURE(fixture_rigid_box_make(&box, (tch_vec3){0.4, 0.4, 0.4}, 0.1) == 0);
    query_case c = {&a, NULL, &box,
                    {tch_q_axis_angle((tch_vec3){0, 0, 1}, 0.2), (tch_vec3){0.03, 0.02, -0.85}}};
    int parts = threads_agree(&c, 0);
    ENSURE(parts > 1); /* large enough for the default threshold */
    ENSURE(threads_agree(&c, 1) > 1);
    fixture_body_free(&a);
    fixture_rigid_box_free(&box);
}

/* The sequence of leaf pairs a query reports, as its length and an order-sensitive hash
 * (FNV-1a over the indices). */
typedef struct pair_trace {
    int count;
    unsigned long long hash;
} pair_trace;

static int trace_pair(int a, int b, void* user) {
    pair_trace* t = user;
    t->hash = (t->hash ^ (unsigned)a) * 1099511628211ull;
    t->hash = (t->hash ^ (unsigned)b) * 1099511628211ull;
    t->count++;
    return 0;
}

/* The frontier's pairs descended in order report the whole query's pairs in the same order,
 * for any target size (this is what makes the threaded surface match the one-thread one). */
static void test_frontier_keeps_the_order(void) {
    fixture_body a = {0}, b = {0};
    ENSURE(fixture_sphere(&a, 0.5, 0.2, 1e6) == 0);
    ENSURE(fixture_sphere(&b, 0.5, 0.25, 1e6) == 0);
    tch_transform X_AB = {tch_q_axis_angle(tch_v3_normalize((tch_vec3){1, 2, 3}), 0.3),
                          tch_v3_scale(tch_v3_normalize((tch_vec3){0.3, 0.2, 1}), 0.9)};
    pair_trace whole = {0, 14695981039346656037ull};
    int (*frontier)[2] = malloc(1024 * sizeof *frontier);
    int (*scratch)[2] = malloc(1024 * sizeof *scratch);
    tch_bvh_query_pairs(a.body.bvh, b.body.bvh, X_AB, trace_pair, &whole);
    ENSURE(whole.count > 100);
    static const int targets[] = {1, 2, 7, 32, 500};
    for (size_t k = 0; k < sizeof targets / sizeof targets[0]; ++k) {
        int n = tch_bvh_query_frontier(a.body.bvh, b.body.bvh, X_AB, NULL, targets[k], 1024,
                                       frontier, scratch);
        ENSURE(n >= (targets[k] < 32 ? targets[k] : 32) && n <= 1024);
        pair_trace split = {0, 14695981039346656037ull};
        for (int i = 0; i < n; ++i) {
            tch_bvh_query_pairs_from(a.body.bvh, b.body.bvh, X_AB, NULL, frontier[i][0],
                                     frontier[i][1], trace_pair, &split);
        }
        ENSURE(split.count == whole.count && split.hash == whole.hash);
    }
    free(frontier), free(scratch);
    fixture_body_free(&a);
    fixture_body_free(&b);
}

/* Node ranges of ε prune node pairs but leave the surface's bits as they were, on one thread
 * and on two; a layered body (ε = 1 on a core) gives them pairs to prune. */
static void test_node_ranges_change_nothing_but_the_pairs(void) {
    fixture_body a = {0}, b = {0};
    ENSURE(tch_tetmesh_make_sphere_layer(0.5, 0.15, 0.1, &a.mesh, NULL) == TCH_OK);
    ENSURE(fixture_finish_body(&a, 1e6) == 0);
    ENSURE(fixture_sphere(&b, 0.5, 0.1, 2e6) == 0);
    tch_real(*ranges_a)[2] = malloc((size_t)a.bvh.node_count * sizeof *ranges_a);
    tch_real(*ranges_b)[2] = malloc((size_t)b.bvh.node_count * sizeof *ranges_b);
    tch_pressure_node_ranges(&a.mesh, &a.bvh, ranges_a);
    tch_pressure_node_ranges(&b.mesh, &b.bvh, ranges_b);
    ENSURE(ranges_a[0][0] == 0 && ranges_a[0][1] == 1); /* the root spans the whole field */
    tch_transform X_AB = {tch_q_axis_angle((tch_vec3){0, 1, 0}, 0.2), {0.1, 0, 0.75}};
    tch_pressure_surface plain, ranged;
    tch_pressure_surface_init(&plain);
    tch_pressure_surface_init(&ranged);
    ENSURE(tch_pressure_surface_compliant(&a.body, &b.body, X_AB, &plain, NULL) == TCH_OK);
    ENSURE(plain.polygon_count > 0 && plain.pairs_culled > 0);
    tch_workers* pool = NULL;
    ENSURE(tch_workers_create(2, &pool, NULL) == TCH_OK);
    for (int threads = 1; threads <= 2; ++threads) {
        ranged.workers = threads > 1 ? pool : NULL;
        ranged.parallel_min_work = 1;
        ENSURE(tch_pressure_surface_compliant_ranged(&a.body, (const tch_real(*)[2])ranges_a,
                                                     &b.body, (const tch_real(*)[2])ranges_b,
                                                     X_AB, &ranged, NULL) == TCH_OK);
        ENSURE(ranged.pairs_tested < plain.pairs_tested - plain.pairs_culled / 2);
        ranged.pairs_tested = plain.pairs_tested; /* the counters differ by design */
        ranged.pairs_culled = plain.pairs_culled;
        ENSURE(same_surface(&ranged, &plain));
    }
    tch_pressure_surface_free(&plain);
    tch_pressure_surface_free(&ranged);
    tch_workers_destroy(pool);
    free(ranges_a), free(ranges_b);
    fixture_body_free(&a);
    fixture_body_free(&b);
}

/* After one query to warm the buffers up, repeated queries on 2 threads allocate nothing. */
static void test_no_allocation_after_warm_up(void) {
    fixture_body a = {0}, b = {0};
    ENSURE(fixture_sphere(&a, 0.5, 0.2, 1e6) == 0);
    ENSURE(fixture_sphere(&b, 0.5, 0.2, 1e6) == 0);
    tch_workers* pool = NULL;
    ENSURE(tch_workers_create(2, &pool, NULL) == TCH_OK);
    tch_pressure_surface s;
    tch_pressure_surface_init(&s);
    s.workers = pool;
    s.parallel_min_work = 1;
    tch_transform X_AB = {tch_q_identity(), {0, 0, 0.9}};
    ENSURE(tch_pressure_surface_compliant(&a.body, &b.body, X_AB, &s, NULL) == TCH_OK);
    long before = atomic_load(&pb_allocations);
    for (int i = 0; i < 20; ++i) {
        ENSURE(tch_pressure_surface_compliant(&a.body, &b.body, X_AB, &s, NULL) == TCH_OK);
        ENSURE(s.parts > 1 && s.polygon_count > 0);
    }
    ENSURE(atomic_load(&pb_allocations) == before);
    tch_pressure_surface_free(&s);
    tch_workers_destroy(pool);
    fixture_body_free(&a);
    fixture_body_free(&b);
}

typedef struct scene_body {
    const char* name;
    tch_geom_type type;
    tch_vec3 size, p;
} scene_body;

/* Compliant free bodies of mass 1 (E = 1e5 Pa, χ = 1 s/m, meshes of edge `resolution`) on a
 * rigid floor, with the pressure model, friction and semi-implicit Euler at 1 ms. */
static tch_model* compliant_scene(const scene_body* bodies, int count, tch_real resolution) {
    tch_spec* spec = test_spec(9.81, 1e-3, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.model = TCH_CONTACT_PRESSURE;
    opt.contact.friction = 0.5;
    tch_spec_set_option(spec, &opt, NULL);
    test_add_plane(spec, tch_q_identity(), 0.5);
    for (int i = 0; i < count; ++i) {
        tch_body_def b = tch_body_def_default();
        snprintf(b.name, sizeof b.name, "%s", bodies[i].name);
        b.free_joint = true;
        b.p_PB = bodies[i].p;
        tch_body_id id;
        tch_spec_add_body(spec, &b, &id, NULL);
        tch_geom_def g = tch_geom_def_default();
        g.type = bodies[i].type;
        g.size[0] = bodies[i].size.x, g.size[1] = bodies[i].size.y, g.size[2] = bodies[i].size.z;
        g.mass = 1;
        g.contact.modulus = 1e5;
        g.contact.dissipation = 1;
        g.contact.resolution = resolution;
        tch_spec_add_geom(spec, id, &g, NULL, NULL);
    }
    return test_compile(spec);
}

/* A compliant ball between a compliant box (the lid) and a rigid floor, and another ball on the
 * floor beside it. */
static tch_model* ball_scene(void) {
    static const scene_body bodies[] = {
        {"ball", TCH_GEOM_SPHERE, {0.1, 0, 0}, {0, 0, 0.098}},
        {"lid", TCH_GEOM_BOX, {0.08, 0.08, 0.03}, {0.01, 0, 0.225}},
        {"other", TCH_GEOM_SPHERE, {0.1, 0, 0}, {0.3, 0, 0.099}},
    };
    return compliant_scene(bodies, 3, 0.04);
}

/* Three compliant boxes in a row on the floor, each pressing its neighbour, and two compliant
 * balls each set across two of them: up to nine pressure pairs in one step (three box-floor,
 * two box-box, four ball-box; six or more touch after 40 steps on these coarse meshes), which
 * the threads take pair by pair. */
static tch_model* row_scene(void) {
    static const scene_body bodies[] = {
        {"left", TCH_GEOM_BOX, {0.08, 0.08, 0.05}, {-0.155, 0, 0.049}},
        {"middle", TCH_GEOM_BOX, {0.08, 0.08, 0.05}, {0, 0, 0.049}},
        {"right", TCH_GEOM_BOX, {0.08, 0.08, 0.05}, {0.155, 0, 0.049}},
        {"ball_left", TCH_GEOM_SPHERE, {0.07, 0, 0}, {-0.0775, 0, 0.167}},
        {"ball_right", TCH_GEOM_SPHERE, {0.07, 0, 0}, {0.0775, 0, 0.167}},
    };
    return compliant_scene(bodies, 5, 0.08); /* coarse: nine pairs stay cheap under ASan */
}

/* Steps the scene from its initial state with its first body sliding and spinning; returns the
 * pairs touching at the end. */
static int run_steps(const tch_model* m, tch_data* d) {
    tch_data_reset(m, d);
    d->qvel[0] = 0.2;
    d->qvel[5] = 3;
    for (int i = 0; i < 40; ++i) {
        tch_step(m, d, NULL);
    }
    return d->pair_result_count;
}

/* The data after the steps on `threads` threads, run twice from the same state: the second
 * run's allocations (after the first warmed the buffers up) go to *second_run. NULL when the
 * two runs differ or the data cannot be made. */
static tch_data* simulate(const tch_model* m, int threads, long* second_run) {
    tch_data* d = NULL;
    if (tch_data_create(m, &d, NULL) != TCH_OK) {
        return NULL;
    }
    d->thread_count = threads;
    d->contact_energy = true;
    int touching = run_steps(m, d);
    tch_real qpos[64];
    memcpy(qpos, d->qpos, (size_t)m->nq * sizeof *qpos);
    long before = atomic_load(&pb_allocations);
    int again = run_steps(m, d);
    *second_run = atomic_load(&pb_allocations) - before;
    if (again != touching || memcmp(qpos, d->qpos, (size_t)m->nq * sizeof *qpos) != 0) {
        tch_data_destroy(d);
        return NULL;
    }
    return d;
}

#define SAME_FIELD(x, y, field) (memcmp(&(x).field, &(y).field, sizeof (x).field) == 0)

static int same_pair_result(const tch_pair_result* x, const tch_pair_result* y) {
    return x->geom_a == y->geom_a && x->geom_b == y->geom_b && x->model == y->model &&
           x->contact_start == y->contact_start && x->contact_count == y->contact_count &&
           x->polygon_start == y->polygon_start && x->polygon_count == y->polygon_count &&
           SAME_FIELD(*x, *y, f_W) && SAME_FIELD(*x, *y, tau_Wo_W) && SAME_FIELD(*x, *y, area) &&
           SAME_FIELD(*x, *y, max_pressure) && SAME_FIELD(*x, *y, elastic_energy);
}

static int same_contact(const tch_contact* x, const tch_contact* y) {
    return x->geom_a == y->geom_a && x->geom_b == y->geom_b && SAME_FIELD(*x, *y, p_W) &&
           SAME_FIELD(*x, *y, n_W) && SAME_FIELD(*x, *y, depth) && SAME_FIELD(*x, *y, f_W);
}

/* Whether two data hold the same bits: state, pair results, contacts and patches. */
static int same_step(const tch_model* m, const tch_data* x, const tch_data* y) {
    if (memcmp(x->qpos, y->qpos, (size_t)m->nq * sizeof *x->qpos) != 0 ||
        memcmp(x->qvel, y->qvel, (size_t)m->nv * sizeof *x->qvel) != 0 ||
        x->pair_result_count != y->pair_result_count || x->contact_count != y->contact_count ||
        x->polygon_count != y->polygon_count ||
        x->polygon_vertex_count != y->polygon_vertex_count) {
        return 0;
    }
    int same = 1;
    for (int i = 0; i < x->pair_result_count; ++i) {
        same &= same_pair_result(&x->pair_results[i], &y->pair_results[i]);
    }
    for (int i = 0; i < x->contact_count; ++i) {
        same &= same_contact(&x->contacts[i], &y->contacts[i]);
    }
    size_t np = (size_t)x->polygon_count, nv = (size_t)x->polygon_vertex_count;
    return same && memcmp(x->polygons, y->polygons, np * sizeof *x->polygons) == 0 &&
           memcmp(x->polygon_vertices_W, y->polygon_vertices_W,
                  nv * sizeof *x->polygon_vertices_W) == 0 &&
           memcmp(x->polygon_vertex_pressure, y->polygon_vertex_pressure,
                  nv * sizeof *x->polygon_vertex_pressure) == 0;
}

/* The scene on 2 and 3 threads ends with the bits of the one-thread run, with at least
 * `min_pairs` pairs touching, and its second run allocates nothing. */
static void ensure_threads_agree(const tch_model* m, int min_pairs) {
    ENSURE(m != NULL && m->nq <= 64);
    long second_run = 0;
    tch_data* reference = simulate(m, 1, &second_run);
    ENSURE(reference != NULL && reference->pair_result_count >= min_pairs);
    for (int threads = 2; threads <= 3; ++threads) {
        tch_data* d = simulate(m, threads, &second_run);
        ENSURE(d != NULL && same_step(m, d, reference));
        ENSURE(second_run == 0);
        tch_data_destroy(d);
    }
    tch_data_destroy(reference);
}

/* Three pairs, taken by the threads one each: ball-floor, ball-lid, other-floor. */
static void test_simulation_bit_identical(void) {
    tch_model* m = ball_scene();
    ensure_threads_agree(m, 3);
    tch_model_destroy(m);
}

/* A lone pair (a ball on the floor): no pairs prepared; pair_geometry runs its query with the
 * pool (split when large enough). */
static void test_lone_pair_bit_identical(void) {
    static const scene_body ball[] = {{"ball", TCH_GEOM_SPHERE, {0.1, 0, 0}, {0, 0, 0.098}}};
    tch_model* m = compliant_scene(ball, 1, 0.04);
    ensure_threads_agree(m, 1);
    tch_model_destroy(m);
}

/* Many pairs of moderate size, spread over the threads pair by pair. */
static void test_many_pairs_bit_identical(void) {
    tch_model* m = row_scene();
    ensure_threads_agree(m, 6);
    tch_model_destroy(m);
}

int main(void) {
    RUN_TEST(test_sphere_sphere_bit_identical);
    RUN_TEST(test_sphere_on_rigid_box_bit_identical);
    RUN_TEST(test_frontier_keeps_the_order);
    RUN_TEST(test_node_ranges_change_nothing_but_the_pairs);
    RUN_TEST(test_no_allocation_after_warm_up);
    RUN_TEST(test_simulation_bit_identical);
    RUN_TEST(test_lone_pair_bit_identical);
    RUN_TEST(test_many_pairs_bit_identical);
    return TEST_RESULT();
}
