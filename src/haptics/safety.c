/* The safety stage of touche/haptics.h: the conditions the device SDKs enforce
 * (shared/reference/haptics.md, "Safety conditions"): per-axis saturation at the continuous
 * limits, torque on its own (never scaling the whole wrench); a start ramp; a force-rate limit
 * (OpenHaptics' software impulse limit); a watchdog on the producer (DHD's watchdog); zero
 * output and a flag for NaN or Inf. */
#include <math.h>

#include "base/error.h"
#include "math/vec.h"
#include "touche/haptics.h"

static bool finite_v3(tch_vec3 v) {
    return isfinite(v.x) && isfinite(v.y) && isfinite(v.z);
}

static tch_real clamp_abs(tch_real x, tch_real limit, bool* hit) {
    if (fabs(x) <= limit) {
        return x;
    }
    *hit = true;
    return copysign(limit, x);
}

/* Each component to [-limit, limit]: the sign of each axis is kept. */
static tch_vec3 saturate_per_axis(tch_vec3 v, tch_real limit, bool* hit) {
    return tch_v3(clamp_abs(v.x, limit, hit), clamp_abs(v.y, limit, hit),
                  clamp_abs(v.z, limit, hit));
}

/* Moves from `last` towards `target` by at most `max_step` (Euclidean). */
static tch_vec3 limit_step(tch_vec3 last, tch_vec3 target, tch_real max_step, bool* hit) {
    tch_vec3 step = tch_v3_sub(target, last);
    tch_real length = tch_v3_norm(step);
    if (length <= max_step) {
        return target;
    }
    *hit = true;
    return tch_v3_madd(last, max_step / length, step);
}

tch_status tch_haptic_safety_init(tch_haptic_safety* safety, const tch_haptic_spec* spec,
                                  const tch_haptic_safety_params* params, tch_error* err) {
    const tch_haptic_safety_params* p = params;
    if (!(spec->max_force >= 0) || !(spec->max_torque >= 0) || !(p->max_force_rate > 0) ||
        !(p->max_torque_rate > 0) || !(p->ramp_time >= 0) || !(p->watchdog_timeout > 0)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "haptic safety: limits must be >= 0, rates and the watchdog timeout > 0");
    }
    *safety = (tch_haptic_safety){.max_force = spec->max_force,
                                  .max_torque = spec->max_torque,
                                  .params = *p,
                                  .last_time = -1,
                                  .engaged_time = -1};
    return TCH_OK;
}

static void output_zero(tch_haptic_safety* safety, tch_real now, uint32_t flag,
                        tch_haptic_command* out) {
    *out = (tch_haptic_command){{0, 0, 0}, {0, 0, 0}};
    safety->engaged_time = -1;
    safety->flags = flag;
    safety->last = *out;
    safety->last_time = now;
}

void tch_haptic_safety_apply(tch_haptic_safety* safety, const tch_haptic_command* in,
                             tch_real now, tch_real produced, tch_haptic_command* out) {
    if (!finite_v3(in->force) || !finite_v3(in->torque) || !isfinite(produced)) {
        output_zero(safety, now, TCH_HAPTIC_NONFINITE, out);
        return;
    }
    if (now - produced > safety->params.watchdog_timeout) {
        safety->watchdog_trips++;
        output_zero(safety, now, TCH_HAPTIC_WATCHDOG, out);
        return;
    }
    uint32_t flags = 0;
    bool saturated = false, limited = false;
    tch_vec3 force = saturate_per_axis(in->force, safety->max_force, &saturated);
    tch_vec3 torque = saturate_per_axis(in->torque, safety->max_torque, &saturated);
    if (safety->engaged_time < 0) {
        safety->engaged_time = now;
    }
    tch_real elapsed = now - safety->engaged_time;
    if (elapsed < safety->params.ramp_time) {
        tch_real scale = elapsed / safety->params.ramp_time;
        force = tch_v3_scale(force, scale);
        torque = tch_v3_scale(torque, scale);
        flags |= TCH_HAPTIC_RAMPING;
    }
    tch_real dt = safety->last_time < 0 ? 0 : fmax(now - safety->last_time, 0);
    force = limit_step(safety->last.force, force, safety->params.max_force_rate * dt, &limited);
    torque = limit_step(safety->last.torque, torque, safety->params.max_torque_rate * dt,
                        &limited);
    flags |= (saturated ? TCH_HAPTIC_SATURATED : 0) | (limited ? TCH_HAPTIC_RATE_LIMITED : 0);
    *out = (tch_haptic_command){force, torque};
    safety->flags = flags;
    safety->last = *out;
    safety->last_time = now;
}
