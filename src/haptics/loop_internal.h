/* The haptic loop's two sides, for the deterministic tick (loop.c) and the threaded runner
 * (loop_threads.c). The servo side owns the device, the safety stage and the passivity
 * controller; the physics side owns the model's data. */
#pragma once

#include "haptics/render.h"
#include "touche/haptics.h"

/* Servo side: reads the device (world frame; on failure the last pose held at rest); whether
 * the read succeeded. */
bool tch_haptic_loop_read_device(tch_haptic_loop* loop);
/* Servo side: the last state read. */
tch_haptic_state tch_haptic_loop_state(const tch_haptic_loop* loop);
/* Servo side: render from the snapshot, safety stage, passivity controller, write; the output
 * zeroed after a failed read or when the tick is `missed` (2 or more periods behind its
 * deadline: flag TCH_HAPTIC_WATCHDOG), the engage ramp restarted. */
tch_status tch_haptic_loop_finish_tick(tch_haptic_loop* loop, tch_real now,
                                       const tch_haptic_snapshot* snapshot, bool read_ok,
                                       bool missed, tch_haptic_tick* tick, tch_error* err);
/* Physics side: the device pose onto the mocap body, the coupling onto the tool, the proxy's
 * reactions not yet applied onto its bodies, a step, and the snapshot of the result made at
 * loop time `now`. */
tch_status tch_haptic_loop_physics_step(tch_haptic_loop* loop, const tch_haptic_state* device,
                                        const tch_haptic_reaction* reaction, tch_real now,
                                        tch_haptic_snapshot* out, tch_error* err);
/* Servo side: the proxy's reactions so far (zero for other renderers). */
const tch_haptic_reaction* tch_haptic_loop_reaction(const tch_haptic_loop* loop);
int64_t tch_haptic_loop_ticks_per_step(const tch_haptic_loop* loop);
tch_real tch_haptic_loop_period(const tch_haptic_loop* loop);
/* The real-time requests of the loop's config, and where a threaded run records what it got. */
tch_haptic_realtime* tch_haptic_loop_realtime_requests(tch_haptic_loop* loop, int* fifo_priority,
                                                       bool* lock_memory);
