/* Sparse symmetric positive definite solves through SuiteSparse CHOLMOD, for the solver
 * module's sparse systems (the Delassus matrix of a contact island restricted to its free rows,
 * engine/constraint_pgs.c).
 *
 * A context keeps CHOLMOD's workspace (cholmod_common) between solves; the matrix is given as
 * upper-triangle triplets (row <= col; duplicates are summed, so a matrix that is a sum of
 * per-body contributions can be given term by term). A solve orders (AMD), factorizes and
 * solves; the context keeps the factor for later solves (tch_sparse_spd_solve_with_factor).
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
 * not numerically positive definite, TCH_ERR_OUT_OF_MEMORY. The context keeps the factor; when
 * A has the pattern of the last matrix it analysed (the same n and triplet positions, in order),
 * that ordering and symbolic factorization are kept and only the numeric factorization is
 * redone. */
tch_status tch_sparse_spd_solve(tch_sparse_spd* context, const tch_sparse_triplets* a,
                                const tch_real* b, tch_real* x);

/* A factor can be kept for later right-hand sides and named by a key: the caller's description
 * of the matrix it was made for (engine/constraint_pgs.c names an island's free rows by their
 * bodies). A matrix that changes slowly from call to call (a resting island's Delassus matrix,
 * step to step) can then be solved approximately with the factor of an earlier one, at the cost
 * of two triangular solves instead of building the matrix, ordering and factorizing it. */

/* Names the context's current factor (that of its last successful solve) by key[0..count).
 * Returns TCH_OK, TCH_ERR_INVALID_ARGUMENT when there is no factor, TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_sparse_spd_set_key(tch_sparse_spd* context, const int* key, int count);

/* Does the context hold a factor named by key[0..count)? A new factorization, successful or
 * not, drops the name. */
bool tch_sparse_spd_has_key(const tch_sparse_spd* context, const int* key, int count);

/* Solves with the context's current factor (n its size; b and x may alias). Returns TCH_OK,
 * TCH_ERR_INVALID_ARGUMENT when there is no factor of size n, TCH_ERR_OUT_OF_MEMORY. */
tch_status tch_sparse_spd_solve_with_factor(tch_sparse_spd* context, int n, const tch_real* b,
                                            tch_real* x);

/* For checkpoints: the matrix whose factor the context holds under a key (its triplets, valid
 * until the next solve) and the key; false when no factor is keyed. */
bool tch_sparse_spd_keyed_matrix(const tch_sparse_spd* context, tch_sparse_triplets* matrix,
                                 const int** key, int* key_count);
/* Factors `matrix` (checked: upper triplets within n) and names the factor by `key`: the state
 * tch_sparse_spd_keyed_matrix described. TCH_ERR_INVALID_ARGUMENT for a bad matrix. */
tch_status tch_sparse_spd_restore_keyed(tch_sparse_spd* context,
                                        const tch_sparse_triplets* matrix, const int* key,
                                        int key_count);
