/* touche sweep: many runs of one scene from a spec (docs/sweeps.md).
 *
 *   sweep_spec.c   the spec (JSON or TOML, sweep_value.h) -> a plan: parameters, run settings,
 *                  metrics; errors name the spec's file and line
 *   sweep_job.c    job i of the plan: its settings, its stable id, running it in this process
 *                  and its row of results
 *   sweep_pool.c   the jobs on this machine's cores (one child process per job), resuming from
 *                  the rows already written, shards, and the results files
 *   sweep_mpi.c    the MPI mode: a manager rank hands out jobs and gathers rows
 *   sweep.c        the command */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "sweep_metrics.h"

/* What a parameter changes. */
typedef enum sweep_target_kind {
    SWEEP_TARGET_SET,        /* a --set target: PARAM, geom:NAME.PARAM, pair:A/B.PARAM */
    SWEEP_TARGET_KEY,        /* the keyframe to start from (text) */
    SWEEP_TARGET_CONTACT,    /* the contact model of every pair (text) */
    SWEEP_TARGET_INTEGRATOR, /* the integrator (text) */
    SWEEP_TARGET_DT,         /* the time step, s */
    SWEEP_TARGET_DURATION,   /* the simulated time, s */
    SWEEP_TARGET_OPTION,     /* option:gravity (3) or one component, option:iterations,
                                tolerance, rtol, atol: the <option> attributes */
    SWEEP_TARGET_BODY,       /* body:NAME.pos|quat|vel|angvel, or one component: initial state */
} sweep_target_kind;

/* Initial-state fields of a body target (world frame; vel is the body origin's velocity). */
typedef enum sweep_body_field { SWEEP_BODY_POS, SWEEP_BODY_QUAT, SWEEP_BODY_VEL, SWEEP_BODY_ANGVEL } sweep_body_field;

/* The <option> attributes an option: target sets. */
typedef enum sweep_option_field {
    SWEEP_OPTION_GRAVITY,    /* gravity, m/s^2 */
    SWEEP_OPTION_ITERATIONS, /* touche:iterations, the lcp solver's limit (a whole number) */
    SWEEP_OPTION_TOLERANCE,  /* touche:tolerance, the lcp solver's residual */
    SWEEP_OPTION_RTOL,       /* touche:rtol, the adaptive integrator's relative tolerance */
    SWEEP_OPTION_ATOL,       /* touche:atol, its absolute tolerance */
} sweep_option_field;

/* One value of a parameter: text, or 1, 3 or 4 numbers. */
typedef struct sweep_setting {
    int width;     /* 0: text */
    char text[64];
    double x[4];
} sweep_setting;

/* How a parameter's values are chosen. */
typedef enum sweep_source {
    SWEEP_LIST,        /* values = [...] */
    SWEEP_GRID,        /* grid = {from, to, count[, log]} */
    SWEEP_UNIFORM,     /* uniform = [a, b] */
    SWEEP_LOGUNIFORM,  /* loguniform = [a, b], 0 < a < b */
    SWEEP_NORMAL,      /* normal = [mean, standard deviation] */
} sweep_source;

typedef struct sweep_param {
    char name[128];           /* its column: `name`, else the target */
    char target[128];
    sweep_target_kind kind;
    char body[64];            /* SWEEP_TARGET_BODY */
    sweep_body_field field;   /* SWEEP_TARGET_BODY */
    sweep_option_field option; /* SWEEP_TARGET_OPTION */
    int component;            /* -1: the whole vector; else one entry */
    int width;                /* numbers a value holds (0: text) */
    sweep_source source;
    int count;                /* list and grid: values */
    sweep_setting* values;    /* [count] list and grid */
    double a, b;              /* random draws */
} sweep_param;

typedef struct sweep_plan {
    char spec_path[1024];
    char scene[1024];         /* as the spec names it (part of every job's id) */
    char scene_path[2048];    /* resolved against the spec's directory */
    sweep_setting run[6];     /* the [run] settings, indexed by their target kind
                                 SWEEP_TARGET_KEY..SWEEP_TARGET_DURATION (width -1: not given) */
    int threads;              /* threads a job's steps may use (default 1) */
    uint64_t seed;
    int samples;              /* random draws per grid point (default 1) */
    sweep_param* params;
    int param_count;
    cli_metric_def* metrics;
    cli_recording* recordings; /* [metric_count], for trajectory_error */
    int metric_count;
    char (*columns)[96];      /* the metrics' columns, then the gradient's */
    int column_count;
    int metric_column_count;  /* the metrics' own columns (the first ones) */
    int* gradient_params;     /* [gradient_count] indices into params: d(metric)/d(param) */
    int gradient_count;
    double gradient_eps;      /* relative step: h = eps max(|x|, 1) */
    int gradient_centered;    /* 1: (f(x + h) - f(x - h)) / 2h; 0: (f(x + h) - f(x)) / h */
    long grid_count;          /* product of the list and grid parameters' counts */
    long job_count;           /* grid_count * samples */
} sweep_plan;

/* Reads the spec at `path` into *plan. Returns 1, or 0 after printing "touche sweep:
 * FILE:LINE: what is wrong". */
int sweep_plan_read(const char* path, sweep_plan* plan);
void sweep_plan_free(sweep_plan* plan);

/* The settings of job `index` (one per parameter) and its id (16 hex digits: a hash of the
 * scene, the run settings, the settings and the metrics, so a changed spec never reuses a row
 * of another job). */
void sweep_job_settings(const sweep_plan* plan, long index, sweep_setting* settings);
void sweep_job_id(const sweep_plan* plan, const sweep_setting* settings, char id[17]);

/* A job's row: the CSV line and the JSON line, each without the job's index (which the
 * results files add, so that a row does not depend on where the job sits in the spec). */
typedef struct sweep_row {
    char* csv;
    char* json;
} sweep_row;

/* Runs job `index` in this process, errors going to stderr (the pool captures them), and
 * writes its row file to `path` (through a temporary name, renamed when complete).
 * `error_log`: the file stderr goes to, whose last "touche" line is a failed job's error.
 * Returns 1 when the row file was written. */
int sweep_job_execute(const sweep_plan* plan, long index, const char* path, const char* error_log);
/* Writes the row of a job that did not finish (a crash): status `status`, error `error`. */
int sweep_job_write_failure(const sweep_plan* plan, long index, const char* path,
                            const char* status, const char* error);
/* Runs job `index` in a child process (stderr into a temporary log next to `path`), waits,
 * and records a crash when the child died without writing its row. Returns 1 when the row
 * file exists afterwards. */
int sweep_job_run_isolated(const sweep_plan* plan, long index, const char* path);
/* Starts that child without waiting; returns its pid (or -1 after recording the failure). */
long sweep_job_start(const sweep_plan* plan, long index, const char* path);
/* Completes a started job once waitpid reported its `status`. */
void sweep_job_finish(const sweep_plan* plan, long index, const char* path, int status);

/* Reads a row file; returns 0 when it is missing or incomplete. */
int sweep_row_read(const char* path, sweep_row* row);
void sweep_row_free(sweep_row* row);

/* DIR/rows/ID.row: where job `index`'s row is kept. */
void sweep_row_path(const sweep_plan* plan, const char* dir, long index, char* path, size_t size);

/* The jobs [first, end) of this shard: shard i of n takes a contiguous block, so that the
 * shards' results files, concatenated in shard order without their headers, are the
 * unsharded results. */
void sweep_shard_range(long job_count, int shard, int shard_count, long* first, long* end);

/* Writes DIR/results.csv and DIR/results.jsonl (or, for a shard, DIR/shard-I-of-N.csv and
 * .jsonl) from the rows of jobs [first, end), in job order, and says how many rows are not
 * ok. Returns an exit code; prints which jobs have no row when some are missing. */
int sweep_write_results(const sweep_plan* plan, const char* dir, long first, long end,
                        const char* base);

/* Runs the jobs [first, end) that have no row yet on `workers` processes; *ran: how many it
 * ran. Returns an exit code (a failed job is a row, not an error). */
int sweep_run_local(const sweep_plan* plan, const char* dir, long first, long end, int workers,
                    long* ran);

/* touche sweep --mpi: returns an exit code; prints "built without MPI" when it was. */
int sweep_run_mpi(const sweep_plan* plan, const char* dir);
