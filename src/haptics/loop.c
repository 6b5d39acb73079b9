/* The haptic loop of touche/haptics.h: its servo side (read, render from the physics snapshot,
 * safety, passivity, write) and its physics side (mocap pose, coupling, step, snapshot), and
 * the deterministic multi-rate tick that runs both on a simulated clock (loop_threads.c runs
 * them on two threads). */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "dynamics/articulation.h"
#include "haptics/loop_internal.h"
#include "math/vec.h"
#include "touche/haptics.h"
#include "touche/step.h"

struct tch_haptic_loop {
    const tch_model* model;
    tch_data* data;
    tch_haptic_device* device;
    int body, tool, mocap;
    tch_haptic_renderer renderer;
    tch_haptic_coupling_gains gains;
    bool coupling_in_engine;       /* the engine's implicit system integrates the coupling */
    tch_haptic_proxy* proxy;       /* servo side: the proxy renderer's state */
    tch_real period;
    tch_vec3 base;                 /* m, the device base's origin in the world */
    int64_t ticks_per_step;
    int64_t tick_count;            /* deterministic mode */
    tch_haptic_snapshot snapshot;  /* deterministic mode: the last step's */
    tch_real physics_jumps;        /* physics side: the resync jumps so far, J */
    long physics_steps;            /* physics side: steps taken */
    tch_haptic_local_model local;  /* physics side: the pointer's model of the last step */
    tch_haptic_reaction applied;   /* physics side: the proxy's reactions applied so far */
    /* servo side */
    tch_haptic_safety safety;
    tch_haptic_passivity passivity;
    tch_haptic_state state;        /* the last good read, world frame */
    tch_haptic_local_state local_state; /* the pointer's local model as integrated */
    tch_haptic_reaction reaction;  /* the proxy's reactions on its bodies so far */
    int fifo_priority;             /* threaded runs: the requests, */
    bool lock_memory;
    tch_haptic_realtime realtime;  /* and what the last one got */
};

tch_haptic_safety_params tch_haptic_safety_defaults(const tch_haptic_spec* spec) {
    tch_real force = spec->max_force > 0 ? spec->max_force : 1;
    tch_real torque = spec->max_torque > 0 ? spec->max_torque : 1;
    return (tch_haptic_safety_params){.max_force_rate = 1000 * force,
                                      .max_torque_rate = 1000 * torque,
                                      .ramp_time = 0.1,
                                      .watchdog_timeout = 0.1};
}

static int first_haptic_body(const tch_model* m) {
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_haptic[b].renderer != TCH_HAPTIC_NONE) {
            return b;
        }
    }
    return -1;
}

/* A geom of the haptic body's subtree whose contact model (its own, else the scene's) is not
 * one of the patch models, or -1. A pointer needs volume or pressure: the point model derives
 * its stiffness from the masses, and a mocap body against the static scene has none; the lcp
 * model takes mocap bodies at rest. */
static int geom_without_patch_model(const tch_model* m, int body) {
    for (int g = 0; g < m->geom_count; ++g) {
        tch_contact_model model = m->geom_contact[g].model;
        if (model == TCH_CONTACT_INHERIT) {
            model = m->contact_default.model;
        }
        if (m->body_root[m->geom_body[g]] == body && model != TCH_CONTACT_VOLUME &&
            model != TCH_CONTACT_PRESSURE) {
            return g;
        }
    }
    return -1;
}

static tch_status check_scene(const tch_model* m, int body, tch_real period, tch_error* err) {
    if (body < 1 || body >= m->body_count || m->body_haptic[body].renderer == TCH_HAPTIC_NONE) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "haptic loop: the scene has no haptic body (a body with mocap=\"true\" "
                        "and touche:haptic=\"proxy\", \"coupling\" or \"pointer\")");
    }
    int g = geom_without_patch_model(m, body);
    if (m->body_haptic[body].renderer == TCH_HAPTIC_POINTER && g >= 0) {
        return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                        "haptic loop: geom '%s' of the haptic body '%s' needs the volume or "
                        "pressure contact model (touche:contact); a pointer with point or lcp "
                        "contacts is not supported yet",
                        m->geom_name[g], m->body_name[body]);
    }
    tch_real ratio = m->timestep / period;
    if (!(period > 0) || !(fabs(ratio - round(ratio)) < 1e-9 * ratio) || ratio < 0.5) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "haptic loop: the scene's time step %g s must be a whole number of servo "
                        "periods (%g s)",
                        m->timestep, period);
    }
    return TCH_OK;
}

/* What the haptic side needs of the physics as it stands after a step begun at loop time
 * `now`: the bodies' state is that of now + h (the physics leads the ticks by a step, on the
 * simulated clock and on the wall clock alike, whatever the data's own time). */
static void take_snapshot(tch_haptic_loop* loop, tch_real now, tch_haptic_snapshot* out) {
    const tch_data* d = loop->data;
    *out = (tch_haptic_snapshot){.time = now,
                                 .resync_jumps = loop->physics_jumps,
                                 .body_time = now + loop->model->timestep};
    if (loop->renderer == TCH_HAPTIC_COUPLING) {
        tch_haptic_snapshot_tool(d, loop->tool, out);
    }
    for (int i = 0; loop->proxy && i < tch_haptic_proxy_body_count(loop->proxy); ++i) {
        int b = tch_haptic_proxy_body(loop->proxy, i);
        out->bodies[i] = (tch_haptic_body_motion){d->body_X_WB[b], d->body_p_WCm[b],
                                                  d->body_v_WCm[b], d->body_w_W[b]};
    }
}

/* Physics side: the proxy's reactions since the last step, as the force and torque (about the
 * centre of mass at the step's start) held over the coming step h: the body gets the impulse
 * the handle felt, reversed. */
static void apply_reactions(tch_haptic_loop* loop, const tch_haptic_reaction* reaction) {
    tch_data* d = loop->data;
    tch_real h = loop->model->timestep;
    for (int i = 0; loop->proxy && i < tch_haptic_proxy_body_count(loop->proxy); ++i) {
        int b = tch_haptic_proxy_body(loop->proxy, i);
        tch_vec3 impulse = tch_v3_sub(reaction->impulse[i], loop->applied.impulse[i]);
        tch_vec3 moment = tch_v3_sub(reaction->moment[i], loop->applied.moment[i]);
        moment = tch_v3_sub(moment, tch_v3_cross(d->body_p_WCm[b], impulse));
        d->body_force_applied_W[b] = tch_v3_scale(impulse, 1 / h);
        d->body_torque_applied_W[b] = tch_v3_scale(moment, 1 / h);
    }
    loop->applied = *reaction;
}

/* A body's pose `dt` after its state `motion`, moving at its velocities (rotation about the
 * centre of mass). */
static tch_transform extrapolated(const tch_haptic_body_motion* motion, tch_real dt) {
    tch_quat turn = tch_q_from_rotvec(tch_v3_scale(motion->w_W, dt));
    tch_vec3 arm = tch_q_rotate(turn, tch_v3_sub(motion->X_WB.p, motion->p_WCm));
    tch_vec3 centre = tch_v3_madd(motion->p_WCm, dt, motion->v_WCm);
    return (tch_transform){tch_q_normalize(tch_q_mul(turn, motion->X_WB.q)),
                           tch_v3_add(centre, arm)};
}

/* Servo side: the proxy's moving bodies posed at loop time `now` from the snapshot, and one
 * update. */
static tch_vec3 render_proxy(tch_haptic_loop* loop, const tch_haptic_snapshot* s, tch_real now) {
    tch_haptic_proxy* proxy = loop->proxy;
    for (int i = 0; i < tch_haptic_proxy_body_count(proxy); ++i) {
        tch_haptic_proxy_set_body_pose(proxy, i, extrapolated(&s->bodies[i], now - s->body_time));
    }
    return tch_haptic_proxy_update(proxy, loop->state.pose.p, loop->state.velocity);
}

/* Servo side: the bodies the proxy rests on take the force written to the handle, reversed,
 * over the tick (Newton's third law between the hand and the scene, the safety stage's and the
 * passivity controller's changes included). */
static void add_reactions(tch_haptic_loop* loop, tch_vec3 written) {
    for (int i = 0; loop->proxy && i < tch_haptic_proxy_body_count(loop->proxy); ++i) {
        tch_vec3 point;
        tch_real share = tch_haptic_proxy_body_reaction(loop->proxy, i, &point);
        tch_vec3 impulse = tch_v3_scale(written, -share * loop->period);
        loop->reaction.impulse[i] = tch_v3_add(loop->reaction.impulse[i], impulse);
        loop->reaction.moment[i] =
            tch_v3_add(loop->reaction.moment[i], tch_v3_cross(point, impulse));
    }
}

/* Whether the engine integrates the coupling with the tool's contacts (tch_data.applied_spring):
 * the linearly implicit integrator, and a tool that is a free body of its own. */
static bool engine_takes_coupling(const tch_model* m, int tool) {
    return m->integrator == TCH_INTEGRATOR_IMPLICIT &&
           (!m->articulation || m->articulation->body_lone[tool]);
}

/* The coupling's wrench on the tool for the coming step of length h. In the engine: the
 * spring-damper's wrench at the step's start, stretched to where the device goes over the step,
 * with its stiffness and damping in the engine's system, so that the step is backward Euler of
 * the coupling and the contacts together (the felt stiffness is the nominal one against stiff
 * contact). Otherwise: the tool's own backward Euler on the coupling, the contacts left out. */
static void apply_coupling(tch_haptic_loop* loop, const tch_haptic_snapshot* tool,
                           const tch_haptic_state* device) {
    const tch_model* m = loop->model;
    tch_data* d = loop->data;
    tch_vec3* force = &d->body_force_applied_W[loop->tool];
    tch_vec3* torque = &d->body_torque_applied_W[loop->tool];
    if (loop->coupling_in_engine) {
        tch_haptic_coupling_spring_of(m, loop->tool, tool, device, &loop->gains, m->timestep,
                                      force, torque);
        d->applied_spring = tch_haptic_coupling_applied_spring(loop->tool, &loop->gains);
    } else {
        tch_haptic_coupling_wrench_of(m, loop->tool, tool, device, &loop->gains, m->timestep,
                                      force, torque);
    }
}

/* Physics side: the device pose becomes the mocap body's, the coupling's wrench goes on the
 * tool, one step, and the snapshot of the result. The coupling springs' energy change across
 * the step at the same device pose is the resync jump (the tool moved while the haptic side
 * held it). */
tch_status tch_haptic_loop_physics_step(tch_haptic_loop* loop, const tch_haptic_state* device,
                                        const tch_haptic_reaction* reaction, tch_real now,
                                        tch_haptic_snapshot* out, tch_error* err) {
    const tch_model* m = loop->model;
    tch_data* d = loop->data;
    d->mocap_X_WB[loop->mocap] = device->pose;
    d->mocap_v_W[loop->mocap] = device->velocity;
    d->mocap_w_W[loop->mocap] = device->angular;
    tch_haptic_snapshot before;
    take_snapshot(loop, now, &before);
    if (loop->renderer == TCH_HAPTIC_COUPLING) {
        apply_coupling(loop, &before, device);
    }
    apply_reactions(loop, reaction);
    tch_status s = tch_step_begin(m, d, err);
    if (s == TCH_OK && loop->renderer == TCH_HAPTIC_POINTER) {
        tch_haptic_local_model_begin(m, d, loop->body, loop->period, ++loop->physics_steps,
                                     &loop->local);
    }
    s = s == TCH_OK ? tch_step_end(m, d, err) : s;
    if (s != TCH_OK) {
        return s;
    }
    take_snapshot(loop, now, out);
    if (loop->renderer == TCH_HAPTIC_POINTER) {
        tch_haptic_local_model_end(d, &loop->local);
        out->local = loop->local;
    }
    if (loop->renderer == TCH_HAPTIC_COUPLING) {
        loop->physics_jumps +=
            fabs(tch_haptic_coupling_energy(m, loop->tool, out, device, &loop->gains) -
                 tch_haptic_coupling_energy(m, loop->tool, &before, device, &loop->gains));
        out->resync_jumps = loop->physics_jumps;
    }
    return TCH_OK;
}

/* Servo side: the renderer's wrench on the handle for the device state and a snapshot (the
 * proxy moves). */
static tch_haptic_command render(tch_haptic_loop* loop, const tch_haptic_snapshot* s,
                                 tch_real now) {
    if (loop->renderer == TCH_HAPTIC_PROXY) {
        return (tch_haptic_command){render_proxy(loop, s, now), tch_v3_zero()};
    }
    if (loop->renderer == TCH_HAPTIC_POINTER) {
        tch_haptic_command w = tch_haptic_local_model_tick(&s->local, &loop->local_state,
                                                           &loop->state, loop->period,
                                                           (int)loop->ticks_per_step);
        return w;
    }
    const tch_model* m = loop->model;
    tch_vec3 f, tau;
    if (loop->coupling_in_engine) {
        tch_haptic_coupling_spring_of(m, loop->tool, s, &loop->state, &loop->gains, 0, &f, &tau);
    } else {
        tch_haptic_coupling_wrench_of(m, loop->tool, s, &loop->state, &loop->gains, m->timestep,
                                      &f, &tau);
    }
    /* minus the coupling's wrench on the tool, the force acting at the tool's target point */
    tch_vec3 target = tch_x_apply(loop->state.pose, m->body_total_p_BCm[loop->tool]);
    tch_vec3 arm = tch_v3_sub(target, loop->state.pose.p);
    return (tch_haptic_command){tch_v3_scale(f, -1),
                                tch_v3_sub(tch_v3_scale(tau, -1), tch_v3_cross(arm, f))};
}

/* Servo side: reads the device into loop->state (world frame); on failure holds the last pose
 * at rest. Returns whether the read succeeded. */
bool tch_haptic_loop_read_device(tch_haptic_loop* loop) {
    tch_haptic_state state;
    tch_error read_error;
    if (tch_haptic_read(loop->device, &state, &read_error) != TCH_OK) {
        loop->state.velocity = loop->state.angular = tch_v3_zero();
        return false;
    }
    loop->state = state;
    loop->state.pose.p = tch_v3_add(state.pose.p, loop->base);
    return true;
}

/* Servo side: render from the snapshot, the safety stage (the snapshot's time is the
 * producer's, for the watchdog), zero on a failed read or missed deadlines, the passivity
 * controller, write. */
tch_status tch_haptic_loop_finish_tick(tch_haptic_loop* loop, tch_real now,
                                       const tch_haptic_snapshot* s, bool read_ok, bool missed,
                                       tch_haptic_tick* tick, tch_error* err) {
    tch_haptic_command rendered = render(loop, s, now);
    tch_haptic_safety_apply(&loop->safety, &rendered, now, s->time, &tick->command);
    if (!read_ok || missed) {
        tick->command = (tch_haptic_command){{0, 0, 0}, {0, 0, 0}};
        loop->safety.flags |= read_ok ? TCH_HAPTIC_WATCHDOG : TCH_HAPTIC_READ_FAILED;
        loop->safety.watchdog_trips += missed;
        loop->safety.engaged_time = -1; /* ramp again when the ticks recover */
        loop->safety.last = tick->command;
    }
    tch_haptic_passivity_apply(&loop->passivity, &loop->state, loop->period,
                               loop->safety.max_force, &tick->command.force);
    add_reactions(loop, tick->command.force);
    loop->passivity.ledger.resync_jumps = s->resync_jumps + loop->local_state.blend_work;
    tick->safety_flags = loop->safety.flags;
    tick->energy_observed = loop->passivity.observed;
    return tch_haptic_write(loop->device, &tick->command, err);
}

tch_status tch_haptic_loop_tick(tch_haptic_loop* loop, tch_haptic_tick* tick, tch_error* err) {
    tch_real now = (tch_real)loop->tick_count * loop->period;
    bool read_ok = tch_haptic_loop_read_device(loop);
    *tick = (tch_haptic_tick){.time = now, .state = loop->state};
    if (loop->tick_count % loop->ticks_per_step == 0) {
        tch_status s = tch_haptic_loop_physics_step(loop, &loop->state, &loop->reaction, now,
                                                    &loop->snapshot, err);
        if (s != TCH_OK) {
            return s;
        }
        tick->stepped = true;
    }
    loop->tick_count++;
    return tch_haptic_loop_finish_tick(loop, now, &loop->snapshot, read_ok, false, tick, err);
}

/* The proxy renderer over the scene's static geoms, at the haptic body's initial position. */
static tch_status create_proxy(tch_haptic_loop* loop, const tch_haptic_spec* spec,
                               tch_error* err) {
    const tch_haptic_def* def = &loop->model->body_haptic[loop->body];
    tch_real rated = spec && spec->max_stiffness > 0 ? spec->max_stiffness : 500;
    tch_haptic_proxy_params params = {
        .radius = isnan(def->proxy_radius) ? 0 : def->proxy_radius,
        .stiffness = isnan(def->linear_stiffness) ? rated : def->linear_stiffness,
        .damping = isnan(def->linear_damping) ? 0 : def->linear_damping,
        .period = loop->period};
    tch_status s = tch_haptic_proxy_create_from_model(loop->model, loop->data, &params,
                                                      &loop->proxy, err);
    if (s == TCH_OK && tch_haptic_proxy_body_count(loop->proxy) > TCH_HAPTIC_PROXY_MAX_BODIES) {
        s = tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                     "haptic loop: the proxy sees %d free bodies; more than %d is not supported "
                     "yet",
                     tch_haptic_proxy_body_count(loop->proxy), TCH_HAPTIC_PROXY_MAX_BODIES);
        tch_haptic_proxy_destroy(loop->proxy);
        loop->proxy = NULL;
    }
    if (s == TCH_OK) {
        tch_haptic_proxy_reset(loop->proxy, loop->state.pose.p);
    }
    return s;
}

tch_status tch_haptic_loop_create(const tch_model* m, tch_data* d, tch_haptic_device* device,
                                  const tch_haptic_loop_config* config, tch_haptic_loop** out,
                                  tch_error* err) {
    *out = NULL;
    int body = config->body >= 0 ? config->body : first_haptic_body(m);
    tch_status s = check_scene(m, body, config->period, err);
    if (s != TCH_OK) {
        return s;
    }
    tch_haptic_loop* loop = calloc(1, sizeof *loop);
    if (!loop) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "haptic loop: out of memory");
    }
    const tch_haptic_spec* spec = tch_haptic_spec_of(device);
    s = tch_haptic_safety_init(&loop->safety, spec, &config->safety, err);
    if (s != TCH_OK) {
        free(loop);
        return s;
    }
    *loop = (tch_haptic_loop){.model = m,
                              .data = d,
                              .device = device,
                              .body = body,
                              .tool = m->body_haptic_tool[body],
                              .mocap = m->body_mocap[body],
                              .renderer = m->body_haptic[body].renderer,
                              .period = config->period,
                              .fifo_priority = config->fifo_priority,
                              .lock_memory = config->lock_memory,
                              .ticks_per_step = (int64_t)llround(m->timestep / config->period),
                              .safety = loop->safety,
                              .passivity = {.control = config->passivity_control,
                                            .max_damping = config->passivity_max_damping}};
    if (loop->renderer == TCH_HAPTIC_COUPLING) {
        loop->gains = tch_haptic_coupling_gains_of(m, body, spec);
        loop->coupling_in_engine = engine_takes_coupling(m, loop->tool);
    }
    loop->state.pose = d->mocap_X_WB[loop->mocap];
    tch_haptic_local_state_init(&loop->local_state);
    if (loop->renderer == TCH_HAPTIC_PROXY) {
        s = create_proxy(loop, spec, err);
        if (s != TCH_OK) {
            free(loop);
            return s;
        }
    }
    loop->base = config->base_at_body ? loop->state.pose.p : tch_v3_zero();
    take_snapshot(loop, 0, &loop->snapshot);
    *out = loop;
    return TCH_OK;
}

const tch_haptic_reaction* tch_haptic_loop_reaction(const tch_haptic_loop* loop) {
    return &loop->reaction;
}

tch_haptic_realtime tch_haptic_loop_realtime(const tch_haptic_loop* loop) {
    return loop->realtime;
}

tch_haptic_realtime* tch_haptic_loop_realtime_requests(tch_haptic_loop* loop, int* fifo_priority,
                                                       bool* lock_memory) {
    *fifo_priority = loop->fifo_priority;
    *lock_memory = loop->lock_memory;
    return &loop->realtime;
}

const tch_haptic_passivity* tch_haptic_loop_passivity(const tch_haptic_loop* loop) {
    return &loop->passivity;
}

tch_haptic_coupling_gains tch_haptic_loop_gains(const tch_haptic_loop* loop) {
    return loop->gains;
}

tch_haptic_state tch_haptic_loop_state(const tch_haptic_loop* loop) {
    return loop->state;
}

int64_t tch_haptic_loop_ticks_per_step(const tch_haptic_loop* loop) {
    return loop->ticks_per_step;
}

tch_real tch_haptic_loop_period(const tch_haptic_loop* loop) {
    return loop->period;
}

int tch_haptic_loop_body(const tch_haptic_loop* loop) {
    return loop->body;
}

int tch_haptic_loop_tool(const tch_haptic_loop* loop) {
    return loop->tool;
}

void tch_haptic_loop_destroy(tch_haptic_loop* loop) {
    if (loop) {
        tch_haptic_proxy_destroy(loop->proxy);
        if (loop->coupling_in_engine) {
            loop->data->applied_spring = (tch_applied_spring){0};
        }
    }
    free(loop);
}
