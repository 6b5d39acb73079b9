/* peg's constraint sets against exact overlap over random configurations (peg.md §9-10, the
 * protocol in peg_sampling.h): every constraint holds (all constraints >= 0) exactly when the
 * two convex polytopes do not overlap, within the rates measured by bench_peg_sampling over
 * 20000 samples per row (docs/peg.md): 2D none wrong, 3D no overlap accepted and few free
 * configurations rejected (the locality of the vertex-vertex case). Fewer samples here. */
#include "peg_sampling.h"
#include "test.h"

/* 2D polygons of the authors' generator at h = 0.01 (proximity 0.005): no mismatch. */
static void test_2d_sets_match_overlap(void) {
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    for (int mode = 0; mode < 2; ++mode) {
        unsigned long long state = 99 + mode;
        const tch_peg_params params = tch_peg_params_default(2, 0.01);
        peg_sample_counts counts = {0};
        while (counts.samples < 1500) {
            const double separation = peg_sample_2d(&state, mode, &params, &list);
            if (separation >= -0.5 * params.proximity) {
                peg_count(&counts, separation, &list);
            }
        }
        ENSURE(counts.free_count > 400 && counts.overlap_count > 400);
        ENSURE(counts.with_vertex_vertex > (mode == PEG_SAMPLE_CORNER ? 1400 : 100));
        ENSURE(counts.too_strict == 0 && counts.too_loose == 0);
    }
    tch_peg_constraints_free(&list);
}

/* 3D hulls at the authors' proximity 0.1 (bodies of radius 0.5): no overlap accepted; free
 * configurations rejected at most 1% along random directions, 3% corner to corner (bench:
 * 0.1% and 1.1%). */
static void test_3d_sets_match_overlap(void) {
    tch_peg_constraints list;
    tch_peg_constraints_init(&list);
    for (int mode = 0; mode < 2; ++mode) {
        unsigned long long state = 77 + mode;
        const tch_peg_params params = tch_peg_params_default(3, 0.01);
        peg_sample_counts counts = {0};
        peg_solid a, b;
        const int samples = 500;
        for (long it = 0; counts.samples < samples; ++it) {
            if (it % 25 == 0) {
                if (it > 0) {
                    peg_solid_free(&a);
                    peg_solid_free(&b);
                }
                ENSURE(peg_solid_init(&a, &state) && peg_solid_init(&b, &state));
            }
            const double separation = peg_sample_3d(&state, mode, &a, &b, &params, &list);
            if (separation >= -0.5 * params.proximity) {
                peg_count(&counts, separation, &list);
            }
        }
        peg_solid_free(&a);
        peg_solid_free(&b);
        ENSURE(counts.free_count > 100 && counts.overlap_count > 50);
        ENSURE(counts.too_loose == 0);
        ENSURE(counts.too_strict <= (mode == PEG_SAMPLE_CORNER ? 0.03 : 0.01) * samples);
    }
    tch_peg_constraints_free(&list);
}

int main(void) {
    RUN_TEST(test_2d_sets_match_overlap);
    RUN_TEST(test_3d_sets_match_overlap);
    return TEST_RESULT();
}
