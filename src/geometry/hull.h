/* Convex hulls of point sets, computed with qhull (libqhull_r, the reentrant library).
 *
 * Coplanar facets that qhull reports as separate triangles of one plane are merged into one
 * polygon face, so that a cube has 6 faces of 4 vertices: the box-like manifold code and the
 * contact-volume model rely on true faces. Vertices are renumbered densely (points of the input
 * that are not hull vertices are dropped).
 */
#pragma once

#include "touche/model.h"

/* Builds the hull of `count` points. Fails with TCH_ERR_INVALID_ARGUMENT (message says why)
 * for fewer than four points, non-finite coordinates, or a flat or degenerate set (all points
 * coplanar or collinear). On success *out owns its arrays; free with tch_hull_free. */
tch_status tch_hull_build(const tch_vec3* points, int count, tch_convex_hull* out,
                          tch_error* err);
void tch_hull_free(tch_convex_hull* hull);
/* Deep copy; returns 0 on success, -1 when out of memory. */
int tch_hull_copy(const tch_convex_hull* src, tch_convex_hull* dst);

/* Faces are merged from qhull's triangles by region growing: a triangle joins its neighbour's
 * face when its three vertices lie within TCH_HULL_COPLANAR_TOLERANCE times the largest
 * extent of the point set from the plane of the face's first triangle, and its normal is
 * within ~8 degrees of that plane's. A hull vertex left inside a merged face is dropped. */
#define TCH_HULL_COPLANAR_TOLERANCE 1e-6
/* A point set whose thickness (distance of the farthest point from the plane through three
 * extreme points) is at most this times its extent is rejected as flat. Ten times the merge
 * tolerance, so that merging can never fold a hull onto itself. */
#define TCH_HULL_FLAT_TOLERANCE 1e-5
/* Coordinates beyond this magnitude (m) are rejected: volume integrals multiply three. */
#define TCH_HULL_MAX_COORDINATE 1e100

/* Volume integrals of the hull as a solid: volume, centre of volume and the second moment
 * about it, S = ∫ (x - c)(x - c)^T dV (geom frame). Exact for the polyhedron: a sum over
 * tetrahedra fanned from the mean vertex to each face's triangle fan, each contributing its
 * covariance V/20 (sum_i v_i v_i^T + s s^T), s = sum_i v_i over its 4 vertices (Tonon 2004,
 * "Explicit exact formulas for the 3-D tetrahedron inertia tensor"). */
void tch_hull_volume_moments(const tch_convex_hull* hull, tch_real* volume, tch_vec3* centroid,
                             tch_mat3* second_moment);

/* Reads a mesh file (tch_mesh_read_vertices) and builds its hull. Every error, including a
 * degenerate point set, names `path` in err->file. */
tch_status tch_hull_from_mesh_file(const char* path, tch_convex_hull* out, tch_error* err);
/* The same from bytes in memory (see tch_mesh_read_vertices_buffer); errors name `name`. */
tch_status tch_hull_from_mesh_buffer(const char* bytes, size_t size, const char* name,
                                     const char* format_hint, tch_convex_hull* out,
                                     tch_error* err);
