/* The pouring experiments of Williams, Lu and Trinkle 2017, section 6 (peg.md §10), shared by
 * bench_peg_pour2d.c (polygons, planar mode) and bench_peg_pour3d.c (polyhedra): bodies
 * released one by one into an open static box, every (seed, step size) run under `lcp` and
 * under `peg` (interleaved, for the machine's load), the total overlap measured at the end of
 * every step by the program's own geometry, and one CSV row per (model, h).
 *
 * A body not yet poured is parked far away (its own x, z = 100) and held there each step.
 * Columns: date, commit, cpu, model, h, runs, crashed (runs the engine's divergence check
 * stopped), steps, overlap median / Q1 / Q3 / max (pooled over the runs' steps), steps with
 * any overlap > 1e-10, failed islands (the engine's constraint_failed_islands plus peg's
 * Lemke failures), peg's fallbacks, steps with a trap (peg's I/X constraints that hold while
 * one of their contacts is violated: where the standard model would push without cause), mean
 * CPU microseconds per step. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "touche/data.h"
#include "touche/model.h"

enum { PEG_POUR_MAX_VERTICES = 64 };

typedef struct peg_pour_experiment {
    const char* program; /* for messages */
    const char* unit;    /* of the overlap, for the log: "m^2", "m^3" */
    int bodies;
    double release_period, duration; /* s */
    size_t scene_size;               /* bytes of the program's scene */
    /* peg's proximity epsilon = max(reach h, 0.0008), given to the scene as its margin; 0: the
     * model's own default (no margin). */
    double peg_reach;
    /* The scene: <option> attributes besides the time step and the contact model (gravity,
     * planar), the static box's geoms, and each body's <inertial> ("": from its mesh). */
    const char *options, *box_xml, *inertial;
    void (*make_scene)(unsigned long long seed, void* scene);
    /* The mesh vertices of body b (0-based), at most PEG_POUR_MAX_VERTICES; returns the count. */
    int (*mesh)(const void* scene, int body, tch_vec3* vertices);
    /* Where body b (0-based) is released: position, rotation, linear velocity (at rest else). */
    void (*source)(const void* scene, int body, tch_vec3* position, tch_quat* rotation,
                   tch_vec3* velocity);
    /* Total pairwise overlap of the first `poured` bodies with each other and the box. */
    double (*total_overlap)(const tch_model* m, const tch_data* d, void* scene, int poured);
    /* Frees what make_scene allocated (NULL: nothing); the scene starts zeroed. */
    void (*free_scene)(void* scene);
} peg_pour_experiment;

/* Runs the grid of the command line [SEEDS [H_FIRST H_LAST [H_STRIDE [REACH]]]] (defaults
 * 10 1 16 1 and e->peg_reach): h = k ms for k = H_FIRST, H_FIRST + H_STRIDE, .. H_LAST; prints
 * the CSV on stdout and one line per run on stderr. Returns 0, or 1 when a scene fails to
 * load. */
int peg_pour_main(peg_pour_experiment e, int argc, char** argv);
