/* Broad phase benchmark: time per query of each method on 100, 1000 and 10000 boxes, in a
 * pile (boxes in touching columns, jiggling in place) and a random layout (boxes flying in a
 * cube, bouncing off its walls), both moving coherently from frame to frame. Every scene also
 * has a static ground plane (unbounded box) and 5% static boxes.
 *
 *     bench_broadphase [frame_scale]     (default 1; 0.1 for a quick run)
 *
 * Prints CSV: date,commit,cpu,layout,boxes,method,frames,pairs,us_per_query. The commit comes
 * from the TCH_COMMIT environment variable, else from the build (git rev-parse at configure).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "base/arena.h"
#include "collision/broadphase.h"
#include "math/vec.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

typedef enum layout { LAYOUT_PILE, LAYOUT_RANDOM } layout;

typedef struct scene {
    int count;
    tch_aabb* boxes;
    tch_vec3* home;     /* pile: rest position; random: current centre */
    tch_vec3* velocity; /* random layout */
    tch_vec3* half;
    unsigned char* is_static;
    tch_real side;      /* random layout: edge of the cube */
} scene;

static double uniform(unsigned long long* state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

/* Box 0 is the ground plane z <= 0. Pile: a square grid of columns of 0.2 m boxes with 1 mm
 * gaps, so neighbours' boxes touch once they jiggle. Random: boxes of 0.1 to 0.5 m in a cube
 * holding about 4 boxes per cubic metre. */
static void scene_init(scene* s, layout kind, int count, unsigned long long seed) {
    unsigned long long rng = seed;
    s->count = count;
    s->boxes = malloc((size_t)count * sizeof *s->boxes);
    s->home = malloc((size_t)count * sizeof *s->home);
    s->velocity = malloc((size_t)count * sizeof *s->velocity);
    s->half = malloc((size_t)count * sizeof *s->half);
    s->is_static = malloc((size_t)count);
    s->side = cbrt(count / 4.0);
    const int columns = (int)ceil(sqrt(count / 5.0)); /* about 5 boxes high */
    for (int i = 1; i < count; ++i) {
        const int k = i - 1;
        if (kind == LAYOUT_PILE) {
            s->half[i] = tch_v3(0.1, 0.1, 0.1);
            s->home[i] = tch_v3(0.201 * (k % columns), 0.201 * ((k / columns) % columns),
                                0.1 + 0.201 * (k / (columns * columns)));
        } else {
            s->half[i] = tch_v3(0.05 + 0.2 * uniform(&rng), 0.05 + 0.2 * uniform(&rng),
                                0.05 + 0.2 * uniform(&rng));
            s->home[i] = tch_v3(s->side * uniform(&rng), s->side * uniform(&rng),
                                s->side * uniform(&rng));
        }
        s->velocity[i] = tch_v3(uniform(&rng) - 0.5, uniform(&rng) - 0.5, uniform(&rng) - 0.5);
        s->is_static[i] = uniform(&rng) < 0.05;
        s->boxes[i] = (tch_aabb){tch_v3_sub(s->home[i], s->half[i]),
                                 tch_v3_add(s->home[i], s->half[i])};
    }
    s->boxes[0] = (tch_aabb){tch_v3(-INFINITY, -INFINITY, -INFINITY),
                             tch_v3(INFINITY, INFINITY, 0)};
    s->is_static[0] = 1;
}

static void scene_free(scene* s) {
    free(s->boxes);
    free(s->home);
    free(s->velocity);
    free(s->half);
    free(s->is_static);
}

/* Advances one 1/60 s frame: the pile jiggles by up to 2 mm about its rest positions, random
 * boxes fly at up to 0.5 m/s and bounce off the cube's walls. */
static void scene_step(scene* s, layout kind, int frame) {
    const tch_real dt = 1.0 / 60.0;
    for (int i = 1; i < s->count; ++i) {
        if (s->is_static[i]) {
            continue;
        }
        tch_vec3 c;
        if (kind == LAYOUT_PILE) {
            const tch_real phase = 0.1 * frame + i;
            c = tch_v3_add(s->home[i], tch_v3_scale(s->velocity[i], 0.004 * sin(phase)));
        } else {
            c = tch_v3_madd(s->home[i], dt, s->velocity[i]);
            for (int k = 0; k < 3; ++k) {
                const tch_real x = tch_v3_get(c, k);
                if (x < 0 || x > s->side) {
                    tch_v3_set(&s->velocity[i], k, -tch_v3_get(s->velocity[i], k));
                }
            }
            s->home[i] = c;
        }
        s->boxes[i] = (tch_aabb){tch_v3_sub(c, s->half[i]), tch_v3_add(c, s->half[i])};
    }
}

static const char* method_name(tch_broadphase_method m) {
    return m == TCH_BROADPHASE_BRUTE_FORCE        ? "brute_force"
           : m == TCH_BROADPHASE_SWEEP_AND_PRUNE ? "sweep_and_prune"
                                                  : "aabb_tree";
}

/* Runs `frames` coherent frames (after 3 warm-up frames) and returns microseconds per query;
 * *pairs gets the mean pair count. */
static double time_method(tch_broadphase_method method, layout kind, int count, int frames,
                          double* pairs) {
    scene s;
    scene_init(&s, kind, count, 2024);
    tch_arena arena;
    tch_broadphase* bp = tch_broadphase_create(method, count);
    if (!bp || tch_arena_init(&arena, 1 << 20) != 0) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    double total = 0;
    long pair_sum = 0;
    for (int frame = -3; frame < frames; ++frame) {
        scene_step(&s, kind, frame);
        tch_arena_grow_if_needed(&arena);
        const size_t mark = tch_arena_mark(&arena);
        tch_pair* found = NULL;
        const double t0 = bench_now_seconds();
        const int n = tch_broadphase_find_pairs(bp, s.boxes, s.is_static, count, &arena, &found);
        const double t1 = bench_now_seconds();
        if (n < 0) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        if (frame >= 0) {
            total += t1 - t0;
            pair_sum += n;
        }
        tch_arena_release(&arena, mark);
    }
    tch_broadphase_destroy(bp);
    tch_arena_destroy(&arena);
    scene_free(&s);
    *pairs = (double)pair_sum / frames;
    return 1e6 * total / frames;
}

int main(int argc, char** argv) {
    const double scale = argc > 1 ? atof(argv[1]) : 1.0;
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    char cpu[256];
    bench_cpu_model(cpu, sizeof cpu);
    char date[32];
    const time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
    const int counts[3] = {100, 1000, 10000};
    const int base_frames[3] = {2000, 300, 30};
    const tch_broadphase_method methods[3] = {
        TCH_BROADPHASE_BRUTE_FORCE, TCH_BROADPHASE_SWEEP_AND_PRUNE, TCH_BROADPHASE_AABB_TREE};
    printf("date,commit,cpu,layout,boxes,method,frames,pairs,us_per_query\n");
    for (int kind = LAYOUT_PILE; kind <= LAYOUT_RANDOM; ++kind) {
        for (int c = 0; c < 3; ++c) {
            const int frames = (int)fmax(3, base_frames[c] * scale);
            for (int m = 0; m < 3; ++m) {
                double pairs = 0;
                const double us = time_method(methods[m], (layout)kind, counts[c], frames, &pairs);
                printf("%s,%s,\"%s\",%s,%d,%s,%d,%.1f,%.2f\n", date, commit, cpu,
                       kind == LAYOUT_PILE ? "pile" : "random", counts[c], method_name(methods[m]),
                       frames, pairs, us);
                fflush(stdout);
            }
        }
    }
    return 0;
}
