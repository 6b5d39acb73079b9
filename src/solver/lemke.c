#include "solver/lemke.h"

#include <cblas.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "base/error.h"
#include "solver/lu.h"

/* Variables are numbered w_j = j, z_j = n + j, z0 = 2n. In the original system
 * w - M z - d z0 = q their columns are e_j, -M e_j and -d. */
typedef struct lemke {
    int n;
    const tch_real* m;
    const tch_real* q;
    tch_real* inverse;   /* [n*n] B̄⁻¹: inverse of the basis in the starting coordinates */
    tch_real* x;         /* [n] value of the basic variable of each row */
    tch_real* column;    /* [n] entering column ā = B̄⁻¹ B0⁻¹ a */
    tch_real* gathered;  /* [n] B0⁻¹ a, the entering column in starting coordinates */
    tch_real* work;      /* [n] */
    int* basis;          /* [n] basic variable of each row */
    int* row_of;         /* [2n+1] row of each basic variable, -1 when non-basic */
    tch_real* start_lu;  /* [n*n] LU of M_SS, S = the starting basic z; NULL for B0 = I */
    int* start_pivot;    /* [n] */
    int* start_set;      /* [n] S, the rows whose starting basic variable is z */
    int start_count;     /* |S| */
    int start_dropped;   /* the guessed z that factor_start took out of S as dependent */
    unsigned char* in_start; /* [n] 1 for the rows of S */
    tch_real* start_rhs; /* [n] */
    tch_real x_noise;    /* rounding level of x, for ties in the ratio test */
    tch_real pivot_tolerance;
    bool blas;           /* the O(n²) products by CBLAS (dgemv, dger) rather than the loops */
} lemke;

static int var_w(const lemke* s, int j) { (void)s; return j; }
static int var_z(const lemke* s, int j) { return s->n + j; }
static int var_z0(const lemke* s) { return 2 * s->n; }

static int complement(const lemke* s, int var) {
    return var < s->n ? var + s->n : var - s->n;
}

tch_lemke_options tch_lemke_options_default(void) {
    return (tch_lemke_options){
        .max_pivots = 0, .pivot_tolerance = 1e-11, .warm_start = false, .accept_residual = 0};
}

static tch_real max_abs(const tch_real* v, int count) {
    tch_real m = 0;
    for (int i = 0; i < count; ++i) {
        m = fmax(m, fabs(v[i]));
    }
    return m;
}

/* y = A v for the n x n row-major A. */
static void mat_vec(const tch_real* a, int n, const tch_real* v, tch_real* y, bool blas) {
    if (blas) {
        cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, 1, a, n, v, 1, 0, y, 1);
        return;
    }
    for (int i = 0; i < n; ++i) {
        const tch_real* row = a + (size_t)i * (size_t)n;
        tch_real sum = 0;
        for (int k = 0; k < n; ++k) {
            sum += row[k] * v[k];
        }
        y[i] = sum;
    }
}

/* b <- B0⁻¹ b for the starting basis B0, whose column i is -M e_i for i in S and e_i otherwise.
 * The rows of S give M_SS x_S = -b_S (by the LU of M_SS), the others x_r = b_r + M_rS x_S:
 * O(|S|² + n |S|) per solve after an |S|³ factorization, instead of an n x n one. At rest |S| is
 * about the contacts' normal rows, a fraction of the n unknowns of a frictional problem. */
static void solve_start(lemke* s, tch_real* b) {
    const int n = s->n, count = s->start_count;
    tch_real* x_s = s->start_rhs;
    for (int a = 0; a < count; ++a) {
        x_s[a] = -b[s->start_set[a]];
    }
    tch_solver_lu_solve(s->start_lu, count, s->start_pivot, x_s, s->work);
    for (int r = 0; r < n; ++r) {
        if (s->in_start[r]) {
            continue;
        }
        const tch_real* row = s->m + (size_t)r * (size_t)n;
        tch_real sum = b[r];
        for (int a = 0; a < count; ++a) {
            sum += row[s->start_set[a]] * x_s[a];
        }
        b[r] = sum;
    }
    for (int a = 0; a < count; ++a) {
        b[s->start_set[a]] = x_s[a];
    }
}

/* Column of `var` in w - M z - d z0 = q, in the starting coordinates B0⁻¹ (z0's is -1 there,
 * since B0⁻¹ d = 1). */
static void starting_column(lemke* s, int var, tch_real* out) {
    const int n = s->n;
    if (var == var_z0(s)) {
        for (int i = 0; i < n; ++i) {
            out[i] = -1;
        }
        return;
    }
    for (int i = 0; i < n; ++i) {
        out[i] = var < n ? (tch_real)(i == var) : -s->m[(size_t)i * (size_t)n + (size_t)(var - n)];
    }
    if (s->start_lu) {
        solve_start(s, out);
    }
}

static void compute_entering_column(lemke* s, int var) {
    starting_column(s, var, s->gathered);
    mat_vec(s->inverse, s->n, s->gathered, s->column, s->blas);
}

/* a and b agree to within the sum of their rounding noises. */
static bool ties(tch_real a, tch_real noise_a, tch_real b, tch_real noise_b) {
    return fabs(a - b) <= noise_a + noise_b;
}

/* Lexicographic order of the rows (x_i, B̄⁻¹_i) / scale_i (CPS sec. 4.9), with ties to rounding
 * accuracy: the x part is compared with the noise of x, the inverse part with that of entries of
 * order one. */
static bool lexico_less(const lemke* s, int i, tch_real scale_i, int j, tch_real scale_j) {
    const tch_real eps = 64 * DBL_EPSILON;
    const tch_real a = s->x[i] / scale_i, b = s->x[j] / scale_j;
    if (!ties(a, s->x_noise / scale_i, b, s->x_noise / scale_j)) {
        return a < b;
    }
    const tch_real* row_i = s->inverse + (size_t)i * (size_t)s->n;
    const tch_real* row_j = s->inverse + (size_t)j * (size_t)s->n;
    for (int k = 0; k < s->n; ++k) {
        const tch_real u = row_i[k] / scale_i, v = row_j[k] / scale_j;
        if (!ties(u, eps / scale_i, v, eps / scale_j)) {
            return u < v;
        }
    }
    return false;
}

/* Leaving row for the entering column ā: the lexicographic minimum ratio over ā_i > 0, with z0
 * preferred when its ratio ties. -1 when no entry is positive (a secondary ray). */
static int ratio_test(const lemke* s) {
    const tch_real threshold = s->pivot_tolerance * max_abs(s->column, s->n);
    int best = -1;
    for (int i = 0; i < s->n; ++i) {
        if (s->column[i] > threshold &&
            (best < 0 || lexico_less(s, i, s->column[i], best, s->column[best]))) {
            best = i;
        }
    }
    const int r0 = s->row_of[var_z0(s)];
    if (best >= 0 && r0 >= 0 && r0 != best && s->column[r0] > threshold) {
        const tch_real a = s->x[r0] / s->column[r0], b = s->x[best] / s->column[best];
        if (ties(a, s->x_noise / s->column[r0], b, s->x_noise / s->column[best])) {
            return r0;
        }
    }
    return best;
}

/* B̄⁻¹_i -= f_i B̄⁻¹_r for the rows i != r with f_i != 0 (f = ā, row r already divided by the
 * pivot), by CBLAS's daxpy per row or the loop. Rows with f_i = 0 are skipped on both paths: on
 * contact problems ā is often sparse, and a dger over the whole matrix would do the n² work
 * that the skip saves. */
static void eliminate_column(lemke* s, int r) {
    const int n = s->n;
    const tch_real* row_r = s->inverse + (size_t)r * (size_t)n;
    for (int i = 0; i < n; ++i) {
        const tch_real f = s->column[i];
        if (i == r || f == 0) {
            continue;
        }
        tch_real* row_i = s->inverse + (size_t)i * (size_t)n;
        if (s->blas) {
            cblas_daxpy(n, -f, row_r, 1, row_i, 1);
            continue;
        }
        for (int k = 0; k < n; ++k) {
            row_i[k] -= f * row_r[k];
        }
    }
}

/* Gauss-Jordan step on (x, B̄⁻¹) with pivot ā_r; `entering` replaces basis[r]. */
static void pivot(lemke* s, int r, int entering) {
    const int n = s->n;
    tch_real* row_r = s->inverse + (size_t)r * (size_t)n;
    const tch_real p = s->column[r];
    s->x[r] /= p;
    for (int k = 0; k < n; ++k) {
        row_r[k] /= p;
    }
    for (int i = 0; i < n; ++i) {
        if (i != r) {
            s->x[i] -= s->column[i] * s->x[r];
        }
    }
    eliminate_column(s, r);
    s->row_of[s->basis[r]] = -1;
    s->basis[r] = entering;
    s->row_of[entering] = r;
}

/* Takes the start set's a-th row out of S: its w becomes basic instead of its z. */
static void drop_from_start(lemke* s, int a) {
    const int i = s->start_set[a];
    s->row_of[s->basis[i]] = -1;
    s->basis[i] = var_w(s, i);
    s->row_of[s->basis[i]] = i;
    s->in_start[i] = 0;
    s->start_dropped++;
    memmove(s->start_set + a, s->start_set + a + 1,
            (size_t)(s->start_count - a - 1) * sizeof *s->start_set);
    s->start_count--;
}

/* LU-factorizes M_SS, taking out of S each z whose column the elimination finds dependent on
 * the columns before it (the factor's failing step; partial pivoting swaps rows only), until
 * M_SS is regular or S is empty (B0 = I, the cold start's basis, start_lu NULL). A warm start
 * from the impulses of coplanar contacts (five points of a sliding box's face on another box,
 * all pressing: their normal rows have rank 3) gave a singular M_SS, and the cold start that
 * replaced it took 86 to 1 000 pivots and the regularized retries, 5 to 6 ms, where the basis
 * without the dependent columns needs tens (haptic_100). */
static void factor_start(lemke* s) {
    const int n = s->n;
    while (s->start_count > 0) {
        const int count = s->start_count;
        for (int a = 0; a < count; ++a) {
            for (int b = 0; b < count; ++b) {
                s->start_lu[(size_t)a * count + b] =
                    s->m[(size_t)s->start_set[a] * n + (size_t)s->start_set[b]];
            }
        }
        const int failed = tch_solver_lu_factor(s->start_lu, count, s->start_pivot);
        if (failed == 0) {
            return;
        }
        drop_from_start(s, failed - 1);
    }
    s->start_lu = NULL;
}

/* B0 = columns of z_i (z_guess_i > 0, but those factor_start takes out) or w_i; M_SS
 * LU-factorized unless B0 is the identity. */
static void set_starting_basis(lemke* s, const tch_real* z_guess) {
    const int n = s->n;
    for (int v = 0; v <= 2 * n; ++v) {
        s->row_of[v] = -1;
    }
    s->start_count = s->start_dropped = 0;
    for (int i = 0; i < n; ++i) {
        const bool z_basic = z_guess && z_guess[i] > 0;
        s->basis[i] = z_basic ? var_z(s, i) : var_w(s, i);
        s->row_of[s->basis[i]] = i;
        s->in_start[i] = z_basic;
        if (z_basic) {
            s->start_set[s->start_count++] = i;
        }
    }
    s->start_lu = s->start_count == 0 ? NULL : s->start_lu;
    if (s->start_lu) {
        factor_start(s);
    }
    memcpy(s->x, s->q, (size_t)n * sizeof *s->x);
    if (s->start_lu) {
        solve_start(s, s->x);
    }
    memset(s->inverse, 0, (size_t)n * (size_t)n * sizeof *s->inverse);
    for (int i = 0; i < n; ++i) {
        s->inverse[(size_t)i * n + i] = 1;
    }
    s->x_noise = 64 * DBL_EPSILON * fmax(max_abs(s->x, n), DBL_MIN);
}

/* z0 enters at the value -min_i x_i: the leaving row is the lexicographic minimum of (x_i, B̄⁻¹_i).
 * Then complementary pivots until z0 leaves. */
static tch_lcp_reason run_pivots(lemke* s, int max_pivots, int* pivots) {
    int leaving_row = 0;
    for (int i = 1; i < s->n; ++i) {
        if (lexico_less(s, i, 1, leaving_row, 1)) {
            leaving_row = i;
        }
    }
    if (s->x[leaving_row] >= 0) {
        return TCH_LCP_SOLVED;
    }
    int entering = var_z0(s);
    compute_entering_column(s, entering);
    while (*pivots < max_pivots) {
        const int leaving = s->basis[leaving_row];
        pivot(s, leaving_row, entering);
        ++*pivots;
        if (leaving == var_z0(s)) {
            return TCH_LCP_SOLVED;
        }
        entering = complement(s, leaving);
        compute_entering_column(s, entering);
        leaving_row = ratio_test(s);
        if (leaving_row < 0) {
            return TCH_LCP_RAY_TERMINATION;
        }
    }
    return TCH_LCP_MAX_ITERATIONS;
}

static void basic_z(const lemke* s, tch_real* z) {
    for (int j = 0; j < s->n; ++j) {
        const int r = s->row_of[var_z(s, j)];
        z[j] = r >= 0 ? fmax(s->x[r], 0) : 0;
    }
}

static tch_real lcp_residual(const lemke* s, const tch_real* z) {
    const tch_lcp_matrix m = tch_lcp_matrix_dense(s->m, s->n);
    return tch_lcp_residuals(&m, s->q, NULL, z).natural_map;
}

/* With the final basis, M_AA z_A = -q_A for A = the basic z (w_A = 0), by a fresh LU: removes
 * the rounding the product-form updates accumulated. Keeps whichever z has the smaller residual. */
static tch_real polish(const lemke* s, tch_arena* arena, tch_real* z) {
    const int n = s->n;
    tch_real residual = lcp_residual(s, z);
    int* active = tch_arena_alloc(arena, (size_t)n * sizeof *active, "lemke active set");
    int count = 0;
    for (int j = 0; j < n; ++j) {
        if (s->row_of[var_z(s, j)] >= 0) {
            active[count++] = j;
        }
    }
    tch_real* m_aa = tch_arena_alloc(arena, (size_t)count * (size_t)count * sizeof *m_aa,
                                     "lemke polish matrix");
    tch_real* candidate = tch_arena_alloc(arena, (size_t)(n + count) * sizeof *candidate,
                                          "lemke polish vector");
    if (!active || !m_aa || !candidate) {
        return residual;
    }
    tch_real* z_a = candidate + n;
    for (int a = 0; a < count; ++a) {
        for (int b = 0; b < count; ++b) {
            m_aa[(size_t)a * count + b] = s->m[(size_t)active[a] * n + (size_t)active[b]];
        }
        z_a[a] = -s->q[active[a]];
    }
    if (tch_solver_lu_factor(m_aa, count, s->start_pivot) != 0) {
        return residual;
    }
    tch_solver_lu_solve(m_aa, count, s->start_pivot, z_a, s->work);
    memset(candidate, 0, (size_t)n * sizeof *candidate);
    for (int a = 0; a < count; ++a) {
        candidate[active[a]] = fmax(z_a[a], 0);
    }
    const tch_real candidate_residual = lcp_residual(s, candidate);
    if (candidate_residual <= residual) {
        memcpy(z, candidate, (size_t)n * sizeof *z);
        residual = candidate_residual;
    }
    return residual;
}

/* A solution from a start basis that lost dependent columns (factor_start) is degenerate: the
 * polished point of one such solve on pile_100 (a box landing on its four corners) had a
 * natural-map residual of 2e-5, which the time stepper would reject (and then drop the
 * island's friction). With accept_residual > 0 it is checked, and one above it is treated as a
 * failed warm start (retried from the cold start, as before such bases were reduced). Returns
 * the warm start's reason: SOLVED, or SINGULAR for a rejected one. */
static tch_lcp_reason verify_reduced_start(const lemke* s, tch_arena* arena, tch_real accept,
                                           tch_real* z) {
    if (s->start_dropped == 0 || !(accept > 0)) {
        return TCH_LCP_SOLVED;
    }
    basic_z(s, z);
    return polish(s, arena, z) <= accept ? TCH_LCP_SOLVED : TCH_LCP_SINGULAR;
}

/* Smallest and largest shift δ of the regularized retries, relative to M's largest diagonal
 * entry, and the factor between two retries. */
static const tch_real REGULARIZE_FIRST = 1e-12, REGULARIZE_LAST = 1e-6, REGULARIZE_STEP = 100;

/* The retry after a ray (see lemke.h, "Regularized retry"): Lemke from the cold start on
 * M + δ I for δ from REGULARIZE_FIRST to REGULARIZE_LAST of M's largest diagonal entry, each
 * result polished and measured on the original problem (s->m). A result with a smaller
 * natural-map residual there than *residual (that of z) replaces z; the retries stop at the
 * first within `accept`. Returns TCH_LCP_SOLVED then, else TCH_LCP_RAY_TERMINATION (z the
 * best point found). *pivots counts every pivot. */
static tch_lcp_reason solve_regularized(lemke* s, tch_arena* arena, int max_pivots,
                                        tch_real accept, tch_real* z, int* pivots,
                                        tch_real* residual) {
    const int n = s->n;
    const tch_real* original = s->m;
    tch_real* shifted = tch_arena_alloc(arena, (size_t)n * (size_t)n * sizeof *shifted,
                                        "lemke regularized matrix");
    tch_real* candidate = tch_arena_alloc(arena, (size_t)n * sizeof *candidate,
                                          "lemke regularized z");
    if (!shifted || !candidate) {
        return TCH_LCP_RAY_TERMINATION;
    }
    tch_real diagonal = 0;
    for (int i = 0; i < n; ++i) {
        diagonal = fmax(diagonal, original[(size_t)i * n + i]);
    }
    memcpy(shifted, original, (size_t)n * (size_t)n * sizeof *shifted);
    tch_lcp_reason reason = TCH_LCP_RAY_TERMINATION;
    for (tch_real delta = REGULARIZE_FIRST; delta <= REGULARIZE_LAST * 1.5 &&
                                            reason != TCH_LCP_SOLVED; delta *= REGULARIZE_STEP) {
        for (int i = 0; i < n; ++i) {
            shifted[(size_t)i * n + i] = original[(size_t)i * n + i] + delta * diagonal;
        }
        s->m = shifted;
        set_starting_basis(s, NULL);
        const tch_lcp_reason shifted_reason = run_pivots(s, *pivots + max_pivots, pivots);
        s->m = original;
        basic_z(s, candidate);
        const tch_real candidate_residual = polish(s, arena, candidate);
        if (shifted_reason == TCH_LCP_SOLVED && candidate_residual < *residual) {
            memcpy(z, candidate, (size_t)n * sizeof *z);
            *residual = candidate_residual;
            reason = candidate_residual <= accept ? TCH_LCP_SOLVED : reason;
        }
    }
    return reason;
}

static bool allocate(lemke* s, tch_arena* arena, bool warm) {
    const size_t n = (size_t)s->n;
    s->inverse = tch_arena_alloc(arena, n * n * sizeof(tch_real), "lemke inverse");
    s->x = tch_arena_alloc(arena, 5 * n * sizeof(tch_real), "lemke vectors");
    s->basis = tch_arena_alloc(arena, (5 * n + 1) * sizeof(int), "lemke basis");
    s->in_start = tch_arena_alloc(arena, n, "lemke start rows");
    s->start_lu = warm ? tch_arena_alloc(arena, n * n * sizeof(tch_real), "lemke start") : NULL;
    if (!s->inverse || !s->x || !s->basis || !s->in_start || (warm && !s->start_lu)) {
        return false;
    }
    s->column = s->x + n;
    s->gathered = s->x + 2 * n;
    s->work = s->x + 3 * n;
    s->row_of = s->basis + n;
    s->start_rhs = s->x + 4 * n;
    s->start_pivot = s->basis + 3 * n + 1;
    s->start_set = s->basis + 4 * n + 1;
    return true;
}

static tch_status check_input(const tch_real* m, const tch_real* q, int n, tch_arena* arena,
                              const tch_real* z, tch_error* err) {
    if (n < 0 || (n > 0 && (!m || !q || !z || !arena))) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "Lemke needs n >= 0 and non-NULL M, q, z and arena; got n = %d", n);
    }
    tch_status status = tch_lcp_check_finite(m, n * n, "M", err);
    return status == TCH_OK ? tch_lcp_check_finite(q, n, "q", err) : status;
}

static tch_status report(tch_lcp_result* result, tch_lcp_reason reason, int pivots,
                         tch_real residual, int max_pivots, tch_error* err) {
    const tch_status status = reason == TCH_LCP_SOLVED ? TCH_OK : TCH_ERR_NUMERICAL;
    if (result) {
        *result = (tch_lcp_result){status, reason, pivots, residual};
    }
    switch (reason) {
    case TCH_LCP_SOLVED:
        return TCH_OK;
    case TCH_LCP_RAY_TERMINATION:
        return tch_fail(err, status, NULL, 0,
                        "Lemke ended on a secondary ray after %d pivots: no solution found "
                        "(none exists when M is copositive-plus)", pivots);
    case TCH_LCP_MAX_ITERATIONS:
        return tch_fail(err, status, NULL, 0,
                        "Lemke reached its limit of %d pivots (natural-map residual %g); "
                        "expected a larger max_pivots or a non-cycling problem",
                        max_pivots, residual);
    case TCH_LCP_SINGULAR:
    case TCH_LCP_STALLED: /* (not Lemke's) */
        break;
    }
    return tch_fail(err, status, NULL, 0, "Lemke's basis became singular after %d pivots",
                    pivots);
}

tch_status tch_lemke_solve(const tch_real* m, const tch_real* q, int n,
                           const tch_lemke_options* options, tch_arena* arena, tch_real* z,
                           tch_lcp_result* result, tch_error* err) {
    return tch_lemke_solve_kernels(m, q, n, options, TCH_LEMKE_KERNELS_BY_SIZE, arena, z, result,
                                   err);
}

static bool use_blas(tch_lemke_kernels kernels, int n) {
    switch (kernels) {
    case TCH_LEMKE_KERNELS_LOOPS:
        return false;
    case TCH_LEMKE_KERNELS_BLAS:
        return true;
    case TCH_LEMKE_KERNELS_BY_SIZE:
        break;
    }
    return n >= TCH_LEMKE_BLAS_MIN_N;
}

tch_status tch_lemke_solve_kernels(const tch_real* m, const tch_real* q, int n,
                                   const tch_lemke_options* options, tch_lemke_kernels kernels,
                                   tch_arena* arena, tch_real* z, tch_lcp_result* result,
                                   tch_error* err) {
    const tch_lemke_options opt = options ? *options : tch_lemke_options_default();
    tch_status status = check_input(m, q, n, arena, z, err);
    if (status != TCH_OK) {
        return status;
    }
    const int max_pivots = opt.max_pivots > 0 ? opt.max_pivots : 10 * (n + 10);
    if (n == 0) {
        return report(result, TCH_LCP_SOLVED, 0, 0, max_pivots, err);
    }
    const size_t mark = tch_arena_mark(arena);
    lemke s = {.n = n, .m = m, .q = q, .pivot_tolerance = opt.pivot_tolerance,
               .blas = use_blas(kernels, n)};
    if (!allocate(&s, arena, opt.warm_start)) {
        tch_arena_release(arena, mark);
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                        "Lemke could not allocate its %d x %d scratch", n, n);
    }
    int pivots = 0;
    tch_lcp_reason reason = TCH_LCP_SINGULAR;
    /* A warm start whose S is empty (no z guessed positive, or every one dependent) is the cold
     * start, pivot for pivot: it is not run again after a ray or the pivot limit (an island of
     * pile_100 without a warm start took 731 pivots to a ray twice, 7 ms each). */
    bool cold_ran = false;
    if (opt.warm_start) {
        set_starting_basis(&s, z);
        cold_ran = s.start_lu == NULL;
        reason = run_pivots(&s, max_pivots, &pivots);
        reason = reason == TCH_LCP_SOLVED ? verify_reduced_start(&s, arena, opt.accept_residual, z)
                                          : reason;
    }
    if (reason != TCH_LCP_SOLVED && !cold_ran) { /* cold start, or after a failed warm start */
        s.start_lu = NULL;
        set_starting_basis(&s, NULL);
        reason = run_pivots(&s, pivots + max_pivots, &pivots);
    }
    basic_z(&s, z);
    const bool verify = reason != TCH_LCP_SOLVED && opt.accept_residual > 0;
    tch_real residual =
        reason == TCH_LCP_SOLVED || verify ? polish(&s, arena, z) : lcp_residual(&s, z);
    if (verify && residual <= opt.accept_residual) {
        reason = TCH_LCP_SOLVED; /* a rounding ray at a solution (see lemke.h, "Rounding") */
    }
    if (verify && reason != TCH_LCP_SOLVED) {
        reason = solve_regularized(&s, arena, max_pivots, opt.accept_residual, z, &pivots,
                                   &residual);
    }
    tch_arena_release(arena, mark);
    return report(result, reason, pivots, residual, max_pivots, err);
}
