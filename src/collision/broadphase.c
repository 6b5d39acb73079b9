/* Broad phase: brute force (the oracle), sweep-and-prune, and a bounding volume hierarchy.
 *
 * Every method applies the same test to the same candidates, so their outputs are equal as
 * sets, and the final sort by (a, b) makes them equal as arrays:
 *
 *     boxes --+-- unbounded (any infinite bound: planes) --> tested against every box
 *             |
 *             +-- bounded --> brute force | sweep-and-prune | BVH --> pair buffer --> sort
 *
 * Two boxes overlap when lo_a <= hi_b and lo_b <= hi_a on all three axes (touching counts).
 * Pairs of two static boxes are dropped. Unbounded boxes would defeat the sweep (an infinite
 * interval overlaps everything) and the hierarchy (an infinite root), so they live in a list
 * of their own, tested by brute force against all the others; scenes have few of them.
 *
 * Sweep-and-prune keeps its order between calls and re-sorts it by insertion, which costs
 * O(n + swaps) when the boxes move coherently; it picks the axis of largest spread of the box
 * centres each call and falls back to a full sort when that axis changes. The hierarchy is
 * rebuilt every call by median splits along the longest axis of the centres (O(n log n)) and
 * then traversed against itself, so each pair is visited once; subtrees whose boxes are all
 * static are skipped as a whole.
 */
#include "collision/broadphase.h"

#include "base/error.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "math/vec.h"

typedef struct bvh_node {
    tch_aabb box;
    int left, right; /* children, or -1 for a leaf */
    int leaf;        /* box index of a leaf */
    int all_static;  /* every box below is static */
} bvh_node;

struct tch_broadphase {
    tch_broadphase_method method;
    int count;
    int* bounded;      /* [count] indices of the bounded boxes */
    int bounded_count;
    int* unbounded;    /* [count] indices of the unbounded boxes */
    int unbounded_count;
    int* order;        /* [count] sweep order, kept between calls */
    int axis;          /* sweep axis of the last call, -1 before the first */
    bvh_node* nodes;   /* [2 count] */
    int node_count;
    tch_pair* found;   /* pair buffer, grown on demand and kept */
    int found_count;
    int found_capacity;
    tch_pair* by_b;    /* [found_capacity] the found pairs sorted by b, a step of their sort */
    int* counts;       /* [count + 1] buckets of the counting sort */
};

/* ---- shared helpers ---- */

static int boxes_overlap(const tch_aabb* a, const tch_aabb* b) {
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y &&
           b->lo.y <= a->hi.y && a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
}

static int box_is_bounded(const tch_aabb* a) {
    return tch_v3_isfinite(a->lo) && tch_v3_isfinite(a->hi);
}

/* Reallocates *buffer to `capacity` pairs; -1 when out of memory (*buffer kept). */
static int resize_pairs(tch_pair** buffer, int capacity) {
    tch_pair* grown = realloc(*buffer, (size_t)capacity * sizeof *grown);
    if (!grown) {
        return -1;
    }
    *buffer = grown;
    return 0;
}

/* Appends (min, max) of i and j; returns -1 when the buffers cannot grow. */
static int push_pair(tch_broadphase* bp, int i, int j) {
    if (bp->found_count == bp->found_capacity) {
        int capacity = bp->found_capacity ? 2 * bp->found_capacity : 256;
        if (resize_pairs(&bp->found, capacity) < 0 || resize_pairs(&bp->by_b, capacity) < 0) {
            return -1;
        }
        bp->found_capacity = capacity;
    }
    bp->found[bp->found_count++] = i < j ? (tch_pair){i, j} : (tch_pair){j, i};
    return 0;
}

/* Tests i against j and records the pair; -1 when out of memory. */
static int test_pair(tch_broadphase* bp, const tch_aabb* boxes, const unsigned char* is_static,
                     int i, int j) {
    if ((is_static[i] && is_static[j]) || !boxes_overlap(&boxes[i], &boxes[j])) {
        return 0;
    }
    return push_pair(bp, i, j);
}

static tch_real box_centre(const tch_aabb* a, int axis) {
    return 0.5 * (tch_v3_get(a->lo, axis) + tch_v3_get(a->hi, axis));
}

/* ---- brute force ---- */

static int brute_force(tch_broadphase* bp, const tch_aabb* boxes, const unsigned char* is_static) {
    for (int u = 0; u < bp->bounded_count; ++u) {
        for (int v = u + 1; v < bp->bounded_count; ++v) {
            if (test_pair(bp, boxes, is_static, bp->bounded[u], bp->bounded[v]) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* ---- sweep-and-prune ---- */

typedef struct sort_item {
    tch_real key;
    int index;
} sort_item;

static int compare_items(const void* pa, const void* pb) {
    const sort_item* a = pa;
    const sort_item* b = pb;
    if (a->key != b->key) {
        return a->key < b->key ? -1 : 1;
    }
    return (a->index > b->index) - (a->index < b->index);
}

/* Axis (0, 1, 2) along which the centres of the bounded boxes have the largest variance. */
static int axis_of_largest_spread(const tch_broadphase* bp, const tch_aabb* boxes) {
    tch_vec3 sum = tch_v3_zero();
    tch_vec3 sum2 = tch_v3_zero();
    for (int u = 0; u < bp->bounded_count; ++u) {
        const tch_aabb* a = &boxes[bp->bounded[u]];
        tch_vec3 c = tch_v3_scale(tch_v3_add(a->lo, a->hi), 0.5);
        sum = tch_v3_add(sum, c);
        sum2 = tch_v3_add(sum2, tch_v3_mul(c, c));
    }
    tch_real n = bp->bounded_count > 0 ? bp->bounded_count : 1;
    tch_vec3 mean = tch_v3_scale(sum, 1 / n);
    tch_vec3 variance = tch_v3_sub(tch_v3_scale(sum2, 1 / n), tch_v3_mul(mean, mean));
    int axis = 0;
    for (int k = 1; k < 3; ++k) {
        if (tch_v3_get(variance, k) > tch_v3_get(variance, axis)) {
            axis = k;
        }
    }
    return axis;
}

/* Sort key: the lower bound on the axis; unbounded boxes first (they are skipped). */
static tch_real sweep_key(const tch_aabb* boxes, int i, int axis) {
    const tch_aabb* a = &boxes[i];
    return box_is_bounded(a) ? tch_v3_get(a->lo, axis) : -INFINITY;
}

/* Full sort of every index by key: the first call and after the axis changed. */
static void sort_order_fully(tch_broadphase* bp, const tch_aabb* boxes, sort_item* items) {
    for (int i = 0; i < bp->count; ++i) {
        items[i] = (sort_item){sweep_key(boxes, i, bp->axis), i};
    }
    qsort(items, (size_t)bp->count, sizeof *items, compare_items);
    for (int k = 0; k < bp->count; ++k) {
        bp->order[k] = items[k].index;
    }
}

/* Insertion sort from the previous order: O(n + swaps), O(n) when motion is coherent. */
static void sort_order_incrementally(tch_broadphase* bp, const tch_aabb* boxes) {
    for (int k = 1; k < bp->count; ++k) {
        const int i = bp->order[k];
        const tch_real key = sweep_key(boxes, i, bp->axis);
        int m = k;
        while (m > 0 && sweep_key(boxes, bp->order[m - 1], bp->axis) > key) {
            bp->order[m] = bp->order[m - 1];
            --m;
        }
        bp->order[m] = i;
    }
}

static int sweep_and_prune(tch_broadphase* bp, const tch_aabb* boxes,
                           const unsigned char* is_static, sort_item* items) {
    const int axis = axis_of_largest_spread(bp, boxes);
    if (axis != bp->axis) {
        bp->axis = axis;
        sort_order_fully(bp, boxes, items);
    } else {
        sort_order_incrementally(bp, boxes);
    }
    for (int k = 0; k < bp->count; ++k) {
        const int i = bp->order[k];
        if (!box_is_bounded(&boxes[i])) {
            continue;
        }
        const tch_real hi = tch_v3_get(boxes[i].hi, axis);
        for (int m = k + 1; m < bp->count; ++m) {
            const int j = bp->order[m];
            if (tch_v3_get(boxes[j].lo, axis) > hi) {
                break;
            }
            if (test_pair(bp, boxes, is_static, i, j) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

/* ---- bounding volume hierarchy ---- */

static tch_aabb union_box(tch_aabb a, tch_aabb b) {
    return (tch_aabb){tch_v3_min(a.lo, b.lo), tch_v3_max(a.hi, b.hi)};
}

/* Centre order along `axis`, ties broken by index so that the tree is deterministic. */
static int centre_less(const tch_aabb* boxes, int axis, int i, int j) {
    tch_real ci = box_centre(&boxes[i], axis);
    tch_real cj = box_centre(&boxes[j], axis);
    return ci < cj || (ci == cj && i < j);
}

static void swap_ints(int* a, int* b) {
    int t = *a;
    *a = *b;
    *b = t;
}

/* Quickselect (Hoare 1961): permutes items[0..n) so that items[k] is the k-th by centre,
 * smaller ones before it and larger ones after. */
static void select_median(const tch_aabb* boxes, int axis, int* items, int n, int k) {
    int lo = 0;
    int hi = n - 1;
    while (lo < hi) {
        swap_ints(&items[(lo + hi) / 2], &items[hi]);
        const int pivot = items[hi];
        int store = lo;
        for (int m = lo; m < hi; ++m) {
            if (centre_less(boxes, axis, items[m], pivot)) {
                swap_ints(&items[m], &items[store++]);
            }
        }
        swap_ints(&items[store], &items[hi]);
        if (store == k) {
            return;
        }
        if (store < k) {
            lo = store + 1;
        } else {
            hi = store - 1;
        }
    }
}

static int longest_axis(tch_vec3 extent) {
    int axis = 0;
    for (int k = 1; k < 3; ++k) {
        if (tch_v3_get(extent, k) > tch_v3_get(extent, axis)) {
            axis = k;
        }
    }
    return axis;
}

/* Builds the subtree over items[0..n) (n >= 1) and returns its node index. */
static int build_subtree(tch_broadphase* bp, const tch_aabb* boxes,
                         const unsigned char* is_static, int* items, int n) {
    const int node = bp->node_count++;
    bvh_node* nd = &bp->nodes[node];
    if (n == 1) {
        *nd = (bvh_node){boxes[items[0]], -1, -1, items[0], is_static[items[0]] != 0};
        return node;
    }
    tch_vec3 clo = tch_v3(INFINITY, INFINITY, INFINITY);
    tch_vec3 chi = tch_v3_neg(clo);
    for (int m = 0; m < n; ++m) {
        tch_vec3 c = tch_v3_scale(tch_v3_add(boxes[items[m]].lo, boxes[items[m]].hi), 0.5);
        clo = tch_v3_min(clo, c);
        chi = tch_v3_max(chi, c);
    }
    const int half = n / 2;
    select_median(boxes, longest_axis(tch_v3_sub(chi, clo)), items, n, half);
    const int left = build_subtree(bp, boxes, is_static, items, half);
    const int right = build_subtree(bp, boxes, is_static, items + half, n - half);
    bp->nodes[node] = (bvh_node){union_box(bp->nodes[left].box, bp->nodes[right].box), left,
                                 right, -1,
                                 bp->nodes[left].all_static && bp->nodes[right].all_static};
    return node;
}

/* Sum of the edge lengths. */
static tch_real box_size(const tch_aabb* a) {
    tch_vec3 e = tch_v3_sub(a->hi, a->lo);
    return e.x + e.y + e.z;
}

/* Pairs with one box under node a and the other under node b (disjoint subtrees). */
static int traverse_cross(tch_broadphase* bp, const unsigned char* is_static, int a, int b) {
    const bvh_node* na = &bp->nodes[a];
    const bvh_node* nb = &bp->nodes[b];
    if ((na->all_static && nb->all_static) || !boxes_overlap(&na->box, &nb->box)) {
        return 0;
    }
    if (na->left < 0 && nb->left < 0) {
        return push_pair(bp, na->leaf, nb->leaf);
    }
    /* descend the inner node; when both are inner, the larger one */
    if (nb->left < 0 || (na->left >= 0 && box_size(&na->box) >= box_size(&nb->box))) {
        if (traverse_cross(bp, is_static, na->left, b) < 0) {
            return -1;
        }
        return traverse_cross(bp, is_static, na->right, b);
    }
    if (traverse_cross(bp, is_static, a, nb->left) < 0) {
        return -1;
    }
    return traverse_cross(bp, is_static, a, nb->right);
}

/* Pairs with both boxes under `node`. */
static int traverse_self(tch_broadphase* bp, const unsigned char* is_static, int node) {
    const bvh_node* nd = &bp->nodes[node];
    if (nd->left < 0 || nd->all_static) {
        return 0;
    }
    if (traverse_self(bp, is_static, nd->left) < 0 ||
        traverse_self(bp, is_static, nd->right) < 0) {
        return -1;
    }
    return traverse_cross(bp, is_static, nd->left, nd->right);
}

static int bounding_volume_hierarchy(tch_broadphase* bp, const tch_aabb* boxes,
                                     const unsigned char* is_static, int* items) {
    if (bp->bounded_count == 0) {
        return 0;
    }
    memcpy(items, bp->bounded, (size_t)bp->bounded_count * sizeof *items);
    bp->node_count = 0;
    const int root = build_subtree(bp, boxes, is_static, items, bp->bounded_count);
    return traverse_self(bp, is_static, root);
}

/* ---- the unbounded list and the entry points ---- */

static void classify_boxes(tch_broadphase* bp, const tch_aabb* boxes) {
    bp->bounded_count = 0;
    bp->unbounded_count = 0;
    for (int i = 0; i < bp->count; ++i) {
        if (box_is_bounded(&boxes[i])) {
            bp->bounded[bp->bounded_count++] = i;
        } else {
            bp->unbounded[bp->unbounded_count++] = i;
        }
    }
}

/* Every unbounded box against every other box, each pair once. */
static int unbounded_pairs(tch_broadphase* bp, const tch_aabb* boxes,
                           const unsigned char* is_static) {
    for (int u = 0; u < bp->unbounded_count; ++u) {
        const int i = bp->unbounded[u];
        for (int j = 0; j < bp->count; ++j) {
            const int j_done = !box_is_bounded(&boxes[j]) && j <= i;
            if (!j_done && test_pair(bp, boxes, is_static, i, j) < 0) {
                return -1;
            }
        }
    }
    return 0;
}

tch_broadphase* tch_broadphase_create(tch_broadphase_method method, int count) {
    tch_broadphase* bp = calloc(1, sizeof *bp);
    if (!bp) {
        return NULL;
    }
    const size_t n = (size_t)(count > 0 ? count : 1);
    bp->method = method;
    bp->count = count;
    bp->axis = -1;
    bp->bounded = malloc(n * sizeof *bp->bounded);
    bp->unbounded = malloc(n * sizeof *bp->unbounded);
    bp->order = malloc(n * sizeof *bp->order);
    bp->nodes = malloc(2 * n * sizeof *bp->nodes);
    bp->counts = malloc((n + 1) * sizeof *bp->counts);
    if (!bp->bounded || !bp->unbounded || !bp->order || !bp->nodes || !bp->counts) {
        tch_broadphase_destroy(bp);
        return NULL;
    }
    return bp;
}

void tch_broadphase_destroy(tch_broadphase* bp) {
    if (!bp) {
        return;
    }
    free(bp->bounded);
    free(bp->unbounded);
    free(bp->order);
    free(bp->nodes);
    free(bp->found);
    free(bp->by_b);
    free(bp->counts);
    free(bp);
}

/* Measured in bench/touche/bench_broadphase.c; the numbers are at the declaration. */
tch_broadphase_method tch_broadphase_default_method(void) {
    return TCH_BROADPHASE_SWEEP_AND_PRUNE;
}

static int run_method(tch_broadphase* bp, const tch_aabb* boxes, const unsigned char* is_static,
                      tch_arena* arena) {
    const size_t mark = tch_arena_mark(arena);
    int status = 0;
    if (bp->method == TCH_BROADPHASE_SWEEP_AND_PRUNE) {
        sort_item* items = tch_arena_alloc(arena, (size_t)bp->count * sizeof *items + 1,
                                           "sweep-and-prune sort");
        status = items ? sweep_and_prune(bp, boxes, is_static, items) : -1;
    } else if (bp->method == TCH_BROADPHASE_AABB_TREE) {
        int* items = tch_arena_alloc(arena, (size_t)bp->count * sizeof *items + 1, "bvh items");
        status = items ? bounding_volume_hierarchy(bp, boxes, is_static, items) : -1;
    } else {
        status = brute_force(bp, boxes, is_static);
    }
    tch_arena_release(arena, mark);
    return status;
}

/* Stable counting sort of in[0..n) by their first (first != 0) or second box index, in
 * [0, count), into out; counts has count + 1 entries. */
static void counting_sort_pairs(const tch_pair* in, int n, int first, int count, int* counts,
                                tch_pair* out) {
    memset(counts, 0, (size_t)(count + 1) * sizeof *counts);
    for (int k = 0; k < n; ++k) {
        counts[(first ? in[k].a : in[k].b) + 1]++;
    }
    for (int i = 0; i < count; ++i) {
        counts[i + 1] += counts[i];
    }
    for (int k = 0; k < n; ++k) {
        out[counts[first ? in[k].a : in[k].b]++] = in[k];
    }
}

/* The found pairs sorted by (a, b) into sorted: counting sorts by b, then (stable) by a, in
 * O(pairs + boxes) instead of qsort's calls of a comparison function. The pairs are distinct,
 * so this is the one sorted order. */
static void sort_found(tch_broadphase* bp, tch_pair* sorted) {
    counting_sort_pairs(bp->found, bp->found_count, 0, bp->count, bp->counts, bp->by_b);
    counting_sort_pairs(bp->by_b, bp->found_count, 1, bp->count, bp->counts, sorted);
}

int tch_broadphase_find_pairs(tch_broadphase* bp, const tch_aabb* boxes,
                              const unsigned char* is_static, int count, tch_arena* arena,
                              tch_pair** pairs) {
    TCH_ASSERT(count == bp->count);
    bp->found_count = 0;
    classify_boxes(bp, boxes);
    if (run_method(bp, boxes, is_static, arena) < 0 ||
        unbounded_pairs(bp, boxes, is_static) < 0) {
        return -1;
    }
    *pairs = tch_arena_alloc(arena, (size_t)bp->found_count * sizeof **pairs + 1,
                             "broad phase pairs");
    if (!*pairs) {
        return -1;
    }
    if (bp->found_count > 0) {
        sort_found(bp, *pairs);
    }
    return bp->found_count;
}
