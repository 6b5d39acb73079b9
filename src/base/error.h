/* Errors and internal assertions.
 *
 * Library code reports failures by returning a tch_status and filling the caller's tch_error
 * (which may be NULL). tch_fail() does both in one line:
 *
 *     return tch_fail(err, TCH_ERR_PARSE, file, line, "box size must be positive, got %g", s);
 *
 * TCH_ASSERT guards internal invariants only, never input: it is compiled in for Debug and
 * RelWithDebInfo builds and aborts with a location, which is the one place the library may stop
 * a process (a broken invariant is a bug in touche, not a user error).
 */
#pragma once

#include "touche/base.h"

/* Fills err (when not NULL) and returns status. `file` may be NULL, `line` 0. */
tch_status tch_fail(tch_error* err, tch_status status, const char* file, int line,
                    const char* format, ...) __attribute__((format(printf, 5, 6)));

/* Sets the element name of an error already filled (for XML loaders). */
void tch_error_set_element(tch_error* err, const char* element);

/* Clears err to TCH_OK with empty message. NULL is allowed. */
void tch_error_clear(tch_error* err);

/* Copies at most size-1 characters and always terminates. */
void tch_copy_string(char* dst, size_t size, const char* src);

#if defined(TCH_ENABLE_ASSERT)
void tch_assert_failed(const char* condition, const char* file, int line);
#define TCH_ASSERT(c) ((c) ? (void)0 : tch_assert_failed(#c, __FILE__, __LINE__))
#else
#define TCH_ASSERT(c) ((void)0)
#endif
