/* Feature-level geometry of convex polytopes for the geometrically exact contact model `peg`
 * (Williams, Lu and Trinkle 2017, seed 001; notes in ../shared/reference/peg.md), and the
 * proximity query that lists the feature pairs of two posed polytopes.
 *
 *     tch_polytope (box or hull, geom frame) --tch_features_build--> vertices, edges, faces
 *     features A at pose_a, features B at pose_b, proximity eps --tch_feature_pairs_find-->
 *         every vertex-face, face-vertex, edge-edge, vertex-edge, edge-vertex and
 *         vertex-vertex pair whose two features lie within eps of each other (world frame)
 *
 * The peg contact model (contact/peg.c) builds them per geom at compile.
 *
 * Conventions (peg.md §1): faces are counter-clockwise seen from outside with outward unit
 * normals; an edge runs tail -> head, its vector is e = v_head - v_tail, face1 is the face
 * that traverses it tail -> head and face2 the face that traverses it head -> tail. A pair's
 * normal points from A toward B, and its gap is psi = normal . (point_b - point_a).
 *
 * The listing is the broad candidate set of the authors' code (a pair is listed whenever its
 * features are close, whatever their relative orientation); applicability and feasibility
 * (eqs. 28-31, peg.md §5) are what later keep or drop a candidate.
 */
#pragma once

#include <stdbool.h>

#include "collision/collide.h"

/* Edges whose unit vectors have a cross product below this norm are parallel: no edge-edge
 * pair (the authors' code calls them not applicable; their endpoints' pairs cover them). */
#define TCH_FEATURES_PARALLEL_SINE 1e-6

typedef struct tch_feature_edge {
    int tail, head; /* vertex indices; e = v_head - v_tail */
    int face1;      /* the face that runs tail -> head counter-clockwise (seen from outside) */
    int face2;      /* the other face at the edge (runs head -> tail) */
} tch_feature_edge;

/* Vertices, edges and faces of a convex polytope in its geom frame. Owns its arrays. */
typedef struct tch_features {
    int vertex_count;
    tch_vec3* vertices;
    int face_count;
    int* face_start;          /* [face_count + 1] offsets into face_vertices */
    int* face_vertices;       /* counter-clockwise seen from outside */
    tch_vec3* face_normals;   /* [face_count] outward unit normals */
    int edge_count;
    tch_feature_edge* edges;  /* [edge_count] */
    int* vertex_edge_start;   /* [vertex_count + 1] offsets into vertex_edges */
    int* vertex_edges;        /* edges at each vertex: omega(v) are their other ends */
    tch_vec3 centre;          /* vertex average */
    tch_real radius;          /* largest distance of a vertex from centre */
} tch_features;

/* Builds the features of `poly`. Fails with TCH_ERR_INVALID_ARGUMENT naming `name` (may be
 * NULL) when the faces do not close a surface (an edge not shared by exactly two faces, run
 * once each way) or an index is out of range, and with TCH_ERR_OUT_OF_MEMORY. Convexity is
 * assumed (check hulls once with tch_polyhedron_check_hull). Free with tch_features_free. */
tch_status tch_features_build(const tch_polytope* poly, const char* name, tch_features* out,
                              tch_error* err);
void tch_features_free(tch_features* f);

/* The edge vector e = v_head - v_tail (geom frame). */
tch_vec3 tch_features_edge_vector(const tch_features* f, int edge);

/* Eq. 26: the unit vectors t1 = (n1 x e)/|n1 x e| and t2 = (e x n2)/|e x n2|, each
 * perpendicular to the edge in its face (face1, face2) and pointing into that face. */
void tch_features_edge_t_vectors(const tch_features* f, int edge, tch_vec3* t1, tch_vec3* t2);

/* Eq. 27: the edge orientation O_e = (n1 + n2) x e, perpendicular to e and to the mean normal,
 * pointing from the face2 side toward the face1 side. */
tch_vec3 tch_features_edge_orientation(const tch_features* f, int edge);

typedef enum tch_feature_pair_kind {
    TCH_FEATURE_VERTEX_FACE = 0,   /* vertex of A, face of B */
    TCH_FEATURE_FACE_VERTEX = 1,   /* face of A, vertex of B */
    TCH_FEATURE_EDGE_EDGE = 2,
    TCH_FEATURE_VERTEX_EDGE = 3,   /* vertex of A, edge of B */
    TCH_FEATURE_EDGE_VERTEX = 4,   /* edge of A, vertex of B */
    TCH_FEATURE_VERTEX_VERTEX = 5,
} tch_feature_pair_kind;

/* One feature pair (world frame). `distance` is the Euclidean distance between the two
 * features as point sets; `gap` is signed along `normal` (from A toward B):
 *   vertex-face   normal = -(face normal) for a face of B, +(face normal) for a face of A; gap
 *                 is the vertex's signed height over the face plane (negative below it);
 *                 point_b = point_a + gap normal.
 *   edge-edge     normal = sign(e_a . O_eb) (e_a x e_b)/|e_a x e_b| (peg.md §5.1), which points
 *                 away from B's faces at e_b; the points are the segments' closest points.
 *   vertex-edge, edge-vertex, vertex-vertex: normal along point_b - point_a (or, when they
 *                 coincide, the mean outward normal of the faces at A's edge, or minus that
 *                 at B's edge or vertex); gap = distance,
 *                 unsigned: their signed gaps are those of the face contacts they generate
 *                 (eqs. 36-38, not built yet). */
typedef struct tch_feature_pair {
    tch_feature_pair_kind kind;
    int feature_a, feature_b; /* indices into A's and B's vertices, edges or faces by kind */
    tch_vec3 point_a, point_b;
    tch_vec3 normal;
    tch_real gap;
    tch_real distance;
} tch_feature_pair;

/* The result of a query. Arrays grow on demand and are kept: init once, reuse, free once. */
typedef struct tch_feature_pairs {
    int count, capacity;
    tch_feature_pair* pairs;
    int point_capacity;
    tch_vec3* world_a; /* scratch: A's and B's vertices at their poses */
    tch_vec3* world_b;
} tch_feature_pairs;

void tch_feature_pairs_init(tch_feature_pairs* p);
void tch_feature_pairs_free(tch_feature_pairs* p);

/* Lists into `out` every feature pair of A (at pose_a) and B (at pose_b) whose distance is at
 * most `proximity`, by brute force over the features after a bounding-sphere test. Fails with
 * TCH_ERR_INVALID_ARGUMENT for a negative or non-finite proximity, TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_feature_pairs_find(const tch_features* a, tch_transform pose_a,
                                  const tch_features* b, tch_transform pose_b,
                                  tch_real proximity, tch_feature_pairs* out, tch_error* err);

/* The contact proximity epsilon of the authors' code (peg.md §5.2), in scene units (m):
 * 0.1 in 3D (dimension 3), max(0.5 h, 0.0008) in 2D (dimension 2) for a time step h. */
tch_real tch_features_default_proximity(int dimension, tch_real h);

/* Relaxed applicability (eqs. 29-31, peg.md §5.1): a real value in [-1, 1] that depends on the
 * relative orientation only; a pair "has applicability" when it is at least the relaxation
 * epsilon_theta in [-1, 0] (the authors' code: -0.3 to -0.4 vertex-face, -0.1 to -0.4
 * edge-edge). It also ranks the candidates.
 *
 * Eqs. 29-30, vertex v of the polytope `fv` at pose `pose_v` against a face of the other body
 * with outward unit normal `face_normal` (world frame): min over the vertices v_k joined to v
 * by an edge of face_normal . (v_k - v)/|v_k - v|, non-negative exactly when v is the
 * polytope's extreme point along -face_normal (eq. 28). */
tch_real tch_features_applicability_vertex_face(const tch_features* fv, tch_transform pose_v,
                                                int vertex, tch_vec3 face_normal);

/* Eq. 31, edge edge_a of A against edge edge_b of B: with n = (e_a x e_b)/|e_a x e_b| and the
 * t vectors of eq. 26, max(min(n.ta1, n.ta2, -n.tb1, -n.tb2), min(-n.ta1, -n.ta2, n.tb1, n.tb2)),
 * non-negative exactly when n (of either sign) separates the two edges' normal cones; -1 for
 * parallel edges (TCH_FEATURES_PARALLEL_SINE). */
tch_real tch_features_applicability_edge_edge(const tch_features* a, tch_transform pose_a,
                                              int edge_a, const tch_features* b,
                                              tch_transform pose_b, int edge_b);

/* Feasibility of the vertex-face contact of a world point against face `face` of the polytope
 * `f` at `pose` (peg.md §5.2, the authors' feasibility_vf): a feasible contact may carry a
 * force. It needs |gap| <= proximity and the point within proximity of the face; then, when the
 * point projects inside the face (its Voronoi region), gap >= -depth_tolerance (delta, the
 * code's 0.0025); otherwise the point must lie above the surface that descends at `angle`
 * (phi, the code's 0.4 rad) from the nearest boundary point of the face (gap >= -D sin(phi),
 * D the distance to that point) and project within proximity past the boundary. */
bool tch_features_vertex_face_feasible(const tch_features* f, tch_transform pose, int face,
                                       tch_vec3 point, tch_real proximity,
                                       tch_real depth_tolerance, tch_real angle);
