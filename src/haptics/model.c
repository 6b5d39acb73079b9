/* Driver `model`: a simulated device with one translational degree of freedom per axis,
 *   m dv/dt = f + f_hand - b v - f_c sign(v),
 * with the command f held over each servo period T (zero-order hold), so that the stability
 * limits of shared/reference/haptics.md can be measured: the sampled wall of Colgate and
 * Schenkel (1997), passive iff b > K T / 2, and with quantum Δ and Coulomb friction f_c
 * (Abbott and Okamura 2005) K < min(2 b / T, 2 f_c / Δ).
 * Each period is integrated in closed form (no integration error): between the instants where
 * the velocity crosses zero the net force is constant and the motion is that of a damped mass
 * under a constant force; at v = 0 the axis sticks while |f + f_hand| <= f_c. */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "haptics/driver.h"
#include "math/vec.h"
#include "touche/haptics.h"

typedef struct model {
    tch_haptic_model_config config;
    tch_real x[3], v[3]; /* per axis: position m, velocity m/s */
    tch_vec3 hand;       /* the user's force, N */
    uint64_t writes;
} model;

/* Velocity after time t under constant net force F from velocity v0 (mass m, damping b). */
static tch_real velocity_after(tch_real v0, tch_real F, tch_real m, tch_real b, tch_real t) {
    if (b == 0) {
        return v0 + F * t / m;
    }
    tch_real v_inf = F / b;
    return v_inf + (v0 - v_inf) * exp(-b * t / m);
}

/* Displacement over time t in the same motion: the integral of velocity_after. */
static tch_real displacement_after(tch_real v0, tch_real F, tch_real m, tch_real b, tch_real t) {
    if (b == 0) {
        return v0 * t + F * t * t / (2 * m);
    }
    tch_real v_inf = F / b;
    return v_inf * t - (v0 - v_inf) * (m / b) * expm1(-b * t / m);
}

/* Time at which the velocity reaches zero in that motion, or INFINITY if it never does. */
static tch_real time_to_stop(tch_real v0, tch_real F, tch_real m, tch_real b) {
    if (v0 == 0 || !(F * v0 < 0)) {
        return INFINITY;
    }
    if (b == 0) {
        return -m * v0 / F;
    }
    tch_real v_inf = F / b;
    return (m / b) * log((v_inf - v0) / v_inf);
}

/* Advances one axis over `duration` under the applied force F (without friction). */
static void advance_axis(tch_real* x, tch_real* v, tch_real F, const tch_haptic_model_config* c,
                         tch_real duration) {
    tch_real m = c->mass, b = c->damping, f_c = c->friction, remaining = duration;
    /* at most: move, stop, start the other way (which then never stops within the period) */
    for (int phase = 0; phase < 3 && remaining > 0; phase++) {
        if (*v == 0 && fabs(F) <= f_c) {
            return; /* sticks */
        }
        tch_real net = F - f_c * (*v != 0 ? copysign(1, *v) : copysign(1, F));
        tch_real stop = f_c > 0 ? time_to_stop(*v, net, m, b) : INFINITY;
        tch_real t = fmin(stop, remaining);
        *x += displacement_after(*v, net, m, b, t);
        *v = stop <= remaining ? 0 : velocity_after(*v, net, m, b, t);
        remaining -= t;
    }
}

static tch_status model_open(const void* config, void** self, tch_haptic_spec* spec,
                             tch_error* err) {
    const tch_haptic_model_config* c = config;
    if (!c || !(c->period > 0) || !(c->mass > 0) || !(c->damping >= 0) || !(c->friction >= 0) ||
        !(c->spec.position_quantum >= 0)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "model haptic device: needs period > 0, mass > 0, damping >= 0, "
                        "friction >= 0 and position quantum >= 0");
    }
    model* d = calloc(1, sizeof *d);
    if (!d) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "model haptic device: out of memory");
    }
    d->config = *c;
    *spec = c->spec;
    *self = d;
    return TCH_OK;
}

static tch_real quantize(tch_real x, tch_real quantum) {
    return quantum > 0 ? quantum * round(x / quantum) : x;
}

static tch_status model_read(void* self, tch_haptic_state* state, tch_error* err) {
    (void)err;
    const model* d = self;
    tch_real q = d->config.spec.position_quantum;
    *state = (tch_haptic_state){
        .pose = {tch_q_identity(), tch_v3(quantize(d->x[0], q), quantize(d->x[1], q),
                                          quantize(d->x[2], q))},
        .velocity = tch_v3(d->v[0], d->v[1], d->v[2]),
        .time = (tch_real)d->writes * d->config.period,
    };
    return TCH_OK;
}

static tch_status model_write(void* self, const tch_haptic_command* command, tch_error* err) {
    model* d = self;
    tch_real f[3] = {command->force.x, command->force.y, command->force.z};
    tch_real hand[3] = {d->hand.x, d->hand.y, d->hand.z};
    for (int i = 0; i < 3; i++) {
        if (!isfinite(f[i])) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "model haptic device: the command force is not finite");
        }
    }
    for (int i = 0; i < 3; i++) {
        advance_axis(&d->x[i], &d->v[i], f[i] + hand[i], &d->config, d->config.period);
    }
    d->writes++;
    return TCH_OK;
}

static void model_close(void* self) {
    free(self);
}

static const tch_haptic_ops model_ops = {"model", model_open, model_read, model_write,
                                         model_close};

const tch_haptic_ops* tch_haptic_model_driver(void) {
    return &model_ops;
}

tch_status tch_haptic_model_set_hand_force(tch_haptic_device* device, tch_vec3 force,
                                           tch_error* err) {
    model* d = tch_haptic_driver_self(device, &model_ops);
    if (!d) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "set hand force: the device is not a `model` device");
    }
    d->hand = force;
    return TCH_OK;
}
