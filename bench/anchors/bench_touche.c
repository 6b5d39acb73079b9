/* touche measured exactly like the anchors (bench_common.h): loads the scene through the public
 * API and times tch_step. */
#include <stdio.h>
#include <string.h>

#include "bench_common.h"
#include "math/vec.h"
#include "touche/touche.h"

static int count_free_bodies(const tch_model* model) {
    int n = 0;
    for (int b = 0; b < model->body_count; ++b) {
        n += model->body_free[b] != 0;
    }
    return n;
}

/* The position and velocity stages bring the body quantities up to the state that the step
 * has just integrated; L_Cm = R_WB I_BCm R_WB^T w_W. */
static void read_state(const tch_model* model, tch_data* data, bench_run* run) {
    tch_stage_kinematics(model, data);
    tch_stage_velocities(model, data);
    int n = 0;
    for (int b = 0; b < model->body_count; ++b) {
        if (!model->body_free[b]) {
            continue;
        }
        bench_body_state* s = &run->current[n++];
        s->p_WCm = data->body_p_WCm[b];
        s->q_WB = data->body_X_WB[b].q;
        s->v_WCm = data->body_v_WCm[b];
        s->w_W = data->body_w_W[b];
        tch_mat3 I_W = tch_m3_rotate_tensor(data->body_R_WB[b], model->body_total_I_BCm[b]);
        s->L_Cm_W = tch_m3_mul_v3(I_W, s->w_W);
        s->mass = model->body_total_mass[b];
    }
}

/* The watch's account (touche/watch.h): the deepest penetration of any model over the run (the
 * pressure model's from the overlap of the geoms, as its contact point has no depth), and its
 * warnings in the status. */
static void note_watch(const tch_data* data, bench_run* run) {
    tch_watch_report report;
    tch_data_watch_report(data, &report);
    for (int k = 0; k < TCH_CONTACT_MODEL_END; ++k) {
        bench_note_penetration(run, report.deepest[k]);
    }
    if (report.warning_count > 0 && strcmp(run->status, "ok") == 0) {
        snprintf(run->status, sizeof run->status, "the watch warned: %d steps of energy gain, %d "
                 "of deep penetration", data->warning_count[TCH_WARN_ENERGY_GAIN],
                 data->warning_count[TCH_WARN_DEEP_PENETRATION]);
    }
}

static void simulate(const tch_model* model, tch_data* data, bench_run* run) {
    tch_error err = {0};
    for (int i = 0; i < run->steps; ++i) {
        long long t0 = bench_now_ns();
        tch_status status = tch_step(model, data, &err);
        long long t1 = bench_now_ns();
        if (status != TCH_OK) {
            snprintf(run->status, sizeof run->status, "%s at t = %g s: %.60s",
                     tch_status_name(status), data->time, err.message);
            break;
        }
        bench_record_step(run, i, t0, t1);
        if (run->lz_file) {
            read_state(model, data, run);
            bench_record_momentum(run, data->time);
        }
    }
    read_state(model, data, run);
    note_watch(data, run);
}

static tch_status load(const bench_options* options, tch_model** model, tch_error* err) {
    tch_spec* spec = NULL;
    tch_status status = tch_mjcf_load(options->scene_path, &spec, err);
    if (status == TCH_OK && options->contact) {
        tch_contact_model forced;
        if (!tch_contact_model_parse(options->contact, &forced)) {
            tch_spec_destroy(spec);
            snprintf(err->message, sizeof err->message, "unknown contact model %s",
                     options->contact);
            return TCH_ERR_INVALID_ARGUMENT;
        }
        tch_spec_force_contact_model(spec, forced);
    }
    if (status == TCH_OK) {
        status = tch_compile(spec, model, err);
    }
    tch_spec_destroy(spec);
    return status;
}

int main(int argc, char** argv) {
    bench_options options;
    if (!bench_parse_args(argc, argv, "bench_touche", &options)) {
        return 2;
    }
    tch_error err = {0};
    tch_model* model = NULL;
    tch_data* data = NULL;
    if (load(&options, &model, &err) != TCH_OK || tch_data_create(model, &data, &err) != TCH_OK) {
        bench_report_failure(&options, "touche", err.message);
        tch_model_destroy(model);
        return 1;
    }
    bench_run run;
    if (!bench_run_begin(&run, &options, model->timestep, count_free_bodies(model))) {
        return 1;
    }
    read_state(model, data, &run);
    bench_run_set_initial(&run, model->gravity);
    bench_record_momentum(&run, data->time);
    simulate(model, data, &run);
    char settings[256];
    const char* contact = options.contact ? options.contact
                                          : tch_contact_model_name(model->contact_default.model);
    snprintf(settings, sizeof settings, "touche %s: contact %s%s integrator %s (scene options)",
             tch_version(), contact, options.contact ? " (forced)" : "",
             tch_integrator_description(model->integrator));
    /* A forced contact model runs as its own engine, "touche-<model>" (bench/run.sh); the
     * scene's own models keep the name "touche". */
    char engine[64];
    snprintf(engine, sizeof engine, "touche%s%s", options.contact ? "-" : "",
             options.contact ? options.contact : "");
    bench_run_finish(&run, engine, settings);
    tch_data_destroy(data);
    tch_model_destroy(model);
    return 0;
}
