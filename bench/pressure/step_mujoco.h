/* MuJoCo's whole step (mj_step) on a scene given as MJCF text, timed as bench_pressure_step_timing
 * times tch_step: warm-up steps, then the best mean of a few rounds, in wall-clock and in thread
 * CPU time. Linked only into the
 * benchmark (MuJoCo 2.2.2, Debian's libmujoco-dev). */
#pragma once

typedef struct sm_timing {
    double us_per_step;
    double cpu_us_per_step; /* the calling thread's CPU time (leaves out preemption) */
    int contacts;           /* d->ncon after the run */
    double buffer_kb;       /* mjData's preallocated buffer and stack, KiB */
    double stack_used_kb;   /* the stack's high-water mark over the run, KiB */
} sm_timing;

/* The calling thread's CPU time, s (CLOCK_THREAD_CPUTIME_ID). */
double sm_thread_cpu_seconds(void);

/* Loads `mjcf`, steps `warmup` times, then times `rounds` runs of `steps` steps. Returns 0, or
 * -1 with MuJoCo's message on stderr. */
int sm_time_mujoco(const char* mjcf, int warmup, int steps, int rounds, sm_timing* out);
