/* The triple buffer of mailbox.h. The three slots are owned one each by the producer (back),
 * the consumer (front) and the exchange (middle); publishing swaps back and middle, taking
 * swaps middle and front, each with one atomic exchange (acquire-release, so the slot's
 * contents are visible to the side that receives it). */
#include "haptics/mailbox.h"

enum { MAILBOX_FRESH = 4u, MAILBOX_INDEX = 3u };

void tch_haptic_mailbox_init(tch_haptic_mailbox* box) {
    box->front = 0;
    box->back = 2;
    atomic_init(&box->middle, 1u);
    for (int i = 0; i < 3; i++) {
        box->slots[i] = (tch_haptic_message){0};
    }
}

void tch_haptic_mailbox_publish(tch_haptic_mailbox* box, const tch_haptic_message* message) {
    box->slots[box->back] = *message;
    unsigned previous =
        atomic_exchange_explicit(&box->middle, box->back | MAILBOX_FRESH, memory_order_acq_rel);
    box->back = previous & MAILBOX_INDEX;
}

bool tch_haptic_mailbox_take(tch_haptic_mailbox* box, tch_haptic_message* message) {
    if (!(atomic_load_explicit(&box->middle, memory_order_relaxed) & MAILBOX_FRESH)) {
        return false;
    }
    unsigned previous = atomic_exchange_explicit(&box->middle, box->front, memory_order_acq_rel);
    box->front = previous & MAILBOX_INDEX;
    *message = box->slots[box->front];
    return true;
}
