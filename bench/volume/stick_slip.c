/* Hasegawa and Sato, experiment 3 (sec. 5.6-5.7, Fig. 13-14): a weight on a floor pulled
 * through a spring whose far end moves at constant speed shows the saw-tooth of stick and
 * slip; a small damper beside the spring makes it decay. The paper gives no numbers; the
 * scenario is the reference notes' (§9.8): a 1 kg block with a 0.2 x 0.2 m base, mu_0 = 0.6,
 * mu = 0.3, drive spring 100 N/m pulled at 0.1 m/s, contact k^N = k^S = 2e4 N/m (200 times the
 * drive spring), b^N = 200, b^S = 20 N s/m, dt 1 ms. The drive is a user force
 * (body_force_applied_W) computed each step: k (x_end - x) + c (V - v).
 *
 * Closed forms for Coulomb friction: the first break-away at mu_0 m g = 5.884 N after
 * mu_0 m g / (k V) = 0.588 s; the slip is half an oscillation at sqrt(k/m) = 10 rad/s about the
 * sliding force mu m g = 2.942 N, so the tension drops to about (2 mu - mu_0) m g = 0 and the
 * weight jumps 2 (mu_0 - mu) m g / k = 5.9 cm; period about 0.59 + 0.31 s.
 *
 *     bench_volume_stick_slip [seconds] [--series FILE]     (default 20 s)
 *
 * A damper c beside the spring shrinks the saw-tooth. A stick ends every slip at v = 0 and the
 * next break-away starts from the same state (v = 0, tension mu_0 m g), so below a critical c
 * the saw-tooth is a limit cycle from its first slip: it cannot decay. The slip's velocity
 * u = v - V obeys u'' + (c/m) u' + (k/m) u = 0 with u(0) = -V, u'(0) = (mu_0 - mu) g; the
 * block sticks again when u comes back to -V, which it does for c < c* = 4.294 N s/m (found
 * by bisection on that closed form; the rigid Coulomb model integrated at 1e-5 s agrees:
 * re-sticking at 4, steady sliding at 4.5). Above c* the first slip never ends and the
 * oscillation about steady sliding decays by exp(-c T_d / 2m) per period T_d (0.2 at c = 5).
 *
 * stdout, one line per damper c (0, 2, 4, 4.5, 5 and 8 N s/m): date,commit,cpu,damper,
 * first_breakaway_N,first_breakaway_s,slips,mean_peak_N,mean_trough_N,mean_period_s,first_drop_N,
 * last_drop_N,mean_jump_m,range_first_s_N,range_last_s_N,peak_spread_N,trough_spread_N (friction
 * at break-away and the tension's trough, over the slips after the first; the tension's range
 * over the second after the first break-away and over the last second; the spread, max - min,
 * of the peaks and troughs over the slips after the first: zero for identical cycles). FILE:
 * date,commit,cpu,damper,t,x,tension,friction every 10 ms, friction = tension - m a. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "volume_bench.h"

enum { max_slips = 256 };

static const double mass = 1, drive_k = 100, drive_v = 0.1, g = 9.81;

static tch_model* weight_on_floor(void) {
    tch_spec* spec = vb_spec(g, 0.001, TCH_CONTACT_VOLUME, 2e4, 200, 0.3);
    tch_option_def opt = *tch_spec_option(spec);
    opt.contact.static_friction = 0.6;
    opt.contact.tangential_damping = 20;
    tch_spec_set_option(spec, &opt, NULL);
    vb_add_floor(spec, 0.3);
    tch_body_id w = vb_add_body(spec, "weight", (tch_vec3){0, 0, 0.05 - mass * g / 2e4},
                                tch_q_identity());
    vb_add_box(spec, w, (tch_vec3){0.1, 0.1, 0.05}, tch_v3_zero(), mass);
    return vb_compile(spec);
}

/* One slip: the largest friction (tension - m a) of the stick before it (peak), the smallest
 * tension while it lasts (trough), the time it was seen and its start and end positions. */
typedef struct slip {
    double peak, trough, t, x0, x1;
} slip;

static int run(double damper, double seconds, FILE* series) {
    tch_model* m = weight_on_floor();
    tch_data* d = m ? vb_data(m) : NULL;
    if (!d) {
        tch_model_destroy(m);
        return 1;
    }
    slip slips[max_slips];
    int count = 0;
    bool sliding = false;
    double x_start = 0, tension = 0, stick_max = -INFINITY;
    double first_lo = INFINITY, first_hi = -INFINITY, last_lo = INFINITY, last_hi = -INFINITY;
    long steps = lround(seconds / m->timestep);
    for (long i = 0; i < steps; ++i) {
        tch_stage_kinematics(m, d);
        double x = d->body_p_WCm[1].x - x_start, v = d->body_v_WCm[1].x;
        tension = drive_k * (drive_v * d->time - x) + damper * (drive_v - v);
        d->body_force_applied_W[1] = (tch_vec3){tension, 0, 0};
        tch_step(m, d, NULL);
        double v_new = d->body_v_WCm[1].x;
        double friction = tension - mass * (v_new - v) / m->timestep;
        bool moving = v_new > 2 * drive_v;
        stick_max = sliding ? -INFINITY : fmax(stick_max, friction);
        if (moving && !sliding && count < max_slips) {
            slips[count++] = (slip){stick_max, tension, d->time, x, x};
        }
        if (sliding && count > 0) {
            slips[count - 1].trough = fmin(slips[count - 1].trough, tension);
            slips[count - 1].x1 = x;
        }
        sliding = moving || (sliding && v_new > 0.01 * drive_v);
        if (series && i % 10 == 0) {
            fprintf(series, "%s,%g,%.3f,%.6e,%.6e,%.6e\n", vb_csv_prefix(), damper, d->time, x,
                    tension, friction);
        }
        if (count > 0 && d->time <= slips[0].t + 1) {
            first_lo = fmin(first_lo, tension), first_hi = fmax(first_hi, tension);
        }
        if (d->time > seconds - 1) {
            last_lo = fmin(last_lo, tension), last_hi = fmax(last_hi, tension);
        }
    }
    double peak = 0, trough = 0, period = 0, jump = 0;
    double peak_lo = INFINITY, peak_hi = -INFINITY, trough_lo = INFINITY, trough_hi = -INFINITY;
    for (int s = 1; s < count; ++s) {
        peak += slips[s].peak / (count - 1);
        trough += slips[s].trough / (count - 1);
        jump += (slips[s].x1 - slips[s].x0) / (count - 1);
        period += (slips[s].t - slips[s - 1].t) / (count - 1);
        peak_lo = fmin(peak_lo, slips[s].peak), peak_hi = fmax(peak_hi, slips[s].peak);
        trough_lo = fmin(trough_lo, slips[s].trough), trough_hi = fmax(trough_hi, slips[s].trough);
    }
    double first_drop = count > 1 ? slips[1].peak - slips[1].trough : NAN;
    double last_drop = count > 1 ? slips[count - 1].peak - slips[count - 1].trough : NAN;
    printf("%s,%g,%.4f,%.3f,%d,%.4f,%.4f,%.4f,%.4f,%.4f,%.5f,%.4f,%.4f,%.2e,%.2e\n",
           vb_csv_prefix(), damper, count ? slips[0].peak : NAN, count ? slips[0].t : NAN, count,
           peak, trough, period, first_drop, last_drop, jump, first_hi - first_lo,
           last_hi - last_lo, count > 1 ? peak_hi - peak_lo : NAN,
           count > 1 ? trough_hi - trough_lo : NAN);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}

int main(int argc, char** argv) {
    double seconds = 20;
    FILE* series = NULL;
    if (vb_parse_args(argc, argv, &seconds, "date,commit,cpu,damper,t,x,tension,friction", &series) != 0) {
        return 2;
    }
    printf("date,commit,cpu,damper,first_breakaway_N,first_breakaway_s,slips,mean_peak_N,"
           "mean_trough_N,mean_period_s,first_drop_N,last_drop_N,mean_jump_m,range_first_s_N,"
           "range_last_s_N,peak_spread_N,trough_spread_N\n");
    static const double dampers[] = {0, 2, 4, 4.5, 5, 8};
    int status = 0;
    for (size_t i = 0; i < sizeof dampers / sizeof dampers[0]; ++i) {
        status |= run(dampers[i], seconds, series);
    }
    if (series) {
        fclose(series);
    }
    return status;
}
