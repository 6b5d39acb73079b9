/* Proxy tick time on a 10k-triangle mesh (issue 14's target: p99 at most 20 us): a UV sphere
 * of radius 0.1 m (100 segments x 51 bands = 10,000 triangles) and a scripted hand that presses
 * 2 mm into it and drags around a tilted great circle with a wobble across the bands (friction
 * mu 0.3, so the proxy sticks and slides), for a point proxy and a 5 mm sphere proxy, on a
 * static mesh and on the same sphere as a moving body (the mesh geom of a free body, its convex
 * hull's faces fanned to about the same count), turning 1 rad/s about a tilted axis and
 * circling 5 cm at 1 Hz, the hand's path riding along in the body's frame. Prints the tick time
 * (the body's pose set and the update) p50/p99/max over ROUNDS rounds of TICKS ticks at 1 kHz
 * script time, and the largest depth of the proxy inside the mesh's sphere (in the body's frame)
 * and the share of ticks in contact (checks, not timings). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_machine.h"
#include "math/vec.h"
#include "touche/touche.h"

enum { SEGMENTS = 100, BANDS = 51, ROUNDS = 3, TICKS = 20000 };
static const double RADIUS = 0.1, PRESS = 0.002, PI = 3.14159265358979323846;

typedef struct uv_sphere {
    tch_vec3 vertices[SEGMENTS * (BANDS - 1) + 2];
    int triangles[2 * SEGMENTS * (BANDS - 1)][3];
    int triangle_count;
} uv_sphere;

static int ring_vertex(int band, int segment) { /* band 1..BANDS-1 */
    return 2 + (band - 1) * SEGMENTS + segment % SEGMENTS;
}

static void add_triangle(uv_sphere* s, int a, int b, int c) {
    int* t = s->triangles[s->triangle_count++];
    t[0] = a, t[1] = b, t[2] = c;
}

static void make_sphere(uv_sphere* s) {
    s->vertices[0] = (tch_vec3){0, 0, RADIUS};
    s->vertices[1] = (tch_vec3){0, 0, -RADIUS};
    for (int band = 1; band < BANDS; ++band) {
        double polar = PI * band / BANDS;
        for (int seg = 0; seg < SEGMENTS; ++seg) {
            double azimuth = 2 * PI * seg / SEGMENTS;
            s->vertices[ring_vertex(band, seg)] =
                (tch_vec3){RADIUS * sin(polar) * cos(azimuth), RADIUS * sin(polar) * sin(azimuth),
                           RADIUS * cos(polar)};
        }
    }
    s->triangle_count = 0;
    for (int seg = 0; seg < SEGMENTS; ++seg) { /* counter-clockwise seen from outside */
        add_triangle(s, 0, ring_vertex(1, seg), ring_vertex(1, seg + 1));
        add_triangle(s, 1, ring_vertex(BANDS - 1, seg + 1), ring_vertex(BANDS - 1, seg));
        for (int band = 1; band + 1 < BANDS; ++band) {
            int a = ring_vertex(band, seg), b = ring_vertex(band, seg + 1);
            int c = ring_vertex(band + 1, seg), d = ring_vertex(band + 1, seg + 1);
            add_triangle(s, a, c, d);
            add_triangle(s, a, d, b);
        }
    }
}

/* The hand at tick k: 2 mm inside the proxy's resting surface, on a great circle tilted 30
 * degrees, wobbling 20 degrees across it. */
static tch_vec3 hand_at(long k, double radius) {
    double t = k * 1e-3, around = 2 * PI * t / 4, wobble = 0.35 * sin(2 * PI * t);
    double tilt = PI / 6;
    tch_vec3 u = {cos(around), sin(around) * cos(tilt), sin(around) * sin(tilt)};
    tch_vec3 w = {0, -sin(tilt), cos(tilt)};
    double r = RADIUS + radius - PRESS;
    return (tch_vec3){r * (cos(wobble) * u.x + sin(wobble) * w.x),
                      r * (cos(wobble) * u.y + sin(wobble) * w.y),
                      r * (cos(wobble) * u.z + sin(wobble) * w.z)};
}

static int compare(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

/* The moving body's pose at tick k: turning 1 rad/s about a tilted axis, its centre on a 5 cm
 * circle at 1 Hz. */
static tch_transform body_at(long k) {
    double t = k * 1e-3;
    tch_vec3 axis = tch_v3_normalize(tch_v3(0.3, -0.2, 1));
    return (tch_transform){tch_q_axis_angle(axis, t),
                           tch_v3(0.05 * cos(2 * PI * t) - 0.05, 0.05 * sin(2 * PI * t), 0)};
}

/* The sphere as an MJCF mesh on a free body (gravity off), and a proxy over the scene. */
static tch_status moving_proxy(const uv_sphere* s, const tch_haptic_proxy_params* params,
                               tch_spec** spec, tch_model** model, tch_data** data,
                               tch_haptic_proxy** proxy, tch_error* err) {
    int vertex_count = SEGMENTS * (BANDS - 1) + 2;
    size_t size = 200 + (size_t)vertex_count * 3 * 28;
    char* xml = malloc(size);
    if (!xml) {
        return TCH_ERR_OUT_OF_MEMORY;
    }
    size_t used = (size_t)snprintf(xml, size, "<mujoco><option gravity='0 0 0'/><asset>"
                                              "<mesh name='sphere' vertex='");
    for (int i = 0; i < vertex_count; ++i) {
        used += (size_t)snprintf(xml + used, size - used, "%.17g %.17g %.17g ",
                                 s->vertices[i].x, s->vertices[i].y, s->vertices[i].z);
    }
    snprintf(xml + used, size - used,
             "'/></asset><worldbody><body name='ball'><freejoint/>"
             "<geom type='mesh' mesh='sphere' friction='0.3'/></body></worldbody></mujoco>");
    tch_status st = tch_mjcf_load_string(xml, ".", "moving.xml", spec, err);
    free(xml);
    st = st == TCH_OK ? tch_compile(*spec, model, err) : st;
    st = st == TCH_OK ? tch_data_create(*model, data, err) : st;
    if (st == TCH_OK) {
        tch_stage_kinematics(*model, *data);
        st = tch_haptic_proxy_create_from_model(*model, *data, params, proxy, err);
    }
    return st;
}

static int run(const uv_sphere* s, double radius, bool moving, double* times) {
    tch_haptic_proxy_mesh mesh = {s->vertices, SEGMENTS * (BANDS - 1) + 2,
                                  (const int(*)[3])s->triangles, s->triangle_count, 0.3};
    tch_haptic_proxy_params params = {.radius = radius, .stiffness = 2000, .period = 1e-3};
    tch_haptic_proxy* proxy = NULL;
    tch_spec* spec = NULL;
    tch_model* model = NULL;
    tch_data* data = NULL;
    tch_error err = {0};
    tch_status st = moving ? moving_proxy(s, &params, &spec, &model, &data, &proxy, &err)
                           : tch_haptic_proxy_create(&mesh, 1, &params, &proxy, &err);
    if (st != TCH_OK) {
        fprintf(stderr, "bench_haptic_proxy: %s\n", err.message);
        return 1;
    }
    tch_vec3 start = hand_at(0, radius);
    tch_transform X = moving ? body_at(0) : tch_x_identity();
    tch_haptic_proxy_reset(proxy, tch_x_apply(X, tch_v3_scale(start, 1.1)));
    double deepest = 0;
    long touching = 0;
    for (long k = 0; k < ROUNDS * TICKS; ++k) {
        X = moving ? body_at(k) : X;
        tch_vec3 hand = tch_x_apply(X, hand_at(k, radius));
        double t0 = bench_now_seconds();
        if (moving) {
            tch_haptic_proxy_set_body_pose(proxy, 0, X);
        }
        tch_haptic_proxy_update(proxy, hand, (tch_vec3){0, 0, 0});
        times[k] = bench_now_seconds() - t0;
        tch_vec3 normals[3];
        touching += tch_haptic_proxy_contacts(proxy, normals) > 0;
        tch_vec3 p = tch_x_apply_inverse(X, tch_haptic_proxy_position(proxy));
        /* the mesh is inside the sphere; its faces' planes are at most R (1 - cos(pi/100)) in */
        deepest = fmax(deepest,
                       RADIUS * cos(PI / BANDS) + radius - sqrt(p.x * p.x + p.y * p.y + p.z * p.z));
    }
    qsort(times, (size_t)ROUNDS * TICKS, sizeof *times, compare);
    long n = (long)ROUNDS * TICKS;
    printf("| %s | %s | %d | %.2f | %.2f | %.2f | %.3f | %.3g |\n",
           radius > 0 ? "sphere 5 mm" : "point", moving ? "moving" : "static",
           moving ? model->mesh_hull[0].face_start[model->mesh_hull[0].face_count] -
                        2 * model->mesh_hull[0].face_count
                  : s->triangle_count,
           times[n / 2] * 1e6, times[(long)(0.99 * (n - 1))] * 1e6, times[n - 1] * 1e6,
           (double)touching / n, deepest);
    tch_haptic_proxy_destroy(proxy);
    tch_data_destroy(data);
    tch_model_destroy(model);
    tch_spec_destroy(spec);
    return 0;
}

int main(void) {
    static uv_sphere sphere;
    make_sphere(&sphere);
    char cpu[256];
    bench_cpu_model(cpu, sizeof cpu);
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    printf("proxy tick on a %d-triangle UV sphere, %d ticks; commit %s; CPU %s\n\n",
           sphere.triangle_count, ROUNDS * TICKS, commit, cpu);
    printf("| proxy | mesh | triangles | p50 us | p99 us | max us | in contact | deepest inside "
           "(m) |\n");
    printf("|---|---|---|---|---|---|---|---|\n");
    double* times = malloc((size_t)ROUNDS * TICKS * sizeof *times);
    int failed = !times;
    for (int moving = 0; moving < 2 && !failed; ++moving) {
        failed = run(&sphere, 0, moving, times) || run(&sphere, 0.005, moving, times);
    }
    free(times);
    return failed;
}
