/* Loop lateness at 1 and 10 kHz: an empty loop (absolute deadlines on CLOCK_MONOTONIC, no
 * work) beside the haptic loop of examples/haptic_coupling.xml driven by the scripted hand
 * examples/haptic_press.csv on two threads (tch_haptic_loop_run_threaded: the servo thread at
 * absolute deadlines, the physics on the main thread). Rounds interleave the two. Prints the wake-up lateness p50/p99/max, the overruns
 * (empty loop: ticks that ended after the next deadline; haptic loop: ticks whose lateness
 * plus compute time exceeded the period) and, for the haptic loop, the tick compute time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "touche/touche.h"

enum { ROUNDS = 3 };
static const double SECONDS = 1.6;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void sleep_until(int64_t deadline) {
    struct timespec wake = {.tv_sec = deadline / 1000000000, .tv_nsec = deadline % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL) != 0) {
    }
}

static int compare(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

typedef struct figures {
    double late_p50, late_p99, late_max, busy_p99;
    long overruns;
} figures;

static void summarize(double* late, double* busy, long n, long overruns, figures* f) {
    qsort(late, (size_t)n, sizeof *late, compare);
    qsort(busy, (size_t)n, sizeof *busy, compare);
    *f = (figures){late[n / 2] * 1e6, late[(long)(0.99 * (n - 1))] * 1e6, late[n - 1] * 1e6,
                   busy[(long)(0.99 * (n - 1))] * 1e6, overruns};
}

/* The empty loop: n ticks at absolute deadlines, no work. */
static int run_empty(long n, double period, figures* f) {
    double* late = malloc((size_t)n * sizeof *late);
    double* busy = malloc((size_t)n * sizeof *busy);
    int64_t period_ns = (int64_t)(period * 1e9 + 0.5), deadline = now_ns() + period_ns;
    long overruns = 0;
    for (long k = 0; k < n; ++k) {
        sleep_until(deadline);
        int64_t woke = now_ns();
        late[k] = (double)(woke - deadline) * 1e-9;
        int64_t done = now_ns();
        busy[k] = (double)(done - woke) * 1e-9;
        deadline += period_ns;
        if (done > deadline) {
            overruns++;
            deadline += ((done - deadline) / period_ns + 1) * period_ns;
        }
    }
    summarize(late, busy, n, overruns, f);
    free(late);
    free(busy);
    return 1;
}

static int haptic_run(double rate, figures* f) {
    tch_spec* spec;
    tch_model* model;
    tch_data* data;
    tch_haptic_device* device;
    tch_haptic_loop* loop;
    tch_error err;
    tch_haptic_spec sigma = {.max_force = 12, .max_torque = 0.2, .max_stiffness = 4000};
    tch_haptic_scripted_config c = {
        .path = TCH_SOURCE_DIR "/examples/haptic_press.csv", .period = 1 / rate, .spec = sigma};
    if (tch_mjcf_load(TCH_SOURCE_DIR "/examples/haptic_coupling.xml", &spec, &err) ||
        tch_compile(spec, &model, &err) || tch_data_create(model, &data, &err) ||
        tch_haptic_open(tch_haptic_scripted_driver(), &c, &device, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 0;
    }
    tch_haptic_loop_config config = {.body = -1, .period = 1 / rate, .passivity_control = true,
                                     .safety = tch_haptic_safety_defaults(&sigma)};
    if (tch_haptic_loop_create(model, data, device, &config, &loop, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 0;
    }
    long n = (long)(SECONDS * rate);
    tch_haptic_tick* ticks = malloc((size_t)n * sizeof *ticks);
    tch_haptic_timing* timing = malloc((size_t)n * sizeof *timing);
    double* late = malloc((size_t)n * sizeof *late);
    double* busy = malloc((size_t)n * sizeof *busy);
    int ok = tch_haptic_loop_run_threaded(loop, n, ticks, timing, &err) == TCH_OK;
    long overruns = 0;
    for (long k = 0; ok && k < n; ++k) {
        late[k] = timing[k].late;
        busy[k] = timing[k].busy;
        overruns += timing[k].late + timing[k].busy > 1 / rate;
    }
    if (ok) {
        summarize(late, busy, n, overruns, f);
    } else {
        fprintf(stderr, "%s\n", err.message);
    }
    free(ticks);
    free(timing);
    free(late);
    free(busy);
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    tch_data_destroy(data);
    tch_model_destroy(model);
    tch_spec_destroy(spec);
    return ok;
}

int main(void) {
    char cpu[128];
    bench_cpu_model(cpu, sizeof cpu);
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    printf("# haptic loop lateness, commit %s, cpu %s, %d rounds of %.1f s, no SCHED_FIFO\n",
           commit, cpu, ROUNDS, SECONDS);
    printf("rate_hz,round,loop,late_p50_us,late_p99_us,late_max_us,tick_p99_us,overruns,ticks\n");
    const double rates[] = {1000, 10000};
    for (int r = 0; r < 2; ++r) {
        for (int round = 0; round < ROUNDS; ++round) {
            figures empty = {0}, haptic = {0};
            if (!run_empty((long)(SECONDS * rates[r]), 1 / rates[r], &empty) ||
                !haptic_run(rates[r], &haptic)) {
                return 1;
            }
            const figures* both[2] = {&empty, &haptic};
            for (int i = 0; i < 2; ++i) {
                printf("%.0f,%d,%s,%.1f,%.1f,%.1f,%.1f,%ld,%ld\n", rates[r], round,
                       i ? "haptic" : "empty", both[i]->late_p50, both[i]->late_p99,
                       both[i]->late_max, both[i]->busy_p99, both[i]->overruns,
                       (long)(SECONDS * rates[r]));
            }
        }
    }
    return 0;
}
