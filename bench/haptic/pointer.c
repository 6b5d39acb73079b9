/* The 6-DOF pointer's tick times (issue 14's targets: the volume pointer's local-model tick p99
 * at most 50 us with up to 32 contacts; the pressure pointer's (up to 2k tets a side) at most
 * 100 us with the patch refreshed at 250 Hz or more; the full physics step of a 20-body scene
 * with the pointer at most 1 ms p99).
 *
 * Usage: bench_haptic_pointer [STEP [NX NY [ALL]]]. Scene: NX x NY (default 5 x 4)
 * free 5 cm boxes in a grid on the floor (1 cm apart) with the volume model, and a flat pointer
 * 2 cm thick over the four boxes of one grid corner (11 x 11 cm), or over all of them with ALL
 * 1; the scene at STEP (default 2 ms: 2 ticks a step).
 *
 * Usage: bench_haptic_pointer pressure [STEP [RESOLUTION]]. Scene: the pressure model, a
 * compliant sphere pointer (R 2 cm, RESOLUTION default 8 mm: 1 344 tets) over a free compliant
 * box (10 x 10 x 5 cm, 1 540 tets; both E 1e8 Pa) on a rigid floor, the scene at STEP (default 4 ms: the
 * patch, made at each step, refreshed at 250 Hz).
 *
 * In both a scripted hand presses the pointer 0.3 mm into the top, slides 1 cm while tilting 2
 * degrees, comes back and lifts, 2 s at 1 kHz. Each tick of
 * tch_haptic_loop_tick is timed on the thread's CPU clock (CLOCK_THREAD_CPUTIME_ID: the
 * machine is shared, and the wall clock would time the scheduler): a tick that steps is the physics step plus
 * the servo work; the others are the servo tick, whose work is the local model (device read,
 * the local model, safety, passivity, write). Prints p50/p99/max of both over ROUNDS rounds, the
 * largest number of contacts of the pointer's pairs and of touched bodies. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "touche/touche.h"

enum { ROUNDS = 3, TICKS = 2000, MAX_SAMPLES = ROUNDS * TICKS };

static const char* PATH_CSV =
    "time,x,y,z,qw,qx,qy,qz\n"
    "0,0,0,0.1102,1,0,0,0\n"
    "0.2,0,0,0.1102,1,0,0,0\n"
    "0.5,0,0,0.1097,1,0,0,0\n"
    "1.2,0.01,0,0.1097,0.99984769515639,0.01745240643728,0,0\n"
    "1.7,0,0,0.1097,1,0,0,0\n"
    "2,0,0,0.1102,1,0,0,0\n";

/* The calling thread's CPU time, s. */
static double cpu_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int compare(const void* a, const void* b) {
    double x = *(const double*)a, y = *(const double*)b;
    return (x > y) - (x < y);
}

static double percentile(double* sorted, long n, double p) {
    return n > 0 ? sorted[(long)fmin((double)(n - 1), floor(p * (double)n))] : NAN;
}

/* The scene XML into xml. */
static void scene_xml(char* xml, size_t size, double step, int nx, int ny, int all) {
    int at = snprintf(xml, size,
                      "<mujoco xmlns:touche='urn:touche'><option timestep='%g' "
                      "touche:contact='volume'/><worldbody>"
                      "<geom name='floor' type='plane' size='1 1 0.1'/>",
                      step);
    for (int i = 0; i < nx * ny; ++i) {
        double x = 0.03 + 0.06 * (i % nx - 1), y = 0.03 + 0.06 * (i / nx - 1);
        at += snprintf(xml + at, size - (size_t)at,
                       "<body pos='%g %g 0.025'><freejoint/>"
                       "<geom type='box' size='0.025 0.025 0.025'/></body>",
                       x, y);
    }
    /* over all: centred on the grid, its half sizes 3 cm per box and 2.5 cm more */
    double cx = all ? 0.03 * (nx - 2) : 0, cy = all ? 0.03 * (ny - 2) : 0;
    double hx = all ? 0.03 * nx - 0.005 : 0.055, hy = all ? 0.03 * ny - 0.005 : 0.055;
    snprintf(xml + at, size - (size_t)at,
             "<body name='pointer' pos='0 0 0.1102' mocap='true' touche:haptic='pointer'>"
             "<geom type='box' size='%g %g 0.01' pos='%g %g -0.05'/></body>"
             "</worldbody></mujoco>",
             hx, hy, cx, cy);
}

/* The pressure scene XML into xml. */
static void pressure_scene_xml(char* xml, size_t size, double step, double resolution) {
    snprintf(xml, size,
             "<mujoco xmlns:touche='urn:touche'><option timestep='%g' "
             "touche:contact='pressure'/><worldbody>"
             "<geom name='floor' type='plane' size='1 1 0.1' touche:rigid='true'/>"
             "<body pos='0 0 0.025'><freejoint/>"
             "<geom type='box' size='0.05 0.05 0.025' touche:resolution='0.02'"
             " touche:modulus='1e8'/></body>"
             "<body name='pointer' pos='0 0 0.1102' mocap='true' touche:haptic='pointer'>"
             "<geom type='sphere' size='0.02' pos='0 0 -0.04' touche:resolution='%g'"
             " touche:modulus='1e8'/></body>"
             "</worldbody></mujoco>",
             step, resolution);
}

/* Tets of the compliant geoms of the model, into tets[0..1] (the first two). */
static void count_tets(const tch_model* m, int* tets) {
    tets[0] = tets[1] = 0;
    for (int g = 0, n = 0; g < m->geom_count && n < 2; ++g) {
        const tch_tetmesh* mesh = tch_model_geom_tetmesh(m, g, NULL);
        if (mesh) {
            tets[n++] = tch_tetmesh_tet_count(mesh);
        }
    }
}

/* Contacts of the pointer's pairs and the bodies they touch at the last step. */
static void count_contacts(const tch_model* m, const tch_data* d, int pointer, int* contacts,
                           int* bodies) {
    *contacts = *bodies = 0;
    for (int i = 0; i < d->pair_result_count; ++i) {
        const tch_pair_result* p = &d->pair_results[i];
        int a = m->body_root[m->geom_body[p->geom_a]], b = m->body_root[m->geom_body[p->geom_b]];
        if (a == pointer || b == pointer) {
            *contacts += p->contact_count;
            *bodies += 1;
        }
    }
}

int main(int argc, char** argv) {
    int pressure = argc > 1 && strcmp(argv[1], "pressure") == 0;
    char** args = argv + pressure;
    int count = argc - pressure;
    double step = count > 1 ? atof(args[1]) : pressure ? 4e-3 : 2e-3;
    int nx = count > 3 ? atoi(args[2]) : 5, ny = count > 3 ? atoi(args[3]) : 4;
    int all = count > 4 ? atoi(args[4]) : 0;
    double resolution = pressure && count > 2 ? atof(args[2]) : 0.008;
    if (!pressure && (nx < 2 || ny < 2 || nx * ny > 100)) return 2;
    char cpu[128], xml[16384];
    bench_cpu_model(cpu, sizeof cpu);
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    if (pressure) {
        printf("# pressure pointer (sphere, resolution %g m) on a free compliant box, scene step "
               "%g s (patch refreshed at %g Hz), 1 kHz, commit %s, cpu %s\n",
               resolution, step, 1 / step, commit, cpu);
        pressure_scene_xml(xml, sizeof xml, step, resolution);
    } else {
        printf("# volume pointer on %s%d boxes, scene step %g s, 1 kHz, commit %s, cpu %s\n",
               all ? "all of " : "4 of ", nx * ny, step, commit, cpu);
        scene_xml(xml, sizeof xml, step, nx, ny, all);
    }
    FILE* f = fopen("bench_pointer_path.csv", "w");
    if (!f) return 1;
    fputs(PATH_CSV, f);
    fclose(f);
    static double servo[MAX_SAMPLES], physics[MAX_SAMPLES];
    long servo_n = 0, physics_n = 0;
    int most_contacts = 0, most_bodies = 0, tets[2] = {0, 0};
    double largest_force = 0;
    for (int round = 0; round < ROUNDS; ++round) {
        tch_spec* spec;
        tch_model* model;
        tch_data* data;
        tch_haptic_device* device;
        tch_haptic_loop* loop;
        tch_error err;
        tch_haptic_spec sigma = {.workspace_radius = 0.075, .max_force = 12, .max_torque = 0.2,
                                 .max_stiffness = 4000, .max_damping = 30};
        tch_haptic_scripted_config c = {.path = "bench_pointer_path.csv", .period = 1e-3,
                                        .spec = sigma};
        tch_haptic_loop_config config = {.body = -1, .period = 1e-3, .passivity_control = true,
                                         .safety = tch_haptic_safety_defaults(&sigma)};
        if (tch_mjcf_load_string(xml, ".", "pointer.xml", &spec, &err) ||
            tch_compile(spec, &model, &err) || tch_data_create(model, &data, &err) ||
            tch_haptic_open(tch_haptic_scripted_driver(), &c, &device, &err) ||
            tch_haptic_loop_create(model, data, device, &config, &loop, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        int pointer = tch_haptic_loop_body(loop);
        count_tets(model, tets);
        for (long k = 0; k < TICKS; ++k) {
            tch_haptic_tick tick;
            double start = cpu_seconds();
            if (tch_haptic_loop_tick(loop, &tick, &err) != TCH_OK) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
            double took = 1e6 * (cpu_seconds() - start);
            if (tick.stepped) {
                physics[physics_n++] = took;
                int contacts, bodies;
                count_contacts(model, data, pointer, &contacts, &bodies);
                most_contacts = contacts > most_contacts ? contacts : most_contacts;
                most_bodies = bodies > most_bodies ? bodies : most_bodies;
            } else {
                servo[servo_n++] = took;
            }
            double fz = tick.command.force.z;
            largest_force = fz > largest_force ? fz : largest_force;
        }
        tch_haptic_loop_destroy(loop);
        tch_haptic_close(device);
        tch_data_destroy(data);
        tch_model_destroy(model);
        tch_spec_destroy(spec);
    }
    remove("bench_pointer_path.csv");
    qsort(servo, (size_t)servo_n, sizeof *servo, compare);
    qsort(physics, (size_t)physics_n, sizeof *physics, compare);
    printf("pointer pairs' contacts at most %d, on %d pairs; largest force %.3g N\n",
           most_contacts, most_bodies, largest_force);
    if (pressure) {
        printf("tets: %d (box), %d (pointer)\n", tets[0], tets[1]);
    }
    printf("tick,count,p50_us,p99_us,max_us\n");
    printf("local model (no step),%ld,%.2f,%.2f,%.1f\n", servo_n, percentile(servo, servo_n, 0.5),
           percentile(servo, servo_n, 0.99), servo[servo_n - 1]);
    printf("physics step + servo,%ld,%.1f,%.1f,%.1f\n", physics_n,
           percentile(physics, physics_n, 0.5), percentile(physics, physics_n, 0.99),
           physics[physics_n - 1]);
    return 0;
}
