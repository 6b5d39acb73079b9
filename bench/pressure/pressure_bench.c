/* Shared support of the pressure-model benchmarks (pressure_bench.h). */
#include "pressure_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

void pb_print_run_header(const char* program) {
    const char* commit = getenv("TCH_COMMIT");
    time_t now = time(NULL);
    char date[32], cpu[256];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    bench_cpu_model(cpu, sizeof cpu);
    printf("# %s, %s, commit %s, CPU %s\n", program, date, commit ? commit : TCH_GIT_COMMIT, cpu);
}

void pb_finish_body(pb_body* b, double modulus) {
    tch_aabb* boxes = malloc((size_t)b->mesh.tet_count * sizeof *boxes);
    tch_tetmesh_tet_boxes(&b->mesh, boxes);
    tch_bvh_build(boxes, b->mesh.tet_count, &b->bvh, NULL);
    tch_tetmesh_face_boxes(&b->mesh, boxes);
    tch_bvh_build(boxes, b->mesh.face_count, &b->face_bvh, NULL);
    free(boxes);
    b->pressure = (tch_pressure_body){&b->mesh, &b->bvh, modulus};
    b->rigid =
        (tch_rigid_surface){b->mesh.vertices_G, b->mesh.vertex_count,
                            (const int(*)[3])b->mesh.faces, b->mesh.face_count, &b->face_bvh};
}

void pb_free_body(pb_body* b) {
    tch_tetmesh_free(&b->mesh);
    tch_bvh_free(&b->bvh);
    tch_bvh_free(&b->face_bvh);
}

void pb_finish_surface(pb_surface* s) {
    tch_aabb* boxes = malloc((size_t)s->triangle_count * sizeof *boxes);
    tch_pressure_triangle_boxes(s->vertices, (const int(*)[3])s->triangles, s->triangle_count,
                                boxes);
    tch_bvh_build(boxes, s->triangle_count, &s->bvh, NULL);
    free(boxes);
    s->rigid = (tch_rigid_surface){s->vertices, s->vertex_count, (const int(*)[3])s->triangles,
                                   s->triangle_count, &s->bvh};
}

void pb_free_surface(pb_surface* s) {
    free(s->vertices);
    free(s->triangles);
    tch_bvh_free(&s->bvh);
}
