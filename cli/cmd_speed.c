/* touche speed: steps per second of a scene, like MuJoCo's testspeed. */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <time.h>

#include "cli.h"

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int cli_cmd_speed(const cli_options* o) {
    tch_spec* spec = NULL;
    tch_model* m = NULL;
    tch_data* d = NULL;
    int code = cli_load_model(o, &spec, &m);
    if (code == EXIT_OK) code = cli_make_data(o, m, &d);
    long steps = o->steps > 0 ? o->steps : 10000;
    double* times = code == EXIT_OK ? malloc((size_t)steps * sizeof *times) : NULL;
    if (code == EXIT_OK && !times) code = EXIT_FAILURE_GENERIC;
    long contacts = 0, done = 0;
    tch_error err = {0};
    double start = now_seconds();
    for (; code == EXIT_OK && done < steps; ++done) {
        double t0 = now_seconds();
        if (tch_step(m, d, &err) != TCH_OK) {
            cli_print_error("the simulation failed", &err);
            code = EXIT_DIVERGED;
            break;
        }
        times[done] = now_seconds() - t0;
        contacts += d->contact_count;
    }
    double wall = now_seconds() - start;
    if (code == EXIT_OK) {
        qsort(times, (size_t)steps, sizeof *times, compare_doubles);
        printf("scene        %s\n", o->scene);
        printf("steps        %ld of %.6g s (%.6g s simulated)\n", steps, m->timestep, d->time);
        printf("steps/s      %.0f\n", (double)steps / wall);
        printf("real time    %.1fx\n", d->time / wall);
        printf("step time    mean %.2f us, p50 %.2f us, p99 %.2f us, max %.2f us\n",
               1e6 * wall / (double)steps, 1e6 * times[steps / 2],
               1e6 * times[(long)(0.99 * (double)(steps - 1))], 1e6 * times[steps - 1]);
        printf("contacts     %.2f per step\n", (double)contacts / (double)steps);
        printf("heap allocs  %ld during the steps\n", d->heap_allocation_count);
    }
    free(times);
    tch_data_destroy(d);
    tch_model_destroy(m);
    tch_spec_destroy(spec);
    return code;
}
