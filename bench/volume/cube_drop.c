/* Hasegawa and Sato, experiment 2 (sec. 5.4, Fig. 11-12): a cube of edge 2 m and 1 kg, its
 * lowest face 1 m above the floor before a tilt of 0.1 rad about (1, 1, 0), dropped with
 * dt 10 ms, spring 1500 N/m and damper 1.5 N s/m (examples/cube_drop.xml), on the volume and
 * the point model. The paper plots the angular momentum about its z axis, which is horizontal
 * (Springhead's y is up): the rocking, here the component along the tilt axis (1, 1, 0)/sqrt 2,
 * about the centre of mass.
 *
 *     bench_volume_cube_drop [seconds] [--series FILE]     (default 60 s)
 *
 * stdout, one line per model: date,commit,cpu,model,dt,seconds,peak_L_rock,L_rock_9_10s,
 * ratio_10s,max_abs_L_z,rest_time_s,final_speed,final_angular_speed,us_per_step.
 * rest_time_s is the first time from which |v| < 1e-3 m/s and |w| < 1e-3 rad/s until the end
 * (nan: not at rest at the end). FILE: date,commit,cpu,model,t,L_rock,L_z,speed,angular_speed
 * every 50 ms. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "volume_bench.h"

static tch_model* cube_drop(tch_contact_model contact) {
    tch_spec* spec = vb_spec(9.8, 0.01, contact, 1500, 1.5, 0.5);
    vb_add_floor(spec, 0.5);
    tch_vec3 axis = tch_v3_normalize((tch_vec3){1, 1, 0});
    tch_body_id cube = vb_add_body(spec, "cube", (tch_vec3){0, 0, 2}, tch_q_axis_angle(axis, 0.1));
    vb_add_box(spec, cube, (tch_vec3){1, 1, 1}, tch_v3_zero(), 1);
    return vb_compile(spec);
}

/* Angular momentum about the centre of mass, world: R I R^T w. */
static tch_vec3 angular_momentum(const tch_model* m, const tch_data* d, int b) {
    tch_mat3 I_W = tch_m3_rotate_tensor(d->body_R_WB[b], m->body_total_I_BCm[b]);
    return tch_m3_mul_v3(I_W, d->body_w_W[b]);
}

static int run(tch_contact_model contact, double seconds, FILE* series) {
    tch_model* m = cube_drop(contact);
    tch_data* d = m ? vb_data(m) : NULL;
    if (!d) {
        tch_model_destroy(m);
        return 1;
    }
    const char* name = tch_contact_model_name(contact);
    tch_vec3 axis = tch_v3_normalize((tch_vec3){1, 1, 0});
    long steps = lround(seconds / m->timestep);
    double peak = 0, at_10s = 0, max_lz = 0, rest_since = NAN, elapsed = 0;
    for (long i = 1; i <= steps; ++i) {
        double t0 = bench_now_seconds();
        tch_step(m, d, NULL);
        elapsed += bench_now_seconds() - t0;
        tch_vec3 L = angular_momentum(m, d, 1);
        double rock = tch_v3_dot(L, axis);
        peak = fmax(peak, fabs(rock));
        at_10s = d->time > 9 && d->time <= 10 + 1e-9 ? fmax(at_10s, fabs(rock)) : at_10s;
        max_lz = fmax(max_lz, fabs(L.z));
        bool rest = vb_body_at_rest(d, 1, 1e-3);
        rest_since = rest ? (isnan(rest_since) ? d->time : rest_since) : NAN;
        if (series && i % 5 == 0) {
            fprintf(series, "%s,%s,%.2f,%.6e,%.6e,%.6e,%.6e\n", vb_csv_prefix(), name, d->time,
                    rock, L.z, tch_v3_norm(d->body_v_WCm[1]), tch_v3_norm(d->body_w_W[1]));
        }
    }
    printf("%s,%s,%g,%g,%.4e,%.4e,%.4e,%.3e,%.2f,%.3e,%.3e,%.2f\n", vb_csv_prefix(), name,
           m->timestep, seconds, peak, at_10s, at_10s / peak, max_lz, rest_since,
           tch_v3_norm(d->body_v_WCm[1]), tch_v3_norm(d->body_w_W[1]),
           elapsed * 1e6 / (double)steps);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}

int main(int argc, char** argv) {
    double seconds = 60;
    FILE* series = NULL;
    if (vb_parse_args(argc, argv, &seconds, "date,commit,cpu,model,t,L_rock,L_z,speed,angular_speed", &series) != 0) {
        return 2;
    }
    printf("date,commit,cpu,model,dt,seconds,peak_L_rock,L_rock_9_10s,ratio_10s,max_abs_L_z,"
           "rest_time_s,final_speed,final_angular_speed,us_per_step\n");
    int status = run(TCH_CONTACT_VOLUME, seconds, series) | run(TCH_CONTACT_POINT, seconds, series);
    if (series) {
        fclose(series);
    }
    return status;
}
