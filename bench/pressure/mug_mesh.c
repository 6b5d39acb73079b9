/* The mug scene's cup (mug_mesh.h). */
#include "mug_mesh.h"

#include <math.h>
#include <stdlib.h>

static int popcount3(int c) {
    return (c & 1) + ((c >> 1) & 1) + ((c >> 2) & 1);
}

/* det[b - a, c - a, d - a] of four vertices in a flat xyz array */
static double volume6(const tch_real* v, const int t[4]) {
    double e[3][3];
    for (int r = 0; r < 3; ++r) {
        for (int k = 0; k < 3; ++k) {
            e[r][k] = v[3 * t[r + 1] + k] - v[3 * t[0] + k];
        }
    }
    return e[0][0] * (e[1][1] * e[2][2] - e[1][2] * e[2][1]) -
           e[0][1] * (e[1][0] * e[2][2] - e[1][2] * e[2][0]) +
           e[0][2] * (e[1][0] * e[2][1] - e[1][1] * e[2][0]);
}

/* The grid's shape: cells across a wall, across the cavity, and from the bottom to the rim. */
typedef struct cup_grid {
    int wall, cavity, nx, nz;
} cup_grid;

static int in_cavity(const cup_grid* g, int i, int j, int k) {
    int inner_end = g->wall + g->cavity;
    return i >= g->wall && i < inner_end && j >= g->wall && j < inner_end && k >= g->wall;
}

/* Coordinate of grid line i along an axis: `wall` cells over the first `thickness`, then even
 * cells to the far side (and, across, back through the far wall). */
static double line_at(int i, int wall, int middle, double lo, double thickness, double span) {
    if (i <= wall) {
        return lo + thickness * i / wall;
    }
    if (i <= wall + middle) {
        return lo + thickness + span * (i - wall) / middle;
    }
    return lo + thickness + span + thickness * (i - wall - middle) / wall;
}
/* Appends the five tets of voxel (i, j, k); corner c of the voxel is grid vertex
 * (i + (c & 1), j + (c >> 1 & 1), k + (c >> 2 & 1)). */
static void add_voxel(const cup_grid* g, int i, int j, int k, const tch_real* vertices, int* tets,
                      int* tet_count) {
    int corner[8];
    for (int c = 0; c < 8; ++c) {
        corner[c] =
            ((k + (c >> 2 & 1)) * (g->nx + 1) + j + (c >> 1 & 1)) * (g->nx + 1) + i + (c & 1);
    }
    int central_parity = (i + j + k) % 2, m = 0;
    int* central = tets + 4 * *tet_count; /* the four corners of one parity */
    int* t = central + 4;                 /* each other corner with its three neighbours */
    for (int c = 0; c < 8; ++c) {
        if (popcount3(c) % 2 == central_parity) {
            central[m++] = corner[c];
        } else {
            t[0] = corner[c], t[1] = corner[c ^ 1], t[2] = corner[c ^ 2], t[3] = corner[c ^ 4];
            t += 4;
        }
    }
    for (int q = *tet_count; q < *tet_count + 5; ++q) {
        int* tet = tets + 4 * q;
        if (volume6(vertices, tet) < 0) {
            int swap = tet[2];
            tet[2] = tet[3], tet[3] = swap;
        }
    }
    *tet_count += 5;
}

tch_status mm_cup_mesh(int wall_cells, int cavity_cells, double half, tch_tetmesh** out,
                       tch_error* err) {
    double thickness = half / 4, inner = 2 * (half - thickness), height = 2 * half - thickness;
    cup_grid g = {wall_cells, cavity_cells, 2 * wall_cells + cavity_cells, 0};
    int rise = (int)lround(cavity_cells * height / inner); /* cells from the bottom to the rim */
    g.nz = wall_cells + rise;
    int side = g.nx + 1, vertex_count = side * side * (g.nz + 1);
    tch_real* vertices = malloc((size_t)vertex_count * 3 * sizeof *vertices);
    int* tets = malloc((size_t)g.nx * g.nx * g.nz * 5 * 4 * sizeof *tets);
    int* used = calloc((size_t)vertex_count, sizeof *used);
    tch_status status = TCH_ERR_OUT_OF_MEMORY;
    if (vertices && tets && used) {
        for (int v = 0; v < vertex_count; ++v) {
            vertices[3 * v] = line_at(v % side, wall_cells, cavity_cells, -half, thickness, inner);
            vertices[3 * v + 1] =
                line_at(v / side % side, wall_cells, cavity_cells, -half, thickness, inner);
            vertices[3 * v + 2] =
                line_at(v / (side * side), wall_cells, rise, -half, thickness, height);
        }
        int tet_count = 0;
        for (int k = 0; k < g.nz; ++k) {
            for (int j = 0; j < g.nx; ++j) {
                for (int i = 0; i < g.nx; ++i) {
                    if (!in_cavity(&g, i, j, k)) {
                        add_voxel(&g, i, j, k, vertices, tets, &tet_count);
                    }
                }
            }
        }
        /* keep only the vertices the tets use, renumbered in order */
        int kept = 0;
        for (int q = 0; q < 4 * tet_count; ++q) {
            used[tets[q]] = 1;
        }
        for (int v = 0; v < vertex_count; ++v) {
            if (used[v]) {
                for (int c = 0; c < 3; ++c) {
                    vertices[3 * kept + c] = vertices[3 * v + c];
                }
                used[v] = ++kept;
            }
        }
        for (int q = 0; q < 4 * tet_count; ++q) {
            tets[q] = used[tets[q]] - 1;
        }
        status = tch_tetmesh_create(vertices, kept, tets, tet_count, NULL, out, err);
    }
    free(used);
    free(tets);
    free(vertices);
    return status;
}
