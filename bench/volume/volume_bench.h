/* What the volume-model experiments (bench/volume) share: the CSV prefix (date, commit, CPU),
 * step-time statistics (the clock is bench_now_seconds of bench/common), and scene building through the public spec API. */
#pragma once

#include <stdio.h>

#include <stdbool.h>

#include "bench_machine.h"
#include "touche/touche.h"

/* "date,commit,cpu" of this run, without newline (commas in the CPU name are replaced). */
const char* vb_csv_prefix(void);

/* Reads the command line [SECONDS] [--series FILE]: *seconds keeps its default when absent; a
 * series file is opened and given `series_header`. Returns 0, or 2 after printing why not. */
int vb_parse_args(int argc, char** argv, double* seconds, const char* series_header,
                  FILE** series);

/* CPU time of the calling thread, s: unlike the wall clock it leaves out the time the thread
 * was preempted, which dominates the tail of the step times on a loaded machine. */
double vb_thread_seconds(void);

/* Step times of one run, microseconds. */
typedef struct vb_times {
    double* us;
    int count, capacity;
} vb_times;

bool vb_times_init(vb_times* t, int capacity);
void vb_times_free(vb_times* t);
void vb_times_add(vb_times* t, double us);
/* One tch_step, its thread CPU time added to t; returns the step's status. */
tch_status vb_timed_step(const tch_model* m, tch_data* d, vb_times* t, tch_error* err);
/* Mean, the q-quantile (0..1, nearest rank) and the maximum; sorts the samples. */
double vb_times_mean(const vb_times* t);
double vb_times_quantile(vb_times* t, double q);
double vb_times_max(const vb_times* t);

/* A spec with gravity g along -z, step dt, semi-implicit Euler and the given scene-wide
 * contact model and parameters (k^N, b^N; k^S = k^N and b^S = b^N unless set afterwards). */
tch_spec* vb_spec(double g, double dt, tch_contact_model model, double k, double b, double mu);
/* The floor: a static plane z = 0 with friction mu. */
void vb_add_floor(tch_spec* spec, double mu);
/* A free body named `name` at p_WB, orientation q_WB, mass m, without geoms (has_inertial
 * false: mass properties from its geoms' masses). */
tch_body_id vb_add_body(tch_spec* spec, const char* name, tch_vec3 p_WB, tch_quat q_WB);
/* A box geom of half-extents `half` at p_BG on `body`, of mass m (kg). */
void vb_add_box(tch_spec* spec, tch_body_id body, tch_vec3 half, tch_vec3 p_BG, double m);
/* Compiles and frees the spec; on failure prints why on stderr and returns NULL. */
tch_model* vb_compile(tch_spec* spec);
/* A data for the model; on failure prints why and returns NULL. */
tch_data* vb_data(const tch_model* model);

/* Experiment 1's column of n blocks (1 x 1 x 2 m, 1 kg, bodies 1..n from the bottom) on the
 * floor, at the closed-form equilibrium of contacts of stiffness k (contact j sinks by
 * (n - j + 1) m g / k), the top block pushed 1e-6 m sideways to seed any buckling. */
void vb_add_block_stack(tch_spec* spec, int n, double k, double g);
/* Every block of such a stack within 0.2 rad of upright and the top one (body n) above 95% of
 * its initial height top_z. */
bool vb_block_stack_stands(const tch_data* d, int n, double top_z);

/* The end of a run whose line has been printed: flushes stdout, frees the times, the data and
 * the model; returns 0. */
int vb_run_end(vb_times* times, tch_data* d, tch_model* m);

/* |v_WCm| and |w_W| of body b below `speed`: at rest. */
bool vb_body_at_rest(const tch_data* d, int b, double speed);
