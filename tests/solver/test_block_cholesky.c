/* The sparse block Cholesky (solver/block_cholesky.h) against a dense Cholesky solve of the
 * same matrix: random graphs (repeated and reversed edges, isolated nodes, none at all) carrying
 * matrices built as the implicit integrator builds M - h D - h^2 K (a positive diagonal block
 * per node plus a positive semi-definite 12x12 coupling per edge); a kept analysis that
 * allocates nothing; a 3-D lattice, whose minimum-degree order must fill far less than a band;
 * and a matrix that is not positive definite, reported at its node. */
#include <math.h>
#include <string.h>

#include "lcp_problems.h"
#include "math/dense.h"
#include "solver/block_cholesky.h"
#include "test.h"

enum { MAX_NODES = 64, MAX_EDGES = 256, N = 6 * MAX_NODES };

static tch_real g_dense[N * N];
static tch_real g_factor[N * N];

static int random_index(lcp_rng* rng, int n) {
    int i = (int)((lcp_rng_uniform(rng) + 1) * 0.5 * n);
    return i < n ? i : n - 1;
}

/* A(row node, col node) block += value (6x6 row-major), in the factorization's storage and in
 * the dense copy (n nodes; none beyond MAX_NODES). */
static int add_block(tch_block_cholesky* c, int n, int row, int col, const tch_real* value) {
    tch_real* stored = tch_block_cholesky_block(c, row, col);
    tch_real* transposed = stored ? NULL : tch_block_cholesky_block(c, col, row);
    if (!stored && !transposed) {
        return -1;
    }
    for (int i = 0; i < 6; ++i) {
        for (int j = 0; j < 6; ++j) {
            if (stored) {
                stored[6 * i + j] += value[6 * i + j];
            } else if (row != col) {
                transposed[6 * j + i] += value[6 * i + j];
            }
            if (n > MAX_NODES) {
                continue;
            }
            g_dense[(6 * row + i) * 6 * n + 6 * col + j] += value[6 * i + j];
            if (row != col) {
                g_dense[(6 * col + j) * 6 * n + 6 * row + i] += value[6 * i + j];
            }
        }
    }
    return 0;
}

/* The matrix on the analysed graph: a diagonal block G G^T + I per node, and per edge a
 * 12x12 G G^T (rank 4) split into its four blocks. 0, or -1 when a block is missing. */
static int fill_matrix(tch_block_cholesky* c, lcp_rng* rng, int n, const int* edges,
                       int edge_count) {
    memset(g_dense, 0, sizeof g_dense);
    tch_real block[36];
    for (int node = 0; node < n; ++node) {
        lcp_random_gram(rng, 6, 6, 1.0, block);
        if (add_block(c, n, node, node, block) != 0) {
            return -1;
        }
    }
    for (int e = 0; e < edge_count; ++e) {
        tch_real coupling[144];
        lcp_random_gram(rng, 12, 4, 0.0, coupling);
        const int node[2] = {edges[2 * e], edges[2 * e + 1]};
        for (int a = 0; a < 2; ++a) {
            for (int b = 0; b < 2; ++b) {
                if (a == 1 && b == 0) {
                    continue; /* added with (0, 1) */
                }
                for (int i = 0; i < 6; ++i) {
                    for (int j = 0; j < 6; ++j) {
                        block[6 * i + j] = coupling[(6 * a + i) * 12 + 6 * b + j];
                    }
                }
                if (add_block(c, n, node[a], node[b], block) != 0) {
                    return -1;
                }
            }
        }
    }
    return 0;
}

/* The largest error of the sparse solve against the dense one, relative to the solution. */
static tch_real solve_error(tch_block_cholesky* c, lcp_rng* rng, int n) {
    tch_real b[N], x[N];
    lcp_random_vector(rng, 6 * n, b);
    memcpy(x, b, sizeof(tch_real) * 6 * (size_t)n);
    memcpy(g_factor, g_dense, sizeof(tch_real) * 36 * (size_t)n * (size_t)n);
    if (tch_dense_cholesky(g_factor, 6 * n) != 0 || tch_block_cholesky_factor(c) != 0) {
        return INFINITY;
    }
    tch_dense_cholesky_solve(g_factor, 6 * n, b);
    tch_block_cholesky_solve(c, x);
    tch_real error = 0, size = 0;
    for (int i = 0; i < 6 * n; ++i) {
        error = fmax(error, fabs(x[i] - b[i]));
        size = fmax(size, fabs(b[i]));
    }
    return error / size;
}

static int random_graph(lcp_rng* rng, int n, int edge_count, int* edges) {
    int count = 0;
    for (int e = 0; e < edge_count && n > 1; ++e) {
        int u = random_index(rng, n), w = random_index(rng, n);
        if (u != w) {
            edges[2 * count] = u;
            edges[2 * count++ + 1] = w;
        }
    }
    return count;
}

static void test_random_graphs_solve_as_dense_cholesky(void) {
    lcp_rng rng = {12345};
    tch_block_cholesky* c = tch_block_cholesky_create();
    ENSURE(c);
    int edges[2 * MAX_EDGES];
    for (int trial = 0; trial < 60; ++trial) {
        int n = 1 + random_index(&rng, 40);
        int count = random_graph(&rng, n, random_index(&rng, 3 * n + 1), edges);
        if (trial % 7 == 0 && count > 0) { /* a repeated edge, reversed */
            edges[2 * count] = edges[1];
            edges[2 * count + 1] = edges[0];
            count++;
        }
        ENSURE(tch_block_cholesky_analyze(c, n, count, edges) == 0);
        ENSURE(fill_matrix(c, &rng, n, edges, count) == 0);
        tch_real error = solve_error(c, &rng, n);
        if (!(error < 1e-10)) {
            fprintf(stderr, "trial %d: %d nodes, %d edges, error %g\n", trial, n, count, error);
        }
        ENSURE(error < 1e-10);
    }
    tch_block_cholesky_destroy(c);
}

/* The wide (AVX-512) kernels and the portable ones give the same factor and solution, bit for
 * bit, on random graphs of 64 to 200 nodes (the wide kernels take systems of 64 nodes or more;
 * both matrices from the same random numbers). */
static void test_wide_and_portable_kernels_agree_bit_for_bit(void) {
    tch_block_cholesky* wide = tch_block_cholesky_create();
    tch_block_cholesky* portable = tch_block_cholesky_create();
    ENSURE(wide && portable);
    ENSURE(tch_block_cholesky_use_wide_kernels(portable, 0) == 0);
    if (!tch_block_cholesky_use_wide_kernels(wide, 1)) {
        fprintf(stderr, "note: this CPU has no AVX-512: the portable kernels only\n");
    }
    enum { MOST = 200 };
    lcp_rng graph_rng = {2024};
    static int edges[2 * 3 * MOST];
    static tch_real x[2][6 * MOST];
    for (int trial = 0; trial < 20; ++trial) {
        int n = 64 + random_index(&graph_rng, MOST - 63);
        int count = random_graph(&graph_rng, n, random_index(&graph_rng, 3 * n + 1), edges);
        tch_block_cholesky* both[2] = {wide, portable};
        for (int k = 0; k < 2; ++k) {
            lcp_rng rng = {(unsigned long long)(trial + 1)};
            ENSURE(tch_block_cholesky_analyze(both[k], n, count, edges) == 0);
            ENSURE(fill_matrix(both[k], &rng, n, edges, count) == 0);
            ENSURE(tch_block_cholesky_factor(both[k]) == 0);
            lcp_random_vector(&rng, 6 * n, x[k]);
            tch_block_cholesky_solve(both[k], x[k]);
        }
        tch_real *values[2], *inverse[2];
        size_t value_count[2], inverse_count[2];
        for (int k = 0; k < 2; ++k) {
            tch_block_cholesky_factor_arrays(both[k], &values[k], &value_count[k], &inverse[k],
                                             &inverse_count[k]);
        }
        ENSURE(value_count[0] == value_count[1] && inverse_count[0] == inverse_count[1]);
        ENSURE(memcmp(values[0], values[1], value_count[0] * sizeof(tch_real)) == 0);
        ENSURE(memcmp(inverse[0], inverse[1], inverse_count[0] * sizeof(tch_real)) == 0);
        ENSURE(memcmp(x[0], x[1], 6 * (size_t)n * sizeof(tch_real)) == 0);
    }
    tch_block_cholesky_destroy(wide);
    tch_block_cholesky_destroy(portable);
}

static void test_a_kept_analysis_allocates_nothing(void) {
    lcp_rng rng = {777};
    tch_block_cholesky* c = tch_block_cholesky_create();
    ENSURE(c);
    int edges[2 * MAX_EDGES];
    int count = random_graph(&rng, 30, 60, edges);
    ENSURE(tch_block_cholesky_analyze(c, 30, count, edges) == 0);
    long allocations = tch_block_cholesky_allocations(c);
    ENSURE(allocations > 0);
    for (int step = 0; step < 3; ++step) {
        ENSURE(tch_block_cholesky_analyze(c, 30, count, edges) == 0); /* zeroes the matrix */
        ENSURE(fill_matrix(c, &rng, 30, edges, count) == 0);
        ENSURE(solve_error(c, &rng, 30) < 1e-10);
    }
    ENSURE(tch_block_cholesky_allocations(c) == allocations);
    /* a smaller graph fits the memory of the larger one */
    int small[8] = {0, 1, 1, 2, 2, 3, 5, 9};
    ENSURE(tch_block_cholesky_analyze(c, 10, 4, small) == 0);
    ENSURE(fill_matrix(c, &rng, 10, small, 4) == 0);
    ENSURE(solve_error(c, &rng, 10) < 1e-10);
    ENSURE(tch_block_cholesky_allocations(c) == allocations);
    tch_block_cholesky_destroy(c);
}

/* Blocks stored for a lattice graph of 4 x 4 x 4 nodes (each joined to its 6 neighbours), and
 * whether nodes that share no edge get no block. */
static void test_lattice_fills_less_than_a_band(void) {
    lcp_rng rng = {99};
    enum { S = 4 };
    int edges[2 * 3 * S * S * S], count = 0;
    for (int i = 0; i < S * S * S; ++i) {
        int x = i % S, y = (i / S) % S, z = i / (S * S);
        int next[3] = {x + 1 < S ? i + 1 : -1, y + 1 < S ? i + S : -1, z + 1 < S ? i + S * S : -1};
        for (int k = 0; k < 3; ++k) {
            if (next[k] >= 0) {
                edges[2 * count] = i;
                edges[2 * count++ + 1] = next[k];
            }
        }
    }
    tch_block_cholesky* c = tch_block_cholesky_create();
    ENSURE(c);
    ENSURE(tch_block_cholesky_analyze(c, S * S * S, count, edges) == 0);
    int stored = 0;
    for (int i = 0; i < S * S * S; ++i) {
        for (int j = 0; j < S * S * S; ++j) {
            stored += tch_block_cholesky_block(c, i, j) != NULL;
        }
    }
    /* the edges and the diagonal must be there; a band ordering (natural order: bandwidth 16
     * nodes) stores about 64 * 16 = 1000 blocks, minimum degree well under 700 */
    ENSURE(stored >= count + S * S * S);
    ENSURE(stored < 700);
    ENSURE(tch_block_cholesky_block(c, 0, S * S * S - 1) == NULL ||
           tch_block_cholesky_block(c, S * S * S - 1, 0) == NULL);
    ENSURE(fill_matrix(c, &rng, S * S * S, edges, count) == 0);
    ENSURE(solve_error(c, &rng, S * S * S) < 1e-10);
    tch_block_cholesky_destroy(c);
}

static void test_a_matrix_not_positive_definite_names_its_node(void) {
    lcp_rng rng = {5};
    tch_block_cholesky* c = tch_block_cholesky_create();
    ENSURE(c);
    int edges[4] = {0, 1, 1, 2};
    ENSURE(tch_block_cholesky_analyze(c, 4, 2, edges) == 0);
    ENSURE(fill_matrix(c, &rng, 4, edges, 2) == 0);
    tch_real* diagonal = tch_block_cholesky_block(c, 3, 3);
    ENSURE(diagonal);
    diagonal[7 * 2] = -1; /* node 3, which no edge touches */
    ENSURE(tch_block_cholesky_factor(c) == 1 + 3);
    tch_block_cholesky_destroy(c);
}

int main(void) {
    RUN_TEST(test_random_graphs_solve_as_dense_cholesky);
    RUN_TEST(test_wide_and_portable_kernels_agree_bit_for_bit);
    RUN_TEST(test_a_kept_analysis_allocates_nothing);
    RUN_TEST(test_lattice_fills_less_than_a_band);
    RUN_TEST(test_a_matrix_not_positive_definite_names_its_node);
    return TEST_RESULT();
}
