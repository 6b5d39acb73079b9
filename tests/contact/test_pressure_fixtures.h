/* Bodies for the pressure field tests: compliant tet meshes with their BVHs, and rigid boxes
 * given both as surface triangles (for the contact surface) and as planes (for the energy). */
#pragma once

#include <stdlib.h>

#include "contact/pressure_surface.h"
#include "contact/pressure_wrench.h"

typedef struct fixture_body {
    tch_tetmesh mesh;
    tch_bvh bvh;
    tch_pressure_body body;
} fixture_body;

typedef struct fixture_rigid_box {
    tch_tetmesh mesh;       /* its boundary faces are the surface */
    tch_bvh bvh;
    tch_rigid_surface surface;
    tch_rigid_plane planes[6];
} fixture_rigid_box;

/* The mesh must be built in fb->mesh; adds the BVH and the body. */
static inline int fixture_finish_body(fixture_body* fb, tch_real modulus) {
    tch_aabb* boxes = malloc(sizeof *boxes * (size_t)fb->mesh.tet_count);
    if (boxes == NULL) {
        return -1;
    }
    tch_tetmesh_tet_boxes(&fb->mesh, boxes);
    tch_status status = tch_bvh_build(boxes, fb->mesh.tet_count, &fb->bvh, NULL);
    free(boxes);
    fb->body = (tch_pressure_body){&fb->mesh, &fb->bvh, modulus};
    return status == TCH_OK ? 0 : -1;
}

static inline int fixture_sphere(fixture_body* fb, tch_real radius, tch_real resolution,
                                 tch_real modulus) {
    if (tch_tetmesh_make_sphere(radius, resolution, &fb->mesh, NULL) != TCH_OK) {
        return -1;
    }
    return fixture_finish_body(fb, modulus);
}

static inline int fixture_box(fixture_body* fb, tch_vec3 half, tch_real resolution,
                              tch_real modulus) {
    if (tch_tetmesh_make_box(half, resolution, &fb->mesh, NULL) != TCH_OK) {
        return -1;
    }
    return fixture_finish_body(fb, modulus);
}

static inline void fixture_body_free(fixture_body* fb) {
    tch_bvh_free(&fb->bvh);
    tch_tetmesh_free(&fb->mesh);
}

/* A rigid box of half sizes `half` centred at its frame's origin; `resolution` sets the size of
 * its surface triangles. */
static inline int fixture_rigid_box_make(fixture_rigid_box* rb, tch_vec3 half,
                                         tch_real resolution) {
    if (tch_tetmesh_make_box(half, resolution, &rb->mesh, NULL) != TCH_OK) {
        return -1;
    }
    tch_aabb* boxes = malloc(sizeof *boxes * (size_t)rb->mesh.face_count);
    if (boxes == NULL) {
        return -1;
    }
    tch_pressure_triangle_boxes(rb->mesh.vertices_G, (const int(*)[3])rb->mesh.faces,
                                rb->mesh.face_count, boxes);
    tch_status status = tch_bvh_build(boxes, rb->mesh.face_count, &rb->bvh, NULL);
    free(boxes);
    rb->surface = (tch_rigid_surface){rb->mesh.vertices_G, rb->mesh.vertex_count,
                                      (const int(*)[3])rb->mesh.faces, rb->mesh.face_count,
                                      &rb->bvh};
    tch_rigid_box_planes(half, rb->planes);
    return status == TCH_OK ? 0 : -1;
}

static inline void fixture_rigid_box_free(fixture_rigid_box* rb) {
    tch_bvh_free(&rb->bvh);
    tch_tetmesh_free(&rb->mesh);
}

/* The pose of B in A: translation p, rotation by `angle` about unit `axis`. */
static inline tch_transform fixture_pose(tch_vec3 p, tch_vec3 axis, tch_real angle) {
    return (tch_transform){tch_q_axis_angle(axis, angle), p};
}
