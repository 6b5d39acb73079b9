/* A whole step of the PUMA 560 (6 dof, no contact) in touche beside MuJoCo 2.2.2 on the same
 * MJCF file (puma560.xml in this folder: semi-implicit Euler, 2 ms, armature, damping, limits).
 *
 *     bench_step [puma560.xml] [steps_per_block]      (defaults: this folder's file, 2000)
 *
 * Each round resets both to the pose qn (0, pi/4, -pi, 0, pi/4, 0) at rest and runs one block
 * of steps on touche, then one on MuJoCo (interleaved A/B: the machine is shared); the figure
 * is microseconds per step, the median over 7 rounds. The arm falls from qn under gravity and
 * damping into its limits, which touche holds with one-sided springs and MuJoCo with its
 * constraint solver (docs/articulated.md), so the trajectories differ once a limit is met.
 *
 * Prints: date, commit (TCH_COMMIT environment variable, else the build's), CPU; then CSV
 * scene,touche_us,mujoco_us,ratio (ratio = touche / MuJoCo). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <mujoco/mujoco.h>

#include "bench_machine.h"
#include "touche/touche.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

enum { ROUNDS = 7, NV = 6 };

static const double QN[NV] = {0, 0.785398163397448, -3.14159265358979, 0, 0.785398163397448, 0};

static int compare(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double touche_block(const tch_model* m, tch_data* d, int steps) {
    tch_data_reset(m, d);
    memcpy(d->qpos, QN, sizeof QN);
    double start = bench_now_seconds();
    for (int i = 0; i < steps; ++i) {
        if (tch_step(m, d, NULL) != TCH_OK) {
            fprintf(stderr, "touche step failed\n");
            exit(1);
        }
    }
    return (bench_now_seconds() - start) / steps * 1e6;
}

static double mujoco_block(const mjModel* m, mjData* d, int steps) {
    mj_resetData(m, d);
    memcpy(d->qpos, QN, sizeof QN);
    double start = bench_now_seconds();
    for (int i = 0; i < steps; ++i) {
        mj_step(m, d);
    }
    return (bench_now_seconds() - start) / steps * 1e6;
}

int main(int argc, char** argv) {
    const char* path = argc > 1 ? argv[1] : TCH_BENCH_DYNAMICS_DIR "/puma560.xml";
    int steps = argc > 2 ? atoi(argv[2]) : 2000;
    tch_spec* spec = NULL;
    tch_model* tm = NULL;
    tch_data* td = NULL;
    tch_error err;
    if (tch_mjcf_load(path, &spec, &err) != TCH_OK || tch_compile(spec, &tm, &err) != TCH_OK ||
        tch_data_create(tm, &td, &err) != TCH_OK) {
        fprintf(stderr, "touche: %s\n", err.message);
        return 1;
    }
    char error[1000] = "";
    mjModel* mm = mj_loadXML(path, NULL, error, sizeof error);
    if (!mm) {
        fprintf(stderr, "MuJoCo: %s\n", error);
        return 1;
    }
    mjData* md = mj_makeData(mm);
    double touche_us[ROUNDS], mujoco_us[ROUNDS];
    for (int r = 0; r < ROUNDS; ++r) {
        touche_us[r] = touche_block(tm, td, steps);
        mujoco_us[r] = mujoco_block(mm, md, steps);
    }
    qsort(touche_us, ROUNDS, sizeof(double), compare);
    qsort(mujoco_us, ROUNDS, sizeof(double), compare);
    char cpu[256];
    bench_cpu_model(cpu, sizeof cpu);
    time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    const char* commit = getenv("TCH_COMMIT");
    printf("# %s, commit %s, %s\n# %d steps per block, median of %d rounds\n", date,
           commit ? commit : TCH_GIT_COMMIT, cpu, steps, ROUNDS);
    printf("scene,touche_us,mujoco_us,ratio\n");
    printf("puma560 step,%.3f,%.3f,%.2f\n", touche_us[ROUNDS / 2], mujoco_us[ROUNDS / 2],
           touche_us[ROUNDS / 2] / mujoco_us[ROUNDS / 2]);
    printf("# after one block: touche q2 %.6f, MuJoCo q2 %.6f\n", td->qpos[1], md->qpos[1]);
    mj_deleteData(md);
    mj_deleteModel(mm);
    tch_data_destroy(td);
    tch_model_destroy(tm);
    tch_spec_destroy(spec);
    return 0;
}
