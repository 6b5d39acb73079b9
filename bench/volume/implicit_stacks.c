/* Experiment 1's tall stacks at the paper's step with the linearly implicit integrator
 * (docs/integrators.md): N = 13, 25, 50 blocks of 1 x 1 x 2 m and 1 kg at dt 5 ms with the
 * stiffness that does not buckle, k^N = 1e5 max(1, (N/13)^2) N/m (a contact's rotational
 * stiffness k^N L^2/12 above the column's toppling m g N^2, docs/contact-volume.md), b^N = 10,
 * k^S = 2500, b^S = 10, mu = 0.6. The same runs with semi-implicit Euler show why the
 * integrator is needed, and the point model with the implicit integrator on 50 blocks (k^N/4
 * per point, so that a face's four corner points carry the same vertical stiffness; their
 * rotational stiffness k^N L^2/4 is three times the volume model's) shows what the volume
 * model adds.
 *
 * Blocks start at the closed-form equilibrium (contact j sinks by (N - j + 1) m g / k^N), the
 * top one pushed 1e-6 m sideways as in bench_volume_stacks; 10 s simulated.
 *
 *     bench_volume_implicit_stacks [SECONDS]
 *
 * stdout: date,commit,cpu,model,integrator,blocks,k_N,dt,steps,mean_us,p99_us,standing_s
 * (every block within 0.2 rad of upright and the top within 5% of its height; the full run when
 * it never fell),top_drift_m,end (ok, or the step's error when the run stopped). Step times are
 * the thread's CPU time. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "math/vec.h"
#include "volume_bench.h"

static const double g = 9.81, dt = 0.005;

typedef struct stack_run {
    tch_contact_model model;
    tch_integrator integrator;
    int blocks;
} stack_run;

static tch_model* build(const stack_run* r, double k) {
    double per_point = r->model == TCH_CONTACT_POINT ? 0.25 : 1;
    tch_spec* spec = vb_spec(g, dt, r->model, per_point * k, 10, 0.6);
    tch_option_def opt = *tch_spec_option(spec);
    opt.integrator = r->integrator;
    opt.contact.tangential_stiffness = 2500;
    opt.contact.tangential_damping = 10;
    tch_spec_set_option(spec, &opt, NULL);
    vb_add_floor(spec, 0.6);
    vb_add_block_stack(spec, r->blocks, k, g);
    return vb_compile(spec);
}

static const char* integrator_name(tch_integrator integrator) {
    return integrator == TCH_INTEGRATOR_IMPLICIT ? "implicit" : "euler";
}

static int run(const stack_run* r, double seconds) {
    int n = r->blocks;
    double k = fmax(1e5, 1e5 * (n / 13.0) * (n / 13.0));
    tch_model* m = build(r, k);
    tch_data* d = m ? vb_data(m) : NULL;
    long steps = lround(seconds / dt);
    vb_times times;
    if (!d || !vb_times_init(&times, (int)steps)) {
        tch_model_destroy(m);
        return 1;
    }
    tch_forward(m, d, NULL);
    tch_vec3 top = d->body_p_WCm[n];
    double stood = seconds;
    tch_error err = {0};
    tch_status status = TCH_OK;
    for (long i = 0; i < steps && status == TCH_OK; ++i) {
        status = vb_timed_step(m, d, &times, &err);
        if (stood == seconds && (status != TCH_OK || !vb_block_stack_stands(d, n, top.z))) {
            stood = d->time;
        }
    }
    tch_vec3 moved = tch_v3_sub(d->body_p_WCm[n], top);
    printf("%s,%s,%s,%d,%g,%g,%ld,%.2f,%.2f,%.3f,%.3e,\"%s\"\n", vb_csv_prefix(),
           tch_contact_model_name(r->model), integrator_name(r->integrator), n, k, dt, steps,
           vb_times_mean(&times), vb_times_quantile(&times, 0.99), stood,
           hypot(moved.x, moved.y), status == TCH_OK ? "ok" : err.message);
    return vb_run_end(&times, d, m);
}

int main(int argc, char** argv) {
    double seconds = argc > 1 ? atof(argv[1]) : 10;
    static const stack_run runs[] = {
        {TCH_CONTACT_VOLUME, TCH_INTEGRATOR_IMPLICIT, 13},
        {TCH_CONTACT_VOLUME, TCH_INTEGRATOR_IMPLICIT, 25},
        {TCH_CONTACT_VOLUME, TCH_INTEGRATOR_IMPLICIT, 50},
        {TCH_CONTACT_VOLUME, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, 13},
        {TCH_CONTACT_VOLUME, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, 25},
        {TCH_CONTACT_VOLUME, TCH_INTEGRATOR_SEMI_IMPLICIT_EULER, 50},
        {TCH_CONTACT_POINT, TCH_INTEGRATOR_IMPLICIT, 50},
    };
    printf("date,commit,cpu,model,integrator,blocks,k_N,dt,steps,mean_us,p99_us,standing_s,"
           "top_drift_m,end\n");
    int status = 0;
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; ++i) {
        status |= run(&runs[i], seconds);
    }
    return status;
}
