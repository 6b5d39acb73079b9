/* A small pool of worker threads for deterministic parallel loops.
 *
 * A pool of n threads is the calling thread plus n - 1 POSIX threads started once by
 * tch_workers_create and stopped by tch_workers_destroy; it keeps no global state, so every
 * owner (e.g. one tch_data's pressure-model scratch) creates its own, lazily, when it is asked
 * to use more than one thread.
 *
 * tch_workers_parallel_for(pool, count, parts, task, context) cuts the index range [0, count)
 * into `parts` contiguous pieces fixed by (count, parts) alone,
 *
 *     part k = [floor(count k / parts), floor(count (k + 1) / parts)),   k = 0 .. parts - 1,
 *
 * and calls task(context, k, begin, end) once for each part; which thread runs which part is
 * decided at run time (threads claim the next unclaimed part), so a task that writes only to
 * storage of its own part gives results independent of the thread count and of scheduling.
 * The call returns when every part has finished. It makes no heap allocation and never fails:
 * with a NULL pool or a pool of one thread the parts run in order on the calling thread.
 *
 * Claiming: the job's generation and the next part share one 64-bit atomic, so a thread that
 * wakes late for an old job can never claim a part of a newer one. A pool runs one loop at a
 * time and must not be used from inside its own tasks.
 */
#pragma once

#include "base/error.h"

typedef struct tch_workers tch_workers;

/* One part of a loop: the indices [begin, end) of part `part`. */
typedef void (*tch_workers_task)(void* context, int part, int begin, int end);

/* Most threads a pool holds (the calling thread included). */
#define TCH_WORKERS_MAX_THREADS 64

/* Starts a pool of thread_count threads (1 .. TCH_WORKERS_MAX_THREADS; the caller is one of
 * them). Errors: TCH_ERR_INVALID_ARGUMENT for a count out of range, TCH_ERR_OUT_OF_MEMORY
 * when memory or a thread cannot be had (nothing is left running then). */
tch_status tch_workers_create(int thread_count, tch_workers** out, tch_error* err);
/* Stops and joins the threads and frees the pool. NULL allowed. */
void tch_workers_destroy(tch_workers* workers);
/* Threads of the pool, the calling thread included; 1 for NULL. */
int tch_workers_thread_count(const tch_workers* workers);

/* Runs task over the parts of [0, count) described above and waits for all of them.
 * count >= 0; parts >= 1 (parts > count gives some empty parts, still called). */
void tch_workers_parallel_for(tch_workers* workers, int count, int parts, tch_workers_task task,
                              void* context);
