/* The servo loop of touche/haptics.h: absolute deadlines on CLOCK_MONOTONIC (relative sleeps
 * drift, shared/reference/haptics.md), nothing allocated, locked or printed in the tick. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "base/error.h"
#include "haptics/mailbox.h"
#include "haptics/monotonic.h"
#include "touche/haptics.h"

struct tch_haptic_servo {
    tch_haptic_device* device;
    tch_haptic_safety safety;
    int64_t period_ns;
    int64_t start_ns;
    pthread_t thread;
    tch_haptic_mailbox commands; /* producer -> loop */
    tch_haptic_mailbox states;   /* loop -> consumer */
    atomic_bool running;
    _Atomic uint64_t ticks, overruns, watchdog_trips;
    tch_status status; /* written by the loop, read after the join */
    tch_error error;
};

/* Seconds on the loop's clock (since start). */
static tch_real servo_clock(const tch_haptic_servo* servo) {
    return (tch_real)(tch_monotonic_ns() - servo->start_ns) * 1e-9;
}

/* One tick: read, publish the state, render the newest command through the safety stage. */
static tch_status tick(tch_haptic_servo* servo, tch_haptic_message* command) {
    tch_haptic_message state = {0};
    tch_status s = tch_haptic_read(servo->device, &state.state, &servo->error);
    if (s != TCH_OK) {
        return s;
    }
    tch_real now = servo_clock(servo);
    state.time = now;
    tch_haptic_mailbox_publish(&servo->states, &state);
    tch_haptic_mailbox_take(&servo->commands, command); /* else keep the last one */
    tch_haptic_command out;
    tch_haptic_safety_apply(&servo->safety, &command->command, now, command->time, &out);
    if (servo->safety.flags & TCH_HAPTIC_WATCHDOG) {
        atomic_fetch_add_explicit(&servo->watchdog_trips, 1, memory_order_relaxed);
    }
    return tch_haptic_write(servo->device, &out, &servo->error);
}

static void* servo_main(void* arg) {
    tch_haptic_servo* servo = arg;
    tch_haptic_message command = {0}; /* zero force, made at time 0 */
    int64_t deadline = servo->start_ns;
    while (atomic_load_explicit(&servo->running, memory_order_acquire)) {
        servo->status = tick(servo, &command);
        if (servo->status != TCH_OK) {
            break;
        }
        atomic_fetch_add_explicit(&servo->ticks, 1, memory_order_relaxed);
        deadline += servo->period_ns;
        int64_t now = tch_monotonic_ns();
        if (now > deadline) {
            atomic_fetch_add_explicit(&servo->overruns, 1, memory_order_relaxed);
            int64_t missed = (now - deadline) / servo->period_ns + 1;
            deadline += missed * servo->period_ns;
        }
        tch_monotonic_sleep_until(deadline);
    }
    return NULL;
}

tch_status tch_haptic_servo_start(tch_haptic_device* device,
                                  const tch_haptic_safety_params* safety, tch_real period,
                                  tch_haptic_servo** servo, tch_error* err) {
    *servo = NULL;
    if (!device || !(period >= 1e-6 && period <= 1)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "haptic servo: needs a device and a period in [1 us, 1 s], got %g s",
                        period);
    }
    tch_haptic_servo* s = calloc(1, sizeof *s);
    if (!s) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "haptic servo: out of memory");
    }
    tch_status status = tch_haptic_safety_init(&s->safety, tch_haptic_spec_of(device), safety, err);
    if (status != TCH_OK) {
        free(s);
        return status;
    }
    s->device = device;
    s->period_ns = (int64_t)(period * 1e9 + 0.5);
    tch_haptic_mailbox_init(&s->commands);
    tch_haptic_mailbox_init(&s->states);
    atomic_init(&s->running, true);
    atomic_init(&s->ticks, 0);
    atomic_init(&s->overruns, 0);
    atomic_init(&s->watchdog_trips, 0);
    s->start_ns = tch_monotonic_ns();
    if (pthread_create(&s->thread, NULL, servo_main, s) != 0) {
        free(s);
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0, "haptic servo: cannot start a thread");
    }
    *servo = s;
    return TCH_OK;
}

void tch_haptic_servo_submit(tch_haptic_servo* servo, const tch_haptic_command* command) {
    tch_haptic_message message = {.command = *command, .time = servo_clock(servo)};
    tch_haptic_mailbox_publish(&servo->commands, &message);
}

bool tch_haptic_servo_take_state(tch_haptic_servo* servo, tch_haptic_state* state) {
    tch_haptic_message message;
    if (!tch_haptic_mailbox_take(&servo->states, &message)) {
        return false;
    }
    *state = message.state;
    return true;
}

tch_haptic_servo_stats tch_haptic_servo_stats_of(const tch_haptic_servo* servo) {
    tch_haptic_servo* s = (tch_haptic_servo*)servo; /* atomic loads of a const object */
    return (tch_haptic_servo_stats){
        .ticks = atomic_load_explicit(&s->ticks, memory_order_relaxed),
        .overruns = atomic_load_explicit(&s->overruns, memory_order_relaxed),
        .watchdog_trips = atomic_load_explicit(&s->watchdog_trips, memory_order_relaxed)};
}

tch_status tch_haptic_servo_stop(tch_haptic_servo* servo, tch_haptic_servo_stats* stats,
                                 tch_error* err) {
    atomic_store_explicit(&servo->running, false, memory_order_release);
    pthread_join(servo->thread, NULL);
    if (stats) {
        *stats = tch_haptic_servo_stats_of(servo);
    }
    tch_status status = servo->status;
    if (status != TCH_OK && err) {
        *err = servo->error;
    }
    free(servo);
    return status;
}
