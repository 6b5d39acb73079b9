#include "base/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TCH_ARENA_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TCH_ARENA_ASAN 1
#endif

#ifdef TCH_ARENA_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

enum { ARENA_ALIGN = 16 };

static size_t round_up(size_t n) {
    return (n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
}

int tch_arena_init(tch_arena* arena, size_t capacity) {
    memset(arena, 0, sizeof *arena);
    capacity = round_up(capacity);
    if (capacity > 0) {
        arena->buffer = aligned_alloc(ARENA_ALIGN, capacity);
        if (!arena->buffer) {
            return -1;
        }
        arena->heap_allocation_count = 1;
        POISON(arena->buffer, capacity);
    }
    arena->capacity = capacity;
    return 0;
}

static void free_overflow(tch_arena* arena) {
    for (int i = 0; i < arena->overflow_count; ++i) {
        free(arena->overflow_blocks[i]);
    }
    arena->overflow_count = 0;
    arena->overflow_bytes = 0;
}

void tch_arena_destroy(tch_arena* arena) {
    free_overflow(arena);
    free(arena->overflow_blocks);
    if (arena->buffer) {
        UNPOISON(arena->buffer, arena->capacity);
        free(arena->buffer);
    }
    memset(arena, 0, sizeof *arena);
}

size_t tch_arena_mark(const tch_arena* arena) {
    return arena->used;
}

static void* alloc_overflow(tch_arena* arena, size_t bytes) {
    if (arena->overflow_count == arena->overflow_capacity) {
        int capacity = arena->overflow_capacity ? 2 * arena->overflow_capacity : 8;
        void** blocks = realloc(arena->overflow_blocks, (size_t)capacity * sizeof *blocks);
        if (!blocks) {
            return NULL;
        }
        arena->overflow_blocks = blocks;
        arena->overflow_capacity = capacity;
        arena->heap_allocation_count++;
    }
    void* block = aligned_alloc(ARENA_ALIGN, bytes);
    if (!block) {
        return NULL;
    }
    arena->heap_allocation_count++;
    arena->overflow_blocks[arena->overflow_count++] = block;
    arena->overflow_bytes += bytes;
    size_t demand = arena->used + arena->overflow_bytes;
    if (demand > arena->high_water) {
        arena->high_water = demand;
    }
    return block;
}

void* tch_arena_alloc(tch_arena* arena, size_t bytes, const char* tag) {
    (void)tag;
    bytes = round_up(bytes ? bytes : 1);
    if (arena->used + bytes > arena->capacity) {
        return alloc_overflow(arena, bytes);
    }
    void* p = arena->buffer + arena->used;
    arena->used += bytes;
    if (arena->used + arena->overflow_bytes > arena->high_water) {
        arena->high_water = arena->used + arena->overflow_bytes;
    }
    UNPOISON(p, bytes);
    return p;
}

void tch_arena_release(tch_arena* arena, size_t mark) {
    if (mark < arena->used) {
        POISON(arena->buffer + mark, arena->used - mark);
        arena->used = mark;
    }
}

int tch_arena_grow_if_needed(tch_arena* arena) {
    if (arena->overflow_count == 0 || arena->used != 0) {
        return 0;
    }
    size_t capacity = round_up(arena->high_water + arena->high_water / 2);
    unsigned char* buffer = aligned_alloc(ARENA_ALIGN, capacity);
    if (!buffer) {
        return -1;
    }
    arena->heap_allocation_count++;
    free_overflow(arena);
    if (arena->buffer) {
        UNPOISON(arena->buffer, arena->capacity);
        free(arena->buffer);
    }
    arena->buffer = buffer;
    arena->capacity = capacity;
    POISON(buffer, capacity);
    return 1;
}
