/* touche speed: steps per second of a scene, like MuJoCo's testspeed. */
#include <stdlib.h>

#include "cli.h"

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

int cli_cmd_speed(const cli_options* o) {
    cli_session session;
    int code = cli_open_session(o, 1, &session);
    const tch_model* m = session.model;
    tch_data* d = session.data;
    long steps = o->steps > 0 ? o->steps : 10000;
    double* times = code == EXIT_OK ? malloc((size_t)steps * sizeof *times) : NULL;
    if (code == EXIT_OK && !times) code = EXIT_FAILURE_GENERIC;
    long contacts = 0, done = 0;
    tch_error err = {0};
    cli_progress progress;
    cli_progress_start(&progress, o, "speed", steps);
    double start = cli_now_seconds();
    for (; code == EXIT_OK && done < steps; ++done) {
        double t0 = cli_now_seconds();
        if (tch_step(m, d, &err) != TCH_OK) {
            cli_progress_interrupt(&progress);
            cli_print_error("the simulation failed", &err);
            code = EXIT_DIVERGED;
            break;
        }
        times[done] = cli_now_seconds() - t0;
        contacts += d->contact_count;
        cli_progress_update(&progress, done + 1);
    }
    double wall = cli_now_seconds() - start;
    cli_progress_end(&progress);
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
    cli_close_session(&session);
    return code;
}
