/* The overlap of two convex pieces: the polyhedron P = A ∩ B of the contact-volume model
 * (Hasegawa & Sato 2004, sec. 4.3; reference notes contact_volume.md §4), with every face
 * tagged with the piece it came from.
 *
 *     A (hull, frame A), B (hull, frame B), X_AB --method--> P (vertices and faces, frame A)
 *
 * Two methods compute the same P and are kept tested against each other:
 *
 *   clip  (default)  half-space clipping: start from A's faces and cut by each face plane of B
 *                    (Sutherland-Hodgman on every face, a cap face on the cutting plane). No
 *                    interior point needed; cost O(F_A F_B) in the worst case, and a plane of
 *                    B that leaves A whole costs one pass over P's vertices.
 *   dual             Muller and Preparata (1978): with a point o strictly inside both pieces as
 *                    origin, each face plane n.(x - o) = delta maps to the dual point n/delta;
 *                    the convex hull of the dual points (qhull) maps back to P: a hull facet
 *                    N.y = D is the vertex o + N/D, a hull vertex is a face of P.
 *
 * The default is the method the benchmark (bench/touche/bench_polyhedron.c) measured faster;
 * docs/contact-volume.md has the figures.
 *
 * Tolerance: vertices within TCH_POLYHEDRON_TOLERANCE times the size of the pair (the larger
 * bounding radius of the two pieces about their centroids) of a cutting plane count as on it;
 * points created on one plane that close together are welded into one vertex. Pieces that only
 * touch (no vertex of the running P strictly inside some plane) give the empty P
 * (tch_polyhedron_clip_touching: the flat P of a touching patch of faces).
 *
 * The dual method welds vertices of P as close as qhull's merging of nearly coplanar dual
 * facets decides (about 1e-8 of the pair's size on random hulls), so a welded vertex can stand
 * off one of its planes by that much; the volumes of the two methods agree to 1e-9.
 *
 * Rejected: clipping A's vertices alone and re-hulling them (loses face ownership and costs a
 * hull per pair).
 */
#pragma once

#include "geometry/shape.h"

/* Relative tolerance of the clipping (see above). */
#define TCH_POLYHEDRON_TOLERANCE 1e-9
/* The dual method needs the interior point at least this times the pair's size inside every
 * face plane; a point closer to the boundary makes the dual points blow up. */
#define TCH_POLYHEDRON_INTERIOR_MARGIN 1e-6

typedef enum tch_face_owner {
    TCH_FACE_OWNER_A = 0, /* the face lies on a face plane of A */
    TCH_FACE_OWNER_B = 1, /* the face lies on a face plane of B */
} tch_face_owner;

typedef enum tch_polyhedron_method {
    TCH_POLYHEDRON_DEFAULT = 0, /* the measured faster method: clipping */
    TCH_POLYHEDRON_CLIP = 1,
    TCH_POLYHEDRON_DUAL = 2,
} tch_polyhedron_method;

/* A convex polyhedron with owned faces, in A's frame. Empty when face_count is 0. Arrays are
 * grown on demand and kept between calls: init once, reuse for every pair, free once. */
typedef struct tch_polyhedron {
    int vertex_count;
    tch_vec3* vertices_A;      /* [vertex_count] */
    int face_count;
    int* face_start;           /* [face_count + 1] offsets into face_vertices */
    int* face_vertices;        /* counter-clockwise seen from outside */
    tch_vec3* face_normals_A;  /* [face_count] outward unit normal (the owner's face plane) */
    tch_real* face_offsets;    /* [face_count] n . x = offset on the face, A's frame */
    unsigned char* face_owner; /* [face_count] tch_face_owner */
    int* face_source;          /* [face_count] index of the face in its owner's hull */
    int vertex_capacity, face_capacity, corner_capacity;
    struct tch_polyhedron_scratch* scratch; /* working memory of the clipping; opaque */
} tch_polyhedron;

void tch_polyhedron_init(tch_polyhedron* p);
void tch_polyhedron_free(tch_polyhedron* p);

/* P = A ∩ B with B at pose X_AB in A's frame, by `method`. On success `out` holds P (possibly
 * empty). Fails with TCH_ERR_INVALID_ARGUMENT when a hull is NULL, has fewer than 4 faces or
 * 4 vertices, is flat (volume not above 1e-12 of its bounding cube) or not finite, or when
 * X_AB is not finite; TCH_ERR_NUMERICAL when qhull fails; TCH_ERR_OUT_OF_MEMORY. The hulls are
 * assumed convex: check each once with tch_polyhedron_check_hull (this call does not repeat
 * that O(V F) check). The dual method finds its interior point with libccd (GJK/EPA common
 * point of the two pieces) and, when that point is not TCH_POLYHEDRON_INTERIOR_MARGIN inside
 * both pieces, uses the vertex average of the clipped P instead. */
tch_status tch_polyhedron_intersect(const tch_convex_hull* a, const tch_convex_hull* b,
                                    tch_transform X_AB, tch_polyhedron_method method,
                                    tch_polyhedron* out, tch_error* err);

/* The clipping of tch_polyhedron_intersect without its input checks, for callers that checked
 * their hulls once (tch_polyhedron_check_hull) and pass a finite X_AB with a unit quaternion and
 * the pair's size (tch_polyhedron_pair_size), which scales the tolerance. Fails only with
 * TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_polyhedron_clip(const tch_convex_hull* a, const tch_convex_hull* b,
                               tch_transform X_AB, tch_real size, tch_polyhedron* out,
                               tch_error* err);

/* tch_polyhedron_clip, but pieces that touch along a patch of faces (a zero-gap stack: the
 * faces meet within the tolerance, nothing strictly inside) give the flat P of that patch: two
 * faces on the same loop, one of each owner, of opposite normals and zero volume, so that a
 * contact model sees the touching area (the contact-volume model then puts it in the implicit
 * integrator's system before it has depth). Pieces that touch along an edge or at a corner
 * still give the empty P. */
tch_status tch_polyhedron_clip_touching(const tch_convex_hull* a, const tch_convex_hull* b,
                                        tch_transform X_AB, tch_real size, tch_polyhedron* out,
                                        tch_error* err);

/* The dual method with a given interior point o_A (A's frame). Fails with
 * TCH_ERR_INVALID_ARGUMENT when o_A is not TCH_POLYHEDRON_INTERIOR_MARGIN inside both. */
tch_status tch_polyhedron_intersect_dual(const tch_convex_hull* a, const tch_convex_hull* b,
                                         tch_transform X_AB, tch_vec3 o_A, tch_polyhedron* out,
                                         tch_error* err);

/* The cheap checks tch_polyhedron_intersect makes on its input (described there). */
tch_status tch_polyhedron_check_pair(const tch_convex_hull* a, const tch_convex_hull* b,
                                     tch_transform X_AB, tch_error* err);

/* The size of a pair: the larger of the two pieces' bounding radii about their centroids. */
tch_real tch_polyhedron_pair_size(const tch_convex_hull* a, const tch_convex_hull* b);

/* A piece's bounding radius about its centroid: the largest distance of a vertex from it. */
tch_real tch_polyhedron_hull_radius(const tch_convex_hull* hull);

/* Volume of P and its centre of volume (A's frame; zero for an empty P), by the divergence
 * theorem over tetrahedra fanned from the vertex average to each face's triangle fan. */
void tch_polyhedron_volume_centroid(const tch_polyhedron* p, tch_real* volume,
                                    tch_vec3* centroid_A);

/* Checks that a hull is a valid convex piece: counts and index ranges, finite values, unit
 * face normals, not flat, and convex (every vertex on the inner side of every face plane, to
 * 1e-9 of its size). TCH_ERR_INVALID_ARGUMENT naming `name` (may be NULL) and the face and
 * vertex at fault otherwise. */
tch_status tch_polyhedron_check_hull(const tch_convex_hull* hull, const char* name,
                                     tch_error* err);

/* A polyhedral approximation of a shape, for the contact-volume model: boxes exactly (8
 * corners), meshes as their hull (copied), curved primitives (sphere, capsule, cylinder,
 * ellipsoid) as the hull of points sampled on their surface, so the polyhedron is inscribed.
 * `resolution` (>= 3) is the number of segments around the z axis; rings of latitude are
 * resolution / 2 per hemisphere (at least 2). Fails with TCH_ERR_INVALID_ARGUMENT for a bad
 * size or resolution and with TCH_ERR_UNSUPPORTED for a plane (a half-space has no polyhedron).
 * Free the result with tch_hull_free. */
tch_status tch_polyhedron_approximate_shape(const tch_shape* shape, int resolution,
                                            tch_convex_hull* out, tch_error* err);
