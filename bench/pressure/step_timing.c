/* Whole simulation steps (tch_step: kinematics, collision, contact forces, dynamics,
 * integration) with the pressure model at meshes of about 1e3, 1e4 and 1e5 tets, beside the
 * point model and MuJoCo 2.2.2's mj_step on the same scenes:
 *
 *     sphere-sphere  a free compliant sphere (R = 0.5 m, 1 kg) resting on a static compliant one
 *     sphere-box     the free sphere resting on a static rigid box (half 0.4 m)
 *     box-plane      a free compliant box (half 0.4 m, 1 kg) resting on a rigid plane
 *     mug            the cup of tests/contact/test_pressure_scenes.c (8 cm box, cavity open at
 *                    the top, 1 cm walls; mug_mesh.c, boxes of five tets) and a handle (a
 *                    compliant box 2 x 1 x 6 cm beside it, reaching the table too), one free
 *                    body of 0.3 + 0.05 kg on a rigid plane
 *
 * E = 1e5 Pa, χ = 1 s/m, μ = 0.5, gravity 9.81, dt 1 ms, semi-implicit Euler. Each scene starts
 * just touching, runs warmup_steps to settle (the patches grow, and the contact buffers with them,
 * for about 80 steps), then is timed over a fixed number of steps
 * (best mean of three rounds, wall clock and thread CPU time). The elastic energy is not computed
 * (tch_data.contact_energy off). MuJoCo gets the same geometry as primitives (the cup as five boxes
 * of its density), masses, dt, gravity and friction, with its default soft contacts (solref 0.02 s,
 * condim 3).
 *
 * Memory (KiB): model = the heap the compiled model holds (meshes, fields, BVHs); step = the heap
 * the steps grew and keep (the data's arena, contact buffers, the models' scratch), of which
 * arena is the arena's buffer; allocs/step = heap allocations per timed step (0 after warm-up).
 * MuJoCo: its data's preallocated buffer and stack, and the stack's high-water mark.
 *
 *     bench_pressure_step_timing [max_level]     (levels 0, 1, 2: about 1e3, 1e4, 1e5 tets;
 *                                                 default 2)
 *
 * stdout CSV: scene,engine,tets,polygons_or_points (of the pairs after the run),us_per_step
 * (wall clock), cpu_us_per_step (the thread's CPU time: leaves out preemption by other
 * processes), model_kib,step_kib,arena_kib,allocs_per_step. */
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine/engine_internal.h"
#include "mug_mesh.h"
#include "pressure_bench.h"
#include "step_mujoco.h"
#include "touche/touche.h"

static const double sphere_radius = 0.5, box_half = 0.4, cup_half = 0.04;
static const double cup_mass = 0.3, handle_mass = 0.05;
static const tch_vec3 handle_half = {0.01, 0.005, 0.03}, p_handle = {0.055, 0, -0.01};

enum { warmup_steps = 200 };

typedef enum scene { SPHERE_SPHERE, SPHERE_BOX, BOX_PLANE, MUG, SCENE_COUNT } scene;

static const char* const scene_names[SCENE_COUNT] = {"sphere-sphere", "sphere-box", "box-plane",
                                                     "mug"};

/* Mesh resolutions of one level: about 1e3, 1e4, 1e5 tets. */
typedef struct level {
    double sphere_h, box_h;
    int cup_wall, cup_cavity; /* cells across the cup's wall and across its cavity */
    double handle_h;          /* the handle's resolution */
    int steps;
} level;

static const level levels[3] = {
    {0.2, 0.15, 2, 2, 0.02, 200}, {0.1, 0.07, 2, 12, 0.005, 40}, {0.05, 0.035, 4, 24, 0.0025, 5}};

static tch_contact_params compliant(double resolution) {
    tch_contact_params c = tch_contact_params_unset();
    c.rigid = TCH_RIGIDITY_COMPLIANT;
    c.modulus = 1e5;
    c.dissipation = 1;
    c.resolution = resolution;
    return c;
}

static tch_contact_params rigid(void) {
    tch_contact_params c = tch_contact_params_unset();
    c.rigid = TCH_RIGIDITY_RIGID;
    return c;
}

/* A geom of the given type, size, position in the body, mass and contact parameters; a
 * non-empty tetmesh names its mesh file. */
static void add_geom(tch_spec* spec, tch_body_id body, tch_geom_type type, tch_vec3 size,
                     tch_vec3 p_BG, double mass, tch_contact_params c, const char* tetmesh) {
    tch_geom_def g = tch_geom_def_default();
    g.type = type;
    g.size[0] = size.x, g.size[1] = size.y, g.size[2] = size.z;
    g.p_BG = p_BG;
    g.mass = mass;
    g.contact = c;
    snprintf(g.tetmesh, sizeof g.tetmesh, "%s", tetmesh);
    tch_spec_add_geom(spec, body, &g, NULL, NULL);
}

static tch_vec3 cube(double half) {
    return (tch_vec3){half, half, half};
}

static tch_body_id add_body(tch_spec* spec, bool free_joint, tch_vec3 p_WB) {
    tch_body_def b = tch_body_def_default();
    b.free_joint = free_joint;
    b.p_PB = p_WB;
    tch_body_id id = {0};
    tch_spec_add_body(spec, &b, &id, NULL);
    return id;
}

static void add_plane(tch_spec* spec) {
    tch_geom_def plane = tch_geom_def_default();
    plane.type = TCH_GEOM_PLANE;
    plane.size[0] = plane.size[1] = 5, plane.size[2] = 1;
    tch_spec_add_geom(spec, TCH_WORLD_BODY, &plane, NULL, NULL);
}

/* The cup from its tet mesh file, the handle a compliant box, one free body. */
static void add_mug(tch_spec* spec, const char* cup_path, const level* l) {
    tch_body_id mug = add_body(spec, true, (tch_vec3){0, 0, cup_half});
    /* the cup's resolution is unused: its mesh comes from the file */
    add_geom(spec, mug, TCH_GEOM_BOX, cube(cup_half), tch_v3_zero(), cup_mass, compliant(cup_half),
             cup_path);
    add_geom(spec, mug, TCH_GEOM_BOX, handle_half, p_handle, handle_mass, compliant(l->handle_h),
             "");
}

static tch_model* make_scene(scene s, tch_contact_model model, const level* l,
                             const char* cup_path) {
    tch_spec* spec = tch_spec_create();
    tch_option_def opt = tch_option_def_default();
    opt.timestep = 1e-3;
    opt.gravity = (tch_vec3){0, 0, -9.81};
    opt.contact.model = model;
    opt.contact.friction = 0.5;
    tch_spec_set_option(spec, &opt, NULL);
    if (s == SPHERE_SPHERE) {
        add_geom(spec, add_body(spec, false, tch_v3_zero()), TCH_GEOM_SPHERE, cube(sphere_radius),
                 tch_v3_zero(), 1, compliant(l->sphere_h), "");
        add_geom(spec, add_body(spec, true, (tch_vec3){0.05, 0, 2 * sphere_radius}),
                 TCH_GEOM_SPHERE, cube(sphere_radius), tch_v3_zero(), 1, compliant(l->sphere_h),
                 "");
    } else if (s == SPHERE_BOX) {
        add_geom(spec, add_body(spec, false, tch_v3_zero()), TCH_GEOM_BOX, cube(box_half),
                 tch_v3_zero(), 1, rigid(), "");
        add_geom(spec, add_body(spec, true, (tch_vec3){0.05, 0, box_half + sphere_radius}),
                 TCH_GEOM_SPHERE, cube(sphere_radius), tch_v3_zero(), 1, compliant(l->sphere_h),
                 "");
    } else if (s == BOX_PLANE) {
        add_plane(spec);
        add_geom(spec, add_body(spec, true, (tch_vec3){0, 0, box_half}), TCH_GEOM_BOX,
                 cube(box_half), tch_v3_zero(), 1, compliant(l->box_h), "");
    } else {
        add_plane(spec);
        add_mug(spec, cup_path, l);
    }
    tch_model* m = NULL;
    tch_error err = {0};
    if (tch_compile(spec, &m, &err) != TCH_OK) {
        fprintf(stderr, "%s: %s\n", scene_names[s], err.message);
        m = NULL;
    }
    tch_spec_destroy(spec);
    return m;
}

/* Tets of one primitive mesh the generator makes at this resolution. */
static int shape_tets(tch_tetmesh_shape shape, tch_vec3 size, double resolution) {
    tch_real s[3] = {size.x, size.y, size.z};
    tch_tetmesh* mesh = NULL;
    int count = tch_tetmesh_create_shape(shape, s, resolution, 0, &mesh, NULL) == TCH_OK
                    ? tch_tetmesh_tet_count(mesh)
                    : 0;
    tch_tetmesh_destroy(mesh);
    return count;
}

/* Tets of the compliant geoms (of one sphere in sphere-sphere: both are alike). */
static int tet_count(scene s, const level* l, int cup_tets) {
    if (s == BOX_PLANE) {
        return shape_tets(TCH_TETMESH_BOX, cube(box_half), l->box_h);
    }
    if (s == MUG) {
        return cup_tets + shape_tets(TCH_TETMESH_BOX, handle_half, l->handle_h);
    }
    return shape_tets(TCH_TETMESH_SPHERE, cube(sphere_radius), l->sphere_h);
}

/* Heap in use (glibc: the main arena's allocated chunks plus mmapped blocks), bytes. */
static double heap_in_use(void) {
    struct mallinfo2 info = mallinfo2();
    return (double)info.uordblks + (double)info.hblkhd;
}

/* Polygons (pressure) or contact points (point) over every pair. */
static int contact_elements(const tch_data* d, tch_contact_model model) {
    int count = 0;
    for (int k = 0; k < d->pair_result_count; ++k) {
        const tch_pair_result* pair = &d->pair_results[k];
        count += model == TCH_CONTACT_POINT ? pair->contact_count : pair->polygon_count;
    }
    return count;
}

static int measure(scene s, tch_contact_model model, const level* l, const char* cup_path,
                   int cup_tets) {
    double heap0 = heap_in_use();
    tch_model* m = make_scene(s, model, l, cup_path);
    double heap_model = heap_in_use();
    tch_data* d = NULL;
    if (!m || tch_data_create(m, &d, NULL) != TCH_OK) {
        tch_model_destroy(m);
        return 1;
    }
    double heap_data = heap_in_use();
    for (int i = 0; i < warmup_steps; ++i) {
        tch_step(m, d, NULL);
    }
    long allocations = d->heap_allocation_count;
    double best = INFINITY, best_cpu = INFINITY;
    for (int round = 0; round < 3; ++round) {
        double t0 = bench_now_seconds(), c0 = sm_thread_cpu_seconds();
        for (int i = 0; i < l->steps; ++i) {
            tch_step(m, d, NULL);
        }
        best = fmin(best, (bench_now_seconds() - t0) / l->steps);
        best_cpu = fmin(best_cpu, (sm_thread_cpu_seconds() - c0) / l->steps);
    }
    printf("%s,touche-%s,%d,%d,%.1f,%.1f,%.0f,%.0f,%.0f,%.2f\n", scene_names[s],
           tch_contact_model_name(model), tet_count(s, l, cup_tets), contact_elements(d, model),
           best * 1e6, best_cpu * 1e6, (heap_model - heap0) / 1024,
           (heap_in_use() - heap_data) / 1024, (double)d->internal->arena.capacity / 1024,
           (double)(d->heap_allocation_count - allocations) / (3 * l->steps));
    fflush(stdout);
    tch_data_destroy(d);
    tch_model_destroy(m);
    return 0;
}

/* ---- MuJoCo on the same scenes ---- */

static const char mjcf_head[] =
    "<mujoco><option timestep=\"0.001\" gravity=\"0 0 -9.81\"/>"
    "<default><geom friction=\"0.5 0.005 0.0001\"/></default><worldbody>";
static const char mjcf_plane[] = "<geom type=\"plane\" size=\"5 5 1\"/>";

/* Appends a box geom (half extents, position in the body, a mass or density attribute). */
static void append_box(char* out, size_t size, int* used, tch_vec3 half, tch_vec3 p,
                       const char* mass) {
    if (*used >= 0 && (size_t)*used < size) {
        *used += snprintf(out + *used, size - (size_t)*used,
                          "<geom type=\"box\" size=\"%g %g %g\" pos=\"%g %g %g\" %s/>", half.x,
                          half.y, half.z, p.x, p.y, p.z, mass);
    }
}

/* The cup as its bottom and four walls (1 cm thick) at the cup's density, and the handle. */
static int mjcf_mug(char* out, size_t size) {
    double wall = cup_half / 4, inner = cup_half - wall, h = cup_half;
    double volume = 8 * h * h * h - 4 * inner * inner * (2 * h - wall);
    char density[48], handle[48];
    snprintf(density, sizeof density, "density=\"%.9g\"", cup_mass / volume);
    snprintf(handle, sizeof handle, "mass=\"%g\"", handle_mass);
    int used =
        snprintf(out, size, "%s%s<body pos=\"0 0 %g\"><freejoint/>", mjcf_head, mjcf_plane, h);
    append_box(out, size, &used, (tch_vec3){h, h, wall / 2}, (tch_vec3){0, 0, -h + wall / 2},
               density);
    for (int side = -1; side <= 1; side += 2) {
        double across = side * (inner + wall / 2);
        append_box(out, size, &used, (tch_vec3){wall / 2, h, h - wall / 2},
                   (tch_vec3){across, 0, wall / 2}, density);
        append_box(out, size, &used, (tch_vec3){inner, wall / 2, h - wall / 2},
                   (tch_vec3){0, across, wall / 2}, density);
    }
    append_box(out, size, &used, handle_half, p_handle, handle);
    if (used >= 0 && (size_t)used < size) {
        used += snprintf(out + used, size - (size_t)used, "</body></worldbody></mujoco>");
    }
    return used;
}

static int mjcf_scene(scene s, char* out, size_t size) {
    switch (s) {
    case SPHERE_SPHERE:
        return snprintf(out, size,
                        "%s<geom type=\"sphere\" size=\"%g\"/><body pos=\"0.05 0 %g\"><freejoint/>"
                        "<geom type=\"sphere\" size=\"%g\" mass=\"1\"/></body></worldbody>"
                        "</mujoco>",
                        mjcf_head, sphere_radius, 2 * sphere_radius, sphere_radius);
    case SPHERE_BOX:
        return snprintf(out, size,
                        "%s<geom type=\"box\" size=\"%g %g %g\"/><body pos=\"0.05 0 %g\">"
                        "<freejoint/><geom type=\"sphere\" size=\"%g\" mass=\"1\"/></body>"
                        "</worldbody></mujoco>",
                        mjcf_head, box_half, box_half, box_half, box_half + sphere_radius,
                        sphere_radius);
    case BOX_PLANE:
        return snprintf(out, size,
                        "%s%s<body pos=\"0 0 %g\"><freejoint/><geom type=\"box\" size=\"%g %g "
                        "%g\" mass=\"1\"/></body></worldbody></mujoco>",
                        mjcf_head, mjcf_plane, box_half, box_half, box_half, box_half);
    default:
        return mjcf_mug(out, size);
    }
}

static int measure_mujoco(scene s) {
    char mjcf[2048];
    sm_timing t;
    if (mjcf_scene(s, mjcf, sizeof mjcf) >= (int)sizeof mjcf ||
        sm_time_mujoco(mjcf, warmup_steps, levels[0].steps, 3, &t)) {
        return 1;
    }
    printf("%s,mujoco,,%d,%.2f,%.2f,,%.0f,%.1f,\n", scene_names[s], t.contacts, t.us_per_step,
           t.cpu_us_per_step, t.buffer_kb, t.stack_used_kb);
    fflush(stdout);
    return 0;
}

/* Writes the cup mesh of level l to a temporary .vtk (path filled); returns its tets, 0 on
 * failure. */
static int write_cup(const level* l, char* path, size_t size) {
    snprintf(path, size, "/tmp/touche_step_cup_%d_%d_%ld.vtk", l->cup_wall, l->cup_cavity,
             (long)getpid());
    tch_tetmesh* mesh = NULL;
    tch_error err = {0};
    int tets = 0;
    if (mm_cup_mesh(l->cup_wall, l->cup_cavity, cup_half, &mesh, &err) == TCH_OK &&
        tch_tetmesh_save(mesh, path, &err) == TCH_OK) {
        tets = tch_tetmesh_tet_count(mesh);
    } else {
        fprintf(stderr, "cup mesh: %s\n", err.message);
    }
    tch_tetmesh_destroy(mesh);
    return tets;
}

int main(int argc, char** argv) {
    int max_level = argc > 1 ? atoi(argv[1]) : 2;
    pb_print_run_header("bench_pressure_step_timing");
    printf("# MuJoCo rows: arena_kib = its stack's high-water mark, step_kib = its preallocated "
           "buffer and stack\n");
    printf("scene,engine,tets,polygons_or_points,us_per_step,cpu_us_per_step,model_kib,step_kib,"
           "arena_kib,allocs_per_step\n");
    int status = 0;
    for (int s = 0; s < SCENE_COUNT; ++s) {
        status |= measure_mujoco((scene)s);
    }
    for (int k = 0; k <= max_level && k < 3; ++k) {
        char cup_path[96];
        int cup_tets = write_cup(&levels[k], cup_path, sizeof cup_path);
        status |= cup_tets == 0;
        for (int s = 0; s < SCENE_COUNT && cup_tets > 0; ++s) {
            status |= measure((scene)s, TCH_CONTACT_PRESSURE, &levels[k], cup_path, cup_tets);
            status |= measure((scene)s, TCH_CONTACT_POINT, &levels[k], cup_path, cup_tets);
        }
        unlink(cup_path);
    }
    return status;
}
