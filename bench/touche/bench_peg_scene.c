/* peg in the engine on a scene file (docs/peg.md, "Measured in the engine"): every pair forced
 * to peg, stepped at the scene's time step; per block of steps the CPU time, peg's counts
 * (islands solved by its LCP, Lemke failures, the engine's fallbacks, the largest LCP) and
 * the islands asleep; at the end the largest displacement of a body from its start.
 *
 *     bench_peg_scene SCENE.xml [steps (2000)] [block (100)]
 *
 * Prints CSV: date,commit,cpu,scene,step,cpu_s,solves,failures,fallbacks,largest_lcp,asleep,
 * largest_displacement_m. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "contact/peg.h"
#include "engine/engine_internal.h"
#include "touche/io.h"
#include "touche/step.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

static double cpu_seconds(void) {
    return (double)clock() / CLOCKS_PER_SEC;
}

/* The largest distance of a free body's position from the one in `start`. */
static double largest_displacement(const tch_model* m, const tch_data* d, const tch_real* start) {
    double largest = 0;
    for (int b = 1; b < m->body_count; ++b) {
        int at = m->body_qpos_adr[b];
        if (at >= 0) {
            largest = fmax(largest, sqrt(pow(d->qpos[at] - start[at], 2) +
                                         pow(d->qpos[at + 1] - start[at + 1], 2) +
                                         pow(d->qpos[at + 2] - start[at + 2], 2)));
        }
    }
    return largest;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_peg_scene SCENE.xml [steps] [block]\n");
        return 2;
    }
    const int steps = argc > 2 ? atoi(argv[2]) : 2000, block = argc > 3 ? atoi(argv[3]) : 100;
    tch_error err = {0};
    tch_spec* spec = NULL;
    tch_model* m = NULL;
    tch_data* d = NULL;
    if (tch_mjcf_load(argv[1], &spec, &err) != TCH_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    tch_spec_force_contact_model(spec, TCH_CONTACT_PEG);
    if (tch_compile(spec, &m, &err) != TCH_OK || tch_data_create(m, &d, &err) != TCH_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    tch_spec_destroy(spec);
    tch_real* start = malloc((size_t)m->nq * sizeof *start);
    memcpy(start, d->qpos, (size_t)m->nq * sizeof *start);
    char cpu[128], date[32];
    bench_cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&now));
    printf("date,commit,cpu,scene,step,cpu_s,solves,failures,fallbacks,largest_lcp,asleep,"
           "largest_displacement_m\n");
    double begin = cpu_seconds();
    for (int k = 1; k <= steps; ++k) {
        if (tch_step(m, d, &err) != TCH_OK) {
            fprintf(stderr, "step %d: %s\n", k, err.message);
            return 1;
        }
        if (k % block == 0 || k == steps) {
            const tch_peg_report* r =
                tch_peg_scratch_report(d->internal->model_scratch[TCH_CONTACT_PEG]);
            printf("%s,%s,\"%s\",%s,%d,%.3f,%ld,%ld,%ld,%d,%d,%.3g\n", date, TCH_GIT_COMMIT, cpu,
                   argv[1], k, cpu_seconds() - begin, r->solves, r->failures, r->fallbacks,
                   r->largest_lcp, d->constraint_sleeping_islands,
                   largest_displacement(m, d, start));
            fflush(stdout);
        }
    }
    free(start);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}
