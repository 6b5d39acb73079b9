/* The byte stream a checkpoint is written to and read from (engine/checkpoint.c,
 * docs/checkpoints.md): the engine's parts that keep state between steps (the watch, the
 * implicit integrator's cache) put and get their own fields through it. Values are stored as
 * their bytes in memory (the file is for the same build and architecture; its header says
 * which). */
#pragma once

#include <stddef.h>

typedef struct tch_stream {
    unsigned char* bytes;
    size_t size;       /* bytes written, or the bytes there are to read */
    size_t capacity;   /* writing: allocated */
    size_t at;         /* reading: the next byte */
    int failed;        /* writing: out of memory; reading: read past the end or a bad value */
    int reading;       /* 1: a load (tch_stream_transfer reads), 0: a save (it writes) */
} tch_stream;

/* Appends n bytes (sets failed when out of memory). */
void tch_stream_put(tch_stream* s, const void* bytes, size_t n);
/* Reads n bytes into out; zeroes them and sets failed past the end. Returns !failed. */
int tch_stream_get(tch_stream* s, void* out, size_t n);

/* A count written by put_count and read back by get_count, which fails (and returns 0) when
 * it is negative or above `most`. */
void tch_stream_put_count(tch_stream* s, long count);
long tch_stream_get_count(tch_stream* s, long most);

/* Writes or reads n bytes, as s->reading says: one list of fields serves both directions. */
void tch_stream_transfer(tch_stream* s, void* bytes, size_t n);

#define TCH_TRANSFER(s, value) tch_stream_transfer((s), &(value), sizeof(value))
#define TCH_PUT(s, value) tch_stream_put((s), &(value), sizeof(value))
#define TCH_GET(s, value) tch_stream_get((s), &(value), sizeof(value))

/* In-memory copies of a data's state, the checkpoint's payload without its header
 * (engine/derivatives.c restores one before each perturbed step). The stream is reused: save
 * overwrites it, restore reads it from its start. Each returns 0 when out of memory (save) or
 * when the stream does not fit the model (restore: then reset the data). */
struct tch_model;
struct tch_data;
int tch_snapshot_save(const struct tch_model* m, const struct tch_data* d, tch_stream* s);
int tch_snapshot_restore(const struct tch_model* m, struct tch_data* d, tch_stream* s);
