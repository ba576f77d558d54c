// SPDX-License-Identifier: GPL-3.0-or-later
/* The runtime's (BendSystem's) view of glibc calls Swift's Glibc module does not show.
 *
 * glibc declares ppoll, pthread_setname_np (and, in <sys/eventfd.h>, which Swift's Glibc
 * module leaves out, eventfd) only under the _GNU_SOURCE feature macro, and that module
 * is built without it. The prototypes below are glibc's own (ppoll(2),
 * pthread_setname_np(3), eventfd(2)), with the types spelt as glibc defines them on
 * Linux (nfds_t and pthread_t are unsigned long). They can go when Swift's Glibc module
 * exports the GNU extensions.
 *
 * This header includes no system header on purpose: a header parsed here as well as in
 * Glibc would have its names (struct timespec, POLLIN, …) claimed by this module in some
 * compile orders and vanish from files that import only Glibc — the intermittent "cannot
 * find 'SOCK_STREAM'" of Sources/CBluetooth/shim.h. So the wrappers take untyped pointers. */
#ifndef BEND_CSYSTEM_H
#define BEND_CSYSTEM_H

struct pollfd;
struct timespec;

extern int ppoll(struct pollfd *fds, unsigned long nfds, const struct timespec *timeout, const void *sigmask);
extern int pthread_setname_np(unsigned long thread, const char *name);
extern int eventfd(unsigned int initial, int flags);
extern int gettid(void);

/* ppoll(2): poll `nfds` `struct pollfd`s with a `struct timespec` timeout (NULL: wait
 * forever), the signal mask unchanged. */
static inline int bend_ppoll(void *fds, unsigned long nfds, const void *timeout) {
    return ppoll((struct pollfd *)fds, nfds, (const struct timespec *)timeout, 0);
}
/* pthread_setname_np(3): at most 15 bytes and a NUL, else ERANGE. */
static inline int bend_pthread_setname_np(unsigned long thread, const char *name) {
    return pthread_setname_np(thread, name);
}
/* eventfd(2); its flags EFD_CLOEXEC and EFD_NONBLOCK are O_CLOEXEC and O_NONBLOCK. */
static inline int bend_eventfd(unsigned int initial, int flags) { return eventfd(initial, flags); }
/* gettid(2): the calling thread's kernel id (what RTKit's MakeThreadRealtime takes). */
static inline int bend_gettid(void) { return gettid(); }
#endif
