/* Per-step scratch memory: a LIFO arena owned by one tch_data.
 *
 *     size_t mark = tch_arena_mark(arena);
 *     tch_vec3* tmp = tch_arena_alloc(arena, n * sizeof *tmp, "narrow phase points");
 *     ...
 *     tch_arena_release(arena, mark);
 *
 * Overflow never fails a step (style anchors, item 10): an allocation that does not fit is
 * served from the heap and counted; tch_arena_grow_if_needed(), called at the start of the next
 * step when nothing is allocated, frees those blocks and regrows the buffer to 1.5x the
 * high-water mark. After a few steps of a scene the arena is large enough and a step makes no
 * heap allocation at all; tests check that through heap_allocation_count.
 *
 * Under AddressSanitizer the free part of the buffer is poisoned, so a read past an allocation
 * or after its release is reported as it would be for malloc'ed memory.
 *
 * Rejected: a fixed-size stack that fails when full (MuJoCo) - a haptic loop must not stop.
 */
#pragma once

#include <stddef.h>

typedef struct tch_arena {
    unsigned char* buffer;
    size_t capacity;
    size_t used;
    size_t high_water;        /* largest used + overflow seen since the last grow */
    void** overflow_blocks;   /* heap blocks served when the buffer was full */
    int overflow_count;
    int overflow_capacity;
    size_t overflow_bytes;
    long heap_allocation_count; /* every malloc this arena made, including growth */
} tch_arena;

/* Returns 0 on success, -1 when out of memory. capacity may be 0. */
int tch_arena_init(tch_arena* arena, size_t capacity);
void tch_arena_destroy(tch_arena* arena);
size_t tch_arena_mark(const tch_arena* arena);
/* 16-byte aligned, uninitialised. NULL only when the heap is exhausted. `tag` names the use
 * (kept for debugging; not stored). */
void* tch_arena_alloc(tch_arena* arena, size_t bytes, const char* tag);
/* Releases everything allocated since `mark`. Overflow blocks are kept until the next grow. */
void tch_arena_release(tch_arena* arena, size_t mark);
/* With nothing allocated: if the last steps overflowed, regrow to 1.5x the high-water mark.
 * Returns 1 when it grew, 0 otherwise, -1 when out of memory (the old buffer is kept). */
int tch_arena_grow_if_needed(tch_arena* arena);
