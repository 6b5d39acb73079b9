/* Haptic devices: the scripted and model drivers, the safety stage, and the sampled-wall
 * passivity condition of Colgate and Schenkel (1997) measured on the model device. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "haptics/mailbox.h"
#include "math/vec.h"
#include "test.h"
#include "touche/haptics.h"

static const tch_haptic_spec omega_like = {.workspace_radius = 0.075,
                                           .max_force = 12,
                                           .max_torque = 0.2,
                                           .max_stiffness = 5000,
                                           .max_damping = 30};

static void write_text(const char* path, const char* text) {
    FILE* f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

/* ---- scripted driver ---- */

static void test_scripted_interpolates_and_holds_the_ends(void) {
    const char* path = "haptics_path.csv";
    /* 90 degrees about z over 10 ms while moving by (0.1, 0.2, -0.1) */
    write_text(path, "# time,x,y,z,qw,qx,qy,qz\n0,0,0,0,1,0,0,0\n\n"
                     "0.01, 0.1, 0.2, -0.1, 0.70710678118654752, 0, 0, 0.70710678118654752\n");
    tch_haptic_scripted_config config = {.path = path, .period = 1e-3, .spec = omega_like};
    tch_haptic_device* device = NULL;
    tch_error err;
    ENSURE(tch_haptic_open(tch_haptic_scripted_driver(), &config, &device, &err) == TCH_OK);
    ENSURE(tch_haptic_spec_of(device)->max_force == 12);
    tch_haptic_state s;
    for (int i = 0; i <= 5; i++) {
        ENSURE(tch_haptic_read(device, &s, &err) == TCH_OK);
        tch_haptic_command zero = {{0, 0, 0}, {0, 0, 0}};
        ENSURE(tch_haptic_write(device, &zero, &err) == TCH_OK);
    }
    ENSURE_NEAR(s.time, 0.005, 1e-15);
    ENSURE_NEAR(s.pose.p.x, 0.05, 1e-12);
    ENSURE_NEAR(s.pose.p.y, 0.1, 1e-12);
    ENSURE_NEAR(s.pose.p.z, -0.05, 1e-12);
    /* halfway by slerp: 45 degrees about z */
    ENSURE_NEAR(s.pose.q.w, cos(TCH_PI / 8), 1e-12);
    ENSURE_NEAR(s.pose.q.z, sin(TCH_PI / 8), 1e-12);
    ENSURE_NEAR(s.pose.q.x, 0, 1e-12);
    ENSURE_NEAR(s.velocity.y, 20, 1e-9);
    ENSURE_NEAR(s.angular.z, (TCH_PI / 2) / 0.01, 1e-9);
    ENSURE_NEAR(s.angular.x, 0, 1e-9);
    for (int i = 0; i < 10; i++) {
        ENSURE(tch_haptic_read(device, &s, &err) == TCH_OK);
    }
    ENSURE(s.time > 0.01);
    ENSURE_NEAR(s.pose.p.z, -0.1, 1e-15);
    ENSURE_NEAR(s.pose.q.z, sqrt(0.5), 1e-15);
    ENSURE(s.velocity.x == 0 && s.angular.z == 0);
    tch_haptic_close(device);
    remove(path);
}

/* Opening `text` as a scripted path fails with `status` at `line`, naming the file. */
static bool scripted_fails_at(const char* text, tch_status status, int line) {
    const char* path = "haptics_bad.csv";
    write_text(path, text);
    tch_haptic_scripted_config config = {.path = path, .period = 1e-3, .spec = omega_like};
    tch_haptic_device* device = NULL;
    tch_error err;
    tch_status s = tch_haptic_open(tch_haptic_scripted_driver(), &config, &device, &err);
    remove(path);
    return s == status && device == NULL && err.line == line && strcmp(err.file, path) == 0 &&
           strstr(err.message, path) != NULL;
}

static void test_scripted_bad_files_name_file_and_line(void) {
    ENSURE(scripted_fails_at("0,0,0,0,1,0,0,0\n# note\n0.1,0,0,0,1,0,0\n", TCH_ERR_PARSE, 3));
    ENSURE(scripted_fails_at("0,0,0,0,1,0,0,0\n0.1,0,0,0,1,0,0,0,7\n", TCH_ERR_PARSE, 2));
    ENSURE(scripted_fails_at("0,0,0,0,1,0,0,0\n0.2,0,0,0,1,0,0,0\n0.2,1,0,0,1,0,0,0\n",
                             TCH_ERR_PARSE, 3));
    ENSURE(scripted_fails_at("0,0,0,0,0,0,0,0\n", TCH_ERR_PARSE, 1));
    ENSURE(scripted_fails_at("0,x,0,0,1,0,0,0\n", TCH_ERR_PARSE, 1));
    ENSURE(scripted_fails_at("# nothing\n", TCH_ERR_PARSE, 1));
    tch_haptic_scripted_config config = {.path = "no/such/path.csv", .period = 1e-3};
    tch_haptic_device* device = NULL;
    tch_error err;
    ENSURE(tch_haptic_open(tch_haptic_scripted_driver(), &config, &device, &err) == TCH_ERR_IO);
    ENSURE(strcmp(err.file, "no/such/path.csv") == 0);
}

/* ---- safety stage ---- */

static tch_haptic_safety make_safety(tch_real ramp_time, tch_real rate, tch_real timeout) {
    tch_haptic_safety safety;
    tch_haptic_safety_params p = {.max_force_rate = rate,
                                  .max_torque_rate = rate,
                                  .ramp_time = ramp_time,
                                  .watchdog_timeout = timeout};
    tch_haptic_safety_init(&safety, &omega_like, &p, NULL);
    return safety;
}

static void test_saturation_is_per_axis_and_torque_on_its_own(void) {
    tch_haptic_safety safety = make_safety(0, 1e9, 1);
    tch_haptic_command in = {{30, -5, -40}, {0.5, -0.1, 0}}, out;
    tch_haptic_safety_apply(&safety, &in, 0, 0, &out); /* engages from zero */
    tch_haptic_safety_apply(&safety, &in, 1e-3, 1e-3, &out);
    ENSURE(out.force.x == 12 && out.force.y == -5 && out.force.z == -12);
    ENSURE(out.torque.x == 0.2 && out.torque.y == -0.1 && out.torque.z == 0);
    ENSURE(safety.flags & TCH_HAPTIC_SATURATED);
    /* a saturated torque leaves the force whole */
    tch_haptic_command twist = {{1, 2, 3}, {5, 0, 0}};
    tch_haptic_safety_apply(&safety, &twist, 2e-3, 2e-3, &out);
    ENSURE(out.force.x == 1 && out.force.y == 2 && out.force.z == 3 && out.torque.x == 0.2);
}

static void test_ramp_and_rate_limit(void) {
    tch_haptic_safety safety = make_safety(0.1, 1e9, 1);
    tch_haptic_command in = {{10, 0, 0}, {0, 0, 0}}, out;
    tch_haptic_safety_apply(&safety, &in, 0, 0, &out);
    ENSURE(out.force.x == 0 && (safety.flags & TCH_HAPTIC_RAMPING));
    tch_haptic_safety_apply(&safety, &in, 0.05, 0.05, &out);
    ENSURE_NEAR(out.force.x, 5, 1e-12);
    tch_haptic_safety_apply(&safety, &in, 0.2, 0.2, &out);
    ENSURE(out.force.x == 10 && safety.flags == 0);

    tch_haptic_safety limited = make_safety(0, 1000, 1); /* 1 N per ms */
    tch_haptic_command step = {{3, 4, 0}, {0, 0, 0}};
    tch_haptic_safety_apply(&limited, &step, 0, 0, &out);
    tch_haptic_safety_apply(&limited, &step, 1e-3, 1e-3, &out);
    ENSURE(limited.flags & TCH_HAPTIC_RATE_LIMITED);
    ENSURE_NEAR(out.force.x, 0.6, 1e-12); /* 1 N along (3, 4) / 5 */
    ENSURE_NEAR(out.force.y, 0.8, 1e-12);
    for (int k = 2; k <= 6; k++) {
        tch_haptic_safety_apply(&limited, &step, k * 1e-3, k * 1e-3, &out);
    }
    ENSURE(out.force.x == 3 && out.force.y == 4);
}

static void test_watchdog_and_nonfinite_zero_the_output(void) {
    tch_haptic_safety safety = make_safety(0, 1e9, 0.01);
    tch_haptic_command in = {{5, 0, 0}, {0, 0, 0.1}}, out;
    tch_haptic_safety_apply(&safety, &in, 0, 0, &out);
    tch_haptic_safety_apply(&safety, &in, 0.005, 0, &out); /* 5 ms old: fine */
    ENSURE(out.force.x == 5);
    tch_haptic_safety_apply(&safety, &in, 0.02, 0, &out); /* 20 ms old: stale */
    ENSURE(out.force.x == 0 && out.torque.z == 0 && safety.flags == TCH_HAPTIC_WATCHDOG);
    ENSURE(safety.watchdog_trips == 1);
    tch_haptic_command nan_in = {{NAN, 0, 0}, {0, 0, 0}};
    tch_haptic_safety_apply(&safety, &nan_in, 0.021, 0.021, &out);
    ENSURE(out.force.x == 0 && safety.flags == TCH_HAPTIC_NONFINITE);

    tch_haptic_safety ramped = make_safety(0.1, 1e9, 0.01);
    tch_haptic_safety_apply(&ramped, &in, 0, 0, &out);
    tch_haptic_safety_apply(&ramped, &in, 0.2, 0.2, &out);
    ENSURE(out.force.x == 5);
    tch_haptic_safety_apply(&ramped, &in, 0.3, 0.2, &out); /* stalls */
    tch_haptic_safety_apply(&ramped, &in, 0.31, 0.31, &out); /* recovers: the ramp restarts */
    ENSURE(out.force.x == 0 && (ramped.flags & TCH_HAPTIC_RAMPING));
    tch_haptic_safety_apply(&ramped, &in, 0.36, 0.36, &out);
    ENSURE_NEAR(out.force.x, 2.5, 1e-12);
}

/* ---- model driver ---- */

static tch_haptic_device* open_model(tch_real period, tch_real mass, tch_real damping,
                                     tch_real friction, tch_real quantum) {
    tch_haptic_model_config config = {
        .period = period, .mass = mass, .damping = damping, .friction = friction,
        .spec = omega_like};
    config.spec.position_quantum = quantum;
    tch_haptic_device* device = NULL;
    tch_haptic_open(tch_haptic_model_driver(), &config, &device, NULL);
    return device;
}

static void write_force(tch_haptic_device* device, tch_real fx) {
    tch_haptic_command c = {{fx, 0, 0}, {0, 0, 0}};
    tch_haptic_write(device, &c, NULL);
}

static void test_model_free_mass_friction_and_quantum(void) {
    tch_haptic_state s;
    /* undamped mass under a constant force: x = F t^2 / (2 m) */
    tch_haptic_device* device = open_model(1e-3, 0.2, 0, 0, 0);
    ENSURE(device != NULL);
    for (int k = 0; k < 100; k++) {
        write_force(device, 0.5);
    }
    tch_haptic_read(device, &s, NULL);
    ENSURE_NEAR(s.pose.p.x, 0.5 * 0.01 / (2 * 0.2), 1e-12);
    ENSURE_NEAR(s.velocity.x, 0.5 * 0.1 / 0.2, 1e-12);
    tch_haptic_close(device);

    /* Coulomb friction 1 N: a 0.8 N push does not move it; 2 N reaches (2 - 1) / b */
    device = open_model(1e-3, 0.2, 2, 1, 1e-4);
    tch_error err;
    ENSURE(tch_haptic_model_set_hand_force(device, tch_v3(0.8, 0, 0), &err) == TCH_OK);
    for (int k = 0; k < 100; k++) {
        write_force(device, 0);
    }
    tch_haptic_read(device, &s, NULL);
    ENSURE(s.pose.p.x == 0 && s.velocity.x == 0);
    write_force(device, 1.2); /* hand + command = 2 N */
    for (int k = 0; k < 2000; k++) {
        write_force(device, 1.2);
    }
    tch_haptic_read(device, &s, NULL);
    ENSURE_NEAR(s.velocity.x, 0.5, 1e-6); /* 20 time constants m / b */
    ENSURE_NEAR(s.pose.p.x / 1e-4, round(s.pose.p.x / 1e-4), 1e-9); /* a whole number of quanta */
    tch_haptic_close(device);

    ENSURE(tch_haptic_model_set_hand_force(NULL, tch_v3(0, 0, 0), &err) ==
           TCH_ERR_INVALID_ARGUMENT);
}

/* Hand force that brings the model device from velocity v0 to v1 in one period T against the
 * held command f: the closed-form zero-order-hold response of m dv/dt = F - b v inverted. */
static tch_real hand_force_for(tch_real v0, tch_real v1, tch_real f, tch_real m, tch_real b,
                               tch_real T) {
    if (b == 0) {
        return m * (v1 - v0) / T - f;
    }
    tch_real e = exp(-b * T / m);
    return b * (v1 - v0 * e) / (1 - e) - f;
}

/* The user presses the handle at speed v into a sampled virtual wall of stiffness K (command
 * -K x from the last read, held over T) to depth X, and leaves the same way, starting and
 * ending at rest. Returns the energy returned to the user, -sum f_hand dx; NAN when the device
 * missed a commanded velocity. */
static tch_real wall_cycle_energy(tch_real K, tch_real b, tch_real T, tch_real X, tch_real v) {
    const tch_real m = 0.2, wall = v * T / 2; /* the first tick ends exactly on the wall */
    tch_haptic_device* device = open_model(T, m, b, 0, 0);
    int n = (int)lround(X / (v * T));
    tch_real returned = 0;
    for (int tick = 0; tick < 2 * n + 3; tick++) {
        tch_real target = tick == 0 ? v : tick <= n ? v : tick <= 2 * n + 1 ? -v : 0;
        tch_haptic_state s;
        tch_haptic_read(device, &s, NULL);
        tch_real f = -K * fmax(s.pose.p.x - wall, 0);
        tch_real hand = hand_force_for(s.velocity.x, target, f, m, b, T);
        tch_haptic_model_set_hand_force(device, tch_v3(hand, 0, 0), NULL);
        write_force(device, f);
        tch_haptic_state after;
        tch_haptic_read(device, &after, NULL);
        if (fabs(after.velocity.x - target) > 1e-9 * v) {
            returned = NAN;
        }
        returned -= hand * (after.pose.p.x - s.pose.p.x);
    }
    tch_haptic_state end;
    tch_haptic_read(device, &end, NULL);
    tch_haptic_close(device);
    return fabs(end.pose.p.x) < 1e-12 ? returned : NAN;
}

static void test_sampled_wall_passivity_matches_colgate_schenkel(void) {
    const tch_real T = 1e-3, X = 0.01, v = 0.1;
    /* undamped: the wall returns exactly K X v T (haptics.md: 2.0 mJ) */
    ENSURE_REL(wall_cycle_energy(2000, 0, T, X, v), 2000 * X * v * T, 1e-9);
    /* damped: passive iff K < 2 b / T. The net is K X v T - 2 b X v, less about b v^2 T
     * dissipated in the start, reversal and stop ticks. */
    const tch_real b = 1, critical = 2 * b / T;
    const tch_real ratios[] = {0.5, 0.9, 1.1, 2.0};
    for (int i = 0; i < 4; i++) {
        tch_real K = ratios[i] * critical;
        tch_real returned = wall_cycle_energy(K, b, T, X, v);
        tch_real predicted = 2 * X * v * (K * T / 2 - b) - b * v * v * T;
        printf("     K/Kc %.1f: returned %.6e J, predicted %.6e J\n", ratios[i], returned,
               predicted);
        ENSURE(ratios[i] < 1 ? returned < 0 : returned > 0);
        ENSURE_NEAR(returned, predicted, 1e-4 * fabs(predicted));
    }
}

/* ---- the exchange and the servo loop ---- */

static void test_mailbox_gives_the_newest_message_once(void) {
    tch_haptic_mailbox box;
    tch_haptic_mailbox_init(&box);
    tch_haptic_message m = {0};
    ENSURE(!tch_haptic_mailbox_take(&box, &m));
    for (int i = 1; i <= 5; i++) {
        m.time = i;
        tch_haptic_mailbox_publish(&box, &m);
    }
    ENSURE(tch_haptic_mailbox_take(&box, &m) && m.time == 5);
    ENSURE(!tch_haptic_mailbox_take(&box, &m));
    for (int i = 6; i <= 40; i++) { /* alternating: every slot rotation */
        m.time = i;
        tch_haptic_mailbox_publish(&box, &m);
        ENSURE(tch_haptic_mailbox_take(&box, &m) && m.time == i);
    }
}

enum { PUBLISHED = 100000 };

static void* publish_sequence(void* box) {
    for (int i = 1; i <= PUBLISHED; i++) {
        tch_haptic_message m = {.command = {{i, -i, 2 * i}, {0, 0, 0}}, .time = i};
        tch_haptic_mailbox_publish(box, &m);
    }
    return NULL;
}

/* A producer thread publishes 1..N; the consumer sees increasing, whole (untorn) messages and
 * ends with N. */
static void test_mailbox_across_threads(void) {
    static tch_haptic_mailbox box;
    tch_haptic_mailbox_init(&box);
    pthread_t producer;
    ENSURE(pthread_create(&producer, NULL, publish_sequence, &box) == 0);
    tch_haptic_message m;
    double last = 0;
    bool whole = true, increasing = true;
    while (last < PUBLISHED) {
        if (tch_haptic_mailbox_take(&box, &m)) {
            increasing &= m.time > last;
            whole &= m.command.force.x == m.time && m.command.force.y == -m.time &&
                     m.command.force.z == 2 * m.time;
            last = m.time;
        }
    }
    pthread_join(producer, NULL);
    ENSURE(whole && increasing && last == PUBLISHED);
}

static uint64_t servo_ticks(const tch_haptic_servo* servo) {
    return tch_haptic_servo_stats_of(servo).ticks;
}

/* Runs the loop until it has ticked `more` times after submitting a 1 N push (no timing
 * assertion: it waits for ticks, however long they take). */
static void test_servo_loop_renders_submitted_commands(void) {
    const tch_real T = 1e-3;
    tch_haptic_device* device = open_model(T, 0.2, 0, 0, 0);
    tch_haptic_safety_params params = {
        .max_force_rate = 1e9, .max_torque_rate = 1e9, .ramp_time = 0, .watchdog_timeout = 10};
    tch_haptic_servo* servo = NULL;
    tch_error err;
    ENSURE(tch_haptic_servo_start(device, &params, T, &servo, &err) == TCH_OK);
    tch_haptic_command push = {{1, 0, 0}, {0, 0, 0}};
    tch_haptic_servo_submit(servo, &push);
    uint64_t wanted = servo_ticks(servo) + 20;
    bool got_state = false;
    tch_haptic_state state;
    while (servo_ticks(servo) < wanted) {
        got_state |= tch_haptic_servo_take_state(servo, &state);
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
    }
    got_state |= tch_haptic_servo_take_state(servo, &state);
    tch_haptic_servo_stats stats;
    ENSURE(tch_haptic_servo_stop(servo, &stats, &err) == TCH_OK);
    ENSURE(got_state);
    ENSURE(stats.ticks >= 20 && stats.overruns <= stats.ticks);
    tch_haptic_read(device, &state, NULL);
    ENSURE(lround(state.time / T) == (long)stats.ticks); /* one device write per tick */
    ENSURE(state.velocity.x > 0 && state.pose.p.x > 0); /* the push was rendered */
    tch_haptic_close(device);
}

/* ---- the SpaceMouse's event-to-pose mapping ---- */

static tch_haptic_spacemouse_config spacemouse_config(bool position_mode) {
    return (tch_haptic_spacemouse_config){
        .period = 1e-3,
        .position_mode = position_mode,
        .translation_scale = 1e-3, /* m/s or m per count */
        .rotation_scale = 2e-3,    /* rad/s or rad per count */
        .deadzone = 5,
        .home = {tch_q_axis_angle(tch_v3(0, 0, 1), 0.3), tch_v3(0.1, 0.2, 0.3)},
        .spec = {.workspace_radius = 0.5}};
}

/* Rate mode: spacenavd's x, y (up), z (away from the user) drive world x, z, y; held for 100
 * ticks the pose moves v t and turns exp(w t) (world frame), reporting v and w; the deadzone
 * reads 0; the workspace bounds the offset from home. */
static void test_spacemouse_rate_mapping(void) {
    tch_haptic_spacemouse_config c = spacemouse_config(false);
    tch_haptic_state state = {.pose = c.home};
    tch_haptic_spacemouse_input in = {{100, -50, 20}, {0, 0, 30}, 0x5};
    for (int k = 0; k < 100; ++k) {
        state = tch_haptic_spacemouse_advance(&c, &state, &in);
    }
    tch_vec3 v = tch_v3(0.1, 0.02, -0.05), w = tch_v3(0, 0.06, 0);
    ENSURE(tch_v3_dist(state.velocity, v) < 1e-12);
    ENSURE(tch_v3_dist(state.angular, w) < 1e-15);
    ENSURE(tch_v3_dist(state.pose.p, tch_v3_madd(c.home.p, 0.1, v)) < 1e-12);
    tch_quat q = tch_q_mul(tch_q_from_rotvec(tch_v3_scale(w, 0.1)), c.home.q);
    ENSURE(fabs(fabs(tch_q_mul(q, tch_q_conj(state.pose.q)).w) - 1) < 1e-12);
    ENSURE(state.buttons == 0x5);
    ENSURE_NEAR(state.time, 0.1, 1e-12);
    in = (tch_haptic_spacemouse_input){{5, -5, 3}, {-4, 5, 0}, 0};
    tch_haptic_state still = tch_haptic_spacemouse_advance(&c, &state, &in);
    ENSURE(tch_v3_dist(still.pose.p, state.pose.p) == 0 && tch_v3_norm(still.velocity) == 0);
    ENSURE(tch_v3_norm(still.angular) == 0);
    in = (tch_haptic_spacemouse_input){{350, 0, 0}, {0, 0, 0}, 0};
    for (int k = 0; k < 2000; ++k) { /* 0.35 m/s for 2 s: stops at the 0.5 m workspace */
        state = tch_haptic_spacemouse_advance(&c, &state, &in);
    }
    ENSURE_NEAR(tch_v3_dist(state.pose.p, c.home.p), 0.5, 1e-12);
}

/* Position mode: the pose is home offset by the deflection, the velocities the differences. */
static void test_spacemouse_position_mapping(void) {
    tch_haptic_spacemouse_config c = spacemouse_config(true);
    tch_haptic_state state = {.pose = c.home};
    tch_haptic_spacemouse_input in = {{10, 20, 30}, {40, 0, 0}, 0};
    tch_haptic_state next = tch_haptic_spacemouse_advance(&c, &state, &in);
    ENSURE(tch_v3_dist(next.pose.p, tch_v3_add(c.home.p, tch_v3(0.01, 0.03, 0.02))) < 1e-15);
    tch_quat q = tch_q_mul(tch_q_axis_angle(tch_v3(1, 0, 0), 0.08), c.home.q);
    ENSURE(fabs(fabs(tch_q_mul(q, tch_q_conj(next.pose.q)).w) - 1) < 1e-12);
    ENSURE(tch_v3_dist(next.velocity, tch_v3(10, 30, 20)) < 1e-9);
    ENSURE(tch_v3_dist(next.angular, tch_v3(80, 0, 0)) < 1e-9);
    tch_haptic_state again = tch_haptic_spacemouse_advance(&c, &next, &in);
    ENSURE(tch_v3_dist(again.pose.p, next.pose.p) == 0 && tch_v3_norm(again.angular) < 1e-12);
}

/* Without libspnav in the build, or without the spacenavd daemon, open fails at once with the
 * reason (it does not wait for a daemon); a bad config is refused first. */
static void test_spacemouse_open_fails_with_the_reason(void) {
    tch_haptic_spacemouse_config c = spacemouse_config(false);
    tch_haptic_device* device = NULL;
    tch_error err = {0};
    tch_status s = tch_haptic_open(tch_haptic_spacemouse_driver(), &c, &device, &err);
    printf("  %s\n", err.message);
    if (s == TCH_OK) { /* a daemon and a device on this machine */
        tch_haptic_close(device);
        return;
    }
    ENSURE(device == NULL);
    ENSURE((s == TCH_ERR_UNSUPPORTED && strstr(err.message, "built without libspnav")) ||
           (s == TCH_ERR_IO && strstr(err.message, "spacenavd")));
    c.period = 0;
    ENSURE(tch_haptic_open(tch_haptic_spacemouse_driver(), &c, &device, &err) ==
           TCH_ERR_INVALID_ARGUMENT);
}

int main(void) {
    RUN_TEST(test_scripted_interpolates_and_holds_the_ends);
    RUN_TEST(test_scripted_bad_files_name_file_and_line);
    RUN_TEST(test_saturation_is_per_axis_and_torque_on_its_own);
    RUN_TEST(test_ramp_and_rate_limit);
    RUN_TEST(test_watchdog_and_nonfinite_zero_the_output);
    RUN_TEST(test_model_free_mass_friction_and_quantum);
    RUN_TEST(test_sampled_wall_passivity_matches_colgate_schenkel);
    RUN_TEST(test_mailbox_gives_the_newest_message_once);
    RUN_TEST(test_mailbox_across_threads);
    RUN_TEST(test_servo_loop_renders_submitted_commands);
    RUN_TEST(test_spacemouse_rate_mapping);
    RUN_TEST(test_spacemouse_position_mapping);
    RUN_TEST(test_spacemouse_open_fails_with_the_reason);
    return TEST_RESULT();
}
