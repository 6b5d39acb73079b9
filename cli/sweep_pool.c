/* touche sweep: jobs on this machine's cores, resuming, shards and the results files
 * (sweep.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sweep.h"

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig) {
    (void)sig;
    interrupted = 1;
}

void sweep_shard_range(long job_count, int shard, int shard_count, long* first, long* end) {
    *first = job_count * shard / shard_count;
    *end = job_count * (shard + 1) / shard_count;
}

/* A job in flight. */
typedef struct running_job {
    long pid;
    long index;
    char path[1100];
} running_job;

/* Waits for one child; completes its job (a crash becomes its row, unless the sweep was
 * interrupted, which leaves the job to run again). Returns the slot it freed, or -1. */
static int reap(const sweep_plan* plan, running_job* slots, int workers) {
    int status = 0;
    pid_t pid = wait(&status);
    if (pid < 0) return -1;
    for (int s = 0; s < workers; ++s) {
        if (slots[s].pid != (long)pid) continue;
        if (interrupted && WIFSIGNALED(status)) {
            char log[1200];
            snprintf(log, sizeof log, "%s.log", slots[s].path);
            remove(log);
        } else {
            sweep_job_finish(plan, slots[s].index, slots[s].path, status);
        }
        slots[s].pid = 0;
        return s;
    }
    return -1;
}

static void show_progress(long done, long total) {
    fprintf(stderr, "\rtouche sweep: %ld of %ld jobs", done, total);
}

int sweep_run_local(const sweep_plan* plan, const char* dir, long first, long end, int workers,
                    long* ran) {
    running_job* slots = calloc((size_t)workers, sizeof *slots);
    if (!slots) return EXIT_FAILURE_GENERIC;
    interrupted = 0;
    struct sigaction act = {0}, old_int, old_term;
    act.sa_handler = on_interrupt;
    sigaction(SIGINT, &act, &old_int);
    sigaction(SIGTERM, &act, &old_term);
    int tty = isatty(fileno(stderr));
    *ran = 0;
    long done = 0, total = end - first, running = 0;
    for (long i = first; i < end || running > 0;) {
        int free_slot = -1;
        for (int s = 0; s < workers && free_slot < 0; ++s) free_slot = slots[s].pid ? -1 : s;
        if (i < end && !interrupted && free_slot >= 0) {
            running_job* job = &slots[free_slot];
            sweep_row_path(plan, dir, i, job->path, sizeof job->path);
            sweep_row row;
            if (sweep_row_read(job->path, &row)) { /* done before: skipped */
                sweep_row_free(&row);
                ++done;
            } else {
                job->index = i;
                job->pid = sweep_job_start(plan, i, job->path);
                ++*ran;
                if (job->pid > 0) ++running; else { job->pid = 0; ++done; }
            }
            ++i;
            continue;
        }
        if (running == 0) break; /* interrupted with nothing in flight */
        if (reap(plan, slots, workers) >= 0) {
            --running;
            ++done;
            if (tty) show_progress(done, total);
        }
    }
    if (tty) fprintf(stderr, "\n");
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    free(slots);
    if (interrupted) {
        fprintf(stderr, "touche sweep: interrupted; %ld of %ld jobs have their rows in %s/rows "
                        "(run the same command again to resume)\n", done - running, total, dir);
        return EXIT_INTERRUPTED;
    }
    return EXIT_OK;
}

static void csv_header(FILE* f, const sweep_plan* plan) {
    fputs("job,id,status,error", f);
    for (int i = 0; i < plan->param_count; ++i) fprintf(f, ",%s", plan->params[i].name);
    for (int c = 0; c < plan->column_count; ++c) fprintf(f, ",%s", plan->columns[c]);
    fputc('\n', f);
}

int sweep_write_results(const sweep_plan* plan, const char* dir, long first, long end,
                        const char* base) {
    char path[1100];
    cli_output_file csv = {0}, jsonl = {0};
    snprintf(path, sizeof path, "%s/%s.csv", dir, base);
    int ok = cli_open_output(&csv, path, "sweep");
    snprintf(path, sizeof path, "%s/%s.jsonl", dir, base);
    ok = ok && cli_open_output(&jsonl, path, "sweep");
    long missing = 0, first_missing = -1, not_ok = 0;
    if (ok) csv_header(csv.f, plan);
    for (long i = first; ok && i < end; ++i) {
        sweep_row row;
        sweep_row_path(plan, dir, i, path, sizeof path);
        if (!sweep_row_read(path, &row)) {
            if (missing++ == 0) first_missing = i;
            continue;
        }
        fprintf(csv.f, "%ld,%s", i, row.csv);
        fprintf(jsonl.f, "{\"job\":%ld,%s", i, row.json);
        not_ok += strncmp(strchr(row.csv, ',') + 1, "ok,", 3) != 0; /* id,status,... */
        sweep_row_free(&row);
    }
    int how = ok && missing == 0 ? CLI_KEEP : CLI_DISCARD;
    ok &= cli_finish_output(&csv, how, "sweep") & cli_finish_output(&jsonl, how, "sweep");
    if (missing) {
        fprintf(stderr, "touche sweep: %ld of jobs %ld to %ld have no row in %s/rows (the first: "
                        "job %ld); run them first (docs/sweeps.md)\n",
                missing, first, end - 1, dir, first_missing);
        return EXIT_FAILURE_GENERIC;
    }
    if (ok) {
        fprintf(stderr, "touche sweep: wrote %s/%s.csv and %s/%s.jsonl: %ld rows, %ld not ok%s\n",
                dir, base, dir, base, end - first, not_ok,
                not_ok ? " (failed, diverged or crashed: see their error column)" : "");
    }
    return ok ? EXIT_OK : EXIT_FAILURE_GENERIC;
}
