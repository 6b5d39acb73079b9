/* touche sweep --mpi: rank 0 hands out jobs one at a time and writes the rows the other ranks
 * send back; each job runs in a child process of its rank, so a job that fails or crashes is a
 * row and the ranks go on (sweep.h, docs/sweeps.md). Built only when CMake finds MPI. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sweep.h"
#include "sweep_value.h"

#ifndef TCH_HAVE_MPI

int sweep_run_mpi(const sweep_plan* plan, const char* dir) {
    (void)plan;
    (void)dir;
    fprintf(stderr, "touche sweep: --mpi: this touche was built without MPI (install "
                    "libopenmpi-dev and rebuild; or use --shard I/N, docs/sweeps.md)\n");
    return EXIT_BAD_INPUT;
}

#else

#include <mpi.h>

enum { TAG_JOB = 1, TAG_ROW = 2 };

/* Writes `text` to `path` through a temporary name. */
static int write_all(const char* path, const char* text) {
    char temp[1200];
    snprintf(temp, sizeof temp, "%s.tmp%ld", path, (long)getpid());
    FILE* f = fopen(temp, "wb");
    if (!f) return 0;
    int ok = fputs(text, f) >= 0;
    ok &= fclose(f) == 0;
    ok = ok && rename(temp, path) == 0;
    if (!ok) remove(temp);
    return ok;
}

/* A worker rank: runs the jobs it is sent until it is sent -1, returning each row. */
static int work(const sweep_plan* plan) {
    char dir[] = "/tmp/touche-sweep-XXXXXX";
    if (!mkdtemp(dir)) {
        fprintf(stderr, "touche sweep: cannot make a temporary directory in /tmp\n");
        MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE_GENERIC);
    }
    char path[1100];
    snprintf(path, sizeof path, "%s/job.row", dir);
    for (;;) {
        long index = -1;
        MPI_Recv(&index, 1, MPI_LONG, 0, TAG_JOB, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (index < 0) break;
        remove(path);
        sweep_job_run_isolated(plan, index, path);
        char* row = sweep_read_text_file(path, NULL);
        const char* text = row ? row : "";
        MPI_Send(text, (int)strlen(text) + 1, MPI_CHAR, 0, TAG_ROW, MPI_COMM_WORLD);
        free(row);
    }
    remove(path);
    rmdir(dir);
    return EXIT_OK;
}

/* The next job without a row from *next on, or -1. */
static long next_pending(const sweep_plan* plan, const char* dir, long* next) {
    char path[1100];
    while (*next < plan->job_count) {
        long i = (*next)++;
        sweep_row row;
        sweep_row_path(plan, dir, i, path, sizeof path);
        if (!sweep_row_read(path, &row)) return i;
        sweep_row_free(&row);
    }
    return -1;
}

/* Rank 0 with workers: hands out jobs, writes the rows that come back. */
static int manage(const sweep_plan* plan, const char* dir, int ranks) {
    long next = 0, *given = calloc((size_t)ranks, sizeof *given);
    int active = 0;
    for (int r = 1; r < ranks; ++r) {
        given[r] = next_pending(plan, dir, &next);
        MPI_Send(&given[r], 1, MPI_LONG, r, TAG_JOB, MPI_COMM_WORLD);
        active += given[r] >= 0;
    }
    int code = EXIT_OK;
    while (active > 0) {
        MPI_Status status;
        int size = 0;
        MPI_Probe(MPI_ANY_SOURCE, TAG_ROW, MPI_COMM_WORLD, &status);
        MPI_Get_count(&status, MPI_CHAR, &size);
        char* text = malloc((size_t)size + 1);
        int from = status.MPI_SOURCE;
        MPI_Recv(text, size, MPI_CHAR, from, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        char path[1100];
        sweep_row_path(plan, dir, given[from], path, sizeof path);
        if (!text || !text[0] || !write_all(path, text)) {
            fprintf(stderr, "touche sweep: no row for job %ld from rank %d\n", given[from], from);
            code = EXIT_FAILURE_GENERIC;
        }
        free(text);
        given[from] = next_pending(plan, dir, &next);
        MPI_Send(&given[from], 1, MPI_LONG, from, TAG_JOB, MPI_COMM_WORLD);
        active -= given[from] < 0;
    }
    free(given);
    return code;
}

int sweep_run_mpi(const sweep_plan* plan, const char* dir) {
    int already = 0, rank = 0, ranks = 1;
    MPI_Initialized(&already);
    if (!already) MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    int code = EXIT_OK;
    if (rank == 0) {
        code = ranks == 1 ? sweep_run_local(plan, dir, 0, plan->job_count, 1, 0)
                          : manage(plan, dir, ranks);
        if (code == EXIT_OK) code = sweep_write_results(plan, dir, 0, plan->job_count, "results");
    } else {
        code = work(plan);
    }
    MPI_Bcast(&code, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return code;
}

#endif
