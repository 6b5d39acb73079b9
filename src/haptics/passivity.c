/* The time-domain passivity observer and controller at the device port (Hannaford and Ryu,
 * "Time-domain passivity control of haptic interfaces", IEEE T-RA 18(1), 2002): touche/haptics.h.
 */
#include <math.h>

#include "math/vec.h"
#include "touche/haptics.h"

static tch_real clamp(tch_real x, tch_real limit) {
    return fmin(fmax(x, -limit), limit);
}

/* Adds the energy the scene absorbed over the last tick, -F . dx (exact for a force held over
 * the tick), to the observer and to the ledger's in or out. */
static void observe_last_tick(tch_haptic_passivity* p, tch_vec3 position) {
    if (!p->started) {
        return;
    }
    tch_real absorbed = -tch_v3_dot(p->last_force, tch_v3_sub(position, p->last_position));
    p->observed += absorbed;
    if (absorbed > 0) {
        p->ledger.energy_in += absorbed;
    } else {
        p->ledger.energy_out -= absorbed;
    }
}

void tch_haptic_passivity_apply(tch_haptic_passivity* p, const tch_haptic_state* state,
                                tch_real period, tch_real max_force, tch_vec3* force) {
    observe_last_tick(p, state->pose.p);
    tch_vec3 v = state->velocity;
    tch_real v2 = tch_v3_dot(v, v);
    /* eq. 10 with the coming tick's share predicted from the measured velocity */
    tch_real predicted = p->observed - tch_v3_dot(*force, v) * period;
    if (p->control && predicted < 0 && v2 > 0) {
        tch_real alpha = -predicted / (v2 * period); /* eq. 12: the damping that absorbs it */
        if (p->max_damping > 0) {
            alpha = fmin(alpha, p->max_damping);
        }
        *force = tch_v3_madd(*force, -alpha, v);
        p->ledger.energy_dissipated += alpha * v2 * period;
    }
    *force = tch_v3(clamp(force->x, max_force), clamp(force->y, max_force),
                    clamp(force->z, max_force));
    p->last_force = *force;
    p->last_position = state->pose.p;
    p->started = true;
}
