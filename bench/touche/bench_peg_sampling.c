/* peg's constraint sets against exact overlap over many random configurations (peg.md §9-10;
 * tests/contact/peg_sampling.h has the protocol): counts of free and overlapping samples and of
 * the "too strict" (free, rejected) and "too loose" (overlapping, accepted) verdicts, overall
 * and for the samples with a vertex-vertex case.
 *
 *     bench_peg_sampling [samples per row]     (default 20000)
 *
 * Prints CSV: date,commit,cpu,dimension,mode,samples,free,overlapping,too_strict,too_loose,
 * with_vertex_vertex,vv_too_strict,vv_too_loose.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../../tests/contact/peg_sampling.h"
#include "bench_machine.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

static void print_row(const char* when, const char* cpu, int dimension, const char* mode,
                      const peg_sample_counts* c) {
    printf("%s,%s,%s,%d,%s,%d,%d,%d,%d,%d,%d,%d,%d\n", when, TCH_GIT_COMMIT, cpu, dimension, mode,
           c->samples, c->free_count, c->overlap_count, c->too_strict, c->too_loose,
           c->with_vertex_vertex, c->vv_too_strict, c->vv_too_loose);
}

int main(int argc, char** argv) {
    const int samples = argc > 1 ? atoi(argv[1]) : 20000;
    char cpu[128], when[32];
    bench_cpu_model(cpu, sizeof cpu);
    const time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d", gmtime(&now));
    printf("date,commit,cpu,dimension,mode,samples,free,overlapping,too_strict,too_loose,"
           "with_vertex_vertex,vv_too_strict,vv_too_loose\n");
    const char* modes[2] = {"random", "corner"};
    for (int dimension = 2; dimension <= 3; ++dimension) {
        for (int mode = 0; mode < 2; ++mode) {
            peg_sample_counts counts;
            if (!peg_sample_run(dimension, mode, samples, 1000 * dimension + mode, &counts)) {
                return 1;
            }
            print_row(when, cpu, dimension, modes[mode], &counts);
        }
    }
    return 0;
}
