/* Shared support of the pressure-model benchmarks (pressure_bench.h). */
#include "pressure_bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

void pb_print_run_header(const char* program) {
    const char* commit = getenv("TCH_COMMIT");
    time_t now = time(NULL);
    char date[32], cpu[256];
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    bench_cpu_model(cpu, sizeof cpu);
    printf("# %s, %s, commit %s, CPU %s\n", program, date, commit ? commit : TCH_GIT_COMMIT, cpu);
}

void pb_finish_body(pb_body* b, double modulus) {
    tch_aabb* boxes = malloc((size_t)b->mesh.tet_count * sizeof *boxes);
    tch_tetmesh_tet_boxes(&b->mesh, boxes);
    tch_bvh_build(boxes, b->mesh.tet_count, &b->bvh, NULL);
    tch_tetmesh_face_boxes(&b->mesh, boxes);
    tch_bvh_build(boxes, b->mesh.face_count, &b->face_bvh, NULL);
    free(boxes);
    b->node_epsilon = malloc((size_t)b->bvh.node_count * sizeof *b->node_epsilon);
    tch_pressure_node_ranges(&b->mesh, &b->bvh, b->node_epsilon);
    b->pressure = (tch_pressure_body){&b->mesh, &b->bvh, modulus};
    b->rigid =
        (tch_rigid_surface){b->mesh.vertices_G, b->mesh.vertex_count,
                            (const int(*)[3])b->mesh.faces, b->mesh.face_count, &b->face_bvh};
}

void pb_free_body(pb_body* b) {
    tch_tetmesh_free(&b->mesh);
    tch_bvh_free(&b->bvh);
    tch_bvh_free(&b->face_bvh);
    free(b->node_epsilon);
}

void pb_finish_surface(pb_surface* s) {
    tch_aabb* boxes = malloc((size_t)s->triangle_count * sizeof *boxes);
    tch_pressure_triangle_boxes(s->vertices, (const int(*)[3])s->triangles, s->triangle_count,
                                boxes);
    tch_bvh_build(boxes, s->triangle_count, &s->bvh, NULL);
    free(boxes);
    s->rigid = (tch_rigid_surface){s->vertices, s->vertex_count, (const int(*)[3])s->triangles,
                                   s->triangle_count, &s->bvh};
}

void pb_free_surface(pb_surface* s) {
    free(s->vertices);
    free(s->triangles);
    tch_bvh_free(&s->bvh);
}

/* ---- the refined-octahedron sphere of Drake's benchmark ---- */

typedef struct refined {
    tch_vec3* vertices;       /* on the unit sphere and inside */
    unsigned char* boundary;  /* 1 for a vertex on the unit sphere */
    int vertex_count;
    int (*tets)[4];
    int tet_count;
} refined;

typedef struct edge_key {
    int lo, hi;
} edge_key;

static int compare_edge_keys(const void* pa, const void* pb) {
    const edge_key *a = pa, *b = pb;
    if (a->lo != b->lo) return a->lo < b->lo ? -1 : 1;
    return (a->hi > b->hi) - (a->hi < b->hi);
}

static edge_key make_edge(int a, int b) {
    return a < b ? (edge_key){a, b} : (edge_key){b, a};
}

/* Appends tet (a, b, c, d), reordered to positive orientation. */
static void add_tet(refined* r, int a, int b, int c, int d) {
    const tch_vec3* v = r->vertices;
    int* t = r->tets[r->tet_count++];
    int flip = tch_tet_volume6(v[a], v[b], v[c], v[d]) < 0;
    t[0] = a, t[1] = b, t[2] = flip ? d : c, t[3] = flip ? c : d;
}

/* The index of the midpoint vertex of edge (a, b): first_mid + its rank in the sorted edges. */
static int midpoint(const edge_key* edges, int edge_count, int first_mid, int a, int b) {
    edge_key key = make_edge(a, b);
    const edge_key* e = bsearch(&key, edges, (size_t)edge_count, sizeof key, compare_edge_keys);
    return first_mid + (int)(e - edges);
}

/* Splits the octahedron of midpoints e f g h i j (edges ab ac ad bc bd cd) along its shortest
 * diagonal into 4 tets around it. */
static void split_octahedron(refined* r, const int m[6]) {
    static const int diagonal[3][2] = {{0, 5}, {1, 4}, {2, 3}};  /* e-j, f-i, g-h */
    static const int ring[3][4] = {{1, 2, 4, 3}, {0, 2, 5, 3}, {0, 1, 5, 4}};
    int best = 0;
    double shortest = 1e300;
    for (int k = 0; k < 3; ++k) {
        double l = tch_v3_norm2(tch_v3_sub(r->vertices[m[diagonal[k][0]]],
                                           r->vertices[m[diagonal[k][1]]]));
        if (l < shortest) shortest = l, best = k;
    }
    for (int k = 0; k < 4; ++k) {
        add_tet(r, m[diagonal[best][0]], m[diagonal[best][1]], m[ring[best][k]],
                m[ring[best][(k + 1) % 4]]);
    }
}

/* One refinement of r into out: every tet into 8. */
static int refine(const refined* r, refined* out) {
    static const int pairs[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};
    edge_key* edges = malloc((size_t)r->tet_count * 6 * sizeof *edges);
    if (!edges) return -1;
    for (int t = 0; t < r->tet_count; ++t)
        for (int k = 0; k < 6; ++k)
            edges[6 * t + k] = make_edge(r->tets[t][pairs[k][0]], r->tets[t][pairs[k][1]]);
    qsort(edges, (size_t)r->tet_count * 6, sizeof *edges, compare_edge_keys);
    int edge_count = 0;
    for (int i = 0; i < r->tet_count * 6; ++i)
        if (i == 0 || compare_edge_keys(&edges[i], &edges[edge_count - 1]) != 0)
            edges[edge_count++] = edges[i];
    *out = (refined){malloc((size_t)(r->vertex_count + edge_count) * sizeof(tch_vec3)),
                     malloc((size_t)(r->vertex_count + edge_count)), r->vertex_count + edge_count,
                     malloc((size_t)r->tet_count * 8 * sizeof(int[4])), 0};
    if (!out->vertices || !out->boundary || !out->tets) {
        free(edges);
        return -1;
    }
    memcpy(out->vertices, r->vertices, (size_t)r->vertex_count * sizeof(tch_vec3));
    memcpy(out->boundary, r->boundary, (size_t)r->vertex_count);
    for (int i = 0; i < edge_count; ++i) {
        int a = edges[i].lo, b = edges[i].hi, v = r->vertex_count + i;
        tch_vec3 mid = tch_v3_scale(tch_v3_add(r->vertices[a], r->vertices[b]), 0.5);
        out->boundary[v] = r->boundary[a] && r->boundary[b];
        out->vertices[v] = out->boundary[v] ? tch_v3_normalize(mid) : mid;
    }
    for (int t = 0; t < r->tet_count; ++t) {
        const int* c = r->tets[t];
        int m[6];
        for (int k = 0; k < 6; ++k)
            m[k] = midpoint(edges, edge_count, r->vertex_count, c[pairs[k][0]], c[pairs[k][1]]);
        /* m = e f g h i j: the corners keep a tet each */
        add_tet(out, c[0], m[0], m[1], m[2]);
        add_tet(out, c[1], m[3], m[0], m[4]);
        add_tet(out, m[1], m[3], c[2], m[5]);
        add_tet(out, m[5], m[2], m[4], c[3]);
        split_octahedron(out, m);
    }
    free(edges);
    return 0;
}

static void free_refined(refined* r) {
    free(r->vertices);
    free(r->boundary);
    free(r->tets);
}

int pb_make_refined_ellipsoid(tch_vec3 radii, int level, tch_tetmesh* out) {
    refined r = {malloc(7 * sizeof(tch_vec3)), malloc(7), 7, malloc(8 * sizeof(int[4])), 0};
    if (!r.vertices || !r.boundary || !r.tets) {
        free_refined(&r);
        return -1;
    }
    r.vertices[0] = tch_v3_zero();
    r.boundary[0] = 0;
    for (int k = 0; k < 6; ++k) {
        r.vertices[1 + k] = tch_v3_zero();
        tch_v3_set(&r.vertices[1 + k], k / 2, k % 2 ? -1 : 1);
        r.boundary[1 + k] = 1;
    }
    for (int s = 0; s < 8; ++s) /* one tet per octant: the centre and the three axis tips */
        add_tet(&r, 0, 1 + (s & 1), 3 + (s >> 1 & 1), 5 + (s >> 2 & 1));
    int status = 0;
    for (int l = 0; l < level && status == 0; ++l) {
        refined finer;
        status = refine(&r, &finer);
        free_refined(&r);
        r = finer;
    }
    tch_real* epsilon = malloc((size_t)r.vertex_count * sizeof *epsilon);
    if (status != 0 || !epsilon) {
        free(epsilon);
        free_refined(&r);
        return -1;
    }
    for (int v = 0; v < r.vertex_count; ++v) {
        epsilon[v] = r.boundary[v] ? 0 : 1 - tch_v3_norm(r.vertices[v]);
        r.vertices[v] = (tch_vec3){radii.x * r.vertices[v].x, radii.y * r.vertices[v].y,
                                   radii.z * r.vertices[v].z};
    }
    tch_status st = tch_tetmesh_build(TCH_TETMESH_SOLID, r.vertices, r.vertex_count,
                                      (const int(*)[4])r.tets, r.tet_count, epsilon, out, NULL);
    free(epsilon);
    free_refined(&r);
    return st == TCH_OK ? 0 : -1;
}
