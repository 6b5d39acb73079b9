/* The solvers of touche/lcp.h for callers without an arena: each call makes its own scratch
 * (the pattern of the contact space's resting-contact solve) and frees it before returning. */
#include "solver/lcp.h"
#include "solver/lemke.h"
#include "solver/mlcp.h"
#include "solver/pgs.h"

#include "base/error.h"

/* The scratch arena of one call; TCH_ERR_OUT_OF_MEMORY when it cannot be made. */
static tch_status scratch_open(tch_arena* arena, tch_error* err) {
    if (tch_arena_init(arena, 0) != 0) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                        "no memory for the solver's scratch");
    }
    return TCH_OK;
}

tch_status tch_lcp_solve_lemke(const tch_real* M, const tch_real* q, int n,
                               const tch_lemke_options* options, tch_real* z,
                               tch_lcp_result* result, tch_error* err) {
    tch_arena arena;
    tch_status status = scratch_open(&arena, err);
    if (status != TCH_OK) return status;
    status = tch_lemke_solve(M, q, n, options, &arena, z, result, err);
    tch_arena_destroy(&arena);
    return status;
}

tch_status tch_lcp_solve_mixed(const tch_real* M, const tch_real* q, int n, int equality_count,
                               const tch_lemke_options* options, tch_real* z,
                               tch_lcp_result* result, tch_error* err) {
    tch_arena arena;
    tch_status status = scratch_open(&arena, err);
    if (status != TCH_OK) return status;
    status = tch_mlcp_solve(M, q, n, equality_count, options, &arena, z, result, err);
    tch_arena_destroy(&arena);
    return status;
}

tch_status tch_lcp_solve_pgs(const tch_real* M, const tch_real* q, int n,
                             const tch_lcp_bounds* bounds, const tch_pgs_options* options,
                             tch_real* z, tch_lcp_result* result, tch_error* err) {
    tch_lcp_matrix matrix = tch_lcp_matrix_dense(M, n); /* checked by the solve */
    return tch_pgs_solve(&matrix, q, bounds, options, z, result, err);
}

tch_lcp_residual tch_lcp_residuals_dense(const tch_real* M, const tch_real* q, int n,
                                         const tch_lcp_bounds* bounds, const tch_real* z) {
    tch_lcp_matrix matrix = tch_lcp_matrix_dense(M, n);
    return tch_lcp_residuals(&matrix, q, bounds, z);
}
