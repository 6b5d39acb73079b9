/* The worker pool (base/workers.h): the fixed partition, each index covered exactly once for
 * every thread count, results written per part independent of the thread count, and a pool
 * reused for many loops. */
#include "base/workers.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "test.h"

#define MAX_INDICES 10007

typedef struct coverage {
    atomic_int hits[MAX_INDICES];
    int part_begin[64], part_end[64];
    atomic_int part_calls[64];
} coverage;

static void count_hits(void* context, int part, int begin, int end) {
    coverage* c = context;
    c->part_begin[part] = begin;
    c->part_end[part] = end;
    atomic_fetch_add(&c->part_calls[part], 1);
    for (int i = begin; i < end; ++i) {
        atomic_fetch_add(&c->hits[i], 1);
    }
}

/* Runs one loop and checks: every index once, every part once, parts contiguous, in order
 * and equal to floor(count k / parts). */
static int covers_once(tch_workers* pool, int count, int parts) {
    coverage* c = calloc(1, sizeof *c);
    tch_workers_parallel_for(pool, count, parts, count_hits, c);
    int ok = 1;
    for (int i = 0; i < count; ++i) ok &= atomic_load(&c->hits[i]) == 1;
    for (int k = 0; k < parts; ++k) {
        ok &= atomic_load(&c->part_calls[k]) == 1;
        ok &= c->part_begin[k] == (int)((long long)count * k / parts);
        ok &= c->part_end[k] == (int)((long long)count * (k + 1) / parts);
    }
    free(c);
    return ok;
}

static void test_each_index_exactly_once(void) {
    static const int counts[] = {0, 1, 2, 7, 64, 1000, MAX_INDICES};
    static const int parts[] = {1, 2, 3, 8, 64};
    for (int threads = 1; threads <= 3; ++threads) {
        tch_workers* pool = NULL;
        ENSURE(tch_workers_create(threads, &pool, NULL) == TCH_OK);
        ENSURE(tch_workers_thread_count(pool) == threads);
        for (size_t i = 0; i < sizeof counts / sizeof counts[0]; ++i) {
            for (size_t j = 0; j < sizeof parts / sizeof parts[0]; ++j) {
                ENSURE(covers_once(pool, counts[i], parts[j]));
            }
        }
        tch_workers_destroy(pool);
    }
    ENSURE(covers_once(NULL, 100, 5)); /* no pool: the calling thread runs the parts */
    ENSURE(tch_workers_thread_count(NULL) == 1);
}

/* A floating-point sum per part, combined in part order: the same bits for 1, 2 and 3
 * threads (each part's sum depends on the part only). */
typedef struct sums {
    double values[4096];
    double part_sum[16];
} sums;

static void sum_part(void* context, int part, int begin, int end) {
    sums* s = context;
    double total = 0;
    for (int i = begin; i < end; ++i) total += s->values[i];
    s->part_sum[part] = total;
}

static double ordered_sum(tch_workers* pool, sums* s) {
    tch_workers_parallel_for(pool, 4096, 16, sum_part, s);
    double total = 0;
    for (int k = 0; k < 16; ++k) total += s->part_sum[k];
    return total;
}

static void test_per_part_results_independent_of_threads(void) {
    sums* s = calloc(1, sizeof *s);
    for (int i = 0; i < 4096; ++i) s->values[i] = 1.0 / (i + 1) * (i % 3 ? 1 : -1e-3);
    double reference = ordered_sum(NULL, s);
    for (int threads = 2; threads <= 3; ++threads) {
        tch_workers* pool = NULL;
        ENSURE(tch_workers_create(threads, &pool, NULL) == TCH_OK);
        for (int round = 0; round < 200; ++round) { /* many jobs on one pool */
            double total = ordered_sum(pool, s);
            ENSURE(memcmp(&total, &reference, sizeof total) == 0);
        }
        tch_workers_destroy(pool);
    }
    free(s);
}

static void test_bad_thread_count(void) {
    tch_workers* pool = (tch_workers*)&pool;
    tch_error err = {0};
    ENSURE(tch_workers_create(0, &pool, &err) == TCH_ERR_INVALID_ARGUMENT);
    ENSURE(pool == NULL);
    ENSURE(strstr(err.message, "expected 1 to") != NULL);
    ENSURE(tch_workers_create(TCH_WORKERS_MAX_THREADS + 1, &pool, NULL) ==
           TCH_ERR_INVALID_ARGUMENT);
    tch_workers_destroy(NULL);
}

int main(void) {
    RUN_TEST(test_each_index_exactly_once);
    RUN_TEST(test_per_part_results_independent_of_threads);
    RUN_TEST(test_bad_thread_count);
    return TEST_RESULT();
}
