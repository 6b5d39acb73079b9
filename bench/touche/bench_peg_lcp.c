/* peg's one-step LCP (contact/peg_lcp.h) on the configurations of bench_peg_sampling: body A
 * free (2D: the authors' mass 0.25 and J = 0.003; 3D: mass 1, inertia 0.1 I), B static, A
 * moving at 1 m/s in a random direction under gravity, h = 0.01; each configuration solved
 * with peg's constraints and with the standard model (one row per vertex at its deepest
 * contact), frictionless and with mu = 0.5. Counts Lemke's failures (ray termination: no
 * solution found; pivot limit) and the LCP sizes.
 *
 *     bench_peg_lcp [samples per row]     (default 5000)
 *
 * Prints CSV: date,commit,cpu,dimension,mode,model,mu,samples,rows_mean,rows_max,failures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../tests/contact/peg_sampling.h"
#include "bench_machine.h"
#include "contact/peg_lcp.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

typedef struct lcp_counts {
    int samples, failures, rows_max;
    double rows_sum;
} lcp_counts;

static void solve(const tch_peg_constraints* list, int dimension, tch_vec3 com_a,
                  unsigned long long* state, tch_arena* arena, lcp_counts counts[2][2]) {
    tch_vec3 direction = fixture_unit_vector(state);
    if (dimension == 2) {
        direction = tch_v3_normalize(tch_v3(direction.x, direction.y, 0));
    }
    const double mass = dimension == 2 ? 0.25 : 1, inertia = dimension == 2 ? 0.003 : 0.1;
    const tch_vec3 down = dimension == 2 ? tch_v3(0, -9.81 * mass, 0) : tch_v3(0, 0, -9.81 * mass);
    const tch_peg_body a = {.position = com_a,
                            .velocity = direction,
                            .force = down,
                            .inverse_mass = 1 / mass,
                            .inverse_inertia = tch_m3_scale(tch_m3_identity(), 1 / inertia)};
    const tch_peg_body bodies[2] = {a, {.inverse_inertia = tch_m3_zero()}};
    for (int model = 0; model < 2; ++model) {
        for (int f = 0; f < 2; ++f) {
            const tch_peg_pair pair = {0, 1, list, f ? 0.5 : 0, NULL, NULL};
            const tch_peg_step_options options = {.h = 0.01,
                                                  .model = (tch_peg_model)model,
                                                  .friction_directions = 4,
                                                  .planar = dimension == 2};
            tch_vec3 v[2], w[2];
            tch_peg_step_result result;
            const tch_status s =
                tch_peg_step_velocities(bodies, 2, &pair, 1, &options, arena, v, w, &result, NULL);
            const int rows = result.force_rows + result.slack_rows + result.friction_rows;
            lcp_counts* c = &counts[model][f];
            c->samples++;
            c->failures += s != TCH_OK;
            c->rows_sum += rows;
            c->rows_max = rows > c->rows_max ? rows : c->rows_max;
        }
    }
}

int main(int argc, char** argv) {
    const int samples = argc > 1 ? atoi(argv[1]) : 5000;
    char cpu[128], when[32];
    bench_cpu_model(cpu, sizeof cpu);
    const time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d", gmtime(&now));
    printf("date,commit,cpu,dimension,mode,model,mu,samples,rows_mean,rows_max,failures\n");
    const char* modes[2] = {"random", "corner"};
    const char* models[2] = {"peg", "standard"};
    tch_arena arena;
    if (tch_arena_init(&arena, 1 << 20) != 0) {
        return 1;
    }
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    for (int dimension = 2; dimension <= 3; ++dimension) {
        for (int mode = 0; mode < 2; ++mode) {
            unsigned long long state = 500 + 10 * dimension + mode;
            const tch_peg_params params = tch_peg_params_default(dimension, 0.01);
            lcp_counts counts[2][2] = {{{0}}};
            peg_solid a, b;
            for (int it = 0; counts[0][0].samples < samples; ++it) {
                tch_vec3 com_a = tch_v3_zero();
                if (dimension == 2) {
                    peg_sample_2d(&state, mode, &params, &list);
                } else {
                    if (it % 25 == 0) {
                        if (it > 0) {
                            peg_solid_free(&a);
                            peg_solid_free(&b);
                        }
                        if (!peg_solid_init(&a, &state) || !peg_solid_init(&b, &state)) {
                            return 1;
                        }
                    }
                    peg_sample_3d(&state, mode, &a, &b, &params, &list);
                    com_a = a.pose.p;
                }
                if (list.count > 0) {
                    solve(&list, dimension, com_a, &state, &arena, counts);
                }
            }
            if (dimension == 3) {
                peg_solid_free(&a);
                peg_solid_free(&b);
            }
            for (int model = 0; model < 2; ++model) {
                for (int f = 0; f < 2; ++f) {
                    const lcp_counts* c = &counts[model][f];
                    printf("%s,%s,%s,%d,%s,%s,%g,%d,%.2f,%d,%d\n", when, TCH_GIT_COMMIT, cpu,
                           dimension, modes[mode], models[model], f ? 0.5 : 0.0, c->samples,
                           c->rows_sum / c->samples, c->rows_max, c->failures);
                }
            }
        }
    }
    tch_peg_constraints_free(&list);
    tch_arena_destroy(&arena);
    return 0;
}
