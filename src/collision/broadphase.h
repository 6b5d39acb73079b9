/* Broad phase: the pairs of axis-aligned boxes that overlap.
 *
 * The engine gives every geom's world AABB (planes have infinite bounds) and a flag that says
 * which geoms never move; pairs of two static boxes are never reported. Pairs come out sorted
 * (i < j, then by i and j) so that the narrow phase runs in a fixed order: results do not depend
 * on the method or on the previous frames.
 *
 * The method (sweep-and-prune along the axis of largest spread, or a dynamic AABB tree) is
 * chosen by the measurement recorded in docs/collision.md; the brute-force O(n^2) test is kept
 * as the oracle the tests compare against.
 */
#pragma once

#include "base/arena.h"
#include "geometry/shape.h"

typedef struct tch_broadphase tch_broadphase;

typedef enum tch_broadphase_method {
    TCH_BROADPHASE_BRUTE_FORCE = 0,
    TCH_BROADPHASE_SWEEP_AND_PRUNE,
    TCH_BROADPHASE_AABB_TREE,
} tch_broadphase_method;

typedef struct tch_pair {
    int a, b; /* a < b */
} tch_pair;

/* The method the engine uses: sweep-and-prune, the fastest in bench/touche/bench_broadphase.c
 * up to 1000 boxes (AMD EPYC, commit 120ebdd, microseconds per query, coherent motion):
 *
 *     boxes  layout   brute force  sweep-and-prune  AABB tree (BVH rebuilt per query)
 *       100  pile              75               42         72
 *       100  random            24               14         36
 *      1000  pile            3548              838        947
 *      1000  random          4945              768       1114
 *     10000  pile          228669            14053       9918
 *     10000  random        278170            12830       6058
 *
 * Above a few thousand boxes the tree wins (docs/collision.md, "Broad phase measurement"). */
tch_broadphase_method tch_broadphase_default_method(void);

/* State kept between steps (sorted orders, tree nodes) for `count` boxes. NULL when out of
 * memory. */
tch_broadphase* tch_broadphase_create(tch_broadphase_method method, int count);
void tch_broadphase_destroy(tch_broadphase* bp);

/* Finds the overlapping pairs of boxes[count] (count as at creation). `is_static[i]` nonzero
 * marks boxes that never move. The pairs are allocated from `arena` (released by the caller);
 * returns their count, or -1 when out of memory. */
int tch_broadphase_find_pairs(tch_broadphase* bp, const tch_aabb* boxes,
                              const unsigned char* is_static, int count, tch_arena* arena,
                              tch_pair** pairs);
