/* The haptic loops' clock: CLOCK_MONOTONIC in nanoseconds, and sleeps to absolute deadlines on
 * it (relative sleeps drift, shared/reference/haptics.md). */
#pragma once

#include <stdint.h>
#include <time.h>

static inline int64_t tch_monotonic_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Sleeps until CLOCK_MONOTONIC reads `deadline_ns`, again after an interrupting signal. */
static inline void tch_monotonic_sleep_until(int64_t deadline_ns) {
    struct timespec wake = {.tv_sec = deadline_ns / 1000000000,
                            .tv_nsec = deadline_ns % 1000000000};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &wake, NULL) != 0) {
    }
}
