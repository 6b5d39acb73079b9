/* Intersection of two convex polyhedra by half-space clipping or by Muller and Preparata's
 * dual transform (see polyhedron.h for the two methods and the tolerance).
 *
 * Clipping keeps P as vertices and face loops. One cut by the plane n.x = offset:
 *
 *     distances s_i = n.v_i - offset     (|s| <= tol: on the plane)
 *     no s_i > tol  -> P unchanged       no s_i < -tol -> P empty (at most touching)
 *     else: every face loop keeps its vertices with s <= tol and gains the point where an edge
 *           crosses from s < -tol to s > tol (one point per edge, shared by its two faces);
 *           the points on the plane (new ones and kept vertices with |s| <= tol) are welded
 *           within tol and sorted by angle about their centroid into the cap face, CCW about n.
 *
 * The dual method hulls the dual points with qhull's default merging of coplanar facets, so a
 * vertex of P where more than three planes meet comes out once; each vertex is recomputed from
 * three of its planes (the best-conditioned triple) rather than from qhull's averaged facet
 * plane, which keeps the two methods equal to rounding.
 */
#define _POSIX_C_SOURCE 200809L

#include "collision/polyhedron.h"

#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "collision/contact_plane.h"
#include "geometry/hull.h"
#include "math/vec.h"

/* A face plane in A's frame and where it came from. */
typedef struct plane {
    tch_vec3 n;
    tch_real offset;
    unsigned char owner;
    int source;
} plane;

/* One edge (u, w) of the running P cut by the plane, and the new vertex on it. */
typedef struct cut_point {
    int u, w, index;
} cut_point;

typedef struct angle_index {
    tch_real angle;
    int index;
} angle_index;

struct tch_polyhedron_scratch {
    tch_polyhedron other; /* the ping-pong buffer of the clipping */
    tch_real* distance; /* [vertices of the running P] signed distance to the cutting plane */
    int distance_capacity;
    signed char* side; /* [vertices of a P being cut] -1 inside, +1 outside, 0 on the plane */
    int side_capacity;
    int orphans; /* a cut may have left vertices that no face uses (a face dropped, a weld) */
    int* map; /* old vertex -> new vertex, then the welding map */
    int map_capacity;
    cut_point* cuts;
    int cut_capacity;
    angle_index* cap;
    int cap_capacity;
    plane* planes;
    int plane_capacity;
};

static tch_status out_of_memory(tch_error* err) {
    return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                    "out of memory while intersecting two convex polyhedra");
}

/* ---- storage ---- */

static int resize(void** array, int count, size_t size) {
    void* bigger = realloc(*array, (size_t)count * size);
    if (!bigger) {
        return -1;
    }
    *array = bigger;
    return 0;
}

/* Makes *array hold at least `needed` elements of `size` bytes; 0 on success. */
static int grow(void** array, int* capacity, int needed, size_t size) {
    if (needed <= *capacity) {
        return 0;
    }
    const int next = needed + needed / 2 + 8;
    if (resize(array, next, size)) {
        return -1;
    }
    *capacity = next;
    return 0;
}

static int reserve(tch_polyhedron* p, int vertices, int faces, int corners) {
    if (grow((void**)&p->vertices_A, &p->vertex_capacity, vertices, sizeof *p->vertices_A) ||
        grow((void**)&p->face_vertices, &p->corner_capacity, corners, sizeof *p->face_vertices)) {
        return -1;
    }
    if (faces + 1 <= p->face_capacity) {
        return 0;
    }
    const int next = faces + faces / 2 + 8;
    if (resize((void**)&p->face_start, next, sizeof *p->face_start) ||
        resize((void**)&p->face_normals_A, next, sizeof *p->face_normals_A) ||
        resize((void**)&p->face_offsets, next, sizeof *p->face_offsets) ||
        resize((void**)&p->face_owner, next, sizeof *p->face_owner) ||
        resize((void**)&p->face_source, next, sizeof *p->face_source)) {
        return -1;
    }
    p->face_capacity = next;
    return 0;
}

static void clear(tch_polyhedron* p) {
    p->vertex_count = 0;
    p->face_count = 0;
    if (p->face_start) {
        p->face_start[0] = 0;
    }
}

static int corner_count(const tch_polyhedron* p) {
    return p->face_count > 0 ? p->face_start[p->face_count] : 0;
}

/* Appends a face whose loop was written at the end of face_vertices (`length` indices). */
static void commit_face(tch_polyhedron* p, int length, const plane* pl) {
    const int f = p->face_count++;
    p->face_start[f + 1] = p->face_start[f] + length;
    p->face_normals_A[f] = pl->n;
    p->face_offsets[f] = pl->offset;
    p->face_owner[f] = pl->owner;
    p->face_source[f] = pl->source;
}

static plane face_plane(const tch_polyhedron* p, int f) {
    return (plane){p->face_normals_A[f], p->face_offsets[f], p->face_owner[f], p->face_source[f]};
}

void tch_polyhedron_init(tch_polyhedron* p) {
    memset(p, 0, sizeof *p);
}

static void free_arrays(tch_polyhedron* p) {
    free(p->vertices_A);
    free(p->face_start);
    free(p->face_vertices);
    free(p->face_normals_A);
    free(p->face_offsets);
    free(p->face_owner);
    free(p->face_source);
}

void tch_polyhedron_free(tch_polyhedron* p) {
    if (!p) {
        return;
    }
    struct tch_polyhedron_scratch* s = p->scratch;
    if (s) {
        free_arrays(&s->other);
        free(s->distance);
        free(s->side);
        free(s->map);
        free(s->cuts);
        free(s->cap);
        free(s->planes);
        free(s);
    }
    free_arrays(p);
    memset(p, 0, sizeof *p);
}

/* Exchanges the contents of two polyhedra, each keeping its own scratch pointer. */
static void swap_contents(tch_polyhedron* x, tch_polyhedron* y) {
    tch_polyhedron t = *x;
    *x = *y;
    *y = t;
    struct tch_polyhedron_scratch* s = x->scratch;
    x->scratch = y->scratch;
    y->scratch = s;
}

/* ---- hull checks ---- */

tch_real tch_polyhedron_hull_radius(const tch_convex_hull* hull) {
    tch_real r2 = 0;
    for (int i = 0; i < hull->vertex_count; ++i) {
        const tch_real d2 = tch_v3_norm2(tch_v3_sub(hull->vertices_G[i], hull->centroid_G));
        r2 = d2 > r2 ? d2 : r2; /* as fmax, without its call */
    }
    return sqrt(r2);
}

static tch_status bad_hull(tch_error* err, const char* name, const char* what) {
    return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                    "convex piece %s %s; a convex piece needs at least 4 vertices and 4 faces "
                    "enclosing a volume",
                    name ? name : "", what);
}

/* The O(V + F) checks every intersection repeats: presence, counts, finite, not flat. */
static tch_status check_hull_cheap(const tch_convex_hull* hull, const char* name,
                                   tch_error* err) {
    if (!hull || !hull->vertices_G || !hull->face_start || !hull->face_vertices ||
        !hull->face_normals_G || !hull->face_offsets) {
        return bad_hull(err, name, "is missing (NULL hull or arrays)");
    }
    if (hull->vertex_count < 4 || hull->face_count < 4) {
        char what[96];
        snprintf(what, sizeof what, "has %d vertices and %d faces", hull->vertex_count,
                 hull->face_count);
        return bad_hull(err, name, what);
    }
    const tch_real r = tch_polyhedron_hull_radius(hull);
    if (!isfinite(r) || !isfinite(hull->volume) || !tch_v3_isfinite(hull->centroid_G)) {
        return bad_hull(err, name, "has non-finite vertices, volume or centroid");
    }
    if (!(hull->volume > 1e-12 * 8 * r * r * r)) {
        char what[128];
        snprintf(what, sizeof what, "is flat (volume %g for a bounding radius %g)", hull->volume,
                 r);
        return bad_hull(err, name, what);
    }
    return TCH_OK;
}

static int transform_is_finite(tch_transform X) {
    return tch_v3_isfinite(X.p) && isfinite(X.q.w) && isfinite(X.q.x) && isfinite(X.q.y) &&
           isfinite(X.q.z) && tch_q_norm(X.q) > 0.5;
}

tch_status tch_polyhedron_check_pair(const tch_convex_hull* a, const tch_convex_hull* b,
                                    tch_transform X_AB, tch_error* err) {
    tch_status status = check_hull_cheap(a, "A", err);
    if (status == TCH_OK) {
        status = check_hull_cheap(b, "B", err);
    }
    if (status == TCH_OK && !transform_is_finite(X_AB)) {
        status = tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                          "the pose X_AB of piece B is not finite or its quaternion is not unit");
    }
    return status;
}

static tch_status check_face_loops(const tch_convex_hull* hull, const char* name,
                                   tch_error* err) {
    char what[160];
    for (int f = 0; f < hull->face_count; ++f) {
        const int start = hull->face_start[f], end = hull->face_start[f + 1];
        if (start < 0 || end - start < 3) {
            snprintf(what, sizeof what, "has face %d with %d vertices", f, end - start);
            return bad_hull(err, name, what);
        }
        for (int k = start; k < end; ++k) {
            if (hull->face_vertices[k] < 0 || hull->face_vertices[k] >= hull->vertex_count) {
                snprintf(what, sizeof what, "has face %d referring to vertex %d of %d", f,
                         hull->face_vertices[k], hull->vertex_count);
                return bad_hull(err, name, what);
            }
        }
        if (!(fabs(tch_v3_norm(hull->face_normals_G[f]) - 1) < 1e-6) ||
            !isfinite(hull->face_offsets[f])) {
            snprintf(what, sizeof what, "has face %d without a finite unit normal", f);
            return bad_hull(err, name, what);
        }
    }
    return TCH_OK;
}

tch_status tch_polyhedron_check_hull(const tch_convex_hull* hull, const char* name,
                                     tch_error* err) {
    tch_status status = check_hull_cheap(hull, name, err);
    if (status == TCH_OK) {
        status = check_face_loops(hull, name, err);
    }
    if (status != TCH_OK) {
        return status;
    }
    /* faces merged by tch_hull_build may bend by its coplanar tolerance */
    const tch_real tol = 10 * TCH_HULL_COPLANAR_TOLERANCE * 2 * tch_polyhedron_hull_radius(hull);
    for (int f = 0; f < hull->face_count; ++f) {
        for (int i = 0; i < hull->vertex_count; ++i) {
            const tch_real s =
                tch_v3_dot(hull->face_normals_G[f], hull->vertices_G[i]) - hull->face_offsets[f];
            if (s > tol) {
                return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                                "convex piece %s is not convex: vertex %d lies %g outside the "
                                "plane of face %d (tolerance %g); split it into convex pieces",
                                name ? name : "", i, s, f, tol);
            }
        }
        for (int k = hull->face_start[f]; k < hull->face_start[f + 1]; ++k) {
            const int i = hull->face_vertices[k];
            const tch_real s =
                tch_v3_dot(hull->face_normals_G[f], hull->vertices_G[i]) - hull->face_offsets[f];
            if (s < -tol) {
                return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                                "convex piece %s has face %d whose vertex %d lies %g off the "
                                "face's plane (tolerance %g)",
                                name ? name : "", f, i, s, tol);
            }
        }
    }
    return TCH_OK;
}

/* ---- clipping ---- */

static struct tch_polyhedron_scratch* scratch_of(tch_polyhedron* p) {
    if (!p->scratch) {
        p->scratch = calloc(1, sizeof *p->scratch);
    }
    return p->scratch;
}

/* A hull's pose in A's frame with its rotation as a matrix: cheaper than the quaternion for
 * the many normals and vertices one pair places. */
typedef struct placement {
    tch_mat3 R;
    tch_vec3 p;
} placement;

static placement placement_of(tch_transform X_AH) {
    return (placement){tch_q_to_mat3(X_AH.q), X_AH.p};
}

/* Face f of hull h (owner `owner`) as a plane in A's frame, h placed at X_AH:
 * n_A = R_AH n_H, offset_A = offset_H + n_A . p_AH. */
static plane placed_plane(const tch_convex_hull* h, const placement* X_AH, int f, int owner) {
    const tch_vec3 n = tch_m3_mul_v3(X_AH->R, h->face_normals_G[f]);
    return (plane){n, h->face_offsets[f] + tch_v3_dot(n, X_AH->p), owner, f};
}

/* p = hull h placed at X_AH in A's frame, its faces tagged `owner` (A's are copied as they
 * are). */
static int load_hull(tch_polyhedron* p, const tch_convex_hull* h, const placement* X_AH,
                     int owner) {
    const int corners = h->face_start[h->face_count];
    if (reserve(p, h->vertex_count, h->face_count, corners)) {
        return -1;
    }
    clear(p);
    for (int i = 0; i < h->vertex_count; ++i) {
        p->vertices_A[i] =
            owner == TCH_FACE_OWNER_A
                ? h->vertices_G[i]
                : tch_v3_add(tch_m3_mul_v3(X_AH->R, h->vertices_G[i]), X_AH->p);
    }
    p->vertex_count = h->vertex_count;
    memcpy(p->face_vertices, h->face_vertices, (size_t)corners * sizeof *p->face_vertices);
    for (int f = 0; f < h->face_count; ++f) {
        p->face_start[f] = h->face_start[f];
        const plane pl = owner == TCH_FACE_OWNER_A
                             ? (plane){h->face_normals_G[f], h->face_offsets[f], owner, f}
                             : placed_plane(h, X_AH, f, owner);
        commit_face(p, h->face_start[f + 1] - h->face_start[f], &pl);
    }
    return 0;
}

/* Index of the new vertex on edge (u, w), created on first use. */
static int cut_vertex(const tch_polyhedron* in, tch_polyhedron* out,
                      struct tch_polyhedron_scratch* s, int* cut_count, int u, int w) {
    const int lo = u < w ? u : w, hi = u < w ? w : u;
    for (int i = 0; i < *cut_count; ++i) {
        if (s->cuts[i].u == lo && s->cuts[i].w == hi) {
            return s->cuts[i].index;
        }
    }
    /* interpolate from the lower index so that both faces would compute the same point */
    const tch_real t = s->distance[lo] / (s->distance[lo] - s->distance[hi]);
    const int index = out->vertex_count++;
    out->vertices_A[index] = tch_v3_lerp(in->vertices_A[lo], in->vertices_A[hi], t);
    s->cuts[(*cut_count)++] = (cut_point){lo, hi, index};
    return index;
}

/* Whether edge (u, w) goes from one side of the plane to the other (sides -1, 0, +1 from
 * `measure`; 0 is on the plane). */
static int crosses(const signed char* side, int u, int w) {
    return side[u] * side[w] < 0;
}

/* Cuts every face loop of `in` into `out`; returns the number of cut points. */
static int clip_faces(const tch_polyhedron* in, tch_polyhedron* out,
                      struct tch_polyhedron_scratch* s) {
    int cut_count = 0;
    for (int f = 0; f < in->face_count; ++f) {
        const int start = in->face_start[f], length = in->face_start[f + 1] - start;
        const int* loop = in->face_vertices + start;
        int* written = out->face_vertices + out->face_start[out->face_count];
        int count = 0;
        for (int k = 0; k < length; ++k) {
            const int u = loop[k], w = loop[k + 1 < length ? k + 1 : 0];
            if (s->map[u] >= 0) {
                written[count++] = s->map[u];
            }
            if (crosses(s->side, u, w)) {
                written[count++] = cut_vertex(in, out, s, &cut_count, u, w);
            }
        }
        if (count >= 3) {
            const plane pl = face_plane(in, f);
            commit_face(out, count, &pl);
        } else if (count > 0) {
            s->orphans = 1; /* its kept vertices may be in no other face */
        }
    }
    return cut_count;
}

/* Rewrites the face loops through `weld`, dropping repeated neighbours and faces left with
 * fewer than 3 vertices (loops only shrink, so it works in place). */
static void remap_faces(tch_polyhedron* p, const int* weld) {
    int write = 0, faces = 0;
    for (int f = 0; f < p->face_count; ++f) {
        const int start = p->face_start[f], end = p->face_start[f + 1];
        const int first = write;
        for (int k = start; k < end; ++k) {
            const int v = weld[p->face_vertices[k]];
            if (write == first || p->face_vertices[write - 1] != v) {
                p->face_vertices[write++] = v;
            }
        }
        while (write - first > 1 && p->face_vertices[write - 1] == p->face_vertices[first]) {
            --write;
        }
        if (write - first >= 3) {
            p->face_normals_A[faces] = p->face_normals_A[f];
            p->face_offsets[faces] = p->face_offsets[f];
            p->face_owner[faces] = p->face_owner[f];
            p->face_source[faces] = p->face_source[f];
            p->face_start[faces] = first;
            p->face_start[++faces] = write;
        } else {
            write = first;
        }
    }
    p->face_count = faces;
    p->face_start[faces] = write;
}

/* Welds the cap points (indices in s->cap[0..count)) closer than tol; returns the number of
 * distinct ones, compacted to the front of s->cap. `weld` has out->vertex_count entries. */
static int weld_cap(tch_polyhedron* out, struct tch_polyhedron_scratch* s, int count, int* weld,
                    tch_real tol) {
    int distinct = 0, merged = 0;
    for (int i = 0; i < count; ++i) {
        const int v = s->cap[i].index;
        int keep = 1;
        for (int j = 0; j < distinct && keep; ++j) {
            const int u = s->cap[j].index;
            if (tch_v3_norm2(tch_v3_sub(out->vertices_A[u], out->vertices_A[v])) <= tol * tol) {
                for (int k = 0; k < out->vertex_count && !merged; ++k) {
                    weld[k] = k; /* the identity, filled at the first weld */
                }
                weld[v] = u;
                keep = 0;
                merged = 1;
            }
        }
        if (keep) {
            s->cap[distinct++].index = v;
        }
    }
    if (merged) {
        remap_faces(out, weld);
        s->orphans = 1;
    }
    return distinct;
}

/* A pseudo-angle of (x, y) in (-2, 2], increasing with atan2(y, x) over (-π, π] (the same
 * cut on the negative x axis): |y| / (|x| + |y|) per quadrant, without atan2's cost. */
static tch_real pseudo_angle(tch_real x, tch_real y) {
    const tch_real length = fabs(x) + fabs(y);
    if (!(length > 0)) {
        return 0; /* as atan2(0, 0) */
    }
    const tch_real ratio = y / length;
    return x >= 0 ? ratio : (y >= 0 ? 2 - ratio : -2 - ratio);
}

/* Sorts the cap points by angle (insertion sort: a cap has a few points). */
static void sort_by_angle(angle_index* cap, int count) {
    for (int i = 1; i < count; ++i) {
        const angle_index key = cap[i];
        int j = i - 1;
        while (j >= 0 && cap[j].angle > key.angle) {
            cap[j + 1] = cap[j];
            --j;
        }
        cap[j + 1] = key;
    }
}

/* Adds the cap face on the cutting plane: its points sorted by angle, CCW about n. */
static void add_cap(tch_polyhedron* out, struct tch_polyhedron_scratch* s, int count,
                    const plane* pl) {
    if (count < 3) {
        return;
    }
    tch_vec3 c = tch_v3_zero();
    for (int i = 0; i < count; ++i) {
        c = tch_v3_add(c, out->vertices_A[s->cap[i].index]);
    }
    c = tch_v3_scale(c, 1.0 / count);
    tch_vec3 t1, t2;
    tch_v3_basis(pl->n, &t1, &t2);
    for (int i = 0; i < count; ++i) {
        const tch_vec3 r = tch_v3_sub(out->vertices_A[s->cap[i].index], c);
        s->cap[i].angle = pseudo_angle(tch_v3_dot(r, t1), tch_v3_dot(r, t2));
    }
    sort_by_angle(s->cap, count);
    int* written = out->face_vertices + out->face_start[out->face_count];
    for (int i = 0; i < count; ++i) {
        written[i] = s->cap[i].index;
    }
    commit_face(out, count, pl);
}

/* CLIP_TOUCHING: nothing strictly inside the half-space, some vertex on its plane. */
typedef enum clip_result {
    CLIP_UNCHANGED,
    CLIP_CUT,
    CLIP_EMPTY,
    CLIP_TOUCHING,
    CLIP_NO_MEMORY
} clip_result;

/* Signed distances of in's vertices to the plane; classifies the cut (NaN distances count as
 * neither side, as the comparisons with the tolerance did). */
static clip_result measure(const tch_polyhedron* in, struct tch_polyhedron_scratch* s,
                           const plane* pl, tch_real tol) {
    tch_real lowest = INFINITY, highest = -INFINITY;
    for (int i = 0; i < in->vertex_count; ++i) {
        const tch_real d = tch_v3_dot(pl->n, in->vertices_A[i]) - pl->offset;
        s->distance[i] = d;
        lowest = d < lowest ? d : lowest;
        highest = d > highest ? d : highest;
    }
    if (!(highest > tol)) {
        return CLIP_UNCHANGED;
    }
    if (!(lowest < -tol)) {
        return lowest <= tol ? CLIP_TOUCHING : CLIP_EMPTY;
    }
    return CLIP_CUT;
}

/* One cut of `in` by the half-space n.x <= offset into `out`. With `touching`, a half-space
 * that only touches `in` cuts it down to what lies on its plane (the flat P of a touching patch,
 * its cap the same loop as the kept face); without, it leaves nothing. */
static clip_result clip_by_plane(const tch_polyhedron* in, tch_polyhedron* out,
                                 struct tch_polyhedron_scratch* s, const plane* pl,
                                 tch_real tol, int touching) {
    const int n = in->vertex_count, corners = corner_count(in);
    if (grow((void**)&s->distance, &s->distance_capacity, n, sizeof *s->distance) ||
        grow((void**)&s->side, &s->side_capacity, n, sizeof *s->side)) {
        return CLIP_NO_MEMORY;
    }
    const clip_result result = measure(in, s, pl, tol);
    if (result == CLIP_TOUCHING && !touching) {
        return CLIP_EMPTY;
    }
    if (result != CLIP_CUT && result != CLIP_TOUCHING) {
        return result;
    }
    /* out gains at most one vertex per edge, each face at most one corner, plus the cap */
    if (grow((void**)&s->map, &s->map_capacity, n + corners, sizeof *s->map) ||
        grow((void**)&s->cuts, &s->cut_capacity, corners, sizeof *s->cuts) ||
        grow((void**)&s->cap, &s->cap_capacity, n + corners, sizeof *s->cap) ||
        reserve(out, n + corners, in->face_count + 1, 2 * corners + in->face_count + n)) {
        return CLIP_NO_MEMORY;
    }
    clear(out);
    for (int i = 0; i < n; ++i) {
        s->side[i] = (signed char)((s->distance[i] > tol) - (s->distance[i] < -tol));
        s->map[i] = s->distance[i] <= tol ? out->vertex_count++ : -1;
        if (s->map[i] >= 0) {
            out->vertices_A[s->map[i]] = in->vertices_A[i];
        }
    }
    const int cut_count = clip_faces(in, out, s);
    int cap_count = 0;
    for (int i = 0; i < n; ++i) {
        if (s->map[i] >= 0 && s->distance[i] >= -tol) {
            s->cap[cap_count++].index = s->map[i];
        }
    }
    for (int i = 0; i < cut_count; ++i) {
        s->cap[cap_count++].index = s->cuts[i].index;
    }
    /* s->map is free again: reuse it as the welding map over out's vertices */
    cap_count = weld_cap(out, s, cap_count, s->map, tol);
    add_cap(out, s, cap_count, pl);
    return CLIP_CUT;
}

/* Drops vertices no face uses and renumbers the loops (map: scratch of vertex_count ints). */
static void compact_vertices(tch_polyhedron* p, int* map) {
    for (int i = 0; i < p->vertex_count; ++i) {
        map[i] = -1;
    }
    const int corners = corner_count(p);
    for (int k = 0; k < corners; ++k) {
        map[p->face_vertices[k]] = 0;
    }
    int count = 0;
    for (int i = 0; i < p->vertex_count; ++i) {
        if (map[i] == 0) {
            map[i] = count;
            p->vertices_A[count++] = p->vertices_A[i];
        }
    }
    for (int k = 0; k < corners; ++k) {
        p->face_vertices[k] = map[p->face_vertices[k]];
    }
    p->vertex_count = count;
}

tch_real tch_polyhedron_pair_size(const tch_convex_hull* a, const tch_convex_hull* b) {
    return fmax(tch_polyhedron_hull_radius(a), tch_polyhedron_hull_radius(b));
}


/* Clipping starts from the piece with more faces and cuts it by the other's face planes: the
 * planes of the smaller piece (a box, a plane's half-space box) mostly leave the larger one
 * whole, which `measure` sees in O(V), while each plane of a finely faceted piece would cut a
 * box (a spinning top on the floor: about 98 cuts a step against 1). Of two pieces with as
 * many faces it starts from the one of smaller volume (A on a tie), whose whole the larger
 * one's planes miss more often: a box on a plane's half-space box is one cut, by the plane,
 * where starting from the half-space box took five (pile_100: 3.1 cuts per pair before, the
 * floor pairs 14% of them). Same P either way, to round-off. */
static tch_status clip(const tch_convex_hull* a, const tch_convex_hull* b, tch_transform X_AB,
                       tch_real size, int touching, tch_polyhedron* out, tch_error* err) {
    clear(out);
    struct tch_polyhedron_scratch* s = scratch_of(out);
    const int start_from_b = b->face_count > a->face_count ||
                             (b->face_count == a->face_count && b->volume < a->volume);
    const tch_convex_hull* loaded = start_from_b ? b : a;
    const tch_convex_hull* cutter = start_from_b ? a : b;
    const placement X_AB_placed = placement_of(X_AB);
    const placement X_AC = start_from_b ? placement_of(tch_x_identity()) : X_AB_placed;
    const int cutter_owner = start_from_b ? TCH_FACE_OWNER_A : TCH_FACE_OWNER_B;
    if (!s || load_hull(out, loaded, &X_AB_placed,
                        start_from_b ? TCH_FACE_OWNER_B : TCH_FACE_OWNER_A)) {
        return out_of_memory(err);
    }
    const tch_real tol = TCH_POLYHEDRON_TOLERANCE * size;
    s->orphans = 0;
    tch_polyhedron* current = out;
    tch_polyhedron* next = &s->other;
    clip_result result = CLIP_UNCHANGED;
    for (int f = 0; f < cutter->face_count && result != CLIP_EMPTY; ++f) {
        const plane pl = placed_plane(cutter, &X_AC, f, cutter_owner);
        result = clip_by_plane(current, next, s, &pl, tol, touching);
        if (result == CLIP_NO_MEMORY) {
            return out_of_memory(err);
        }
        if (result == CLIP_CUT || result == CLIP_TOUCHING) {
            tch_polyhedron* t = current;
            current = next;
            next = t;
        }
    }
    if (current != out) {
        swap_contents(out, current);
    }
    /* a solid P has 4 faces or more, a flat one (touching) 2 */
    if (result == CLIP_EMPTY || out->face_count < (touching ? 2 : 4)) {
        clear(out);
        return TCH_OK;
    }
    if (!s->orphans) {
        return TCH_OK; /* cuts add only vertices that faces use */
    }
    if (grow((void**)&s->map, &s->map_capacity, out->vertex_count, sizeof *s->map)) {
        return out_of_memory(err);
    }
    compact_vertices(out, s->map);
    return TCH_OK;
}

tch_status tch_polyhedron_clip(const tch_convex_hull* a, const tch_convex_hull* b,
                               tch_transform X_AB, tch_real size, tch_polyhedron* out,
                               tch_error* err) {
    return clip(a, b, X_AB, size, 0, out, err);
}

tch_status tch_polyhedron_clip_touching(const tch_convex_hull* a, const tch_convex_hull* b,
                                        tch_transform X_AB, tch_real size, tch_polyhedron* out,
                                        tch_error* err) {
    return clip(a, b, X_AB, size, 1, out, err);
}

/* ---- dual transform ---- */

/* All face planes of A and B in A's frame, A's first. */
static plane* gather_planes(const tch_convex_hull* a, const tch_convex_hull* b,
                            tch_transform X_AB, struct tch_polyhedron_scratch* s) {
    const int count = a->face_count + b->face_count;
    if (grow((void**)&s->planes, &s->plane_capacity, count, sizeof *s->planes)) {
        return NULL;
    }
    for (int f = 0; f < a->face_count; ++f) {
        s->planes[f] = (plane){a->face_normals_G[f], a->face_offsets[f], TCH_FACE_OWNER_A, f};
    }
    const placement X_AB_placed = placement_of(X_AB);
    for (int f = 0; f < b->face_count; ++f) {
        s->planes[a->face_count + f] = placed_plane(b, &X_AB_placed, f, TCH_FACE_OWNER_B);
    }
    return s->planes;
}

/* Dual points y_f = size n_f / delta_f (dimensionless), delta_f = offset_f - n_f . o. */
static tch_status dual_points(const plane* planes, int count, tch_vec3 o, tch_real size,
                              coordT* coords, tch_error* err) {
    for (int f = 0; f < count; ++f) {
        const tch_real delta = planes[f].offset - tch_v3_dot(planes[f].n, o);
        if (!(delta > TCH_POLYHEDRON_INTERIOR_MARGIN * size)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "the interior point (%g %g %g) of the dual method is %g from face %d "
                            "of piece %c; it must be inside both pieces by at least %g",
                            o.x, o.y, o.z, delta, planes[f].source,
                            planes[f].owner == TCH_FACE_OWNER_A ? 'A' : 'B',
                            TCH_POLYHEDRON_INTERIOR_MARGIN * size);
        }
        const tch_vec3 y = tch_v3_scale(planes[f].n, size / delta);
        coords[3 * f] = y.x;
        coords[3 * f + 1] = y.y;
        coords[3 * f + 2] = y.z;
    }
    return TCH_OK;
}

static tch_vec3 point_of(const vertexT* vertex) {
    return tch_v3(vertex->point[0], vertex->point[1], vertex->point[2]);
}

/* The vertex of P dual to a hull facet: the meeting point of the planes of three of its
 * vertices, y1, y2, y3 (the best-conditioned triple: the first, the farthest from it, the
 * farthest from their line). The plane through them is N.y = D with N = y1 x y2 + y2 x y3 +
 * y3 x y1 and D = det(y1, y2, y3); the vertex is o + size N / D. */
static tch_vec3 facet_vertex(qhT* qh, const facetT* facet, tch_vec3 o, tch_real size) {
    const int k = qh_setsize(qh, facet->vertices);
    const tch_vec3 y1 = point_of(facet->vertices->e[0].p);
    tch_vec3 y2 = y1, y3 = y1;
    tch_real best = -1;
    for (int i = 1; i < k; ++i) {
        const tch_vec3 y = point_of(facet->vertices->e[i].p);
        if (tch_v3_dist(y, y1) > best) {
            best = tch_v3_dist(y, y1);
            y2 = y;
        }
    }
    best = -1;
    for (int i = 1; i < k; ++i) {
        const tch_vec3 y = point_of(facet->vertices->e[i].p);
        const tch_real area = tch_v3_norm(tch_v3_cross(tch_v3_sub(y2, y1), tch_v3_sub(y, y1)));
        if (area > best) {
            best = area;
            y3 = y;
        }
    }
    const tch_vec3 N = tch_v3_add(tch_v3_add(tch_v3_cross(y1, y2), tch_v3_cross(y2, y3)),
                                  tch_v3_cross(y3, y1));
    const tch_real D = tch_v3_dot(y1, tch_v3_cross(y2, y3));
    return tch_v3_madd(o, size / D, N);
}

/* Newell's normal of a loop of P's vertices (twice the area vector). */
static tch_vec3 loop_area_vector(const tch_vec3* v, const int* loop, int length) {
    tch_vec3 n = tch_v3_zero();
    for (int i = 0; i < length; ++i) {
        n = tch_v3_add(n, tch_v3_cross(v[loop[i]], v[loop[(i + 1) % length]]));
    }
    return n;
}

/* Reads P off qhull's hull of the dual points: a vertex per facet, a face per hull vertex. */
static tch_status read_dual_hull(qhT* qh, const plane* planes, tch_vec3 o, tch_real size,
                                 tch_polyhedron* out, tch_error* err) {
    int facet_count = 0, corners = 0, hull_vertices = 0;
    facetT* facet;
    vertexT* vertex;
    FORALLfacets {
        ++facet_count;
        corners += qh_setsize(qh, facet->vertices);
    }
    FORALLvertices {
        ++hull_vertices;
    }
    int* index_of_facet = malloc((size_t)(qh->facet_id + 1) * sizeof *index_of_facet);
    if (!index_of_facet || reserve(out, facet_count, hull_vertices, corners)) {
        free(index_of_facet);
        return out_of_memory(err);
    }
    clear(out);
    FORALLfacets {
        index_of_facet[facet->id] = out->vertex_count;
        out->vertices_A[out->vertex_count++] = facet_vertex(qh, facet, o, size);
    }
    qh_vertexneighbors(qh);
    FORALLvertices {
        qh_order_vertexneighbors(qh, vertex);
        int* loop = out->face_vertices + out->face_start[out->face_count];
        int length = 0;
        facetT *neighbor, **neighborp;
        FOREACHneighbor_(vertex) {
            loop[length++] = index_of_facet[neighbor->id];
        }
        const plane* pl = &planes[qh_pointid(qh, vertex->point)];
        if (tch_v3_dot(loop_area_vector(out->vertices_A, loop, length), pl->n) < 0) {
            for (int i = 0, j = length - 1; i < j; ++i, --j) {
                const int t = loop[i];
                loop[i] = loop[j];
                loop[j] = t;
            }
        }
        commit_face(out, length, pl);
    }
    free(index_of_facet);
    return TCH_OK;
}

static tch_status qhull_failed(int code, FILE* errors, char* messages, tch_error* err) {
    fflush(errors);
    const char* text = messages && *messages ? messages : "no details";
    const int length = (int)strcspn(text, "\n");
    if (code == qh_ERRmem) {
        return out_of_memory(err);
    }
    return tch_fail(err, TCH_ERR_NUMERICAL, NULL, 0,
                    "qhull could not hull the dual points of the two pieces (code %d): %.*s",
                    code, length > 200 ? 200 : length, text);
}

static tch_status hull_dual_points(const plane* planes, int count, coordT* coords, tch_vec3 o,
                                   tch_real size, tch_polyhedron* out, tch_error* err) {
    char* messages = NULL;
    size_t messages_size = 0;
    FILE* errors = open_memstream(&messages, &messages_size);
    if (!errors) {
        return out_of_memory(err);
    }
    char command[] = "qhull";
    qhT qh_storage;
    qhT* qh = &qh_storage;
    qh_zero(qh, errors);
    const int code = qh_new_qhull(qh, 3, count, coords, False, command, NULL, errors);
    const tch_status status = code == 0 ? read_dual_hull(qh, planes, o, size, out, err)
                                        : qhull_failed(code, errors, messages, err);
    int current_long = 0, total_long = 0;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &current_long, &total_long);
    fclose(errors);
    free(messages);
    return status;
}

static tch_status dual_intersect(const tch_convex_hull* a, const tch_convex_hull* b,
                                 tch_transform X_AB, tch_vec3 o_A, tch_polyhedron* out,
                                 tch_error* err) {
    struct tch_polyhedron_scratch* s = scratch_of(out);
    const plane* planes = s ? gather_planes(a, b, X_AB, s) : NULL;
    const int count = a->face_count + b->face_count;
    coordT* coords = malloc((size_t)count * 3 * sizeof *coords);
    if (!planes || !coords) {
        free(coords);
        return out_of_memory(err);
    }
    const tch_real size = tch_polyhedron_pair_size(a, b);
    tch_status status = dual_points(planes, count, o_A, size, coords, err);
    if (status == TCH_OK) {
        status = hull_dual_points(planes, count, coords, o_A, size, out, err);
    }
    free(coords);
    return status;
}

tch_status tch_polyhedron_intersect_dual(const tch_convex_hull* a, const tch_convex_hull* b,
                                         tch_transform X_AB, tch_vec3 o_A, tch_polyhedron* out,
                                         tch_error* err) {
    clear(out);
    tch_status status = tch_polyhedron_check_pair(a, b, X_AB, err);
    if (status == TCH_OK && !tch_v3_isfinite(o_A)) {
        status = tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                          "the interior point of the dual method is not finite");
    }
    return status == TCH_OK ? dual_intersect(a, b, X_AB, o_A, out, err) : status;
}

/* Smallest distance of o inside the face planes of both pieces (negative when outside). */
static tch_real interior_margin(const tch_convex_hull* a, const tch_convex_hull* b,
                                tch_transform X_AB, tch_vec3 o_A) {
    tch_real margin = INFINITY;
    for (int f = 0; f < a->face_count; ++f) {
        margin = fmin(margin, a->face_offsets[f] - tch_v3_dot(a->face_normals_G[f], o_A));
    }
    const tch_vec3 o_B = tch_x_apply_inverse(X_AB, o_A);
    for (int f = 0; f < b->face_count; ++f) {
        margin = fmin(margin, b->face_offsets[f] - tch_v3_dot(b->face_normals_G[f], o_B));
    }
    return margin;
}

static tch_vec3 vertex_average(const tch_polyhedron* p) {
    tch_vec3 sum = tch_v3_zero();
    for (int i = 0; i < p->vertex_count; ++i) {
        sum = tch_v3_add(sum, p->vertices_A[i]);
    }
    return tch_v3_scale(sum, 1.0 / (p->vertex_count > 0 ? p->vertex_count : 1));
}

/* The dual method with its interior point from libccd, or from the clipped P (see .h). */
static tch_status dual_with_common_point(const tch_convex_hull* a, const tch_convex_hull* b,
                                         tch_transform X_AB, tch_polyhedron* out,
                                         tch_error* err) {
    tch_vec3 o_A;
    if (!tch_contact_common_point(a, b, X_AB, &o_A)) {
        clear(out);
        return TCH_OK;
    }
    const tch_real needed = TCH_POLYHEDRON_INTERIOR_MARGIN * tch_polyhedron_pair_size(a, b);
    if (!(interior_margin(a, b, X_AB, o_A) > needed)) {
        const tch_status status =
            tch_polyhedron_clip(a, b, X_AB, tch_polyhedron_pair_size(a, b), out, err);
        if (status != TCH_OK || out->face_count == 0) {
            return status;
        }
        o_A = vertex_average(out);
        if (!(interior_margin(a, b, X_AB, o_A) > needed)) {
            clear(out); /* thinner than the margin: as good as touching */
            return TCH_OK;
        }
    }
    return dual_intersect(a, b, X_AB, o_A, out, err);
}

tch_status tch_polyhedron_intersect(const tch_convex_hull* a, const tch_convex_hull* b,
                                    tch_transform X_AB, tch_polyhedron_method method,
                                    tch_polyhedron* out, tch_error* err) {
    clear(out);
    const tch_status status = tch_polyhedron_check_pair(a, b, X_AB, err);
    if (status != TCH_OK) {
        return status;
    }
    X_AB.q = tch_q_normalize(X_AB.q);
    if (method == TCH_POLYHEDRON_DUAL) {
        return dual_with_common_point(a, b, X_AB, out, err);
    }
    if (method != TCH_POLYHEDRON_DEFAULT && method != TCH_POLYHEDRON_CLIP) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "unknown polyhedron intersection method %d; expected clip (1) or dual (2)",
                        (int)method);
    }
    return tch_polyhedron_clip(a, b, X_AB, tch_polyhedron_pair_size(a, b), out, err);
}

/* ---- volume ---- */

void tch_polyhedron_volume_centroid(const tch_polyhedron* p, tch_real* volume,
                                    tch_vec3* centroid_A) {
    const tch_vec3 apex = vertex_average(p);
    tch_real v = 0;
    tch_vec3 first = tch_v3_zero();
    for (int f = 0; f < p->face_count; ++f) {
        const int* loop = p->face_vertices + p->face_start[f];
        const int length = p->face_start[f + 1] - p->face_start[f];
        const tch_vec3 q0 = tch_v3_sub(p->vertices_A[loop[0]], apex);
        for (int i = 1; i + 1 < length; ++i) {
            const tch_vec3 q1 = tch_v3_sub(p->vertices_A[loop[i]], apex);
            const tch_vec3 q2 = tch_v3_sub(p->vertices_A[loop[i + 1]], apex);
            /* tetrahedron (apex, q0, q1, q2): volume det/6, centroid (q0 + q1 + q2)/4 */
            const tch_real dv = tch_v3_dot(q0, tch_v3_cross(q1, q2)) / 6;
            v += dv;
            first = tch_v3_madd(first, dv / 4, tch_v3_add(tch_v3_add(q0, q1), q2));
        }
    }
    *volume = v;
    *centroid_A = v > 0 ? tch_v3_madd(apex, 1 / v, first) : apex;
}

/* ---- polyhedral approximations of curved shapes ---- */

/* Points on the ellipsoid with semi-axes e, in rings of latitude (2 * rings intervals from
 * pole to pole, `around` points each), the upper half shifted by +shift along z and the lower
 * by -shift (a capsule; the equator ring is then written twice). Returns the point count. */
static int sample_ellipsoid(tch_vec3 e, int around, int rings, tch_real shift, tch_vec3* out) {
    int count = 0;
    for (int i = 0; i <= 2 * rings; ++i) {
        const tch_real polar = TCH_PI * i / (2 * rings);
        const tch_real z = cos(polar), r = sin(polar);
        const int ring_points = (i == 0 || i == 2 * rings) ? 1 : around;
        const int copies = (i == rings && shift > 0) ? 2 : 1;
        for (int c = 0; c < copies; ++c) {
            const tch_real dz = (i < rings || (i == rings && c == 0)) ? shift : -shift;
            for (int j = 0; j < ring_points; ++j) {
                const tch_real azimuth = 2 * TCH_PI * j / around;
                out[count++] = tch_v3(e.x * r * cos(azimuth), e.y * r * sin(azimuth),
                                      e.z * (i == rings ? 0 : z) + dz);
            }
        }
    }
    return count;
}

/* Two rings of `around` points at z = +-h (a cylinder), or the 8 corners of a box. */
static int sample_prism(const tch_shape* shape, int around, tch_vec3* out) {
    int count = 0;
    const int n = shape->type == TCH_GEOM_BOX ? 4 : around;
    for (int side = -1; side <= 1; side += 2) {
        for (int j = 0; j < n; ++j) {
            if (shape->type == TCH_GEOM_BOX) {
                out[count++] = tch_v3((j & 1 ? 1 : -1) * shape->size[0],
                                      (j & 2 ? 1 : -1) * shape->size[1], side * shape->size[2]);
            } else {
                const tch_real azimuth = 2 * TCH_PI * j / around;
                out[count++] = tch_v3(shape->size[0] * cos(azimuth),
                                      shape->size[0] * sin(azimuth), side * shape->size[1]);
            }
        }
    }
    return count;
}

static int sample_shape(const tch_shape* shape, int around, tch_vec3* out) {
    const int rings = around / 2 > 2 ? around / 2 : 2;
    const tch_real r = shape->size[0];
    switch (shape->type) {
    case TCH_GEOM_SPHERE:
        return sample_ellipsoid(tch_v3(r, r, r), around, rings, 0, out);
    case TCH_GEOM_CAPSULE:
        return sample_ellipsoid(tch_v3(r, r, r), around, rings, shape->size[1], out);
    case TCH_GEOM_ELLIPSOID:
        return sample_ellipsoid(tch_v3(shape->size[0], shape->size[1], shape->size[2]), around,
                                rings, 0, out);
    default:
        return sample_prism(shape, around, out);
    }
}

tch_status tch_polyhedron_approximate_shape(const tch_shape* shape, int resolution,
                                            tch_convex_hull* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    char why[160];
    if (!shape || shape->type == TCH_GEOM_PLANE) {
        return tch_fail(err, shape ? TCH_ERR_UNSUPPORTED : TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        shape ? "a plane has no polyhedral approximation (it is a half-space); "
                                "it is not supported yet by the contact-volume model"
                              : "no shape to approximate");
    }
    if (tch_shape_validate(shape, why, sizeof why) != 0) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "%s", why);
    }
    if (shape->type == TCH_GEOM_MESH) {
        return tch_hull_copy(shape->hull, out) == 0 ? TCH_OK : out_of_memory(err);
    }
    if (resolution < 3 || resolution > 4096) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "polyhedral approximation resolution must be in [3, 4096], got %d",
                        resolution);
    }
    const int rings = resolution / 2 > 2 ? resolution / 2 : 2;
    tch_vec3* points = malloc((size_t)(2 * rings + 2) * (size_t)resolution * sizeof *points);
    if (!points) {
        return out_of_memory(err);
    }
    const tch_status status = tch_hull_build(points, sample_shape(shape, resolution, points),
                                             out, err);
    free(points);
    return status;
}
