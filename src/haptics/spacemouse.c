/* Driver `spacemouse` (touche/haptics.h): a 6-DOF input through libspnav and the spacenavd
 * daemon, and its event-to-pose mapping. Built with libspnav when CMake finds it
 * (TCH_SPACEMOUSE, TCH_HAVE_SPNAV); without it `open` says so. */
#include <math.h>
#include <stdlib.h>

#include "base/error.h"
#include "haptics/rotation.h"
#include "math/vec.h"
#include "touche/haptics.h"

#ifdef TCH_HAVE_SPNAV
#include <spnav.h>
#endif

/* spacenavd's axes in the world (z up, y away from the user): (x, z, y). Its frame is
 * OpenGL's with z negated, (x, y, -z), rotations (rx, ry, -rz) (libspnav's own
 * spnav_posrot_moveobj); the world takes OpenGL's x, -z, y, a proper rotation, so translations
 * and rotations map alike. Axes at or under the deadzone read 0. */
static tch_vec3 world_axes(const int counts[3], int deadzone) {
    tch_real c[3];
    for (int i = 0; i < 3; ++i) {
        c[i] = abs(counts[i]) > deadzone ? (tch_real)counts[i] : 0;
    }
    return tch_v3(c[0], c[2], c[1]);
}

/* The offset from home clamped to the workspace's ball. */
static tch_vec3 in_workspace(tch_vec3 offset, tch_real radius) {
    tch_real r = tch_v3_norm(offset);
    return radius > 0 && r > radius ? tch_v3_scale(offset, radius / r) : offset;
}

tch_haptic_state tch_haptic_spacemouse_advance(const tch_haptic_spacemouse_config* c,
                                               const tch_haptic_state* last,
                                               const tch_haptic_spacemouse_input* input) {
    tch_real T = c->period;
    tch_vec3 d = world_axes(input->translation, c->deadzone);
    tch_vec3 r = world_axes(input->rotation, c->deadzone);
    tch_haptic_state next = {.buttons = input->buttons, .time = last->time + T};
    if (c->position_mode) {
        tch_vec3 offset = in_workspace(tch_v3_scale(d, c->translation_scale),
                                       c->spec.workspace_radius);
        next.pose = (tch_transform){
            tch_q_normalize(tch_q_mul(tch_q_from_rotvec(tch_v3_scale(r, c->rotation_scale)),
                                      c->home.q)),
            tch_v3_add(c->home.p, offset)};
        next.velocity = tch_v3_scale(tch_v3_sub(next.pose.p, last->pose.p), 1 / T);
        next.angular = tch_v3_scale(
            tch_haptic_rotvec_of(tch_q_mul(next.pose.q, tch_q_conj(last->pose.q))), 1 / T);
        return next;
    }
    tch_vec3 v = tch_v3_scale(d, c->translation_scale);
    tch_vec3 w = tch_v3_scale(r, c->rotation_scale);
    tch_vec3 offset = tch_v3_madd(tch_v3_sub(last->pose.p, c->home.p), T, v);
    next.pose.p = tch_v3_add(c->home.p, in_workspace(offset, c->spec.workspace_radius));
    next.pose.q = tch_q_normalize(tch_q_mul(tch_q_from_rotvec(tch_v3_scale(w, T)), last->pose.q));
    next.velocity = tch_v3_scale(tch_v3_sub(next.pose.p, last->pose.p), 1 / T);
    next.angular = w;
    return next;
}

typedef struct spacemouse {
    tch_haptic_spacemouse_config config;
    tch_haptic_spacemouse_input input; /* the newest deflection and buttons */
    tch_haptic_state state;
} spacemouse;

static tch_status check_config(const tch_haptic_spacemouse_config* c, tch_error* err) {
    if (!c || !(c->period > 0) || !(c->translation_scale >= 0) || !(c->rotation_scale >= 0) ||
        c->deadzone < 0 || !(c->spec.workspace_radius >= 0)) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "spacemouse: needs a period > 0, scales >= 0 and a deadzone >= 0");
    }
    return TCH_OK;
}

#ifdef TCH_HAVE_SPNAV

static tch_status spacemouse_open(const void* config, void** self, tch_haptic_spec* spec,
                                  tch_error* err) {
    const tch_haptic_spacemouse_config* c = config;
    tch_status s = check_config(c, err);
    if (s != TCH_OK) {
        return s;
    }
    spacemouse* d = calloc(1, sizeof *d);
    if (!d) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "spacemouse: out of memory");
    }
    if (spnav_open() == -1) {
        free(d);
        return tch_fail(err, TCH_ERR_IO, NULL, 0,
                        "spacemouse: cannot reach the spacenavd daemon (libspnav's spnav_open "
                        "failed): is spacenavd running and the SpaceMouse plugged in?");
    }
    d->config = *c;
    d->state.pose = c->home;
    *spec = c->spec;
    *self = d;
    return TCH_OK;
}

/* Takes every waiting event without blocking: the newest deflection, the buttons. */
static tch_status spacemouse_read(void* self, tch_haptic_state* state, tch_error* err) {
    (void)err;
    spacemouse* d = self;
    spnav_event event;
    while (spnav_poll_event(&event) != 0) {
        if (event.type == SPNAV_EVENT_MOTION) {
            const struct spnav_event_motion* m = &event.motion;
            d->input.translation[0] = m->x;
            d->input.translation[1] = m->y;
            d->input.translation[2] = m->z;
            d->input.rotation[0] = m->rx;
            d->input.rotation[1] = m->ry;
            d->input.rotation[2] = m->rz;
        } else if (event.type == SPNAV_EVENT_BUTTON && event.button.bnum >= 0 &&
                   event.button.bnum < 32) {
            uint32_t bit = 1u << event.button.bnum;
            d->input.buttons = event.button.press ? d->input.buttons | bit
                                                  : d->input.buttons & ~bit;
        }
    }
    d->state = tch_haptic_spacemouse_advance(&d->config, &d->state, &d->input);
    *state = d->state;
    return TCH_OK;
}

static void spacemouse_close(void* self) {
    if (self) {
        spnav_close();
    }
    free(self);
}

#else

static tch_status spacemouse_open(const void* config, void** self, tch_haptic_spec* spec,
                                  tch_error* err) {
    (void)self;
    (void)spec;
    tch_status s = check_config(config, err);
    return s != TCH_OK ? s
                       : tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0,
                                  "spacemouse: touche was built without libspnav (install "
                                  "Debian's libspnav-dev and rebuild; CMake option "
                                  "TCH_SPACEMOUSE): not supported in this build");
}

static tch_status spacemouse_read(void* self, tch_haptic_state* state, tch_error* err) {
    (void)self;
    (void)state;
    return tch_fail(err, TCH_ERR_UNSUPPORTED, NULL, 0, "spacemouse: not opened");
}

static void spacemouse_close(void* self) {
    free(self);
}

#endif

/* An input device: commands are accepted and render nothing. */
static tch_status spacemouse_write(void* self, const tch_haptic_command* command,
                                   tch_error* err) {
    (void)self;
    (void)command;
    (void)err;
    return TCH_OK;
}

static const tch_haptic_ops spacemouse_ops = {"spacemouse", spacemouse_open, spacemouse_read,
                                              spacemouse_write, spacemouse_close};

const tch_haptic_ops* tch_haptic_spacemouse_driver(void) {
    return &spacemouse_ops;
}
