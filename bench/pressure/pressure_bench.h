/* What the pressure-model benchmarks (bench/pressure) share: the CSV header line naming the
 * run (date, commit, CPU; the clock is bench_now_seconds of bench/common) and compliant or
 * rigid bodies built from tet meshes with their BVHs. */
#pragma once

#include "bench_machine.h"
#include "contact/pressure_surface.h"
#include "geometry/bvh.h"
#include "geometry/tetmesh.h"

/* Prints "# <program>, <date>, commit <commit>, CPU <cpu>" (the commit from the TCH_COMMIT
 * environment variable, else the one the program was built at). */
void pb_print_run_header(const char* program);

/* A tet mesh with its BVH as a compliant body, and its boundary faces as a rigid surface. */
typedef struct pb_body {
    tch_tetmesh mesh;
    tch_bvh bvh;
    tch_pressure_body pressure;
    tch_rigid_surface rigid; /* the mesh's boundary faces, for a rigid role */
    tch_bvh face_bvh;
    tch_real (*node_epsilon)[2];  /* the field's range per tet-BVH node */
} pb_body;

/* Builds the BVHs of b->mesh (already made) and sets the body up with modulus E. */
void pb_finish_body(pb_body* b, double modulus);
void pb_free_body(pb_body* b);

/* A rigid surface owning its arrays. */
typedef struct pb_surface {
    tch_vec3* vertices;
    int (*triangles)[3];
    int vertex_count, triangle_count;
    tch_bvh bvh;
    tch_rigid_surface rigid;
} pb_surface;

/* Builds the BVH over the triangles and fills s->rigid. */
void pb_finish_surface(pb_surface* s);
void pb_free_surface(pb_surface* s);

/* The tet mesh of Drake's compliant-compliant benchmark shapes (geometry/benchmarking/
 * compliant_mesh_intersection_benchmark.cc, read for its setup only): the unit sphere as an
 * octahedron of 8 tets around its centre, refined `level` times by splitting every tet into 8
 * at its edge midpoints (midpoints of surface edges pushed out onto the sphere), 8 · 8^level
 * tets, then scaled by `radii`. ε = 1 - |u| at each vertex u of the unit-sphere mesh (0 on the
 * surface). Returns 0, or -1 when out of memory or the mesh is rejected. */
int pb_make_refined_ellipsoid(tch_vec3 radii, int level, tch_tetmesh* out);
