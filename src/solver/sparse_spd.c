#include "solver/sparse_spd.h"

#include <cholmod.h>
#include <stdlib.h>
#include <string.h>

struct tch_sparse_spd {
    cholmod_common common;
};

tch_sparse_spd* tch_sparse_spd_create(void) {
    tch_sparse_spd* context = calloc(1, sizeof *context);
    if (!context) {
        return NULL;
    }
    cholmod_start(&context->common);
    /* AMD only: the islands are small, and trying METIS or several orderings costs more than
     * the fill it saves. */
    context->common.nmethods = 1;
    context->common.method[0].ordering = CHOLMOD_AMD;
    context->common.postorder = 1;
    context->common.print = 0;
    return context;
}

void tch_sparse_spd_destroy(tch_sparse_spd* context) {
    if (context) {
        cholmod_finish(&context->common);
        free(context);
    }
}

static cholmod_sparse* upper_matrix(tch_sparse_spd* context, const tch_sparse_triplets* a) {
    cholmod_common* cc = &context->common;
    cholmod_triplet* t = cholmod_allocate_triplet((size_t)a->n, (size_t)a->n, (size_t)a->count,
                                                  1, CHOLMOD_REAL, cc);
    if (!t) {
        return NULL;
    }
    memcpy(t->i, a->row, (size_t)a->count * sizeof(int));
    memcpy(t->j, a->col, (size_t)a->count * sizeof(int));
    memcpy(t->x, a->value, (size_t)a->count * sizeof(double));
    t->nnz = (size_t)a->count;
    cholmod_sparse* matrix = cholmod_triplet_to_sparse(t, (size_t)a->count, cc);
    cholmod_free_triplet(&t, cc);
    return matrix;
}

tch_status tch_sparse_spd_solve(tch_sparse_spd* context, const tch_sparse_triplets* a,
                                const tch_real* b, tch_real* x) {
    _Static_assert(sizeof(tch_real) == sizeof(double), "CHOLMOD_REAL holds doubles");
    cholmod_common* cc = &context->common;
    cholmod_sparse* matrix = upper_matrix(context, a);
    cholmod_factor* factor = matrix ? cholmod_analyze(matrix, cc) : NULL;
    cholmod_dense* rhs = factor ? cholmod_allocate_dense((size_t)a->n, 1, (size_t)a->n,
                                                         CHOLMOD_REAL, cc)
                                : NULL;
    tch_status status = rhs ? TCH_OK : TCH_ERR_OUT_OF_MEMORY;
    if (status == TCH_OK) {
        memcpy(rhs->x, b, (size_t)a->n * sizeof *b);
        int factorized = cholmod_factorize(matrix, factor, cc);
        status = factorized && cc->status == CHOLMOD_OK ? TCH_OK
                 : cc->status == CHOLMOD_OUT_OF_MEMORY  ? TCH_ERR_OUT_OF_MEMORY
                                                        : TCH_ERR_NUMERICAL;
    }
    cholmod_dense* solution = status == TCH_OK ? cholmod_solve(CHOLMOD_A, factor, rhs, cc) : NULL;
    if (status == TCH_OK && !solution) {
        status = TCH_ERR_OUT_OF_MEMORY;
    }
    if (solution) {
        memcpy(x, solution->x, (size_t)a->n * sizeof *x);
    }
    cholmod_free_dense(&solution, cc);
    cholmod_free_dense(&rhs, cc);
    cholmod_free_factor(&factor, cc);
    cholmod_free_sparse(&matrix, cc);
    return status;
}
