#include "solver/sparse_spd.h"

#include <cholmod.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The context keeps the factor of its last factorization with the pattern it was made for, so
 * that a matrix of the same pattern can reuse it (tch_sparse_spd_solve_reusing). */
struct tch_sparse_spd {
    cholmod_common common;
    cholmod_factor* factor;     /* of the last factorization, or NULL */
    int n, count;               /* its matrix's size and triplet count */
    int* pattern;               /* [2 * capacity]: its triplets' rows, then columns */
    tch_real* values;           /* [capacity]: its triplets' values */
    int capacity;
};

/* A factor is reused for a matrix of its pattern whose entries differ from its own by at most
 * this share of its largest entry: a step from it then leaves about this share of the residual
 * (a contact island whose points came in another order has the same pattern and other values). */
static const tch_real REUSE_CHANGE = 1e-4;

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
    /* LLᵀ: CHOLMOD's default simplicial LDLᵀ reports only zero pivots, not negative ones, and
     * would solve an indefinite matrix as if it were positive definite. */
    context->common.final_ll = 1;
    return context;
}

void tch_sparse_spd_destroy(tch_sparse_spd* context) {
    if (context) {
        cholmod_free_factor(&context->factor, &context->common);
        cholmod_finish(&context->common);
        free(context->pattern);
        free(context->values);
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

static int close_values(const tch_sparse_spd* context, const tch_sparse_triplets* a) {
    tch_real largest = 0, change = 0;
    for (int k = 0; k < a->count; ++k) {
        tch_real value = fabs(context->values[k]);
        tch_real difference = fabs(a->value[k] - context->values[k]);
        largest = value > largest ? value : largest;
        change = difference > change ? difference : change;
    }
    return change <= REUSE_CHANGE * largest;
}

/* Can a reuse the context's factor: the same pattern and close values? */
static int can_reuse(const tch_sparse_spd* context, const tch_sparse_triplets* a) {
    size_t bytes = (size_t)a->count * sizeof(int);
    return context->factor && context->n == a->n && context->count == a->count &&
           memcmp(context->pattern, a->row, bytes) == 0 &&
           memcmp(context->pattern + a->count, a->col, bytes) == 0 && close_values(context, a);
}

/* Remembers a's pattern and values for the factor just made; forgets the factor when out of memory. */
static void remember_pattern(tch_sparse_spd* context, const tch_sparse_triplets* a) {
    if (a->count > context->capacity) {
        int* grown = realloc(context->pattern, 2 * (size_t)a->count * sizeof(int));
        context->pattern = grown ? grown : context->pattern;
        tch_real* values = realloc(context->values, (size_t)a->count * sizeof(tch_real));
        context->values = values ? values : context->values;
        if (!grown || !values) {
            cholmod_free_factor(&context->factor, &context->common);
            return;
        }
        context->capacity = a->count;
    }
    memcpy(context->pattern, a->row, (size_t)a->count * sizeof(int));
    memcpy(context->pattern + a->count, a->col, (size_t)a->count * sizeof(int));
    memcpy(context->values, a->value, (size_t)a->count * sizeof(tch_real));
    context->n = a->n;
    context->count = a->count;
}

/* A new factor of a in the context (ordered, analysed, factorized). */
static tch_status factorize(tch_sparse_spd* context, const tch_sparse_triplets* a) {
    cholmod_common* cc = &context->common;
    cholmod_free_factor(&context->factor, cc);
    cholmod_sparse* matrix = upper_matrix(context, a);
    context->factor = matrix ? cholmod_analyze(matrix, cc) : NULL;
    int factorized = context->factor && cholmod_factorize(matrix, context->factor, cc);
    tch_status status = factorized && cc->status == CHOLMOD_OK ? TCH_OK
                        : cc->status == CHOLMOD_OUT_OF_MEMORY || !context->factor
                            ? TCH_ERR_OUT_OF_MEMORY
                            : TCH_ERR_NUMERICAL;
    cholmod_free_sparse(&matrix, cc);
    if (status != TCH_OK) {
        cholmod_free_factor(&context->factor, cc);
    } else {
        remember_pattern(context, a);
    }
    return status;
}

/* x = L⁻ᵀ D⁻¹ L⁻¹ b with the context's factor. */
static tch_status solve_with_factor(tch_sparse_spd* context, int n, const tch_real* b,
                                    tch_real* x) {
    cholmod_common* cc = &context->common;
    cholmod_dense* rhs = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL, cc);
    if (!rhs) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    memcpy(rhs->x, b, (size_t)n * sizeof *b);
    cholmod_dense* solution = cholmod_solve(CHOLMOD_A, context->factor, rhs, cc);
    tch_status status = solution ? TCH_OK : TCH_ERR_OUT_OF_MEMORY;
    if (solution) {
        memcpy(x, solution->x, (size_t)n * sizeof *x);
    }
    cholmod_free_dense(&solution, cc);
    cholmod_free_dense(&rhs, cc);
    return status;
}

tch_status tch_sparse_spd_solve(tch_sparse_spd* context, const tch_sparse_triplets* a,
                                const tch_real* b, tch_real* x) {
    _Static_assert(sizeof(tch_real) == sizeof(double), "CHOLMOD_REAL holds doubles");
    tch_status status = factorize(context, a);
    return status == TCH_OK ? solve_with_factor(context, a->n, b, x) : status;
}

tch_status tch_sparse_spd_solve_reusing(tch_sparse_spd* context, const tch_sparse_triplets* a,
                                        const tch_real* b, tch_real* x, bool* reused) {
    *reused = can_reuse(context, a);
    return *reused ? solve_with_factor(context, a->n, b, x)
                   : tch_sparse_spd_solve(context, a, b, x);
}
