/* Contact-surface queries of the pressure model (Elandt et al. 2019) at about 1e3, 1e4 and 1e5
 * tets: sphere-sphere (compliant-compliant), sphere on a rigid box and a compliant box on a
 * rigid half-space (its box surface). Prints CSV: microseconds per query and per output fan
 * triangle, tet or triangle pairs from the BVHs against pairs giving a polygon, the memory of a
 * mesh with its BVH, and heap allocations per query after a warm-up (malloc, calloc and
 * realloc are wrapped by the linker with -Wl,--wrap, counting every call). */

#include <stdio.h>
#include <stdlib.h>

#include "pressure_bench.h"

static long allocations;
void* __real_malloc(size_t size);
void* __real_calloc(size_t n, size_t size);
void* __real_realloc(void* p, size_t size);
void* __wrap_malloc(size_t size);
void* __wrap_calloc(size_t n, size_t size);
void* __wrap_realloc(void* p, size_t size);
void* __wrap_malloc(size_t size) {
    ++allocations;
    return __real_malloc(size);
}
void* __wrap_calloc(size_t n, size_t size) {
    ++allocations;
    return __real_calloc(n, size);
}
void* __wrap_realloc(void* p, size_t size) {
    ++allocations;
    return __real_realloc(p, size);
}

/* Bytes of the mesh arrays and the tet BVH. */
static double memory_mib(const pb_body* b) {
    const tch_tetmesh* m = &b->mesh;
    size_t bytes = (size_t)m->vertex_count * (sizeof(tch_vec3) * 2 + sizeof(tch_real) + 1) +
                   (size_t)m->tet_count * (sizeof(int[4]) + sizeof(tch_vec3)) +
                   (size_t)m->face_count * (sizeof(int[3]) + sizeof(int)) +
                   (size_t)b->bvh.node_count * sizeof(tch_bvh_node);
    return (double)bytes / (1 << 20);
}

/* Times `repeats` queries of compliant a against b (rigid when `rigid`) at X_AB. */
static void measure(const char* name, const pb_body* a, const pb_body* b, int rigid,
                    tch_transform X_AB, int repeats) {
    tch_pressure_surface s;
    tch_pressure_surface_init(&s);
    if (rigid)
        tch_pressure_surface_rigid(&a->pressure, &b->rigid, X_AB, &s, NULL);
    else
        tch_pressure_surface_compliant(&a->pressure, &b->pressure, X_AB, &s, NULL);
    long before = allocations;
    double best = 1e30;
    for (int r = 0; r < 3; ++r) {
        double t0 = bench_now_seconds();
        for (int i = 0; i < repeats; ++i) {
            if (rigid)
                tch_pressure_surface_rigid(&a->pressure, &b->rigid, X_AB, &s, NULL);
            else
                tch_pressure_surface_compliant(&a->pressure, &b->pressure, X_AB, &s, NULL);
        }
        double t = (bench_now_seconds() - t0) / repeats;
        best = t < best ? t : best;
    }
    double per_query = (double)(allocations - before) / (3.0 * repeats);
    int triangles = s.vertex_count; /* a polygon of k vertices is fanned into k triangles */
    printf("%s,%d,%d,%d,%d,%d,%.2f,%.3f,%.2f,%.2f,%.3g\n", name, a->mesh.tet_count,
           rigid ? b->mesh.face_count : b->mesh.tet_count, s.pairs_tested, s.polygon_count,
           triangles, best * 1e6, best * 1e6 / (triangles > 0 ? triangles : 1), memory_mib(a),
           memory_mib(b), per_query);
    tch_pressure_surface_free(&s);
}

int main(void) {
    pb_print_run_header("bench_pressure");
    printf("query,tets_a,elements_b,pairs_tested,polygons,triangles,us_per_query,"
           "us_per_triangle,mib_a,mib_b,allocations_per_query\n");
    /* sphere R = 0.5 m and box half 0.4 m at resolutions giving about 1e3, 1e4, 1e5 tets */
    static const double sphere_h[3] = {0.2, 0.1, 0.05}, box_h[3] = {0.15, 0.07, 0.035};
    static const int repeats[3] = {200, 30, 4};
    for (int k = 0; k < 3; ++k) {
        pb_body s1 = {0}, s2 = {0}, box = {0};
        tch_tetmesh_make_sphere(0.5, sphere_h[k], &s1.mesh, NULL);
        tch_tetmesh_make_sphere(0.5, sphere_h[k], &s2.mesh, NULL);
        tch_tetmesh_make_box((tch_vec3){0.4, 0.4, 0.4}, box_h[k], &box.mesh, NULL);
        pb_finish_body(&s1, 1e6), pb_finish_body(&s2, 1e6), pb_finish_body(&box, 1e6);
        /* overlap 0.05 m along a tilted axis, so the surface crosses elements generically */
        tch_transform X_ss = {tch_q_axis_angle(tch_v3_normalize((tch_vec3){1, 2, 3}), 0.3),
                              tch_v3_scale(tch_v3_normalize((tch_vec3){0.3, 0.2, 1}), 0.95)};
        measure("sphere-sphere", &s1, &s2, 0, X_ss, repeats[k]);
        tch_transform X_sb = {tch_q_axis_angle((tch_vec3){0, 0, 1}, 0.2),
                              (tch_vec3){0.03, 0.02, -0.85}};
        measure("sphere-rigid box", &s1, &box, 1, X_sb, repeats[k]);
        /* a compliant box 0.05 m into a rigid slab (the half-space as a box, as the engine does) */
        tch_transform X_bp = {tch_q_identity(), (tch_vec3){0, 0, -1.15}};
        pb_body slab = {0};
        tch_tetmesh_make_box((tch_vec3){0.8, 0.8, 0.8}, 0, &slab.mesh, NULL);
        pb_finish_body(&slab, 1e6);
        measure("box-rigid plane", &box, &slab, 1, X_bp, repeats[k]);
        pb_free_body(&s1), pb_free_body(&s2), pb_free_body(&box), pb_free_body(&slab);
    }
    return 0;
}
