/* Polyhedron intersection benchmark: time per call of the clipping and the dual (qhull)
 * methods of tch_polyhedron_intersect on boxes and on random hulls of about 20, 50, 100 and
 * 200 faces, in typical overlaps (B's centre at 0.5 to 1.2 bounding radii from A's, random
 * orientation; only overlapping pairs are timed). The dual time includes finding its interior
 * point with libccd.
 *
 *     bench_polyhedron [repeats]     (default 200)
 *
 * Prints CSV: date,commit,cpu,shape,faces,method,pairs,us_per_call,max_rel_volume_diff.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_machine.h"
#include "../../tests/contact/hull_fixtures.h"
#include "collision/polyhedron.h"

#ifndef TCH_GIT_COMMIT
#define TCH_GIT_COMMIT "unknown"
#endif

enum { pair_count = 64 };

typedef struct workload {
    tch_convex_hull a[pair_count], b[pair_count];
    tch_transform X_AB[pair_count];
    int count;
    double faces;
} workload;

/* Overlapping pairs of boxes (points == 0) or of hulls of `points` random points. */
static void workload_init(workload* w, int points, unsigned long long seed) {
    unsigned long long rng = seed;
    tch_polyhedron p;
    tch_polyhedron_init(&p);
    w->count = 0;
    w->faces = 0;
    while (w->count < pair_count) {
        const int k = w->count;
        if (points == 0) {
            w->a[k] = fixture_box(tch_v3(0.5, 0.5, 0.5), tch_v3_zero());
            w->b[k] = fixture_box(tch_v3(0.5, 0.4, 0.3), tch_v3_zero());
        } else {
            w->a[k] = fixture_random_hull(&rng, points, 1.0);
            w->b[k] = fixture_random_hull(&rng, points, 1.0);
        }
        const double radius = points == 0 ? sqrt(0.75) : 1.0;
        w->X_AB[k] = (tch_transform){
            fixture_rotation(&rng),
            tch_v3_scale(fixture_unit_vector(&rng), radius * (0.5 + 0.7 * fixture_uniform(&rng)))};
        double v = 0;
        tch_vec3 c;
        if (tch_polyhedron_intersect(&w->a[k], &w->b[k], w->X_AB[k], TCH_POLYHEDRON_CLIP, &p,
                                     NULL) == TCH_OK) {
            tch_polyhedron_volume_centroid(&p, &v, &c);
        }
        if (v > 1e-3) {
            w->faces += 0.5 * (w->a[k].face_count + w->b[k].face_count);
            ++w->count;
        } else {
            tch_hull_free(&w->a[k]);
            tch_hull_free(&w->b[k]);
        }
    }
    w->faces /= pair_count;
    tch_polyhedron_free(&p);
}

static void workload_free(workload* w) {
    for (int k = 0; k < w->count; ++k) {
        tch_hull_free(&w->a[k]);
        tch_hull_free(&w->b[k]);
    }
}

/* Microseconds per call; volumes[k] gets pair k's volume. */
static double time_method(const workload* w, tch_polyhedron_method method, int repeats,
                          double* volumes) {
    tch_polyhedron p;
    tch_polyhedron_init(&p);
    const double start = bench_now_seconds();
    for (int r = 0; r < repeats; ++r) {
        for (int k = 0; k < w->count; ++k) {
            tch_polyhedron_intersect(&w->a[k], &w->b[k], w->X_AB[k], method, &p, NULL);
            if (r == 0) {
                tch_vec3 c;
                tch_polyhedron_volume_centroid(&p, &volumes[k], &c);
            }
        }
    }
    const double elapsed = bench_now_seconds() - start;
    tch_polyhedron_free(&p);
    return 1e6 * elapsed / ((double)repeats * w->count);
}

int main(int argc, char** argv) {
    const int repeats = argc > 1 ? atoi(argv[1]) : 200;
    const char* commit = getenv("TCH_COMMIT") ? getenv("TCH_COMMIT") : TCH_GIT_COMMIT;
    char cpu[256], date[32];
    bench_cpu_model(cpu, sizeof cpu);
    const time_t t = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%d", gmtime(&t));
    printf("date,commit,cpu,shape,faces,method,pairs,us_per_call,max_rel_volume_diff\n");
    /* random blobs: about 0.9 faces per point, so 20 to 200 faces */
    const int point_counts[5] = {0, 24, 56, 112, 224};
    for (int s = 0; s < 5; ++s) {
        workload* w = malloc(sizeof *w);
        workload_init(w, point_counts[s], 1234 + (unsigned long long)s);
        double v_clip[pair_count], v_dual[pair_count];
        const double us_clip = time_method(w, TCH_POLYHEDRON_CLIP, repeats, v_clip);
        const double us_dual = time_method(w, TCH_POLYHEDRON_DUAL, repeats, v_dual);
        double worst = 0;
        for (int k = 0; k < w->count; ++k) {
            worst = fmax(worst, fabs(v_dual[k] - v_clip[k]) / v_clip[k]);
        }
        const char* shape = point_counts[s] == 0 ? "box" : "hull";
        printf("%s,%s,\"%s\",%s,%.0f,clip,%d,%.2f,%.1e\n", date, commit, cpu, shape, w->faces,
               w->count, us_clip, worst);
        printf("%s,%s,\"%s\",%s,%.0f,dual,%d,%.2f,%.1e\n", date, commit, cpu, shape, w->faces,
               w->count, us_dual, worst);
        workload_free(w);
        free(w);
    }
    return 0;
}
