/* What every benchmark program prints about its run, and its clock. */
#pragma once

#include <stddef.h>

/* Monotonic wall-clock time, s. */
double bench_now_seconds(void);

/* The CPU's model name from /proc/cpuinfo, "unknown" when it cannot be read. */
void bench_cpu_model(char* out, size_t size);
