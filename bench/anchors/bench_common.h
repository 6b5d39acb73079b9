/* Measurement shared by the four benchmark programs (touche, MuJoCo, ODE, Bullet), so that
 * their figures mean the same thing:
 *
 *   - time: CLOCK_MONOTONIC read just before and just after each engine step call (and only
 *     that call: outcome bookkeeping happens outside the timed region); mean, p50, p99, max
 *     over all steps of the run, steps per second = steps / sum of step times;
 *   - outcome: whether a stack still stands at the end (every body turned by less than 0.2 rad
 *     from its initial orientation, and the initially highest body's centre of mass within 5%
 *     of its initial height; top_z_ratio is that final / initial height), the bodies at rest at
 *     the end (|v_WCm| < 1e-3 m/s and |w_W| < 1e-3 rad/s), the largest penetration depth of
 *     any contact seen after any step, and the change of the total mechanical energy (kinetic
 *     plus gravitational potential of the free bodies) from the first to the last state;
 *   - optionally, the angular momentum about the world z axis after every step, to a CSV file.
 *
 * Each program prints one CSV line (bench_csv_header gives the columns) on stdout.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "touche/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// Command line common to the benchmark programs.
typedef struct bench_options {
    const char* scene_path; ///< scene file the engine loads
    const char* scene_name; ///< name in the CSV (default: file name without directory and .xml)
    int steps;              ///< steps to run (> 0), or 0 when `duration` is given
    double duration;        ///< simulated seconds to run, used when steps is 0
    const char* lz_path;    ///< CSV of time and L_z per step, or NULL
    const char* loader;     ///< "touche" (default) or "mujoco": who compiles the scene (ODE, Bullet)
    const char* contact;    ///< touche only: contact model forced on every pair, or NULL
    bool header;            ///< print the CSV header line before the result
    char name_storage[128]; ///< holds the default scene_name
} bench_options;

/// State of one free body read back from an engine, in the world frame.
typedef struct bench_body_state {
    tch_vec3 p_WCm;   ///< centre of mass, m
    tch_quat q_WB;    ///< orientation of any frame fixed in the body
    tch_vec3 v_WCm;   ///< velocity of the centre of mass, m/s
    tch_vec3 w_W;     ///< angular velocity, rad/s
    tch_vec3 L_Cm_W;  ///< angular momentum about the centre of mass, kg m^2/s
    tch_real mass;    ///< kg
} bench_body_state;

/// One benchmark run: options, per-step times and outcome accumulators.
typedef struct bench_run {
    bench_options options;
    double dt;                   ///< s
    int steps;                   ///< steps to run
    int steps_done;              ///< steps completed (fewer when the engine failed)
    double* step_us;             ///< [steps] wall time of each step, microseconds
    int body_count;              ///< free bodies
    bench_body_state* initial;   ///< [body_count] state before the first step
    bench_body_state* current;   ///< [body_count] scratch for the engine to fill
    double max_penetration;      ///< m, largest contact depth seen (0: no contact ever)
    tch_vec3 gravity;            ///< m/s^2, world, for the potential energy
    double initial_energy;       ///< J, kinetic + potential of the initial state
    FILE* lz_file;               ///< open when options.lz_path is set
    char status[96];             ///< "ok", or what went wrong
} bench_run;

/// Parses argv; on bad usage prints the usage for `program` on stderr and returns false.
/// With --csv-header, prints the CSV header line and exits the program.
bool bench_parse_args(int argc, char** argv, const char* program, bench_options* out);

/// Prepares a run of a scene with `body_count` free bodies stepped at `dt`.
/// Returns false (after printing why) when memory or the L_z file is unavailable.
bool bench_run_begin(bench_run* run, const bench_options* options, double dt, int body_count);
/// Stores run->current as the initial state and `gravity` (m/s^2, world) for the energy (call
/// after filling current before stepping).
void bench_run_set_initial(bench_run* run, tch_vec3 gravity);

/// Monotonic clock, nanoseconds.
long long bench_now_ns(void);
/// Records the wall time of step `i` from its start and end times.
void bench_record_step(bench_run* run, int i, long long t0_ns, long long t1_ns);
/// Raises the maximum penetration seen to `depth` (m) if larger.
void bench_note_penetration(bench_run* run, double depth);
/// Writes "time,L_z" to the L_z file (when open) from run->current; `time` in s.
void bench_record_momentum(const bench_run* run, double time);
/// True when every value of run->current is finite.
bool bench_state_finite(const bench_run* run);

/// The CSV header line (without newline).
const char* bench_csv_header(void);
/// Prints a result line for `engine` with `settings` (no commas) from run->current as the final
/// state, then frees the run. When `header` was asked, prints the header line first.
void bench_run_finish(bench_run* run, const char* engine, const char* settings);
/// Prints a result line without measures saying that `engine` could not run the scene: status
/// `why` (commas are replaced). For a failure during the steps, set run->status and call
/// bench_run_finish instead, which reports the steps done.
void bench_report_failure(const bench_options* options, const char* engine, const char* why);

#ifdef __cplusplus
}
#endif
