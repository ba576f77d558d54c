// SPDX-License-Identifier: GPL-3.0-or-later
// Interposes glibc's allocator to count allocations on watched threads: linked into the
// test executable (CAllocCounter), and compiled into Benchmarks/render_watch.so, which
// `make bench` preloads into a real-time run (that file adds the mutex counting).
#include "CAllocCounter.h"
#include <stddef.h>
#include <errno.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

_Thread_local int alloc_counter_watched;
static uint64_t counted;
static uint64_t watched_threads;

static inline void note(void) {
    if (alloc_counter_watched) __atomic_add_fetch(&counted, 1, __ATOMIC_RELAXED);
}

void alloc_counter_watch_this_thread(int on) {
    if (on && !alloc_counter_watched) __atomic_add_fetch(&watched_threads, 1, __ATOMIC_RELAXED);
    alloc_counter_watched = on;
}
uint64_t alloc_counter_watched_threads(void) { return __atomic_load_n(&watched_threads, __ATOMIC_RELAXED); }
uint64_t alloc_counter_count(void) { return __atomic_load_n(&counted, __ATOMIC_RELAXED); }
void alloc_counter_reset(void) { __atomic_store_n(&counted, 0, __ATOMIC_RELAXED); }

void *malloc(size_t n) { note(); return __libc_malloc(n); }
void *calloc(size_t c, size_t n) { note(); return __libc_calloc(c, n); }
void *realloc(void *p, size_t n) { note(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { note(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { note(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    note();
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
