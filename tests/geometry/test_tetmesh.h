/* Helpers shared by the tet mesh tests. */
#pragma once

#include <stdio.h>

#include "test.h"

/* `check` returns NULL when all is well, else the reason, which is printed before failing. */
#define ENSURE_NO_REASON(check)                                                          \
    do {                                                                                 \
        const char* why_ = (check);                                                      \
        if (why_) {                                                                      \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, why_);                    \
        }                                                                                \
        ENSURE(why_ == NULL);                                                            \
    } while (0)
