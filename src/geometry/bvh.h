/* Bounding volume hierarchy: an AABB tree over a fixed set of primitive boxes (the tets of a
 * tch_tetmesh, the triangles of a rigid surface), built once at model compile time and queried
 * every step without allocating (Elandt et al. 2019, sec. VII: a query costs O(m lg n) for m
 * overlapping primitive pairs in practice).
 *
 * Build: top-down; a node's primitives are sorted by their box centres along the longest axis
 * of the centres' box and split at the median (ties broken by primitive index, so the tree is
 * deterministic). Each leaf holds one primitive, so a tree over n primitives has 2n - 1 nodes
 * and depth ceil(lg n) + 1 <= TCH_BVH_MAX_DEPTH.
 *
 * Storage: one flat array in depth-first order. An internal node's left child is the next node
 * (index + 1) and its right child is node `right`; a leaf has right = -1 and its primitive in
 * `primitive`:
 *
 *        0 (root) ----------------+
 *        1 (left subtree) ...     right (right subtree) ...
 *
 * Pair query under a relative pose X_AB: each box of B (in B's frame) is an oriented box in A's
 * frame. We test it against A's axis-aligned box exactly, with the 15-axis separating-axis test
 * (A's 3 axes, B's 3 axes, then the 9 edge cross products), rather than re-boxing B's box into
 * an AABB of A: re-boxing grows a box by up to √3 under rotation, compounding from the root to
 * the leaves, which reports many more false leaf pairs for the contact code to reject. Inner
 * node pairs get the cheaper test on A's 3 axes only (exact for those axes, no re-boxing: it
 * lets a few more subtree pairs through but costs less than it saves); leaf pairs get all 15.
 * When X_AB's rotation maps axes onto axes (a signed permutation, e.g. the identity) B's axes
 * are A's and the cross axes are zero or A's again, so every pair gets A's 3 axes only (the
 * 15-axis test up to the 1e-12 padding of |R|). Since a parent's box contains its children's,
 * the pairs reported are exactly the leaf pairs whose boxes overlap under the 15-axis test
 * (tch_bvh_boxes_overlap): the test checks this against brute force. Both trees are descended
 * together, always splitting the node with the larger box, from a fixed-size stack; a split
 * pair's children are tested when it is split (B's box placed in A once for both children
 * of A), and the three comparisons of A's axes make one branch (their outcome is hard to
 * predict: mispredictions, not arithmetic, bound the descent).
 */
#pragma once

#include "geometry/shape.h"

/* Largest tree depth handled (a median split gives ceil(lg n) + 1 <= 33 for n < 2^31). */
#define TCH_BVH_MAX_DEPTH 40

typedef struct tch_bvh_node {
    tch_aabb box;   /* in the frame of the primitives' boxes */
    int right;      /* internal: index of the right child (the left is this + 1); leaf: -1 */
    int primitive;  /* leaf: index of the primitive; internal: -1 */
} tch_bvh_node;

typedef struct tch_bvh {
    int primitive_count;
    int node_count;        /* 2 primitive_count - 1 */
    int depth;             /* nodes on the longest root-to-leaf path */
    tch_bvh_node* nodes;   /* [node_count], depth-first */
} tch_bvh;

/* Optional intervals on the nodes of both trees (e.g. the range of a field over each node's
 * primitives, times a scale): a pair query skips node pairs whose intervals do not meet,
 * before testing their boxes. The interval of node i of A is scale_a [a[i][0], a[i][1]]. */
typedef struct tch_bvh_intervals {
    const tch_real (*a)[2];
    tch_real scale_a;
    const tch_real (*b)[2];
    tch_real scale_b;
} tch_bvh_intervals;

/* Called for each overlapping pair of primitives; return nonzero to stop the query. */
typedef int (*tch_bvh_pair_callback)(int primitive_a, int primitive_b, void* user);
/* Called for each primitive whose box overlaps the query box; nonzero stops the query. */
typedef int (*tch_bvh_box_callback)(int primitive, void* user);

/* Builds the tree over count >= 1 boxes (finite, lo <= hi). Fails with
 * TCH_ERR_INVALID_ARGUMENT for no boxes or a non-finite or inverted box (naming it). */
tch_status tch_bvh_build(const tch_aabb* boxes, int count, tch_bvh* out, tch_error* err);
/* Replaces the primitives' boxes (boxes[primitive_count], finite, lo <= hi) keeping the tree's
 * shape, and recomputes the inner boxes; allocates nothing. The tree stays exact (every node's
 * box holds its leaves'), though its splits were chosen for the old boxes. */
void tch_bvh_refit(tch_bvh* bvh, const tch_aabb* boxes);
/* Frees the nodes and zeroes *bvh. NULL allowed. */
void tch_bvh_free(tch_bvh* bvh);

/* Reports every pair (a, b) of leaves of `bvh_a` and `bvh_b` whose boxes overlap when B's
 * boxes are placed in A's frame by X_AB (closed boxes: touching counts). Returns the number of
 * pairs reported (the last one included when the callback stopped the query). Allocates
 * nothing; the pairs come in a fixed order for a given pose. */
int tch_bvh_query_pairs(const tch_bvh* bvh_a, const tch_bvh* bvh_b, tch_transform X_AB,
                        tch_bvh_pair_callback callback, void* user);
/* The same for the leaves below node_a of `bvh_a` and node_b of `bvh_b` only, skipping the
 * node pairs whose `intervals` (NULL: none) do not meet. */
int tch_bvh_query_pairs_from(const tch_bvh* bvh_a, const tch_bvh* bvh_b, tch_transform X_AB,
                             const tch_bvh_intervals* intervals, int node_a, int node_b,
                             tch_bvh_pair_callback callback, void* user);
/* Splits a pair query into independent pieces (for threads): starting from the root pair,
 * replaces every overlapping node pair by its overlapping child pairs (as the descent of
 * tch_bvh_query_pairs splits it), level by level, until there are at least `target` pairs,
 * all are leaf pairs, or another level could exceed `capacity`. Writes them to
 * frontier[capacity] (scratch[capacity] is working space) and returns their count. Querying
 * each frontier pair with tch_bvh_query_pairs_from (same intervals), in order, reports exactly
 * the pairs of one tch_bvh_query_pairs_from the roots, in the same order. */
int tch_bvh_query_frontier(const tch_bvh* bvh_a, const tch_bvh* bvh_b, tch_transform X_AB,
                           const tch_bvh_intervals* intervals, int target, int capacity,
                           int (*frontier)[2], int (*scratch)[2]);
/* Leaves below `node` (1 for a leaf); O(depth). */
int tch_bvh_leaf_count(const tch_bvh* bvh, int node);
/* Reports every leaf whose box overlaps `box` (in the tree's frame). Returns the count. */
int tch_bvh_query_box(const tch_bvh* bvh, tch_aabb box, tch_bvh_box_callback callback,
                      void* user);

/* The separating-axis test between box_A (axis-aligned in A) and box_B (axis-aligned in B)
 * placed by X_AB, as the pair query uses it: 1 when no axis separates them. */
int tch_bvh_boxes_overlap(tch_aabb box_A, tch_aabb box_B, tch_transform X_AB);
