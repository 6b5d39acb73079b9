/* Hasegawa and Sato, example 2 (sec. 5.9, Fig. 16; the appendix's top has 192 polygons): a
 * top spins on its tip, falls, rolls and stops, which the paper's point model does not (it
 * keeps turning after falling). The top is the convex hull of a cone (its tip at the bottom)
 * and a disk on it: 48 segments, so 48 cone triangles, 48 side quads and a 48-gon lid, 190
 * triangles. Disk radius 0.1 m and thickness 0.02 m, cone height 0.1 m, 1 kg; k^N = k^S = 2e4
 * N/m, b^N = b^S = 20 N s/m, mu_0 = mu = 0.3, dt 1 ms; it starts on its tip tilted 0.05 rad
 * with 36 rad/s about its axis.
 *
 *     bench_volume_spinning_top [seconds] [--series FILE]     (default 200 s: the top rests at
 *                                                              about 151 s, see docs/contact-volume.md)
 *
 * stdout, one line per model: date,commit,cpu,model,tip_spin_s (time the axis stays within
 * 0.3 rad of vertical),fallen_s (first time the axis is 1.2 rad from vertical),spin_at_fall,
 * rest_time_s (|v| and |w| below 1e-3 from then on; nan: not at rest),final_speed,
 * final_angular_speed,us_per_step. FILE: date,commit,cpu,model,t,tilt,spin,angular_speed,
 * height every 20 ms (tilt: angle of the axis from vertical; spin: w along the axis). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"
#include "volume_bench.h"

enum { segments = 48 };

static const double radius = 0.1, thickness = 0.02, cone_height = 0.1;

/* The top's points in its frame, tip at the origin, axis z. */
static int top_vertices(tch_vec3* out) {
    int n = 0;
    out[n++] = tch_v3_zero();
    for (int i = 0; i < segments; ++i) {
        double a = 2 * TCH_PI * i / segments;
        double x = radius * cos(a), y = radius * sin(a);
        out[n++] = (tch_vec3){x, y, cone_height};
        out[n++] = (tch_vec3){x, y, cone_height + thickness};
    }
    return n;
}

static tch_model* spinning_top(tch_contact_model contact) {
    tch_spec* spec = vb_spec(9.81, 0.001, contact, 2e4, 20, 0.3);
    vb_add_floor(spec, 0.3);
    tch_vec3 vertices[1 + 2 * segments];
    tch_mesh_def mesh = tch_mesh_def_default();
    snprintf(mesh.name, sizeof mesh.name, "top");
    mesh.vertices = vertices;
    mesh.vertex_count = top_vertices(vertices);
    mesh.scale = (tch_vec3){1, 1, 1};
    tch_mesh_id id = {0};
    tch_spec_add_mesh(spec, &mesh, &id, NULL);
    tch_quat tilt = tch_q_axis_angle((tch_vec3){1, 0, 0}, 0.05);
    tch_body_id top = vb_add_body(spec, "top", tch_v3_zero(), tilt);
    tch_geom_def g = tch_geom_def_default();
    g.type = TCH_GEOM_MESH;
    g.mesh = id;
    g.mass = 1;
    tch_spec_add_geom(spec, top, &g, NULL, NULL);
    return vb_compile(spec);
}

static int run(tch_contact_model contact, double seconds, FILE* series) {
    tch_model* m = spinning_top(contact);
    tch_data* d = m ? vb_data(m) : NULL;
    if (!d) {
        tch_model_destroy(m);
        return 1;
    }
    /* spin about the body's axis (qvel's angular part is in the body frame) */
    d->qvel[5] = 36;
    const char* name = tch_contact_model_name(contact);
    double tip_spin = NAN, fallen = NAN, spin_at_fall = NAN, rest_since = NAN, elapsed = 0;
    long steps = lround(seconds / m->timestep);
    for (long i = 1; i <= steps; ++i) {
        double t0 = bench_now_seconds();
        tch_step(m, d, NULL);
        elapsed += bench_now_seconds() - t0;
        tch_vec3 axis = tch_q_rotate(d->body_X_WB[1].q, (tch_vec3){0, 0, 1});
        double tilt = acos(fmax(-1, fmin(1, axis.z)));
        double spin = tch_v3_dot(d->body_w_W[1], axis);
        tip_spin = isnan(tip_spin) && tilt > 0.3 ? d->time : tip_spin;
        if (isnan(fallen) && tilt > 0.7) {
            fallen = d->time;
            spin_at_fall = spin;
        }
        bool rest = vb_body_at_rest(d, 1, 1e-3);
        rest_since = rest ? (isnan(rest_since) ? d->time : rest_since) : NAN;
        if (series && i % 20 == 0) {
            fprintf(series, "%s,%s,%.3f,%.5f,%.5e,%.5e,%.5e\n", vb_csv_prefix(), name, d->time,
                    tilt, spin, tch_v3_norm(d->body_w_W[1]), d->body_p_WCm[1].z);
        }
    }
    printf("%s,%s,%.3f,%.3f,%.3f,%.3f,%.3e,%.3e,%.2f\n", vb_csv_prefix(), name, tip_spin, fallen,
           spin_at_fall, rest_since, tch_v3_norm(d->body_v_WCm[1]), tch_v3_norm(d->body_w_W[1]),
           elapsed * 1e6 / (double)steps);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}

int main(int argc, char** argv) {
    double seconds = 200;
    FILE* series = NULL;
    if (vb_parse_args(argc, argv, &seconds, "date,commit,cpu,model,t,tilt,spin,angular_speed,height", &series) != 0) {
        return 2;
    }
    printf("date,commit,cpu,model,tip_spin_s,fallen_s,spin_at_fall,rest_time_s,final_speed,"
           "final_angular_speed,us_per_step\n");
    int status = run(TCH_CONTACT_VOLUME, seconds, series) | run(TCH_CONTACT_POINT, seconds, series);
    if (series) {
        fclose(series);
    }
    return status;
}
