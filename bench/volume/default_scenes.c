/* The volume model at default parameters on plain MJCF scenes (issue 12): the shared comparison
 * scenes (zero-gap stacks, piles) as a user writes them, run with `--contact volume` and
 * nothing else set, so the integrator is the one a scene without an integrator attribute gets
 * (docs/integrators.md, "The default").
 *
 *     bench_volume_default_scenes SCENE.xml... [--dt S] [--duration S]
 *
 * --dt overrides the scenes' step (to find the largest stable one), --duration the simulated
 * time (default: 5 s for a scene whose name holds "pile", else 10 s).
 *
 * stdout, one line per scene: date,commit,cpu,scene,integrator,dt,steps,mean_us,p50_us,p99_us,
 * energy_start_J,energy_excess (the largest (E(t) - E(0)) / |E(0)| over the run, E the kinetic
 * and gravitational energy: no work is put in),top_drift_m (the largest distance of the
 * highest body from where it was at 1 s),max_move_m (the largest distance of any body from its
 * start),max_v,max_w (over the bodies at the end),end (ok, or the step's error). Step times
 * are the thread's CPU time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "volume_bench.h"

typedef struct run_options {
    double dt, duration; /* NaN: the scene's own */
} run_options;

static tch_model* load(const char* path, const run_options* o) {
    tch_spec* spec = NULL;
    tch_error err = {0};
    if (tch_mjcf_load(path, &spec, &err) != TCH_OK) {
        fprintf(stderr, "%s: %s\n", path, err.message);
        return NULL;
    }
    tch_spec_force_contact_model(spec, TCH_CONTACT_VOLUME);
    if (!isnan(o->dt)) {
        tch_option_def opt = *tch_spec_option(spec);
        opt.timestep = o->dt;
        tch_spec_set_option(spec, &opt, NULL);
    }
    return vb_compile(spec);
}

/* The free body with the highest centre of mass. */
static int highest_body(const tch_model* m, const tch_data* d) {
    int best = 1;
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b] && d->body_p_WCm[b].z > d->body_p_WCm[best].z) {
            best = b;
        }
    }
    return best;
}

static int run(const char* path, const run_options* o) {
    tch_model* m = load(path, o);
    tch_data* d = m ? vb_data(m) : NULL;
    double duration = !isnan(o->duration) ? o->duration : strstr(path, "pile") ? 5 : 10;
    long steps = m ? lround(duration / m->timestep) : 0;
    vb_times times;
    tch_vec3* start = m ? calloc((size_t)m->body_count, sizeof *start) : NULL;
    if (!d || !start || !vb_times_init(&times, (int)steps)) {
        free(start);
        tch_model_destroy(m);
        return 1;
    }
    tch_forward(m, d, NULL);
    for (int b = 0; b < m->body_count; ++b) {
        start[b] = d->body_p_WCm[b];
    }
    int top = highest_body(m, d);
    double energy = tch_data_energy(m, d), excess = 0, drift = 0, moved = 0;
    tch_vec3 settled = start[top];
    long settle_step = lround(1.0 / m->timestep);
    tch_error err = {0};
    tch_status status = TCH_OK;
    for (long i = 0; i < steps && status == TCH_OK; ++i) {
        status = vb_timed_step(m, d, &times, &err);
        excess = fmax(excess, (tch_data_energy(m, d) - energy) / fabs(energy));
        if (i == settle_step) {
            settled = d->body_p_WCm[top];
        } else if (i > settle_step) {
            drift = fmax(drift, tch_v3_norm(tch_v3_sub(d->body_p_WCm[top], settled)));
        }
    }
    double max_v = 0, max_w = 0;
    for (int b = 1; b < m->body_count; ++b) {
        if (m->body_free[b]) {
            moved = fmax(moved, tch_v3_norm(tch_v3_sub(d->body_p_WCm[b], start[b])));
            max_v = fmax(max_v, tch_v3_norm(d->body_v_WCm[b]));
            max_w = fmax(max_w, tch_v3_norm(d->body_w_W[b]));
        }
    }
    const char* name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    printf("%s,%s,%s,%g,%ld,%.2f,%.2f,%.2f,%.6g,%.3e,%.3e,%.3e,%.3e,%.3e,\"%s\"\n",
           vb_csv_prefix(), name, tch_integrator_description(m->integrator), m->timestep, steps,
           vb_times_mean(&times), vb_times_quantile(&times, 0.5),
           vb_times_quantile(&times, 0.99), energy, excess, drift, moved, max_v, max_w,
           status == TCH_OK ? "ok" : err.message);
    free(start);
    return vb_run_end(&times, d, m);
}

int main(int argc, char** argv) {
    run_options o = {NAN, NAN};
    printf("date,commit,cpu,scene,integrator,dt,steps,mean_us,p50_us,p99_us,energy_start_J,"
           "energy_excess,top_drift_m,max_move_m,max_v,max_w,end\n");
    int status = 0;
    for (int i = 1; i < argc; ++i) {
        if ((strcmp(argv[i], "--dt") == 0 || strcmp(argv[i], "--duration") == 0) &&
            i + 1 < argc) {
            *(argv[i][2] == 'd' && argv[i][3] == 't' ? &o.dt : &o.duration) = atof(argv[i + 1]);
            ++i;
            continue;
        }
        status |= run(argv[i], &o);
    }
    return status;
}
