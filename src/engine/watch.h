/* The watch (touche/watch.h): energy and penetration checked at the start of every step.
 * Owned by tch_data's internal part; allocated with the data, so a step allocates nothing. */
#pragma once

#include "engine/checkpoint_stream.h"
#include "touche/watch.h"

typedef struct tch_watch tch_watch;

/* A watch for data of `model`, with the default settings; NULL when out of memory. */
tch_watch* tch_watch_create(const tch_model* model);
void tch_watch_destroy(tch_watch* watch);
/* Forgets the account and the warnings: the next step starts a new one (tch_data_reset). */
void tch_watch_restart(tch_watch* watch);
/* The state was set by hand between steps (tch_data_set_body_state): the energy it changes is
 * input, not a gain. */
void tch_watch_note_state_set(tch_watch* watch);
/* Checks the state of `data` after tch_step_begin's evaluation: its energy against the start
 * plus the work put in, and its pairs' penetration. */
void tch_watch_step(const tch_model* model, tch_data* data, tch_watch* watch);
/* Writes or reads (s->reading) the watch's state for a checkpoint (engine/checkpoint.c); a
 * read sets s->failed on a short stream. */
void tch_watch_transfer(tch_stream* s, tch_watch* watch);
