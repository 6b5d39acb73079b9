/* Per-pair contact state that lives across steps (design.md: "per-pair state kept in tch_data
 * ... that it creates on first contact and drops on separation").
 *
 * A model that remembers something about a touching pair (the contact-volume model's friction
 * springs and last normal, a solver's warm start) keeps it in a slot of this table, keyed by the
 * ordered geom pair (a < b). A slot is created the first step the pair touches, marked each step
 * it still touches, and dropped by tch_pair_state_sweep after a step in which it did not.
 *
 *     slots[]  dense array in creation order (deterministic iteration)
 *     index[]  open-addressing hash (linear probing) from (a, b) to a slot, rebuilt by the sweep
 *
 * Memory grows geometrically during warm-up and is kept; a warmed-up step allocates nothing.
 * Rejected: a per-geom list (O(contacts of the geom) look-ups; piles give long lists).
 */
#pragma once

#include "touche/base.h"

/* Bytes of model state per slot; static asserts in each model check that theirs fits. */
#define TCH_PAIR_STATE_BYTES 384

typedef struct tch_pair_state {
    int geom_a, geom_b;   /* a < b */
    long last_seen;       /* step counter value of the last step that touched */
    int fresh;            /* 1 until a committing evaluation has initialised the state: in the
                           * step the slot was created, and after it while only RK4's
                           * intermediate evaluations or queries touched it */
    int initialised;      /* set by the engine once a committing evaluation touched the slot */
    _Alignas(16) unsigned char bytes[TCH_PAIR_STATE_BYTES]; /* the model's state, zeroed on creation */
} tch_pair_state;

typedef struct tch_pair_state_table {
    tch_pair_state* slots;
    int count, capacity;
    int* index;           /* [index_capacity] slot + 1, 0 = empty */
    int index_capacity;   /* power of two, at least 2 * capacity */
    long allocation_count;
} tch_pair_state_table;

void tch_pair_state_init(tch_pair_state_table* table);
void tch_pair_state_destroy(tch_pair_state_table* table);

/* The slot of pair (a, b) (any order), created zeroed with fresh = 1 when absent; marks it seen
 * at `step`. NULL only when out of memory. */
tch_pair_state* tch_pair_state_touch(tch_pair_state_table* table, int a, int b, long step);

/* The slot of (a, b) or NULL, without marking it. */
tch_pair_state* tch_pair_state_find(const tch_pair_state_table* table, int a, int b);

/* Drops the slots not seen at `step` (keeping the order of the rest); `fresh` becomes
 * !initialised. */
void tch_pair_state_sweep(tch_pair_state_table* table, long step);

/* Drops every slot. */
void tch_pair_state_clear(tch_pair_state_table* table);
