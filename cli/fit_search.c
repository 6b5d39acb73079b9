/* touche fit: the search over the unit box of normalized parameters. A coarse grid sweep finds
 * the basin (contact losses have several: a bounce more or less), then an NLopt local search
 * without derivatives refines it from the sweep's best points. Nelder-Mead is the default:
 * the rollout loss of a contact simulation is rough at small scales (an impact one step
 * earlier or later), and BOBYQA's quadratic model (Powell 2009) stalls there: on three
 * noisy ball tosses it stopped at restitution 0.35 with the loss still falling towards 0.5,
 * where Nelder-Mead and Subplex reached 0.51 (docs/fit.md, "Search"). */
#include <math.h>
#include <nlopt.h>
#include <string.h>

#include "fit.h"

/* The refinement stops when a step changes every coordinate by less than this (the box is
 * [0, 1]; friction over [0, 2] is then resolved to 2e-4). */
static const double X_TOLERANCE = 1e-4;

typedef struct search_state {
    fit_objective f;
    void* user;
    int evaluations;
} search_state;

static double nlopt_objective(unsigned n, const double* x, double* gradient, void* data) {
    (void)n, (void)gradient; /* derivative-free algorithms pass no gradient */
    search_state* s = data;
    s->evaluations++;
    return s->f(x, s->user);
}

/* The STARTS best grid points the local search starts from: contact losses have narrow
 * valleys (friction's is a few hundredths wide) that a coarse grid may straddle. */
enum { STARTS = 3 };

typedef struct sweep_points {
    double x[STARTS][FIT_MAX_PARAMS];
    double loss[STARTS];
    int count;
} sweep_points;

/* Keeps the STARTS lowest losses, in order; the first of equal losses stays ahead. */
static void keep_best(sweep_points* best, const double* x, double loss) {
    int at = best->count;
    while (at > 0 && loss < best->loss[at - 1]) --at;
    if (at >= STARTS) return;
    int last = best->count < STARTS ? best->count : STARTS - 1;
    for (int i = last; i > at; --i) {
        best->loss[i] = best->loss[i - 1];
        memcpy(best->x[i], best->x[i - 1], sizeof best->x[i]);
    }
    best->loss[at] = loss;
    memcpy(best->x[at], x, sizeof best->x[at]);
    if (best->count < STARTS) best->count++;
}

/* The grid's cell centres, (i + 1/2) / points per coordinate, in lexicographic order. */
static void sweep(int dimension, int points, fit_objective f, void* user, sweep_points* best,
                  fit_search_result* out) {
    long total = 1;
    for (int k = 0; k < dimension; ++k) total *= points;
    for (long index = 0; index < total; ++index) {
        double x[FIT_MAX_PARAMS] = {0};
        long rest = index;
        for (int k = dimension - 1; k >= 0; --k, rest /= points) {
            x[k] = ((double)(rest % points) + 0.5) / points;
        }
        keep_best(best, x, f(x, user));
        out->sweep_evaluations++;
    }
    out->best = best->loss[0];
    memcpy(out->sweep_x, best->x[0], sizeof out->sweep_x);
    memcpy(out->x, best->x[0], sizeof out->x);
}

/* One local search from x (replaced by its result) with `budget` evaluations; its loss, or
 * NaN after setting *why. */
static double refine(nlopt_algorithm algorithm, int dimension, int points, int budget, double* x,
                     search_state* state, const char** why) {
    nlopt_opt opt = nlopt_create(algorithm,
                                 (unsigned)dimension);
    if (!opt) {
        *why = "NLopt could not create its optimizer";
        return NAN;
    }
    double lo[FIT_MAX_PARAMS], hi[FIT_MAX_PARAMS], step[FIT_MAX_PARAMS];
    for (int k = 0; k < dimension; ++k) lo[k] = 0, hi[k] = 1, step[k] = 0.5 / points;
    nlopt_set_lower_bounds(opt, lo);
    nlopt_set_upper_bounds(opt, hi);
    nlopt_set_initial_step(opt, step); /* half a grid cell */
    nlopt_set_min_objective(opt, nlopt_objective, state);
    nlopt_set_xtol_abs1(opt, X_TOLERANCE);
    nlopt_set_maxeval(opt, budget);
    double loss = NAN;
    nlopt_result result = nlopt_optimize(opt, x, &loss);
    nlopt_destroy(opt);
    if (result < 0 && result != NLOPT_ROUNDOFF_LIMITED) {
        *why = result == NLOPT_INVALID_ARGS ? "NLopt: invalid arguments"
               : result == NLOPT_OUT_OF_MEMORY ? "NLopt: out of memory"
                                               : "NLopt failed";
        return NAN;
    }
    return loss;
}

static const struct {
    const char* name;
    nlopt_algorithm algorithm;
} OPTIMIZERS[] = {
    {"neldermead", NLOPT_LN_NELDERMEAD},
    {"sbplx", NLOPT_LN_SBPLX},
    {"bobyqa", NLOPT_LN_BOBYQA},
};
enum { OPTIMIZER_COUNT = sizeof OPTIMIZERS / sizeof OPTIMIZERS[0] };

int fit_optimizer_known(const char* name) {
    for (int i = 0; i < OPTIMIZER_COUNT; ++i) {
        if (strcmp(OPTIMIZERS[i].name, name) == 0) return 1;
    }
    return 0;
}

int fit_search(const char* optimizer, int dimension, int points, int local_budget,
               fit_objective f, void* user, fit_search_result* out, const char** why) {
    nlopt_algorithm algorithm = NLOPT_LN_NELDERMEAD;
    for (int i = 0; i < OPTIMIZER_COUNT; ++i) {
        if (strcmp(OPTIMIZERS[i].name, optimizer) == 0) algorithm = OPTIMIZERS[i].algorithm;
    }
    if (dimension == 1 && algorithm == NLOPT_LN_BOBYQA) {
        optimizer = "neldermead", algorithm = NLOPT_LN_NELDERMEAD; /* BOBYQA needs two */
    }
    memset(out, 0, sizeof *out);
    sweep_points best = {.count = 0};
    sweep(dimension, points, f, user, &best, out);
    out->optimizer = optimizer;
    search_state state = {f, user, 0};
    for (int i = 0; i < best.count && state.evaluations < local_budget; ++i) {
        int left = local_budget - state.evaluations;
        int budget = i == 0 ? left / 2 : left / (best.count - i); /* the best start gets half */
        if (budget < 2) continue;
        double x[FIT_MAX_PARAMS];
        memcpy(x, best.x[i], sizeof x);
        double loss = refine(algorithm, dimension, points, budget, x, &state, why);
        if (isnan(loss)) return 0;
        if (loss < out->best) { /* NLopt returns its best point */
            out->best = loss;
            memcpy(out->x, x, sizeof x);
        }
    }
    out->local_evaluations = state.evaluations;
    return 1;
}
