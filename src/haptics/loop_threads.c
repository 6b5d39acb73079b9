/* tch_haptic_loop_run_threaded: the haptic loop's servo thread and the physics on the calling
 * thread, on the wall clock (touche/haptics.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "base/error.h"
#include "haptics/loop_internal.h"
#include "haptics/mailbox.h"
#include "haptics/monotonic.h"

typedef struct shared {
    tch_haptic_loop* loop;
    long count;
    tch_haptic_tick* ticks;
    tch_haptic_timing* timing;
    int64_t start_ns, period_ns;
    tch_haptic_mailbox states;    /* servo -> physics: the device state */
    tch_haptic_mailbox snapshots; /* physics -> servo */
    atomic_bool running;
    tch_status servo_status;      /* read after the join */
    tch_error servo_error;
} shared;

/* Seconds on the run's clock. */
static tch_real seconds_since(const shared* sh, int64_t t) {
    return (tch_real)(t - sh->start_ns) * 1e-9;
}

/* A deadline that has passed at `now` moves to the first one ahead (missed ticks skipped). */
static int64_t next_deadline(int64_t deadline, int64_t period, int64_t now) {
    deadline += period;
    return now > deadline ? deadline + ((now - deadline) / period + 1) * period : deadline;
}

static void* servo_main(void* arg) {
    shared* sh = arg;
    tch_haptic_loop* loop = sh->loop;
    tch_haptic_message snapshot = {0};
    tch_haptic_mailbox_take(&sh->snapshots, &snapshot); /* published before the start */
    int64_t deadline = sh->start_ns;
    for (long k = 0; k < sh->count && atomic_load_explicit(&sh->running, memory_order_acquire);
         ++k) {
        tch_monotonic_sleep_until(deadline);
        int64_t woke = tch_monotonic_ns();
        tch_real now = seconds_since(sh, woke);
        bool read_ok = tch_haptic_loop_read_device(loop);
        tch_haptic_message state = {.state = tch_haptic_loop_state(loop),
                                    .reaction = *tch_haptic_loop_reaction(loop),
                                    .time = now};
        tch_haptic_mailbox_publish(&sh->states, &state);
        tch_haptic_mailbox_take(&sh->snapshots, &snapshot); /* else keep the last one */
        tch_haptic_tick* tick = &sh->ticks[k];
        *tick = (tch_haptic_tick){.time = now, .state = state.state};
        /* the device has had no fresh command for 2 periods: the watchdog's zero */
        bool missed = tch_monotonic_ns() - deadline >= 2 * sh->period_ns;
        sh->servo_status = tch_haptic_loop_finish_tick(loop, now, &snapshot.snapshot, read_ok,
                                                       missed, tick, &sh->servo_error);
        int64_t done = tch_monotonic_ns();
        sh->timing[k] = (tch_haptic_timing){(tch_real)(woke - deadline) * 1e-9,
                                            (tch_real)(done - woke) * 1e-9};
        if (sh->servo_status != TCH_OK) {
            break;
        }
        deadline = next_deadline(deadline, sh->period_ns, done);
    }
    atomic_store_explicit(&sh->running, false, memory_order_release);
    return NULL;
}

/* The physics on the calling thread until the servo thread ends. */
static tch_status physics_main(shared* sh, tch_haptic_state device,
                               tch_haptic_reaction reaction, tch_error* err) {
    int64_t step_ns = sh->period_ns * tch_haptic_loop_ticks_per_step(sh->loop);
    int64_t deadline = sh->start_ns + step_ns;
    while (atomic_load_explicit(&sh->running, memory_order_acquire)) {
        tch_monotonic_sleep_until(deadline);
        tch_haptic_message message;
        if (tch_haptic_mailbox_take(&sh->states, &message)) {
            device = message.state;
            reaction = message.reaction;
        }
        tch_haptic_message out = {0};
        tch_status s = tch_haptic_loop_physics_step(sh->loop, &device, &reaction,
                                                    seconds_since(sh, tch_monotonic_ns()), &out.snapshot,
                                                    err);
        if (s != TCH_OK) {
            atomic_store_explicit(&sh->running, false, memory_order_release);
            return s;
        }
        tch_haptic_mailbox_publish(&sh->snapshots, &out);
        deadline = next_deadline(deadline, step_ns, tch_monotonic_ns());
    }
    return TCH_OK;
}

/* Why the system refused SCHED_FIFO (pthread_create's error). */
static const char* fifo_refusal(int error) {
    return error == EPERM    ? "not permitted (needs CAP_SYS_NICE or RLIMIT_RTPRIO)"
           : error == EINVAL ? "invalid (SCHED_FIFO priorities are 1 to 99)"
                             : "refused";
}

/* Why the system refused mlockall (its errno). */
static const char* lock_refusal(int error) {
    return error == EPERM ? "not permitted (needs CAP_IPC_LOCK or a nonzero RLIMIT_MEMLOCK)"
           : error == ENOMEM || error == EAGAIN ? "over RLIMIT_MEMLOCK (needs CAP_IPC_LOCK)"
                                                : "refused";
}

/* Appends a refused request's reason to got->reason. */
static void refused(tch_haptic_realtime* got, const char* what, const char* why) {
    size_t used = strlen(got->reason);
    snprintf(got->reason + used, sizeof got->reason - used, "%s%s: %s", used ? "; " : "", what,
             why);
}

/* Starts the servo thread, under SCHED_FIFO at `priority` when asked and permitted (else the
 * normal scheduler, the reason recorded). 0, or pthread_create's error. */
static int start_servo(pthread_t* servo, shared* sh, int priority, tch_haptic_realtime* got) {
    if (priority > 0) {
        pthread_attr_t attr;
        struct sched_param param = {.sched_priority = priority};
        int error = pthread_attr_init(&attr);
        if (!error) {
            error = pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
            error = error ? error : pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
            error = error ? error : pthread_attr_setschedparam(&attr, &param);
            error = error ? error : pthread_create(servo, &attr, servo_main, sh);
            pthread_attr_destroy(&attr);
        }
        if (!error) {
            got->fifo = true;
            return 0;
        }
        refused(got, "SCHED_FIFO", fifo_refusal(error));
    }
    return pthread_create(servo, NULL, servo_main, sh);
}

tch_status tch_haptic_loop_run_threaded(tch_haptic_loop* loop, long count, tch_haptic_tick* ticks,
                                        tch_haptic_timing* timing, tch_error* err) {
    static shared zero;
    shared sh = zero;
    sh.loop = loop;
    sh.count = count;
    sh.ticks = ticks;
    sh.timing = timing;
    sh.period_ns = (int64_t)(tch_haptic_loop_period(loop) * 1e9 + 0.5);
    tch_haptic_mailbox_init(&sh.states);
    tch_haptic_mailbox_init(&sh.snapshots);
    atomic_init(&sh.running, true);
    for (long k = 0; k < count; ++k) {
        ticks[k] = (tch_haptic_tick){0};
        timing[k] = (tch_haptic_timing){0};
    }
    tch_haptic_state device = tch_haptic_loop_state(loop);
    sh.start_ns = tch_monotonic_ns();
    tch_haptic_message first = {0};
    tch_haptic_reaction reaction = *tch_haptic_loop_reaction(loop);
    tch_status s = tch_haptic_loop_physics_step(loop, &device, &reaction, 0, &first.snapshot, err);
    if (s != TCH_OK) {
        return s;
    }
    tch_haptic_mailbox_publish(&sh.snapshots, &first);
    int priority;
    bool lock;
    tch_haptic_realtime* got = tch_haptic_loop_realtime_requests(loop, &priority, &lock);
    *got = (tch_haptic_realtime){0};
    if (lock) {
        got->memory_locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
        if (!got->memory_locked) {
            refused(got, "mlockall", lock_refusal(errno));
        }
    }
    pthread_t servo;
    if (start_servo(&servo, &sh, priority, got) != 0) {
        if (got->memory_locked) {
            munlockall();
        }
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0, "haptic loop: cannot start a thread");
    }
    s = physics_main(&sh, device, reaction, err);
    pthread_join(servo, NULL);
    if (got->memory_locked) {
        munlockall();
    }
    if (s == TCH_OK && sh.servo_status != TCH_OK) {
        s = sh.servo_status;
        if (err) {
            *err = sh.servo_error;
        }
    }
    return s;
}
