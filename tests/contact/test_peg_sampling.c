/* peg's constraint sets against exact overlap over random configurations (peg.md §9-10, the
 * protocol in peg_sampling.h): every constraint holds (all constraints >= 0) exactly when the
 * two convex polytopes do not overlap, within the rates measured by bench_peg_sampling over
 * 20000 samples per row (docs/peg.md): 2D none wrong, 3D no overlap accepted and few free
 * configurations rejected (the locality of the vertex-vertex case). Fewer samples here. */
#include "peg_sampling.h"
#include "test.h"

/* 2D polygons of the authors' generator at h = 0.01 (proximity 0.005): no mismatch. */
static void test_2d_sets_match_overlap(void) {
    for (int mode = 0; mode < 2; ++mode) {
        peg_sample_counts counts;
        ENSURE(peg_sample_run(2, mode, 1500, 99 + mode, &counts));
        ENSURE(counts.free_count > 400 && counts.overlap_count > 400);
        ENSURE(counts.with_vertex_vertex > (mode == PEG_SAMPLE_CORNER ? 1400 : 100));
        ENSURE(counts.too_strict == 0 && counts.too_loose == 0);
    }
}

/* 3D hulls at the authors' proximity 0.1 (bodies of radius 0.5): no overlap accepted; free
 * configurations rejected at most 1% along random directions, 3% corner to corner (bench:
 * see docs/peg.md). */
static void test_3d_sets_match_overlap(void) {
    for (int mode = 0; mode < 2; ++mode) {
        const int samples = 500;
        peg_sample_counts counts;
        ENSURE(peg_sample_run(3, mode, samples, 77 + mode, &counts));
        ENSURE(counts.free_count > 100 && counts.overlap_count > 50);
        ENSURE(counts.too_loose == 0);
        ENSURE(counts.too_strict <= (mode == PEG_SAMPLE_CORNER ? 0.03 : 0.01) * samples);
    }
}

int main(void) {
    RUN_TEST(test_2d_sets_match_overlap);
    RUN_TEST(test_3d_sets_match_overlap);
    return TEST_RESULT();
}
