/* A single-producer, single-consumer "latest value" exchange (a triple buffer on C11 atomics):
 * the producer publishes without waiting, the consumer takes the newest published message
 * without waiting; older unread messages are overwritten. Lock-free, allocation-free. */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>

#include "haptics/render.h"
#include "touche/haptics.h"

typedef struct tch_haptic_message {
    tch_haptic_command command;
    tch_haptic_state state;
    tch_haptic_snapshot snapshot; /* the physics side's, for the haptic loop */
    tch_haptic_reaction reaction; /* the servo side's, for the haptic loop */
    tch_real time; /* s, when the producer made it */
} tch_haptic_message;

typedef struct tch_haptic_mailbox {
    tch_haptic_message slots[3];
    _Atomic unsigned middle; /* slot index, | MAILBOX_FRESH when published and not taken */
    unsigned back;           /* the producer's slot */
    unsigned front;          /* the consumer's slot */
} tch_haptic_mailbox;

void tch_haptic_mailbox_init(tch_haptic_mailbox* box);
/* Producer side. */
void tch_haptic_mailbox_publish(tch_haptic_mailbox* box, const tch_haptic_message* message);
/* Consumer side: true and the newest message when one was published since the last take. */
bool tch_haptic_mailbox_take(tch_haptic_mailbox* box, tch_haptic_message* message);
