/* AABB tree: median-split build, exact OBB-AABB pair traversal, box query (see bvh.h). */
#include "geometry/bvh.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "math/vec.h"

/* ---- build ---- */

typedef struct sort_entry {
    tch_real key;
    int primitive;
} sort_entry;

typedef struct builder {
    const tch_aabb* boxes;
    tch_vec3* centres;   /* [count] box centres */
    int* order;          /* [count] primitives in tree order */
    sort_entry* entries; /* [count] scratch for sorting a range */
    tch_bvh* bvh;
} builder;

static int compare_entries(const void* pa, const void* pb) {
    const sort_entry *a = pa, *b = pb;
    if (a->key != b->key) {
        return a->key < b->key ? -1 : 1;
    }
    return (a->primitive > b->primitive) - (a->primitive < b->primitive);
}

static tch_aabb box_union(tch_aabb a, tch_aabb b) {
    return (tch_aabb){tch_v3_min(a.lo, b.lo), tch_v3_max(a.hi, b.hi)};
}

/* Longest axis of the box of the range's centres. */
static int split_axis(const builder* b, int begin, int end) {
    tch_vec3 lo = b->centres[b->order[begin]], hi = lo;
    for (int i = begin + 1; i < end; ++i) {
        lo = tch_v3_min(lo, b->centres[b->order[i]]);
        hi = tch_v3_max(hi, b->centres[b->order[i]]);
    }
    tch_vec3 extent = tch_v3_sub(hi, lo);
    return extent.x >= extent.y && extent.x >= extent.z ? 0 : (extent.y >= extent.z ? 1 : 2);
}

/* Sorts order[begin, end) by centre along the split axis. */
static void sort_range(builder* b, int begin, int end) {
    int axis = split_axis(b, begin, end);
    sort_entry* e = b->entries + begin;
    for (int i = begin; i < end; ++i) {
        e[i - begin] = (sort_entry){tch_v3_get(b->centres[b->order[i]], axis), b->order[i]};
    }
    qsort(e, (size_t)(end - begin), sizeof *e, compare_entries);
    for (int i = begin; i < end; ++i) {
        b->order[i] = e[i - begin].primitive;
    }
}

/* Builds the subtree over order[begin, end) at the next free node; returns its depth. */
static int build_node(builder* b, int begin, int end) {
    tch_bvh* bvh = b->bvh;
    int node = bvh->node_count++;
    if (end - begin == 1) {
        bvh->nodes[node] = (tch_bvh_node){b->boxes[b->order[begin]], -1, b->order[begin]};
        return 1;
    }
    sort_range(b, begin, end);
    int middle = begin + (end - begin) / 2;
    int left_depth = build_node(b, begin, middle);
    int right = bvh->node_count;
    int right_depth = build_node(b, middle, end);
    tch_aabb box = box_union(bvh->nodes[node + 1].box, bvh->nodes[right].box);
    bvh->nodes[node] = (tch_bvh_node){box, right, -1};
    return 1 + (left_depth > right_depth ? left_depth : right_depth);
}

static tch_status check_boxes(const tch_aabb* boxes, int count, tch_error* err) {
    if (count < 1) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "BVH over %d boxes; expected at least one", count);
    }
    for (int i = 0; i < count; ++i) {
        tch_aabb b = boxes[i];
        if (!tch_v3_isfinite(b.lo) || !tch_v3_isfinite(b.hi) || b.lo.x > b.hi.x ||
            b.lo.y > b.hi.y || b.lo.z > b.hi.z) {
            return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                            "BVH box %d is not finite or has lo > hi; expected a finite box", i);
        }
    }
    return TCH_OK;
}

tch_status tch_bvh_build(const tch_aabb* boxes, int count, tch_bvh* out, tch_error* err) {
    memset(out, 0, sizeof *out);
    tch_status status = check_boxes(boxes, count, err);
    if (status != TCH_OK) {
        return status;
    }
    builder b = {boxes, malloc((size_t)count * sizeof *b.centres),
                 malloc((size_t)count * sizeof *b.order),
                 malloc((size_t)count * sizeof *b.entries), out};
    out->nodes = malloc((2 * (size_t)count - 1) * sizeof *out->nodes);
    if (!b.centres || !b.order || !b.entries || !out->nodes) {
        status = tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                          "out of memory while building a BVH over %d boxes", count);
    } else {
        for (int i = 0; i < count; ++i) {
            b.centres[i] = tch_v3_scale(tch_v3_add(boxes[i].lo, boxes[i].hi), 0.5);
            b.order[i] = i;
        }
        out->primitive_count = count;
        out->depth = build_node(&b, 0, count);
    }
    free(b.centres);
    free(b.order);
    free(b.entries);
    if (status != TCH_OK) {
        tch_bvh_free(out);
    }
    return status;
}

void tch_bvh_refit(tch_bvh* bvh, const tch_aabb* boxes) {
    /* depth-first order puts both children after their parent: refit from the back */
    for (int i = bvh->node_count - 1; i >= 0; --i) {
        tch_bvh_node* node = &bvh->nodes[i];
        node->box = node->right < 0 ? boxes[node->primitive]
                                    : box_union(bvh->nodes[i + 1].box, bvh->nodes[node->right].box);
    }
}

void tch_bvh_free(tch_bvh* bvh) {
    if (bvh) {
        free(bvh->nodes);
        memset(bvh, 0, sizeof *bvh);
    }
}

/* ---- the separating-axis test of an oriented box against an axis-aligned one ---- */

/* X_AB as a matrix, with |R| padded so that near-parallel edge pairs (whose cross product is
 * nearly zero) never separate by round-off (Gottschalk et al. 1996, "OBBTree"). */
typedef struct relative_pose {
    tch_mat3 R;
    tch_mat3 abs_R;
    tch_vec3 p;
    int aligned; /* R maps axes onto axes (see is_axis_permutation) */
} relative_pose;

/* Whether each column of R has a single nonzero entry: R is a signed permutation (e.g. the
 * identity: boxes resting on each other, Drake's compliant benchmark). Then B's boxes are
 * axis-aligned in A, each of B's axes is one of A's, and each cross product A_i x B_j is
 * zero (its test, |t . 0| > ra + rb, never holds) or again one of A's axes: the 15-axis test
 * is A's 3 axes, up to the 1e-12 padding of |R|. */
static int is_axis_permutation(const tch_mat3* R) {
    for (int j = 0; j < 3; ++j) {
        if ((R->m[0][j] != 0) + (R->m[1][j] != 0) + (R->m[2][j] != 0) != 1) {
            return 0;
        }
    }
    return 1;
}

static relative_pose make_relative_pose(tch_transform X_AB) {
    relative_pose pose = {tch_q_to_mat3(X_AB.q), tch_m3_zero(), X_AB.p, 0};
    for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
            pose.abs_R.m[i][j] = fabs(pose.R.m[i][j]) + 1e-12;
        }
    }
    pose.aligned = is_axis_permutation(&pose.R);
    return pose;
}

static int separated_on_cross_axes(const tch_real t[3], const tch_real a[3], const tch_real b[3],
                                   const relative_pose* pose) {
    const tch_real(*R)[3] = pose->R.m;
    const tch_real(*Q)[3] = pose->abs_R.m;
    for (int i = 0; i < 3; ++i) {
        int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j) {
            int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            /* axis A_i x B_j */
            tch_real ra = a[i1] * Q[i2][j] + a[i2] * Q[i1][j];
            tch_real rb = b[j1] * Q[i][j2] + b[j2] * Q[i][j1];
            if (fabs(t[i2] * R[i1][j] - t[i1] * R[i2][j]) > ra + rb) {
                return 1;
            }
        }
    }
    return 0;
}

/* B's box placed in A's frame: its centre there, its half extents along B's axes and its
 * reach along A's axes (|R| half_B). One placement serves every box of A it is tested with. */
typedef struct placed_box {
    tch_vec3 centre;
    tch_vec3 half;
    tch_vec3 reach;
} placed_box;

static placed_box place_box(const tch_aabb* box_B, const relative_pose* pose) {
    tch_vec3 centre_B = tch_v3_scale(tch_v3_add(box_B->lo, box_B->hi), 0.5);
    tch_vec3 half_B = tch_v3_scale(tch_v3_sub(box_B->hi, box_B->lo), 0.5);
    return (placed_box){tch_v3_add(tch_m3_mul_v3(pose->R, centre_B), pose->p), half_B,
                        tch_m3_mul_v3(pose->abs_R, half_B)};
}

/* B's axes and the 9 cross axes, after A's: 1 when none separates. t = B's centre minus A's,
 * a and b the half extents. */
static int overlap_on_other_axes(const tch_real t[3], const tch_real a[3],
                                 const placed_box* box_B, const relative_pose* pose) {
    tch_vec3 d = {t[0], t[1], t[2]};
    tch_real b[3] = {box_B->half.x, box_B->half.y, box_B->half.z};
    tch_vec3 t_B = tch_m3_tmul_v3(pose->R, d);
    tch_vec3 reach_A = tch_m3_tmul_v3(pose->abs_R, (tch_vec3){a[0], a[1], a[2]});
    if ((fabs(t_B.x) > b[0] + reach_A.x) | (fabs(t_B.y) > b[1] + reach_A.y) |
        (fabs(t_B.z) > b[2] + reach_A.z)) {
        return 0;
    }
    return !separated_on_cross_axes(t, a, b, pose);
}

/* 1 when no separating axis is found: among all 15 when `all_axes`, else among A's 3 axes
 * only (a cheaper test that separates fewer pairs); A's 3 are all 15 under an aligned pose.
 * Inline: the descent runs it for every node pair. */
static inline int overlap(const tch_aabb* box_A, const placed_box* box_B,
                          const relative_pose* pose, int all_axes) {
    tch_vec3 centre_A = tch_v3_scale(tch_v3_add(box_A->lo, box_A->hi), 0.5);
    tch_vec3 half_A = tch_v3_scale(tch_v3_sub(box_A->hi, box_A->lo), 0.5);
    tch_vec3 d = tch_v3_sub(box_B->centre, centre_A);
    tch_real t[3] = {d.x, d.y, d.z}, a[3] = {half_A.x, half_A.y, half_A.z};
    /* A's axes (the re-boxed test), with one branch for the three: its outcome is hard to
     * predict */
    tch_vec3 reach = box_B->reach;
    if ((fabs(t[0]) > a[0] + reach.x) | (fabs(t[1]) > a[1] + reach.y) |
        (fabs(t[2]) > a[2] + reach.z)) {
        return 0;
    }
    return pose->aligned || !all_axes || overlap_on_other_axes(t, a, box_B, pose);
}

int tch_bvh_boxes_overlap(tch_aabb box_A, tch_aabb box_B, tch_transform X_AB) {
    relative_pose pose = make_relative_pose(X_AB);
    placed_box placed = place_box(&box_B, &pose);
    return overlap(&box_A, &placed, &pose, 1);
}

static int aabbs_overlap(const tch_aabb* a, const tch_aabb* b) {
    return a->lo.x <= b->hi.x && b->lo.x <= a->hi.x && a->lo.y <= b->hi.y &&
           b->lo.y <= a->hi.y && a->lo.z <= b->hi.z && b->lo.z <= a->hi.z;
}

/* ---- queries ---- */

static tch_real box_size(const tch_aabb* box) {
    tch_vec3 e = tch_v3_sub(box->hi, box->lo);
    return e.x + e.y + e.z;
}

/* Whether to descend node a (else node b) of an overlapping pair that is not two leaves. */
static int descend_a(const tch_bvh_node* a, const tch_bvh_node* b) {
    if (b->right < 0) {
        return 1;
    }
    return a->right >= 0 && box_size(&a->box) >= box_size(&b->box);
}

/* Whether node pair (ia, ib) passes the intervals (if any). */
static int intervals_meet(const tch_bvh_intervals* iv, int ia, int ib) {
    return !iv || ((iv->scale_a * iv->a[ia][1] >= iv->scale_b * iv->b[ib][0]) &
                   (iv->scale_b * iv->b[ib][1] >= iv->scale_a * iv->a[ia][0]));
}

/* Whether node ia of A and node b of B (placed as placed_b) pass the box test: inner nodes on
 * A's axes only (B's axes and the 9 edge axes would prune a few more subtrees but cost more
 * than they save: bench/pressure, 5-10% faster queries); leaves on all 15, exactly (A's 3
 * under an aligned pose, which are the 15 there). */
static int boxes_meet(const tch_bvh* bvh_a, int ia, const tch_bvh_node* b,
                      const placed_box* placed_b, const relative_pose* pose) {
    const tch_bvh_node* a = &bvh_a->nodes[ia];
    return overlap(&a->box, placed_b, pose, a->right < 0 && b->right < 0);
}

/* Whether node pair (ia, ib) passes the intervals (if any) and the box test. */
static int pair_meets(const tch_bvh* bvh_a, const tch_bvh* bvh_b, const relative_pose* pose,
                      const tch_bvh_intervals* iv, int ia, int ib) {
    if (!intervals_meet(iv, ia, ib)) {
        return 0;
    }
    const tch_bvh_node* b = &bvh_b->nodes[ib];
    placed_box placed_b = place_box(&b->box, pose);
    return boxes_meet(bvh_a, ia, b, &placed_b, pose);
}

/* The children of A's node ia that meet node ib of B, right child first (the order they are
 * pushed in); B's box is placed once for both. Returns their count. */
static int meeting_children_a(const tch_bvh* bvh_a, const tch_bvh* bvh_b,
                              const relative_pose* pose, const tch_bvh_intervals* iv, int ia,
                              int ib, int out[2]) {
    const tch_bvh_node* b = &bvh_b->nodes[ib];
    int children[2] = {bvh_a->nodes[ia].right, ia + 1}, n = 0;
    placed_box placed_b;
    int placed = 0;
    for (int k = 0; k < 2; ++k) {
        if (!intervals_meet(iv, children[k], ib)) {
            continue;
        }
        if (!placed) {
            placed_b = place_box(&b->box, pose);
            placed = 1;
        }
        if (boxes_meet(bvh_a, children[k], b, &placed_b, pose)) {
            out[n++] = children[k];
        }
    }
    return n;
}

/* Depth-first descent of both trees from the node pair (root_a, root_b), reporting each
 * meeting leaf pair to the callback. Returns the pairs reported. The stack holds pairs that
 * met already: the children of a split pair are tested when it is split. */
static int descend(const tch_bvh* bvh_a, const tch_bvh* bvh_b, const relative_pose* pose,
                   const tch_bvh_intervals* iv, int root_a, int root_b,
                   tch_bvh_pair_callback callback, void* user) {
    /* Each step pops one pair and pushes at most two that go one level deeper on one side, so
     * the stack never holds more than depth_a + depth_b pairs. */
    int stack[2 * TCH_BVH_MAX_DEPTH + 2][2];
    int top = 0, reported = 0;
    if (pair_meets(bvh_a, bvh_b, pose, iv, root_a, root_b)) {
        stack[top][0] = root_a;
        stack[top][1] = root_b;
        ++top;
    }
    while (top > 0) {
        --top;
        int ia = stack[top][0], ib = stack[top][1];
        const tch_bvh_node* a = &bvh_a->nodes[ia];
        const tch_bvh_node* b = &bvh_b->nodes[ib];
        if (a->right < 0 && b->right < 0) {
            ++reported;
            if (callback(a->primitive, b->primitive, user)) {
                break;
            }
            continue;
        }
        /* push the right child first so the left one is visited first */
        if (descend_a(a, b)) {
            int children[2];
            int n = meeting_children_a(bvh_a, bvh_b, pose, iv, ia, ib, children);
            for (int k = 0; k < n; ++k, ++top) {
                stack[top][0] = children[k];
                stack[top][1] = ib;
            }
        } else {
            int children[2] = {b->right, ib + 1};
            for (int k = 0; k < 2; ++k) {
                if (pair_meets(bvh_a, bvh_b, pose, iv, ia, children[k])) {
                    stack[top][0] = ia;
                    stack[top++][1] = children[k];
                }
            }
        }
    }
    return reported;
}

int tch_bvh_query_pairs(const tch_bvh* bvh_a, const tch_bvh* bvh_b, tch_transform X_AB,
                        tch_bvh_pair_callback callback, void* user) {
    return tch_bvh_query_pairs_from(bvh_a, bvh_b, X_AB, NULL, 0, 0, callback, user);
}

int tch_bvh_query_pairs_from(const tch_bvh* bvh_a, const tch_bvh* bvh_b, tch_transform X_AB,
                             const tch_bvh_intervals* intervals, int node_a, int node_b,
                             tch_bvh_pair_callback callback, void* user) {
    relative_pose pose = make_relative_pose(X_AB);
    return descend(bvh_a, bvh_b, &pose, intervals, node_a, node_b, callback, user);
}

/* Replaces each node pair of in[n] that is not two leaves by its overlapping children (the
 * split descend() makes, first child first), into out; returns their count. The depth-first
 * descent visits the children's subtrees in this order, so the order is kept. */
static int split_frontier(const tch_bvh* bvh_a, const tch_bvh* bvh_b, const relative_pose* pose,
                          const tch_bvh_intervals* iv, const int (*in)[2], int n,
                          int (*out)[2]) {
    int m = 0;
    for (int i = 0; i < n; ++i) {
        int ia = in[i][0], ib = in[i][1];
        const tch_bvh_node* a = &bvh_a->nodes[ia];
        const tch_bvh_node* b = &bvh_b->nodes[ib];
        if (a->right < 0 && b->right < 0) {
            out[m][0] = ia;
            out[m++][1] = ib;
            continue;
        }
        int split_a = descend_a(a, b);
        int children[2] = {split_a ? ia + 1 : ib + 1, split_a ? a->right : b->right};
        for (int k = 0; k < 2; ++k) {
            int ca = split_a ? children[k] : ia, cb = split_a ? ib : children[k];
            if (pair_meets(bvh_a, bvh_b, pose, iv, ca, cb)) {
                out[m][0] = ca;
                out[m++][1] = cb;
            }
        }
    }
    return m;
}

int tch_bvh_query_frontier(const tch_bvh* bvh_a, const tch_bvh* bvh_b, tch_transform X_AB,
                           const tch_bvh_intervals* intervals, int target, int capacity,
                           int (*frontier)[2], int (*scratch)[2]) {
    relative_pose pose = make_relative_pose(X_AB);
    int n = 0, leaves = 0;
    if (pair_meets(bvh_a, bvh_b, &pose, intervals, 0, 0)) {
        frontier[0][0] = frontier[0][1] = 0;
        n = 1;
        leaves = bvh_a->nodes[0].right < 0 && bvh_b->nodes[0].right < 0;
    }
    while (n > 0 && n < target && leaves < n && 2 * n <= capacity) {
        n = split_frontier(bvh_a, bvh_b, &pose, intervals, (const int(*)[2])frontier, n,
                           scratch);
        memcpy(frontier, scratch, (size_t)n * sizeof *frontier);
        leaves = 0;
        for (int i = 0; i < n; ++i) {
            leaves += bvh_a->nodes[frontier[i][0]].right < 0 &&
                      bvh_b->nodes[frontier[i][1]].right < 0;
        }
    }
    return n;
}

int tch_bvh_leaf_count(const tch_bvh* bvh, int node) {
    /* the subtree is nodes [node, end), end just past the last leaf of its right spine */
    int last = node;
    while (bvh->nodes[last].right >= 0) {
        last = bvh->nodes[last].right;
    }
    return (last + 1 - node + 1) / 2;
}

int tch_bvh_query_box(const tch_bvh* bvh, tch_aabb box, tch_bvh_box_callback callback,
                      void* user) {
    int stack[TCH_BVH_MAX_DEPTH + 1];
    int top = 0, reported = 0;
    stack[top++] = 0;
    while (top > 0) {
        const tch_bvh_node* node = &bvh->nodes[stack[--top]];
        if (!aabbs_overlap(&node->box, &box)) {
            continue;
        }
        if (node->right < 0) {
            ++reported;
            if (callback(node->primitive, user)) {
                break;
            }
            continue;
        }
        stack[top++] = node->right;
        stack[top++] = (int)(node - bvh->nodes) + 1;
    }
    return reported;
}
