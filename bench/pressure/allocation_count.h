/* Counts heap allocations in a program linked with -Wl,--wrap=malloc -Wl,--wrap=calloc
 * -Wl,--wrap=realloc: every call of those three from the program and from the static library
 * linked into it bumps pb_allocations (atomically: worker threads allocate too). Include it in
 * exactly one file of the program (it defines the wrappers). Used by bench_pressure and by
 * tests/contact/test_pressure_threads.c. */
#pragma once

#include <stdatomic.h>
#include <stddef.h>

static atomic_long pb_allocations;

void* __real_malloc(size_t size);
void* __real_calloc(size_t n, size_t size);
void* __real_realloc(void* p, size_t size);
void* __wrap_malloc(size_t size);
void* __wrap_calloc(size_t n, size_t size);
void* __wrap_realloc(void* p, size_t size);

void* __wrap_malloc(size_t size) {
    atomic_fetch_add(&pb_allocations, 1);
    return __real_malloc(size);
}

void* __wrap_calloc(size_t n, size_t size) {
    atomic_fetch_add(&pb_allocations, 1);
    return __real_calloc(n, size);
}

void* __wrap_realloc(void* p, size_t size) {
    atomic_fetch_add(&pb_allocations, 1);
    return __real_realloc(p, size);
}
