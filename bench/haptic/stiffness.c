/* The coupling stiffness the `model` device renders stably against stiff contact: the tool of
 * examples/haptic_coupling.xml resting on its box with the volume model, the model device
 * (0.2 kg, b = 2 N s/m, f_c = 0.05 N, 10 um encoders) at 1 kHz, the scene settling for 0.2 s,
 * the hand pressing 2 N down for 0.3 s, then letting go for 0.7 s. For each coupling stiffness
 * (damping left at its default, critical for the tool's mass), with the passivity controller
 * off and on: the stiffness the hand feels (2 N over the handle's sink from the settled pose at
 * the end of the press), the contacts' stiffness under the tool (2 N over the tool's sink),
 * the felt stiffness over the two springs in series k k_env / (k + k_env) (1: nothing scaled),
 * the device's RMS velocity and the largest force over the last 0.3 s (a stable contact
 * settles: both near zero), and the ledger. Colgate and Schenkel's bound for a sampled spring
 * on this device is K < 2 b / T = 4000 N/m, Abbott and Okamura's with its friction and
 * encoders K < 2 f_c / quantum = 10,000 N/m. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_machine.h"
#include "touche/touche.h"

static const char* SCENE =
    "<mujoco xmlns:touche='urn:touche'><option touche:contact='volume'/><worldbody>"
    "<geom name='floor' type='plane' size='1 1 0.1'/>"
    "<body name='box' pos='0 0 0.05'><freejoint/>"
    "<geom name='box' type='box' size='0.05 0.05 0.05'/></body>"
    "<body name='tool' pos='0 0 0.12'><freejoint/>"
    "<geom name='tool' type='box' size='0.02 0.02 0.02'/></body>"
    "<body name='device' pos='0 0 0.12' mocap='true' touche:haptic='coupling' touche:tool='tool'"
    " touche:linear_stiffness='%g'/>"
    "</worldbody></mujoco>";

typedef struct outcome {
    double velocity_rms, force_max;
    double felt_stiffness; /* N/m, 2 N over the handle's sink at the end of the press */
    double contact_stiffness; /* N/m, 2 N over the tool's sink */
    tch_haptic_ledger ledger;
} outcome;

static int run(double k, bool passivity, double friction, double quantum, outcome* out) {
    char xml[2048];
    snprintf(xml, sizeof xml, SCENE, k);
    tch_spec* spec;
    tch_model* model;
    tch_data* data;
    tch_haptic_device* device;
    tch_haptic_loop* loop;
    tch_error err;
    const double T = 1e-3;
    tch_haptic_model_config c = {.period = T, .mass = 0.2, .damping = 2, .friction = friction,
                                 .spec = {.max_force = 12, .max_torque = 0.2,
                                          .max_stiffness = 4000, .max_damping = 30,
                                          .position_quantum = quantum}};
    if (tch_mjcf_load_string(xml, ".", "stiffness.xml", &spec, &err) ||
        tch_compile(spec, &model, &err) || tch_data_create(model, &data, &err) ||
        tch_haptic_open(tch_haptic_model_driver(), &c, &device, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 0;
    }
    tch_haptic_loop_config config = {.body = -1, .period = T, .passivity_control = passivity,
                                     .passivity_max_damping = c.spec.max_damping,
                                     .base_at_body = true,
                                     .safety = tch_haptic_safety_defaults(&c.spec)};
    if (tch_haptic_loop_create(model, data, device, &config, &loop, &err)) {
        fprintf(stderr, "%s\n", err.message);
        return 0;
    }
    int tool = tch_haptic_loop_tool(loop);
    double v2 = 0, handle_rest = 0, tool_rest = 0;
    long counted = 0;
    const long press = 200, release = 500, end = 1200;
    *out = (outcome){0};
    for (long i = 0; i < end; ++i) {
        if (i == press) tch_haptic_model_set_hand_force(device, (tch_vec3){0, 0, -2}, &err);
        if (i == release) tch_haptic_model_set_hand_force(device, (tch_vec3){0, 0, 0}, &err);
        tch_haptic_tick tick;
        if (tch_haptic_loop_tick(loop, &tick, &err) != TCH_OK) {
            out->velocity_rms = out->force_max = INFINITY; /* diverged */
            break;
        }
        if (i == press - 1) {
            handle_rest = tick.state.pose.p.z;
            tool_rest = data->body_p_WCm[tool].z;
        }
        if (i == release - 1) {
            out->felt_stiffness = 2 / (handle_rest - tick.state.pose.p.z);
            out->contact_stiffness = 2 / (tool_rest - data->body_p_WCm[tool].z);
        }
        if (i >= end - 300) {
            tch_vec3 v = tick.state.velocity, f = tick.command.force;
            v2 += v.x * v.x + v.y * v.y + v.z * v.z;
            counted++;
            out->force_max = fmax(out->force_max, sqrt(f.x * f.x + f.y * f.y + f.z * f.z));
        }
    }
    if (counted > 0) out->velocity_rms = sqrt(v2 / (double)counted);
    out->ledger = tch_haptic_loop_passivity(loop)->ledger;
    tch_haptic_loop_destroy(loop);
    tch_haptic_close(device);
    tch_data_destroy(data);
    tch_model_destroy(model);
    tch_spec_destroy(spec);
    return 1;
}

int main(void) {
    char cpu[128];
    bench_cpu_model(cpu, sizeof cpu);
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    printf("# coupling stiffness on the model device, commit %s, cpu %s\n", commit, cpu);
    printf("device,k_N_per_m,passivity,felt_N_per_m,contact_N_per_m,felt_over_series,"
           "velocity_rms_m_s,force_max_N,energy_in_J,energy_out_J,dissipated_J,stable\n");
    const double stiffness[] = {500, 1000, 2000, 3000, 4000, 5000, 8000, 12000, 20000, 50000};
    /* the model device as touche haptic builds it, and one without friction or quantization */
    const double friction[] = {0.05, 0}, quantum[] = {1e-5, 0};
    for (int d = 0; d < 2; ++d) {
        for (size_t i = 0; i < sizeof stiffness / sizeof stiffness[0]; ++i) {
            for (int pc = 0; pc < 2; ++pc) {
                outcome o;
                if (!run(stiffness[i], pc, friction[d], quantum[d], &o)) return 1;
                bool stable = o.velocity_rms < 1e-3 && o.force_max < 11.9;
                double k = stiffness[i], series = k * o.contact_stiffness / (k + o.contact_stiffness);
                printf("%s,%g,%s,%.0f,%.0f,%.3f,%.3g,%.3g,%.4g,%.4g,%.4g,%s\n", d ? "ideal" : "cli",
                       k, pc ? "on" : "off", o.felt_stiffness, o.contact_stiffness,
                       o.felt_stiffness / series, o.velocity_rms, o.force_max,
                       o.ledger.energy_in, o.ledger.energy_out, o.ledger.energy_dissipated,
                       stable ? "yes" : "no");
            }
        }
    }
    return 0;
}
