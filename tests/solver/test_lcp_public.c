/* The solvers through the public header touche/lcp.h, linked against the shared library: the
 * symbols README calls public are exported, and each solver answers small problems whose
 * solutions are known in closed form. */
#include <math.h>

#include "test.h"
#include "touche/lcp.h"

/* M = [[2, 1], [1, 2]] (symmetric positive definite). */
static const double M[4] = {2, 1, 1, 2};

/* q = (-5, -6): both unknowns positive, w = 0, so M z = -q: z = (4/3, 7/3). */
static void test_lemke_interior_solution(void) {
    const double q[2] = {-5, -6};
    double z[2] = {0, 0};
    tch_lcp_result result;
    tch_error err = {0};
    ENSURE(tch_lcp_solve_lemke(M, q, 2, NULL, z, &result, &err) == TCH_OK);
    ENSURE_NEAR(z[0], 4.0 / 3.0, 1e-12);
    ENSURE_NEAR(z[1], 7.0 / 3.0, 1e-12);
    ENSURE(result.reason == TCH_LCP_SOLVED && result.residual <= 1e-12);
    tch_lcp_residual r = tch_lcp_residuals_dense(M, q, 2, NULL, z);
    ENSURE(r.natural_map <= 1e-12 && r.infeasibility <= 1e-12);
}

/* q = (-2, 3): z = (1, 0) with w = (0, 4). */
static void test_pgs_reaches_the_boundary_solution(void) {
    const double q[2] = {-2, 3};
    double z[2] = {0, 0};
    tch_pgs_options options = tch_pgs_options_default();
    options.tolerance = 1e-12;
    options.max_iterations = 200;
    tch_lcp_result result;
    tch_error err = {0};
    ENSURE(tch_lcp_solve_pgs(M, q, 2, NULL, &options, z, &result, &err) == TCH_OK);
    ENSURE_NEAR(z[0], 1.0, 1e-12);
    ENSURE_NEAR(z[1], 0.0, 1e-12);
}

/* The box MLCP with hi = (1, 1) and q = (-5, -6): z = (1, 1), both at their upper bound with
 * w = (-2, -3) <= 0. */
static void test_pgs_box_bounds(void) {
    const double q[2] = {-5, -6}, lo[2] = {0, 0}, hi[2] = {1, 1};
    const tch_lcp_bounds bounds = {lo, hi, NULL, false};
    double z[2] = {0, 0};
    tch_error err = {0};
    ENSURE(tch_lcp_solve_pgs(M, q, 2, &bounds, NULL, z, NULL, &err) == TCH_OK);
    ENSURE_NEAR(z[0], 1.0, 1e-12);
    ENSURE_NEAR(z[1], 1.0, 1e-12);
    ENSURE(tch_lcp_residuals_dense(M, q, 2, &bounds, z).natural_map <= 1e-12);
}

/* One equation row: 2u + v - 5 = 0 with u free; w = u + 2v + 6 >= 0 ⊥ v >= 0 gives v = 0,
 * u = 5/2. */
static void test_mixed_equality_row(void) {
    const double q[2] = {-5, 6};
    double z[2] = {0, 0};
    tch_lcp_result result;
    tch_error err = {0};
    ENSURE(tch_lcp_solve_mixed(M, q, 2, 1, NULL, z, &result, &err) == TCH_OK);
    ENSURE_NEAR(z[0], 2.5, 1e-12);
    ENSURE_NEAR(z[1], 0.0, 1e-12);
}

/* w = -z - 1 >= 0 has no solution with z >= 0: Lemke reports a ray. */
static void test_lemke_reports_a_ray(void) {
    const double m[1] = {-1}, q[1] = {-1};
    double z[1] = {0};
    tch_lcp_result result;
    tch_error err = {0};
    tch_lemke_options options = tch_lemke_options_default();
    ENSURE(options.max_pivots >= 0 && options.pivot_tolerance > 0);
    ENSURE(tch_lcp_solve_lemke(m, q, 1, &options, z, &result, &err) == TCH_ERR_NUMERICAL);
    ENSURE(result.reason == TCH_LCP_RAY_TERMINATION && err.message[0]);
    ENSURE(strcmp(tch_lcp_reason_name(result.reason), "solved") != 0);
}

int main(void) {
    RUN_TEST(test_lemke_interior_solution);
    RUN_TEST(test_pgs_reaches_the_boundary_solution);
    RUN_TEST(test_pgs_box_bounds);
    RUN_TEST(test_mixed_equality_row);
    RUN_TEST(test_lemke_reports_a_ray);
    return TEST_RESULT();
}
