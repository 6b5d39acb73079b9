#include "solver/sparse_spd.h"

#include <cholmod.h>
#include <stdlib.h>
#include <string.h>

/* The context keeps the factor of its last factorization, the pattern of the matrix it was
 * analysed for, and the key the caller named it by. */
struct tch_sparse_spd {
    cholmod_common common;
    cholmod_factor* factor;     /* of the last factorization, or NULL */
    int* pattern;               /* [pattern_capacity]: the analysed triplets' rows, then columns */
    int pattern_n, pattern_count;   /* pattern_count -1: none */
    int pattern_capacity;
    int* key;                   /* [key_capacity]: the factor's name */
    int key_count;              /* -1: the factor has none */
    int key_capacity;
    tch_real* values;           /* [values_capacity]: the factored matrix's triplet values (its
                                 * pattern is `pattern`), for checkpoints */
    size_t values_capacity;
    cholmod_dense* rhs;         /* the solves' right-hand side, solution and workspaces, kept */
    cholmod_dense* solution;    /* between solves so that a solve allocates nothing once they */
    cholmod_dense* work_y;      /* are large enough (cholmod_solve2) */
    cholmod_dense* work_e;
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
    /* Simplicial: an island's free rows (tens to hundreds) are too few for supernodes to pay,
     * and the supernodal factorization calls BLAS, whose idle worker threads then spin on the
     * other core. */
    context->common.supernodal = CHOLMOD_SIMPLICIAL;
    context->common.print = 0;
    /* LLᵀ: CHOLMOD's default simplicial LDLᵀ reports only zero pivots, not negative ones, and
     * would solve an indefinite matrix as if it were positive definite. */
    context->common.final_ll = 1;
    context->key_count = -1;
    context->pattern_count = -1;
    return context;
}

void tch_sparse_spd_destroy(tch_sparse_spd* context) {
    if (context) {
        cholmod_free_factor(&context->factor, &context->common);
        cholmod_free_dense(&context->rhs, &context->common);
        cholmod_free_dense(&context->solution, &context->common);
        cholmod_free_dense(&context->work_y, &context->common);
        cholmod_free_dense(&context->work_e, &context->common);
        cholmod_finish(&context->common);
        free(context->key);
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

/* Is a's pattern (size and triplet positions, in order) the one the factor was analysed for? */
static bool has_pattern(const tch_sparse_spd* context, const tch_sparse_triplets* a) {
    size_t bytes = (size_t)a->count * sizeof(int);
    return context->factor && context->pattern_n == a->n && context->pattern_count == a->count &&
           (a->count == 0 || (memcmp(context->pattern, a->row, bytes) == 0 &&
                              memcmp(context->pattern + a->count, a->col, bytes) == 0));
}

/* *buffer grown to hold at least `count` ints (*capacity of them); 0, or -1 when out of memory
 * (the buffer is then as it was). */
static int reserve_ints(int** buffer, int* capacity, int count) {
    if (count > *capacity) {
        int* grown = realloc(*buffer, (size_t)count * sizeof *grown);
        if (!grown) {
            return -1;
        }
        *buffer = grown;
        *capacity = count;
    }
    return 0;
}

/* Remembers a's pattern as the analysed one (none when out of memory). */
static void remember_pattern(tch_sparse_spd* context, const tch_sparse_triplets* a) {
    context->pattern_count = -1;
    if (reserve_ints(&context->pattern, &context->pattern_capacity, 2 * a->count) != 0) {
        return;
    }
    if (a->count > 0) {
        memcpy(context->pattern, a->row, (size_t)a->count * sizeof(int));
        memcpy(context->pattern + a->count, a->col, (size_t)a->count * sizeof(int));
    }
    context->pattern_n = a->n;
    context->pattern_count = a->count;
}

/* Keeps a's values (the matrix of the factor); 0, or -1 when out of memory. */
static int remember_values(tch_sparse_spd* context, const tch_sparse_triplets* a) {
    if ((size_t)a->count > context->values_capacity) {
        tch_real* grown = realloc(context->values, (size_t)a->count * sizeof *grown);
        if (!grown) {
            return -1;
        }
        context->values = grown;
        context->values_capacity = (size_t)a->count;
    }
    if (a->count > 0) {
        memcpy(context->values, a->value, (size_t)a->count * sizeof *a->value);
    }
    return 0;
}

/* A new factor of a in the context: ordered and analysed (symbolic factorization) unless a has
 * the pattern of the last analysis, whose ordering and symbolic factor are then kept (an island
 * whose bodies moved since its last factorization), then factorized. */
static tch_status factorize(tch_sparse_spd* context, const tch_sparse_triplets* a) {
    cholmod_common* cc = &context->common;
    bool analysed = has_pattern(context, a);
    context->key_count = -1;
    if (!analysed) {
        cholmod_free_factor(&context->factor, cc);
        context->pattern_count = -1;
    }
    cholmod_sparse* matrix = upper_matrix(context, a);
    if (!analysed) {
        context->factor = matrix ? cholmod_analyze(matrix, cc) : NULL;
    }
    int factorized = matrix && context->factor && cholmod_factorize(matrix, context->factor, cc);
    tch_status status = factorized && cc->status == CHOLMOD_OK ? TCH_OK
                        : cc->status == CHOLMOD_OUT_OF_MEMORY || !context->factor || !matrix
                            ? TCH_ERR_OUT_OF_MEMORY
                            : TCH_ERR_NUMERICAL;
    cholmod_free_sparse(&matrix, cc);
    if (status != TCH_OK) {
        cholmod_free_factor(&context->factor, cc);
        context->pattern_count = -1;
    } else if (!analysed) {
        remember_pattern(context, a);
    }
    if (status == TCH_OK && remember_values(context, a) != 0) {
        context->pattern_count = -1; /* the factor cannot be checkpointed: never keyed */
    }
    return status;
}

/* The context's right-hand side as an n x 1 matrix, grown when smaller; NULL when out of
 * memory. */
static cholmod_dense* right_hand_side(tch_sparse_spd* context, int n) {
    if (!context->rhs || context->rhs->nzmax < (size_t)n) {
        cholmod_free_dense(&context->rhs, &context->common);
        context->rhs = cholmod_allocate_dense((size_t)n, 1, (size_t)n, CHOLMOD_REAL,
                                              &context->common);
    }
    if (context->rhs) {
        context->rhs->nrow = context->rhs->d = (size_t)n;
    }
    return context->rhs;
}

/* x = L⁻ᵀ L⁻¹ b with the context's factor. */
tch_status tch_sparse_spd_solve_with_factor(tch_sparse_spd* context, int n, const tch_real* b,
                                            tch_real* x) {
    cholmod_common* cc = &context->common;
    if (!context->factor || context->factor->n != (size_t)n) {
        return TCH_ERR_INVALID_ARGUMENT;
    }
    cholmod_dense* rhs = right_hand_side(context, n);
    if (!rhs) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    memcpy(rhs->x, b, (size_t)n * sizeof *b);
    if (!cholmod_solve2(CHOLMOD_A, context->factor, rhs, NULL, &context->solution, NULL,
                        &context->work_y, &context->work_e, cc)) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    memcpy(x, context->solution->x, (size_t)n * sizeof *x);
    return TCH_OK;
}

tch_status tch_sparse_spd_solve(tch_sparse_spd* context, const tch_sparse_triplets* a,
                                const tch_real* b, tch_real* x) {
    _Static_assert(sizeof(tch_real) == sizeof(double), "CHOLMOD_REAL holds doubles");
    tch_status status = factorize(context, a);
    return status == TCH_OK ? tch_sparse_spd_solve_with_factor(context, a->n, b, x) : status;
}

tch_status tch_sparse_spd_set_key(tch_sparse_spd* context, const int* key, int count) {
    if (!context->factor || count < 0 || context->pattern_count < 0) {
        return TCH_ERR_INVALID_ARGUMENT;
    }
    if (reserve_ints(&context->key, &context->key_capacity, count) != 0) {
        context->key_count = -1;
        return TCH_ERR_OUT_OF_MEMORY;
    }
    if (count > 0) {
        memcpy(context->key, key, (size_t)count * sizeof *key);
    }
    context->key_count = count;
    return TCH_OK;
}

bool tch_sparse_spd_has_key(const tch_sparse_spd* context, const int* key, int count) {
    return context->factor && context->key_count == count &&
           (count == 0 || memcmp(context->key, key, (size_t)count * sizeof *key) == 0);
}

bool tch_sparse_spd_keyed_matrix(const tch_sparse_spd* context, tch_sparse_triplets* matrix,
                                 const int** key, int* key_count) {
    if (!context->factor || context->key_count < 0 || context->pattern_count < 0) {
        return false;
    }
    *matrix = (tch_sparse_triplets){context->pattern_n, context->pattern_count,
                                    context->pattern, context->pattern + context->pattern_count,
                                    context->values};
    *key = context->key;
    *key_count = context->key_count;
    return true;
}

tch_status tch_sparse_spd_restore_keyed(tch_sparse_spd* context,
                                        const tch_sparse_triplets* matrix, const int* key,
                                        int key_count) {
    for (int k = 0; k < matrix->count; ++k) {
        if (matrix->row[k] < 0 || matrix->row[k] > matrix->col[k] || matrix->col[k] >= matrix->n) {
            return TCH_ERR_INVALID_ARGUMENT;
        }
    }
    /* each diagonal entry of an SPD matrix is a triplet: n <= count */
    tch_status status = matrix->n > 0 && matrix->n <= matrix->count ? factorize(context, matrix)
                                                                    : TCH_ERR_INVALID_ARGUMENT;
    return status == TCH_OK ? tch_sparse_spd_set_key(context, key, key_count) : status;
}
