/* Hasegawa and Sato, experiment 1 (sec. 5.2-5.3, Fig. 9-10): stacks of N blocks of
 * 1 x 1 x 2 m and 1 kg, time per step against N, volume model. Two settings:
 *
 *   paper:    dt 5 ms, k^N = k^S = 2500 N/m, b^N = b^S = 10 N s/m per contact (the example
 *             scenes of tools/gen_scenes.py); stacks above about 3 blocks buckle, since a
 *             contact's rotational stiffness k^N L^2/12 = 208 N m/rad is below the column's
 *             toppling m g N^2 (docs/contact-volume.md): their standing time is reported;
 *   standing: k^N scaled with the toppling load, k^N = 1e5 (N/13)^2 N/m but at least 1e5,
 *             k^S = 2500, b^N = b^S = 10, with dt = min(2 ms, 0.5/sqrt(k^N/m)) for the stack's
 *             fastest vertical mode.
 *
 * Blocks start at the closed-form equilibrium (contact j sinks by (N - j + 1) m g / k^N), the
 * top one pushed 1e-6 m sideways; 10 s simulated, mu = 0.6.
 *
 *     bench_volume_stacks [N...]     (default 1 2 3 5 8 13 20 30 40 50)
 *
 * stdout: date,commit,cpu,setting,blocks,k_N,dt,steps,mean_us,p99_us,us_per_block,
 * standing_s (the time the stack stood: every block within 0.2 rad of upright and the top
 * within 5% of its height; 10 = the whole run),top_drift_m. Step times are the thread's CPU
 * time (vb_thread_seconds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "math/vec.h"
#include "volume_bench.h"

static const double g = 9.81, seconds = 10;

static tch_model* stack(int n, double k, double dt) {
    tch_spec* spec = vb_spec(g, dt, TCH_CONTACT_VOLUME, k, 10, 0.6);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.tangential_stiffness = 2500;
    opt.contact.tangential_damping = 10;
    tch_spec_set_option(spec, &opt, NULL);
    vb_add_floor(spec, 0.6);
    vb_add_block_stack(spec, n, k, g);
    return vb_compile(spec);
}

static int run(const char* setting, int n, double k, double dt) {
    tch_model* m = stack(n, k, dt);
    tch_data* d = m ? vb_data(m) : NULL;
    long steps = lround(seconds / dt);
    vb_times times;
    if (!d || !vb_times_init(&times, (int)steps)) {
        tch_model_destroy(m);
        return 1;
    }
    tch_stage_kinematics(m, d);
    tch_vec3 top = d->body_p_WCm[n];
    double stood = seconds;
    for (long i = 0; i < steps; ++i) {
        vb_timed_step(m, d, &times, NULL);
        if (stood == seconds && !vb_block_stack_stands(d, n, top.z)) {
            stood = d->time;
        }
    }
    double mean = vb_times_mean(&times), p99 = vb_times_quantile(&times, 0.99);
    tch_vec3 moved = tch_v3_sub(d->body_p_WCm[n], top);
    printf("%s,%s,%d,%g,%g,%ld,%.2f,%.2f,%.2f,%.3f,%.3e\n", vb_csv_prefix(), setting, n, k, dt,
           steps, mean, p99, mean / n, stood, hypot(moved.x, moved.y));
    return vb_run_end(&times, d, m);
}

int main(int argc, char** argv) {
    static const int defaults[] = {1, 2, 3, 5, 8, 13, 20, 30, 40, 50};
    int count = argc > 1 ? argc - 1 : (int)(sizeof defaults / sizeof defaults[0]);
    printf("date,commit,cpu,setting,blocks,k_N,dt,steps,mean_us,p99_us,us_per_block,standing_s,"
           "top_drift_m\n");
    int status = 0;
    for (int i = 0; i < count; ++i) {
        int n = argc > 1 ? atoi(argv[i + 1]) : defaults[i];
        status |= run("paper", n, 2500, 0.005);
    }
    for (int i = 0; i < count; ++i) {
        int n = argc > 1 ? atoi(argv[i + 1]) : defaults[i];
        double k = fmax(1e5, 1e5 * (n / 13.0) * (n / 13.0));
        status |= run("standing", n, k, fmin(0.002, 0.5 / sqrt(k)));
    }
    return status;
}
