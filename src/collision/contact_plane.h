/* Contact normal and contact plane of the contact-volume model (Hasegawa & Sato 2004, sec.
 * 4.2; reference notes contact_volume.md §3), for two convex pieces A and B (B at X_AB).
 *
 * The separation search, exactly as the notes give it:
 *
 *     s = max(d_prev, 0.01)                    (d_prev = 0.01 on a new contact)
 *     loop:
 *         s = 2 s                              (doubled before the first try)
 *         translate B by s n_prev              (A fixed)
 *         if GJK says they still intersect: continue
 *         closest points a* in A, b* in B (GJK distance)
 *         if |b* - a*|^2 > 1e-10 (scaled by the pair's size squared): break
 *     n   = (b* - a*) / |b* - a*|              (new contact normal, from A into B)
 *     d   = s - |b* - a*|                      (penetration depth along n)
 *     o_c = a* - d n / 2                       (midpoint of the two deepest points, in the
 *                                              original configuration: B's deepest point is
 *                                              b* - s n_prev = a* - d n)
 *
 * It is the translational penetration depth along the previous normal, refined by one
 * closest-point query, so the normal turns continuously from step to step instead of jumping
 * between faces. On a new contact n_prev is the notes' initial normal (tch_contact_initial_
 * normal): the area vectors of P's faces owned by A minus those owned by B, or the line of
 * centroids when that sum vanishes.
 *
 * libccd 2.1 has GJK intersection and EPA penetration but no distance query, so the closest
 * points of the separated pieces come from a GJK distance written here (Gilbert, Johnson,
 * Keerthi 1988, with the sub-simplex found by checking the faces of the simplex); it is 0 for
 * intersecting pieces, so it is the intersection test too. A caller that keeps the final
 * simplex of a pair (tch_contact_plane_warm) starts the next step's search from it: on a
 * resting contact the search then takes one support query.
 */
#pragma once

#include "collision/polyhedron.h"

typedef struct tch_contact_plane {
    tch_vec3 n_A;   /* unit normal from A into B */
    tch_vec3 o_A;   /* point on the contact plane, A's frame */
    tch_real depth; /* penetration depth along n_A, m; <= 0 when the pieces do not overlap */
    tch_vec3 a_A;   /* deepest point of A (a*) */
    tch_vec3 b_A;   /* deepest point of B in the original configuration (a* - d n) */
    int trials;     /* separation distances tried */
} tch_contact_plane;

/* The final GJK simplex of a separation search as pairs of vertex indices (a[i] of A, b[i] of
 * B; count 0 to 3), kept by a caller between steps to start the next search from it: its points
 * are re-placed at the new pose, so a stale simplex costs iterations, never accuracy. */
typedef struct tch_contact_plane_warm {
    int count;
    int a[3], b[3];
} tch_contact_plane_warm;

/* Initial normal of a new contact (notes §3.1): unit(sum of area vectors of the faces of
 * `overlap` owned by A minus those owned by B); when that sum is below 1e-12 of the total face
 * area, or overlap is NULL or empty, unit(c_B - c_A); (0, 0, 1) when the centroids coincide. */
tch_vec3 tch_contact_initial_normal(const tch_polyhedron* overlap, tch_vec3 c_A, tch_vec3 c_B);

/* The separation search above. n_prev_A (A's frame, need not be unit) is the previous step's
 * normal, or NULL on a new contact, when the initial normal is taken from `overlap` (may be
 * NULL) and the centroids; d_prev is the previous depth (<= 0 or NaN: new contact). Fails with
 * TCH_ERR_INVALID_ARGUMENT for a bad hull (as tch_polyhedron_intersect), a zero or non-finite
 * n_prev or a non-finite X_AB, and TCH_ERR_NUMERICAL when no separation is found within 64
 * doublings. A pair that does not overlap gets depth <= 0. */
tch_status tch_contact_plane_find(const tch_convex_hull* a, const tch_convex_hull* b,
                                  tch_transform X_AB, const tch_vec3* n_prev_A, tch_real d_prev,
                                  const tch_polyhedron* overlap, tch_contact_plane* out,
                                  tch_error* err);

/* The search of tch_contact_plane_find without its input checks, for callers that checked their
 * hulls once (tch_polyhedron_check_hull) and pass a finite X_AB with a unit quaternion, a unit
 * n_prev_A (a new contact: tch_contact_initial_normal) and the pair's size
 * (tch_polyhedron_pair_size). warm (may be NULL) is the GJK simplex to start from and receives
 * the final one. Returns 0, or -1 when no separation is found within 64 doublings. */
int tch_contact_plane_search(const tch_convex_hull* a, const tch_convex_hull* b,
                             tch_transform X_AB, tch_vec3 n_prev_A, tch_real d_prev,
                             tch_real size, tch_contact_plane_warm* warm,
                             tch_contact_plane* out);

/* A point of the overlap from libccd's GJK + EPA: the midpoint of EPA's two witness points
 * (each is usually inside the other piece, so the midpoint is in both; it can lie on the
 * boundary, and callers that need a strictly interior point check it). A's frame. Returns 1
 * when the pieces intersect, else 0. */
int tch_contact_common_point(const tch_convex_hull* a, const tch_convex_hull* b,
                             tch_transform X_AB, tch_vec3* o_A);

/* Closest points of two disjoint convex pieces (GJK distance): a_A on A and b_A on B, both in
 * A's frame. Returns the distance; 0 (points set to a common point) when they intersect. */
tch_real tch_contact_closest_points(const tch_convex_hull* a, const tch_convex_hull* b,
                                    tch_transform X_AB, tch_vec3* a_A, tch_vec3* b_A);
