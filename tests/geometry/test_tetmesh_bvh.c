/* BVH over tet meshes: tree structure, the exact box-box test, pair and box queries against
 * brute force for random poses, early stop, bad input. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "geometry/bvh.h"
#include "geometry/tetmesh.h"
#include "math/vec.h"
#include "test.h"

static unsigned long long rng_state = 0x2545F4914F6CDD1Dull;

static tch_real uniform(tch_real lo, tch_real hi) {
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (tch_real)(rng_state >> 11) / 9007199254740992.0;
}

static tch_transform random_pose(tch_real reach) {
    tch_quat q = tch_q_normalize(
        (tch_quat){uniform(-1, 1), uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)});
    return (tch_transform){q, tch_v3(uniform(-reach, reach), uniform(-reach, reach),
                                     uniform(-reach, reach))};
}

static tch_aabb random_box(tch_real reach, tch_real size) {
    tch_vec3 c = tch_v3(uniform(-reach, reach), uniform(-reach, reach), uniform(-reach, reach));
    tch_vec3 h = tch_v3(uniform(0, size), uniform(0, size), uniform(0, size));
    return (tch_aabb){tch_v3_sub(c, h), tch_v3_add(c, h)};
}

static int contains(tch_aabb outer, tch_aabb inner) {
    return outer.lo.x <= inner.lo.x && outer.lo.y <= inner.lo.y && outer.lo.z <= inner.lo.z &&
           outer.hi.x >= inner.hi.x && outer.hi.y >= inner.hi.y && outer.hi.z >= inner.hi.z;
}

static void test_tree_structure(void) {
    enum { n = 1000 };
    tch_aabb* boxes = malloc(n * sizeof *boxes);
    for (int i = 0; i < n; ++i) {
        boxes[i] = random_box(1, 0.05);
    }
    tch_bvh bvh;
    ENSURE(tch_bvh_build(boxes, n, &bvh, NULL) == TCH_OK);
    ENSURE(bvh.node_count == 2 * n - 1 && bvh.primitive_count == n);
    ENSURE(bvh.depth == 11); /* ceil(lg 1000) + 1 */
    int seen[n] = {0};
    for (int i = 0; i < bvh.node_count; ++i) {
        const tch_bvh_node* node = &bvh.nodes[i];
        if (node->right < 0) {
            ENSURE(node->primitive >= 0 && node->primitive < n);
            seen[node->primitive]++;
            ENSURE(memcmp(&node->box, &boxes[node->primitive], sizeof node->box) == 0);
        } else {
            ENSURE(node->primitive == -1 && node->right > i + 1);
            ENSURE(contains(node->box, bvh.nodes[i + 1].box));
            ENSURE(contains(node->box, bvh.nodes[node->right].box));
        }
    }
    for (int i = 0; i < n; ++i) {
        ENSURE(seen[i] == 1);
    }
    tch_bvh_free(&bvh);
    free(boxes);
}

/* Whether some sample of box B (a 5^3 grid), placed by X_AB, lies inside box A. */
static int sampled_overlap(tch_aabb a, tch_aabb b, tch_transform X_AB) {
    for (int i = 0; i < 125; ++i) {
        tch_real s[3] = {(i % 5) / 4.0, (i / 5 % 5) / 4.0, (i / 25) / 4.0};
        tch_vec3 p_B = tch_v3(b.lo.x + s[0] * (b.hi.x - b.lo.x), b.lo.y + s[1] * (b.hi.y - b.lo.y),
                              b.lo.z + s[2] * (b.hi.z - b.lo.z));
        tch_vec3 p = tch_x_apply(X_AB, p_B);
        if (p.x >= a.lo.x && p.x <= a.hi.x && p.y >= a.lo.y && p.y <= a.hi.y && p.z >= a.lo.z &&
            p.z <= a.hi.z) {
            return 1;
        }
    }
    return 0;
}

/* Whether some vertex of A lies in B or some vertex of B in A is a sufficient condition; and
 * the test must never call boxes apart when samples say they meet. With R = I it is the
 * interval test. */
static void test_box_overlap_is_exact(void) {
    int overlaps = 0, apart = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        tch_aabb a = random_box(0.5, 0.5), b = random_box(0.5, 0.5);
        tch_transform X_AB = random_pose(1);
        int sat = tch_bvh_boxes_overlap(a, b, X_AB);
        int sampled = sampled_overlap(a, b, X_AB) || sampled_overlap(b, a, tch_x_inverse(X_AB));
        ENSURE(!sampled || sat);
        overlaps += sat;
        apart += !sat;
        tch_transform shift = {tch_q_identity(), X_AB.p};
        int interval = a.lo.x <= b.hi.x + shift.p.x && b.lo.x + shift.p.x <= a.hi.x &&
                       a.lo.y <= b.hi.y + shift.p.y && b.lo.y + shift.p.y <= a.hi.y &&
                       a.lo.z <= b.hi.z + shift.p.z && b.lo.z + shift.p.z <= a.hi.z;
        ENSURE(tch_bvh_boxes_overlap(a, b, shift) == interval);
    }
    ENSURE(overlaps > 1000 && apart > 1000);
    /* a thin box rotated 45 degrees about z, beside a corner: re-boxing would overlap, the
     * separating-axis test along B's axes does not */
    tch_aabb a = {{-1, -1, -1}, {1, 1, 1}}, b = {{-1, -0.01, -1}, {1, 0.01, 1}};
    tch_transform X_AB = {tch_q_axis_angle(tch_v3(0, 0, 1), TCH_PI / 4), tch_v3(1.6, -1.6, 0)};
    ENSURE(!tch_bvh_boxes_overlap(a, b, X_AB));
}

typedef struct pair_list {
    int (*pairs)[2];
    int count, capacity;
} pair_list;

static int collect_pair(int a, int b, void* user) {
    pair_list* list = user;
    if (list->count < list->capacity) {
        list->pairs[list->count][0] = a;
        list->pairs[list->count][1] = b;
    }
    list->count++;
    return 0;
}

static int stop_after_first(int pa, int pb, void* user) {
    collect_pair(pa, pb, user);
    return 1;
}

static int compare_pairs(const void* pa, const void* pb) {
    const int *a = pa, *b = pb;
    return a[0] != b[0] ? (a[0] > b[0]) - (a[0] < b[0]) : (a[1] > b[1]) - (a[1] < b[1]);
}

/* Brute force over all leaf pairs with the same box test. */
static int brute_force_pairs(const tch_aabb* a, int na, const tch_aabb* b, int nb,
                             tch_transform X_AB, pair_list* out) {
    for (int i = 0; i < na; ++i) {
        for (int j = 0; j < nb; ++j) {
            if (tch_bvh_boxes_overlap(a[i], b[j], X_AB)) {
                collect_pair(i, j, out);
            }
        }
    }
    return out->count;
}

static void test_pair_query_matches_brute_force(void) {
    tch_tetmesh ma, mb;
    ENSURE(tch_tetmesh_make_sphere(0.5, 0.2, &ma, NULL) == TCH_OK);
    ENSURE(tch_tetmesh_make_box(tch_v3(0.4, 0.3, 0.2), 0.15, &mb, NULL) == TCH_OK);
    tch_aabb* boxes_a = malloc((size_t)ma.tet_count * sizeof *boxes_a);
    tch_aabb* boxes_b = malloc((size_t)mb.tet_count * sizeof *boxes_b);
    tch_tetmesh_tet_boxes(&ma, boxes_a);
    tch_tetmesh_tet_boxes(&mb, boxes_b);
    tch_bvh a, b;
    ENSURE(tch_bvh_build(boxes_a, ma.tet_count, &a, NULL) == TCH_OK);
    ENSURE(tch_bvh_build(boxes_b, mb.tet_count, &b, NULL) == TCH_OK);
    int capacity = ma.tet_count * mb.tet_count;
    pair_list fast = {malloc((size_t)capacity * sizeof *fast.pairs), 0, capacity};
    pair_list slow = {malloc((size_t)capacity * sizeof *slow.pairs), 0, capacity};
    long total_pairs = 0;
    printf("     tets A %d, tets B %d\n", ma.tet_count, mb.tet_count);
    for (int trial = 0; trial < 20; ++trial) {
        tch_transform X_AB = random_pose(0.7);
        fast.count = slow.count = 0;
        int reported = tch_bvh_query_pairs(&a, &b, X_AB, collect_pair, &fast);
        brute_force_pairs(boxes_a, ma.tet_count, boxes_b, mb.tet_count, X_AB, &slow);
        ENSURE(reported == fast.count && fast.count == slow.count);
        qsort(fast.pairs, (size_t)fast.count, sizeof *fast.pairs, compare_pairs);
        ENSURE(memcmp(fast.pairs, slow.pairs, (size_t)fast.count * sizeof *fast.pairs) == 0);
        total_pairs += fast.count;
    }
    printf("     overlapping leaf pairs over 20 poses: %ld\n", total_pairs);
    ENSURE(total_pairs > 10000);
    /* the callback stops the query */
    fast.count = 0;
    ENSURE(tch_bvh_query_pairs(&a, &b, tch_x_identity(), stop_after_first, &fast) == 1);
    free(fast.pairs);
    free(slow.pairs);
    tch_bvh_free(&a);
    tch_bvh_free(&b);
    free(boxes_a);
    free(boxes_b);
    tch_tetmesh_free(&ma);
    tch_tetmesh_free(&mb);
}

typedef struct index_list {
    int* items;
    int count;
} index_list;

static int collect_index(int primitive, void* user) {
    index_list* list = user;
    list->items[list->count++] = primitive;
    return 0;
}

static int compare_ints(const void* pa, const void* pb) {
    int a = *(const int*)pa, b = *(const int*)pb;
    return (a > b) - (a < b);
}

static void test_box_query_matches_brute_force(void) {
    tch_tetmesh m;
    ENSURE(tch_tetmesh_make_capsule(0.3, 0.4, 0.1, &m, NULL) == TCH_OK);
    tch_aabb* boxes = malloc((size_t)m.face_count * sizeof *boxes);
    tch_tetmesh_face_boxes(&m, boxes);
    tch_bvh bvh;
    ENSURE(tch_bvh_build(boxes, m.face_count, &bvh, NULL) == TCH_OK);
    index_list fast = {malloc((size_t)m.face_count * sizeof(int)), 0};
    index_list slow = {malloc((size_t)m.face_count * sizeof(int)), 0};
    for (int trial = 0; trial < 200; ++trial) {
        tch_aabb query = random_box(0.6, 0.2);
        fast.count = slow.count = 0;
        ENSURE(tch_bvh_query_box(&bvh, query, collect_index, &fast) == fast.count);
        for (int f = 0; f < m.face_count; ++f) {
            tch_aabb b = boxes[f];
            if (b.lo.x <= query.hi.x && query.lo.x <= b.hi.x && b.lo.y <= query.hi.y &&
                query.lo.y <= b.hi.y && b.lo.z <= query.hi.z && query.lo.z <= b.hi.z) {
                slow.items[slow.count++] = f;
            }
        }
        qsort(fast.items, (size_t)fast.count, sizeof(int), compare_ints);
        ENSURE(fast.count == slow.count &&
               memcmp(fast.items, slow.items, (size_t)fast.count * sizeof(int)) == 0);
    }
    free(fast.items);
    free(slow.items);
    free(boxes);
    tch_bvh_free(&bvh);
    tch_tetmesh_free(&m);
}

static void test_bad_boxes_are_rejected(void) {
    tch_bvh bvh;
    tch_error err;
    tch_aabb box = {{0, 0, 0}, {1, 1, 1}};
    ENSURE(tch_bvh_build(&box, 0, &bvh, &err) == TCH_ERR_INVALID_ARGUMENT);
    tch_aabb bad[2] = {{{0, 0, 0}, {1, 1, 1}}, {{0, NAN, 0}, {1, 1, 1}}};
    ENSURE(tch_bvh_build(bad, 2, &bvh, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(strstr(err.message, "box 1") != NULL && bvh.nodes == NULL);
    ENSURE(tch_bvh_build(&box, 1, &bvh, &err) == TCH_OK);
    ENSURE(bvh.node_count == 1 && bvh.depth == 1);
    tch_bvh_free(&bvh);
}

int main(void) {
    RUN_TEST(test_tree_structure);
    RUN_TEST(test_box_overlap_is_exact);
    RUN_TEST(test_pair_query_matches_brute_force);
    RUN_TEST(test_box_query_matches_brute_force);
    RUN_TEST(test_bad_boxes_are_rejected);
    return TEST_RESULT();
}
