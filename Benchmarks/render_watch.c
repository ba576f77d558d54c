// SPDX-License-Identifier: GPL-3.0-or-later
// render_watch.so: counts heap allocations and mutex locks made on watched threads of a
// running bendsynth. `make bench` (Benchmarks/realtime.sh) preloads it with LD_PRELOAD.
// The allocation counting is the tests' interposer, included whole; this file adds
// pthread_mutex_lock/trylock. bendsynth's render thread asks to be watched when these
// symbols exist (BendSystem.RenderThreadWatch, through dlsym) and `play --load-stats`
// prints the counts.
// A lock whose caller (the return address of this pthread_mutex_lock) is in alsa-lib,
// one of its plugins (the `jack` PCM) or libjack is also counted as the device's own:
// e.g. the `jack` PCM's start callback (snd_pcm_jack_start) locks its mutex when a
// snd_pcm_writei restarts the stream after an xrun. dladdr runs only on a watched
// thread's lock, which is already a finding.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include "../Sources/CAllocCounter/alloc_counter.c"

static uint64_t locks, device_locks;
static int (*real_mutex_lock)(pthread_mutex_t *);
static int (*real_mutex_trylock)(pthread_mutex_t *);

__attribute__((constructor)) static void render_watch_init(void) {
    real_mutex_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    real_mutex_trylock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_trylock");
}

static int in_device_library(void *caller) {
    Dl_info info;
    if (!dladdr(caller, &info) || !info.dli_fname) return 0;
    const char *f = info.dli_fname;
    return strstr(f, "/libasound.so") || strstr(f, "/alsa-lib/") || strstr(f, "/libjack.so");
}

static inline void note_lock(void *caller) {
    if (!alloc_counter_watched) return;
    __atomic_add_fetch(&locks, 1, __ATOMIC_RELAXED);
    if (in_device_library(caller)) __atomic_add_fetch(&device_locks, 1, __ATOMIC_RELAXED);
}

uint64_t render_watch_locks(void) { return __atomic_load_n(&locks, __ATOMIC_RELAXED); }
/// Those of `render_watch_locks` taken by alsa-lib, its plugins or libjack.
uint64_t render_watch_device_locks(void) { return __atomic_load_n(&device_locks, __ATOMIC_RELAXED); }

__attribute__((noinline)) int pthread_mutex_lock(pthread_mutex_t *m) {
    note_lock(__builtin_return_address(0));
    return real_mutex_lock ? real_mutex_lock(m) : 0;
}
__attribute__((noinline)) int pthread_mutex_trylock(pthread_mutex_t *m) {
    note_lock(__builtin_return_address(0));
    return real_mutex_trylock ? real_mutex_trylock(m) : 0;
}
