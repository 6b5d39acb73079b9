/* Hasegawa and Sato, example 1 (sec. 5.8, Fig. 15): the haptic scene, six blocks on a floor
 * and two shovels, each a union of convex pieces (a blade, two side walls and a handle: four
 * box geoms on one body), driven along a scripted path instead of two SPIDAR-G devices: their
 * pose and velocity are set every step (kinematically), so the step computes the contact
 * forces the devices would display. The paper: under 2.8 ms per step, under 2 ms in most
 * cases, on a 2.8 GHz Pentium 4; our target: 99th percentile under 0.5 ms.
 *
 * Blocks: 0.1 m cubes of 0.2 kg in two rows of three; shovels: blade 0.16 x 0.12 x 0.01 m,
 * walls 0.12 x 0.01 x 0.04 m, handle 0.02 x 0.02 x 0.2 m. Volume model, k^N = k^S = 2000 N/m,
 * b^N = b^S = 10 N s/m, mu_0 = mu = 0.5, dt 1 ms (a 1 kHz haptic loop). Path (period 4 s):
 * each shovel slides in along the floor from its side, scoops a block while tilting up by 0.5
 * rad, lifts it by 0.15 m, and goes back.
 *
 *     bench_volume_haptic_scene [seconds]     (default 20 s)
 *
 * stdout, one line per clock (wall: CLOCK_MONOTONIC; thread: the step's CPU time, without the
 * preemptions of a loaded machine): date,commit,cpu,clock,steps,mean_us,p50_us,p99_us,max_us,
 * max_pairs,max_touching. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "math/vec.h"
#include "volume_bench.h"

static const double period = 4, cube = 0.05;

static tch_body_id add_shovel(tch_spec* spec, const char* name, tch_vec3 p) {
    tch_body_id s = vb_add_body(spec, name, p, tch_q_identity());
    vb_add_box(spec, s, (tch_vec3){0.08, 0.06, 0.005}, tch_v3_zero(), 0.3);
    vb_add_box(spec, s, (tch_vec3){0.06, 0.005, 0.02}, (tch_vec3){0, 0.055, 0.025}, 0.05);
    vb_add_box(spec, s, (tch_vec3){0.06, 0.005, 0.02}, (tch_vec3){0, -0.055, 0.025}, 0.05);
    vb_add_box(spec, s, (tch_vec3){0.01, 0.01, 0.1}, (tch_vec3){-0.08, 0, 0.1}, 0.1);
    return s;
}

static tch_model* haptic_scene(void) {
    tch_spec* spec = vb_spec(9.81, 0.001, TCH_CONTACT_VOLUME, 2000, 10, 0.5);
    vb_add_floor(spec, 0.5);
    for (int i = 0; i < 6; ++i) {
        char name[16];
        snprintf(name, sizeof name, "block%d", i + 1);
        tch_vec3 p = {(i % 3 - 1) * 0.15, (i / 3 ? 1 : -1) * 0.1, cube - 0.2 * 9.81 / 2000};
        tch_body_id b = vb_add_body(spec, name, p, tch_q_identity());
        vb_add_box(spec, b, (tch_vec3){cube, cube, cube}, tch_v3_zero(), 0.2);
    }
    add_shovel(spec, "shovel1", (tch_vec3){-0.5, -0.1, 0.3});
    add_shovel(spec, "shovel2", (tch_vec3){0.5, 0.1, 0.3});
    return vb_compile(spec);
}

/* The scripted pose of shovel `side` (+1 or -1: from -x or +x) at time t and its velocity
 * (finite difference over dt, world linear and body angular). */
typedef struct tool_pose {
    tch_vec3 p;
    double pitch;
} tool_pose;

static tool_pose tool_path(int side, double t) {
    double s = fmod(t, period) / period; /* 0..1 */
    double reach = sin(TCH_PI * s);
    double lift = s > 0.3 && s < 0.8 ? sin(TCH_PI * (s - 0.3) / 0.5) : 0;
    double x = -side * (0.45 - 0.4 * reach);
    double y = -side * 0.1;
    return (tool_pose){{x, y, 0.012 + 0.15 * lift}, -side * 0.5 * lift};
}

static void drive_tool(const tch_model* m, tch_data* d, int body, int side, double t, double h) {
    tool_pose a = tool_path(side, t), b = tool_path(side, t + h);
    tch_real* q = d->qpos + m->body_qpos_adr[body];
    tch_real* v = d->qvel + m->body_qvel_adr[body];
    tch_quat r = tch_q_axis_angle((tch_vec3){0, 1, 0}, a.pitch);
    q[0] = a.p.x, q[1] = a.p.y, q[2] = a.p.z;
    q[3] = r.w, q[4] = r.x, q[5] = r.y, q[6] = r.z;
    v[0] = (b.p.x - a.p.x) / h, v[1] = (b.p.y - a.p.y) / h, v[2] = (b.p.z - a.p.z) / h;
    v[3] = 0, v[4] = (b.pitch - a.pitch) / h, v[5] = 0;
}

int main(int argc, char** argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 20;
    tch_model* m = haptic_scene();
    tch_data* d = m ? vb_data(m) : NULL;
    vb_times times[2];
    long steps = m ? lround(seconds / m->timestep) : 0;
    if (!d || !vb_times_init(&times[0], (int)steps) || !vb_times_init(&times[1], (int)steps)) {
        tch_model_destroy(m);
        return 1;
    }
    int tools[2] = {tch_model_body_index(m, "shovel1"), tch_model_body_index(m, "shovel2")};
    int max_pairs = 0, max_touching = 0;
    for (long i = 0; i < steps; ++i) {
        for (int k = 0; k < 2; ++k) {
            drive_tool(m, d, tools[k], k ? -1 : 1, d->time, m->timestep);
        }
        double t0 = bench_now_seconds(), c0 = vb_thread_seconds();
        tch_status status = tch_step(m, d, NULL);
        vb_times_add(&times[1], (vb_thread_seconds() - c0) * 1e6);
        vb_times_add(&times[0], (bench_now_seconds() - t0) * 1e6);
        if (status != TCH_OK) {
            fprintf(stderr, "step failed at t = %g s: %s\n", d->time, tch_status_name(status));
            break;
        }
        max_pairs = d->pair_result_count > max_pairs ? d->pair_result_count : max_pairs;
        max_touching = d->contact_count > max_touching ? d->contact_count : max_touching;
    }
    printf("date,commit,cpu,clock,steps,mean_us,p50_us,p99_us,max_us,max_pairs,max_touching\n");
    for (int c = 0; c < 2; ++c) {
        double mean = vb_times_mean(&times[c]), max = vb_times_max(&times[c]);
        double p50 = vb_times_quantile(&times[c], 0.5), p99 = vb_times_quantile(&times[c], 0.99);
        printf("%s,%s,%d,%.2f,%.2f,%.2f,%.2f,%d,%d\n", vb_csv_prefix(), c ? "thread" : "wall",
               times[c].count, mean, p50, p99, max, max_pairs, max_touching);
        vb_times_free(&times[c]);
    }
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}
