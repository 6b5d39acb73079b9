#include "base/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

tch_status tch_fail(tch_error* err, tch_status status, const char* file, int line,
                    const char* format, ...) {
    if (!err) {
        return status;
    }
    err->status = status;
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
    tch_copy_string(err->file, sizeof err->file, file ? file : "");
    err->line = line;
    err->element[0] = '\0';
    return status;
}

void tch_error_set_element(tch_error* err, const char* element) {
    if (err) {
        tch_copy_string(err->element, sizeof err->element, element ? element : "");
    }
}

void tch_error_clear(tch_error* err) {
    if (err) {
        memset(err, 0, sizeof *err);
    }
}

void tch_copy_string(char* dst, size_t size, const char* src) {
    if (size == 0) {
        return;
    }
    size_t n = strlen(src);
    if (n >= size) {
        n = size - 1;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

#if defined(TCH_ENABLE_ASSERT)
void tch_assert_failed(const char* condition, const char* file, int line) {
    fprintf(stderr, "touche: internal invariant broken: %s at %s:%d\n", condition, file, line);
    abort();
}
#endif

const char* tch_status_name(tch_status status) {
    switch (status) {
    case TCH_OK: return "ok";
    case TCH_ERR_INVALID_ARGUMENT: return "invalid argument";
    case TCH_ERR_PARSE: return "parse error";
    case TCH_ERR_IO: return "i/o error";
    case TCH_ERR_OUT_OF_MEMORY: return "out of memory";
    case TCH_ERR_UNSUPPORTED: return "not supported";
    case TCH_ERR_NUMERICAL: return "numerical failure";
    case TCH_ERR_DIVERGED: return "diverged";
    }
    return "unknown status";
}

const char* tch_version(void) {
    return TOUCHE_VERSION;
}
