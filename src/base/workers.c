/* Worker pool for deterministic parallel loops (see workers.h). */
#define _POSIX_C_SOURCE 200809L
#include "base/workers.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

/* The loop being run. */
typedef struct job {
    tch_workers_task task;
    void* context;
    int count;
    int parts;
} job;

struct tch_workers {
    int thread_count;
    int started;                 /* threads running besides the caller */
    pthread_t threads[TCH_WORKERS_MAX_THREADS - 1];
    pthread_mutex_t mutex;
    pthread_cond_t work;         /* a new job or shutdown */
    pthread_cond_t finished;     /* the last part of the job finished */
    /* under mutex */
    uint32_t generation;         /* of the current job, counted from 1 */
    int shutdown;
    job current;
    /* lock-free */
    _Atomic uint64_t claim;      /* generation << 32 | next part to hand out */
    atomic_int parts_done;
};

static int part_bound(const job* j, int k) {
    return (int)((long long)j->count * k / j->parts);
}

/* Claims the next part of job `generation`; -1 when none is left (or the job is over). */
static int claim_part(tch_workers* w, uint32_t generation, int parts) {
    uint64_t seen = atomic_load(&w->claim);
    for (;;) {
        int next = (int)(seen & 0xffffffffu);
        if ((uint32_t)(seen >> 32) != generation || next >= parts) {
            return -1;
        }
        if (atomic_compare_exchange_weak(&w->claim, &seen, seen + 1)) {
            return next;
        }
    }
}

/* Runs parts of the job until none is left; the thread finishing the last part wakes the
 * caller. */
static void run_parts(tch_workers* w, uint32_t generation, job j) {
    int k;
    while ((k = claim_part(w, generation, j.parts)) >= 0) {
        j.task(j.context, k, part_bound(&j, k), part_bound(&j, k + 1));
        if (atomic_fetch_add(&w->parts_done, 1) + 1 == j.parts) {
            pthread_mutex_lock(&w->mutex);
            pthread_cond_signal(&w->finished);
            pthread_mutex_unlock(&w->mutex);
        }
    }
}

static void* worker_main(void* arg) {
    tch_workers* w = arg;
    uint32_t seen = 0;
    pthread_mutex_lock(&w->mutex);
    for (;;) {
        while (!w->shutdown && w->generation == seen) {
            pthread_cond_wait(&w->work, &w->mutex);
        }
        if (w->shutdown) {
            break;
        }
        seen = w->generation;
        job j = w->current;
        pthread_mutex_unlock(&w->mutex);
        run_parts(w, seen, j);
        pthread_mutex_lock(&w->mutex);
    }
    pthread_mutex_unlock(&w->mutex);
    return NULL;
}

/* Stops the threads started so far and frees the pool. */
static void stop(tch_workers* w) {
    pthread_mutex_lock(&w->mutex);
    w->shutdown = 1;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->mutex);
    for (int i = 0; i < w->started; ++i) {
        pthread_join(w->threads[i], NULL);
    }
    pthread_cond_destroy(&w->work);
    pthread_cond_destroy(&w->finished);
    pthread_mutex_destroy(&w->mutex);
    free(w);
}

tch_status tch_workers_create(int thread_count, tch_workers** out, tch_error* err) {
    *out = NULL;
    if (thread_count < 1 || thread_count > TCH_WORKERS_MAX_THREADS) {
        return tch_fail(err, TCH_ERR_INVALID_ARGUMENT, NULL, 0,
                        "a worker pool of %d threads; expected 1 to %d", thread_count,
                        TCH_WORKERS_MAX_THREADS);
    }
    tch_workers* w = calloc(1, sizeof *w);
    if (!w) {
        return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0, "out of memory for a worker pool");
    }
    w->thread_count = thread_count;
    atomic_init(&w->claim, 0);
    atomic_init(&w->parts_done, 0);
    pthread_mutex_init(&w->mutex, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->finished, NULL);
    for (; w->started < thread_count - 1; ++w->started) {
        if (pthread_create(&w->threads[w->started], NULL, worker_main, w) != 0) {
            int started = w->started;
            stop(w);
            return tch_fail(err, TCH_ERR_OUT_OF_MEMORY, NULL, 0,
                            "could not start worker thread %d of %d", started + 1,
                            thread_count - 1);
        }
    }
    *out = w;
    return TCH_OK;
}

void tch_workers_destroy(tch_workers* workers) {
    if (workers) {
        stop(workers);
    }
}

int tch_workers_thread_count(const tch_workers* workers) {
    return workers ? workers->thread_count : 1;
}

void tch_workers_parallel_for(tch_workers* workers, int count, int parts, tch_workers_task task,
                              void* context) {
    job j = {task, context, count, parts};
    if (!workers || workers->thread_count == 1 || parts == 1) {
        for (int k = 0; k < parts; ++k) {
            task(context, k, part_bound(&j, k), part_bound(&j, k + 1));
        }
        return;
    }
    tch_workers* w = workers;
    pthread_mutex_lock(&w->mutex);
    uint32_t generation = ++w->generation;
    if (generation == 0) { /* wrapped after 2^32 jobs: 0 means "no job yet" to the threads */
        generation = w->generation = 1;
    }
    w->current = j;
    atomic_store(&w->parts_done, 0);
    atomic_store(&w->claim, (uint64_t)generation << 32);
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->mutex);
    run_parts(w, generation, j);
    pthread_mutex_lock(&w->mutex);
    while (atomic_load(&w->parts_done) < parts) {
        pthread_cond_wait(&w->finished, &w->mutex);
    }
    pthread_mutex_unlock(&w->mutex);
}
