/* Contact-surface queries of the pressure model (Elandt et al. 2019), on 1 and 2 threads side by
 * side (contact/pressure_surface.h, "Threads"):
 *
 *   - at about 1e3, 1e4 and 1e5 tets: sphere-sphere (compliant-compliant), a sphere on a rigid
 *     box and a compliant box on a rigid half-space (its box surface);
 *   - Drake's compliant-compliant benchmark at equal tet counts (compliant_mesh_intersection_
 *     benchmark.cc, read for its setup): an ellipsoid with semi-axes (3.01, 3.5, 4) and a
 *     sphere of radius 3, both refined octahedra (pb_make_refined_ellipsoid), E = 1e5 Pa,
 *     the sphere at (3.5, 3.5, 3.5) ("minimal contact surface") or (1.2, 1.2, 1.2)
 *     ("intermediate"), with Drake's published times beside ours.
 *
 * Prints CSV: microseconds per query and per output fan triangle for each thread count (best of
 * 25 short batches), element pairs from the BVHs, pairs culled by their pressure ranges, pairs giving a
 * polygon, BVH frontier pairs and parts of the threaded query, the memory of each mesh with its
 * BVH, heap allocations per query after a warm-up (malloc, calloc and realloc are wrapped by
 * the linker with -Wl,--wrap, counting every call) and whether both thread counts gave the same
 * bits (and a checksum of them, to compare builds); for Drake's cases, Drake's time over ours (wall clock on 1 and N threads, and CPU time
 * on 1). `--threads N` sets the second thread count (2 by default); `--case TEXT` runs only the
 * cases whose name holds TEXT (e.g. for perf). */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "allocation_count.h"
#include "base/workers.h"
#include "pressure_bench.h"


/* Bytes of the mesh arrays and the tet BVH. */
static double memory_mib(const pb_body* b) {
    const tch_tetmesh* m = &b->mesh;
    size_t bytes = (size_t)m->vertex_count * (sizeof(tch_vec3) * 2 + sizeof(tch_real) + 1) +
                   (size_t)m->tet_count * (sizeof(int[4]) + sizeof(tch_vec3)) +
                   (size_t)m->face_count * (sizeof(int[3]) + sizeof(int)) +
                   (size_t)b->bvh.node_count * sizeof(tch_bvh_node);
    return (double)bytes / (1 << 20);
}

typedef struct query_case {
    const char* name;
    const pb_body* a;
    const pb_body* b;
    int rigid;             /* B's boundary faces as a rigid surface */
    tch_transform X_AB;
    int repeats;
} query_case;

static void run_query(const query_case* c, tch_pressure_surface* s) {
    if (c->rigid)
        tch_pressure_surface_rigid(&c->a->pressure, &c->b->rigid, c->X_AB, s, NULL);
    else
        tch_pressure_surface_compliant_ranged(&c->a->pressure,
                                              (const tch_real(*)[2])c->a->node_epsilon,
                                              &c->b->pressure,
                                              (const tch_real(*)[2])c->b->node_epsilon, c->X_AB,
                                              s, NULL);
}

typedef struct timing {
    double seconds;        /* best mean per query, wall clock */
    double cpu_seconds;    /* best mean per query, the calling thread's CPU time (leaves out
                              preemption by other programs; not the workers' time) */
    double allocations;    /* per query after the warm-up */
} timing;

static double thread_cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Times the case on surface s (already set up with its workers or none): the best mean over
 * ROUNDS short batches, so that a quiet moment of the shared machine is caught. */
#define ROUNDS 25
static timing time_case(const query_case* c, tch_pressure_surface* s) {
    run_query(c, s); /* warm-up */
    long before = atomic_load(&pb_allocations);
    double best = 1e30, best_cpu = 1e30;
    int batch = c->repeats / 5 > 0 ? c->repeats / 5 : 1;
    for (int r = 0; r < ROUNDS; ++r) {
        double t0 = bench_now_seconds(), c0 = thread_cpu_seconds();
        for (int i = 0; i < batch; ++i) run_query(c, s);
        double t = (bench_now_seconds() - t0) / batch, cpu = (thread_cpu_seconds() - c0) / batch;
        best = t < best ? t : best;
        best_cpu = cpu < best_cpu ? cpu : best_cpu;
    }
    return (timing){best, best_cpu,
                    (double)(atomic_load(&pb_allocations) - before) / (ROUNDS * batch)};
}

static int same_bits(const tch_pressure_surface* a, const tch_pressure_surface* b) {
    return a->polygon_count == b->polygon_count && a->vertex_count == b->vertex_count &&
           memcmp(a->polygons, b->polygons, (size_t)a->polygon_count * sizeof *a->polygons) == 0 &&
           memcmp(a->vertices_A, b->vertices_A, (size_t)a->vertex_count * sizeof(tch_vec3)) == 0 &&
           memcmp(a->pressures, b->pressures, (size_t)a->vertex_count * sizeof(tch_real)) == 0;
}

/* FNV-1a over n bytes, continuing from h. */
static unsigned long long fnv1a(const void* data, size_t n, unsigned long long h) {
    const unsigned char* c = data;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ c[i]) * 1099511628211ULL;
    }
    return h;
}

/* A checksum of the surface's bits (polygons, vertices, pressures): equal in two builds when
 * their surfaces are. */
static unsigned long long surface_hash(const tch_pressure_surface* s) {
    unsigned long long h = 14695981039346656037ULL;
    h = fnv1a(s->polygons, (size_t)s->polygon_count * sizeof *s->polygons, h);
    h = fnv1a(s->vertices_A, (size_t)s->vertex_count * sizeof(tch_vec3), h);
    return fnv1a(s->pressures, (size_t)s->vertex_count * sizeof(tch_real), h);
}

/* Only the cases whose name holds this (--case), or all. */
static const char* selected = "";

/* One CSV line: the case on one thread and on the pool; `drake_us` the published figure or
 * 0. */
static void measure(const query_case* c, tch_workers* pool, double drake_us) {
    if (!strstr(c->name, selected)) return;
    tch_pressure_surface one, many;
    tch_pressure_surface_init(&one);
    tch_pressure_surface_init(&many);
    many.workers = pool;
    timing t1 = time_case(c, &one), tn = time_case(c, &many);
    int triangles = one.vertex_count; /* a polygon of k vertices is fanned into k triangles */
    double per = triangles > 0 ? triangles : 1;
    printf("%s,%d,%d,%d,%d,%d,%d,%d,%ld,%d,%d,%.2f,%.2f,%.2f,%.3f,%.3f,%.3f,%.3f,%.3g,%.3g,%s,%016llx,", c->name,
           c->a->mesh.tet_count, c->rigid ? c->b->mesh.face_count : c->b->mesh.tet_count,
           one.pairs_tested, one.pairs_culled, one.polygon_count, triangles, many.frontier_pairs,
           many.work_estimate, many.parts, tch_workers_thread_count(pool), t1.seconds * 1e6, tn.seconds * 1e6,
           t1.cpu_seconds * 1e6, t1.seconds * 1e6 / per, tn.seconds * 1e6 / per, memory_mib(c->a), memory_mib(c->b),
           t1.allocations, tn.allocations, same_bits(&one, &many) ? "yes" : "NO", surface_hash(&one));
    if (drake_us > 0)
        printf("%.1f,%.1f,%.1f,%.1f\n", drake_us, drake_us / (t1.seconds * 1e6),
               drake_us / (tn.seconds * 1e6), drake_us / (t1.cpu_seconds * 1e6));
    else
        printf(",,,\n");
    tch_pressure_surface_free(&one);
    tch_pressure_surface_free(&many);
}

/* Sphere R = 0.5 m and box half 0.4 m at resolutions giving about 1e3, 1e4, 1e5 tets. */
static void run_sizes(tch_workers* pool) {
    static const double sphere_h[3] = {0.2, 0.1, 0.05}, box_h[3] = {0.15, 0.07, 0.035};
    static const int repeats[3] = {200, 30, 6};
    for (int k = 0; k < 3; ++k) {
        pb_body s1 = {0}, s2 = {0}, box = {0}, slab = {0};
        tch_tetmesh_make_sphere(0.5, sphere_h[k], &s1.mesh, NULL);
        tch_tetmesh_make_sphere(0.5, sphere_h[k], &s2.mesh, NULL);
        tch_tetmesh_make_box((tch_vec3){0.4, 0.4, 0.4}, box_h[k], &box.mesh, NULL);
        tch_tetmesh_make_box((tch_vec3){0.8, 0.8, 0.8}, 0, &slab.mesh, NULL);
        pb_finish_body(&s1, 1e6), pb_finish_body(&s2, 1e6), pb_finish_body(&box, 1e6);
        pb_finish_body(&slab, 1e6);
        /* overlap 0.05 m along a tilted axis, so the surface crosses elements generically */
        query_case cases[3] = {
            {"sphere-sphere", &s1, &s2, 0,
             {tch_q_axis_angle(tch_v3_normalize((tch_vec3){1, 2, 3}), 0.3),
              tch_v3_scale(tch_v3_normalize((tch_vec3){0.3, 0.2, 1}), 0.95)},
             repeats[k]},
            {"sphere-rigid box", &s1, &box, 1,
             {tch_q_axis_angle((tch_vec3){0, 0, 1}, 0.2), (tch_vec3){0.03, 0.02, -0.85}},
             repeats[k]},
            /* a compliant box 0.05 m into a rigid slab (the half-space as a box, as the engine
             * does) */
            {"box-rigid plane", &box, &slab, 1, {tch_q_identity(), (tch_vec3){0, 0, -1.15}},
             repeats[k]},
        };
        for (int i = 0; i < 3; ++i) measure(&cases[i], pool, 0);
        pb_free_body(&s1), pb_free_body(&s2), pb_free_body(&box), pb_free_body(&slab);
    }
}

/* Drake's published CompliantCompliantMesh figures (us; resolution 0, 2, 3 with 64, 512 and
 * 4096 tets per mesh; contact overlap 2 = minimal, 3 = intermediate). Resolution 1 is left
 * out: which ellipsoid mesh it got (64 or 512 tets) depends on the Drake version. */
static void run_drake(tch_workers* pool) {
    static const struct { int level; double minimal_us, intermediate_us; int repeats; } rows[] = {
        {1, 46.4, 625, 2000}, {2, 198, 7181, 200}, {3, 841, 59971, 20}};
    for (int k = 0; k < 3; ++k) {
        pb_body ellipsoid = {0}, sphere = {0};
        pb_make_refined_ellipsoid((tch_vec3){3.01, 3.5, 4}, rows[k].level, &ellipsoid.mesh);
        pb_make_refined_ellipsoid((tch_vec3){3, 3, 3}, rows[k].level, &sphere.mesh);
        pb_finish_body(&ellipsoid, 1e5), pb_finish_body(&sphere, 1e5);
        query_case minimal = {"drake minimal", &ellipsoid, &sphere, 0,
                              {tch_q_identity(), {3.5, 3.5, 3.5}}, rows[k].repeats};
        query_case intermediate = {"drake intermediate", &ellipsoid, &sphere, 0,
                                   {tch_q_identity(), {1.2, 1.2, 1.2}}, rows[k].repeats / 10};
        measure(&minimal, pool, rows[k].minimal_us);
        measure(&intermediate, pool, rows[k].intermediate_us);
        pb_free_body(&ellipsoid), pb_free_body(&sphere);
    }
}

int main(int argc, char** argv) {
    int threads = 2;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--threads") == 0) threads = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--case") == 0) selected = argv[i + 1];
    }
    tch_workers* pool = NULL;
    if (tch_workers_create(threads, &pool, NULL) != TCH_OK) {
        fprintf(stderr, "bench_pressure: cannot start %d threads\n", threads);
        return 1;
    }
    pb_print_run_header("bench_pressure");
    printf("query,tets_a,elements_b,pairs_tested,pairs_culled,polygons,triangles,frontier_pairs,"
           "work_estimate,parts,threads,us_per_query_1t,us_per_query_nt,cpu_us_per_query_1t,us_per_triangle_1t,"
           "us_per_triangle_nt,mib_a,mib_b,allocations_per_query_1t,allocations_per_query_nt,"
           "identical,surface_hash,drake_us,drake_over_1t,drake_over_nt,drake_over_cpu_1t\n");
    run_sizes(pool);
    run_drake(pool);
    tch_workers_destroy(pool);
    return 0;
}
