/// touche: haptic devices, the renderers that couple them to a scene, and the haptic loop
/// (issue 14; docs/haptics.md).
///
/// A device is a driver behind an ops table: open once (may allocate), then read a state and
/// write a command at every servo tick (never allocate), then close. Every command should pass
/// through the safety stage (tch_haptic_safety_apply) before it is written.
/// Facts, figures and papers: docs/haptics.md and shared/reference/haptics.md.
#pragma once

#include "touche/base.h"
#include "touche/data.h"

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
/// '#' are skipped), or with a first line naming the columns, `time,x,y,z` (the orientation
/// then the identity) or `time,x,y,z,qw,qx,qy,qz` in any order (seconds, metres, the pose in
/// the world frame). Each read returns the pose at k * period for the k-th read (linear
/// interpolation of the position, slerp of the orientation; the ends are held), with the
/// segment's velocities. Writes keep the last command and render nothing.
typedef struct tch_haptic_scripted_config {
    const char* path;
    tch_real period;      ///< s, servo period
    tch_haptic_spec spec; ///< what the scripted device claims to render
} tch_haptic_scripted_config;
TCH_API const tch_haptic_ops* tch_haptic_scripted_driver(void);
/// Driver `playback`: the scripted driver on a recorded log (the force log of `touche haptic`,
/// or any CSV whose header names time,x,y,z and, optionally, qw,qx,qy,qz): other columns are
/// skipped. Same config as `scripted`.
TCH_API const tch_haptic_ops* tch_haptic_playback_driver(void);

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

/// Driver `udp`: a device bridged over UDP by a small program against any vendor SDK. It binds
/// `port` (0: any free one) on the loopback interface, or on every interface with any_address.
/// The bridge sends state datagrams of 136 bytes, little-endian: u32 magic 0x44484354 ("TCHD"
/// in byte order), u32 version 1, u64 sequence (increasing), f64 time (s), f64 position x y z
/// (m), f64 quaternion w x y z, f64 velocity x y z (m/s), f64 angular velocity x y z (rad/s),
/// u32 buttons, u32 zero; world frame. A read takes every waiting datagram and returns the state
/// of the highest sequence; it fails (TCH_ERR_IO: the loop zeroes the force and holds the pose)
/// when no new state has been taken for `timeout` (measured from the read that took it). Other datagrams are dropped. A write sends a command
/// datagram of 64 bytes to the sender of the last state: u32 magic 0x43484354 ("TCHC"), u32
/// version 1, u64 the sequence of the state it answers, f64 force x y z (N), f64 torque x y z
/// (N m). Reads and writes never block or allocate (docs/haptics.md).
typedef struct tch_haptic_udp_config {
    int port;
    bool any_address;     ///< bind every interface (default: loopback only)
    tch_real timeout;     ///< s, the longest a state may be old
    tch_haptic_spec spec; ///< what the bridged device renders
} tch_haptic_udp_config;
TCH_API const tch_haptic_ops* tch_haptic_udp_driver(void);
/// The port a `udp` device is bound to (-1 for another driver).
TCH_API int tch_haptic_udp_port(tch_haptic_device* device);

/// Driver `spacemouse`: a 3Dconnexion SpaceMouse (or any 6-DOF input spacenavd serves) through
/// libspnav, as a 6-DOF input that renders no force. Needs touche built with libspnav (Debian
/// libspnav-dev; CMake option TCH_SPACEMOUSE) and the spacenavd daemon running: `open` fails at
/// once, with the reason, when either is missing (TCH_ERR_UNSUPPORTED, TCH_ERR_IO). Each read
/// takes the waiting events without blocking and advances the pose by
/// tch_haptic_spacemouse_advance. libspnav keeps one connection per process: open one
/// spacemouse at a time.
typedef struct tch_haptic_spacemouse_config {
    tch_real period;            ///< s, servo period T
    bool position_mode;         ///< the cap's deflection is the offset from `home`; else a rate
    tch_real translation_scale; ///< m/s per count (rate mode) or m per count (position mode)
    tch_real rotation_scale;    ///< rad/s per count (rate mode) or rad per count
    int deadzone;               ///< counts: an axis at or under it reads 0
    tch_transform home;         ///< the pose at open, world frame (position mode's origin)
    tch_haptic_spec spec;       ///< spec.workspace_radius (> 0) bounds the offset from home
} tch_haptic_spacemouse_config;
TCH_API const tch_haptic_ops* tch_haptic_spacemouse_driver(void);

/// The cap's deflection as spacenavd reports it: counts (about +-350 at full deflection) in its
/// frame, x right, y up, z away from the user, rotations about those axes (libspnav's
/// convention: OpenGL's right-handed frame is (x, y, -z), rotations (rx, ry, -rz)).
typedef struct tch_haptic_spacemouse_input {
    int translation[3]; ///< x, y, z
    int rotation[3];    ///< rx, ry, rz
    uint32_t buttons;   ///< bit i: button i pressed
} tch_haptic_spacemouse_input;

/// The event-to-pose mapping, a pure function: the state one period after `last` for the
/// deflection `input`. The world is z up with y away from the user, so a count maps to world
/// axes as (x, z, y) for both translation and rotation (a proper rotation of OpenGL's frame).
/// Axes at or under the deadzone read 0. Rate mode: v = s_t d, w = s_r r, p += v T, q = exp(w T)
/// q (world frame). Position mode: p = home.p + s_t d, q = exp(s_r r) home.q, the velocities
/// the differences over T. The offset from home is clamped to spec.workspace_radius.
TCH_API tch_haptic_state tch_haptic_spacemouse_advance(const tch_haptic_spacemouse_config* config,
                                                       const tch_haptic_state* last,
                                                       const tch_haptic_spacemouse_input* input);

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
    TCH_HAPTIC_READ_FAILED = 1u << 5, ///< the device read failed: last state held, output zero
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

/// ---- Passivity at the device port (Hannaford and Ryu 2002) ----
///
/// The energy the scene absorbed from the user through the port, E = -sum F . dx (F the force
/// on the handle, held over each tick; dx the handle's motion over the tick), must stay >= 0
/// for the port to be passive. The observer keeps E exactly from the measured motion of past
/// ticks and predicts the coming tick's share as -F . v T; when that prediction is negative the
/// controller adds the damping alpha = -E / (|v|^2 T) along v (eq. 12 of the paper), which
/// brings the predicted E to zero; with max_damping > 0 (e.g. the device's rated damping) alpha
/// is capped there, since an uncapped alpha at a slow, quantized motion kicks the handle, and
/// the deficit left is carried to the next ticks. With the controller off the observer only
/// records.
typedef struct tch_haptic_ledger {
    tch_real energy_in;          ///< J, put into the scene by the user (sum of the positive dE)
    tch_real energy_out;         ///< J, returned to the user (sum of the negative dE, as > 0)
    tch_real energy_dissipated;  ///< J, taken out by the passivity controller
    tch_real resync_jumps;       ///< J, sum of |jumps| of the renderer's local energy at
                                 ///< physics updates (the coupling spring's, for a coupling)
} tch_haptic_ledger;

typedef struct tch_haptic_passivity {
    bool control;              ///< the controller acts (else the observer only records)
    tch_real max_damping;      ///< N s/m, cap on the controller's damping (0: none); a deficit
                               ///< the cap leaves is carried to the next ticks
    tch_real observed;         ///< J, E of the ticks so far (exact, from the measured motion)
    tch_haptic_ledger ledger;
    tch_vec3 last_position;    ///< the handle position of the last tick
    tch_vec3 last_force;       ///< the force output at the last tick
    bool started;
} tch_haptic_passivity;

/// At a tick with the handle state `state`: accounts the last tick's energy from the motion
/// since it, then (controller on) changes `force` so that the predicted E stays >= 0, clamps
/// each axis to max_force (> 0; the device's limit) and records the output. Torques are not
/// observed (docs/haptics.md). Never allocates.
TCH_API void tch_haptic_passivity_apply(tch_haptic_passivity* passivity,
                                        const tch_haptic_state* state, tch_real period,
                                        tch_real max_force, tch_vec3* force);

/// ---- Renderers: a scene's haptic body and the wrench it sends to the device ----

/// The resolved gains of a virtual coupling (a linear and a rotational spring-damper between
/// the device pose and the tool body).
typedef struct tch_haptic_coupling_gains {
    tch_real linear_stiffness, linear_damping;   ///< N/m, N s/m
    tch_real angular_stiffness, angular_damping; ///< N m/rad, N m s/rad
} tch_haptic_coupling_gains;

/// The gains of haptic body `body`: those the scene gives; unset stiffness is the device's
/// rated max_stiffness (500 N/m when the spec gives none); unset damping is critical for the
/// tool's mass, 2 sqrt(k m); unset angular stiffness is k I / m (the linear spring's natural
/// frequency for the tool's mean principal moment I), its unset damping 2 sqrt(k_r I).
TCH_API tch_haptic_coupling_gains tch_haptic_coupling_gains_of(const tch_model* model, int body,
                                                               const tch_haptic_spec* spec);

/// The force and torque (about its centre of mass) that the coupling applies to free body
/// `tool` over the next physics step of length h when the device is at `device` (the pose
/// X_WD, the velocity of its origin and its angular velocity, world frame): the spring pulls
/// the tool's frame onto the device's. Integrated implicitly: the backward-Euler solution of the
/// tool's mass on the spring-damper and gravity, f = -(k e + c (v - v_d + h g)) / (1 + h c / m)
/// with c = b + h k (e the error of the centre of mass, v_d the velocity of its target), and
/// of its world inertia on the rotational one, (1 + h c_r I^-1) tau = -(k_r theta + c_r (w -
/// w_d)), so that no stiffness or damping is unstable at any h. Reads the tool's state from
/// `data` (kinematics current). The haptic loop uses it only when the engine cannot integrate
/// the coupling with the tool's contacts (an integrator other than the linearly implicit one,
/// or a tool that is an articulated link; else tch_data.applied_spring, docs/haptics.md).
TCH_API void tch_haptic_coupling_wrench(const tch_model* model, const tch_data* data, int tool,
                                        const tch_haptic_state* device,
                                        const tch_haptic_coupling_gains* gains, tch_real h,
                                        tch_vec3* force_W, tch_vec3* torque_W);

/// ---- The virtual proxy (god-object) ----
///
/// A point (radius 0) or a sphere that stands for the handle in the scene and never passes
/// through a surface (Zilles and Salisbury 1995; Ruspini, Kolarov and Khatib 1997; seed 003
/// sec. 2). Each tick it moves from where it is toward the device point, as far as the swept
/// test lets it, taking each surface it meets as a constraint plane, until it reaches the
/// point nearest the device that satisfies every plane met (up to 3 active at once). The
/// device is pulled toward it by f = k (proxy - device) + b (v_proxy - v_device) (damping only
/// in contact). Friction: the proxy sticks while the device's lateral offset is within mu
/// times its depth (the friction cone), and slides keeping that lag. Force shading: the
/// proxy first moves in the plane of the normal interpolated from the vertex normals (meshes).
/// The scene: triangle meshes, boxes, spheres, capsules, cylinders, ellipsoids and planes, static or on
/// moving bodies. A body's surfaces move with the pose set for it before each update: a body
/// the proxy rests on carries it (friction acts relative to the surface), a body moving into
/// it pushes it; the force on the handle goes, reversed, to the bodies it rests on.
typedef struct tch_haptic_proxy tch_haptic_proxy;

typedef struct tch_haptic_proxy_params {
    tch_real radius;    ///< m, 0 for a point
    tch_real stiffness; ///< N/m, k
    tch_real damping;   ///< N s/m, b (in contact)
    tch_real period;    ///< s, servo period (the proxy's velocity for the damping)
    bool force_shading; ///< interpolated vertex normals on meshes
} tch_haptic_proxy_params;

/// A triangle mesh for the proxy: vertices in the world frame, triangles counter-clockwise seen
/// from outside (a closed mesh), Coulomb mu against the proxy.
typedef struct tch_haptic_proxy_mesh {
    const tch_vec3* vertices;
    int vertex_count;
    const int (*triangles)[3];
    int triangle_count;
    tch_real friction;
} tch_haptic_proxy_mesh;

/// A proxy against `mesh_count` meshes only (copied; may allocate).
TCH_API tch_status tch_haptic_proxy_create(const tch_haptic_proxy_mesh* meshes, int mesh_count,
                                           const tch_haptic_proxy_params* params,
                                           tch_haptic_proxy** proxy, tch_error* err);
/// A proxy against the geoms of `model` posed by `data`: the static ones (of no free and no
/// mocap body), and those of each free body that is not in an articulation, as a moving body
/// of the proxy in the body's frame (geoms of articulated links are not seen). Boxes, spheres,
/// capsules, cylinders, ellipsoids, planes (static) and meshes (their convex hulls). Fails with
/// TCH_ERR_UNSUPPORTED on a plane of a moving body.
TCH_API tch_status tch_haptic_proxy_create_from_model(const tch_model* model,
                                                      const tch_data* data,
                                                      const tch_haptic_proxy_params* params,
                                                      tch_haptic_proxy** proxy, tch_error* err);
/// Puts the proxy at `position` (free space assumed) with no contact.
TCH_API void tch_haptic_proxy_reset(tch_haptic_proxy* proxy, tch_vec3 position);
/// One tick: moves the proxy for the device point `device` (velocity `velocity`) and returns
/// the force on the handle. Never allocates.
TCH_API tch_vec3 tch_haptic_proxy_update(tch_haptic_proxy* proxy, tch_vec3 device,
                                         tch_vec3 velocity);
TCH_API tch_vec3 tch_haptic_proxy_position(const tch_haptic_proxy* proxy);
/// The constraint planes active after the last update (at most 3), their outward normals in
/// normals[0..count).
TCH_API int tch_haptic_proxy_contacts(const tch_haptic_proxy* proxy, tch_vec3 normals[3]);
/// The proxy's moving bodies: their count, and the model body of the i-th.
TCH_API int tch_haptic_proxy_body_count(const tch_haptic_proxy* proxy);
TCH_API int tch_haptic_proxy_body(const tch_haptic_proxy* proxy, int i);
/// The pose X_WB of moving body i for the next update (its surfaces move with it; the proxy is
/// carried or pushed by its motion since the last update).
TCH_API void tch_haptic_proxy_set_body_pose(tch_haptic_proxy* proxy, int i, tch_transform X_WB);
/// Moving body i's share (0 to 1) of the last update's force on the handle: the body takes
/// minus that share of the force the handle gets, at *point_W (its contact point with the
/// proxy). The shares of the contacts follow their normal loads.
TCH_API tch_real tch_haptic_proxy_body_reaction(const tch_haptic_proxy* proxy, int i,
                                                tch_vec3* point_W);
TCH_API void tch_haptic_proxy_destroy(tch_haptic_proxy* proxy);

/// ---- The haptic loop ----
///
/// A multi-rate loop over a scene with one haptic body (a mocap body with touche:haptic): every
/// servo tick reads the device, renders a wrench, passes it through the safety stage and the
/// passivity controller and writes it; every physics step (the scene's time step, a whole
/// number of ticks) the device pose and velocity become the mocap body's, and the scene steps.
/// Renderers: `proxy` (the virtual proxy above against the scene's static geoms and its free
/// bodies, posed at each tick from the last physics step at their velocities, the force
/// written to the handle going back, reversed, to the bodies it rests on at the next step; radius
/// touche:proxy_radius (0: a point), stiffness touche:linear_stiffness (default the device's
/// max_stiffness, else 500 N/m), damping touche:linear_damping (default 0); the proxy starts at
/// the haptic body's initial position, which must be in free space), `coupling` (the device force is minus the coupling force on the tool, recomputed
/// each tick from the tool's last physics state; with the linearly implicit integrator the
/// engine integrates the coupling with the tool's contacts through tch_data.applied_spring, set
/// by the loop before each step and cleared by tch_haptic_loop_destroy) and `pointer` (the device wrench is the
/// contact wrench on the mocap body at each physics step, and between steps that of a local
/// linear model of its contacts and the free bodies it touches, docs/haptics.md).
/// tch_haptic_loop_tick runs on the caller's thread with a simulated clock: the same scene,
/// device and settings give bit-identical ticks.
typedef struct tch_haptic_loop tch_haptic_loop;

typedef struct tch_haptic_loop_config {
    int body;                          ///< the haptic body, or -1: the first with a renderer
    tch_real period;                   ///< s, servo period T (the scene's step a multiple of it)
    bool passivity_control;            ///< the passivity controller acts
    tch_real passivity_max_damping;    ///< N s/m, cap on its damping (0: none, and E >= 0
                                       ///< holds whenever the velocity prediction does)
    bool base_at_body;                 ///< the device's base origin sits at the haptic body's
                                       ///< initial position (a device reporting poses about
                                       ///< its own base, like `model`); else at the world's
    tch_haptic_safety_params safety;
    int fifo_priority;                 ///< tch_haptic_loop_run_threaded: the servo thread under
                                       ///< SCHED_FIFO at this priority (1 to 99; 0: the normal
                                       ///< scheduler); refused by the system: normal, reported
    bool lock_memory;                  ///< tch_haptic_loop_run_threaded: mlockall(MCL_CURRENT |
                                       ///< MCL_FUTURE) for the run (munlockall after); refused:
                                       ///< reported
} tch_haptic_loop_config;

/// What the last tch_haptic_loop_run_threaded got of the real-time requests of its config.
typedef struct tch_haptic_realtime {
    bool fifo;           ///< the servo thread ran under SCHED_FIFO
    bool memory_locked;  ///< the process's memory was locked
    char reason[200];    ///< why a request was refused ("" when none was)
} tch_haptic_realtime;

/// What one tick did.
typedef struct tch_haptic_tick {
    tch_real time;              ///< s, simulated
    tch_haptic_state state;     ///< the device state read, in the world frame
    tch_haptic_command command; ///< the wrench written, base (world) frame
    uint32_t safety_flags;      ///< TCH_HAPTIC_* of the safety stage
    tch_real energy_observed;   ///< J, the passivity observer's E after this tick
    bool stepped;               ///< the scene stepped at this tick (simulated clock)
} tch_haptic_tick;

/// Safety parameters that suit a device spec: force rate 1000 max_force per s, ramp 0.1 s,
/// watchdog 0.1 s.
TCH_API tch_haptic_safety_params tch_haptic_safety_defaults(const tch_haptic_spec* spec);
/// A loop over `model`, `data` (both borrowed; data should be at its initial state) and
/// `device` (borrowed). Fails on a scene without a haptic body, a proxy against a geom it
/// cannot render (a plane on a moving body) or more than 16 free bodies, a scene step that is
/// not a whole number of periods, or the lcp model on the haptic body.
TCH_API tch_status tch_haptic_loop_create(const tch_model* model, tch_data* data,
                                          tch_haptic_device* device,
                                          const tch_haptic_loop_config* config,
                                          tch_haptic_loop** loop, tch_error* err);
/// One servo tick (and a physics step when one is due). Allocation-free after the scene's
/// warm-up; returns the device's or the step's error.
TCH_API tch_status tch_haptic_loop_tick(tch_haptic_loop* loop, tch_haptic_tick* tick,
                                        tch_error* err);
/// When a tick ran on the wall clock (tch_haptic_loop_run_threaded), s.
typedef struct tch_haptic_timing {
    tch_real late; ///< how late the servo thread woke after the tick's deadline
    tch_real busy; ///< how long the tick took
} tch_haptic_timing;

/// Runs `count` servo ticks on two threads, on CLOCK_MONOTONIC: a servo thread wakes at
/// absolute deadlines every period (clock_nanosleep with TIMER_ABSTIME; a tick that ends past
/// the next deadline skips the missed ones) and reads, renders from the newest physics
/// snapshot, applies the safety stage (the snapshot's age drives the watchdog, so a stalled
/// physics thread zeroes the force), the passivity controller, and writes; the calling thread
/// steps the physics every scene step, at its own absolute deadlines, from the newest device
/// state. The two exchange the device state and the snapshot through lock-free latest-value
/// mailboxes; the servo thread allocates, locks and prints nothing. Fills ticks[0..count) and
/// timing[0..count) (the caller's). Ticks' times are the wall clock's since the start, so the
/// run is not deterministic. Returns the first device or step error.
TCH_API tch_status tch_haptic_loop_run_threaded(tch_haptic_loop* loop, long count,
                                                tch_haptic_tick* ticks,
                                                tch_haptic_timing* timing, tch_error* err);
/// What the last threaded run got of the real-time requests (all false before any).
TCH_API tch_haptic_realtime tch_haptic_loop_realtime(const tch_haptic_loop* loop);
/// The passivity observer's energy ledger so far.
TCH_API const tch_haptic_passivity* tch_haptic_loop_passivity(const tch_haptic_loop* loop);
/// The coupling's gains (zero for a pointer).
TCH_API tch_haptic_coupling_gains tch_haptic_loop_gains(const tch_haptic_loop* loop);
/// The haptic body, and the tool body of a coupling (-1 for a pointer).
TCH_API int tch_haptic_loop_body(const tch_haptic_loop* loop);
TCH_API int tch_haptic_loop_tool(const tch_haptic_loop* loop);
TCH_API void tch_haptic_loop_destroy(tch_haptic_loop* loop);

#ifdef __cplusplus
}
#endif
