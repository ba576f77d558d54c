// render_watch.so: counts heap allocations and mutex locks made on watched threads of a
// running bendsynth (`make bench` preloads it with LD_PRELOAD; nothing else uses it).
// bendsynth's render thread asks to be watched when this library is present
// (BendSystem.RenderThreadWatch looks these symbols up with dlsym) and prints the
// counts at the end of `play --load-stats`.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static _Thread_local int watched;
static uint64_t allocations, locks;
static int (*real_mutex_lock)(pthread_mutex_t *);
static int (*real_mutex_trylock)(pthread_mutex_t *);

__attribute__((constructor)) static void render_watch_init(void) {
    real_mutex_lock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_lock");
    real_mutex_trylock = (int (*)(pthread_mutex_t *))dlsym(RTLD_NEXT, "pthread_mutex_trylock");
}

static inline void note_allocation(void) { if (watched) __atomic_add_fetch(&allocations, 1, __ATOMIC_RELAXED); }
static inline void note_lock(void) { if (watched) __atomic_add_fetch(&locks, 1, __ATOMIC_RELAXED); }

void render_watch_this_thread(int on) { watched = on; }
uint64_t render_watch_allocations(void) { return __atomic_load_n(&allocations, __ATOMIC_RELAXED); }
uint64_t render_watch_locks(void) { return __atomic_load_n(&locks, __ATOMIC_RELAXED); }

void *malloc(size_t n) { note_allocation(); return __libc_malloc(n); }
void *calloc(size_t c, size_t n) { note_allocation(); return __libc_calloc(c, n); }
void *realloc(void *p, size_t n) { note_allocation(); return __libc_realloc(p, n); }
void free(void *p) { __libc_free(p); }
void *memalign(size_t a, size_t n) { note_allocation(); return __libc_memalign(a, n); }
void *aligned_alloc(size_t a, size_t n) { note_allocation(); return __libc_memalign(a, n); }
int posix_memalign(void **out, size_t a, size_t n) {
    note_allocation();
    void *p = __libc_memalign(a, n);
    if (!p) return ENOMEM;
    *out = p;
    return 0;
}
int pthread_mutex_lock(pthread_mutex_t *m) {
    note_lock();
    return real_mutex_lock ? real_mutex_lock(m) : 0;
}
int pthread_mutex_trylock(pthread_mutex_t *m) {
    note_lock();
    return real_mutex_trylock ? real_mutex_trylock(m) : 0;
}
