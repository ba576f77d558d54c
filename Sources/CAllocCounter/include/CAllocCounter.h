// SPDX-License-Identifier: GPL-3.0-or-later
// Test support: counts heap allocations made on threads that asked to be watched.
// The definitions of malloc & co. in alloc_counter.c interpose glibc's (an executable's
// own symbols win over libc.so's), forwarding to __libc_malloc & co.
#pragma once
#include <stdint.h>

/// Starts (1) or stops (0) counting allocations made on the calling thread.
void alloc_counter_watch_this_thread(int on);
/// Threads that started being watched so far (a thread counted once per start).
uint64_t alloc_counter_watched_threads(void);
/// Allocations (malloc, calloc, realloc, memalign family) counted so far, all threads.
uint64_t alloc_counter_count(void);
/// Sets the count back to 0.
void alloc_counter_reset(void);
