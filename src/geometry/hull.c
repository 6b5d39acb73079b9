/* Convex hulls: qhull computes a triangulated hull ("qhull Qt"), then this file merges the
 * coplanar triangles into polygon faces and lays the result out as a tch_convex_hull.
 *
 *   points --check--> qhull (triangles, outward normals) --region growing--> groups
 *          --boundary loop per group--> faces (CCW from outside) --> dense vertices, edges,
 *          volume, centroid
 *
 * The boundary of a group is found from triangle adjacency (an edge is on the boundary when
 * the triangle across it belongs to another group), chained through its vertices and then
 * oriented by the plane normal, so the result does not depend on the orientation of
 * zero-area triangles that qhull's triangulation may emit. A group whose boundary is not one
 * simple loop (never seen on a convex hull, kept for safety) is emitted as its triangles.
 *
 * qhull reports through FILE streams; its error stream is an in-memory stream here, so the
 * library never prints, and the first line of qhull's complaint can go into the error message.
 */
#define _POSIX_C_SOURCE 200809L

#include "geometry/hull.h"

#include <libqhull_r/qhull_ra.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geometry/mesh_io.h"
#include "math/vec.h"

/* Normals of triangles merged into one face agree to cos(8 degrees). */
static const tch_real merge_normal_cosine = 0.99;

typedef struct triangle {
    int v[3];        /* input point indices */
    tch_vec3 normal; /* outward unit normal of qhull's facet */
    tch_real offset; /* normal . x = offset on the facet */
} triangle;

/* qhull's triangles and everything derived from them while merging; freed in one place. */
typedef struct builder {
    const tch_vec3* points;
    int point_count;
    tch_real tolerance; /* merge distance, m */
    int triangle_count;
    triangle* triangles;
    int* neighbors; /* [3 * triangle_count] triangle across edge (v[k], v[k+1]) or -1 */
    int* group;     /* [triangle_count] face group of each triangle */
    int group_count;
    int* members;     /* [triangle_count] triangles ordered by group, then index */
    int* group_start; /* [group_count + 1] offsets into members */
    /* faces as loops of input point indices */
    int face_count, face_capacity;
    int* face_start; /* [face_capacity + 1] */
    int loop_length, loop_capacity;
    int* loops;
} builder;

static void builder_free(builder* b) {
    free(b->triangles);
    free(b->neighbors);
    free(b->group);
    free(b->members);
    free(b->group_start);
    free(b->face_start);
    free(b->loops);
}

static tch_status out_of_memory(tch_error* err) {
    return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                    "out of memory while building a convex hull");
}

/* ---- input checks ---- */

static int farthest_from_point(const tch_vec3* p, int count, tch_vec3 a, tch_real* distance) {
    int best = 0;
    *distance = -1;
    for (int i = 0; i < count; ++i) {
        tch_real d = tch_v3_dist(p[i], a);
        if (d > *distance) {
            *distance = d;
            best = i;
        }
    }
    return best;
}

/* Farthest from the line through a with unit direction u (or, for a unit plane normal u and
 * `plane` set, from the plane through a). */
static int farthest_from_flat(const tch_vec3* p, int count, tch_vec3 a, tch_vec3 u, int plane,
                              tch_real* distance) {
    int best = 0;
    *distance = -1;
    for (int i = 0; i < count; ++i) {
        tch_vec3 r = tch_v3_sub(p[i], a);
        tch_real d = plane ? fabs(tch_v3_dot(r, u)) : tch_v3_norm(tch_v3_cross(r, u));
        if (d > *distance) {
            *distance = d;
            best = i;
        }
    }
    return best;
}

static tch_real largest_extent(const tch_vec3* p, int count) {
    tch_vec3 lo = p[0], hi = p[0];
    for (int i = 1; i < count; ++i) {
        lo = tch_v3_min(lo, p[i]);
        hi = tch_v3_max(hi, p[i]);
    }
    tch_vec3 e = tch_v3_sub(hi, lo);
    return fmax(e.x, fmax(e.y, e.z));
}

/* Finds the affine dimension through extreme points: the farthest point from p0, the
 * farthest from that line, the farthest from that plane. */
static tch_status check_spans_volume(const tch_vec3* p, int count, tch_error* err) {
    tch_real extent = largest_extent(p, count);
    tch_real tol = TCH_HULL_FLAT_TOLERANCE * extent, d1, d2, d3;
    int i1 = farthest_from_point(p, count, p[0], &d1);
    if (!(d1 > tol)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "all %d points of the convex hull coincide; a hull needs 4 points that "
                        "are not coplanar",
                        count);
    }
    tch_vec3 u = tch_v3_scale(tch_v3_sub(p[i1], p[0]), 1 / d1);
    int i2 = farthest_from_flat(p, count, p[0], u, 0, &d2);
    if (!(d2 > tol)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the %d points of the convex hull are collinear; a hull needs 4 points "
                        "that are not coplanar",
                        count);
    }
    tch_vec3 n = tch_v3_normalize(tch_v3_cross(u, tch_v3_sub(p[i2], p[0])));
    farthest_from_flat(p, count, p[0], n, 1, &d3);
    if (!(d3 > tol)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the %d points of the convex hull are coplanar (thickness %g for an "
                        "extent of %g); a hull needs 4 points that are not coplanar",
                        count, d3, extent);
    }
    return TCH_OK;
}

static tch_status check_points(const tch_vec3* points, int count, tch_error* err) {
    if (!points || count < 4) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "a convex hull needs at least 4 points, got %d", points ? count : 0);
    }
    for (int i = 0; i < count; ++i) {
        tch_vec3 magnitude = tch_v3_abs(points[i]); /* fmax ignores NaN: test finiteness */
        if (!tch_v3_isfinite(points[i]) ||
            fmax(magnitude.x, fmax(magnitude.y, magnitude.z)) > TCH_HULL_MAX_COORDINATE) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "point %d of the convex hull (%g %g %g) is not finite or beyond "
                            "%g in magnitude",
                            i, points[i].x, points[i].y, points[i].z, TCH_HULL_MAX_COORDINATE);
        }
    }
    return check_spans_volume(points, count, err);
}

/* ---- qhull ---- */

/* The first line qhull wrote to its error stream, or "no details". */
static void first_line(const char* text, char* out, size_t size) {
    const char* start = text && *text ? text : "no details";
    size_t n = strcspn(start, "\n");
    if (n >= size) {
        n = size - 1;
    }
    memcpy(out, start, n);
    out[n] = '\0';
}

static tch_status qhull_failure(int exit_code, const char* messages, tch_error* err) {
    char line[256];
    first_line(messages, line, sizeof line);
    if (exit_code == qh_ERRmem) {
        return out_of_memory(err);
    }
    tch_status status = exit_code == qh_ERRsingular || exit_code == qh_ERRprec
                            ? TCH_ERR_INVALID_ARGUMENT
                            : TCH_ERR_NUMERICAL;
    return tch_fail(err, status, NULL, 0, "qhull could not build the convex hull (code %d): %s",
                    exit_code, line);
}

/* Copies qhull's triangulated facets, each oriented counter-clockwise about its normal when
 * it has an area. */
static tch_status collect_triangles(qhT* qh, builder* b, tch_error* err) {
    facetT* facet;
    int facet_count = 0;
    FORALLfacets {
        ++facet_count;
    }
    b->triangles = malloc((size_t)facet_count * sizeof *b->triangles);
    if (!b->triangles) {
        return out_of_memory(err);
    }
    FORALLfacets {
        if (qh_setsize(qh, facet->vertices) != 3) {
            return tch_fail(err, TCH_ERR_NUMERICAL, NULL, 0,
                            "qhull returned a facet of %d vertices where triangles were asked for",
                            qh_setsize(qh, facet->vertices));
        }
        triangle* t = &b->triangles[b->triangle_count++];
        for (int k = 0; k < 3; ++k) {
            vertexT* vertex = (vertexT*)facet->vertices->e[k].p;
            t->v[k] = qh_pointid(qh, vertex->point);
        }
        t->normal = tch_v3(facet->normal[0], facet->normal[1], facet->normal[2]);
        t->offset = -facet->offset;
        tch_vec3 a = b->points[t->v[0]];
        tch_vec3 area =
            tch_v3_cross(tch_v3_sub(b->points[t->v[1]], a), tch_v3_sub(b->points[t->v[2]], a));
        if (tch_v3_dot(area, t->normal) < 0) {
            int swap = t->v[1];
            t->v[1] = t->v[2];
            t->v[2] = swap;
        }
    }
    return TCH_OK;
}

static tch_status run_qhull(builder* b, tch_error* err) {
    coordT* coords = malloc((size_t)b->point_count * 3 * sizeof *coords);
    char* messages = NULL;
    size_t messages_size = 0;
    FILE* errors = open_memstream(&messages, &messages_size);
    if (!coords || !errors) {
        free(coords);
        if (errors) {
            fclose(errors);
        }
        free(messages);
        return out_of_memory(err);
    }
    for (int i = 0; i < b->point_count; ++i) {
        coords[3 * i] = b->points[i].x;
        coords[3 * i + 1] = b->points[i].y;
        coords[3 * i + 2] = b->points[i].z;
    }
    char command[] = "qhull Qt";
    qhT qh_storage;
    qhT* qh = &qh_storage;
    qh_zero(qh, errors);
    int exit_code = qh_new_qhull(qh, 3, b->point_count, coords, False, command, NULL, errors);
    tch_status status = TCH_OK;
    if (exit_code != 0) {
        fflush(errors);
        status = qhull_failure(exit_code, messages, err);
    } else {
        status = collect_triangles(qh, b, err);
    }
    int current_long = 0, total_long = 0;
    qh_freeqhull(qh, !qh_ALL);
    qh_memfreeshort(qh, &current_long, &total_long);
    fclose(errors);
    free(messages);
    free(coords);
    return status;
}

/* ---- adjacency and region growing ---- */

/* qsort order of anything that starts with two ints: lexicographic on them. */
static int compare_int_pairs(const void* pa, const void* pb) {
    const int* x = pa;
    const int* y = pb;
    if (x[0] != y[0]) {
        return x[0] < y[0] ? -1 : 1;
    }
    return (x[1] > y[1]) - (x[1] < y[1]);
}

typedef struct edge_ref {
    int v[2]; /* v[0] < v[1]: the sort key */
    int triangle, slot;
} edge_ref;

/* Neighbours through shared edges: sort the 3F edges, pair the runs of exactly two. */
static tch_status find_neighbors(builder* b, tch_error* err) {
    int n = 3 * b->triangle_count;
    edge_ref* refs = malloc((size_t)n * sizeof *refs);
    b->neighbors = malloc((size_t)n * sizeof *b->neighbors);
    if (!refs || !b->neighbors) {
        free(refs);
        return out_of_memory(err);
    }
    for (int t = 0; t < b->triangle_count; ++t) {
        for (int k = 0; k < 3; ++k) {
            int u = b->triangles[t].v[k], w = b->triangles[t].v[(k + 1) % 3];
            refs[3 * t + k] = (edge_ref){{u < w ? u : w, u < w ? w : u}, t, k};
            b->neighbors[3 * t + k] = -1;
        }
    }
    qsort(refs, (size_t)n, sizeof *refs, compare_int_pairs);
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && compare_int_pairs(refs[j].v, refs[i].v) == 0) {
            ++j;
        }
        if (j - i == 2) {
            b->neighbors[3 * refs[i].triangle + refs[i].slot] = refs[i + 1].triangle;
            b->neighbors[3 * refs[i + 1].triangle + refs[i + 1].slot] = refs[i].triangle;
        }
        i = j;
    }
    free(refs);
    return TCH_OK;
}

static int joins_plane(const builder* b, const triangle* t, const triangle* seed) {
    if (tch_v3_dot(t->normal, seed->normal) < merge_normal_cosine) {
        return 0;
    }
    for (int k = 0; k < 3; ++k) {
        tch_real d = tch_v3_dot(seed->normal, b->points[t->v[k]]) - seed->offset;
        if (!(fabs(d) <= b->tolerance)) {
            return 0;
        }
    }
    return 1;
}

/* Groups triangles: each unassigned triangle, in qhull's order, seeds a group that grows
 * through neighbours lying in the seed's plane. */
static tch_status grow_groups(builder* b, tch_error* err) {
    b->group = malloc((size_t)b->triangle_count * sizeof *b->group);
    int* stack = malloc((size_t)b->triangle_count * sizeof *stack);
    if (!b->group || !stack) {
        free(stack);
        return out_of_memory(err);
    }
    for (int t = 0; t < b->triangle_count; ++t) {
        b->group[t] = -1;
    }
    for (int seed = 0; seed < b->triangle_count; ++seed) {
        if (b->group[seed] >= 0) {
            continue;
        }
        int g = b->group_count++, top = 0;
        b->group[seed] = g;
        stack[top++] = seed;
        while (top > 0) {
            int t = stack[--top];
            for (int k = 0; k < 3; ++k) {
                int u = b->neighbors[3 * t + k];
                if (u >= 0 && b->group[u] < 0 &&
                    joins_plane(b, &b->triangles[u], &b->triangles[seed])) {
                    b->group[u] = g;
                    stack[top++] = u;
                }
            }
        }
    }
    free(stack);
    return TCH_OK;
}

/* Counting sort of the triangles by group, so that each group's triangles are listed
 * together (in index order, the first being the group's seed). */
static tch_status sort_by_group(builder* b, tch_error* err) {
    b->members = malloc((size_t)b->triangle_count * sizeof *b->members);
    b->group_start = calloc((size_t)b->group_count + 1, sizeof *b->group_start);
    if (!b->members || !b->group_start) {
        return out_of_memory(err);
    }
    for (int t = 0; t < b->triangle_count; ++t) {
        b->group_start[b->group[t] + 1]++;
    }
    for (int g = 0; g < b->group_count; ++g) {
        b->group_start[g + 1] += b->group_start[g];
    }
    int* fill = b->group_start;
    for (int t = 0; t < b->triangle_count; ++t) {
        b->members[fill[b->group[t]]++] = t;
    }
    for (int g = b->group_count; g > 0; --g) {
        b->group_start[g] = b->group_start[g - 1];
    }
    b->group_start[0] = 0;
    return TCH_OK;
}

/* ---- faces ---- */

static int append_face(builder* b, const int* loop, int length) {
    if (b->face_count + 1 >= b->face_capacity) {
        int capacity = 2 * b->face_capacity + 8;
        int* starts = realloc(b->face_start, (size_t)(capacity + 1) * sizeof *starts);
        if (!starts) {
            return -1;
        }
        b->face_start = starts;
        b->face_capacity = capacity;
    }
    if (b->loop_length + length > b->loop_capacity) {
        int capacity = 2 * (b->loop_length + length) + 16;
        int* loops = realloc(b->loops, (size_t)capacity * sizeof *loops);
        if (!loops) {
            return -1;
        }
        b->loops = loops;
        b->loop_capacity = capacity;
    }
    b->face_start[b->face_count++] = b->loop_length;
    memcpy(b->loops + b->loop_length, loop, (size_t)length * sizeof *loop);
    b->loop_length += length;
    b->face_start[b->face_count] = b->loop_length;
    return 0;
}

/* Newell's normal of a closed loop of input points (not normalized; twice the area). */
static tch_vec3 newell_normal(const tch_vec3* points, const int* loop, int length) {
    tch_vec3 n = tch_v3_zero();
    for (int i = 0; i < length; ++i) {
        tch_vec3 p = points[loop[i]], q = points[loop[(i + 1) % length]];
        n.x += (p.y - q.y) * (p.z + q.z);
        n.y += (p.z - q.z) * (p.x + q.x);
        n.z += (p.x - q.x) * (p.y + q.y);
    }
    return n;
}

typedef struct half_edge {
    int v[2]; /* from, to: the sort key */
} half_edge;

/* Collects both directions of the group's boundary edges. */
static int boundary_half_edges(const builder* b, int g, half_edge* out) {
    int count = 0;
    for (int m = b->group_start[g]; m < b->group_start[g + 1]; ++m) {
        int t = b->members[m];
        for (int k = 0; k < 3; ++k) {
            int u = b->neighbors[3 * t + k];
            if (u < 0 || b->group[u] != g) {
                int p = b->triangles[t].v[k], q = b->triangles[t].v[(k + 1) % 3];
                out[count++] = (half_edge){{p, q}};
                out[count++] = (half_edge){{q, p}};
            }
        }
    }
    qsort(out, (size_t)count, sizeof *out, compare_int_pairs);
    return count;
}

/* Index of the pair of half-edges leaving `vertex` in the sorted list, or -1. */
static int find_pair(const half_edge* h, int pair_count, int vertex) {
    int lo = 0, hi = pair_count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (h[2 * mid].v[0] == vertex) {
            return mid;
        }
        if (h[2 * mid].v[0] < vertex) {
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    return -1;
}

/* Walks the sorted half-edges into one loop. Returns its length, or 0 when the boundary is
 * not one simple loop (a vertex without exactly two boundary edges, or several loops). */
static int chain_loop(const half_edge* h, int count, int* loop) {
    int pair_count = count / 2;
    for (int i = 0; i < pair_count; ++i) {
        if (h[2 * i].v[0] != h[2 * i + 1].v[0] || (i > 0 && h[2 * i].v[0] == h[2 * i - 1].v[0])) {
            return 0;
        }
    }
    int previous = -1, current = 0, length = 0;
    do {
        if (length == pair_count || current < 0) {
            return 0;
        }
        const half_edge* out = &h[2 * current]; /* the two edges leaving this vertex */
        int vertex = out[0].v[0];
        loop[length++] = vertex;
        int next = out[0].v[1] != previous ? out[0].v[1] : out[1].v[1];
        previous = vertex;
        current = find_pair(h, pair_count, next);
    } while (current != 0);
    return length == pair_count ? length : 0;
}

static void reverse_loop(int* loop, int length) {
    for (int i = 0, j = length - 1; i < j; ++i, --j) {
        int swap = loop[i];
        loop[i] = loop[j];
        loop[j] = swap;
    }
}

/* The group's triangles as faces of their own, skipping those without area (fallback). */
static int append_group_triangles(builder* b, int g) {
    for (int m = b->group_start[g]; m < b->group_start[g + 1]; ++m) {
        const triangle* tri = &b->triangles[b->members[m]];
        tch_vec3 n = newell_normal(b->points, tri->v, 3);
        if (tch_v3_dot(n, tri->normal) > 0 && append_face(b, tri->v, 3) < 0) {
            return -1;
        }
    }
    return 0;
}

/* One face per group: its boundary loop, counter-clockwise about the outward normal. */
static tch_status build_faces(builder* b, tch_error* err) {
    half_edge* h = malloc((size_t)6 * b->triangle_count * sizeof *h);
    int* loop = malloc((size_t)3 * b->triangle_count * sizeof *loop);
    tch_status status = TCH_OK;
    if (!h || !loop) {
        status = out_of_memory(err);
    }
    for (int g = 0; status == TCH_OK && g < b->group_count; ++g) {
        int length = chain_loop(h, boundary_half_edges(b, g, h), loop);
        int failed;
        if (length >= 3) {
            if (tch_v3_dot(newell_normal(b->points, loop, length),
                           b->triangles[b->members[b->group_start[g]]].normal) < 0) {
                reverse_loop(loop, length);
            }
            failed = append_face(b, loop, length);
        } else {
            failed = append_group_triangles(b, g);
        }
        if (failed) {
            status = out_of_memory(err);
        }
    }
    free(h);
    free(loop);
    return status;
}

/* ---- layout ---- */

/* Unique undirected edges of the faces, sorted. */
static int collect_edges(tch_convex_hull* hull) {
    int corners = hull->face_start[hull->face_count];
    hull->edges = malloc((size_t)(corners > 0 ? corners : 1) * sizeof *hull->edges);
    if (!hull->edges) {
        return -1;
    }
    int count = 0;
    for (int f = 0; f < hull->face_count; ++f) {
        int start = hull->face_start[f], length = hull->face_start[f + 1] - start;
        for (int i = 0; i < length; ++i) {
            int a = hull->face_vertices[start + i];
            int c = hull->face_vertices[start + (i + 1) % length];
            hull->edges[count][0] = a < c ? a : c;
            hull->edges[count][1] = a < c ? c : a;
            ++count;
        }
    }
    qsort(hull->edges, (size_t)count, sizeof *hull->edges, compare_int_pairs);
    int unique = 0;
    for (int i = 0; i < count; ++i) {
        if (unique == 0 || compare_int_pairs(hull->edges[unique - 1], hull->edges[i]) != 0) {
            hull->edges[unique][0] = hull->edges[i][0];
            hull->edges[unique][1] = hull->edges[i][1];
            ++unique;
        }
    }
    hull->edge_count = unique;
    return 0;
}

/* Face planes from Newell's normal; the offset is the mean of n . v over the face. */
static void compute_planes(tch_convex_hull* hull) {
    for (int f = 0; f < hull->face_count; ++f) {
        const int* loop = hull->face_vertices + hull->face_start[f];
        int length = hull->face_start[f + 1] - hull->face_start[f];
        tch_vec3 n = tch_v3_normalize(newell_normal(hull->vertices_G, loop, length));
        tch_real sum = 0;
        for (int i = 0; i < length; ++i) {
            sum += tch_v3_dot(n, hull->vertices_G[loop[i]]);
        }
        hull->face_normals_G[f] = n;
        hull->face_offsets[f] = sum / length;
    }
}

/* Keeps the points used by faces, in input order, and renumbers the loops densely. */
static int renumber_vertices(const builder* b, tch_convex_hull* hull) {
    int* index = malloc((size_t)b->point_count * sizeof *index);
    if (!index) {
        return -1;
    }
    for (int i = 0; i < b->point_count; ++i) {
        index[i] = -1;
    }
    for (int i = 0; i < b->loop_length; ++i) {
        index[b->loops[i]] = 0;
    }
    int count = 0;
    for (int i = 0; i < b->point_count; ++i) {
        if (index[i] == 0) {
            index[i] = count++;
        }
    }
    hull->vertices_G = malloc((size_t)count * sizeof *hull->vertices_G);
    if (hull->vertices_G) {
        for (int i = 0; i < b->point_count; ++i) {
            if (index[i] >= 0) {
                hull->vertices_G[index[i]] = b->points[i];
            }
        }
        for (int i = 0; i < b->loop_length; ++i) {
            hull->face_vertices[i] = index[b->loops[i]];
        }
        hull->vertex_count = count;
    }
    free(index);
    return hull->vertices_G ? 0 : -1;
}

static int lay_out(const builder* b, tch_convex_hull* hull) {
    hull->face_count = b->face_count;
    hull->face_start = malloc((size_t)(b->face_count + 1) * sizeof *hull->face_start);
    hull->face_vertices = malloc((size_t)b->loop_length * sizeof *hull->face_vertices);
    hull->face_normals_G = malloc((size_t)b->face_count * sizeof *hull->face_normals_G);
    hull->face_offsets = malloc((size_t)b->face_count * sizeof *hull->face_offsets);
    if (!hull->face_start || !hull->face_vertices || !hull->face_normals_G || !hull->face_offsets) {
        return -1;
    }
    memcpy(hull->face_start, b->face_start, (size_t)(b->face_count + 1) * sizeof *b->face_start);
    if (renumber_vertices(b, hull) < 0 || collect_edges(hull) < 0) {
        return -1;
    }
    compute_planes(hull);
    tch_mat3 second_moment;
    tch_hull_volume_moments(hull, &hull->volume, &hull->centroid_G, &second_moment);
    return 0;
}

tch_status tch_hull_build(const tch_vec3* points, int count, tch_convex_hull* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    tch_status status = check_points(points, count, err);
    if (status != TCH_OK) {
        return status;
    }
    builder b = {.points = points,
                 .point_count = count,
                 .tolerance = TCH_HULL_COPLANAR_TOLERANCE * largest_extent(points, count)};
    status = run_qhull(&b, err);
    if (status == TCH_OK) {
        status = find_neighbors(&b, err);
    }
    if (status == TCH_OK) {
        status = grow_groups(&b, err);
    }
    if (status == TCH_OK) {
        status = sort_by_group(&b, err);
    }
    if (status == TCH_OK) {
        status = build_faces(&b, err);
    }
    if (status == TCH_OK && lay_out(&b, out) < 0) {
        status = out_of_memory(err);
    }
    if (status == TCH_OK && !(out->face_count >= 4 && out->volume > 0 && isfinite(out->volume))) {
        status = tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                          "the convex hull of the %d points has volume %g and %d faces; the "
                          "points are too flat or too small",
                          count, out->volume, out->face_count);
    }
    builder_free(&b);
    if (status != TCH_OK) {
        tch_hull_free(out);
    }
    return status;
}

void tch_hull_free(tch_convex_hull* hull) {
    if (!hull) {
        return;
    }
    free(hull->vertices_G);
    free(hull->face_start);
    free(hull->face_vertices);
    free(hull->face_normals_G);
    free(hull->face_offsets);
    free(hull->edges);
    memset(hull, 0, sizeof *hull);
}

/* malloc'ed copy of `size` bytes of src, NULL for a NULL src; sets *failed when out of memory. */
static void* duplicate(const void* src, size_t size, int* failed) {
    if (!src) {
        return NULL;
    }
    void* dst = malloc(size > 0 ? size : 1);
    if (!dst) {
        *failed = 1;
    } else if (size > 0) {
        memcpy(dst, src, size);
    }
    return dst;
}

int tch_hull_copy(const tch_convex_hull* src, tch_convex_hull* dst) {
    *dst = *src;
    int corners = src->face_start ? src->face_start[src->face_count] : 0, failed = 0;
    size_t faces = (size_t)src->face_count;
    dst->vertices_G =
        duplicate(src->vertices_G, (size_t)src->vertex_count * sizeof(tch_vec3), &failed);
    dst->face_start = duplicate(src->face_start, (faces + 1) * sizeof(int), &failed);
    dst->face_vertices = duplicate(src->face_vertices, (size_t)corners * sizeof(int), &failed);
    dst->face_normals_G = duplicate(src->face_normals_G, faces * sizeof(tch_vec3), &failed);
    dst->face_offsets = duplicate(src->face_offsets, faces * sizeof(tch_real), &failed);
    dst->edges = duplicate(src->edges, (size_t)src->edge_count * sizeof *src->edges, &failed);
    if (failed) {
        tch_hull_free(dst);
        return -1;
    }
    return 0;
}

/* ---- volume integrals ---- */

/* Adds the tetrahedron (0, a, b, c) (relative to the fan apex): signed volume det/6, first
 * moment V (a + b + c)/4 and second moment V/20 (sum v v^T + s s^T), s = a + b + c. */
static void add_tetrahedron(tch_vec3 a, tch_vec3 b, tch_vec3 c, tch_real* volume, tch_vec3* first,
                            tch_mat3* second) {
    tch_real v = tch_v3_dot(a, tch_v3_cross(b, c)) / 6;
    tch_vec3 s = tch_v3_add(tch_v3_add(a, b), c);
    const tch_vec3 corners[4] = {a, b, c, s};
    *volume += v;
    *first = tch_v3_madd(*first, v / 4, s);
    for (int k = 0; k < 4; ++k) {
        for (int i = 0; i < 3; ++i) {
            for (int j = 0; j < 3; ++j) {
                second->m[i][j] += v / 20 * tch_v3_get(corners[k], i) * tch_v3_get(corners[k], j);
            }
        }
    }
}

void tch_hull_volume_moments(const tch_convex_hull* hull, tch_real* volume, tch_vec3* centroid,
                             tch_mat3* second_moment) {
    tch_vec3 apex = tch_v3_zero();
    for (int i = 0; i < hull->vertex_count; ++i) {
        apex = tch_v3_add(apex, hull->vertices_G[i]);
    }
    apex = tch_v3_scale(apex, 1.0 / (hull->vertex_count > 0 ? hull->vertex_count : 1));
    tch_real v = 0;
    tch_vec3 first = tch_v3_zero();
    tch_mat3 second = tch_m3_zero();
    for (int f = 0; f < hull->face_count; ++f) {
        const int* loop = hull->face_vertices + hull->face_start[f];
        int length = hull->face_start[f + 1] - hull->face_start[f];
        tch_vec3 p0 = tch_v3_sub(hull->vertices_G[loop[0]], apex);
        for (int i = 1; i + 1 < length; ++i) {
            add_tetrahedron(p0, tch_v3_sub(hull->vertices_G[loop[i]], apex),
                            tch_v3_sub(hull->vertices_G[loop[i + 1]], apex), &v, &first, &second);
        }
    }
    /* shift from the apex to the centroid: S_c = S_apex - V d d^T, d = centroid - apex */
    tch_vec3 d = v > 0 ? tch_v3_scale(first, 1 / v) : tch_v3_zero();
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            second.m[i][j] -= v * tch_v3_get(d, i) * tch_v3_get(d, j);
        }
    }
    *volume = v;
    *centroid = tch_v3_add(apex, d);
    *second_moment = second;
}

/* Builds the hull of vertices just read (when reading succeeded), names `name` in a hull
 * error, and frees the vertices. */
static tch_status hull_of_read_vertices(tch_status read_status, tch_vec3* vertices, int count,
                                        const char* name, tch_convex_hull* out, tch_error* err) {
    tch_status status = read_status;
    if (status == TCH_OK) {
        status = tch_hull_build(vertices, count, out, err);
        if (status != TCH_OK && err) {
            tch_copy_string(err->file, sizeof err->file, name ? name : "");
        }
    }
    free(vertices);
    return status;
}

tch_status tch_hull_from_mesh_file(const char* path, tch_convex_hull* out, tch_error* err) {
    tch_vec3* vertices = NULL;
    int count = 0;
    memset(out, 0, sizeof *out);
    tch_status status = tch_mesh_read_vertices(path, &vertices, &count, err);
    return hull_of_read_vertices(status, vertices, count, path, out, err);
}

tch_status tch_hull_from_mesh_buffer(const char* bytes, size_t size, const char* name,
                                     const char* format_hint, tch_convex_hull* out,
                                     tch_error* err) {
    tch_vec3* vertices = NULL;
    int count = 0;
    memset(out, 0, sizeof *out);
    tch_status status =
        tch_mesh_read_vertices_buffer(bytes, size, name, format_hint, &vertices, &count, err);
    return hull_of_read_vertices(status, vertices, count, name, out, err);
}
