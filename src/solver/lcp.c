#include "solver/lcp.h"

#include <math.h>

#include "base/error.h"

tch_lcp_matrix tch_lcp_matrix_dense(const tch_real* m, int n) {
    return (tch_lcp_matrix){.storage = TCH_LCP_DENSE, .n = n, .dense = m};
}

tch_lcp_matrix tch_lcp_matrix_csr(int n, const int* row_start, const int* column,
                                  const tch_real* value) {
    return (tch_lcp_matrix){.storage = TCH_LCP_CSR, .n = n, .row_start = row_start,
                            .column = column, .value = value};
}

tch_real tch_lcp_matrix_row_dot(const tch_lcp_matrix* m, int i, const tch_real* z,
                                tch_real* diagonal) {
    tch_real s = 0;
    if (m->storage == TCH_LCP_DENSE) {
        const tch_real* row = m->dense + (size_t)i * (size_t)m->n;
        for (int j = 0; j < m->n; ++j) {
            s += row[j] * z[j];
        }
        if (diagonal) {
            *diagonal = row[i];
        }
        return s;
    }
    tch_real d = 0;
    for (int k = m->row_start[i]; k < m->row_start[i + 1]; ++k) {
        s += m->value[k] * z[m->column[k]];
        d += m->column[k] == i ? m->value[k] : 0;
    }
    if (diagonal) {
        *diagonal = d;
    }
    return s;
}

tch_real tch_lcp_matrix_diagonal(const tch_lcp_matrix* m, int i) {
    if (m->storage == TCH_LCP_DENSE) {
        return m->dense[(size_t)i * (size_t)m->n + (size_t)i];
    }
    tch_real d = 0;
    for (int k = m->row_start[i]; k < m->row_start[i + 1]; ++k) {
        d += m->column[k] == i ? m->value[k] : 0;
    }
    return d;
}

static tch_status check_csr_structure(const tch_lcp_matrix* m, tch_error* err) {
    if (!m->row_start || !m->column || !m->value || m->row_start[0] != 0) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "CSR matrix needs row_start, column and value arrays with "
                        "row_start[0] = 0");
    }
    for (int i = 0; i < m->n; ++i) {
        if (m->row_start[i + 1] < m->row_start[i]) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "CSR row_start decreases at row %d; expected non-decreasing", i);
        }
    }
    for (int k = 0; k < m->row_start[m->n]; ++k) {
        if (m->column[k] < 0 || m->column[k] >= m->n) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "CSR column[%d] = %d; expected a column in [0, %d)", k,
                            m->column[k], m->n);
        }
    }
    return TCH_OK;
}

tch_status tch_lcp_matrix_check(const tch_lcp_matrix* m, tch_error* err) {
    if (!m || m->n < 0 || (m->storage == TCH_LCP_DENSE && m->n > 0 && !m->dense)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "matrix is NULL, has no entries or a negative size");
    }
    if (m->storage == TCH_LCP_DENSE) {
        return tch_lcp_check_finite(m->dense, m->n * m->n, "M", err);
    }
    const tch_status status = check_csr_structure(m, err);
    return status == TCH_OK ? tch_lcp_check_finite(m->value, m->row_start[m->n], "M value", err)
                            : status;
}

static bool is_scaled(const tch_lcp_bounds* bounds, int i) {
    return bounds->normal_index && bounds->normal_index[i] >= 0;
}

/* The stored coefficients, before any scaling by a normal variable. */
static tch_real stored_lo(const tch_lcp_bounds* bounds, int i) {
    return bounds && bounds->lo ? bounds->lo[i] : 0;
}

static tch_real stored_hi(const tch_lcp_bounds* bounds, int i) {
    return bounds && bounds->hi ? bounds->hi[i] : INFINITY;
}

void tch_lcp_bounds_at(const tch_lcp_bounds* bounds, int i, const tch_real* z, tch_real* lo,
                       tch_real* hi) {
    *lo = stored_lo(bounds, i);
    *hi = stored_hi(bounds, i);
    if (bounds && is_scaled(bounds, i)) {
        const tch_real scale = fmax(z[bounds->normal_index[i]], 0);
        *lo *= scale;
        *hi *= scale;
    }
}

tch_status tch_lcp_bounds_check(const tch_lcp_bounds* bounds, int n, tch_error* err) {
    if (!bounds) {
        return TCH_OK;
    }
    for (int i = 0; i < n; ++i) {
        const tch_real lo = stored_lo(bounds, i);
        const tch_real hi = stored_hi(bounds, i);
        if (isnan(lo) || isnan(hi) || lo > hi || lo == INFINITY || hi == -INFINITY) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "row %d has bounds [%g, %g]; expected lo <= hi, lo < +inf, hi > -inf",
                            i, lo, hi);
        }
        if (!is_scaled(bounds, i)) {
            continue;
        }
        const int k = bounds->normal_index[i];
        if (k >= n || k == i || is_scaled(bounds, k) || !isfinite(lo) || !isfinite(hi)) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "row %d scales its bounds [%g, %g] by row %d; expected finite "
                            "coefficients and a row in [0, %d) that is not scaled itself",
                            i, lo, hi, k, n);
        }
    }
    return TCH_OK;
}

static bool is_plain_lcp_row(const tch_lcp_bounds* bounds, int i) {
    return !(bounds && is_scaled(bounds, i)) && stored_lo(bounds, i) == 0 &&
           stored_hi(bounds, i) == INFINITY;
}

/* Does row i start a friction disc with row i + 1 (tch_lcp_bounds.disc)? */
static bool starts_disc(const tch_lcp_bounds* bounds, int i, int n) {
    return bounds && bounds->disc && is_scaled(bounds, i) && i + 1 < n &&
           bounds->normal_index[i + 1] == bounds->normal_index[i];
}

/* The natural map and the infeasibility of the friction disc of rows i, i + 1. */
static void disc_residuals(const tch_lcp_matrix* m, const tch_real* q,
                           const tch_lcp_bounds* bounds, const tch_real* z, int i,
                           tch_lcp_residual* r) {
    const tch_real radius = stored_hi(bounds, i) * fmax(z[bounds->normal_index[i]], 0);
    tch_real y0 = z[i] - (tch_lcp_matrix_row_dot(m, i, z, NULL) + q[i]);
    tch_real y1 = z[i + 1] - (tch_lcp_matrix_row_dot(m, i + 1, z, NULL) + q[i + 1]);
    const tch_real norm = hypot(y0, y1);
    const tch_real scale = norm > radius ? radius / norm : 1;
    r->natural_map = fmax(r->natural_map, hypot(z[i] - scale * y0, z[i + 1] - scale * y1));
    r->infeasibility = fmax(r->infeasibility, hypot(z[i], z[i + 1]) - radius);
}

/* Natural map (Facchinei-Pang, sec. 1.5): r_i = z_i - mid(lo_i, z_i - w_i, hi_i), or a disc's
 * z_t - P_disc(z_t - w_t). */
tch_lcp_residual tch_lcp_residuals(const tch_lcp_matrix* m, const tch_real* q,
                                   const tch_lcp_bounds* bounds, const tch_real* z) {
    tch_lcp_residual r = {0, 0, 0};
    for (int i = 0; i < m->n; ++i) {
        if (starts_disc(bounds, i, m->n)) {
            disc_residuals(m, q, bounds, z, i++, &r);
            continue;
        }
        const tch_real w = tch_lcp_matrix_row_dot(m, i, z, NULL) + q[i];
        tch_real lo, hi;
        tch_lcp_bounds_at(bounds, i, z, &lo, &hi);
        const tch_real projected = fmin(fmax(z[i] - w, lo), hi);
        r.natural_map = fmax(r.natural_map, fabs(z[i] - projected));
        r.infeasibility = fmax(r.infeasibility, fmax(lo - z[i], z[i] - hi));
        if (is_plain_lcp_row(bounds, i)) {
            r.z_dot_w += z[i] * w;
            r.infeasibility = fmax(r.infeasibility, -w);
        }
    }
    return r;
}

const char* tch_lcp_reason_name(tch_lcp_reason reason) {
    switch (reason) {
    case TCH_LCP_SOLVED: return "solved";
    case TCH_LCP_RAY_TERMINATION: return "ray termination";
    case TCH_LCP_MAX_ITERATIONS: return "iteration limit";
    case TCH_LCP_SINGULAR: return "singular matrix";
    case TCH_LCP_STALLED: return "stalled";
    }
    return "unknown reason";
}

tch_status tch_lcp_check_finite(const tch_real* values, int count, const char* name,
                                tch_error* err) {
    for (int i = 0; i < count; ++i) {
        if (!isfinite(values[i])) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "%s[%d] is %g; expected a finite number", name, i, values[i]);
        }
    }
    return TCH_OK;
}
