/* The island problems that the lcp model hands to an observer (tch_data_observe_islands,
 * docs/contact-lcp.md, "Island problems"): their natural-map residual, recomputed from the dense
 * problem alone, is the one the stage reported, in the box form (PGS) and the LCP form (Lemke);
 * observing does not change the simulation. */
#include <stdlib.h>
#include <string.h>

#include "solver/lcp.h"
#include "test.h"
#include "touche/touche.h"

/* What the observer saw. */
typedef struct observed {
    int problems;
    int sleeping;                /* islands held asleep (not observed) */
    int path_count[TCH_CONSTRAINT_PATH_COUNT];
    int largest_n;
    double largest_residual;     /* recomputed */
    int loose;                   /* islands applied with a reported residual above 1e-6 m/s */
    double largest_disagreement; /* |recomputed - reported| */
} observed;

/* The natural-map residual of the applied impulses, from the dense problem alone. */
static double recomputed_residual(const tch_island_problem* p) {
    const tch_lcp_matrix matrix = tch_lcp_matrix_dense(p->matrix, p->n);
    const tch_lcp_bounds bounds = {p->lo, p->hi, p->normal_index, p->friction_disc};
    return tch_lcp_residuals(&matrix, p->q, &bounds, p->z).natural_map;
}

static void observe(const tch_island_problem* p, void* user) {
    observed* o = user;
    double residual = recomputed_residual(p);
    o->problems++;
    o->path_count[p->path]++;
    o->largest_n = p->n > o->largest_n ? p->n : o->largest_n;
    o->largest_disagreement =
        fmax(o->largest_disagreement, fabs(residual - p->residual) / fmax(1, residual / 1e-6));
    o->loose += p->residual > 1e-6;
    o->largest_residual = fmax(o->largest_residual, residual);
}

/* The scene file with every pair on the lcp model and the given solver. */
static tch_model* lcp_scene(const char* file, tch_lcp_solver solver) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", TCH_SOURCE_DIR, file);
    tch_spec* spec = NULL;
    tch_model* model = NULL;
    if (tch_mjcf_load(path, &spec, NULL) != TCH_OK) {
        return NULL;
    }
    tch_spec_force_contact_model(spec, TCH_CONTACT_LCP);
    tch_option_def option = *tch_spec_option(spec);
    option.lcp_solver = solver;
    tch_spec_set_option(spec, &option, NULL);
    tch_compile(spec, &model, NULL);
    tch_spec_destroy(spec);
    return model;
}

/* Runs `steps` steps, observed when o is not NULL; returns the data (NULL on failure). */
static tch_data* run(const tch_model* m, int steps, observed* o) {
    tch_data* d = NULL;
    if (tch_data_create(m, &d, NULL) != TCH_OK) {
        return NULL;
    }
    if (o) {
        tch_data_observe_islands(d, observe, o);
    }
    for (int i = 0; i < steps; ++i) {
        if (tch_step(m, d, NULL) != TCH_OK) {
            tch_data_destroy(d);
            return NULL;
        }
        if (o) {
            o->sleeping += d->constraint_sleeping_islands;
        }
    }
    return d;
}

/* examples/stack13.xml for `steps` steps with `solver`: one island per step, solved by `path`,
 * of n unknowns, until it falls asleep (after 0.5 s at rest: asleep, it is not solved); the
 * reported residual is the recomputed one (to rounding) and within the stage's acceptance,
 * 1e-6 m/s (the zero-gap stack's islands end near 1e-8). */
static void check_stack_problems(tch_lcp_solver solver, int steps, tch_constraint_path path,
                                 int n) {
    tch_model* m = lcp_scene("examples/stack13.xml", solver);
    ENSURE(m != NULL);
    observed o = {0};
    tch_data* d = run(m, steps, &o);
    ENSURE(d != NULL);
    ENSURE(o.problems + o.sleeping == steps && o.problems > 0);
    ENSURE(o.path_count[path] == o.problems);
    ENSURE(o.largest_n == n);
    ENSURE(o.largest_disagreement <= 1e-12);
    ENSURE(o.largest_residual <= 1e-6);
    tch_data_destroy(d);
    tch_model_destroy(m);
}

/* PGS, the box form: 156 rows (13 faces, 4 corners, a normal and two friction rows each). */
static void test_stack_problems_box_form(void) {
    check_stack_problems(TCH_LCP_SOLVER_PGS, 300, TCH_CONSTRAINT_PGS, 156);
}

/* Lemke, the LCP form: 13 x 4 contacts, each a normal row, 4 cone edges and a lambda row; the
 * recomputed residual is min(z, w). */
static void test_stack_problems_lcp_form(void) {
    check_stack_problems(TCH_LCP_SOLVER_LEMKE, 40, TCH_CONSTRAINT_LEMKE, 13 * 4 * 6);
}

/* examples/pile100.xml, the first 0.2 s (the boxes land on each other; islands of up to 126
 * rows): every island's reported residual is the recomputed one (to 1e-10 m/s, or relatively
 * above 1e-6 m/s); the islands within the solver budget may end above 1e-6 m/s, and each of
 * those is a TCH_WARN_LOOSE_RESIDUAL; observing leaves the trajectory bit for bit as it is
 * without. */
static void test_pile_problems(void) {
    tch_model* m = lcp_scene("examples/pile100.xml", TCH_LCP_SOLVER_PGS);
    ENSURE(m != NULL);
    const int steps = 100;
    observed o = {0};
    tch_data* watched = run(m, steps, &o);
    tch_data* unwatched = run(m, steps, NULL);
    ENSURE(watched != NULL && unwatched != NULL);
    ENSURE(memcmp(watched->qpos, unwatched->qpos, (size_t)m->nq * sizeof(double)) == 0);
    ENSURE(memcmp(watched->qvel, unwatched->qvel, (size_t)m->nv * sizeof(double)) == 0);
    ENSURE(o.problems > steps);
    ENSURE(o.path_count[TCH_CONSTRAINT_PGS] > 0 && o.path_count[TCH_CONSTRAINT_LEMKE] > 0);
    ENSURE(o.largest_disagreement <= 1e-10);
    ENSURE(o.loose > 0 && watched->warning_count[TCH_WARN_LOOSE_RESIDUAL] == o.loose);
    tch_data_destroy(watched);
    tch_data_destroy(unwatched);
    tch_model_destroy(m);
}

int main(void) {
    RUN_TEST(test_stack_problems_box_form);
    RUN_TEST(test_stack_problems_lcp_form);
    RUN_TEST(test_pile_problems);
    return TEST_RESULT();
}
