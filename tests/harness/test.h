/* The test harness: plain C programs, one per module, on a few macros.
 *
 *     static void test_sphere_volume(void) { ENSURE_NEAR(v, 4.18879, 1e-5); }
 *     int main(void) { RUN_TEST(test_sphere_volume); return TEST_RESULT(); }
 *
 * A failed ENSURE prints file:line and the values, marks the test failed and returns from the
 * test function. Every program ends with the plain line "N passed, N failed".
 */
#pragma once

#include <math.h>
#include <stdio.h>
#include <string.h>

static int tch_test_passed_count;
static int tch_test_failed_count;
static int tch_test_current_failed;

#define ENSURE(cond)                                                                   \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            fprintf(stderr, "%s:%d: ENSURE(%s) failed\n", __FILE__, __LINE__, #cond);   \
            tch_test_current_failed = 1;                                               \
            return;                                                                    \
        }                                                                              \
    } while (0)

/* |a - b| <= tol */
#define ENSURE_NEAR(a, b, tol)                                                         \
    do {                                                                               \
        double ensure_a_ = (double)(a), ensure_b_ = (double)(b), ensure_t_ = (tol);    \
        if (!(fabs(ensure_a_ - ensure_b_) <= ensure_t_)) {                             \
            fprintf(stderr, "%s:%d: ENSURE_NEAR(%s, %s) failed: %.17g vs %.17g (tol %g)\n", \
                    __FILE__, __LINE__, #a, #b, ensure_a_, ensure_b_, ensure_t_);      \
            tch_test_current_failed = 1;                                               \
            return;                                                                    \
        }                                                                              \
    } while (0)

/* |a - b| <= tol * max(|b|, tiny) */
#define ENSURE_REL(a, b, tol)                                                          \
    ENSURE_NEAR(a, b, (tol) * fmax(fabs((double)(b)), 1e-300))

#define RUN_TEST(fn)                                                                   \
    do {                                                                               \
        tch_test_current_failed = 0;                                                   \
        fn();                                                                          \
        if (tch_test_current_failed) {                                                 \
            tch_test_failed_count++;                                                   \
            fprintf(stderr, "FAIL %s\n", #fn);                                         \
        } else {                                                                       \
            tch_test_passed_count++;                                                   \
            printf("ok   %s\n", #fn);                                                  \
        }                                                                              \
    } while (0)

#define TEST_RESULT()                                                                  \
    (printf("%d passed, %d failed\n", tch_test_passed_count, tch_test_failed_count),   \
     tch_test_failed_count == 0 ? 0 : 1)
