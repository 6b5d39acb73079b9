/* Sparse symmetric positive definite solves through SuiteSparse CHOLMOD, for the solver
 * module's sparse systems (the Delassus matrix of a contact island restricted to its free rows,
 * engine/constraint_pgs.c).
 *
 * A context keeps CHOLMOD's workspace (cholmod_common) between solves; the matrix is given as
 * upper-triangle triplets (row <= col; duplicates are summed, so a matrix that is a sum of
 * per-body contributions can be given term by term). A solve orders (AMD), factorizes and
 * solves, or reuses the last factor (tch_sparse_spd_solve_reusing).
 */
#pragma once

#include <stdbool.h>

#include "touche/base.h"

typedef struct tch_sparse_spd tch_sparse_spd;

/* A context, or NULL when out of memory. */
tch_sparse_spd* tch_sparse_spd_create(void);
void tch_sparse_spd_destroy(tch_sparse_spd* context);

/* The upper-triangle triplets (row[k] <= col[k] < n) of a symmetric n x n matrix A. */
typedef struct tch_sparse_triplets {
    int n;
    int count;
    const int* row;
    const int* col;
    const tch_real* value;
} tch_sparse_triplets;

/* Solves A x = b (b, x: n reals; they may alias). Returns TCH_OK, TCH_ERR_NUMERICAL when A is
 * not numerically positive definite, TCH_ERR_OUT_OF_MEMORY. The context keeps the factor. */
tch_status tch_sparse_spd_solve(tch_sparse_spd* context, const tch_sparse_triplets* a,
                                const tch_real* b, tch_real* x);

/* As tch_sparse_spd_solve, except that when `a` has the same pattern as the matrix of the
 * context's last factorization (the same n and the same row and col arrays, in order) and
 * values within 1e-4 of its largest entry, that factor is used as it is and *reused is set: an
 * approximate solve, for a matrix that changes slowly from call to call (a resting island's
 * Delassus matrix, step to step), at the cost of two triangular solves instead of an ordering
 * and a factorization. */
tch_status tch_sparse_spd_solve_reusing(tch_sparse_spd* context, const tch_sparse_triplets* a,
                                        const tch_real* b, tch_real* x, bool* reused);
