#include <stdint.h>
#include <stdlib.h>

#include "base/arena.h"
#include "base/error.h"
#include "test.h"

static void test_fail_fills_error(void) {
    tch_error err;
    tch_status s = tch_fail(&err, TCH_ERR_PARSE, "scene.xml", 12, "size must be > 0, got %g", -1.0);
    ENSURE(s == TCH_ERR_PARSE);
    ENSURE(err.status == TCH_ERR_PARSE);
    ENSURE(err.line == 12);
    ENSURE(strcmp(err.file, "scene.xml") == 0);
    ENSURE(strcmp(err.message, "size must be > 0, got -1") == 0);
    ENSURE(tch_fail(NULL, TCH_ERR_IO, NULL, 0, "x") == TCH_ERR_IO);
}

static void test_status_names(void) {
    ENSURE(strcmp(tch_status_name(TCH_OK), "ok") == 0);
    ENSURE(strcmp(tch_status_name((tch_status)99), "unknown status") == 0);
}

static void test_copy_string_truncates(void) {
    char buf[4];
    tch_copy_string(buf, sizeof buf, "abcdef");
    ENSURE(strcmp(buf, "abc") == 0);
}

static void test_arena_lifo_and_alignment(void) {
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 256) == 0);
    size_t mark = tch_arena_mark(&arena);
    double* a = tch_arena_alloc(&arena, 3 * sizeof(double), "a");
    char* b = tch_arena_alloc(&arena, 1, "b");
    ENSURE(((uintptr_t)a % 16) == 0 && ((uintptr_t)b % 16) == 0);
    a[2] = 1.5;
    b[0] = 'x';
    ENSURE(tch_arena_mark(&arena) == 48);
    tch_arena_release(&arena, mark);
    ENSURE(tch_arena_mark(&arena) == 0);
    tch_arena_destroy(&arena);
}

static void test_arena_overflow_then_grows_then_stays_flat(void) {
    tch_arena arena;
    ENSURE(tch_arena_init(&arena, 64) == 0);
    long before = 0;
    for (int step = 0; step < 10; ++step) {
        ENSURE(tch_arena_grow_if_needed(&arena) >= 0);
        if (step == 3) {
            before = arena.heap_allocation_count;
        }
        size_t mark = tch_arena_mark(&arena);
        for (int i = 0; i < 20; ++i) {
            int* p = tch_arena_alloc(&arena, 40, "block");
            ENSURE(p != NULL);
            p[9] = i;
        }
        tch_arena_release(&arena, mark);
    }
    ENSURE(arena.capacity >= 20 * 48);
    ENSURE(arena.heap_allocation_count == before);
    tch_arena_destroy(&arena);
}

int main(void) {
    RUN_TEST(test_fail_fills_error);
    RUN_TEST(test_status_names);
    RUN_TEST(test_copy_string_truncates);
    RUN_TEST(test_arena_lifo_and_alignment);
    RUN_TEST(test_arena_overflow_then_grows_then_stays_flat);
    return TEST_RESULT();
}
