#include "geometry/laplace_field.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "math/vec.h"

/* Gradients of the four barycentric functions of a tet and its volume (P1 elements):
 * ∇φ_i = (face opposite i, area-weighted normal pointing to i) / (3 V). */
static int tet_gradients(const tch_vec3 p[4], tch_vec3 grad[4], tch_real* volume) {
    tch_vec3 e1 = tch_v3_sub(p[1], p[0]), e2 = tch_v3_sub(p[2], p[0]), e3 = tch_v3_sub(p[3], p[0]);
    tch_real six_volume = tch_v3_dot(e1, tch_v3_cross(e2, e3));
    if (!(six_volume > 0)) {
        return 0;
    }
    /* Rows of the inverse of [e1 e2 e3]^T are the gradients of φ_1..φ_3. */
    grad[1] = tch_v3_scale(tch_v3_cross(e2, e3), 1 / six_volume);
    grad[2] = tch_v3_scale(tch_v3_cross(e3, e1), 1 / six_volume);
    grad[3] = tch_v3_scale(tch_v3_cross(e1, e2), 1 / six_volume);
    grad[0] = tch_v3_neg(tch_v3_add(tch_v3_add(grad[1], grad[2]), grad[3]));
    *volume = six_volume / 6;
    return 1;
}

typedef struct laplace_system {
    cholmod_common common;
    cholmod_triplet* triplets; /* K_ff, lower triangle */
    cholmod_dense* rhs;        /* -K_fc ε_c */
    int* free_index;           /* vertex -> row in K_ff, or -1 when fixed */
    int free_count;
} laplace_system;

static tch_status number_free_vertices(laplace_system* sys, int vertex_count,
                                       const tch_real* fixed, tch_error* err) {
    sys->free_index = malloc((size_t)(vertex_count > 0 ? vertex_count : 1) * sizeof(int));
    if (!sys->free_index) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the field");
    }
    sys->free_count = 0;
    for (int v = 0; v < vertex_count; ++v) {
        sys->free_index[v] = isnan(fixed[v]) ? sys->free_count++ : -1;
    }
    if (sys->free_count == vertex_count) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "the Laplace field needs at least one vertex with a fixed value");
    }
    return TCH_OK;
}

static void add_entry(laplace_system* sys, int row, int col, tch_real value) {
    cholmod_triplet* t = sys->triplets;
    ((int*)t->i)[t->nnz] = row;
    ((int*)t->j)[t->nnz] = col;
    ((double*)t->x)[t->nnz] = value;
    t->nnz++;
}

/* Adds tet k's element matrix V ∇φ_i·∇φ_j: free-free entries to K_ff (lower triangle),
 * free-fixed ones to the right-hand side. */
static void assemble_tet(laplace_system* sys, const int tet[4], const tch_vec3 grad[4],
                         tch_real volume, const tch_real* fixed) {
    double* rhs = sys->rhs->x;
    for (int i = 0; i < 4; ++i) {
        int row = sys->free_index[tet[i]];
        if (row < 0) {
            continue;
        }
        for (int j = 0; j < 4; ++j) {
            tch_real k = volume * tch_v3_dot(grad[i], grad[j]);
            int col = sys->free_index[tet[j]];
            if (col < 0) {
                rhs[row] -= k * fixed[tet[j]];
            } else if (col <= row) {
                add_entry(sys, row, col, k);
            }
        }
    }
}

static tch_status assemble(laplace_system* sys, const tch_vec3* vertices, int vertex_count,
                           const int (*tets)[4], int tet_count, const tch_real* fixed,
                           tch_error* err) {
    size_t n = (size_t)sys->free_count;
    sys->triplets = cholmod_allocate_triplet(n, n, (size_t)tet_count * 10, -1, CHOLMOD_REAL,
                                             &sys->common);
    sys->rhs = cholmod_zeros(n, 1, CHOLMOD_REAL, &sys->common);
    if (!sys->triplets || !sys->rhs) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for the field");
    }
    for (int k = 0; k < tet_count; ++k) {
        tch_vec3 p[4], grad[4];
        tch_real volume = 0;
        for (int i = 0; i < 4; ++i) {
            if (tets[k][i] < 0 || tets[k][i] >= vertex_count) {
                return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                                "tet %d names vertex %d; the mesh has %d vertices", k,
                                tets[k][i], vertex_count);
            }
            p[i] = vertices[tets[k][i]];
        }
        if (!tet_gradients(p, grad, &volume)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "tet %d is inverted or has zero volume", k);
        }
        assemble_tet(sys, tets[k], grad, volume, fixed);
    }
    return TCH_OK;
}

static tch_status factor_and_solve(laplace_system* sys, cholmod_dense** solution,
                                   tch_error* err) {
    cholmod_sparse* K = cholmod_triplet_to_sparse(sys->triplets, 0, &sys->common);
    cholmod_factor* L = K ? cholmod_analyze(K, &sys->common) : NULL;
    int ok = L && cholmod_factorize(K, L, &sys->common) &&
             sys->common.status == CHOLMOD_OK && L->minor == L->n;
    *solution = ok ? cholmod_solve(CHOLMOD_A, L, sys->rhs, &sys->common) : NULL;
    cholmod_free_factor(&L, &sys->common);
    cholmod_free_sparse(&K, &sys->common);
    if (!*solution) {
        return tch_fail(err, TCH_ERR_NUMERICAL, NULL, 0,
                        "the Laplace system is not positive definite: every free vertex must "
                        "belong to a tet connected to a fixed vertex");
    }
    return TCH_OK;
}

tch_status tch_laplace_field_solve(const tch_vec3* vertices, int vertex_count,
                                   const int (*tets)[4], int tet_count, const tch_real* fixed,
                                   tch_real* values, tch_error* err) {
    laplace_system sys = {0};
    cholmod_start(&sys.common);
    sys.common.print = 0;           /* the library never prints */
    sys.common.error_handler = NULL;
    tch_status s = number_free_vertices(&sys, vertex_count, fixed, err);
    cholmod_dense* solution = NULL;
    if (s == TCH_OK && sys.free_count > 0) {
        s = assemble(&sys, vertices, vertex_count, tets, tet_count, fixed, err);
        if (s == TCH_OK) {
            s = factor_and_solve(&sys, &solution, err);
        }
    }
    if (s == TCH_OK) {
        for (int v = 0; v < vertex_count; ++v) {
            int row = sys.free_index[v];
            values[v] = row < 0 ? fixed[v] : ((const double*)solution->x)[row];
        }
    }
    cholmod_free_dense(&solution, &sys.common);
    cholmod_free_dense(&sys.rhs, &sys.common);
    cholmod_free_triplet(&sys.triplets, &sys.common);
    cholmod_finish(&sys.common);
    free(sys.free_index);
    return s;
}
