/* touche fit (docs/fit.md): contact parameters fitted so that simulated motion matches
 * recorded trajectories. The recordings (cli/fit_recording.c), their simulation and errors
 * (cli/fit_objective.c), the search (cli/fit_search.c) and the command (cli/fit.c). */
#pragma once

#include "cli.h"

/* Most bodies one recording may hold, and most parameters one fit may vary. */
#define FIT_MAX_BODIES 16
#define FIT_MAX_PARAMS 8

/* One recorded sample of a body: its origin's pose, and its velocities when the file has them. */
typedef struct fit_sample {
    double t;
    tch_vec3 p;     /* origin position, world, m */
    tch_quat q;     /* orientation (normalized on reading) */
    tch_vec3 v, w;  /* origin velocity and angular velocity, world (zero without the columns) */
} fit_sample;

/* The samples of one body in a recording, and the state it is started from. */
typedef struct fit_track {
    int body;               /* index in the model */
    double width;           /* largest extent of its geoms, m: the unit of position errors */
    fit_sample* samples;
    int count;
    int flight;             /* samples before the first contact used for the initial state */
    tch_transform X0;       /* estimated state at the recording's first time */
    tch_vec3 v0, w0;        /* origin velocity and angular velocity, world */
} fit_track;

typedef struct fit_recording {
    char path[1024];
    int has_velocities;
    int columns;            /* per row: 9 (pose), 15 (velocities) or 18 (run's body-frame rates too) */
    fit_track tracks[FIT_MAX_BODIES];
    int track_count;
    double t0, t1;          /* first and last sample time over its tracks */
} fit_recording;

/* Reads a recording (CSV, docs/fit.md) of bodies of `model`. Returns 0 after printing
 * "touche fit: FILE:LINE: what is wrong". */
int fit_read_recording(const char* path, const tch_model* model, fit_recording* r);
void fit_free_recording(fit_recording* r);

/* Estimates each track's state at the recording's first time, for `model`'s integrator, from
 * its free flight (the samples before the scene's geometry first comes within reach of the
 * body: `detect` is the scene with the point model and a wide margin, whose contacts measure
 * the gap): a ballistic parabola of the centre of mass and a constant angular velocity, least
 * squares. Returns 0 after printing why it could not (no free flight and no velocity
 * columns). */
int fit_estimate_initial_state(const tch_model* model, const tch_model* detect, fit_recording* r);

/* The errors of one simulated recording against its samples. */
typedef struct fit_errors {
    double loss;             /* mean over samples of (|dp| / width)^2 + dtheta^2 (rad) */
    double position;         /* mean |dp| / width */
    double rotation;         /* mean rotation angle error, degrees */
    double final_position;   /* |dp| / width at the last sample */
    double penetration;      /* deepest contact penetration of the simulation, m */
    int failed;              /* the simulation failed or diverged: loss is a penalty */
    char failure[600];
} fit_errors;

/* Simulates every recording of `list` (count of them) with `model` on up to `threads` threads
 * (a fixed partition: the results do not depend on the count), one fit_errors each. */
void fit_simulate_all(const tch_model* model, const cli_options* o, fit_recording* const* list,
                      int count, int threads, fit_errors* out);

/* One fitted parameter: TARGET as --set takes it (friction, geom:cube.friction, ...) and its
 * box; log-scaled ones are searched in log space. */
typedef struct fit_param {
    char target[128];
    char name[64];           /* PARAM, the part after the last '.' */
    double lo, hi;
    int log_scale;
    double value;            /* the result */
    double sweep_value;      /* the best point of the coarse sweep */
} fit_param;

/* The search: a coarse sweep over the box, then an NLopt local search (`optimizer`:
 * "neldermead", "sbplx" or "bobyqa"; BOBYQA needs two parameters and gives way to Nelder-Mead
 * for one) from the sweep's three best points, minimizing `objective` over normalized
 * coordinates. */
typedef double (*fit_objective)(const double* x, void* user);
typedef struct fit_search_result {
    int sweep_evaluations;
    int local_evaluations;
    double best;             /* objective at the result */
    double x[FIT_MAX_PARAMS];
    double sweep_x[FIT_MAX_PARAMS];
    const char* optimizer;   /* the one that ran */
} fit_search_result;

/* Whether `name` is an optimizer fit_search knows. */
int fit_optimizer_known(const char* name);

/* Sweeps `points` per coordinate (a grid of cell centres) and refines with at most
 * `local_budget` evaluations in all. Returns 0 when NLopt fails outright (message in *why). */
int fit_search(const char* optimizer, int dimension, int points, int local_budget,
               fit_objective f, void* user, fit_search_result* out, const char** why);
