/// touche: haptic devices (first slice of issue 14; not wired into the engine or the CLI yet).
///
/// A device is a driver behind an ops table: open once (may allocate), then read a state and
/// write a command at every servo tick (never allocate), then close. Every command should pass
/// through the safety stage (tch_haptic_safety_apply) before it is written.
/// Facts, figures and papers: docs/haptics.md and shared/reference/haptics.md.
#pragma once

#include "touche/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What a device can render. Limits are per axis, continuous (not peak).
typedef struct tch_haptic_spec {
    tch_real workspace_radius; ///< m
    tch_real max_force;        ///< N, per axis
    tch_real max_torque;       ///< N m, per axis; 0 for a device without torque output
    tch_real max_stiffness;    ///< N/m the maker rates stable at a 1 kHz servo
    tch_real max_damping;      ///< N s/m at a 1 kHz servo
    tch_real position_quantum; ///< m, the encoder's resolution at the handle (0 = exact)
} tch_haptic_spec;

/// What a device reports at one tick, in the device's base frame.
typedef struct tch_haptic_state {
    tch_transform pose;  ///< handle pose X_BH
    tch_vec3 velocity;   ///< handle origin's linear velocity, m/s
    tch_vec3 angular;    ///< handle's angular velocity, rad/s
    uint32_t buttons;    ///< bit i set when button i is pressed
    tch_real time;       ///< device clock, s
} tch_haptic_state;

/// What is sent to a device at one tick: the wrench on the handle, in the base frame.
typedef struct tch_haptic_command {
    tch_vec3 force;  ///< N
    tch_vec3 torque; ///< N m
} tch_haptic_command;

/// A driver. `open` reads its driver-specific `config`, may allocate, and fills the spec;
/// `read` and `write` run in the servo tick and must not allocate, lock, print or do file I/O.
typedef struct tch_haptic_ops {
    const char* name;
    tch_status (*open)(const void* config, void** self, tch_haptic_spec* spec, tch_error* err);
    tch_status (*read)(void* self, tch_haptic_state* state, tch_error* err);
    tch_status (*write)(void* self, const tch_haptic_command* command, tch_error* err);
    void (*close)(void* self);
} tch_haptic_ops;

typedef struct tch_haptic_device tch_haptic_device;

/// Opens a device with `ops` and its driver-specific `config`.
TCH_API tch_status tch_haptic_open(const tch_haptic_ops* ops, const void* config,
                                   tch_haptic_device** device, tch_error* err);
TCH_API tch_status tch_haptic_read(tch_haptic_device* device, tch_haptic_state* state,
                                   tch_error* err);
TCH_API tch_status tch_haptic_write(tch_haptic_device* device, const tch_haptic_command* command,
                                    tch_error* err);
TCH_API const tch_haptic_spec* tch_haptic_spec_of(const tch_haptic_device* device);
/// Closes and frees; NULL is a no-op.
TCH_API void tch_haptic_close(tch_haptic_device* device);

/// Driver `scripted`: plays a pose trajectory from a CSV file with rows
/// `time,x,y,z,qw,qx,qy,qz` (times strictly increasing; blank lines and lines starting with
/// '#' are skipped). Each read returns the pose at k * period for the k-th read (linear
/// interpolation of the position, slerp of the orientation; the ends are held), with the
/// segment's velocities. Writes keep the last command and render nothing.
typedef struct tch_haptic_scripted_config {
    const char* path;
    tch_real period;      ///< s, servo period
    tch_haptic_spec spec; ///< what the scripted device claims to render
} tch_haptic_scripted_config;
TCH_API const tch_haptic_ops* tch_haptic_scripted_driver(void);

/// Driver `model`: a simulated device, one translational degree of freedom per axis,
///   m dv/dt = f_command + f_hand - b v - f_c sign(v),
/// the command held over each servo period (zero-order hold) and integrated in closed form.
/// A write applies the command for one period and advances the clock; a read returns the state
/// with the position quantized to spec.position_quantum (the velocity is the model's own).
/// Orientation stays the identity; torque is accepted and not rendered.
typedef struct tch_haptic_model_config {
    tch_real period;      ///< s, servo period T
    tch_real mass;        ///< kg, per axis
    tch_real damping;     ///< N s/m, the device's physical damping b
    tch_real friction;    ///< N, Coulomb friction f_c
    tch_haptic_spec spec; ///< spec.position_quantum is the quantum Δ applied to reads
} tch_haptic_model_config;
TCH_API const tch_haptic_ops* tch_haptic_model_driver(void);
/// Sets the user's hand force on a `model` device, held until changed.
TCH_API tch_status tch_haptic_model_set_hand_force(tch_haptic_device* device, tch_vec3 force,
                                                   tch_error* err);

/// The safety stage every command passes through (see docs/haptics.md for the order).
typedef struct tch_haptic_safety_params {
    tch_real max_force_rate;   ///< N/s, limit on |Δf| / Δt (the software impulse limit)
    tch_real max_torque_rate;  ///< N m/s, limit on |Δτ| / Δt
    tch_real ramp_time;        ///< s, the linear ramp from 0 to full output after engaging
    tch_real watchdog_timeout; ///< s, zero the output when the producer's update is older
} tch_haptic_safety_params;

/// Why the last output differs from its input (bits of tch_haptic_safety.flags).
enum {
    TCH_HAPTIC_SATURATED = 1u << 0,  ///< a force or torque component hit its limit
    TCH_HAPTIC_RATE_LIMITED = 1u << 1,
    TCH_HAPTIC_RAMPING = 1u << 2,
    TCH_HAPTIC_WATCHDOG = 1u << 3,   ///< the producer's update was too old: output zero
    TCH_HAPTIC_NONFINITE = 1u << 4,  ///< NaN or Inf in the input: output zero
};

/// The safety stage's state: plain data, initialized by tch_haptic_safety_init.
typedef struct tch_haptic_safety {
    tch_real max_force;      ///< N, per axis (from the spec)
    tch_real max_torque;     ///< N m, per axis (from the spec)
    tch_haptic_safety_params params;
    tch_haptic_command last; ///< the last output
    tch_real last_time;      ///< s, time of the last output (< 0 before the first)
    tch_real engaged_time;   ///< s, when the ramp started (< 0 while disengaged)
    uint32_t flags;          ///< TCH_HAPTIC_* bits of the last output
    uint64_t watchdog_trips; ///< outputs zeroed by the watchdog so far
} tch_haptic_safety;

TCH_API tch_status tch_haptic_safety_init(tch_haptic_safety* safety, const tch_haptic_spec* spec,
                                          const tch_haptic_safety_params* params,
                                          tch_error* err);
/// Makes the output `out` for the command `in` at device time `now`, given the time
/// `produced` at which the producer made `in`. Order: non-finite input or a stale producer
/// (now - produced > watchdog_timeout) give zero at once (and disengage: the ramp restarts);
/// else per-axis saturation of force and of torque, each on its own; the start ramp; the rate
/// limit on the change from the last output. Never allocates.
TCH_API void tch_haptic_safety_apply(tch_haptic_safety* safety, const tch_haptic_command* in,
                                     tch_real now, tch_real produced, tch_haptic_command* out);

/// The servo loop: a thread that, every `period` on CLOCK_MONOTONIC (absolute deadlines, no
/// drift), reads the device, publishes the state, takes the newest submitted command, passes
/// it through the safety stage (the command's age drives the watchdog) and writes it. A tick
/// that ends after its deadline counts as an overrun and the missed periods are skipped.
/// The producer (one thread) and the loop exchange values without locks or waiting.
typedef struct tch_haptic_servo tch_haptic_servo;

typedef struct tch_haptic_servo_stats {
    uint64_t ticks;          ///< ticks run
    uint64_t overruns;       ///< ticks that ended after their deadline
    uint64_t watchdog_trips; ///< ticks whose command was older than the watchdog timeout
} tch_haptic_servo_stats;

/// Starts the loop on `device`, which belongs to the loop until tch_haptic_servo_stop.
TCH_API tch_status tch_haptic_servo_start(tch_haptic_device* device,
                                          const tch_haptic_safety_params* safety,
                                          tch_real period, tch_haptic_servo** servo,
                                          tch_error* err);
/// Producer side: the command to render from now on, stamped with the loop's clock.
TCH_API void tch_haptic_servo_submit(tch_haptic_servo* servo, const tch_haptic_command* command);
/// Consumer side: true and the newest device state when one arrived since the last call.
TCH_API bool tch_haptic_servo_take_state(tch_haptic_servo* servo, tch_haptic_state* state);
/// Counters so far (any thread).
TCH_API tch_haptic_servo_stats tch_haptic_servo_stats_of(const tch_haptic_servo* servo);
/// Stops and joins the loop, fills `stats`, frees the servo (not the device). Returns the
/// device's error if a read or write failed (the loop stops at the first failure).
TCH_API tch_status tch_haptic_servo_stop(tch_haptic_servo* servo, tch_haptic_servo_stats* stats,
                                         tch_error* err);

#ifdef __cplusplus
}
#endif
