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
