// render_watch.so: counts heap allocations and mutex locks made on watched threads of a
// running bendsynth. `make bench` (Benchmarks/realtime.sh) preloads it with LD_PRELOAD.
// The allocation counting is the tests' interposer, included whole; this file adds
// pthread_mutex_lock/trylock. bendsynth's render thread asks to be watched when these
// symbols exist (BendSystem.RenderThreadWatch, through dlsym) and `play --load-stats`
// prints the counts.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include "../Sources/CAllocCounter/alloc_counter.c"

static uint64_t locks;
static int (*real_mutex_lock)(pthread_mutex_t *);
static int (*real_mutex_trylock)(pthread_mutex_t *);

__attribute__((constructor)) static void render_watch_init(void) {
    real_mutex_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    real_mutex_trylock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_trylock");
}

static inline void note_lock(void) {
    if (alloc_counter_watched) __atomic_add_fetch(&locks, 1, __ATOMIC_RELAXED);
}

uint64_t render_watch_locks(void) { return __atomic_load_n(&locks, __ATOMIC_RELAXED); }

int pthread_mutex_lock(pthread_mutex_t *m) {
    note_lock();
    return real_mutex_lock ? real_mutex_lock(m) : 0;
}
int pthread_mutex_trylock(pthread_mutex_t *m) {
    note_lock();
    return real_mutex_trylock ? real_mutex_trylock(m) : 0;
}
