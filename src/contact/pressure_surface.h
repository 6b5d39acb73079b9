/* Contact surfaces of the pressure field model (Elandt et al. 2019, sec. VI-B, Algorithm 1,
 * appendix X-B; the math, tolerances and measured numbers are in docs/contact-pressure.md).
 *
 * Inputs are meshes in their own frames and the relative pose X_AB; every output is in A's
 * frame. Body A is always compliant: a tet mesh whose penetration extent ε gives the pressure
 * field p_A = E_A ε_A (sec. VI-A). Body B is either
 *
 *   compliant (tch_pressure_surface_compliant): another tet mesh with p_B = E_B ε_B. In each
 *     pair of overlapping tets both fields are linear, so the points of equal pressure
 *     E_A ε_A(x) = E_B ε_B(x) lie on one plane (eq. 15, Theorem 2); the piece of the contact
 *     surface is that plane ∩ tet_A ∩ tet_B;
 *   rigid (tch_pressure_surface_rigid): the limit E_B → ∞, where the equal-pressure surface is
 *     B's boundary. B is a closed triangle soup; each piece is a triangle ∩ tet_A, with the
 *     pressure p_A = E_A ε_A on it.
 *
 * Sign convention (docs/notation.md): the normal n points from A into B,
 *
 *     compliant:  n = (∇p_B - ∇p_A) / |∇p_B - ∇p_A|     (the paper's n̂ points from B to A:
 *     rigid:      n = -(outward normal of B's triangle)     ours is its negative)
 *
 * and the pressure force on B is F_B = ∫ p n dA (A receives -F_B): n points where B's pressure
 * rises and A's falls, so the force pushes B out of A.
 *
 * Each piece is a convex polygon, stored with its vertices counter-clockwise seen from the tip
 * of n, the pressure at each vertex, its normal, area and area centroid. Quadrature splits it
 * into the triangles (centroid, v_i, v_i+1) (Fig. 5): as a polygon gains or loses an edge the
 * triangle that appears or vanishes has zero area, so the wrench stays continuous (app. X-C).
 *
 * Memory: a tch_pressure_surface keeps its arrays between calls and grows them only when a
 * query needs more, so after a warm-up a query allocates nothing. Queries never print and keep
 * no global state. A query keeps the tets it has placed (field, corners, barycentric
 * coordinates, of A and of a compliant B) in a direct-mapped cache of 128 slots per body on
 * the stack of each thread that runs it (about 72 KB): the descent meets a tet with several
 * of the other body's in turns, and places it once rather than for each.
 *
 * Threads: with `workers` set (a pool of two or more threads, owned by the caller) a query
 * splits the BVH descent at a frontier of about TCH_PRESSURE_TASKS_PER_THREAD node pairs per
 * thread (tch_bvh_query_frontier), cuts the frontier into TCH_PRESSURE_PARTS_PER_THREAD
 * contiguous parts per thread that the threads take as they come free, lets each part write
 * its polygons into its own buffers and concatenates the parts in order. The polygons come out
 * in the order of the one-thread query, each computed by the same arithmetic, so the output is
 * bit-identical for every thread count. A query is small, and runs on the calling thread,
 * when its work estimate (the sum over the frontier pairs of the leaves of the smaller side)
 * is below parallel_min_work: there waking the threads costs about what they save.
 */
#pragma once

#include "geometry/bvh.h"
#include "geometry/tetmesh.h"
#include "math/vec.h"

/* Degenerate cases (docs/contact-pressure.md, "Tolerances"). A tet pair is skipped when its
 * equal-pressure plane is undefined: |∇p_A - ∇p_B| <= tol (|∇p_A| + |∇p_B|). */
#define TCH_PRESSURE_GRADIENT_TOLERANCE 1e-10
/* Consecutive polygon vertices closer than tol * L are welded, L the longest edge from the
 * first vertex of the polygon's tet of A. */
#define TCH_PRESSURE_WELD_TOLERANCE 1e-10
/* A polygon of area <= tol * L^2 (a sliver) is dropped. */
#define TCH_PRESSURE_AREA_TOLERANCE 1e-14
/* Most vertices of one polygon: a plane meets a tet in at most 4 points and each clip by one
 * of the other tet's 4 faces adds at most one. */
#define TCH_PRESSURE_MAX_POLYGON 8
/* The frontier of a threaded query: pairs sought per thread, and most pairs kept. */
#define TCH_PRESSURE_TASKS_PER_THREAD 16
#define TCH_PRESSURE_MAX_TASKS 1024
/* Parts the frontier is cut into per thread. */
#define TCH_PRESSURE_PARTS_PER_THREAD 4
/* Work estimate from which a query uses the workers (bench/pressure measures the choice). */
#define TCH_PRESSURE_PARALLEL_MIN_WORK 300

typedef struct tch_workers tch_workers;
typedef struct tch_pressure_parallel tch_pressure_parallel;

/* A compliant body. */
typedef struct tch_pressure_body {
    const tch_tetmesh* mesh; /* in the body's frame, with a field (has_field) */
    const tch_bvh* bvh;      /* over tch_tetmesh_tet_boxes(mesh), one leaf per tet */
    tch_real modulus;        /* hydroelastic modulus E, Pa, finite and > 0 */
} tch_pressure_body;

/* A rigid body's closed surface, triangles counter-clockwise seen from outside. */
typedef struct tch_rigid_surface {
    const tch_vec3* vertices_R;  /* [vertex_count] in the rigid body's frame, m */
    int vertex_count;
    const int (*triangles)[3];   /* [triangle_count] */
    int triangle_count;
    const tch_bvh* bvh;          /* over tch_pressure_triangle_boxes, one leaf per triangle */
} tch_rigid_surface;

/* One convex piece of the contact surface. */
typedef struct tch_pressure_polygon {
    int first;              /* index of its first vertex in the surface's vertex arrays */
    int count;              /* vertices, 3 .. TCH_PRESSURE_MAX_POLYGON */
    int tet_a;              /* the tet of A it lies in */
    int element_b;          /* the tet of B (compliant) or the triangle of B (rigid) */
    tch_vec3 normal_A;      /* unit, from A into B */
    tch_real area;          /* m^2 */
    tch_vec3 centroid_A;    /* area centroid, m */
    tch_real centroid_pressure; /* p at the centroid, Pa (also ∫p dA / area: p is linear) */
} tch_pressure_polygon;

/* The contact surface of one pair, in A's frame. */
typedef struct tch_pressure_surface {
    int polygon_count;
    tch_pressure_polygon* polygons;  /* [polygon_count] */
    int vertex_count;
    tch_vec3* vertices_A;            /* [vertex_count] m */
    tch_real* pressures;             /* [vertex_count] p at each vertex, Pa */
    tch_real total_area;             /* m^2 */
    tch_real max_pressure;           /* largest vertex pressure, Pa (0 when empty) */
    tch_real mean_pressure;          /* ∫p dA / total_area, Pa (0 when empty) */
    int pairs_tested;                /* element pairs the BVHs reported */
    int pairs_culled;                /* of those, pairs whose pressure ranges cannot meet */
    int frontier_pairs;              /* BVH node pairs a threaded query split at (0: none) */
    long work_estimate;              /* the threaded query's estimate of its size (0: none) */
    int parts;                       /* pieces the query ran in on the workers (1: one thread) */
    int polygon_capacity;            /* allocated lengths (grown on demand, kept) */
    int vertex_capacity;
    tch_workers* workers;            /* set by the caller: a pool to use, or NULL (borrowed) */
    long parallel_min_work;          /* 0: TCH_PRESSURE_PARALLEL_MIN_WORK */
    tch_pressure_parallel* parallel; /* the threads' buffers (made on first use, kept) */
} tch_pressure_surface;

/* An affine function f(x) = offset + gradient · x. */
typedef struct tch_linear_field {
    tch_vec3 gradient;
    tch_real offset;
} tch_linear_field;

static inline tch_real tch_linear_field_at(tch_linear_field f, tch_vec3 x) {
    return f.offset + tch_v3_dot(f.gradient, x);
}

/* A tet of a compliant body placed in another frame F by X_FG: its corners, its pressure
 * E ε as an affine function and the range of the pressure over it. */
typedef struct tch_placed_tet {
    tch_vec3 v[4];            /* corners in F */
    tch_linear_field pressure; /* p(x_F), Pa */
    tch_real pressure_min, pressure_max;
} tch_placed_tet;

/* Empty surface (no memory yet). */
void tch_pressure_surface_init(tch_pressure_surface* surface);
/* Frees the arrays and re-initializes (workers and parallel_min_work are cleared too). NULL
 * allowed. */
void tch_pressure_surface_free(tch_pressure_surface* surface);

/* TCH_ERR_INVALID_ARGUMENT unless the body has a mesh with a field, a BVH with one leaf per
 * tet and a finite modulus > 0. `name` ("A", "B") is used in the message. */
tch_status tch_pressure_body_check(const tch_pressure_body* body, const char* name,
                                   tch_error* err);
/* The same for a rigid surface: triangles, indices in range, a BVH with one leaf per
 * triangle. */
tch_status tch_rigid_surface_check(const tch_rigid_surface* surface, tch_error* err);
/* The range [min, max] of ε over the tets below each node of `bvh` (built over the mesh's tet
 * boxes), into out[bvh->node_count], for tch_pressure_surface_compliant_ranged. */
void tch_pressure_node_ranges(const tch_tetmesh* mesh, const tch_bvh* bvh, tch_real (*out)[2]);
/* Boxes of the triangles [count], for tch_bvh_build. */
void tch_pressure_triangle_boxes(const tch_vec3* vertices, const int (*triangles)[3], int count,
                                 tch_aabb* boxes);

/* The contact surface between two compliant bodies: for every pair of tets whose boxes
 * overlap under X_AB (tch_bvh_query_pairs) and whose pressure ranges meet, the equal-pressure
 * plane of eq. 15 clipped by both tets. Replaces the contents of *out (kept on failure: then
 * empty). Errors: bad bodies (tch_pressure_body_check), TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_pressure_surface_compliant(const tch_pressure_body* a, const tch_pressure_body* b,
                                          tch_transform X_AB, tch_pressure_surface* out,
                                          tch_error* err);
/* The same query given both bodies' tch_pressure_node_ranges (or NULL for either: then as
 * above): it skips every pair of BVH nodes whose pressure ranges E_A [min_A, max_A] and
 * E_B [min_B, max_B] cannot meet (the contact surface has p_A = p_B) before testing their
 * boxes. The output is the same, found sooner; pairs_tested counts the pairs left. */
tch_status tch_pressure_surface_compliant_ranged(const tch_pressure_body* a,
                                                 const tch_real (*node_epsilon_a)[2],
                                                 const tch_pressure_body* b,
                                                 const tch_real (*node_epsilon_b)[2],
                                                 tch_transform X_AB, tch_pressure_surface* out,
                                                 tch_error* err);
/* The contact surface between compliant A and rigid B (E_B infinite): B's surface triangles
 * clipped by A's tets, with p = E_A ε_A. */
tch_status tch_pressure_surface_rigid(const tch_pressure_body* a, const tch_rigid_surface* b,
                                      tch_transform X_AB, tch_pressure_surface* out,
                                      tch_error* err);

/* Triangle i (0 <= i < polygon->count) of the polygon's fan about its centroid: corners
 * x[3] = (centroid, v_i, v_i+1) and their pressures p[3]. */
void tch_pressure_fan_triangle(const tch_pressure_surface* surface,
                               const tch_pressure_polygon* polygon, int i, tch_vec3 x[3],
                               tch_real p[3]);

/* Tet t of `body` placed by X_FG (G the body's frame). @pre the body passed its check. */
void tch_pressure_place_tet(const tch_pressure_body* body, int t, tch_transform X_FG,
                            tch_placed_tet* out);
/* The barycentric coordinates of the placed tet as affine functions b[4]: b_i(x) >= 0 for all
 * i exactly inside. @pre the tet is not flat. */
void tch_placed_tet_barycentric(const tch_placed_tet* tet, tch_linear_field b[4]);
