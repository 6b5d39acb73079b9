#define _POSIX_C_SOURCE 200809L
#include "bench_machine.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

double bench_now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

void bench_cpu_model(char* out, size_t size) {
    snprintf(out, size, "unknown");
    FILE* f = fopen("/proc/cpuinfo", "r");
    if (!f) {
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        const char* colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(out, size, "%s", colon + 2);
            out[strcspn(out, "\n")] = 0;
            break;
        }
    }
    fclose(f);
}
