/* touche sweep --mpi: rank 0 hands out jobs (a few per rank in flight) and writes the rows the other ranks
 * send back; each job runs in a child process of its rank, so a job that fails or crashes is a
 * row and the ranks go on (sweep.h, docs/sweeps.md). Built only when CMake finds MPI. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

/* Jobs a worker holds at once: the one it runs and the next ones, already sent, so that it
 * does not wait for the manager between jobs (a manager that shares a loaded node may take
 * tens of milliseconds to be scheduled). */
enum { JOBS_IN_FLIGHT = 4 };

/* The rows a worker has sent and MPI may not have delivered yet. */
typedef struct pending_rows {
    MPI_Request request[JOBS_IN_FLIGHT];
    char* message[JOBS_IN_FLIGHT];
    int next;
} pending_rows;

/* Sends "INDEX\n" and the row file's two lines without waiting for the manager to take it
 * (only for the row sent JOBS_IN_FLIGHT rows ago). */
static void send_row(pending_rows* pending, long index, const char* path) {
    int k = pending->next;
    pending->next = (k + 1) % JOBS_IN_FLIGHT;
    if (pending->message[k]) {
        MPI_Wait(&pending->request[k], MPI_STATUS_IGNORE);
        free(pending->message[k]);
    }
    char* row = sweep_read_text_file(path, NULL);
    size_t size = (row ? strlen(row) : 0) + 32;
    pending->message[k] = malloc(size);
    if (!pending->message[k]) MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE_GENERIC);
    int n = snprintf(pending->message[k], size, "%ld\n%s", index, row ? row : "");
    free(row);
    MPI_Isend(pending->message[k], n + 1, MPI_CHAR, 0, TAG_ROW, MPI_COMM_WORLD, &pending->request[k]);
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
    pending_rows pending = {.next = 0};
    for (;;) {
        long index = -1;
        MPI_Recv(&index, 1, MPI_LONG, 0, TAG_JOB, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (index < 0) break;
        remove(path);
        sweep_job_run_isolated(plan, index, path);
        send_row(&pending, index, path);
    }
    for (int k = 0; k < JOBS_IN_FLIGHT; ++k) {
        if (!pending.message[k]) continue;
        MPI_Wait(&pending.request[k], MPI_STATUS_IGNORE);
        free(pending.message[k]);
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

/* Waits for a row from any worker. MPI_Probe would spin (OpenMPI polls), taking a core from
 * the jobs when the manager shares a node with workers; polling every 0.5 ms leaves it idle. */
static void wait_for_row(MPI_Status* status) {
    const struct timespec pause = {0, 500000};
    for (;;) {
        int arrived = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_ROW, MPI_COMM_WORLD, &arrived, status);
        if (arrived) return;
        nanosleep(&pause, NULL);
    }
}

/* Sends rank r its next job, or -1 (stop) when there is none and it holds none; returns how
 * many jobs it then holds. */
static int hand_out(const sweep_plan* plan, const char* dir, long* next, int r, int held) {
    long job = next_pending(plan, dir, next);
    if (job < 0 && held > 0) return held;
    MPI_Send(&job, 1, MPI_LONG, r, TAG_JOB, MPI_COMM_WORLD);
    return job < 0 ? -1 : held + 1;
}

/* Writes a row a worker sent ("INDEX\n" and the row file's lines); returns 0 when it is not
 * one. */
static int store_row(const sweep_plan* plan, const char* dir, const char* message, int from) {
    char* end = NULL;
    long index = strtol(message, &end, 10);
    char path[1100];
    if (end == message || *end != '\n' || index < 0 || index >= plan->job_count || !end[1]) {
        fprintf(stderr, "touche sweep: rank %d sent no row (\"%.40s\")\n", from, message);
        return 0;
    }
    sweep_row_path(plan, dir, index, path, sizeof path);
    return write_all(path, end + 1);
}

/* Rank 0 with workers: hands out jobs, writes the rows that come back. */
static int manage(const sweep_plan* plan, const char* dir, int ranks) {
    int* held = calloc((size_t)ranks, sizeof *held); /* jobs each rank holds; -1: stopped */
    if (!held) MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE_GENERIC);
    long next = 0;
    int active = 0;
    for (int k = 0; k < JOBS_IN_FLIGHT; ++k) {
        for (int r = 1; r < ranks; ++r) {
            if (held[r] >= 0 && (k == 0 || held[r] > 0)) held[r] = hand_out(plan, dir, &next, r, held[r]);
        }
    }
    for (int r = 1; r < ranks; ++r) active += held[r] > 0;
    int code = EXIT_OK;
    while (active > 0) {
        MPI_Status status;
        int size = 0;
        wait_for_row(&status);
        MPI_Get_count(&status, MPI_CHAR, &size);
        char* message = malloc((size_t)size + 1);
        if (!message) MPI_Abort(MPI_COMM_WORLD, EXIT_FAILURE_GENERIC);
        int from = status.MPI_SOURCE;
        MPI_Recv(message, size, MPI_CHAR, from, TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        message[size] = '\0';
        if (!store_row(plan, dir, message, from)) code = EXIT_FAILURE_GENERIC;
        free(message);
        held[from] = hand_out(plan, dir, &next, from, held[from] - 1);
        active -= held[from] < 0;
    }
    free(held);
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
        long ran = 0;
        code = ranks == 1 ? sweep_run_local(plan, dir, 0, plan->job_count, 1, &ran)
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
