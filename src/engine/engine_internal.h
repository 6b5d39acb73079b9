/* The engine's private part of tch_data.
 *
 * Fixed arrays (sized from the model) live in tch_data itself; everything a step needs that
 * varies in size comes from `arena`, released at the end of each stage that took it. The
 * contact buffers of tch_data grow geometrically the few times a scene needs more, and never
 * shrink, so a warmed-up step makes no heap allocation (tch_data.heap_allocation_count).
 */
#pragma once

#include "base/arena.h"
#include "collision/broadphase.h"
#include "contact/contact.h"
#include "geometry/shape.h"
#include "touche/data.h"

struct tch_data_internal {
    tch_arena arena;
    tch_broadphase* broadphase;
    tch_aabb* geom_aabb;          /* [geom_count] world boxes of the last collision stage */
    unsigned char* geom_static;   /* [geom_count] 1 when the geom's root is the world */
    long contact_growth_count;    /* reallocations of the contact buffers */
    tch_velocity_prediction prediction; /* arrays [body_count], for semi-implicit friction */
    tch_pair_params* pair_params; /* [pair_result_capacity] resolved parameters per pair result */
};

/* Makes room for `extra` more contacts and one more pair result; -1 when out of memory. */
int tch_data_reserve_contacts(tch_data* data, int extra);

/* Sums the heap allocations made by steps into data->heap_allocation_count. */
void tch_data_update_allocation_count(tch_data* data);
