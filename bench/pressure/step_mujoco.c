/* MuJoCo's step on an MJCF text (step_mujoco.h). The text goes to a temporary file that
 * mj_loadXML reads (MuJoCo 2.2.2 loads XML from files or a virtual file system only). */
#include "step_mujoco.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <mujoco/mujoco.h>

#include "bench_machine.h"

static mjModel* load_text(const char* mjcf) {
    char path[] = "/tmp/touche_step_mujoco_XXXXXX";
    int fd = mkstemp(path);
    FILE* f = fd >= 0 ? fdopen(fd, "w") : NULL;
    mjModel* m = NULL;
    if (f) {
        int written = fputs(mjcf, f) >= 0;
        if (fclose(f) == 0 && written) {
            char error[1000] = "";
            m = mj_loadXML(path, NULL, error, sizeof error);
            if (!m) {
                fprintf(stderr, "step_mujoco: %s\n", error);
            }
        }
        unlink(path);
    }
    return m;
}

double sm_thread_cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int sm_time_mujoco(const char* mjcf, int warmup, int steps, int rounds, sm_timing* out) {
    mjModel* m = load_text(mjcf);
    mjData* d = m ? mj_makeData(m) : NULL;
    if (!d) {
        mj_deleteModel(m);
        return -1;
    }
    for (int i = 0; i < warmup; ++i) {
        mj_step(m, d);
    }
    double best = INFINITY, best_cpu = INFINITY;
    for (int r = 0; r < rounds; ++r) {
        double t0 = bench_now_seconds(), c0 = sm_thread_cpu_seconds();
        for (int i = 0; i < steps; ++i) {
            mj_step(m, d);
        }
        best = fmin(best, (bench_now_seconds() - t0) / steps);
        best_cpu = fmin(best_cpu, (sm_thread_cpu_seconds() - c0) / steps);
    }
    out->us_per_step = best * 1e6;
    out->cpu_us_per_step = best_cpu * 1e6;
    out->contacts = d->ncon;
    out->buffer_kb = (d->nbuffer + (double)d->nstack * sizeof(mjtNum)) / 1024;
    out->stack_used_kb = (double)d->maxuse_stack * sizeof(mjtNum) / 1024;
    mj_deleteData(d);
    mj_deleteModel(m);
    return 0;
}
