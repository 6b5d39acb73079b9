/* The haptic loop over scenes: mocap bodies, the implicit virtual coupling, the 6-DOF pointer,
 * the passivity controller on closed scripted paths, faults, determinism and allocations. */
#define _GNU_SOURCE /* RTLD_NEXT, nanosleep */
#include <arpa/inet.h>
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "haptics/local_model.h"
#include "math/vec.h"
#include "test.h"
#include "touche/touche.h"

/* ---- counting heap calls, locks and file opening (not under a sanitizer, which intercepts
 * them itself) ---- */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define COUNTS_CALLS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define COUNTS_CALLS 0
#endif
#endif
#ifndef COUNTS_CALLS
#define COUNTS_CALLS 1
#endif

static long malloc_calls, lock_calls, open_calls;

#if COUNTS_CALLS
extern void* __libc_malloc(size_t size);
extern void* __libc_calloc(size_t count, size_t size);
extern void* __libc_realloc(void* p, size_t size);
void* malloc(size_t size) {
    malloc_calls++;
    return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
    malloc_calls++;
    return __libc_calloc(count, size);
}
void* realloc(void* p, size_t size) {
    malloc_calls++;
    return __libc_realloc(p, size);
}
int pthread_mutex_lock(pthread_mutex_t* mutex) {
    static int (*next)(pthread_mutex_t*);
    if (!next) {
        void* symbol = dlsym(RTLD_NEXT, "pthread_mutex_lock");
        memcpy(&next, &symbol, sizeof next); /* POSIX: a function's address as an object's */
    }
    lock_calls++;
    return next(mutex);
}
FILE* fopen(const char* path, const char* mode) {
    static FILE* (*next)(const char*, const char*);
    if (!next) {
        void* symbol = dlsym(RTLD_NEXT, "fopen");
        memcpy(&next, &symbol, sizeof next);
    }
    open_calls++;
    return next(path, mode);
}
#endif

static const tch_haptic_spec sigma_like = {.workspace_radius = 0.075,
                                           .max_force = 12,
                                           .max_torque = 0.2,
                                           .max_stiffness = 4000,
                                           .max_damping = 30};

static void write_text(const char* path, const char* text) {
    FILE* f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
}

typedef struct scene {
    tch_spec* spec;
    tch_model* model;
    tch_data* data;
} scene;

static int scene_load(const char* xml, scene* s, tch_error* err) {
    *s = (scene){0};
    if (tch_mjcf_load_string(xml, ".", "scene.xml", &s->spec, err) != TCH_OK) return 0;
    if (tch_compile(s->spec, &s->model, err) != TCH_OK) return 0;
    return tch_data_create(s->model, &s->data, err) == TCH_OK;
}

static void scene_free(scene* s) {
    tch_data_destroy(s->data);
    tch_model_destroy(s->model);
    tch_spec_destroy(s->spec);
}

static tch_haptic_device* open_scripted(const char* path, tch_real period) {
    tch_haptic_scripted_config c = {.path = path, .period = period, .spec = sigma_like};
    tch_haptic_device* device = NULL;
    tch_error err;
    return tch_haptic_open(tch_haptic_scripted_driver(), &c, &device, &err) == TCH_OK ? device
                                                                                      : NULL;
}

static tch_haptic_loop_config loop_config(tch_real period, bool passivity) {
    tch_haptic_loop_config c = {.body = -1, .period = period, .passivity_control = passivity,
                                .safety = tch_haptic_safety_defaults(&sigma_like)};
    return c;
}

/* ---- scenes ---- */

static const char* POINTER_SCENE =
    "<mujoco xmlns:touche='urn:touche'>"
    "<option timestep='0.001' touche:contact='volume' %s/>"
    "<worldbody>"
    "  <geom name='wall' type='box' pos='0 0 -0.1' size='0.1 0.1 0.1'/>"
    "  <body name='pointer' pos='0 0 0.02' mocap='true' touche:haptic='pointer'>"
    "    <geom name='tip' type='box' size='0.01 0.01 0.01'/>"
    "  </body>"
    "</worldbody></mujoco>";

/* The pointer scene with extra attributes on <option> ("" for none). */
static int load_pointer(const char* option, scene* s, tch_error* err) {
    char xml[1024];
    snprintf(xml, sizeof xml, POINTER_SCENE, option);
    return scene_load(xml, s, err);
}

static void test_mjcf_mocap_and_haptic_attributes(void) {
    scene s;
    tch_error err;
    ENSURE(scene_load(
        "<mujoco xmlns:touche='urn:touche'><worldbody>"
        "<body name='tool' pos='0 0 1'><freejoint/><geom type='sphere' size='0.1'/></body>"
        "<body name='hand' pos='0 0 2' mocap='true' touche:haptic='coupling' touche:tool='tool'"
        " touche:linear_stiffness='800' touche:angular_damping='0.5'>"
        "  <geom type='sphere' size='0.05' contype='0' conaffinity='0'/></body>"
        "</worldbody></mujoco>",
        &s, &err));
    int hand = tch_model_body_index(s.model, "hand"), tool = tch_model_body_index(s.model, "tool");
    ENSURE(s.model->mocap_count == 1 && s.model->body_mocap[hand] == 0);
    ENSURE(s.model->body_mocap[tool] == -1 && s.model->nq == 7);
    ENSURE(s.model->body_haptic[hand].renderer == TCH_HAPTIC_COUPLING);
    ENSURE(s.model->body_haptic_tool[hand] == tool);
    tch_haptic_coupling_gains g = tch_haptic_coupling_gains_of(s.model, hand, &sigma_like);
    ENSURE(g.linear_stiffness == 800 && g.angular_damping == 0.5);
    tch_real m = s.model->body_total_mass[tool];
    ENSURE_REL(g.linear_damping, 2 * sqrt(800 * m), 1e-12);
    ENSURE_NEAR(s.data->mocap_X_WB[0].p.z, 2, 0);
    /* a mocap pose and velocity set from outside: the kinematics and the body state follow */
    s.data->mocap_X_WB[0].p = tch_v3(1, 2, 3);
    s.data->mocap_v_W[0] = tch_v3(0.5, 0, 0);
    s.data->mocap_w_W[0] = tch_v3(0, 0, 2);
    ENSURE(tch_step(s.model, s.data, &err) == TCH_OK);
    tch_transform X;
    tch_vec3 v, w;
    tch_data_body_state(s.model, s.data, hand, &X, &v, &w);
    ENSURE(X.p.x == 1 && X.p.y == 2 && X.p.z == 3); /* not integrated */
    ENSURE(v.x == 0.5 && w.z == 2);
    scene_free(&s);
    const char* bad[][2] = {
        {"<body name='a' touche:haptic='pointer'><freejoint/><geom size='1'/></body>",
         "needs a mocap body"},
        {"<body name='a' mocap='true' touche:haptic='coupling'/>", "needs touche:tool"},
        {"<body name='a' mocap='true' touche:haptic='coupling' touche:tool='a'/>",
         "must name a free body"},
        {"<body name='a' mocap='true'><freejoint/><geom size='1'/></body>", "without a joint"},
        {"<body name='a' mocap='maybe'/>", "mocap"},
        {"<body name='a' mocap='true' touche:haptic='glove'/>", "touche:haptic"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        char xml[1024];
        snprintf(xml, sizeof xml, "<mujoco xmlns:touche='urn:touche'><worldbody>%s"
                                  "</worldbody></mujoco>", bad[i][0]);
        ENSURE(!scene_load(xml, &s, &err));
        ENSURE(strstr(err.message, bad[i][1]) != NULL);
        ENSURE(err.line == 1);
        scene_free(&s);
    }
}

/* A mocap box swept through a resting box with the volume model: the contact sees the mocap
 * body's velocity (its damping pushes the free box harder than the same overlap at rest). */
static void test_mocap_velocity_reaches_the_contact(void) {
    const char* xml = "<mujoco xmlns:touche='urn:touche'><option gravity='0 0 0' "
                      "touche:contact='volume'/><worldbody>"
                      "<body name='box' pos='0 0 0'><freejoint/>"
                      "<geom type='box' size='0.05 0.05 0.05'/></body>"
                      "<body name='pusher' pos='-0.099 0 0' mocap='true'>"
                      "<geom type='box' size='0.05 0.05 0.05'/></body>"
                      "</worldbody></mujoco>";
    tch_real force[2];
    for (int moving = 0; moving < 2; ++moving) {
        scene s;
        tch_error err;
        ENSURE(scene_load(xml, &s, &err));
        s.data->mocap_v_W[0] = tch_v3(moving ? 0.1 : 0, 0, 0);
        ENSURE(tch_step_begin(s.model, s.data, &err) == TCH_OK);
        force[moving] = s.data->body_force_W[tch_model_body_index(s.model, "box")].x;
        ENSURE(tch_step_end(s.model, s.data, &err) == TCH_OK);
        scene_free(&s);
    }
    ENSURE(force[0] > 0);
    ENSURE(force[1] > force[0]);
}

/* ---- the coupling ---- */

static const char* COUPLING_SCENE =
    "<mujoco xmlns:touche='urn:touche'><option gravity='0 0 0' timestep='0.001' %s/>"
    "<worldbody>"
    "<body name='tool' pos='0.01 0 0'><freejoint/>"
    "<geom type='box' size='0.02 0.02 0.02' mass='0.5'/></body>"
    "<body name='device' mocap='true' touche:haptic='coupling' touche:tool='tool'"
    " touche:linear_stiffness='%g' touche:linear_damping='%g'/>"
    "</worldbody></mujoco>";

/* The first step is backward Euler of the tool on the spring-damper: v1 = -h k e / (m + h c),
 * c = b + h k, whether the engine's implicit system integrates the coupling (the default
 * integrator: the tool's applied force is the spring's at the step's start, its stiffness and
 * damping in tch_data.applied_spring) or the tool's own closed form does (semi-implicit Euler:
 * the applied force is that solution's, -k e / (1 + h c / m)); and at a stiffness far beyond
 * any explicit limit (k h^2 / m = 20) the energy 1/2 m v^2 + 1/2 k e^2 never grows. */
static void check_coupling_is_implicit(const char* option, bool engine) {
    const tch_real k = 1e7, b = 0, h = 1e-3, m = 0.5, e = 0.01;
    char xml[1024];
    snprintf(xml, sizeof xml, COUPLING_SCENE, option, k, b);
    scene s;
    tch_error err;
    ENSURE(scene_load(xml, &s, &err) || !fprintf(stderr, "%s\n", err.message));
    write_text("haptic_hold.csv", "time,x,y,z\n0,0,0,0\n");
    tch_haptic_device* device = open_scripted("haptic_hold.csv", h);
    ENSURE(device);
    tch_haptic_loop_config config = loop_config(h, false);
    tch_haptic_loop* loop = NULL;
    ENSURE(tch_haptic_loop_create(s.model, s.data, device, &config, &loop, &err) == TCH_OK);
    tch_haptic_tick tick;
    ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK && tick.stepped);
    tch_real c = b + h * k;
    ENSURE_REL(s.data->qvel[0], -h * k * e / (m + h * c), 1e-12);
    int tool = tch_haptic_loop_tool(loop);
    tch_vec3 on_tool = s.data->body_force_applied_W[tool];
    ENSURE_REL(on_tool.x, engine ? -k * e : -k * e / (1 + h * c / m), 1e-12);
    ENSURE(s.data->applied_spring.body == (engine ? tool : 0));
    ENSURE(!engine || s.data->applied_spring.stiffness == k);
    tch_real energy = 0.5 * k * e * e;
    for (int i = 0; i < 1000; ++i) {
        ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK);
        tch_real x = s.data->qpos[0], v = s.data->qvel[0];
        tch_real now = 0.5 * m * v * v + 0.5 * k * x * x;
        ENSURE(now <= energy * (1 + 1e-12));
        energy = now;
    }
    ENSURE(energy < 1e-6 * 0.5 * k * e * e);
    tch_haptic_loop_destroy(loop);
    ENSURE(s.data->applied_spring.body == 0);
    tch_haptic_close(device);
    scene_free(&s);
}

static void test_coupling_is_implicit(void) {
    for (int engine = 0; engine < 2; ++engine) {
        check_coupling_is_implicit(engine ? "" : "integrator='Euler'", engine);
    }
}

/* The device's full spec stiffness through the coupling against stiff contact, unscaled: a
 * 64 g tool resting on a static box (volume model, about 1e5 N/m under its face), coupled at the
 * default gains of the `model` device rated 5000 N/m (0.2 kg, 2 N s/m, no friction or
 * quantization), servo 1 kHz, scene step 2 ms; settled, then the hand presses 2 N down for 0.3 s
 * and lets go. At the end of the press the coupling's own stretch is 2 N / 5000 N/m and the
 * hand feels the coupling and the contact in series, 1 / (1/k + 1/k_env) with k_env 2 N over
 * the tool's sink; 0.5 s after letting go the handle is at rest. (The coupling outside the
 * engine's system felt 1.7 kN/m here.) */
static void test_coupling_renders_the_device_stiffness(void) {
    scene s;
    tch_error err;
    ENSURE(scene_load("<mujoco xmlns:touche='urn:touche'><option touche:contact='volume'/>"
                      "<worldbody><geom name='box' type='box' pos='0 0 0.05' size='0.05 0.05 0.05'/>"
                      "<body name='tool' pos='0 0 0.12'><freejoint/>"
                      "<geom type='box' size='0.02 0.02 0.02'/></body>"
                      "<body name='device' pos='0 0 0.12' mocap='true' touche:haptic='coupling'"
                      " touche:tool='tool'/></worldbody></mujoco>",
                      &s, &err));
    const tch_real T = 1e-3, k = 5000, press = 2;
    tch_haptic_model_config c = {.period = T, .mass = 0.2, .damping = 2,
                                 .spec = {.max_force = 12, .max_stiffness = k,
                                          .max_damping = 30}};
    tch_haptic_device* device = NULL;
    ENSURE(tch_haptic_open(tch_haptic_model_driver(), &c, &device, &err) == TCH_OK);
    tch_haptic_loop_config config = loop_config(T, false);
    config.base_at_body = true;
    config.safety = tch_haptic_safety_defaults(&c.spec);
    tch_haptic_loop* loop = NULL;
    ENSURE(tch_haptic_loop_create(s.model, s.data, device, &config, &loop, &err) == TCH_OK);
    ENSURE(tch_haptic_loop_gains(loop).linear_stiffness == k);
    int tool = tch_haptic_loop_tool(loop);
    tch_real handle_rest = 0, tool_rest = 0, settled_speed = 0, settled_force = 0;
    for (int i = 0; i < 1000; ++i) {
        tch_haptic_tick tick;
        ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK);
        if (i == 199) {
            handle_rest = tick.state.pose.p.z, tool_rest = s.data->body_p_WCm[tool].z;
            tch_haptic_model_set_hand_force(device, tch_v3(0, 0, -press), &err);
        }
        if (i == 499) {
            tch_real handle_sink = handle_rest - tick.state.pose.p.z;
            tch_real tool_sink = tool_rest - s.data->body_p_WCm[tool].z;
            tch_real k_env = press / tool_sink, felt = press / handle_sink;
            printf("  felt %.1f N/m, coupling %.1f N/m, contact %.0f N/m\n", felt,
                   press / (handle_sink - tool_sink), k_env);
            ENSURE_REL(tick.command.force.z, press, 1e-4);
            ENSURE_REL(press / (handle_sink - tool_sink), k, 1e-3);
            ENSURE_REL(felt, 1 / (1 / k + 1 / k_env), 1e-3);
            ENSURE(k_env > 10 * k); /* stiff contact */
            tch_haptic_model_set_hand_force(device, tch_v3_zero(), &err);
        }
        if (i >= 999 - 100) {
            settled_speed = fmax(settled_speed, tch_v3_norm(tick.state.velocity));
            settled_force = fmax(settled_force, tch_v3_norm(tick.command.force));
        }
    }
    ENSURE(settled_speed < 1e-6 && settled_force < 1e-3);
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    scene_free(&s);
}

/* A box thrown (1 m/s, 20 rad/s) while coupled with the default gains to a device held still,
 * at dt 1 ms and 0.5 ms, gravity on: the total energy (kinetic, gravitational, the coupling's
 * springs) never rises by more than 1e-6 of the initial kinetic energy above any earlier
 * value. */
static void test_coupled_throw_never_gains_energy(void) {
    const tch_real steps[] = {1e-3, 5e-4};
    for (int i = 0; i < 2; ++i) {
        char xml[1024];
        snprintf(xml, sizeof xml,
                 "<mujoco xmlns:touche='urn:touche'><option timestep='%g'/><worldbody>"
                 "<body name='tool'><freejoint/><geom type='box' size='0.02 0.03 0.04'/></body>"
                 "<body name='device' mocap='true' touche:haptic='coupling' touche:tool='tool'/>"
                 "</worldbody><keyframe><key qvel='0.6 0 0.8 0 20 5'/></keyframe></mujoco>",
                 steps[i]);
        scene s;
        tch_error err;
        ENSURE(scene_load(xml, &s, &err));
        ENSURE(tch_data_reset_key(s.model, s.data, 0, &err) == TCH_OK);
        write_text("haptic_hold.csv", "time,x,y,z\n0,0,0,0\n");
        tch_haptic_device* device = open_scripted("haptic_hold.csv", steps[i]);
        tch_haptic_loop_config config = loop_config(steps[i], false);
        tch_haptic_loop* loop = NULL;
        ENSURE(tch_haptic_loop_create(s.model, s.data, device, &config, &loop, &err) == TCH_OK);
        tch_haptic_coupling_gains g = tch_haptic_loop_gains(loop);
        tch_real kinetic0 = tch_data_energy(s.model, s.data), lowest = INFINITY, rise = 0;
        for (int k = 0; k < lround(0.5 / steps[i]); ++k) {
            tch_haptic_tick tick;
            ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK);
            tch_transform X;
            tch_vec3 v, w;
            tch_data_body_state(s.model, s.data, 1, &X, &v, &w);
            tch_real angle = 2 * atan2(tch_v3_norm(tch_v3(X.q.x, X.q.y, X.q.z)), fabs(X.q.w));
            tch_real energy = tch_data_energy(s.model, s.data) +
                              0.5 * g.linear_stiffness * tch_v3_norm2(s.data->body_p_WCm[1]) +
                              0.5 * g.angular_stiffness * angle * angle;
            rise = fmax(rise, energy - lowest);
            lowest = fmin(lowest, energy);
        }
        printf("  dt %g: largest rise %.3g of the initial kinetic energy\n", steps[i],
               rise / kinetic0);
        ENSURE(rise <= 1e-6 * kinetic0);
        tch_haptic_loop_destroy(loop);
        tch_haptic_close(device);
        scene_free(&s);
    }
}

/* Two threads on the wall clock: every tick is filled in time order, the physics ran (the tool
 * moved onto the device), and the tick records show the rendered spring. No timing asserted.
 * SCHED_FIFO and locked memory are asked for: each is granted or refused with its reason (the
 * memory is not locked under a sanitizer, whose shadow mappings are terabytes). */
/* A coupled tool 1 cm from a held device, run `count` ticks on two threads with the real-time
 * requests given; the caller frees with end_threaded. */
typedef struct threaded_run {
    scene s;
    tch_haptic_device* device;
    tch_haptic_loop* loop;
} threaded_run;

static void run_threaded_coupling(int fifo_priority, bool lock_memory, long count,
                                  tch_haptic_tick* ticks, tch_haptic_timing* timing,
                                  threaded_run* r) {
    char xml[1024];
    snprintf(xml, sizeof xml, COUPLING_SCENE, "", 400.0, 20.0);
    tch_error err;
    ENSURE(scene_load(xml, &r->s, &err));
    write_text("haptic_hold.csv", "time,x,y,z\n0,0,0,0\n");
    r->device = open_scripted("haptic_hold.csv", 1e-3);
    tch_haptic_loop_config config = loop_config(1e-3, true);
    config.safety.watchdog_timeout = 10; /* a loaded machine may stall the physics */
    config.fifo_priority = fifo_priority;
    config.lock_memory = lock_memory;
    r->loop = NULL;
    ENSURE(tch_haptic_loop_create(r->s.model, r->s.data, r->device, &config, &r->loop, &err) ==
           TCH_OK);
    ENSURE(tch_haptic_loop_run_threaded(r->loop, count, ticks, timing, &err) == TCH_OK);
}

static void end_threaded(threaded_run* r) {
    tch_haptic_loop_destroy(r->loop);
    tch_haptic_close(r->device);
    scene_free(&r->s);
}

static void test_threaded_run_renders_the_coupling(void) {
    enum { COUNT = 300 };
    static tch_haptic_tick ticks[COUNT];
    static tch_haptic_timing timing[COUNT];
    threaded_run run;
    run_threaded_coupling(10, COUNTS_CALLS, COUNT, ticks, timing, &run);
    for (int k = 1; k < COUNT; ++k) {
        ENSURE(ticks[k].time > ticks[k - 1].time);
        ENSURE(timing[k].busy >= 0 && timing[k].late >= 0);
    }
    ENSURE(run.s.data->time > 0.05);
    ENSURE(fabs(run.s.data->qpos[0]) < 0.01); /* pulled from 1 cm towards the device */
    /* the spring rendered (a loaded machine may miss deadlines: those ticks are zeroed) */
    int rendered = 0;
    for (int k = 0; k < COUNT; ++k) {
        ENSURE(!(ticks[k].safety_flags & (TCH_HAPTIC_NONFINITE | TCH_HAPTIC_READ_FAILED)));
        rendered += tch_v3_norm(ticks[k].command.force) > 0;
    }
    ENSURE(rendered > 0);
    tch_haptic_realtime rt = tch_haptic_loop_realtime(run.loop);
    printf("  SCHED_FIFO %d, memory locked %d (%s)\n", rt.fifo, rt.memory_locked, rt.reason);
    ENSURE(rt.fifo || strstr(rt.reason, "SCHED_FIFO"));
    ENSURE(rt.memory_locked || !COUNTS_CALLS || strstr(rt.reason, "mlockall"));
    end_threaded(&run);
}

/* A SCHED_FIFO priority outside 1 to 99 is refused with its reason, and the run goes on on the
 * normal scheduler (the other refusals: test_haptic_cli.sh, with the capabilities dropped). */
static void test_threaded_run_survives_a_refused_priority(void) {
    enum { COUNT = 50 };
    static tch_haptic_tick ticks[COUNT];
    static tch_haptic_timing timing[COUNT];
    threaded_run run;
    run_threaded_coupling(100, false, COUNT, ticks, timing, &run);
    tch_haptic_realtime rt = tch_haptic_loop_realtime(run.loop);
    ENSURE(!rt.fifo && !rt.memory_locked);
    ENSURE(strcmp(rt.reason, "SCHED_FIFO: invalid (SCHED_FIFO priorities are 1 to 99)") == 0);
    ENSURE(ticks[COUNT - 1].time > 0 && run.s.data->time > 0);
    end_threaded(&run);
}

/* ---- the pointer and passivity ---- */

/* Runs a scripted path on the scene `xml`; returns the largest energy returned to the user
 * so far over the path, max over n of sum_{k<n} F_k . (x_{k+1} - x_k), J, and fills the
 * loop's ledger. */
static tch_real run_path(const char* xml, const char* path_csv, tch_real duration,
                         bool passivity, tch_haptic_ledger* ledger, tch_real* largest_force) {
    scene s;
    tch_error err;
    if (!scene_load(xml, &s, &err)) return NAN;
    write_text("haptic_path.csv", path_csv);
    tch_haptic_device* device = open_scripted("haptic_path.csv", 1e-3);
    tch_haptic_loop_config config = loop_config(1e-3, passivity);
    config.safety.ramp_time = 0;
    tch_haptic_loop* loop = NULL;
    if (!device || tch_haptic_loop_create(s.model, s.data, device, &config, &loop, &err) != TCH_OK) {
        return NAN;
    }
    tch_real returned = 0, worst = 0;
    *largest_force = 0;
    tch_haptic_tick last = {0};
    long ticks = lround(duration / 1e-3);
    for (long k = 0; k <= ticks; ++k) {
        tch_haptic_tick tick;
        if (tch_haptic_loop_tick(loop, &tick, &err) != TCH_OK) return NAN;
        if (k > 0) {
            returned += tch_v3_dot(last.command.force,
                                   tch_v3_sub(tick.state.pose.p, last.state.pose.p));
            worst = fmax(worst, returned);
        }
        *largest_force = fmax(*largest_force, tch_v3_norm(tick.command.force));
        last = tick;
    }
    *ledger = tch_haptic_loop_passivity(loop)->ledger;
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    scene_free(&s);
    return worst;
}

/* The force of every tick of the pointer of the scene `xml` along the scripted path `path_csv`,
 * servo 1 kHz, no passivity controller and no ramp. */
static void run_pointer(const char* xml, const char* path_csv, tch_vec3* force, int count) {
    scene s;
    tch_error err;
    ENSURE(scene_load(xml, &s, &err));
    write_text("haptic_path.csv", path_csv);
    tch_haptic_device* device = open_scripted("haptic_path.csv", 1e-3);
    tch_haptic_loop_config config = loop_config(1e-3, false);
    config.safety.ramp_time = 0;
    tch_haptic_loop* loop = NULL;
    ENSURE(tch_haptic_loop_create(s.model, s.data, device, &config, &loop, &err) == TCH_OK);
    for (int k = 0; k < count; ++k) {
        tch_haptic_tick tick;
        ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK);
        force[k] = tick.command.force;
    }
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    scene_free(&s);
}

/* The force of every tick of a volume pointer pressed at 0.75 mm/s from 0.1 to 0.25 mm into a
 * static box (undamped material), scene step `step`. */
static void press_pointer(tch_real step, tch_vec3* force, int count) {
    char xml[1024];
    snprintf(xml, sizeof xml,
             "<mujoco xmlns:touche='urn:touche'><option timestep='%g' touche:contact='volume'"
             " touche:damping='0'/><worldbody>"
             "<geom name='wall' type='box' pos='0 0 -0.1' size='0.1 0.1 0.1'/>"
             "<body name='pointer' pos='0 0 0.0099' mocap='true' touche:haptic='pointer'>"
             "<geom name='tip' type='box' size='0.01 0.01 0.01'/></body>"
             "</worldbody></mujoco>", step);
    run_pointer(xml, "time,x,y,z\n0,0,0,0.0099\n0.2,0,0,0.00975\n", force, count);
}

/* Between physics steps the pointer's local model follows the hand: with the scene stepping
 * every 10 ms (10 ticks), the force of every tick equals that of the scene stepping every tick
 * (the force of a face pressed into the volume model is linear in the depth, so the linearized
 * model is exact) to 1e-6 of the force; the held wrench of the last step would lag by up to 9
 * ticks of the press. */
static void test_pointer_local_model_follows_the_hand(void) {
    enum { COUNT = 200 };
    tch_vec3 every_tick[COUNT], every_ten[COUNT];
    press_pointer(1e-3, every_tick, COUNT);
    press_pointer(1e-2, every_ten, COUNT);
    tch_real worst = 0, lag = 0;
    for (int k = 10; k < COUNT; ++k) {
        worst = fmax(worst, fabs(every_ten[k].z - every_tick[k].z));
        lag = fmax(lag, fabs(every_ten[k - k % 10].z - every_tick[k].z));
    }
    tch_real end = every_tick[COUNT - 1].z;
    printf("  largest difference %.3g N (held wrench: %.3g N), force %.3g N at the end\n",
           worst, lag, end);
    ENSURE(end > 1 && end < 11.9); /* not saturated */
    ENSURE(lag > 0.1);
    ENSURE(worst <= 1e-6 * end);
}

/* A compliant sphere pointer (R 1 cm, E 1e6 Pa, resolution 2 mm, undamped, mu 1) over a rigid
 * box, its centre starting 0.2 mm above the face, scene step `step`. */
static void pressure_sphere_scene(tch_real step, char* xml, size_t size) {
    snprintf(xml, size,
             "<mujoco xmlns:touche='urn:touche'><option timestep='%g' touche:contact='pressure'/>"
             "<worldbody><geom name='wall' type='box' pos='0 0 -0.1' size='0.1 0.1 0.1'"
             " touche:rigid='true'/>"
             "<body name='pointer' pos='0 0 0.0102' mocap='true' touche:haptic='pointer'>"
             "<geom name='tip' type='sphere' size='0.01' touche:modulus='1e6'"
             " touche:resolution='0.002' touche:dissipation='0'/></body>"
             "</worldbody></mujoco>", step);
}

/* The pressure pointer's local model (the hydroelastic wrench's K and D, and its friction
 * evaluated at each tick's slip): the sphere above pressed 1 mm at 5 mm/s (to a depth of 0.8
 * mm), held, slid 4 mm at 10 mm/s, held. At the end of the press the force is the closed form
 * of a compliant sphere on a half-space, F = pi E d^2 (1 - 2d / 3R) (docs/contact-pressure.md),
 * to 1%; with the scene stepping every 10 ms every tick renders the force of the scene stepping
 * every tick: the normal force to 2e-3 of F (held between steps, it lagged by up to 9 ticks of
 * the press), the friction to 3e-2 of F (the sliding sphere's patch changes as its tets pass
 * over the face, which a step sees and the local model does not). The slide starts from rest
 * between two steps: the friction stays under mu F (the linearized friction alone, a damper
 * of mu F / v_s, gave 9 mu F at the first tick). */
static void test_pressure_pointer_local_model_follows_the_hand(void) {
    enum { COUNT = 600 };
    const char* path = "time,x,y,z\n0,0,0,0.0102\n0.1,0,0,0.0102\n0.3,0,0,0.0092\n"
                       "0.35,0,0,0.0092\n0.55,0.002,0,0.0092\n0.6,0.002,0,0.0092\n";
    tch_vec3 every_tick[COUNT], every_ten[COUNT];
    char xml[1024];
    pressure_sphere_scene(1e-3, xml, sizeof xml);
    run_pointer(xml, path, every_tick, COUNT);
    pressure_sphere_scene(1e-2, xml, sizeof xml);
    run_pointer(xml, path, every_ten, COUNT);
    tch_real d = 0.0008, R = 0.01;
    tch_real closed = TCH_PI * 1e6 * d * d * (1 - 2 * d / (3 * R));
    tch_real normal = 0, friction = 0, held = 0, largest_friction = 0;
    for (int k = 10; k < COUNT; ++k) {
        normal = fmax(normal, fabs(every_ten[k].z - every_tick[k].z));
        friction = fmax(friction, fabs(every_ten[k].x - every_tick[k].x));
        held = fmax(held, fabs(every_ten[k - k % 10].z - every_tick[k].z));
        largest_friction = fmax(largest_friction, fabs(every_ten[k].x) / every_ten[k].z);
    }
    printf("  F %.6g N (closed form %.6g N); 10 ms against 1 ms: normal %.3g N (held: %.3g N), "
           "friction %.3g N (%.3g N at the slide); largest friction %.3g F\n",
           every_tick[349].z, closed, normal, held, friction, every_tick[450].x,
           largest_friction);
    ENSURE_REL(every_tick[349].z, closed, 1e-2);
    ENSURE(normal <= 2e-3 * closed);
    ENSURE(held > 10 * normal);
    ENSURE(friction <= 3e-2 * closed);
    ENSURE(every_tick[450].x < -0.5 * closed); /* it slides, against friction */
    ENSURE(largest_friction <= 1);
}

/* The 2 cm volume pointer tip 0.2 mm above a static box (default material), scene step
 * `step`. */
static void volume_pointer_scene(tch_real step, char* xml, size_t size) {
    snprintf(xml, size,
             "<mujoco xmlns:touche='urn:touche'><option timestep='%g' touche:contact='volume'/>"
             "<worldbody><geom name='wall' type='box' pos='0 0 -0.1' size='0.1 0.1 0.1'/>"
             "<body name='pointer' pos='0 0 0.0102' mocap='true' touche:haptic='pointer'>"
             "<geom name='tip' type='box' size='0.01 0.01 0.01'/></body>"
             "</worldbody></mujoco>", step);
}

/* The volume pointer's friction evaluated at each tick (the model's static springs and
 * dynamic Coulomb friction at the centroid of the contact area): the 2 cm tip pressed 0.2 mm
 * into a static box (default material: 8 N at rest, mu = mu_0 = 1), held, slid 2 mm at 10
 * mm/s, held. With the scene stepping every 10 ms every tick renders the friction of the scene
 * stepping every tick to 1e-6 of mu F_n (measured 5e-14 N; with the linearized friction alone
 * the static springs pulled to 9 N, past mu_0 F_n, over the slide's first step, and the dynamic
 * friction held 8 N for up to a step after the hand stopped); it never exceeds mu_0 F_n of the
 * tick's normal force, and it is gone when the hand stops, as at a 1 ms step. */
static void test_volume_pointer_friction_follows_the_hand(void) {
    enum { COUNT = 450, STOP = 350 };
    const char* path = "time,x,y,z\n0,0,0,0.0102\n0.1,0,0,0.0098\n0.15,0,0,0.0098\n"
                       "0.35,0.002,0,0.0098\n0.45,0.002,0,0.0098\n";
    tch_vec3 every_tick[COUNT], every_ten[COUNT];
    char xml[1024];
    volume_pointer_scene(1e-3, xml, sizeof xml);
    run_pointer(xml, path, every_tick, COUNT);
    volume_pointer_scene(1e-2, xml, sizeof xml);
    run_pointer(xml, path, every_ten, COUNT);
    tch_real friction = 0, largest = 0, normal = every_tick[149].z;
    for (int k = 10; k < COUNT; ++k) {
        friction = fmax(friction, fabs(every_ten[k].x - every_tick[k].x));
        largest = fmax(largest, fabs(every_ten[k].x) / every_ten[k].z);
    }
    printf("  F_n %.4g N; 10 ms against 1 ms: friction %.3g N (%.4g N at the slide); largest "
           "friction %.6g F_n; after the stop %.3g N (1 ms: %.3g N)\n",
           normal, friction, every_tick[300].x, largest, every_ten[STOP + 2].x,
           every_tick[STOP + 2].x);
    ENSURE_REL(normal, 8.0, 1e-2);
    ENSURE(every_tick[300].x < -0.9 * normal); /* it slides, against friction */
    ENSURE(friction <= 1e-6 * normal);
    ENSURE(largest <= 1 + 1e-9);
    ENSURE(fabs(every_ten[STOP + 2].x) <= 1e-6 * normal);
}

/* The local model's moving bodies (seed 003's mobility; docs/haptics.md): a free 100 kg block
 * in zero gravity, the pointer (a flat volume tip, undamped material) held 0.1 mm into its top
 * face, the model made at the step's start with the block at rest and run from there at
 * 10 kHz. Each tick the block's momentum changes by the impulse the hand feels, reversed:
 * m (v+ - v) = -T f_pointer (Newton's third law through the linearization, to 1e-9), and over
 * 400 ticks (omega t = 0.8 for the face's stiffness k and omega = sqrt(k / m)) its motion is
 * the closed form of a mass pushed from rest by a spring preloaded to F0,
 * u = (F0 / k)(1 - cos omega t), v = (F0 / (m omega)) sin omega t (F0 < 0: pushed down), to
 * 1% (backward Euler's error at omega T = 0.002; a force held at F0 would be 5% off at the
 * end). */
static void test_local_model_moves_a_touched_block_by_m_a_equals_f(void) {
    const char* xml =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.01' gravity='0 0 0'"
        " touche:contact='volume' touche:damping='0'/><worldbody>"
        "<body name='block' pos='0 0 0'><freejoint/>"
        "<geom type='box' size='0.05 0.05 0.05' mass='100'/></body>"
        "<body name='pointer' pos='0 0 0.0599' mocap='true' touche:haptic='pointer'>"
        "<geom name='tip' type='box' size='0.01 0.01 0.01'/></body>"
        "</worldbody></mujoco>";
    scene s;
    tch_error err;
    ENSURE(scene_load(xml, &s, &err));
    int pointer = tch_model_body_index(s.model, "pointer");
    const tch_real T = 1e-4, m = 100;
    static tch_haptic_local_model local;
    static tch_haptic_local_state state;
    ENSURE(tch_step_begin(s.model, s.data, &err) == TCH_OK);
    tch_haptic_local_model_begin(s.model, s.data, pointer, T, 1, &local);
    ENSURE(tch_step_end(s.model, s.data, &err) == TCH_OK);
    ENSURE(local.body_count == 1);
    tch_real F0 = local.bodies[0].wrench0[2], k = -local.bodies[0].K_bb[6 * 2 + 2];
    ENSURE(F0 < -1 && k > 0);
    tch_haptic_local_state_init(&state);
    tch_haptic_state device = {.pose = s.data->body_X_WB[pointer]};
    tch_real worst_balance = 0, v_before = 0;
    int ticks = 401;
    for (int n = 0; n < ticks; ++n) {
        tch_haptic_command c = tch_haptic_local_model_tick(&local, &state, &device, T, 1);
        const tch_haptic_local_run* run = &state.runs[state.newest];
        if (n > 0) { /* the first tick starts the model where the step began */
            tch_real balance = m * (run->v[0][2] - v_before) + T * c.force.z;
            worst_balance = fmax(worst_balance, fabs(balance) / (T * fabs(c.force.z)));
        }
        v_before = run->v[0][2];
    }
    const tch_haptic_local_run* run = &state.runs[state.newest];
    tch_real omega = sqrt(k / m), t = (ticks - 1) * T;
    tch_real u = F0 * (1 - cos(omega * t)) / k, v = F0 * sin(omega * t) / (m * omega);
    printf("  k %.4g N/m, F0 %.4g N, omega t %.3g: m dv + T f %.2g of T f; u %.6g m (closed "
           "form %.6g), v %.6g m/s (%.6g)\n",
           k, F0, omega * t, worst_balance, run->u[0][2], u, run->v[0][2], v);
    ENSURE(worst_balance <= 1e-9);
    ENSURE_REL(run->u[0][2], u, 1e-2);
    ENSURE_REL(run->v[0][2], v, 1e-2);
    ENSURE(fabs(run->u[0][0]) + fabs(run->u[0][1]) <= 1e-9 * fabs(u));
    scene_free(&s);
}

/* Closed paths (the tip's bottom face at z = 0 touches the wall; knots on the 1 ms grid):
 * into the wall and back, along the surface, around the wall's edge and down its side. With the
 * passivity controller on, the user never gets back more than 1e-9 J. */
static void test_closed_paths_are_passive_with_the_controller(void) {
    const char* paths[] = {
        "time,x,y,z\n0,0,0,0.0102\n0.05,0,0,0.0102\n0.09,0,0,0.0098\n0.13,0,0,0.0102\n"
        "0.2,0,0,0.0102\n",
        "time,x,y,z\n0,0,0,0.0102\n0.05,0,0,0.0099\n0.25,0.03,0,0.0099\n0.45,0,0,0.0099\n"
        "0.5,0,0,0.0102\n",
        "time,x,y,z\n0,0.08,0,0.0102\n0.05,0.08,0,0.0099\n0.15,0.12,0,0.0099\n"
        "0.25,0.12,0,-0.03\n0.3,0.1099,0,-0.03\n0.4,0.1099,0,-0.01\n0.45,0.12,0,-0.01\n"
        "0.55,0.12,0,0.0102\n0.6,0.08,0,0.0102\n",
    };
    const tch_real durations[] = {0.2, 0.5, 0.6};
    /* the default material, and an undamped one (a sampled spring returns energy) */
    const char* materials[] = {"", "touche:damping='0'"};
    /* the proxy (a sphere of the tip's half-size, frictionless: no dissipation of its own,
     * stiff enough for more than 1 N at 0.1 mm) on the same paths */
    const char* proxy_scene =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.001'/><worldbody>"
        "  <geom name='wall' type='box' pos='0 0 -0.1' size='0.1 0.1 0.1' friction='0'/>"
        "  <body name='hand' pos='0 0 0.02' mocap='true' touche:haptic='proxy'"
        "   touche:proxy_radius='0.01' touche:linear_stiffness='20000'/>"
        "</worldbody></mujoco>";
    /* a pressure pointer, the sphere of the tip's half-size on a rigid wall (E 5e7 Pa: more
     * than 1 N at 0.1 mm), the scene stepping every 10 ms (the local model renders 9 ticks of
     * 10), with the default dissipation and none */
    const char* pressure_scene =
        "<mujoco xmlns:touche='urn:touche'><option timestep='0.01' touche:contact='pressure'/>"
        "<worldbody><geom name='wall' type='box' pos='0 0 -0.1' size='0.1 0.1 0.1'"
        " touche:rigid='true'/>"
        "<body name='pointer' pos='0 0 0.02' mocap='true' touche:haptic='pointer'>"
        "<geom name='tip' type='sphere' size='0.01' touche:modulus='5e7'"
        " touche:resolution='0.002' %s/></body></worldbody></mujoco>";
    const char* dissipations[] = {"", "touche:dissipation='0'"};
    const char* labels[] = {"",         " undamped",          " proxy",
                            " pressure", " pressure undamped", " volume 10 ms step"};
    tch_real most_returned_off = 0;
    for (int i = 0; i < 18; ++i) {
        tch_haptic_ledger on, off;
        tch_real force_on, force_off;
        char xml[1024];
        int kind = i / 3;
        if (kind < 2) {
            snprintf(xml, sizeof xml, POINTER_SCENE, materials[kind]);
        } else if (kind == 2) {
            snprintf(xml, sizeof xml, "%s", proxy_scene);
        } else if (kind < 5) {
            snprintf(xml, sizeof xml, pressure_scene, dissipations[kind - 3]);
        } else { /* the volume pointer's local model and its friction at each tick */
            volume_pointer_scene(1e-2, xml, sizeof xml);
        }
        tch_real returned_on = run_path(xml, paths[i % 3], durations[i % 3], true, &on,
                                        &force_on);
        tch_real returned_off = run_path(xml, paths[i % 3], durations[i % 3], false, &off,
                                         &force_off);
        ENSURE(isfinite(returned_on) && isfinite(returned_off));
        ENSURE(force_off > 1 && force_on > 1); /* the paths do touch */
        ENSURE(returned_on <= 1e-9);
        ENSURE(off.energy_dissipated == 0);
        ENSURE(on.energy_in > 0);
        most_returned_off = fmax(most_returned_off, returned_off);
        printf("  path %d%s: returned %.3g J with the controller, %.3g J without; "
               "dissipated %.3g J, resync jumps %.3g J\n",
               i % 3, labels[kind], returned_on, returned_off, on.energy_dissipated,
               on.resync_jumps);
    }
    ENSURE(most_returned_off > 1e-6); /* without the controller, the test would fail */
}

/* ---- faults, determinism, allocations ---- */

typedef struct failing {
    const tch_haptic_ops* inner;
    void* self;
    long reads, fail_from, fail_to;
    long stall_at;           /* the read that sleeps stall_seconds (0: none) */
    double stall_seconds;
} failing;

static tch_status failing_open(const void* config, void** self, tch_haptic_spec* spec,
                               tch_error* err) {
    const failing* f = config;
    failing* copy = malloc(sizeof *copy);
    *copy = *f;
    tch_haptic_scripted_config c = {.path = "haptic_path.csv", .period = 1e-3,
                                    .spec = sigma_like};
    tch_status s = copy->inner->open(&c, &copy->self, spec, err);
    *self = copy;
    return s;
}

static tch_status failing_read(void* self, tch_haptic_state* state, tch_error* err) {
    failing* f = self;
    long k = f->reads++;
    if (f->stall_at > 0 && k == f->stall_at) {
        struct timespec stall = {0, (long)(f->stall_seconds * 1e9)};
        nanosleep(&stall, NULL);
    }
    tch_status s = f->inner->read(f->self, state, err);
    return k >= f->fail_from && k < f->fail_to ? TCH_ERR_IO : s;
}

static tch_status failing_write(void* self, const tch_haptic_command* c, tch_error* err) {
    failing* f = self;
    return f->inner->write(f->self, c, err);
}

static void failing_close(void* self) {
    failing* f = self;
    f->inner->close(f->self);
    free(f);
}

/* A failed read holds the last pose and zeroes the output (flag READ_FAILED), then ramps back;
 * physics older than the watchdog timeout (a step of 10 ticks against a 5-tick timeout)
 * zeroes the output (flag WATCHDOG). */
static void test_failed_reads_and_stale_physics_zero_the_output(void) {
    static const tch_haptic_ops ops = {"failing", failing_open, failing_read, failing_write,
                                       failing_close};
    write_text("haptic_path.csv", "time,x,y,z\n0,0,0,0.0099\n1,0,0,0.0099\n");
    failing config = {.inner = tch_haptic_scripted_driver(), .fail_from = 50, .fail_to = 53};
    tch_haptic_device* device = NULL;
    tch_error err;
    ENSURE(tch_haptic_open(&ops, &config, &device, &err) == TCH_OK);
    scene s;
    ENSURE(load_pointer("", &s, &err));
    tch_haptic_loop_config lc = loop_config(1e-3, true);
    lc.safety.ramp_time = 0.01;
    tch_haptic_loop* loop = NULL;
    ENSURE(tch_haptic_loop_create(s.model, s.data, device, &lc, &loop, &err) == TCH_OK);
    tch_haptic_tick tick;
    for (int k = 0; k < 70; ++k) {
        ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK);
        if (k == 49) ENSURE(tch_v3_norm(tick.command.force) > 1);
        if (k >= 50 && k < 53) {
            ENSURE(tick.safety_flags & TCH_HAPTIC_READ_FAILED);
            ENSURE(tch_v3_norm(tick.command.force) == 0);
            ENSURE(tick.state.pose.p.z == 0.0099);
        }
        if (k == 53) ENSURE(tick.safety_flags & TCH_HAPTIC_RAMPING);
    }
    ENSURE(tch_v3_norm(tick.command.force) > 1 && tick.safety_flags == 0);
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    scene_free(&s);

    ENSURE(load_pointer("", &s, &err));
    device = open_scripted("haptic_path.csv", 1e-4);
    lc = loop_config(1e-4, true);
    lc.safety.watchdog_timeout = 5.5e-4;
    ENSURE(tch_haptic_loop_create(s.model, s.data, device, &lc, &loop, &err) == TCH_OK);
    int tripped = 0, rendered = 0;
    for (int k = 0; k < 200; ++k) {
        ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK);
        tripped += (tick.safety_flags & TCH_HAPTIC_WATCHDOG) != 0;
        rendered += tch_v3_norm(tick.command.force) > 0;
        if (tick.safety_flags & TCH_HAPTIC_WATCHDOG) ENSURE(tch_v3_norm(tick.command.force) == 0);
    }
    ENSURE(tripped == 80); /* ticks 6..9 of each 10 */
    ENSURE(rendered > 0);
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    scene_free(&s);
}

/* Same scene, script and rate: bit-identical ticks. After warm-up, a tick calls neither malloc,
 * calloc, realloc, pthread_mutex_lock nor fopen. */
/* Missed deadlines: a device read that stalls for 3 periods on the wall clock leaves that
 * tick more than 2 periods behind its deadline: its output is zero with the WATCHDOG flag, and
 * the force ramps back afterwards. The servo runs at 200 Hz so that a loaded machine's own
 * lateness (a few ms) rarely reaches 2 periods; only the injected miss is asserted. */
static void test_missed_deadlines_zero_the_output(void) {
    static const tch_haptic_ops ops = {"stalling", failing_open, failing_read, failing_write,
                                       failing_close};
    write_text("haptic_path.csv", "time,x,y,z\n0,0,0,0.0099\n1,0,0,0.0099\n");
    failing config = {.inner = tch_haptic_scripted_driver(), .stall_at = 40,
                      .stall_seconds = 15e-3};
    tch_haptic_device* device = NULL;
    tch_error err;
    ENSURE(tch_haptic_open(&ops, &config, &device, &err) == TCH_OK);
    scene s;
    ENSURE(scene_load("<mujoco xmlns:touche='urn:touche'>"
                      "<option timestep='0.005' touche:contact='volume'/><worldbody>"
                      "<geom name='wall' type='box' pos='0 0 -0.1' size='0.1 0.1 0.1'/>"
                      "<body name='pointer' pos='0 0 0.02' mocap='true' touche:haptic='pointer'>"
                      "<geom name='tip' type='box' size='0.01 0.01 0.01'/></body>"
                      "</worldbody></mujoco>",
                      &s, &err));
    tch_haptic_loop_config lc = loop_config(5e-3, false);
    lc.safety.ramp_time = 0.02;
    lc.safety.watchdog_timeout = 10; /* a loaded machine may stall the physics */
    tch_haptic_loop* loop = NULL;
    ENSURE(tch_haptic_loop_create(s.model, s.data, device, &lc, &loop, &err) == TCH_OK);
    enum { COUNT = 100 };
    static tch_haptic_tick ticks[COUNT];
    static tch_haptic_timing timing[COUNT];
    ENSURE(tch_haptic_loop_run_threaded(loop, COUNT, ticks, timing, &err) == TCH_OK);
    const tch_haptic_tick* stalled = &ticks[config.stall_at]; /* read k is tick k's */
    ENSURE(stalled->safety_flags & TCH_HAPTIC_WATCHDOG);
    ENSURE(tch_v3_norm(stalled->command.force) == 0);
    int rendered_after = 0;
    for (int k = (int)config.stall_at + 10; k < COUNT; ++k) {
        rendered_after += tch_v3_norm(ticks[k].command.force) > 1;
    }
    ENSURE(rendered_after > 0);
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    scene_free(&s);
}

/* Two runs of the pointer of the scene `xml` give bit-identical ticks; after 100 warm-up ticks
 * the ticks (physics steps included) call no malloc, lock or fopen. */
static void check_ticks_deterministic_and_allocation_free(const char* xml) {
    write_text("haptic_path.csv",
               "time,x,y,z,qw,qx,qy,qz\n0,0,0,0.0102,1,0,0,0\n0.05,0,0,0.0099,1,0,0,0\n"
               "0.3,0.02,0.01,0.0099,0.9950041652780258,0,0,0.09983341664682815\n"
               "0.4,0,0,0.0102,1,0,0,0\n");
    tch_haptic_tick* runs[2];
    long calls = -1, grown = -1;
    if (COUNTS_CALLS) { /* the counters count: a lock and an open outside the ticks */
        pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
        long locks = lock_calls, opens = open_calls;
        pthread_mutex_lock(&mutex);
        pthread_mutex_unlock(&mutex);
        FILE* f = fopen("haptic_path.csv", "r");
        fclose(f);
        ENSURE(lock_calls == locks + 1 && open_calls == opens + 1);
    }
    for (int r = 0; r < 2; ++r) {
        scene s;
        tch_error err;
        ENSURE(scene_load(xml, &s, &err));
        tch_haptic_device* device = open_scripted("haptic_path.csv", 1e-3);
        tch_haptic_loop_config lc = loop_config(1e-3, true);
        tch_haptic_loop* loop = NULL;
        ENSURE(tch_haptic_loop_create(s.model, s.data, device, &lc, &loop, &err) == TCH_OK);
        runs[r] = calloc(400, sizeof **runs);
        for (int k = 0; k < 400; ++k) {
            if (k == 100) {
                malloc_calls = lock_calls = open_calls = 0;
                grown = s.data->heap_allocation_count;
            }
            ENSURE(tch_haptic_loop_tick(loop, &runs[r][k], &err) == TCH_OK);
        }
        calls = malloc_calls + lock_calls + open_calls;
        grown = s.data->heap_allocation_count - grown;
        tch_haptic_loop_destroy(loop);
        tch_haptic_close(device);
        scene_free(&s);
    }
    ENSURE(memcmp(runs[0], runs[1], 400 * sizeof **runs) == 0);
    tch_real largest = 0;
    for (int k = 0; k < 400; ++k) largest = fmax(largest, tch_v3_norm(runs[0][k].command.force));
    ENSURE(largest > 1);
    ENSURE(grown == 0);
    if (COUNTS_CALLS) ENSURE(calls == 0);
    free(runs[0]);
    free(runs[1]);
}

static void test_ticks_are_deterministic_and_allocation_free(void) {
    char xml[1024];
    snprintf(xml, sizeof xml, POINTER_SCENE, "");
    check_ticks_deterministic_and_allocation_free(xml);
    /* the volume pointer's local model and friction at a 10 ms step */
    volume_pointer_scene(1e-2, xml, sizeof xml);
    check_ticks_deterministic_and_allocation_free(xml);
    /* the pressure pointer (its local model and friction) on a compliant box at a 10 ms step */
    snprintf(xml, sizeof xml,
             "<mujoco xmlns:touche='urn:touche'><option timestep='0.01' touche:contact='pressure'/>"
             "<worldbody><geom name='wall' type='box' pos='0 0 -0.1' size='0.1 0.1 0.1'"
             " touche:modulus='2e9'/>"
             "<body name='pointer' pos='0 0 0.02' mocap='true' touche:haptic='pointer'>"
             "<geom name='tip' type='sphere' size='0.01' touche:resolution='0.002'"
             " touche:modulus='5e7'/></body></worldbody></mujoco>");
    check_ticks_deterministic_and_allocation_free(xml);
}

/* The proxy renderer in the loop: pressing 1 mm into a static box renders k times the depth
 * (4000 N/m, the device's rated stiffness), and its ticks call no malloc after the first. */
static void test_proxy_loop_renders_depth_without_allocating(void) {
    write_text("haptic_proxy_path.csv", "time,x,y,z\n0,0,0,0.005\n0.1,0.01,0,0.004\n"
                                        "0.3,0.02,0.01,0.004\n0.4,0,0,0.005\n");
    scene s;
    tch_error err;
    ENSURE(scene_load("<mujoco xmlns:touche='urn:touche'><worldbody>"
                      "<geom type='box' pos='0 0 -0.1' size='0.1 0.1 0.1' friction='0'/>"
                      "<body name='hand' pos='0 0 0.005' mocap='true' touche:haptic='proxy'"
                      " touche:proxy_radius='0.005'/>"
                      "</worldbody></mujoco>",
                      &s, &err));
    tch_haptic_device* device = open_scripted("haptic_proxy_path.csv", 1e-3);
    tch_haptic_loop_config lc = loop_config(1e-3, false);
    lc.safety.ramp_time = 0;
    tch_haptic_loop* loop = NULL;
    ENSURE(tch_haptic_loop_create(s.model, s.data, device, &lc, &loop, &err) == TCH_OK);
    tch_haptic_tick tick;
    long calls = 0;
    for (int k = 0; k <= 100; ++k) {
        if (k == 1) malloc_calls = 0;
        ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK);
    }
    calls = malloc_calls;
    ENSURE_NEAR(tick.command.force.z, 4000 * 0.001, 1e-9);
    ENSURE_NEAR(tick.command.force.x, 0, 1e-9);
    if (COUNTS_CALLS) ENSURE(calls == 0);
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    scene_free(&s);
}

/* The proxy pushing a free box (gravity off, 0.5 kg): the box moves away from the hand and,
 * after each physics step, its momentum is the impulse the handle felt over the ticks before
 * that step, reversed (the force written to the device, here saturated at the spec's 12 N for
 * part of the push, goes to the body as the mean force over the next step). */
static void test_proxy_pushes_a_free_box(void) {
    write_text("haptic_proxy_push.csv", "time,x,y,z\n0,-0.05,0,0\n0.2,0.06,0,0.005\n");
    scene s;
    tch_error err;
    ENSURE(scene_load("<mujoco xmlns:touche='urn:touche'><option gravity='0 0 0' timestep='0.005'/>"
                      "<worldbody>"
                      "<body name='box' pos='0.05 0 0'><freejoint/>"
                      "<geom type='box' size='0.02 0.02 0.02' mass='0.5'/></body>"
                      "<body name='hand' pos='-0.1 0 0' mocap='true' touche:haptic='proxy'"
                      " touche:proxy_radius='0.005' touche:linear_stiffness='1000'/>"
                      "</worldbody></mujoco>",
                      &s, &err));
    tch_haptic_device* device = open_scripted("haptic_proxy_push.csv", 1e-3);
    tch_haptic_loop_config lc = loop_config(1e-3, false);
    lc.safety.ramp_time = 0;
    lc.safety.max_force_rate = 1e9;
    tch_haptic_loop* loop = NULL;
    if (tch_haptic_loop_create(s.model, s.data, device, &lc, &loop, &err) != TCH_OK) {
        printf("  %s\n", err.message);
        ENSURE(false);
        return;
    }
    tch_vec3 felt = tch_v3_zero(); /* the impulse on the handle before this tick */
    int box = 1;
    tch_real worst = 0;
    int steps = 0;
    for (int k = 0; k <= 300; ++k) {
        tch_haptic_tick tick;
        ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK);
        if (tick.stepped) {
            tch_vec3 momentum = tch_v3_scale(s.data->body_v_WCm[box], 0.5);
            worst = fmax(worst, tch_v3_dist(momentum, tch_v3_neg(felt)));
            steps++;
        }
        felt = tch_v3_madd(felt, 1e-3, tick.command.force);
    }
    printf("  pushed box: impulse felt %.6g N s, momentum off by %.3g N s over %d steps, box at "
           "%.4f m\n",
           -felt.x, worst, steps, s.data->body_X_WB[box].p.x);
    ENSURE(-felt.x > 0.01);
    ENSURE(s.data->body_v_WCm[box].x > 0.01);
    ENSURE(worst < 1e-12 * (1 + fabs(felt.x)) + 1e-15);
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    scene_free(&s);
}

/* Whether a proxy wall of stiffness K, sampled at T = 1 ms through the whole loop (the scene
 * stepping every tick, the passivity controller off, no ramp or rate limit), holds the `model`
 * device (m 0.2 kg, b 2 N s/m, no friction or quantum) pressed into it by a 2 N hand: the
 * oscillation the contact starts (its second difference, which the sampled spring's unstable
 * mode at the Nyquist frequency dominates once the 141 rad/s mode, damped at 5/s, has faded)
 * shrinks from the fifth 0.5 s to the last, and the device never leaves the wall after 2 s (an
 * oscillation grown past the depth bounces off the wall into a limit cycle). */
static void proxy_wall(tch_real stiffness, bool* holds) {
    *holds = false;
    char xml[512];
    snprintf(xml, sizeof xml,
             "<mujoco xmlns:touche='urn:touche'><worldbody>"
             "<geom type='box' pos='0 0 -0.1' size='0.1 0.1 0.1' friction='0'/>"
             "<body name='hand' pos='0 0 1e-4' mocap='true' touche:haptic='proxy'"
             " touche:linear_stiffness='%.17g'/></worldbody></mujoco>",
             stiffness);
    scene s;
    tch_error err;
    ENSURE(scene_load(xml, &s, &err));
    tch_haptic_model_config mc = {.period = 1e-3, .mass = 0.2, .damping = 2, .friction = 0,
                                  .spec = sigma_like};
    mc.spec.max_force = 1000;
    tch_haptic_device* device = NULL;
    ENSURE(tch_haptic_open(tch_haptic_model_driver(), &mc, &device, &err) == TCH_OK);
    ENSURE(tch_haptic_model_set_hand_force(device, tch_v3(0, 0, -2), &err) == TCH_OK);
    tch_haptic_loop_config lc = loop_config(1e-3, false);
    lc.base_at_body = true;
    lc.safety = (tch_haptic_safety_params){.max_force_rate = 1e12, .max_torque_rate = 1e12,
                                           .ramp_time = 0, .watchdog_timeout = 1};
    tch_haptic_loop* loop = NULL;
    ENSURE(tch_haptic_loop_create(s.model, s.data, device, &lc, &loop, &err) == TCH_OK);
    enum { TICKS = 4000, WINDOW = 500, EARLY = 2000 };
    static tch_real z[TICKS];
    bool left = false;
    for (int k = 0; k < TICKS; ++k) {
        tch_haptic_tick tick;
        ENSURE(tch_haptic_loop_tick(loop, &tick, &err) == TCH_OK);
        z[k] = tick.state.pose.p.z;
        left |= k >= EARLY && tick.command.force.z <= 0;
    }
    tch_real early = 0, late = 0;
    for (int k = 1; k + 1 < WINDOW; ++k) {
        early += fabs(z[EARLY + k + 1] - 2 * z[EARLY + k] + z[EARLY + k - 1]);
        late += fabs(z[TICKS - WINDOW + k + 1] - 2 * z[TICKS - WINDOW + k] +
                     z[TICKS - WINDOW + k - 1]);
    }
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    scene_free(&s);
    *holds = late < early && !left;
}

static bool proxy_wall_holds(tch_real stiffness) {
    bool holds;
    proxy_wall(stiffness, &holds);
    return holds;
}

/* Colgate and Schenkel's bound through the whole loop (issue 14): with the passivity
 * controller off, the stiffest proxy wall the model device holds, found by bisection, is
 * 2 (b - |B|) / T = 4000 N/m (B = 0: the proxy's damping) within 5% (the exact boundary of this
 * mass, damping and period, from the sampled system's poles, is 4007 N/m). */
static void test_model_device_stability_boundary_through_the_loop(void) {
    tch_real stable = 1000, unstable = 16000;
    ENSURE(proxy_wall_holds(stable) && !proxy_wall_holds(unstable));
    while (unstable / stable > 1.01) {
        tch_real mid = sqrt(stable * unstable);
        *(proxy_wall_holds(mid) ? &stable : &unstable) = mid;
    }
    printf("  stability boundary %.0f to %.0f N/m (2 b / T = 4000 N/m)\n", stable, unstable);
    ENSURE(stable > 0.95 * 4000 && unstable < 1.05 * 4000);
}

/* The playback driver replays the poses of a force log (other columns skipped), bit for bit. */
static void test_playback_replays_a_force_log(void) {
    write_text("haptic_log.csv",
               "time,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,fx,fy,fz,flags\n"
               "0,0.1,0.2,0.30000000000000004,1,0,0,0,0,0,9.9999999999999982,0,0,0,1,2,3,0\n"
               "0.001,0.1,0.2,0.31,1,0,0,0,0,0,0.5,0,0,0,1,2,3,5\n");
    tch_haptic_scripted_config c = {.path = "haptic_log.csv", .period = 1e-3, .spec = sigma_like};
    tch_haptic_device* device = NULL;
    tch_error err;
    ENSURE(tch_haptic_open(tch_haptic_scripted_driver(), &c, &device, &err) == TCH_ERR_PARSE);
    ENSURE(err.line == 1 && strstr(err.message, "haptic_log.csv:1: unknown column"));
    ENSURE(tch_haptic_open(tch_haptic_playback_driver(), &c, &device, &err) == TCH_OK);
    tch_haptic_state state;
    ENSURE(tch_haptic_read(device, &state, &err) == TCH_OK);
    ENSURE(state.pose.p.z == 0.30000000000000004 && state.pose.p.x == 0.1);
    ENSURE(state.velocity.z == 9.9999999999999982); /* the recorded, not the differenced */
    ENSURE(tch_haptic_read(device, &state, &err) == TCH_OK);
    ENSURE(state.pose.p.z == 0.31 && state.velocity.z == 0.5);
    tch_haptic_close(device);
    write_text("haptic_log.csv", "time,x,y,z,vx,vy,vz\n0,0,0,0,0,0,0\n");
    ENSURE(tch_haptic_open(tch_haptic_playback_driver(), &c, &device, &err) == TCH_ERR_PARSE);
    ENSURE(err.line == 1 && strstr(err.message, "some of vx,vy,vz,wx,wy,wz"));
    write_text("haptic_log.csv", "time,x,y,z,qw\n0,0,0,0,1\n");
    ENSURE(tch_haptic_open(tch_haptic_playback_driver(), &c, &device, &err) == TCH_ERR_PARSE);
    ENSURE(err.line == 1 && strstr(err.message, "some of qw,qx,qy,qz"));
    write_text("haptic_log.csv", "time,x,y,z\n0,0,0,0\n0.1,0,0\n");
    ENSURE(tch_haptic_open(tch_haptic_scripted_driver(), &c, &device, &err) == TCH_ERR_PARSE);
    ENSURE(err.line == 3 && strstr(err.message, "one number per column"));
}

/* ---- the udp driver ---- */

static void put_le(unsigned char* p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i, v >>= 8) p[i] = (unsigned char)v;
}

static void put_double(unsigned char* p, double v) {
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_le(p, bits, 8);
}

static void wait_ms(long ms) {
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

/* A state datagram as docs/haptics.md documents it: position (x, 0, 0), identity, buttons 5. */
static void send_state(int sock, int port, uint64_t sequence, double x) {
    unsigned char b[136] = {'T', 'C', 'H', 'D'};
    put_le(b + 4, 1, 4);
    put_le(b + 8, sequence, 8);
    put_double(b + 16, 0.5);
    const double v[13] = {x, 0, 0, 1, 0, 0, 0, 0.25, 0, 0, 0, 0, 3};
    for (int i = 0; i < 13; ++i) put_double(b + 24 + 8 * i, v[i]);
    put_le(b + 128, 5, 4);
    struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    sendto(sock, b, sizeof b, 0, (struct sockaddr*)&to, sizeof to);
}

/* The wire format both ways on the loopback: no state yet is a failed read; the newest
 * sequence wins over a later-arriving older one; a malformed datagram is dropped; a command
 * goes back to the sender with the state's sequence. */
static void test_udp_driver_speaks_the_documented_format(void) {
    tch_haptic_udp_config c = {.port = 0, .timeout = 10, .spec = sigma_like};
    tch_haptic_device* device = NULL;
    tch_error err;
    ENSURE(tch_haptic_open(tch_haptic_udp_driver(), &c, &device, &err) == TCH_OK);
    int port = tch_haptic_udp_port(device);
    ENSURE(port > 0);
    tch_haptic_state state;
    ENSURE(tch_haptic_read(device, &state, &err) == TCH_ERR_IO);
    int sock = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in self = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    ENSURE(bind(sock, (struct sockaddr*)&self, sizeof self) == 0);
    send_state(sock, port, 7, 0.125);
    send_state(sock, port, 6, 0.5);
    sendto(sock, "junk", 4, 0, (struct sockaddr*)&(struct sockaddr_in){
        .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)}, sizeof(struct sockaddr_in));
    wait_ms(20);
    ENSURE(tch_haptic_read(device, &state, &err) == TCH_OK);
    ENSURE(state.pose.p.x == 0.125 && state.pose.q.w == 1 && state.time == 0.5);
    ENSURE(state.velocity.x == 0.25 && state.angular.z == 3 && state.buttons == 5);
    tch_haptic_command command = {{1.5, -2, 3}, {0.1, 0, -0.2}};
    ENSURE(tch_haptic_write(device, &command, &err) == TCH_OK);
    unsigned char b[128];
    ssize_t size = recv(sock, b, sizeof b, 0);
    ENSURE(size == 64 && memcmp(b, "TCHC", 4) == 0 && b[4] == 1 && b[8] == 7);
    double force_y;
    uint64_t bits = 0;
    for (int i = 7; i >= 0; --i) bits = bits << 8 | b[24 + i];
    memcpy(&force_y, &bits, sizeof force_y);
    ENSURE(force_y == -2);
    close(sock);
    tch_haptic_close(device);
    c.timeout = 5e-3; /* no new state for longer than the timeout: a failed read */
    ENSURE(tch_haptic_open(tch_haptic_udp_driver(), &c, &device, &err) == TCH_OK);
    sock = socket(AF_INET, SOCK_DGRAM, 0);
    send_state(sock, tch_haptic_udp_port(device), 1, 0);
    wait_ms(20);
    ENSURE(tch_haptic_read(device, &state, &err) == TCH_OK);
    wait_ms(20);
    ENSURE(tch_haptic_read(device, &state, &err) == TCH_ERR_IO);
    ENSURE(strstr(err.message, "no state datagram"));
    close(sock);
    tch_haptic_close(device);
}

int main(void) {
    RUN_TEST(test_mjcf_mocap_and_haptic_attributes);
    RUN_TEST(test_mocap_velocity_reaches_the_contact);
    RUN_TEST(test_coupling_is_implicit);
    RUN_TEST(test_coupling_renders_the_device_stiffness);
    RUN_TEST(test_coupled_throw_never_gains_energy);
    RUN_TEST(test_threaded_run_renders_the_coupling);
    RUN_TEST(test_threaded_run_survives_a_refused_priority);
    RUN_TEST(test_pointer_local_model_follows_the_hand);
    RUN_TEST(test_pressure_pointer_local_model_follows_the_hand);
    RUN_TEST(test_volume_pointer_friction_follows_the_hand);
    RUN_TEST(test_local_model_moves_a_touched_block_by_m_a_equals_f);
    RUN_TEST(test_closed_paths_are_passive_with_the_controller);
    RUN_TEST(test_failed_reads_and_stale_physics_zero_the_output);
    RUN_TEST(test_missed_deadlines_zero_the_output);
    RUN_TEST(test_ticks_are_deterministic_and_allocation_free);
    RUN_TEST(test_proxy_loop_renders_depth_without_allocating);
    RUN_TEST(test_proxy_pushes_a_free_box);
    RUN_TEST(test_model_device_stability_boundary_through_the_loop);
    RUN_TEST(test_playback_replays_a_force_log);
    RUN_TEST(test_udp_driver_speaks_the_documented_format);
    return TEST_RESULT();
}
