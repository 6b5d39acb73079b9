/* touche sweep SPEC --out DIR: many runs of one scene (docs/sweeps.md). Each job's row is kept
 * in DIR/rows/ID.row as soon as the job ends, so a sweep that is killed resumes where it
 * stopped; the results files are written, in job order, from the rows. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"

/* "I/N" with 0 <= I < N; returns 0 when it is not. */
static int parse_shard(const char* text, int* shard, int* count) {
    char* end = NULL;
    errno = 0;
    long i = strtol(text, &end, 10);
    if (errno || end == text || *end != '/') return 0;
    const char* rest = end + 1;
    long n = strtol(rest, &end, 10);
    if (errno || end == rest || *end || n < 1 || n > 1000000 || i < 0 || i >= n) return 0;
    *shard = (int)i;
    *count = (int)n;
    return 1;
}

static int default_workers(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    return cores > 0 ? (int)cores : 1;
}

/* Makes DIR and DIR/rows. */
static int make_dirs(const char* dir) {
    char rows[1100];
    snprintf(rows, sizeof rows, "%s/rows", dir);
    return cli_make_dir(dir, "sweep") && cli_make_dir(rows, "sweep");
}

int cli_cmd_sweep(const cli_options* o) {
    const char* dir = o->out_dir ? o->out_dir : "out";
    int shard = 0, shard_count = 1;
    if (o->shard && !parse_shard(o->shard, &shard, &shard_count)) {
        fprintf(stderr, "touche sweep: --shard needs I/N with 0 <= I < N, got '%s'\n", o->shard);
        return EXIT_BAD_INPUT;
    }
    if ((o->mpi != 0) + (o->merge != 0) + (o->shard != NULL) > 1) {
        fprintf(stderr, "touche sweep: --mpi, --merge and --shard exclude each other\n");
        return EXIT_BAD_INPUT;
    }
    sweep_plan plan;
    if (!sweep_plan_read(o->scene, &plan)) return EXIT_BAD_INPUT;
    int code = make_dirs(dir) ? EXIT_OK : EXIT_BAD_INPUT;
    long first = 0, end = plan.job_count;
    sweep_shard_range(plan.job_count, shard, shard_count, &first, &end);
    char base[64] = "results";
    if (o->shard) snprintf(base, sizeof base, "shard-%d-of-%d", shard, shard_count);
    double start = cli_now_seconds();
    if (code == EXIT_OK && o->mpi) {
        code = sweep_run_mpi(&plan, dir);
    } else if (code == EXIT_OK) {
        long ran = 0;
        int workers = o->jobs > 0 ? o->jobs : default_workers();
        if (!o->merge) code = sweep_run_local(&plan, dir, first, end, workers, &ran);
        if (!o->merge && code == EXIT_OK) {
            fprintf(stderr, "touche sweep: ran %ld of %ld jobs in %.3f s wall on %d processes%s\n",
                    ran, end - first, cli_now_seconds() - start, workers,
                    ran < end - first ? " (the others had rows)" : "");
        }
        if (code == EXIT_OK) code = sweep_write_results(&plan, dir, first, end, base);
    }
    sweep_plan_free(&plan);
    return code;
}
