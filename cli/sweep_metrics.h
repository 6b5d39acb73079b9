/* Metrics of a run, measured while it steps: what `touche sweep` writes per job, for any
 * command that needs to score a simulation against numbers or a recording (docs/sweeps.md,
 * "Metrics"). Prints nothing; errors are returned as text.
 *
 *   cli_metrics ms;
 *   cli_metrics_begin(&ms, defs, n, model, data, err, sizeof err);   after the initial state is set
 *   each step: tch_step(...); cli_metrics_observe(&ms, model, data);
 *   cli_metrics_finish(&ms, model, data, values);                    values[cli_metrics_columns]
 *   cli_metrics_free(&ms);
 */
#pragma once

#include <stddef.h>

#include "touche/touche.h"

typedef enum cli_metric_kind {
    CLI_METRIC_FINAL_POSE,       /* body's x y z qw qx qy qz at the end (world frame) */
    CLI_METRIC_MAX_PENETRATION,  /* deepest penetration of any pair over the run, m (the watch's) */
    CLI_METRIC_ENERGY_CHANGE,    /* kinetic + gravitational energy at the end minus at the start, J */
    CLI_METRIC_TIME_AT_REST,     /* settled_at: the time after which the bodies stayed at rest;
                                    time_at_rest: how long they had been at rest at the end, s */
    CLI_METRIC_CONTACT_FORCE,    /* mean, max and standard deviation over the steps of the sum of
                                    the pairs' net contact force magnitudes (those touching
                                    `body`, or all), N */
    CLI_METRIC_TRAJECTORY_ERROR, /* body's position error (rms and max, m) and rotation error
                                    (rms, degrees) against a recording, at its sample times */
    CLI_METRIC_KIND_COUNT
} cli_metric_kind;

/* Most columns one metric gives. */
#define CLI_METRIC_MAX_COLUMNS 7

/* A recorded trajectory of one body: the rows of that body in a trajectory CSV
 * (time,body,x,y,z,qw,qx,qy,qz[,...], the format `touche run` writes). */
typedef struct cli_recording {
    int count;
    double* time; /* [count], increasing */
    tch_vec3* p;  /* [count] */
    tch_quat* q;  /* [count] */
} cli_recording;

/* Reads the rows of `body` from the CSV at `path`. Returns 1, or 0 with "PATH:LINE: why" in
 * err (a bad header, a short row, a non-number, times not increasing, no row of the body). */
int cli_recording_load(const char* path, const char* body, cli_recording* rec, char* err,
                       size_t err_size);
void cli_recording_free(cli_recording* rec);

typedef struct cli_metric_def {
    cli_metric_kind kind;
    char body[64];            /* the body it is about; "" for all (where allowed) */
    double rest_speed;        /* time_at_rest: linear speed below which a body rests, m/s */
    double rest_spin;         /* time_at_rest: angular speed below which it rests, rad/s */
    const cli_recording* recording; /* trajectory_error: the recording (not owned) */
} cli_metric_def;

/* The metric's kind from its name (final_pose, max_penetration, energy_change, time_at_rest,
 * contact_force, trajectory_error); 0 when unknown. */
int cli_metric_kind_parse(const char* name, cli_metric_kind* kind);
const char* cli_metric_kind_name(cli_metric_kind kind);
/* Whether the kind needs a body (final_pose, trajectory_error), may have one, or has none. */
enum { CLI_METRIC_NO_BODY = 0, CLI_METRIC_OPTIONAL_BODY = 1, CLI_METRIC_NEEDS_BODY = 2 };
int cli_metric_body_use(cli_metric_kind kind);

/* The column names of a metric into names[] (each < 96 chars); returns how many. */
int cli_metric_columns(const cli_metric_def* def, char names[][96]);

/* What one metric has measured so far. */
typedef struct cli_metric_state {
    int body;          /* the body index, or 0 for all */
    double last_motion; /* time_at_rest: time of the last state with a body moving; -1: none */
    long samples;      /* contact_force: steps; trajectory_error: recorded samples compared */
    double sum;        /* contact_force: of the force; trajectory_error: of squared position errors */
    double sq_sum;     /* contact_force: of the squared force; trajectory_error: of squared angles */
    double max;        /* contact_force: largest force; trajectory_error: largest position error */
    int next_sample;   /* trajectory_error: the next recorded sample to compare */
} cli_metric_state;

/* What one run measures. */
typedef struct cli_metrics {
    const cli_metric_def* defs;
    int count;
    cli_metric_state* state; /* [count] */
    double energy_start;
    double start_time;
    double half_step;
} cli_metrics;

/* Starts measuring at data's state (its initial state). Returns 1, or 0 with why in err (a
 * body the scene does not have, or not free). */
int cli_metrics_begin(cli_metrics* ms, const cli_metric_def* defs, int count,
                      const tch_model* model, const tch_data* data, char* err, size_t err_size);
/* Takes in the state after a step. */
void cli_metrics_observe(cli_metrics* ms, const tch_model* model, const tch_data* data);
/* Writes every metric's columns, in order, into values; returns how many. A trajectory error
 * with no recorded sample inside the run is NaN. */
int cli_metrics_finish(const cli_metrics* ms, const tch_model* model, const tch_data* data,
                       double* values);
void cli_metrics_free(cli_metrics* ms);
