/* touche haptic: the haptic loop of a scene's haptic body with a device (docs/haptics.md). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* What a scripted or played-back device claims to render, and the model device's spec: a
 * sigma.7's figures (shared/reference/haptics.md). */
static const tch_haptic_spec DEVICE_SPEC = {.workspace_radius = 0.075,
                                            .max_force = 12,
                                            .max_torque = 0.2,
                                            .max_stiffness = 4000,
                                            .max_damping = 30,
                                            .position_quantum = 0};

/* --realtime asks for the servo thread under SCHED_FIFO at this priority and for locked memory
 * (each refused request falls back and is reported). */
enum { REALTIME_PRIORITY = 80 };

/* The model device: a handle of 0.2 kg with 2 N s/m of physical damping (passive with a sampled
 * 4000 N/m at 1 kHz, Colgate and Schenkel's bound), 0.05 N of friction, 10 um encoders. */
static tch_haptic_model_config model_device(double period) {
    tch_haptic_model_config c = {.period = period, .mass = 0.2, .damping = 2, .friction = 0.05,
                                 .spec = DEVICE_SPEC};
    c.spec.position_quantum = 1e-5;
    return c;
}

/* The SpaceMouse as a rate input about its base at the haptic body: full deflection (about 350
 * counts) moves 0.1 m/s and turns 1 rad/s, a 10-count deadzone, within 0.3 m of the start. */
static tch_haptic_spacemouse_config spacemouse_device(double period) {
    tch_haptic_spacemouse_config c = {.period = period,
                                      .translation_scale = 0.1 / 350,
                                      .rotation_scale = 1.0 / 350,
                                      .deadzone = 10,
                                      .home = {{1, 0, 0, 0}, {0, 0, 0}},
                                      .spec = DEVICE_SPEC};
    c.spec.workspace_radius = 0.3;
    return c;
}

static int open_device(const char* text, double period, tch_haptic_device** device) {
    tch_error err = {0};
    tch_status s;
    if (strncmp(text, "scripted:", 9) == 0 || strncmp(text, "playback:", 9) == 0) {
        tch_haptic_scripted_config c = {.path = text + 9, .period = period, .spec = DEVICE_SPEC};
        s = tch_haptic_open(text[0] == 's' ? tch_haptic_scripted_driver()
                                           : tch_haptic_playback_driver(),
                            &c, device, &err);
    } else if (strncmp(text, "udp:", 4) == 0) {
        char* end = NULL;
        long port = strtol(text + 4, &end, 10);
        if (end == text + 4 || *end != '\0' || port < 1 || port > 65535) {
            fprintf(stderr, "touche haptic: udp:PORT needs a port from 1 to 65535, got '%s'\n",
                    text + 4);
            return EXIT_BAD_INPUT;
        }
        tch_haptic_udp_config c = {.port = (int)port, .any_address = true, .timeout = 0.1,
                                   .spec = DEVICE_SPEC};
        s = tch_haptic_open(tch_haptic_udp_driver(), &c, device, &err);
    } else if (strcmp(text, "model") == 0) {
        tch_haptic_model_config c = model_device(period);
        s = tch_haptic_open(tch_haptic_model_driver(), &c, device, &err);
    } else if (strcmp(text, "spacemouse") == 0) {
        tch_haptic_spacemouse_config c = spacemouse_device(period);
        s = tch_haptic_open(tch_haptic_spacemouse_driver(), &c, device, &err);
    } else {
        fprintf(stderr, "touche haptic: unknown device '%s'; expected scripted:FILE, "
                        "playback:FILE, udp:PORT, model or spacemouse\n",
                text);
        return EXIT_BAD_INPUT;
    }
    if (s != TCH_OK) {
        cli_print_error("cannot open the device", &err);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

static int compare_doubles(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* One force-log row: the device pose and velocity read, the wrench written, the safety flags
 * and the passivity observer's energy. */
static void write_log_row(FILE* f, const tch_haptic_tick* t) {
    const tch_haptic_state* s = &t->state;
    const tch_haptic_command* c = &t->command;
    fprintf(f,
            "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,"
            "%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%u,%.17g\n",
            t->time, s->pose.p.x, s->pose.p.y, s->pose.p.z, s->pose.q.w, s->pose.q.x,
            s->pose.q.y, s->pose.q.z, s->velocity.x, s->velocity.y, s->velocity.z, s->angular.x,
            s->angular.y, s->angular.z, c->force.x,
            c->force.y, c->force.z, c->torque.x, c->torque.y, c->torque.z, t->safety_flags,
            t->energy_observed);
}

typedef struct run_stats {
    long ticks, overruns, faults;
    double p50, p99, max;   /* tick compute time, s */
    double late_p99;        /* --realtime: how late the servo thread woke, s */
} run_stats;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The ticks back to back on the simulated clock, each timed. */
static tch_status run_simulated(tch_haptic_loop* loop, long count, tch_haptic_tick* ticks,
                                tch_haptic_timing* timing, long* done, tch_error* err) {
    for (*done = 0; *done < count; ++*done) {
        int64_t start = now_ns();
        tch_status s = tch_haptic_loop_tick(loop, &ticks[*done], err);
        if (s != TCH_OK) {
            return s;
        }
        timing[*done] = (tch_haptic_timing){0, (double)(now_ns() - start) * 1e-9};
    }
    return TCH_OK;
}

/* The 0.99 quantile of `count` values, sorted in place. */
static double p99_of(double* values, long count) {
    qsort(values, (size_t)count, sizeof *values, compare_doubles);
    return values[(long)(0.99 * (double)(count - 1))];
}

static void tick_statistics(const tch_haptic_tick* ticks, const tch_haptic_timing* timing,
                            long count, double period, double* scratch, run_stats* stats) {
    *stats = (run_stats){.ticks = count};
    for (long k = 0; k < count; ++k) {
        stats->overruns += timing[k].late + timing[k].busy > period;
        stats->faults += (ticks[k].safety_flags & (TCH_HAPTIC_WATCHDOG | TCH_HAPTIC_NONFINITE |
                                                    TCH_HAPTIC_READ_FAILED)) != 0;
        scratch[k] = timing[k].late;
    }
    if (count == 0) return;
    stats->late_p99 = p99_of(scratch, count);
    for (long k = 0; k < count; ++k) scratch[k] = timing[k].busy;
    stats->p99 = p99_of(scratch, count);
    stats->p50 = scratch[count / 2];
    stats->max = scratch[count - 1];
}

/* Runs the loop (simulated clock, or two threads on the wall clock), writes the force log and
 * fills the statistics. */
static int run_loop(tch_haptic_loop* loop, long count, double period, int realtime, FILE* log,
                    run_stats* stats) {
    tch_haptic_tick* ticks = calloc((size_t)count + 1, sizeof *ticks);
    tch_haptic_timing* timing = calloc((size_t)count + 1, sizeof *timing);
    double* scratch = calloc((size_t)count + 1, sizeof *scratch);
    int code = ticks && timing && scratch ? EXIT_OK : EXIT_FAILURE_GENERIC;
    tch_error err = {0};
    long done = count;
    tch_status s = TCH_OK;
    if (code == EXIT_OK) {
        s = realtime ? tch_haptic_loop_run_threaded(loop, count, ticks, timing, &err)
                     : run_simulated(loop, count, ticks, timing, &done, &err);
    }
    if (code == EXIT_OK && s != TCH_OK) {
        cli_print_error("the haptic loop failed", &err);
        code = s == TCH_ERR_DIVERGED ? EXIT_DIVERGED : EXIT_FAILURE_GENERIC;
    }
    if (code == EXIT_OK) {
        for (long k = 0; k < done; ++k) {
            write_log_row(log, &ticks[k]);
        }
        tick_statistics(ticks, timing, done, period, scratch, stats);
    }
    free(ticks);
    free(timing);
    free(scratch);
    return code;
}

static void print_report(const cli_options* o, const tch_haptic_loop* loop, const run_stats* s,
                         const char* log_path) {
    const tch_haptic_ledger* l = &tch_haptic_loop_passivity(loop)->ledger;
    tch_haptic_realtime rt = tch_haptic_loop_realtime(loop);
    if (o->json) {
        printf("{\"energy_in_J\": %.17g, \"energy_out_J\": %.17g, \"energy_dissipated_J\": %.17g, "
               "\"resync_jumps_J\": %.17g, \"ticks\": %ld, \"tick_p50_us\": %.6g, "
               "\"tick_p99_us\": %.6g, \"tick_max_us\": %.6g, \"lateness_p99_us\": %.6g, "
               "\"overruns\": %ld, \"faults\": %ld, \"sched_fifo\": %s, "
               "\"memory_locked\": %s, \"realtime_refused\": ",
               l->energy_in, l->energy_out, l->energy_dissipated, l->resync_jumps, s->ticks,
               1e6 * s->p50, 1e6 * s->p99, 1e6 * s->max, 1e6 * s->late_p99, s->overruns,
               s->faults, rt.fifo ? "true" : "false", rt.memory_locked ? "true" : "false");
        cli_json_string(stdout, rt.reason);
        printf(", \"force_log\": ");
        cli_json_string(stdout, log_path);
        printf("}\n");
        return;
    }
    printf("scene        %s\n", o->scene);
    printf("ticks        %ld at %.6g Hz (%s clock)\n", s->ticks, o->rate,
           o->realtime ? "wall" : "simulated");
    printf("energy       in %.6g J, out %.6g J, dissipated by the passivity controller %.6g J, "
           "resync jumps %.6g J\n",
           l->energy_in, l->energy_out, l->energy_dissipated, l->resync_jumps);
    printf("tick time    p50 %.2f us, p99 %.2f us, max %.2f us; overruns %ld\n", 1e6 * s->p50,
           1e6 * s->p99, 1e6 * s->max, s->overruns);
    if (o->realtime) {
        printf("lateness     p99 %.2f us\n", 1e6 * s->late_p99);
        printf("real time    SCHED_FIFO %d %s, memory %s%s%s\n", REALTIME_PRIORITY,
               rt.fifo ? "on" : "off", rt.memory_locked ? "locked" : "not locked",
               rt.reason[0] ? "; refused: " : "", rt.reason);
    }
    printf("faults       %ld ticks zeroed by the safety stage\n", s->faults);
    fprintf(stderr, "  wrote %s\n", log_path);
}

int cli_cmd_haptic(const cli_options* options) {
    cli_options o = *options;
    if (!o.device) {
        fprintf(stderr, "touche haptic: --device is required (scripted:FILE, playback:FILE, "
                        "udp:PORT or model)\n");
        return EXIT_BAD_INPUT;
    }
    if (o.rate <= 0) o.rate = 1000;
    if (o.duration <= 0) o.duration = 1;
    if (!o.out_dir) o.out_dir = "out";
    double period = 1 / o.rate;
    cli_session session;
    tch_haptic_device* device = NULL;
    tch_haptic_loop* loop = NULL;
    int code = cli_open_session(&o, 1, &session);
    if (code == EXIT_OK) code = open_device(o.device, period, &device);
    if (code == EXIT_OK) {
        tch_error err = {0};
        tch_haptic_loop_config config = {.body = -1,
                                         .period = period,
                                         .passivity_control = !o.no_passivity,
                                         .base_at_body = strcmp(o.device, "model") == 0 ||
                                                         strcmp(o.device, "spacemouse") == 0,
                                         .passivity_max_damping =
                                             strcmp(o.device, "model") == 0
                                                 ? tch_haptic_spec_of(device)->max_damping
                                                 : 0,
                                         .safety = tch_haptic_safety_defaults(
                                             tch_haptic_spec_of(device)),
                                         .fifo_priority = o.realtime ? REALTIME_PRIORITY : 0,
                                         .lock_memory = o.realtime};
        if (tch_haptic_loop_create(session.model, session.data, device, &config, &loop, &err) !=
            TCH_OK) {
            cli_print_error("cannot start the haptic loop", &err);
            code = EXIT_BAD_INPUT;
        }
    }
    cli_output_file log = {0};
    char path[1024];
    snprintf(path, sizeof path, "%s/forces.csv", o.out_dir);
    if (code == EXIT_OK && (!cli_make_dir(o.out_dir, "haptic") ||
                            !cli_open_output(&log, path, "haptic"))) {
        code = EXIT_BAD_INPUT;
    }
    run_stats stats = {0};
    if (code == EXIT_OK) {
        fprintf(log.f, "time,x,y,z,qw,qx,qy,qz,vx,vy,vz,wx,wy,wz,fx,fy,fz,tx,ty,tz,flags,"
                       "energy_observed\n");
        long count = (long)(o.duration * o.rate + 0.5);
        code = run_loop(loop, count, period, o.realtime, log.f, &stats);
        if (!cli_finish_output(&log, code == EXIT_OK, "haptic") && code == EXIT_OK) {
            code = EXIT_FAILURE_GENERIC;
        }
    }
    if (code == EXIT_OK) print_report(&o, loop, &stats, path);
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    cli_close_session(&session);
    return code;
}
