#include "solver/pgs.h"

#include <math.h>

#include "base/error.h"

tch_pgs_options tch_pgs_options_default(void) {
    return (tch_pgs_options){
        .max_iterations = 100, .tolerance = 1e-8, .omega = 1, .warm_start = false};
}

static tch_real project(tch_real value, tch_real lo, tch_real hi) {
    return fmin(fmax(value, lo), hi);
}

/* One sweep z_i ← P(z_i − ω w_i / M_ii), i = 0..n-1; returns the largest natural-map component
 * |z_i − P(z_i − w_i)| met before each update. */
static tch_real sweep(const tch_lcp_matrix* m, const tch_real* q, const tch_lcp_bounds* bounds,
                      tch_real omega, tch_real* z) {
    tch_real estimate = 0;
    for (int i = 0; i < m->n; ++i) {
        tch_real diagonal, lo, hi;
        const tch_real w = tch_lcp_matrix_row_dot(m, i, z, &diagonal) + q[i];
        tch_lcp_bounds_at(bounds, i, z, &lo, &hi);
        estimate = fmax(estimate, fabs(z[i] - project(z[i] - w, lo, hi)));
        z[i] = project(z[i] - omega * w / diagonal, lo, hi);
    }
    return estimate;
}

static tch_status check_diagonal(const tch_lcp_matrix* m, tch_error* err) {
    for (int i = 0; i < m->n; ++i) {
        const tch_real diagonal = tch_lcp_matrix_diagonal(m, i);
        if (!(diagonal > 0)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "PGS needs a positive diagonal; M[%d][%d] = %g", i, i, diagonal);
        }
    }
    return TCH_OK;
}

static tch_status check_input(const tch_lcp_matrix* m, const tch_real* q,
                              const tch_lcp_bounds* bounds, const tch_pgs_options* opt,
                              const tch_real* z, tch_error* err) {
    tch_status status = tch_lcp_matrix_check(m, err);
    if (status != TCH_OK) {
        return status;
    }
    if (m->n > 0 && (!q || !z)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0, "PGS needs non-NULL q and z");
    }
    if (!(opt->omega > 0 && opt->omega < 2) || !(opt->tolerance >= 0) ||
        opt->max_iterations < 0) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "PGS options omega = %g, tolerance = %g, max_iterations = %d; expected "
                        "0 < omega < 2, tolerance >= 0, max_iterations >= 0",
                        opt->omega, opt->tolerance, opt->max_iterations);
    }
    if ((status = tch_lcp_check_finite(q, m->n, "q", err)) != TCH_OK ||
        (opt->warm_start && (status = tch_lcp_check_finite(z, m->n, "z", err)) != TCH_OK) ||
        (status = tch_lcp_bounds_check(bounds, m->n, err)) != TCH_OK) {
        return status;
    }
    if (bounds && bounds->disc) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "PGS solves box bounds; friction discs are the lcp model's row solver's");
    }
    return check_diagonal(m, err);
}

/* The cold start: 0 projected on the bounds (a scaled row's bounds are then [0, 0]). */
static void cold_start(const tch_lcp_bounds* bounds, int n, tch_real* z) {
    for (int i = 0; i < n; ++i) {
        z[i] = 0;
    }
    for (int i = 0; i < n; ++i) {
        tch_real lo, hi;
        tch_lcp_bounds_at(bounds, i, z, &lo, &hi);
        z[i] = project(0, lo, hi);
    }
}

tch_status tch_pgs_solve(const tch_lcp_matrix* m, const tch_real* q, const tch_lcp_bounds* bounds,
                         const tch_pgs_options* options, tch_real* z, tch_lcp_result* result,
                         tch_error* err) {
    const tch_pgs_options opt = options ? *options : tch_pgs_options_default();
    const tch_status status = check_input(m, q, bounds, &opt, z, err);
    if (status != TCH_OK) {
        return status;
    }
    if (!opt.warm_start) {
        cold_start(bounds, m->n, z);
    }
    tch_real residual = tch_lcp_residuals(m, q, bounds, z).natural_map;
    int sweeps = 0;
    while (residual > opt.tolerance && sweeps < opt.max_iterations) {
        const tch_real estimate = sweep(m, q, bounds, opt.omega, z);
        ++sweeps;
        if (estimate <= opt.tolerance || sweeps == opt.max_iterations) {
            residual = tch_lcp_residuals(m, q, bounds, z).natural_map;
        }
    }
    const bool solved = residual <= opt.tolerance;
    if (result) {
        *result = (tch_lcp_result){solved ? TCH_OK : TCH_ERR_NUMERICAL,
                                   solved ? TCH_LCP_SOLVED : TCH_LCP_MAX_ITERATIONS, sweeps,
                                   residual};
    }
    if (solved) {
        return TCH_OK;
    }
    return tch_fail(err, TCH_ERR_NUMERICAL, NULL, 0,
                    "PGS reached %d sweeps with natural-map residual %g; expected at most %g",
                    sweeps, residual, opt.tolerance);
}
