/* The CHOLMOD wrapper (solver/sparse_spd.h): random sparse symmetric positive definite matrices
 * built as the constraint stage builds A_FF (a sum of per-body dense blocks over random index
 * sets, given term by term as upper-triangle triplets with duplicates) solved against a dense
 * Cholesky solve of the same matrix; aliasing, 1x1, repeatability, a kept factor under its key and
 * matrices that are not positive definite. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "lcp_problems.h"
#include "math/dense.h"
#include "solver/sparse_spd.h"
#include "test.h"

enum { MAX_N = 300, MAX_TRIPLETS = 40000, BLOCK_RANK = 6, MAX_BLOCK = 8 };

/* A matrix under construction: its triplets and the same matrix dense (full, symmetric). */
typedef struct matrix_build {
    int n;
    int count;
    int row[MAX_TRIPLETS];
    int col[MAX_TRIPLETS];
    tch_real value[MAX_TRIPLETS];
    tch_real dense[MAX_N * MAX_N];
} matrix_build;

static matrix_build g_build;
static tch_real g_factor[MAX_N * MAX_N];

static int random_index(lcp_rng* rng, int n) {
    int i = (int)((lcp_rng_uniform(rng) + 1) * 0.5 * n);
    return i < n ? i : n - 1;
}

static void start_build(matrix_build* m, int n) {
    m->n = n;
    m->count = 0;
    memset(m->dense, 0, sizeof m->dense);
}

/* A(i, j) += value (and A(j, i) when i != j), as one upper triplet. */
static void add_entry(matrix_build* m, int i, int j, tch_real value) {
    int lo = i < j ? i : j, hi = i < j ? j : i;
    m->row[m->count] = lo;
    m->col[m->count] = hi;
    m->value[m->count++] = value;
    m->dense[lo * m->n + hi] += value;
    if (lo != hi) {
        m->dense[hi * m->n + lo] += value;
    }
}

/* Adds B Bᵀ over `size` distinct random indices (B size x BLOCK_RANK uniform in [-1, 1)): one
 * body's contribution J_b M_b⁻¹ J_bᵀ, positive semi-definite of rank <= 6. */
static void add_body_block(matrix_build* m, lcp_rng* rng, int size) {
    int index[MAX_BLOCK];
    tch_real b[MAX_BLOCK][BLOCK_RANK];
    for (int k = 0; k < size; ++k) {
        int fresh;
        do {
            index[k] = random_index(rng, m->n);
            fresh = 1;
            for (int l = 0; l < k; ++l) {
                fresh &= index[l] != index[k];
            }
        } while (!fresh);
        for (int c = 0; c < BLOCK_RANK; ++c) {
            b[k][c] = lcp_rng_uniform(rng);
        }
    }
    for (int k = 0; k < size; ++k) {
        for (int l = k; l < size; ++l) {
            tch_real dot = 0;
            for (int c = 0; c < BLOCK_RANK; ++c) {
                dot += b[k][c] * b[l][c];
            }
            add_entry(m, index[k], index[l], dot);
        }
    }
}

/* A random SPD matrix of order n: about n / 2 body blocks of 1 .. min(n, 8) rows, plus 0.05 on
 * every diagonal entry given as its own (duplicate) triplet. */
static void random_spd(matrix_build* m, lcp_rng* rng, int n) {
    start_build(m, n);
    int blocks = n / 2 + 1;
    int largest = n < MAX_BLOCK ? n : MAX_BLOCK;
    for (int k = 0; k < blocks; ++k) {
        add_body_block(m, rng, 1 + random_index(rng, largest));
    }
    for (int i = 0; i < n; ++i) {
        add_entry(m, i, i, 0.05);
    }
}

static tch_sparse_triplets triplets_of(const matrix_build* m) {
    return (tch_sparse_triplets){m->n, m->count, m->row, m->col, m->value};
}

/* x = A⁻¹ b by the dense Cholesky factorization of math/dense.h. */
static int dense_solve(const matrix_build* m, const tch_real* b, tch_real* x) {
    memcpy(g_factor, m->dense, (size_t)(m->n * m->n) * sizeof *g_factor);
    if (tch_dense_cholesky(g_factor, m->n) != 0) {
        return -1;
    }
    memcpy(x, b, (size_t)m->n * sizeof *x);
    tch_dense_cholesky_solve(g_factor, m->n, x);
    return 0;
}

static tch_real max_abs(const tch_real* x, int n) {
    tch_real r = 0;
    for (int i = 0; i < n; ++i) {
        r = fmax(r, fabs(x[i]));
    }
    return r;
}

static tch_real max_difference(const tch_real* x, const tch_real* y, int n) {
    tch_real r = 0;
    for (int i = 0; i < n; ++i) {
        r = fmax(r, fabs(x[i] - y[i]));
    }
    return r;
}

/* ||A x - b||_inf / (||A||_inf ||x||_inf + ||b||_inf), A dense. */
static tch_real relative_residual(const matrix_build* m, const tch_real* x, const tch_real* b) {
    tch_real ax[MAX_N], norm_a = 0;
    tch_dense_mat_vec(m->dense, m->n, m->n, x, ax);
    for (int i = 0; i < m->n; ++i) {
        tch_real row = 0;
        for (int j = 0; j < m->n; ++j) {
            row += fabs(m->dense[i * m->n + j]);
        }
        norm_a = fmax(norm_a, row);
    }
    return max_difference(ax, b, m->n) / (norm_a * max_abs(x, m->n) + max_abs(b, m->n));
}

/* One random matrix of order n solved with the context, against the dense solve. */
static void check_random_solve(tch_sparse_spd* context, lcp_rng* rng, int n) {
    tch_real b[MAX_N], x[MAX_N], x_dense[MAX_N];
    random_spd(&g_build, rng, n);
    lcp_random_vector(rng, n, b);
    const tch_sparse_triplets a = triplets_of(&g_build);
    ENSURE(a.count > n); /* the diagonal shift alone is n duplicates */
    ENSURE(tch_sparse_spd_solve(context, &a, b, x) == TCH_OK);
    ENSURE(dense_solve(&g_build, b, x_dense) == 0);
    ENSURE(max_difference(x, x_dense, n) <= 1e-10 * max_abs(x_dense, n));
    ENSURE(relative_residual(&g_build, x, b) <= 1e-13);
}

static void test_random_sparse_matches_dense_cholesky(void) {
    /* growing, then shrinking: the context's kept right-hand side and workspaces change size */
    static const int sizes[] = {1, 2, 3, 5, 8, 13, 30, 64, 100, 177, 300, 64, 5, 1};
    lcp_rng rng = {2026};
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        for (int trial = 0; trial < 3; ++trial) {
            check_random_solve(context, &rng, sizes[s]);
        }
    }
    tch_sparse_spd_destroy(context);
}

/* Many duplicates of every entry: A = 7 (B Bᵀ + I) given as 7 copies of each term. */
static void test_duplicates_are_summed(void) {
    lcp_rng rng = {7};
    const int n = 40;
    start_build(&g_build, n);
    matrix_build* once = &g_build;
    tch_real b[MAX_N], x[MAX_N], x_dense[MAX_N];
    for (int k = 0; k < 10; ++k) {
        add_body_block(once, &rng, 6);
    }
    for (int i = 0; i < n; ++i) {
        add_entry(once, i, i, 1);
    }
    const int single = once->count;
    for (int copy = 1; copy < 7; ++copy) {
        for (int k = 0; k < single; ++k) {
            add_entry(once, once->row[k], once->col[k], once->value[k]);
        }
    }
    lcp_random_vector(&rng, n, b);
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    const tch_sparse_triplets a = triplets_of(once);
    tch_status status = tch_sparse_spd_solve(context, &a, b, x);
    tch_sparse_spd_destroy(context);
    ENSURE(status == TCH_OK);
    ENSURE(dense_solve(once, b, x_dense) == 0);
    ENSURE(max_difference(x, x_dense, n) <= 1e-10 * max_abs(x_dense, n));
}

/* x may alias b, and gives the same bits as a separate x. */
static void test_solution_may_alias_right_hand_side(void) {
    lcp_rng rng = {31};
    const int n = 120;
    tch_real b[MAX_N], x[MAX_N], in_place[MAX_N];
    random_spd(&g_build, &rng, n);
    lcp_random_vector(&rng, n, b);
    memcpy(in_place, b, sizeof b);
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    const tch_sparse_triplets a = triplets_of(&g_build);
    tch_status separate = tch_sparse_spd_solve(context, &a, b, x);
    tch_status aliased = tch_sparse_spd_solve(context, &a, in_place, in_place);
    tch_sparse_spd_destroy(context);
    ENSURE(separate == TCH_OK && aliased == TCH_OK);
    ENSURE(memcmp(x, in_place, (size_t)n * sizeof *x) == 0);
}

/* 1x1: A = (4) given as 1 + 3, b = 2: x = 0.5 exactly. */
static void test_one_by_one(void) {
    const int row[] = {0, 0}, col[] = {0, 0};
    const tch_real value[] = {1, 3};
    const tch_sparse_triplets a = {1, 2, row, col, value};
    tch_real b = 2, x = -1;
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    tch_status status = tch_sparse_spd_solve(context, &a, &b, &x);
    tch_sparse_spd_destroy(context);
    ENSURE(status == TCH_OK);
    ENSURE(x == 0.5);
    ENSURE(b == 2);
}

/* Three solves with one context, between them a solve of another matrix: the same bits. */
static void test_repeated_solves_give_the_same_bits(void) {
    lcp_rng rng = {99};
    const int n = 250;
    static matrix_build other;
    tch_real b[MAX_N], first[MAX_N], again[MAX_N], scratch[MAX_N];
    random_spd(&g_build, &rng, n);
    random_spd(&other, &rng, 37);
    lcp_random_vector(&rng, n, b);
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    const tch_sparse_triplets a = triplets_of(&g_build), c = triplets_of(&other);
    int all_ok = tch_sparse_spd_solve(context, &a, b, first) == TCH_OK;
    int same = 1;
    for (int k = 0; k < 3; ++k) {
        all_ok &= tch_sparse_spd_solve(context, &c, b, scratch) == TCH_OK;
        all_ok &= tch_sparse_spd_solve(context, &a, b, again) == TCH_OK;
        same &= memcmp(first, again, (size_t)n * sizeof *first) == 0;
    }
    tch_sparse_spd_destroy(context);
    ENSURE(all_ok);
    ENSURE(same);
}

/* Matrices of one pattern with other values, in turn, keep the first one's analysis: each
 * solution matches the dense Cholesky of its own matrix, and the first matrix again gives its
 * first bits. */
static void test_same_pattern_new_values(void) {
    lcp_rng rng = {512};
    const int n = 120;
    static matrix_build scaled;
    tch_real b[MAX_N], first[MAX_N], x[MAX_N], x_dense[MAX_N];
    random_spd(&g_build, &rng, n);
    lcp_random_vector(&rng, n, b);
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    const tch_sparse_triplets a = triplets_of(&g_build);
    ENSURE(tch_sparse_spd_solve(context, &a, b, first) == TCH_OK);
    for (int k = 1; k <= 3; ++k) {
        scaled = g_build; /* the same triplets with each diagonal one raised by k */
        for (int t = 0; t < scaled.count; ++t) {
            if (scaled.row[t] == scaled.col[t]) {
                scaled.value[t] += k;
                scaled.dense[scaled.row[t] * n + scaled.row[t]] += k;
            }
        }
        const tch_sparse_triplets c = triplets_of(&scaled);
        ENSURE(tch_sparse_spd_solve(context, &c, b, x) == TCH_OK);
        ENSURE(dense_solve(&scaled, b, x_dense) == 0);
        ENSURE(max_difference(x, x_dense, n) <= 1e-10 * max_abs(x_dense, n));
    }
    ENSURE(tch_sparse_spd_solve(context, &a, b, x) == TCH_OK);
    ENSURE(memcmp(first, x, (size_t)n * sizeof *x) == 0);
    tch_sparse_spd_destroy(context);
}

/* Solves a with the context, expecting TCH_ERR_NUMERICAL, then checks that the same context
 * still solves a positive definite matrix. */
static void expect_not_positive_definite(const tch_sparse_triplets* a) {
    tch_real b[MAX_N], x[MAX_N], x_dense[MAX_N];
    for (int i = 0; i < a->n; ++i) {
        b[i] = 1;
    }
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    tch_status refused = tch_sparse_spd_solve(context, a, b, x);
    lcp_rng rng = {5};
    random_spd(&g_build, &rng, 20);
    const tch_sparse_triplets good = triplets_of(&g_build);
    tch_status after = tch_sparse_spd_solve(context, &good, b, x);
    tch_sparse_spd_destroy(context);
    ENSURE(refused == TCH_ERR_NUMERICAL);
    ENSURE(after == TCH_OK);
    ENSURE(dense_solve(&g_build, b, x_dense) == 0);
    ENSURE(max_difference(x, x_dense, 20) <= 1e-10 * max_abs(x_dense, 20));
}

/* [[1, 2], [2, 1]]: eigenvalues 3 and -1, nonzero pivots 1 and -3. */
static void test_indefinite_two_by_two_is_refused(void) {
    const int row[] = {0, 0, 1}, col[] = {0, 1, 1};
    const tch_real value[] = {1, 2, 1};
    const tch_sparse_triplets a = {2, 3, row, col, value};
    expect_not_positive_definite(&a);
}

/* [[1, 1], [1, 1]]: singular, the second pivot is exactly zero. */
static void test_singular_is_refused(void) {
    const int row[] = {0, 0, 1}, col[] = {0, 1, 1};
    const tch_real value[] = {1, 1, 1};
    const tch_sparse_triplets a = {2, 3, row, col, value};
    expect_not_positive_definite(&a);
}

/* A random SPD matrix of order 60 with one diagonal entry made negative enough that A has a
 * negative eigenvalue (eᵢᵀ A eᵢ < 0). */
static void test_indefinite_sparse_is_refused(void) {
    static matrix_build indefinite;
    lcp_rng rng = {77};
    random_spd(&indefinite, &rng, 60);
    add_entry(&indefinite, 41, 41, -(indefinite.dense[41 * 60 + 41] + 1));
    const tch_sparse_triplets a = triplets_of(&indefinite);
    expect_not_positive_definite(&a);
}

/* A diagonal with one negative entry: every pivot is nonzero, one is negative. */
static void test_negative_diagonal_is_refused(void) {
    int row[10], col[10];
    tch_real value[10];
    for (int i = 0; i < 10; ++i) {
        row[i] = col[i] = i;
        value[i] = i == 6 ? -2 : 1 + i;
    }
    const tch_sparse_triplets a = {10, 10, row, col, value};
    expect_not_positive_definite(&a);
}

/* A kept factor and its key: a fresh context has neither; a solve keeps its factor unnamed
 * until tch_sparse_spd_set_key; the named factor solves later right-hand sides with the bits of
 * the first solve; another key (other values or length), another size, a new factorization and a
 * failed one all leave nothing to reuse under the old key. */
static void test_keyed_factor(void) {
    static matrix_build changed;
    lcp_rng rng = {404};
    const int n = 90;
    const int key[4] = {3, 1, 4, 1}, other[4] = {3, 1, 4, 2};
    tch_real b[MAX_N], first[MAX_N], x[MAX_N];
    random_spd(&g_build, &rng, n);
    lcp_random_vector(&rng, n, b);
    changed = g_build;
    changed.value[changed.count - 1] *= 2;
    tch_sparse_spd* context = tch_sparse_spd_create();
    ENSURE(context != NULL);
    const tch_sparse_triplets a = triplets_of(&g_build), c = triplets_of(&changed);
    ENSURE(!tch_sparse_spd_has_key(context, key, 4));
    ENSURE(tch_sparse_spd_set_key(context, key, 4) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_sparse_spd_solve_with_factor(context, n, b, x) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_sparse_spd_solve(context, &a, b, first) == TCH_OK);
    ENSURE(!tch_sparse_spd_has_key(context, key, 4));
    ENSURE(tch_sparse_spd_set_key(context, key, 4) == TCH_OK);
    ENSURE(tch_sparse_spd_has_key(context, key, 4));
    ENSURE(!tch_sparse_spd_has_key(context, other, 4) && !tch_sparse_spd_has_key(context, key, 3));
    ENSURE(tch_sparse_spd_solve_with_factor(context, n, b, x) == TCH_OK);
    ENSURE(memcmp(first, x, (size_t)n * sizeof *x) == 0);
    ENSURE(tch_sparse_spd_solve_with_factor(context, n - 1, b, x) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(tch_sparse_spd_solve(context, &c, b, x) == TCH_OK);
    ENSURE(!tch_sparse_spd_has_key(context, key, 4));
    ENSURE(tch_sparse_spd_set_key(context, key, 4) == TCH_OK);
    /* a failed factorization (the zero matrix of a's pattern) drops the factor and its key */
    static const tch_real zeros[MAX_TRIPLETS];
    const tch_sparse_triplets zero = {n, a.count, a.row, a.col, zeros};
    ENSURE(tch_sparse_spd_solve(context, &zero, b, x) == TCH_ERR_NUMERICAL);
    ENSURE(!tch_sparse_spd_has_key(context, key, 4));
    ENSURE(tch_sparse_spd_solve_with_factor(context, n, b, x) == TCH_ERR_INVALID_ARGUMENT);
    tch_sparse_spd_destroy(context);
}

int main(void) {
    RUN_TEST(test_random_sparse_matches_dense_cholesky);
    RUN_TEST(test_duplicates_are_summed);
    RUN_TEST(test_solution_may_alias_right_hand_side);
    RUN_TEST(test_one_by_one);
    RUN_TEST(test_repeated_solves_give_the_same_bits);
    RUN_TEST(test_same_pattern_new_values);
    RUN_TEST(test_keyed_factor);
    RUN_TEST(test_indefinite_two_by_two_is_refused);
    RUN_TEST(test_singular_is_refused);
    RUN_TEST(test_indefinite_sparse_is_refused);
    RUN_TEST(test_negative_diagonal_is_refused);
    return TEST_RESULT();
}
