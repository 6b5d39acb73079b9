/* Feature-level polytope geometry and the proximity query of `peg` (see features.h). */
#include "collision/features.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "math/vec.h"

static tch_status out_of_memory(tch_error* err) {
    return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory (polytope features)");
}

static tch_status bad_polytope(tch_error* err, const char* name, const char* what, int face) {
    return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "polytope '%s' %s (face %d)",
                    name ? name : "?", what, face);
}

void tch_features_free(tch_features* f) {
    free(f->vertices);
    free(f->face_start);
    free(f->face_vertices);
    free(f->face_normals);
    free(f->edges);
    free(f->vertex_edge_start);
    free(f->vertex_edges);
    memset(f, 0, sizeof *f);
}

static int copy_faces(const tch_polytope* poly, tch_features* f) {
    const int corners = poly->face_start[poly->face_count];
    f->vertex_count = poly->vertex_count;
    f->face_count = poly->face_count;
    f->vertices = malloc((size_t)poly->vertex_count * sizeof *f->vertices);
    f->face_start = malloc((size_t)(poly->face_count + 1) * sizeof *f->face_start);
    f->face_vertices = malloc((size_t)corners * sizeof *f->face_vertices);
    f->face_normals = malloc((size_t)poly->face_count * sizeof *f->face_normals);
    /* Every corner of a closed surface starts one half-edge and each edge has two. */
    f->edges = malloc((size_t)corners * sizeof *f->edges);
    f->vertex_edge_start = calloc((size_t)poly->vertex_count + 1, sizeof *f->vertex_edge_start);
    f->vertex_edges = malloc((size_t)corners * sizeof *f->vertex_edges);
    if (!f->vertices || !f->face_start || !f->face_vertices || !f->face_normals || !f->edges ||
        !f->vertex_edge_start || !f->vertex_edges) {
        return 0;
    }
    memcpy(f->vertices, poly->vertices, (size_t)poly->vertex_count * sizeof *f->vertices);
    memcpy(f->face_start, poly->face_start, (size_t)(poly->face_count + 1) * sizeof(int));
    memcpy(f->face_vertices, poly->face_vertices, (size_t)corners * sizeof(int));
    memcpy(f->face_normals, poly->face_normals, (size_t)poly->face_count * sizeof(tch_vec3));
    return 1;
}

/* The edge tail -> head or head -> tail already made, or -1. A linear search over the edges
 * made so far: O(E^2) per build, which runs once per geom. */
static int find_edge(const tch_features* f, int tail, int head) {
    for (int e = 0; e < f->edge_count; ++e) {
        const tch_feature_edge* E = &f->edges[e];
        if ((E->tail == tail && E->head == head) || (E->tail == head && E->head == tail)) {
            return e;
        }
    }
    return -1;
}

/* Adds the half-edge tail -> head of `face`: a new edge with face1 = face, or the second face
 * of the edge made by its twin head -> tail. 0 when the surface is not closed there. */
static int add_half_edge(tch_features* f, int tail, int head, int face) {
    const int e = find_edge(f, tail, head);
    if (e < 0) {
        f->edges[f->edge_count++] = (tch_feature_edge){tail, head, face, -1};
        return 1;
    }
    tch_feature_edge* E = &f->edges[e];
    if (E->tail != head || E->face2 >= 0) {
        return 0; /* run twice the same way, or by a third face */
    }
    E->face2 = face;
    return 1;
}

/* The edges at each vertex, grouped by vertex (counting sort: start[v + 1] counts, then
 * start[v] serves as the fill cursor and is shifted back). */
static void index_vertex_edges(tch_features* f) {
    int* start = f->vertex_edge_start;
    for (int e = 0; e < f->edge_count; ++e) {
        start[f->edges[e].tail + 1]++;
        start[f->edges[e].head + 1]++;
    }
    for (int v = 0; v < f->vertex_count; ++v) {
        start[v + 1] += start[v];
    }
    for (int e = 0; e < f->edge_count; ++e) {
        f->vertex_edges[start[f->edges[e].tail]++] = e;
        f->vertex_edges[start[f->edges[e].head]++] = e;
    }
    for (int v = f->vertex_count; v > 0; --v) {
        start[v] = start[v - 1];
    }
    start[0] = 0;
}

static void bounding_sphere(tch_features* f) {
    tch_vec3 c = tch_v3_zero();
    for (int v = 0; v < f->vertex_count; ++v) {
        c = tch_v3_add(c, f->vertices[v]);
    }
    f->centre = tch_v3_scale(c, 1.0 / f->vertex_count);
    f->radius = 0;
    for (int v = 0; v < f->vertex_count; ++v) {
        f->radius = fmax(f->radius, tch_v3_dist(f->vertices[v], f->centre));
    }
}

tch_status tch_features_build(const tch_polytope* poly, const char* name, tch_features* out,
                              tch_error* err) {
    memset(out, 0, sizeof *out);
    if (poly->vertex_count < 4 || poly->face_count < 4) {
        return bad_polytope(err, name, "has fewer than 4 vertices or faces", poly->face_count);
    }
    if (!copy_faces(poly, out)) {
        tch_features_free(out);
        return out_of_memory(err);
    }
    for (int face = 0; face < out->face_count; ++face) {
        const int first = out->face_start[face], end = out->face_start[face + 1];
        for (int k = first; k < end; ++k) {
            const int tail = out->face_vertices[k];
            const int head = out->face_vertices[k + 1 < end ? k + 1 : first];
            if (end - first < 3 || tail < 0 || tail >= out->vertex_count || head < 0 ||
                head >= out->vertex_count || tail == head) {
                tch_features_free(out);
                return bad_polytope(err, name, "has a bad vertex index or too few corners", face);
            }
            if (!add_half_edge(out, tail, head, face)) {
                tch_features_free(out);
                return bad_polytope(err, name, "has an edge not shared by exactly two faces",
                                    face);
            }
        }
    }
    for (int e = 0; e < out->edge_count; ++e) {
        if (out->edges[e].face2 < 0) {
            const int face = out->edges[e].face1;
            tch_features_free(out);
            return bad_polytope(err, name, "is open: an edge has only one face", face);
        }
    }
    index_vertex_edges(out);
    bounding_sphere(out);
    return TCH_OK;
}

tch_vec3 tch_features_edge_vector(const tch_features* f, int edge) {
    return tch_v3_sub(f->vertices[f->edges[edge].head], f->vertices[f->edges[edge].tail]);
}

void tch_features_edge_t_vectors(const tch_features* f, int edge, tch_vec3* t1, tch_vec3* t2) {
    const tch_vec3 e = tch_features_edge_vector(f, edge);
    *t1 = tch_v3_normalize(tch_v3_cross(f->face_normals[f->edges[edge].face1], e));
    *t2 = tch_v3_normalize(tch_v3_cross(e, f->face_normals[f->edges[edge].face2]));
}

tch_vec3 tch_features_edge_orientation(const tch_features* f, int edge) {
    const tch_vec3 mean = tch_v3_add(f->face_normals[f->edges[edge].face1],
                                     f->face_normals[f->edges[edge].face2]);
    return tch_v3_cross(mean, tch_features_edge_vector(f, edge));
}

tch_real tch_features_default_proximity(int dimension, tch_real h) {
    return dimension == 2 ? fmax(0.5 * h, 0.0008) : 0.1;
}

/* ---- the proximity query ---- */

void tch_feature_pairs_init(tch_feature_pairs* p) {
    memset(p, 0, sizeof *p);
}

void tch_feature_pairs_free(tch_feature_pairs* p) {
    free(p->pairs);
    free(p->world_a);
    free(p->world_b);
    tch_feature_pairs_init(p);
}

/* The posed features of one body: world vertices, the rotation of its normals, and its
 * bounding sphere in the world. */
typedef struct posed {
    const tch_features* f;
    const tch_vec3* v; /* world vertices */
    tch_quat q;
    tch_vec3 centre;
    tch_real radius;
} posed;

/* Exact pre-tests (they skip only what the full tests would refuse): a point or segment
 * farther than eps from the other body's bounding sphere is farther than eps from each of its
 * features, and two boxes apart by more than eps hold no two points within eps. */
static bool point_near_sphere(tch_vec3 p, const posed* other, tch_real eps) {
    const tch_real reach = other->radius + eps;
    return tch_v3_norm2(tch_v3_sub(p, other->centre)) <= reach * reach;
}

static bool segment_near_sphere(tch_vec3 a, tch_vec3 b, const posed* other, tch_real eps) {
    const tch_vec3 ab = tch_v3_sub(b, a);
    const tch_real length2 = tch_v3_norm2(ab);
    const tch_real t =
        length2 > 0 ? fmin(1, fmax(0, tch_v3_dot(tch_v3_sub(other->centre, a), ab) / length2))
                    : 0;
    return point_near_sphere(tch_v3_madd(a, t, ab), other, eps);
}

static bool boxes_within(tch_vec3 a0, tch_vec3 a1, tch_vec3 b0, tch_vec3 b1, tch_real eps) {
    eps += 1e-9 * eps + 1e-15; /* over rounding */
    return fmax(b0.x, b1.x) + eps >= fmin(a0.x, a1.x) && fmax(a0.x, a1.x) + eps >= fmin(b0.x, b1.x) &&
           fmax(b0.y, b1.y) + eps >= fmin(a0.y, a1.y) && fmax(a0.y, a1.y) + eps >= fmin(b0.y, b1.y) &&
           fmax(b0.z, b1.z) + eps >= fmin(a0.z, a1.z) && fmax(a0.z, a1.z) + eps >= fmin(b0.z, b1.z);
}

static tch_vec3 posed_normal(const posed* P, int face) {
    return tch_q_rotate(P->q, P->f->face_normals[face]);
}

static tch_vec3 posed_edge_orientation(const posed* P, int edge) {
    return tch_q_rotate(P->q, tch_features_edge_orientation(P->f, edge));
}

/* The closest point of segment a-b to point p. */
static tch_vec3 closest_on_segment(tch_vec3 p, tch_vec3 a, tch_vec3 b) {
    tch_real s, t;
    tch_segment_closest(p, p, a, b, &s, &t);
    return tch_v3_lerp(a, b, t);
}

/* The closest point of face `face` (a convex polygon) to p: the projection on its plane when
 * that lies inside every edge (*inside = 1), else the closest point of its nearest edge. */
static tch_vec3 closest_on_face_inside(const posed* P, int face, tch_vec3 p, int* inside_out) {
    const tch_features* f = P->f;
    const tch_vec3 n = posed_normal(P, face);
    const int first = f->face_start[face], end = f->face_start[face + 1];
    const tch_vec3 on_plane = P->v[f->face_vertices[first]];
    const tch_vec3 projection = tch_v3_madd(p, -tch_v3_dot(n, tch_v3_sub(p, on_plane)), n);
    int inside = 1;
    for (int k = first; k < end && inside; ++k) {
        const tch_vec3 a = P->v[f->face_vertices[k]];
        const tch_vec3 b = P->v[f->face_vertices[k + 1 < end ? k + 1 : first]];
        inside = tch_v3_dot(tch_v3_cross(tch_v3_sub(b, a), tch_v3_sub(projection, a)), n) >= 0;
    }
    *inside_out = inside;
    if (inside) {
        return projection;
    }
    tch_vec3 best = projection;
    tch_real best_d2 = INFINITY;
    for (int k = first; k < end; ++k) {
        const tch_vec3 a = P->v[f->face_vertices[k]];
        const tch_vec3 b = P->v[f->face_vertices[k + 1 < end ? k + 1 : first]];
        const tch_vec3 c = closest_on_segment(p, a, b);
        const tch_real d2 = tch_v3_norm2(tch_v3_sub(c, p));
        if (d2 < best_d2) {
            best_d2 = d2;
            best = c;
        }
    }
    return best;
}

static tch_vec3 closest_on_face(const posed* P, int face, tch_vec3 p) {
    int inside;
    return closest_on_face_inside(P, face, p, &inside);
}

static int push_pair(tch_feature_pairs* out, tch_feature_pair pair) {
    if (out->count == out->capacity) {
        const int capacity = out->capacity ? 2 * out->capacity : 32;
        tch_feature_pair* grown = realloc(out->pairs, (size_t)capacity * sizeof *grown);
        if (!grown) {
            return 0;
        }
        out->pairs = grown;
        out->capacity = capacity;
    }
    out->pairs[out->count++] = pair;
    return 1;
}

/* Vertex-face pairs of every vertex of V with every face of F; `flip` when V is body B. */
static int vertex_face_pairs(const posed* V, const posed* F, int flip, tch_real eps,
                             tch_feature_pairs* out) {
    for (int face = 0; face < F->f->face_count; ++face) {
        const tch_vec3 n = posed_normal(F, face);
        const tch_vec3 on_plane = F->v[F->f->face_vertices[F->f->face_start[face]]];
        for (int v = 0; v < V->f->vertex_count; ++v) {
            const tch_vec3 p = V->v[v];
            const tch_real height = tch_v3_dot(n, tch_v3_sub(p, on_plane));
            if (fabs(height) > eps || !point_near_sphere(p, F, eps)) {
                continue;
            }
            const tch_real distance = tch_v3_dist(p, closest_on_face(F, face, p));
            if (distance > eps) {
                continue;
            }
            const tch_vec3 foot = tch_v3_madd(p, -height, n);
            const tch_feature_pair pair =
                flip ? (tch_feature_pair){TCH_FEATURE_FACE_VERTEX, face, v, foot, p, n, height,
                                          distance}
                     : (tch_feature_pair){TCH_FEATURE_VERTEX_FACE, v, face, p, foot,
                                          tch_v3_neg(n), height, distance};
            if (!push_pair(out, pair)) {
                return 0;
            }
        }
    }
    return 1;
}

/* The edge-edge normal of peg.md §5.1: sign(e_a . O_eb) (e_a x e_b)/|e_a x e_b|, pointing away
 * from B's faces at e_b. */
static tch_vec3 edge_edge_normal(tch_vec3 ea, tch_vec3 cross, tch_vec3 orientation_b) {
    const tch_vec3 n = tch_v3_normalize(cross);
    return tch_v3_dot(ea, orientation_b) < 0 ? tch_v3_neg(n) : n;
}

static int edge_edge_pairs(const posed* A, const posed* B, tch_real eps,
                           tch_feature_pairs* out) {
    for (int i = 0; i < A->f->edge_count; ++i) {
        const tch_vec3 a0 = A->v[A->f->edges[i].tail], a1 = A->v[A->f->edges[i].head];
        const tch_vec3 ea = tch_v3_sub(a1, a0);
        if (!segment_near_sphere(a0, a1, B, eps)) {
            continue;
        }
        for (int j = 0; j < B->f->edge_count; ++j) {
            const tch_vec3 b0 = B->v[B->f->edges[j].tail], b1 = B->v[B->f->edges[j].head];
            if (!boxes_within(a0, a1, b0, b1, eps)) {
                continue;
            }
            const tch_vec3 eb = tch_v3_sub(b1, b0);
            const tch_vec3 cross = tch_v3_cross(ea, eb);
            if (tch_v3_norm(cross) <= TCH_FEATURES_PARALLEL_SINE * tch_v3_norm(ea) *
                                          tch_v3_norm(eb)) {
                continue;
            }
            tch_real s, t;
            tch_segment_closest(a0, a1, b0, b1, &s, &t);
            const tch_vec3 pa = tch_v3_lerp(a0, a1, s), pb = tch_v3_lerp(b0, b1, t);
            const tch_real distance = tch_v3_dist(pa, pb);
            if (distance > eps) {
                continue;
            }
            const tch_vec3 n = edge_edge_normal(ea, cross, posed_edge_orientation(B, j));
            const tch_feature_pair pair = {TCH_FEATURE_EDGE_EDGE, i, j, pa, pb, n,
                                           tch_v3_dot(n, tch_v3_sub(pb, pa)), distance};
            if (!push_pair(out, pair)) {
                return 0;
            }
        }
    }
    return 1;
}

/* The pair normal of a vertex-edge or vertex-vertex pair: along pb - pa, or when they
 * coincide minus `fallback_b` (an outward direction of B at its feature). */
static tch_vec3 point_pair_normal(tch_vec3 pa, tch_vec3 pb, tch_vec3 fallback_b) {
    const tch_vec3 d = tch_v3_sub(pb, pa);
    return tch_v3_norm(d) > 0 ? tch_v3_normalize(d) : tch_v3_neg(tch_v3_normalize(fallback_b));
}

/* The sum of the outward normals of the faces at edge `edge` (world frame). */
static tch_vec3 edge_mean_normal(const posed* P, int edge) {
    return tch_v3_add(posed_normal(P, P->f->edges[edge].face1),
                      posed_normal(P, P->f->edges[edge].face2));
}

/* Vertex-edge pairs of every vertex of V with every edge of E; `flip` when V is body B. */
static int vertex_edge_pairs(const posed* V, const posed* E, int flip, tch_real eps,
                             tch_feature_pairs* out) {
    for (int e = 0; e < E->f->edge_count; ++e) {
        const tch_vec3 e0 = E->v[E->f->edges[e].tail], e1 = E->v[E->f->edges[e].head];
        if (!segment_near_sphere(e0, e1, V, eps)) {
            continue;
        }
        for (int v = 0; v < V->f->vertex_count; ++v) {
            const tch_vec3 p = V->v[v];
            if (!boxes_within(p, p, e0, e1, eps)) {
                continue;
            }
            const tch_vec3 c = closest_on_segment(p, e0, e1);
            const tch_real distance = tch_v3_dist(p, c);
            if (distance > eps) {
                continue;
            }
            const tch_vec3 outward = edge_mean_normal(E, e);
            const tch_feature_pair pair =
                flip ? (tch_feature_pair){TCH_FEATURE_EDGE_VERTEX, e, v, c, p,
                                          point_pair_normal(c, p, tch_v3_neg(outward)),
                                          distance, distance}
                     : (tch_feature_pair){TCH_FEATURE_VERTEX_EDGE, v, e, p, c,
                                          point_pair_normal(p, c, outward), distance,
                                          distance};
            if (!push_pair(out, pair)) {
                return 0;
            }
        }
    }
    return 1;
}

/* Twice the sum of the outward normals of the faces at vertex v (world frame). */
static tch_vec3 vertex_mean_normal(const posed* P, int v) {
    tch_vec3 sum = tch_v3_zero();
    for (int k = P->f->vertex_edge_start[v]; k < P->f->vertex_edge_start[v + 1]; ++k) {
        sum = tch_v3_add(sum, edge_mean_normal(P, P->f->vertex_edges[k]));
    }
    return sum;
}

static int vertex_vertex_pairs(const posed* A, const posed* B, tch_real eps,
                               tch_feature_pairs* out) {
    for (int i = 0; i < A->f->vertex_count; ++i) {
        if (!point_near_sphere(A->v[i], B, eps)) {
            continue;
        }
        for (int j = 0; j < B->f->vertex_count; ++j) {
            const tch_real distance = tch_v3_dist(A->v[i], B->v[j]);
            if (distance > eps) {
                continue;
            }
            const tch_vec3 n = point_pair_normal(A->v[i], B->v[j], vertex_mean_normal(B, j));
            const tch_feature_pair pair = {TCH_FEATURE_VERTEX_VERTEX, i, j, A->v[i], B->v[j],
                                           n, distance, distance};
            if (!push_pair(out, pair)) {
                return 0;
            }
        }
    }
    return 1;
}

static int pose_vertices(tch_feature_pairs* out, const tch_features* a, tch_transform pose_a,
                         const tch_features* b, tch_transform pose_b) {
    const int need = a->vertex_count > b->vertex_count ? a->vertex_count : b->vertex_count;
    if (need > out->point_capacity) {
        tch_vec3* wa = realloc(out->world_a, (size_t)need * sizeof *wa);
        if (wa) {
            out->world_a = wa;
        }
        tch_vec3* wb = realloc(out->world_b, (size_t)need * sizeof *wb);
        if (wb) {
            out->world_b = wb;
        }
        if (!wa || !wb) {
            return 0;
        }
        out->point_capacity = need;
    }
    for (int v = 0; v < a->vertex_count; ++v) {
        out->world_a[v] = tch_x_apply(pose_a, a->vertices[v]);
    }
    for (int v = 0; v < b->vertex_count; ++v) {
        out->world_b[v] = tch_x_apply(pose_b, b->vertices[v]);
    }
    return 1;
}

tch_status tch_feature_pairs_find(const tch_features* a, tch_transform pose_a,
                                  const tch_features* b, tch_transform pose_b,
                                  tch_real proximity, tch_feature_pairs* out, tch_error* err) {
    out->count = 0;
    if (!(proximity >= 0) || !isfinite(proximity)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "contact proximity must be finite and >= 0, got %g", proximity);
    }
    const tch_real centres = tch_v3_dist(tch_x_apply(pose_a, a->centre),
                                         tch_x_apply(pose_b, b->centre));
    if (centres > a->radius + b->radius + proximity) {
        return TCH_OK;
    }
    if (!pose_vertices(out, a, pose_a, b, pose_b)) {
        return out_of_memory(err);
    }
    /* the pre-tests' radii get a margin over the rounding of the poses */
    const tch_real slack = 1e-9 * (a->radius + b->radius + proximity);
    const posed A = {a, out->world_a, pose_a.q, tch_x_apply(pose_a, a->centre), a->radius + slack};
    const posed B = {b, out->world_b, pose_b.q, tch_x_apply(pose_b, b->centre), b->radius + slack};
    if (!vertex_face_pairs(&A, &B, 0, proximity, out) ||
        !vertex_face_pairs(&B, &A, 1, proximity, out) ||
        !edge_edge_pairs(&A, &B, proximity, out) ||
        !vertex_edge_pairs(&A, &B, 0, proximity, out) ||
        !vertex_edge_pairs(&B, &A, 1, proximity, out) ||
        !vertex_vertex_pairs(&A, &B, proximity, out)) {
        return out_of_memory(err);
    }
    return TCH_OK;
}

/* ---- relaxed applicability, eqs. 29-31 ---- */

tch_real tch_features_applicability_vertex_face(const tch_features* fv, tch_transform pose_v,
                                                int vertex, tch_vec3 face_normal) {
    /* the face normal in the vertex's geom frame: the test is rotation invariant */
    const tch_vec3 n = tch_q_inv_rotate(pose_v.q, face_normal);
    tch_real least = 1;
    for (int k = fv->vertex_edge_start[vertex]; k < fv->vertex_edge_start[vertex + 1]; ++k) {
        const tch_feature_edge* E = &fv->edges[fv->vertex_edges[k]];
        const int other = E->tail == vertex ? E->head : E->tail;
        const tch_vec3 d = tch_v3_normalize(tch_v3_sub(fv->vertices[other], fv->vertices[vertex]));
        least = fmin(least, tch_v3_dot(n, d));
    }
    return least;
}

tch_real tch_features_applicability_edge_edge(const tch_features* a, tch_transform pose_a,
                                              int edge_a, const tch_features* b,
                                              tch_transform pose_b, int edge_b) {
    const tch_vec3 ea = tch_q_rotate(pose_a.q, tch_features_edge_vector(a, edge_a));
    const tch_vec3 eb = tch_q_rotate(pose_b.q, tch_features_edge_vector(b, edge_b));
    const tch_vec3 cross = tch_v3_cross(ea, eb);
    if (tch_v3_norm(cross) <= TCH_FEATURES_PARALLEL_SINE * tch_v3_norm(ea) * tch_v3_norm(eb)) {
        return -1;
    }
    const tch_vec3 n = tch_v3_normalize(cross);
    tch_vec3 ta1, ta2, tb1, tb2;
    tch_features_edge_t_vectors(a, edge_a, &ta1, &ta2);
    tch_features_edge_t_vectors(b, edge_b, &tb1, &tb2);
    const tch_real a1 = tch_v3_dot(n, tch_q_rotate(pose_a.q, ta1));
    const tch_real a2 = tch_v3_dot(n, tch_q_rotate(pose_a.q, ta2));
    const tch_real b1 = tch_v3_dot(n, tch_q_rotate(pose_b.q, tb1));
    const tch_real b2 = tch_v3_dot(n, tch_q_rotate(pose_b.q, tb2));
    return fmax(fmin(fmin(a1, a2), fmin(-b1, -b2)), fmin(fmin(-a1, -a2), fmin(b1, b2)));
}

/* ---- feasibility, peg.md §5.2 ---- */

bool tch_features_vertex_face_feasible(const tch_features* f, tch_transform pose, int face,
                                       tch_vec3 point, tch_real proximity,
                                       tch_real depth_tolerance, tch_real angle) {
    /* in the polytope's geom frame, where distances are those of the world */
    const posed P = {f, f->vertices, tch_q_identity(), f->centre, f->radius};
    const tch_vec3 p = tch_x_apply_inverse(pose, point);
    const tch_vec3 n = f->face_normals[face];
    const tch_vec3 on_plane = f->vertices[f->face_vertices[f->face_start[face]]];
    const tch_real gap = tch_v3_dot(n, tch_v3_sub(p, on_plane));
    int inside;
    const tch_vec3 nearest = closest_on_face_inside(&P, face, p, &inside);
    const tch_real distance = tch_v3_dist(p, nearest);
    if (fabs(gap) > proximity || distance > proximity) {
        return false;
    }
    if (inside) {
        return gap >= -depth_tolerance;
    }
    /* outside the face's Voronoi region: above the surface descending at `angle` from the
     * nearest boundary point, and not farther than the proximity past it in the plane */
    const tch_vec3 in_plane = tch_v3_madd(tch_v3_sub(p, nearest), -gap, n);
    return tch_v3_norm(in_plane) <= proximity && gap >= -distance * sin(angle);
}
