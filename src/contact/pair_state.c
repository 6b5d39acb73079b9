#include "contact/pair_state.h"

#include <stdlib.h>
#include <string.h>

void tch_pair_state_init(tch_pair_state_table* table) {
    memset(table, 0, sizeof *table);
}

void tch_pair_state_destroy(tch_pair_state_table* table) {
    free(table->slots);
    free(table->index);
    memset(table, 0, sizeof *table);
}

static unsigned hash_pair(int a, int b) {
    /* Multiplicative hashing of the two indices (Knuth's constant). */
    return (unsigned)a * 2654435761u ^ ((unsigned)b * 40503u + 0x9e3779b9u);
}

static void order(int* a, int* b) {
    if (*a > *b) {
        int t = *a;
        *a = *b;
        *b = t;
    }
}

/* Position in index[] holding (a, b), or the empty position where it would go. */
static int probe(const tch_pair_state_table* table, int a, int b) {
    unsigned mask = (unsigned)table->index_capacity - 1;
    unsigned i = hash_pair(a, b) & mask;
    while (table->index[i] != 0) {
        const tch_pair_state* s = &table->slots[table->index[i] - 1];
        if (s->geom_a == a && s->geom_b == b) {
            break;
        }
        i = (i + 1) & mask;
    }
    return (int)i;
}

static void rebuild_index(tch_pair_state_table* table) {
    memset(table->index, 0, (size_t)table->index_capacity * sizeof *table->index);
    for (int k = 0; k < table->count; ++k) {
        table->index[probe(table, table->slots[k].geom_a, table->slots[k].geom_b)] = k + 1;
    }
}

static int grow(tch_pair_state_table* table) {
    int capacity = table->capacity ? 2 * table->capacity : 32;
    tch_pair_state* slots = realloc(table->slots, (size_t)capacity * sizeof *slots);
    if (!slots) {
        return 0;
    }
    table->slots = slots;
    table->capacity = capacity;
    int* index = malloc((size_t)(4 * capacity) * sizeof *index);
    if (!index) {
        return 0;
    }
    free(table->index);
    table->index = index;
    table->index_capacity = 4 * capacity;
    table->allocation_count += 2;
    rebuild_index(table);
    return 1;
}

tch_pair_state* tch_pair_state_find(const tch_pair_state_table* table, int a, int b) {
    if (table->count == 0) {
        return NULL;
    }
    order(&a, &b);
    int k = table->index[probe(table, a, b)];
    return k ? &table->slots[k - 1] : NULL;
}

tch_pair_state* tch_pair_state_touch(tch_pair_state_table* table, int a, int b, long step) {
    order(&a, &b);
    tch_pair_state* s = tch_pair_state_find(table, a, b);
    if (!s) {
        if (table->count == table->capacity && !grow(table)) {
            return NULL;
        }
        s = &table->slots[table->count++];
        memset(s, 0, sizeof *s);
        s->geom_a = a;
        s->geom_b = b;
        s->fresh = 1;
        table->index[probe(table, a, b)] = table->count;
    }
    s->last_seen = step;
    return s;
}

void tch_pair_state_sweep(tch_pair_state_table* table, long step) {
    int kept = 0;
    for (int k = 0; k < table->count; ++k) {
        if (table->slots[k].last_seen == step) {
            table->slots[kept] = table->slots[k];
            table->slots[kept].fresh = !table->slots[kept].initialised;
            kept++;
        }
    }
    if (kept != table->count) {
        table->count = kept;
        rebuild_index(table);
    } else {
        for (int k = 0; k < kept; ++k) {
            table->slots[k].fresh = !table->slots[k].initialised;
        }
    }
}

void tch_pair_state_clear(tch_pair_state_table* table) {
    table->count = 0;
    if (table->index) {
        memset(table->index, 0, (size_t)table->index_capacity * sizeof *table->index);
    }
}
