/* Narrow phase internals: the pair kernels behind tch_collide and the pieces they share.
 *
 * Data flow of one call:
 *
 *     tch_collide(a, b, X_AB) --table[a][b]--> kernel(a, b, X_AB)             points in A
 *                             \--table[b][a]--> kernel(b, a, X_BA) --flip--> points in A
 *
 * The table (narrowphase.c) holds each kernel once, under the pair ordered by geom type
 * (plane < sphere < capsule < ellipsoid < cylinder < box < mesh), so a kernel's A is always the
 * lower type: plane kernels see the plane as A, and the normal they return is +z of the plane.
 *
 * Kernels:
 *   collide_primitive.c  plane-*, sphere-sphere, sphere-capsule, capsule-capsule, sphere-box,
 *                        capsule-box: closed forms (signed distances, closest points)
 *   collide_box.c        box-box by the separating axis test (15 axes) and face clipping
 *   collide_convex.c     every other pair: libccd's GJK + EPA on support functions, then face
 *                        clipping when both are polytopes resting face to face
 *   manifold.c           the polytope view of boxes and hulls, Sutherland-Hodgman face
 *                        clipping, and the symmetric reduction of many points to a few
 *
 * Manifold rules: points within `margin` of touching are kept with depth in [-margin, 0]. A
 * kernel that finds more than four points reduces them (manifold.c) by the greedy choice of
 * spread in the contact plane of the deepest one: the deepest, the one farthest from it, the
 * one that makes the largest triangle with those two, and the one that adds the most area to
 * that triangle (the spread of the support polygon is what keeps a resting body stable), with
 * two rules that keep a symmetric set symmetric:
 *   - twins: when exactly two candidates (at two places) share a step's best score within
 *     1e-8 relative, and the centroid of all candidates is on their
 *     perpendicular bisector (a mirror of the set may swap them), both are kept and the next
 *     steps measure from their midpoint. The two deepest points of a prism's rim, the far ends
 *     of a rim, the flanks of a tilted face: picking one of two twins, as the plain greedy
 *     choice did, put the impulse of a symmetric impact on one corner, and the body left it
 *     yawing and flying sideways;
 *   - a level face (more than two places equally deep) is measured from the centre of its
 *     deepest points, not from whichever of them rounding made deepest, and of tied candidates
 *     the one farthest from that centre wins.
 * At most 4 points (5 when a pair follows a single winner). Of candidates at one place (a box's
 * top and bottom corners seen from above) the deepest is kept. Every choice is a function of
 * the set of positions and depths, not of the candidates' order, except among exact ties of
 * several places (a regular polygon), where the first one wins.
 *
 * Rejected: one generic GJK/EPA path for everything (a box on a plane would get one point and
 * rock; EPA's depth on curved shapes is only as good as its tolerance), and per-kernel copies
 * of the reduction (a single reduction keeps the manifold rules in one place).
 */
#pragma once

#include <ccd/ccd.h>

#include "collision/narrowphase.h"

/* A pair kernel: points of a and b (b at pose X_AB in a's frame), expressed in a's frame. */
typedef int (*tch_collide_fn)(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                              tch_real margin, tch_manifold_point* out);

/* ---- collide_primitive.c ---- */
/* Plane (A) against a sphere or a capsule (a sphere is a capsule of zero half-length). */
int tch_collide_plane_rounded(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                              tch_real margin, tch_manifold_point* out);
int tch_collide_plane_ellipsoid(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                                tch_real margin, tch_manifold_point* out);
int tch_collide_plane_cylinder(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                               tch_real margin, tch_manifold_point* out);
int tch_collide_plane_box(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                          tch_real margin, tch_manifold_point* out);
int tch_collide_plane_mesh(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                           tch_real margin, tch_manifold_point* out);
/* Sphere-sphere, sphere-capsule and capsule-capsule. */
int tch_collide_rounded_rounded(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                                tch_real margin, tch_manifold_point* out);
/* Sphere-box and capsule-box. */
int tch_collide_rounded_box(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                            tch_real margin, tch_manifold_point* out);

/* ---- collide_box.c ---- */
int tch_collide_box_box(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                        tch_real margin, tch_manifold_point* out);

/* ---- collide_convex.c ---- */
/* The general convex path for any pair without a plane: GJK + EPA from libccd (one point,
 * margin ignored), plus face clipping when both shapes are polytopes (boxes or meshes). The
 * tests call it directly to compare with the analytic kernels. */
int tch_collide_convex(const tch_shape* a, const tch_shape* b, tch_transform X_AB,
                       tch_real margin, tch_manifold_point* out);

/* ---- manifold.c ---- */

/* A set of at most this many candidates is kept whole; a larger one is reduced to about this
 * many (see the manifold rules). */
enum { TCH_MANIFOLD_REDUCED = 4 };

/* Candidate k of a source of candidate points: true (and *out set) when it is a point of the
 * manifold (within the margin). */
typedef bool (*tch_candidate_fn)(const void* source, int k, tch_manifold_point* out);

/* Reduces the candidates 0 .. count-1 of `source` (by the manifold rules) into out
 * (TCH_MANIFOLD_CAPACITY points); returns the count kept. Each candidate is asked for several
 * times (a few passes), so a source of any size needs no buffer. */
int tch_manifold_select(tch_candidate_fn point, const void* source, int count,
                        tch_manifold_point* out);

/* Points found with the roles swapped (frame B, normal from B into A) re-expressed in A's
 * frame with the normal from A into B. */
void tch_manifold_flip(tch_manifold_point* points, int count, tch_transform X_AB);

/* Reduces points[0..count) in place (see the manifold rules); returns the count. */
int tch_manifold_reduce(tch_manifold_point* points, int count);

/* Closest points of segments p0 + s (p1 - p0) and q0 + t (q1 - q0), s, t in [0, 1]
 * (Ericson, Real-Time Collision Detection, 5.1.9). */
void tch_segment_closest(tch_vec3 p0, tch_vec3 p1, tch_vec3 q0, tch_vec3 q1, tch_real* s,
                         tch_real* t);

/* A box or a convex hull seen as faces over vertices, in the shape's frame. A box view keeps
 * its 8 vertices inside the struct: pass it by pointer only. */
typedef struct tch_polytope {
    int vertex_count;
    const tch_vec3* vertices;
    int face_count;
    const int* face_start;    /* [face_count + 1] */
    const int* face_vertices; /* counter-clockwise seen from outside */
    const tch_vec3* face_normals;
    tch_vec3 box_vertices[8];
} tch_polytope;

/* Fills the view of a box or mesh shape; returns 0 for other types. */
int tch_polytope_init(tch_polytope* poly, const tch_shape* shape);

/* Face-to-face manifold of polytopes P (frame A) and Q (pose X_AB) along the unit direction
 * n_A from P towards Q: the face of P or Q best aligned with n is the reference face, the most
 * anti-parallel face of the other is clipped against its side planes (Sutherland-Hodgman),
 * and the clipped points within `margin` of the reference plane are kept. Returns 0 (and
 * writes nothing) when the reference face's normal is less aligned with n than
 * `min_alignment` (a cosine) or when the faces are too large to clip. The normal of the
 * points is the reference face's, signed from P into Q. */
int tch_polytope_clip(const tch_polytope* P, const tch_polytope* Q, tch_transform X_AB,
                      tch_vec3 n_A, tch_real margin, tch_real min_alignment,
                      tch_manifold_point* out);

/* libccd settings shared by every GJK/EPA/MPR query of the project: the given support and
 * centre callbacks for both objects, 1000 iterations, EPA tolerance 1e-14 (EPA stops when a new
 * support point is within its square root of the nearest face), MPR 1e-9, distance 1e-12. */
ccd_t tch_ccd_settings(ccd_support_fn support, ccd_center_fn centre);
