#include "solver/mlcp.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "math/dense.h"
#include "solver/dense_lapack.h"
#include "solver/lu.h"

/* The factorized equality block A (e x e): A = L Lᵀ, -A = L Lᵀ, or P A = L U. */
typedef enum block_kind { BLOCK_CHOLESKY, BLOCK_NEGATIVE_CHOLESKY, BLOCK_LU } block_kind;

typedef struct equality_block {
    int e;
    block_kind kind;
    tch_real* factor; /* [e*e] */
    int* pivot;       /* [e] (LU) */
    tch_real* work;   /* [e] (LU; A's diagonal for LAPACK's Cholesky) */
} equality_block;

static bool is_symmetric(const tch_real* a, int e) {
    tch_real largest = 0;
    for (size_t k = 0; k < (size_t)e * (size_t)e; ++k) {
        largest = fmax(largest, fabs(a[k]));
    }
    for (int i = 0; i < e; ++i) {
        for (int j = 0; j < i; ++j) {
            if (fabs(a[i * e + j] - a[j * e + i]) > 16 * DBL_EPSILON * largest) {
                return false;
            }
        }
    }
    return true;
}

static void copy_block(const tch_real* m, int n, int e, tch_real sign, tch_real* a) {
    for (int i = 0; i < e; ++i) {
        for (int j = 0; j < e; ++j) {
            a[i * e + j] = sign * m[(size_t)i * n + j];
        }
    }
}

/* L Lᵀ of the block in block->factor: LAPACK's from TCH_SOLVER_CHOLESKY_LAPACK_MIN_N up
 * (measured, docs/solvers.md), the loops of math/dense.h below. Both leave L in the same place,
 * so tch_dense_cholesky_solve serves either. Returns 0 or 1 + the failing pivot. */
static int cholesky(equality_block* block) {
    return block->e >= TCH_SOLVER_CHOLESKY_LAPACK_MIN_N
               ? tch_solver_lapack_cholesky(block->factor, block->e, block->work)
               : tch_dense_cholesky(block->factor, block->e);
}

/* Cholesky of A, else of -A, when A is symmetric; LU otherwise or when neither is definite.
 * Returns false when A is singular. */
static bool factor_block(equality_block* block, const tch_real* m, int n) {
    const int e = block->e;
    copy_block(m, n, e, 1, block->factor);
    if (is_symmetric(block->factor, e)) {
        block->kind = BLOCK_CHOLESKY;
        if (cholesky(block) == 0) {
            return true;
        }
        block->kind = BLOCK_NEGATIVE_CHOLESKY;
        copy_block(m, n, e, -1, block->factor);
        if (cholesky(block) == 0) {
            return true;
        }
        copy_block(m, n, e, 1, block->factor);
    }
    block->kind = BLOCK_LU;
    return tch_solver_lu_factor(block->factor, e, block->pivot) == 0;
}

/* b ← A⁻¹ b. */
static void solve_block(const equality_block* block, tch_real* b) {
    switch (block->kind) {
    case BLOCK_CHOLESKY:
        tch_dense_cholesky_solve(block->factor, block->e, b);
        return;
    case BLOCK_NEGATIVE_CHOLESKY:
        tch_dense_cholesky_solve(block->factor, block->e, b);
        for (int i = 0; i < block->e; ++i) {
            b[i] = -b[i];
        }
        return;
    case BLOCK_LU:
        tch_solver_lu_solve(block->factor, block->e, block->pivot, b, block->work);
        return;
    }
}

static tch_real dot(const tch_real* x, const tch_real* y, int count) {
    tch_real s = 0;
    for (int k = 0; k < count; ++k) {
        s += x[k] * y[k];
    }
    return s;
}

/* The Schur complement problem: X = A⁻¹ C (column j at x_columns + j e), y = A⁻¹ a,
 * M_r = B - D X, q_r = b - D y. */
typedef struct schur {
    tch_real* x_columns; /* [c*e] */
    tch_real* y;         /* [e] */
    tch_real* m_r;       /* [c*c] */
    tch_real* q_r;       /* [c] */
} schur;

static void reduce(const equality_block* block, const tch_real* m, const tch_real* q, int n,
                   schur* s) {
    const int e = block->e, c = n - e;
    for (int j = 0; j < c; ++j) {
        tch_real* x_j = s->x_columns + (size_t)j * e;
        for (int i = 0; i < e; ++i) {
            x_j[i] = m[(size_t)i * n + (size_t)(e + j)];
        }
        solve_block(block, x_j);
    }
    memcpy(s->y, q, (size_t)e * sizeof *s->y);
    solve_block(block, s->y);
    for (int i = 0; i < c; ++i) {
        const tch_real* row = m + (size_t)(e + i) * n; /* [D_i | B_i] */
        for (int j = 0; j < c; ++j) {
            s->m_r[(size_t)i * c + j] = row[e + j] - dot(row, s->x_columns + (size_t)j * e, e);
        }
        s->q_r[i] = q[e + i] - dot(row, s->y, e);
    }
}

/* u = -(y + X v). */
static void recover_free_part(const schur* s, int e, int c, const tch_real* v, tch_real* u) {
    for (int k = 0; k < e; ++k) {
        u[k] = -s->y[k];
    }
    for (int j = 0; j < c; ++j) {
        const tch_real* x_j = s->x_columns + (size_t)j * e;
        for (int k = 0; k < e; ++k) {
            u[k] -= x_j[k] * v[j];
        }
    }
}

/* ||z - P(z - w)||_inf with lo = -inf on the equality rows and 0 on the others. */
static tch_real mlcp_residual(const tch_real* m, const tch_real* q, int n, int e,
                              const tch_real* z, tch_real* lo) {
    for (int i = 0; i < n; ++i) {
        lo[i] = i < e ? -INFINITY : 0;
    }
    const tch_lcp_matrix matrix = tch_lcp_matrix_dense(m, n);
    const tch_lcp_bounds bounds = {.lo = lo, .hi = NULL, .normal_index = NULL};
    return tch_lcp_residuals(&matrix, q, &bounds, z).natural_map;
}

static bool allocate(equality_block* block, schur* s, int n, tch_arena* arena) {
    const size_t e = (size_t)block->e, c = (size_t)n - e;
    const size_t reals = e * e + e + c * e + e + c * c + c + (size_t)n;
    tch_real* buffer = tch_arena_alloc(arena, reals * sizeof *buffer, "mlcp schur");
    block->pivot = tch_arena_alloc(arena, (e + 1) * sizeof *block->pivot, "mlcp pivots");
    if (!buffer || !block->pivot) {
        return false;
    }
    block->factor = buffer;
    block->work = block->factor + e * e;
    s->x_columns = block->work + e;
    s->y = s->x_columns + c * e;
    s->m_r = s->y + e;
    s->q_r = s->m_r + c * c;
    return true;
}

static tch_status check_input(const tch_real* m, const tch_real* q, int n, int e,
                              tch_arena* arena, const tch_real* z, tch_error* err) {
    if (n < 0 || e < 0 || e > n || (n > 0 && (!m || !q || !z || !arena))) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "MLCP needs 0 <= equality_count <= n and non-NULL M, q, z and arena; "
                        "got n = %d, equality_count = %d", n, e);
    }
    const tch_status status = tch_lcp_check_finite(m, n * n, "M", err);
    return status == TCH_OK ? tch_lcp_check_finite(q, n, "q", err) : status;
}

tch_status tch_mlcp_solve(const tch_real* m, const tch_real* q, int n, int equality_count,
                          const tch_lemke_options* options, tch_arena* arena, tch_real* z,
                          tch_lcp_result* result, tch_error* err) {
    tch_status status = check_input(m, q, n, equality_count, arena, z, err);
    if (status != TCH_OK) {
        return status;
    }
    const int e = equality_count, c = n - e;
    const size_t mark = tch_arena_mark(arena);
    equality_block block = {.e = e};
    schur s;
    if (n > 0 && !allocate(&block, &s, n, arena)) {
        tch_arena_release(arena, mark);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                        "MLCP could not allocate the scratch of its %d x %d Schur complement",
                        c, c);
    }
    if (n > 0 && !factor_block(&block, m, n)) {
        tch_arena_release(arena, mark);
        if (result) {
            *result = (tch_lcp_result){TCH_ERR_NUMERICAL, TCH_LCP_SINGULAR, 0, INFINITY};
        }
        return tch_fail(err, TCH_ERR_NUMERICAL, NULL, 0,
                        "the MLCP's %d x %d equality block is singular; expected an invertible "
                        "block (independent bilateral rows)", e, e);
    }
    tch_lcp_result lemke_result = {TCH_OK, TCH_LCP_SOLVED, 0, 0};
    if (n > 0) {
        reduce(&block, m, q, n, &s);
        status = tch_lemke_solve(s.m_r, s.q_r, c, options, arena, z + e, &lemke_result, err);
        recover_free_part(&s, e, c, z + e, z);
        lemke_result.residual = mlcp_residual(m, q, n, e, z, s.q_r + c);
    }
    tch_arena_release(arena, mark);
    if (result) {
        *result = lemke_result;
    }
    return status;
}
