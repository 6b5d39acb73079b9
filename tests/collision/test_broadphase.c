/* Broad phase: every method equals the brute-force oracle exactly, frame after frame, with
 * unbounded boxes (planes) and static flags; plus hand-made edge cases. */
#include <math.h>
#include <stdlib.h>

#include "base/arena.h"
#include "collision/broadphase.h"
#include "math/vec.h"
#include "test.h"

static const tch_broadphase_method methods[3] = {
    TCH_BROADPHASE_BRUTE_FORCE, TCH_BROADPHASE_SWEEP_AND_PRUNE, TCH_BROADPHASE_AABB_TREE};

/* Deterministic uniform numbers in [0, 1) (64-bit LCG, Knuth's MMIX constants). */
static double uniform(unsigned long long* state) {
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*state >> 11) * (1.0 / 9007199254740992.0);
}

static tch_aabb box_at(tch_vec3 c, tch_vec3 half) {
    return (tch_aabb){tch_v3_sub(c, half), tch_v3_add(c, half)};
}

/* The pairs of the oracle, the plain double loop, written here independently of the library. */
static int oracle_pairs(const tch_aabb* boxes, const unsigned char* is_static, int count,
                        tch_pair* out) {
    int n = 0;
    for (int i = 0; i < count; ++i) {
        for (int j = i + 1; j < count; ++j) {
            const tch_aabb* a = &boxes[i];
            const tch_aabb* b = &boxes[j];
            int overlap = a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y &&
                          b->lo.y <= a->hi.y && a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
            if (overlap && !(is_static[i] && is_static[j])) {
                out[n++] = (tch_pair){i, j};
            }
        }
    }
    return n;
}

static int same_pairs(const tch_pair* a, int na, const tch_pair* b, int nb) {
    if (na != nb) {
        return 0;
    }
    for (int k = 0; k < na; ++k) {
        if (a[k].a != b[k].a || a[k].b != b[k].b) {
            return 0;
        }
    }
    return 1;
}

enum { RANDOM_COUNT = 400, FRAMES = 30 };

/* Random boxes, three of them unbounded (planes with axis-aligned and tilted normals), a
 * quarter static; the dynamic ones drift coherently over the frames. */
static void test_random_boxes_all_methods_equal_oracle(void) {
    unsigned long long rng = 12345;
    static tch_aabb boxes[RANDOM_COUNT];
    static tch_vec3 velocity[RANDOM_COUNT];
    static unsigned char is_static[RANDOM_COUNT];
    static tch_pair expected[RANDOM_COUNT * RANDOM_COUNT / 2];
    for (int i = 0; i < RANDOM_COUNT; ++i) {
        tch_vec3 c = tch_v3(10 * uniform(&rng), 10 * uniform(&rng), 4 * uniform(&rng));
        tch_vec3 half = tch_v3(0.1 + 0.4 * uniform(&rng), 0.1 + 0.4 * uniform(&rng),
                               0.1 + 0.4 * uniform(&rng));
        boxes[i] = box_at(c, half);
        velocity[i] = tch_v3(uniform(&rng) - 0.5, uniform(&rng) - 0.5, uniform(&rng) - 0.5);
        is_static[i] = uniform(&rng) < 0.25;
    }
    /* ground plane z <= 0.3 (static), a tilted plane (dynamic, fully infinite), a wall */
    boxes[5] = (tch_aabb){tch_v3(-INFINITY, -INFINITY, -INFINITY), tch_v3(INFINITY, INFINITY, 0.3)};
    is_static[5] = 1;
    boxes[77] = (tch_aabb){tch_v3(-INFINITY, -INFINITY, -INFINITY),
                           tch_v3(INFINITY, INFINITY, INFINITY)};
    is_static[77] = 0;
    boxes[200] = (tch_aabb){tch_v3(8, -INFINITY, -INFINITY), tch_v3(INFINITY, INFINITY, INFINITY)};
    is_static[200] = 1;
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 1 << 16) == 0);
    tch_broadphase* bp[3];
    for (int m = 0; m < 3; ++m) {
        bp[m] = tch_broadphase_create(methods[m], RANDOM_COUNT);
        ENSURE(bp[m] != NULL);
    }
    int total_pairs = 0;
    for (int frame = 0; frame < FRAMES; ++frame) {
        const int n_expected = oracle_pairs(boxes, is_static, RANDOM_COUNT, expected);
        total_pairs += n_expected;
        for (int m = 0; m < 3; ++m) {
            size_t mark = tch_arena_mark(&arena);
            tch_pair* pairs = NULL;
            int n = tch_broadphase_find_pairs(bp[m], boxes, is_static, RANDOM_COUNT, &arena,
                                              &pairs);
            ENSURE(same_pairs(pairs, n, expected, n_expected));
            tch_arena_release(&arena, mark);
        }
        for (int i = 0; i < RANDOM_COUNT; ++i) {
            if (!is_static[i] && tch_v3_isfinite(boxes[i].lo)) {
                tch_vec3 step = tch_v3_scale(velocity[i], 0.1);
                boxes[i] = (tch_aabb){tch_v3_add(boxes[i].lo, step), tch_v3_add(boxes[i].hi, step)};
            }
        }
    }
    ENSURE(total_pairs > 1000); /* the scene does produce overlaps */
    for (int m = 0; m < 3; ++m) {
        tch_broadphase_destroy(bp[m]);
    }
    tch_arena_destroy(&arena);
}

/* Touching faces count; static-static never; two planes pair when one is dynamic; the order
 * is (a, b) ascending; an empty scene gives nothing. */
static void test_hand_made_cases(void) {
    const tch_vec3 h = tch_v3(0.5, 0.5, 0.5);
    tch_aabb boxes[6] = {
        box_at(tch_v3(0, 0, 0), h),
        box_at(tch_v3(1, 0, 0), h),    /* touches 0 on x = 0.5 */
        box_at(tch_v3(0, 0, 1.001), h), /* just apart from 0 */
        {tch_v3(-INFINITY, -INFINITY, -INFINITY), tch_v3(INFINITY, INFINITY, -0.5)},
        {tch_v3(-INFINITY, -INFINITY, -INFINITY), tch_v3(INFINITY, INFINITY, INFINITY)},
        box_at(tch_v3(0, 0, -0.9), h), /* static: touches 0 and 1, not the static plane 3 */
    };
    const unsigned char is_static[6] = {0, 0, 0, 1, 0, 1};
    const tch_pair expected[] = {{0, 1}, {0, 3}, {0, 4}, {0, 5}, {1, 3},
                                 {1, 4}, {1, 5}, {2, 4}, {3, 4}, {4, 5}};
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 0) == 0);
    for (int m = 0; m < 3; ++m) {
        tch_broadphase* bp = tch_broadphase_create(methods[m], 6);
        ENSURE(bp != NULL);
        tch_pair* pairs = NULL;
        int n = tch_broadphase_find_pairs(bp, boxes, is_static, 6, &arena, &pairs);
        ENSURE(same_pairs(pairs, n, expected, (int)(sizeof expected / sizeof expected[0])));
        tch_broadphase_destroy(bp);
        tch_broadphase* empty = tch_broadphase_create(methods[m], 0);
        ENSURE(empty != NULL);
        ENSURE(tch_broadphase_find_pairs(empty, NULL, NULL, 0, &arena, &pairs) == 0);
        tch_broadphase_destroy(empty);
    }
    tch_arena_destroy(&arena);
}

static void test_default_method_is_a_fast_one(void) {
    ENSURE(tch_broadphase_default_method() != TCH_BROADPHASE_BRUTE_FORCE);
}

int main(void) {
    RUN_TEST(test_random_boxes_all_methods_equal_oracle);
    RUN_TEST(test_hand_made_cases);
    RUN_TEST(test_default_method_is_a_fast_one);
    return TEST_RESULT();
}
