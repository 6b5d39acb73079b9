/* The per-pair state table (src/contact/pair_state.c). */
#include "contact/pair_state.h"
#include "test.h"

static void test_slots_are_created_found_and_swept(void) {
    tch_pair_state_table t;
    tch_pair_state_init(&t);
    for (int i = 0; i < 500; ++i) {
        tch_pair_state* s = tch_pair_state_touch(&t, i + 1, i, 1); /* given in either order */
        ENSURE(s && s->fresh && s->geom_a == i && s->geom_b == i + 1);
        s->bytes[0] = (unsigned char)(i & 0xff);
    }
    ENSURE(t.count == 500);
    ENSURE(tch_pair_state_find(&t, 7, 8)->bytes[0] == 7);
    ENSURE(tch_pair_state_find(&t, 8, 7) == tch_pair_state_find(&t, 7, 8));
    ENSURE(tch_pair_state_find(&t, 7, 9) == NULL);
    /* step 2 touches the even pairs only: the odd ones are dropped, order kept */
    for (int i = 0; i < 500; i += 2) {
        tch_pair_state* s = tch_pair_state_touch(&t, i, i + 1, 2);
        ENSURE(s->fresh == 1 && s->bytes[0] == (unsigned char)(i & 0xff));
        s->initialised = i != 4; /* pair (4, 5) was only touched by non-committing evaluations */
    }
    tch_pair_state_sweep(&t, 2);
    ENSURE(t.count == 250);
    ENSURE(t.slots[1].geom_a == 2 && t.slots[1].fresh == 0);
    ENSURE(tch_pair_state_find(&t, 4, 5)->fresh == 1);
    ENSURE(tch_pair_state_find(&t, 3, 4) == NULL);
    ENSURE(tch_pair_state_find(&t, 4, 5)->bytes[0] == 4);
    tch_pair_state_destroy(&t);
}

static void test_a_warm_table_allocates_nothing(void) {
    tch_pair_state_table t;
    tch_pair_state_init(&t);
    for (long step = 1; step <= 20; ++step) {
        for (int i = 0; i < 100; ++i) {
            tch_pair_state_touch(&t, i, (int)(i + step % 3 + 1), step);
        }
        tch_pair_state_sweep(&t, step);
        if (step == 5) {
            ENSURE(t.allocation_count > 0);
        }
    }
    long warm = t.allocation_count;
    for (long step = 21; step <= 40; ++step) {
        for (int i = 0; i < 100; ++i) {
            tch_pair_state_touch(&t, i, (int)(i + step % 3 + 1), step);
        }
        tch_pair_state_sweep(&t, step);
    }
    ENSURE(t.allocation_count == warm);
    tch_pair_state_destroy(&t);
}

int main(void) {
    RUN_TEST(test_slots_are_created_found_and_swept);
    RUN_TEST(test_a_warm_table_allocates_nothing);
    return TEST_RESULT();
}
