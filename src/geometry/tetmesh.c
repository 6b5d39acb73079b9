/* Tet mesh building, validation, boundary extraction and the penetration-extent field.
 *
 * The boundary comes from sorting the 4 T faces of all tets by their sorted vertex triple: a
 * triple seen once is a boundary face, twice an interior face (whose two tets must see it with
 * opposite orientations, else they overlap), more often an error. The boundary edges are then
 * sorted the same way and must each be used by exactly two boundary faces.
 */
#include "geometry/tetmesh.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "math/vec.h"

/* Outward faces of a positively oriented tet (v0, v1, v2, v3): the face opposite vertex i is
 * kOutwardFaces[i], counter-clockwise seen from outside. */
static const int kOutwardFaces[4][3] = {{1, 2, 3}, {0, 3, 2}, {0, 1, 3}, {0, 2, 1}};

/* ---- tet geometry ---- */

tch_real tch_tet_volume6(tch_vec3 v0, tch_vec3 v1, tch_vec3 v2, tch_vec3 v3) {
    tch_vec3 e1 = tch_v3_sub(v1, v0), e2 = tch_v3_sub(v2, v0), e3 = tch_v3_sub(v3, v0);
    return tch_v3_dot(e1, tch_v3_cross(e2, e3));
}

tch_vec3 tch_tet_gradient(const tch_vec3 v[4], const tch_real f[4]) {
    tch_vec3 e1 = tch_v3_sub(v[1], v[0]), e2 = tch_v3_sub(v[2], v[0]), e3 = tch_v3_sub(v[3], v[0]);
    tch_vec3 c23 = tch_v3_cross(e2, e3), c31 = tch_v3_cross(e3, e1), c12 = tch_v3_cross(e1, e2);
    tch_real det = tch_v3_dot(e1, c23);
    tch_vec3 g = tch_v3_scale(c23, f[1] - f[0]);
    g = tch_v3_madd(g, f[2] - f[0], c31);
    g = tch_v3_madd(g, f[3] - f[0], c12);
    return tch_v3_scale(g, 1 / det);
}

void tch_tet_barycentric(const tch_vec3 v[4], tch_vec3 p, tch_real b[4]) {
    tch_vec3 e1 = tch_v3_sub(v[1], v[0]), e2 = tch_v3_sub(v[2], v[0]), e3 = tch_v3_sub(v[3], v[0]);
    tch_vec3 d = tch_v3_sub(p, v[0]);
    tch_real inv_det = 1 / tch_v3_dot(e1, tch_v3_cross(e2, e3));
    b[1] = tch_v3_dot(d, tch_v3_cross(e2, e3)) * inv_det;
    b[2] = tch_v3_dot(d, tch_v3_cross(e3, e1)) * inv_det;
    b[3] = tch_v3_dot(d, tch_v3_cross(e1, e2)) * inv_det;
    b[0] = 1 - b[1] - b[2] - b[3];
}

void tch_tetmesh_tet_vertices(const tch_tetmesh* mesh, int t, tch_vec3 v[4]) {
    for (int i = 0; i < 4; ++i) {
        v[i] = mesh->vertices_G[mesh->tets[t][i]];
    }
}

tch_real tch_tetmesh_volume(const tch_tetmesh* mesh) {
    tch_real sum = 0;
    for (int t = 0; t < mesh->tet_count; ++t) {
        tch_vec3 v[4];
        tch_tetmesh_tet_vertices(mesh, t, v);
        sum += tch_tet_volume6(v[0], v[1], v[2], v[3]) / 6;
    }
    return sum;
}

tch_real tch_tetmesh_epsilon_at(const tch_tetmesh* mesh, int t, tch_vec3 p_G) {
    tch_vec3 v[4];
    tch_real b[4];
    tch_tetmesh_tet_vertices(mesh, t, v);
    tch_tet_barycentric(v, p_G, b);
    tch_real e = 0;
    for (int i = 0; i < 4; ++i) {
        e += b[i] * mesh->epsilon[mesh->tets[t][i]];
    }
    return e;
}

static tch_aabb box_of_indices(const tch_vec3* points, const int* indices, int count) {
    tch_aabb box = {points[indices[0]], points[indices[0]]};
    for (int i = 1; i < count; ++i) {
        box.lo = tch_v3_min(box.lo, points[indices[i]]);
        box.hi = tch_v3_max(box.hi, points[indices[i]]);
    }
    return box;
}

void tch_tetmesh_tet_boxes(const tch_tetmesh* mesh, tch_aabb* boxes_G) {
    for (int t = 0; t < mesh->tet_count; ++t) {
        boxes_G[t] = box_of_indices(mesh->vertices_G, mesh->tets[t], 4);
    }
}

void tch_tetmesh_face_boxes(const tch_tetmesh* mesh, tch_aabb* boxes_G) {
    for (int f = 0; f < mesh->face_count; ++f) {
        boxes_G[f] = box_of_indices(mesh->vertices_G, mesh->faces[f], 3);
    }
}

/* ---- allocation ---- */

void tch_tetmesh_free(tch_tetmesh* mesh) {
    if (!mesh) {
        return;
    }
    free(mesh->vertices_G);
    free(mesh->tets);
    free(mesh->epsilon);
    free(mesh->tet_gradient_G);
    free(mesh->vertex_gradient_G);
    free(mesh->faces);
    free(mesh->face_tet);
    free(mesh->vertex_on_boundary);
    memset(mesh, 0, sizeof *mesh);
}

static tch_status out_of_memory(tch_error* err) {
    return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory while building a tet mesh");
}

/* malloc'ed copy of count elements of `size` bytes; NULL src gives NULL (not a failure). */
static void* duplicate(const void* src, size_t count, size_t size, int* failed) {
    if (!src) {
        return NULL;
    }
    void* dst = malloc(count * size > 0 ? count * size : 1);
    if (!dst) {
        *failed = 1;
        return NULL;
    }
    memcpy(dst, src, count * size);
    return dst;
}

tch_status tch_tetmesh_copy(const tch_tetmesh* src, tch_tetmesh* dst, tch_error* err) {
    size_t nv = (size_t)src->vertex_count, nt = (size_t)src->tet_count;
    size_t nf = (size_t)src->face_count;
    int failed = 0;
    *dst = *src;
    dst->vertices_G = duplicate(src->vertices_G, nv, sizeof *src->vertices_G, &failed);
    dst->tets = duplicate(src->tets, nt, sizeof *src->tets, &failed);
    dst->epsilon = duplicate(src->epsilon, nv, sizeof *src->epsilon, &failed);
    dst->tet_gradient_G = duplicate(src->tet_gradient_G, nt, sizeof *src->tet_gradient_G, &failed);
    dst->vertex_gradient_G =
        duplicate(src->vertex_gradient_G, nv, sizeof *src->vertex_gradient_G, &failed);
    dst->faces = duplicate(src->faces, nf, sizeof *src->faces, &failed);
    dst->face_tet = duplicate(src->face_tet, nf, sizeof *src->face_tet, &failed);
    dst->vertex_on_boundary =
        duplicate(src->vertex_on_boundary, nv, sizeof *src->vertex_on_boundary, &failed);
    if (failed) {
        tch_tetmesh_free(dst);
        return out_of_memory(err);
    }
    return TCH_OK;
}

/* ---- validation of the arrays ---- */

static tch_status check_indices(const tch_tetmesh* m, tch_error* err) {
    for (int v = 0; v < m->vertex_count; ++v) {
        if (!tch_v3_isfinite(m->vertices_G[v])) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "vertex %d has a non-finite coordinate (%g %g %g); expected finite "
                            "coordinates",
                            v, m->vertices_G[v].x, m->vertices_G[v].y, m->vertices_G[v].z);
        }
    }
    unsigned char* used = calloc((size_t)m->vertex_count, 1);
    if (!used) {
        return out_of_memory(err);
    }
    tch_status status = TCH_OK;
    for (int t = 0; t < m->tet_count && status == TCH_OK; ++t) {
        for (int i = 0; i < 4; ++i) {
            int v = m->tets[t][i];
            if (v < 0 || v >= m->vertex_count) {
                status = tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                                  "tet %d: vertex index %d is out of range; expected 0 to %d", t,
                                  v, m->vertex_count - 1);
                break;
            }
            used[v] = 1;
        }
    }
    for (int v = 0; v < m->vertex_count && status == TCH_OK; ++v) {
        if (!used[v]) {
            status = tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                              "vertex %d is used by no tet; expected every vertex in a tet", v);
        }
    }
    free(used);
    return status;
}

static tch_real longest_edge(const tch_vec3 v[4]) {
    tch_real longest = 0;
    for (int i = 0; i < 4; ++i) {
        for (int j = i + 1; j < 4; ++j) {
            longest = fmax(longest, tch_v3_dist(v[i], v[j]));
        }
    }
    return longest;
}

static tch_status check_orientation(const tch_tetmesh* m, tch_error* err) {
    for (int t = 0; t < m->tet_count; ++t) {
        tch_vec3 v[4];
        tch_tetmesh_tet_vertices(m, t, v);
        tch_real volume6 = tch_tet_volume6(v[0], v[1], v[2], v[3]);
        tch_real edge = longest_edge(v);
        tch_real tol = TCH_TETMESH_VOLUME_TOLERANCE * edge * edge * edge;
        const int* q = m->tets[t];
        if (volume6 < -tol) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "tet %d (vertices %d %d %d %d) is inverted: 6V = %g; expected "
                            "det[v1-v0, v2-v0, v3-v0] > 0 (swap two vertices)",
                            t, q[0], q[1], q[2], q[3], volume6);
        }
        if (!(volume6 > tol)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "tet %d (vertices %d %d %d %d) has zero volume: |6V| = %g <= %g "
                            "(1e-10 x longest edge^3); expected a non-flat tet",
                            t, q[0], q[1], q[2], q[3], volume6, tol);
        }
    }
    return TCH_OK;
}

/* ---- boundary ---- */

typedef struct face_record {
    int v[3];     /* sorted vertex indices */
    int tet, opposite; /* the tet and its local vertex opposite the face */
    int parity;   /* 0 when the outward order is an even permutation of the sorted one */
} face_record;

static int compare_ints(const int* a, const int* b, int n) {
    for (int i = 0; i < n; ++i) {
        if (a[i] != b[i]) {
            return a[i] < b[i] ? -1 : 1;
        }
    }
    return 0;
}

static int compare_faces(const void* pa, const void* pb) {
    const face_record *a = pa, *b = pb;
    int c = compare_ints(a->v, b->v, 3);
    return c ? c : compare_ints(&a->tet, &b->tet, 1);
}

/* Sorts v[3] ascending; returns the parity of the permutation applied. */
static int sort3(int v[3]) {
    int parity = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (int i = 0; i < 2 - pass; ++i) {
            if (v[i] > v[i + 1]) {
                int s = v[i];
                v[i] = v[i + 1];
                v[i + 1] = s;
                parity ^= 1;
            }
        }
    }
    return parity;
}

static face_record make_face_record(const tch_tetmesh* m, int t, int opposite) {
    face_record r;
    for (int k = 0; k < 3; ++k) {
        r.v[k] = m->tets[t][kOutwardFaces[opposite][k]];
    }
    r.tet = t;
    r.opposite = opposite;
    r.parity = sort3(r.v);
    return r;
}

/* Checks a group of records with the same vertex triple: one (boundary) or two tets seeing the
 * face with opposite orientations. */
static tch_status check_face_group(const face_record* r, int count, tch_error* err) {
    if (count > 2) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "face (%d %d %d) is shared by %d tets (%d, %d, %d, ...); expected at most "
                        "2",
                        r->v[0], r->v[1], r->v[2], count, r[0].tet, r[1].tet, r[2].tet);
    }
    if (count == 2 && r[0].parity == r[1].parity) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "tets %d and %d lie on the same side of their shared face (%d %d %d): "
                        "they overlap; expected tets on opposite sides",
                        r[0].tet, r[1].tet, r->v[0], r->v[1], r->v[2]);
    }
    return TCH_OK;
}

/* Sorted face records of all tets, or NULL when out of memory. */
static face_record* sorted_faces(const tch_tetmesh* m) {
    size_t count = 4 * (size_t)m->tet_count;
    face_record* records = malloc(count * sizeof *records);
    if (!records) {
        return NULL;
    }
    for (int t = 0; t < m->tet_count; ++t) {
        for (int i = 0; i < 4; ++i) {
            records[4 * (size_t)t + (size_t)i] = make_face_record(m, t, i);
        }
    }
    qsort(records, count, sizeof *records, compare_faces);
    return records;
}

/* Fills m->faces, face_tet and vertex_on_boundary from the faces seen once. */
static tch_status extract_boundary(tch_tetmesh* m, tch_error* err) {
    face_record* r = sorted_faces(m);
    size_t count = 4 * (size_t)m->tet_count;
    m->faces = malloc(count * sizeof *m->faces);
    m->face_tet = malloc(count * sizeof *m->face_tet);
    m->vertex_on_boundary = calloc((size_t)m->vertex_count, 1);
    if (!r || !m->faces || !m->face_tet || !m->vertex_on_boundary) {
        free(r);
        return out_of_memory(err);
    }
    tch_status status = TCH_OK;
    m->face_count = 0;
    for (size_t i = 0; i < count && status == TCH_OK;) {
        size_t j = i + 1;
        while (j < count && compare_ints(r[j].v, r[i].v, 3) == 0) {
            ++j;
        }
        status = check_face_group(&r[i], (int)(j - i), err);
        if (j == i + 1) {
            int f = m->face_count++;
            for (int k = 0; k < 3; ++k) {
                m->faces[f][k] = m->tets[r[i].tet][kOutwardFaces[r[i].opposite][k]];
                m->vertex_on_boundary[m->faces[f][k]] = 1;
            }
            m->face_tet[f] = r[i].tet;
        }
        i = j;
    }
    free(r);
    return status;
}

static int compare_edges(const void* pa, const void* pb) {
    return compare_ints(pa, pb, 2);
}

/* Every boundary edge must be used by exactly two boundary faces. */
static tch_status check_manifold(const tch_tetmesh* m, tch_error* err) {
    size_t count = 3 * (size_t)m->face_count;
    int (*edges)[2] = malloc((count > 0 ? count : 1) * sizeof *edges);
    if (!edges) {
        return out_of_memory(err);
    }
    for (int f = 0; f < m->face_count; ++f) {
        for (int k = 0; k < 3; ++k) {
            int a = m->faces[f][k], b = m->faces[f][(k + 1) % 3];
            edges[3 * f + k][0] = a < b ? a : b;
            edges[3 * f + k][1] = a < b ? b : a;
        }
    }
    qsort(edges, count, sizeof *edges, compare_edges);
    tch_status status = TCH_OK;
    for (size_t i = 0; i < count && status == TCH_OK;) {
        size_t j = i + 1;
        while (j < count && compare_edges(edges[j], edges[i]) == 0) {
            ++j;
        }
        if (j - i != 2) {
            status = tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                              "boundary edge (%d %d) is used by %d boundary faces; expected 2 "
                              "(the boundary is not a closed manifold)",
                              edges[i][0], edges[i][1], (int)(j - i));
        }
        i = j;
    }
    free(edges);
    return status;
}

/* ---- field ---- */

/* Whether vertex v must have ε = 0: every boundary vertex of a solid, the top ones of a slab. */
static int needs_zero_field(const tch_tetmesh* m, int v) {
    if (!m->vertex_on_boundary[v]) {
        return 0;
    }
    return m->kind == TCH_TETMESH_SOLID || m->vertices_G[v].z >= m->bounds_G.hi.z;
}

static tch_status check_field(const tch_tetmesh* m, const tch_real* epsilon, tch_error* err) {
    const tch_real tol = TCH_TETMESH_FIELD_TOLERANCE;
    for (int v = 0; v < m->vertex_count; ++v) {
        tch_real e = epsilon[v];
        if (!(e >= -tol && e <= 1 + tol)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "vertex %d has epsilon %g; expected a finite value in [0, 1]", v, e);
        }
        if (needs_zero_field(m, v) && fabs(e) > tol) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "vertex %d is on the surface but has epsilon %g; expected 0 on the "
                            "surface",
                            v, e);
        }
    }
    return TCH_OK;
}

static tch_real snap_field(const tch_tetmesh* m, int v, tch_real e) {
    return needs_zero_field(m, v) ? 0.0 : fmin(fmax(e, 0.0), 1.0);
}

/* Tet gradients (exact for the linear interpolation) and vertex gradients as the
 * volume-weighted mean of the gradients of the tets around each vertex (the paper's ∇̃ε). */
static void compute_gradients(const tch_tetmesh* m, const tch_real* epsilon, tch_vec3* tet_g,
                              tch_vec3* vertex_g, tch_real* weight) {
    for (int v = 0; v < m->vertex_count; ++v) {
        vertex_g[v] = tch_v3_zero();
        weight[v] = 0;
    }
    for (int t = 0; t < m->tet_count; ++t) {
        tch_vec3 v[4];
        tch_real f[4];
        tch_tetmesh_tet_vertices(m, t, v);
        for (int i = 0; i < 4; ++i) {
            f[i] = epsilon[m->tets[t][i]];
        }
        tet_g[t] = tch_tet_gradient(v, f);
        tch_real volume = tch_tet_volume6(v[0], v[1], v[2], v[3]) / 6;
        for (int i = 0; i < 4; ++i) {
            int k = m->tets[t][i];
            vertex_g[k] = tch_v3_madd(vertex_g[k], volume, tet_g[t]);
            weight[k] += volume;
        }
    }
    for (int v = 0; v < m->vertex_count; ++v) {
        vertex_g[v] = tch_v3_scale(vertex_g[v], 1 / weight[v]);
    }
}

tch_status tch_tetmesh_set_field(tch_tetmesh* mesh, const tch_real* epsilon, tch_error* err) {
    tch_status status = check_field(mesh, epsilon, err);
    if (status != TCH_OK) {
        return status;
    }
    size_t nv = (size_t)mesh->vertex_count, nt = (size_t)mesh->tet_count;
    tch_real* field = malloc(nv * sizeof *field);
    tch_real* weight = malloc(nv * sizeof *weight);
    tch_vec3* tet_g = malloc(nt * sizeof *tet_g);
    tch_vec3* vertex_g = malloc(nv * sizeof *vertex_g);
    if (!field || !weight || !tet_g || !vertex_g) {
        free(field);
        free(weight);
        free(tet_g);
        free(vertex_g);
        return out_of_memory(err);
    }
    for (int v = 0; v < mesh->vertex_count; ++v) {
        field[v] = snap_field(mesh, v, epsilon[v]);
    }
    compute_gradients(mesh, field, tet_g, vertex_g, weight);
    free(weight);
    free(mesh->epsilon);
    free(mesh->tet_gradient_G);
    free(mesh->vertex_gradient_G);
    mesh->epsilon = field;
    mesh->tet_gradient_G = tet_g;
    mesh->vertex_gradient_G = vertex_g;
    mesh->has_field = true;
    return TCH_OK;
}

/* ---- build ---- */

static tch_status check_counts(int vertex_count, int tet_count, tch_error* err) {
    if (vertex_count < 4 || tet_count < 1) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "tet mesh has %d vertices and %d tets; expected at least 4 and 1",
                        vertex_count, tet_count);
    }
    if (tet_count > INT_MAX / 4) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "tet mesh has %d tets; at most %d are supported", tet_count, INT_MAX / 4);
    }
    return TCH_OK;
}

static void compute_bounds(tch_tetmesh* m) {
    m->bounds_G.lo = m->bounds_G.hi = m->vertices_G[0];
    for (int v = 1; v < m->vertex_count; ++v) {
        m->bounds_G.lo = tch_v3_min(m->bounds_G.lo, m->vertices_G[v]);
        m->bounds_G.hi = tch_v3_max(m->bounds_G.hi, m->vertices_G[v]);
    }
}

static tch_status validate_and_derive(tch_tetmesh* m, const tch_real* epsilon, tch_error* err) {
    tch_status status = check_indices(m, err);
    if (status == TCH_OK) {
        status = check_orientation(m, err);
    }
    if (status == TCH_OK) {
        status = extract_boundary(m, err);
    }
    if (status == TCH_OK) {
        status = check_manifold(m, err);
    }
    if (status == TCH_OK) {
        compute_bounds(m);
        m->volume = tch_tetmesh_volume(m);
    }
    if (status == TCH_OK && epsilon) {
        status = tch_tetmesh_set_field(m, epsilon, err);
    }
    return status;
}

tch_status tch_tetmesh_build(tch_tetmesh_kind kind, const tch_vec3* vertices_G, int vertex_count,
                             const int (*tets)[4], int tet_count, const tch_real* epsilon,
                             tch_tetmesh* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    tch_status status = check_counts(vertex_count, tet_count, err);
    if (status != TCH_OK) {
        return status;
    }
    int failed = 0;
    out->kind = kind;
    out->vertex_count = vertex_count;
    out->tet_count = tet_count;
    out->vertices_G = duplicate(vertices_G, (size_t)vertex_count, sizeof *vertices_G, &failed);
    out->tets = duplicate(tets, (size_t)tet_count, sizeof *tets, &failed);
    status = failed ? out_of_memory(err) : validate_and_derive(out, epsilon, err);
    if (status != TCH_OK) {
        tch_tetmesh_free(out);
    }
    return status;
}
