/* Closedness, orientation and volume of a triangle surface (mesh_surface.h). Reading is in
 * mesh_io.c, next to the vertex readers it shares its parsers with. */
#include "geometry/mesh_surface.h"

#include <stdlib.h>

#include "base/error.h"
#include "math/vec.h"

/* A directed edge from -> to of triangle `triangle`. */
typedef struct directed_edge {
    int from, to, triangle;
} directed_edge;

/* Orders by the undirected edge (smaller end first), then by direction, then by triangle. */
static int compare_edges(const void* pa, const void* pb) {
    const directed_edge* a = pa;
    const directed_edge* b = pb;
    int a_lo = a->from < a->to ? a->from : a->to, b_lo = b->from < b->to ? b->from : b->to;
    int a_hi = a->from ^ a->to ^ a_lo, b_hi = b->from ^ b->to ^ b_lo;
    if (a_lo != b_lo)
        return a_lo < b_lo ? -1 : 1;
    if (a_hi != b_hi)
        return a_hi < b_hi ? -1 : 1;
    if (a->from != b->from)
        return a->from < b->from ? -1 : 1;
    return (a->triangle > b->triangle) - (a->triangle < b->triangle);
}

static tch_status edge_error(const tch_mesh_surface* s, const char* name, const directed_edge* e,
                             const char* what, tch_error* err) {
    tch_vec3 a = s->vertices[e->from], b = s->vertices[e->to];
    return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, name, 0,
                    "the mesh is not a closed, consistently oriented surface: the edge from "
                    "(%g, %g, %g) to (%g, %g, %g) %s; expected every edge shared by exactly two "
                    "triangles that run it in opposite directions",
                    a.x, a.y, a.z, b.x, b.y, b.z, what);
}

static int same_undirected(const directed_edge* a, const directed_edge* b) {
    return (a->from == b->from && a->to == b->to) || (a->from == b->to && a->to == b->from);
}

/* The first bad edge among the sorted edges [count]: each undirected edge must come as exactly
 * one pair (from, to), (to, from). */
static tch_status check_edges(const tch_mesh_surface* s, const char* name,
                              const directed_edge* edges, int count, tch_error* err) {
    int i = 0;
    while (i < count) {
        int j = i + 1;
        while (j < count && same_undirected(&edges[i], &edges[j])) {
            ++j;
        }
        if (j - i == 1) {
            return edge_error(s, name, &edges[i], "borders one triangle only (a hole)", err);
        }
        if (j - i > 2) {
            return edge_error(s, name, &edges[i], "is shared by more than two triangles", err);
        }
        if (edges[i].from == edges[i + 1].from) {
            return edge_error(s, name, &edges[i],
                              "is run in the same direction by two triangles (flipped faces)", err);
        }
        i = j;
    }
    return TCH_OK;
}

tch_real tch_mesh_surface_volume(const tch_mesh_surface* s) {
    tch_real six_volume = 0;
    for (int t = 0; t < s->triangle_count; ++t) {
        const int* c = s->triangles[t];
        six_volume +=
            tch_v3_dot(s->vertices[c[0]], tch_v3_cross(s->vertices[c[1]], s->vertices[c[2]]));
    }
    return six_volume / 6;
}

tch_status tch_mesh_surface_make_closed(tch_mesh_surface* s, const char* name, tch_error* err) {
    name = name ? name : "";
    if (s->triangle_count < 4) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, name, 0,
                        "the mesh has %d triangles; expected a closed surface (4 at least)",
                        s->triangle_count);
    }
    int count = 3 * s->triangle_count;
    directed_edge* edges = malloc((size_t)count * sizeof *edges);
    if (!edges) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, name, 0, "out of memory for the mesh's edges");
    }
    for (int t = 0; t < s->triangle_count; ++t) {
        for (int k = 0; k < 3; ++k) {
            edges[3 * t + k] = (directed_edge){s->triangles[t][k], s->triangles[t][(k + 1) % 3], t};
        }
    }
    qsort(edges, (size_t)count, sizeof *edges, compare_edges);
    tch_status status = check_edges(s, name, edges, count, err);
    free(edges);
    if (status != TCH_OK) {
        return status;
    }
    tch_real volume = tch_mesh_surface_volume(s);
    if (!(volume != 0)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, name, 0,
                        "the closed mesh encloses a volume of %g m^3; expected a solid", volume);
    }
    if (volume < 0) {
        tch_mesh_surface_flip(s);
    }
    return TCH_OK;
}

void tch_mesh_surface_flip(tch_mesh_surface* s) {
    for (int t = 0; t < s->triangle_count; ++t) {
        int swap = s->triangles[t][1];
        s->triangles[t][1] = s->triangles[t][2];
        s->triangles[t][2] = swap;
    }
}

void tch_mesh_surface_free(tch_mesh_surface* s) {
    if (s) {
        free(s->vertices);
        free(s->triangles);
        *s = (tch_mesh_surface){0};
    }
}
