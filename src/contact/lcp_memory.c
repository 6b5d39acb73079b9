/* The lcp model's pair memory: warm starts matched by position, and the persistent manifold
 * (contact/lcp_memory.h, docs/contact-lcp.md).
 */
#include "contact/lcp_memory.h"

#include <math.h>
#include <string.h>

#include "collision/narrowphase.h"
#include "math/vec.h"

/* A stored point farther than this from every current point warm-starts nothing, m; it is
 * retained as a contact of its own when it still touches. */
static const tch_real MEMORY_MATCH_DISTANCE = 0.01;
/* A retained point is dropped when its two surface points have slid apart by more than this
 * along the contact plane, m, or separated by more than the pair's margin or this, m. */
static const tch_real RETAIN_DRIFT = 1e-3;
static const tch_real RETAIN_GAP = 1e-3;
/* A pair's points are ordered by their position in geom a's frame on a grid of this pitch, m
 * (sort_pair_points). */
static const tch_real POINT_ORDER_PITCH = 1e-4;

/* A pair's stored points at the geoms' current poses: each one's two surface points, world. */
typedef struct tch_lcp_located_memory {
    int count;
    tch_vec3 pa_W[TCH_LCP_MEMORY_POINTS], pb_W[TCH_LCP_MEMORY_POINTS];
    bool matched[TCH_LCP_MEMORY_POINTS]; /* the nearest stored point of a current point */
} tch_lcp_located_memory;

static tch_vec3 float_vec3(const float* x) {
    return (tch_vec3){x[0], x[1], x[2]};
}

static void store_vec3(float* x, tch_vec3 v) {
    x[0] = (float)v.x, x[1] = (float)v.y, x[2] = (float)v.z;
}

static void locate_memory(const tch_data* d, const tch_pair_result* pair,
                           const tch_lcp_pair_memory* memory, tch_lcp_located_memory* out) {
    out->count = memory ? memory->count : 0;
    memset(out->matched, 0, sizeof out->matched);
    tch_transform X_WA = d->geom_X_WG[pair->geom_a], X_WB = d->geom_X_WG[pair->geom_b];
    for (int k = 0; k < out->count; ++k) {
        out->pa_W[k] = tch_x_apply(X_WA, float_vec3(memory->points[k].p_A));
        out->pb_W[k] = tch_x_apply(X_WB, float_vec3(memory->points[k].p_B));
    }
}

/* The stored point nearest to p_W within MEMORY_MATCH_DISTANCE, or -1. */
static int nearest_memory_point(const tch_lcp_located_memory* located, tch_vec3 p_W) {
    int best = -1;
    tch_real best_distance2 = MEMORY_MATCH_DISTANCE * MEMORY_MATCH_DISTANCE;
    for (int k = 0; k < located->count; ++k) {
        tch_vec3 midpoint = tch_v3_lerp(located->pa_W[k], located->pb_W[k], 0.5);
        tch_real distance2 = tch_v3_norm2(tch_v3_sub(midpoint, p_W));
        if (distance2 < best_distance2) {
            best = k;
            best_distance2 = distance2;
        }
    }
    return best;
}

void tch_lcp_surface_points(const tch_data* d, const tch_contact* c, float p_A[3], float p_B[3]) {
    tch_vec3 half = tch_v3_scale(c->n_W, 0.5 * c->depth);
    store_vec3(p_A, tch_x_apply_inverse(d->geom_X_WG[c->geom_a], tch_v3_add(c->p_W, half)));
    store_vec3(p_B, tch_x_apply_inverse(d->geom_X_WG[c->geom_b], tch_v3_sub(c->p_W, half)));
}

void tch_lcp_remember(tch_lcp_pair_memory* memory, const float p_A[3], const float p_B[3],
                      const tch_real impulse[3], const tch_real error[3]) {
    if (!memory || memory->count >= TCH_LCP_MEMORY_POINTS) {
        return;
    }
    tch_lcp_point_memory* pm = &memory->points[memory->count++];
    memcpy(pm->p_A, p_A, sizeof pm->p_A);
    memcpy(pm->p_B, p_B, sizeof pm->p_B);
    pm->normal = impulse[0];
    pm->tangent[0] = impulse[1];
    pm->tangent[1] = impulse[2];
    for (int k = 0; k < 3; ++k) {
        pm->error[k] = (float)error[k];
    }
}

/* ---- the canonical order of a pair's points ---- */

/* x rounded to a whole number (ties to even) for |x| < 2^51: adding and taking back 1.5 2^52
 * leaves no fraction bits (without a libm call, which round() is on baseline x86-64). */
static tch_real nearest_whole(tch_real x) {
    const tch_real shift = 6755399441055744.0; /* 1.5 * 2^52 */
    return (x + shift) - shift;
}

/* A point's key in the canonical order of its pair: its position in geom a's frame, each
 * coordinate rounded to POINT_ORDER_PITCH. */
static tch_vec3 point_order_key(const tch_data* d, const tch_contact* c) {
    tch_vec3 p = tch_v3_scale(tch_x_apply_inverse(d->geom_X_WG[c->geom_a], c->p_W),
                              1 / POINT_ORDER_PITCH);
    return (tch_vec3){nearest_whole(p.x), nearest_whole(p.y), nearest_whole(p.z)};
}

/* Lexicographic order of keys. */
static int key_precedes(tch_vec3 a, tch_vec3 b) {
    return a.x != b.x ? a.x < b.x : a.y != b.y ? a.y < b.y : a.z < b.z;
}

/* Sorts a pair's narrow-phase points into a canonical order (insertion sort: a pair has a
 * few). The narrow phase may list the same corners in another order from one step to the next
 * (box-box clips whichever face is the reference); the rows' order then stays put, and with it
 * the solver's sweep order and the free rows' matrix that a subspace step can reuse
 * (engine/constraint_pgs.c). */
static void sort_pair_points(const tch_data* d, tch_contact* points, int count) {
    tch_vec3 keys[TCH_MANIFOLD_CAPACITY];
    for (int i = 0; i < count; ++i) {
        keys[i] = point_order_key(d, &points[i]);
    }
    for (int i = 1; i < count; ++i) {
        tch_contact point = points[i];
        tch_vec3 key = keys[i];
        int j = i;
        for (; j > 0 && key_precedes(key, keys[j - 1]); --j) {
            points[j] = points[j - 1];
            keys[j] = keys[j - 1];
        }
        points[j] = point;
        keys[j] = key;
    }
}

/* ---- the persistent manifold ---- */

/* Is p_W farther than MEMORY_MATCH_DISTANCE from each of the points? */
static int is_new_point(const tch_contact* points, int count, tch_vec3 p_W) {
    for (int i = 0; i < count; ++i) {
        if (tch_v3_norm2(tch_v3_sub(points[i].p_W, p_W)) <
            MEMORY_MATCH_DISTANCE * MEMORY_MATCH_DISTANCE) {
            return 0;
        }
    }
    return 1;
}

/* The normal of the pair's deepest point. */
static tch_vec3 deepest_normal(const tch_contact* points, int count) {
    const tch_contact* deepest = &points[0];
    for (int i = 1; i < count; ++i) {
        deepest = points[i].depth > deepest->depth ? &points[i] : deepest;
    }
    return deepest->n_W;
}

/* Each of the pair's points is warm-started from the stored point nearest to it within
 * MEMORY_MATCH_DISTANCE. */
static void match_points(const tch_data* d, const tch_pair_result* pair,
                         tch_lcp_pair_memory* memory, tch_lcp_located_memory* located) {
    const tch_contact* points = d->contacts + pair->contact_start;
    for (int i = 0; i < pair->contact_count; ++i) {
        int k = nearest_memory_point(located, points[i].p_W);
        if (k >= 0) {
            located->matched[k] = true;
        }
        if (i < TCH_LCP_MATCHED_CONTACTS) {
            memory->from[i] = (signed char)k;
        }
    }
}

/* Persistent manifold: the narrow phase may give fewer points than the pair touches at (one
 * point per step for a box on a box whose separating axis is an edge pair, a different corner
 * each step; libccd's single point), and a face held up at one point at a time sinks. Each
 * stored point of the last step that matches no current point is kept as a contact while its
 * two surface points, at the geoms' current poses, are within the pair's margin (or RETAIN_GAP)
 * along the pair's normal (that of its deepest current point) and within RETAIN_DRIFT of each
 * other along the contact plane; its depth is their distance along the normal. Returns 0, -1
 * when out of memory. */
static int retain_points(tch_data* d, tch_pair_result* pair, tch_lcp_pair_memory* memory,
                         const tch_lcp_located_memory* located) {
    int count = pair->contact_count;
    if (located->count == 0 || count == 0 || count >= TCH_LCP_MEMORY_POINTS) {
        return 0;
    }
    tch_vec3 n_W = deepest_normal(d->contacts + pair->contact_start, count);
    tch_real gap = fmax(pair->params.margin, RETAIN_GAP);
    for (int k = 0; k < located->count && pair->contact_count < TCH_LCP_MEMORY_POINTS; ++k) {
        if (located->matched[k]) {
            continue; /* a current point is within MEMORY_MATCH_DISTANCE of it */
        }
        tch_vec3 apart = tch_v3_sub(located->pa_W[k], located->pb_W[k]);
        tch_real depth = tch_v3_dot(apart, n_W);
        tch_real drift = tch_v3_norm(tch_v3_madd(apart, -depth, n_W));
        tch_vec3 p_W = tch_v3_lerp(located->pa_W[k], located->pb_W[k], 0.5);
        if (depth < -gap || drift > RETAIN_DRIFT ||
            !is_new_point(d->contacts + pair->contact_start, pair->contact_count, p_W)) {
            continue;
        }
        if (tch_contact_reserve(d, 1, 0, 0) != 0) {
            return -1;
        }
        d->contacts[d->contact_count++] = (tch_contact){
            pair->geom_a, pair->geom_b, pair->model, p_W, n_W, depth, tch_v3_zero()};
        memory->from[pair->contact_count++] = (signed char)k; /* below MEMORY_POINTS */
        memory->retained++;
    }
    return 0;
}

int tch_lcp_complete_points(const tch_model* model, tch_data* d, tch_pair_context* context) {
    (void)model;
    tch_pair_result* pair = context->pair;
    sort_pair_points(d, d->contacts + pair->contact_start, pair->contact_count);
    tch_lcp_pair_memory* memory = tch_lcp_memory(context->state);
    if (!memory) {
        return 0;
    }
    tch_lcp_located_memory located;
    locate_memory(d, pair, memory, &located);
    memory->matched = 1;
    memory->retained = 0;
    match_points(d, pair, memory, &located);
    return retain_points(d, pair, memory, &located);
}
