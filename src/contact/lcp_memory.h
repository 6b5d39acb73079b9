/* What the lcp model remembers of a pair from one step to the next (contact/lcp.c,
 * docs/contact-lcp.md): each point of the last step, where it was on each geom's surface (geom
 * frames: a's surface point p + depth/2 n and b's p - depth/2 n), its normal impulse, its
 * friction impulse in the tangent basis of its normal, and the velocity error its rows were
 * left with. The points warm-start the solver (matched by nearest position) and are kept as
 * contacts while they still touch (a persistent manifold, tch_lcp_complete_points).
 */
#pragma once

#include <stdbool.h>

#include "contact/contact.h"

enum {
    TCH_LCP_MEMORY_POINTS = 5,
    TCH_LCP_MATCHED_CONTACTS = 16, /* a pair's contacts beyond these start cold */
};

typedef struct tch_lcp_point_memory {
    float p_A[3];
    float p_B[3];
    double normal;      /* double: a resting stack's warm start must hold below the tolerance */
    double tangent[2];
    float error[3];     /* the velocity error its normal and tangent rows were left with */
} tch_lcp_point_memory;

typedef struct tch_lcp_pair_memory {
    int count;
    /* What the collision stage of an evaluation found for the pair's contacts
     * (tch_lcp_complete_points), for its constraints stage: valid while `matched` (until the
     * points are rewritten); the last `retained` contacts are kept points. */
    int matched;
    int retained;
    signed char from[TCH_LCP_MATCHED_CONTACTS]; /* the point each contact is warm-started
                                                 * from, -1: none */
    tch_lcp_point_memory points[TCH_LCP_MEMORY_POINTS];
} tch_lcp_pair_memory;
_Static_assert(sizeof(tch_lcp_pair_memory) <= TCH_PAIR_STATE_BYTES,
               "lcp memory must fit a pair state");

/* The pair's memory in its state, or NULL for none. */
static inline tch_lcp_pair_memory* tch_lcp_memory(tch_pair_state* state) {
    return state ? (tch_lcp_pair_memory*)state->bytes : NULL;
}

/* The contact's surface points in the geoms' frames (see the file comment). */
void tch_lcp_surface_points(const tch_data* data, const tch_contact* c, float p_A[3],
                            float p_B[3]);

/* The complete_points op: sorts the narrow phase's points of the pair into a canonical order,
 * matches each to the nearest stored point and appends the stored points that match none and
 * still touch (both recorded in the memory). */
int tch_lcp_complete_points(const tch_model* model, tch_data* data, tch_pair_context* context);

/* Appends a point to the memory (ignored when full): its surface points, its impulse on geom b
 * along the contact's (n, t1, t2), and its rows' velocity errors. */
void tch_lcp_remember(tch_lcp_pair_memory* memory, const float p_A[3], const float p_B[3],
                      const tch_real impulse[3], const tch_real error[3]);
