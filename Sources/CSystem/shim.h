/* The runtime's (BendSystem's) view of glibc calls Swift's Glibc module does not show.
 *
 * glibc declares ppoll, accept4 and pthread_setname_np only under the _GNU_SOURCE
 * feature macro, and Swift's Glibc module is built without it; <sys/eventfd.h> is not
 * part of that module at all. The prototypes below are glibc's own (ppoll(2),
 * accept4(2), pthread_setname_np(3)); redeclaring them is harmless where a header
 * already did. They can go when Swift's Glibc module exports the GNU extensions. */
#ifndef BEND_CSYSTEM_H
#define BEND_CSYSTEM_H
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>

extern int ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout, const sigset_t *sigmask);
extern int accept4(int fd, struct sockaddr *addr, socklen_t *length, int flags);
extern int pthread_setname_np(pthread_t thread, const char *name);

/* ppoll(2): poll with a nanosecond timeout (NULL: wait forever), no signal mask change. */
static inline int bend_ppoll(struct pollfd *fds, nfds_t nfds, const struct timespec *timeout) {
    return ppoll(fds, nfds, timeout, NULL);
}
/* accept4(2): accept with SOCK_CLOEXEC/SOCK_NONBLOCK set atomically. */
static inline int bend_accept4(int fd, struct sockaddr *addr, socklen_t *length, int flags) {
    return accept4(fd, addr, length, flags);
}
/* pthread_setname_np(3): at most 15 bytes and a NUL, else ERANGE. */
static inline int bend_pthread_setname_np(pthread_t thread, const char *name) {
    return pthread_setname_np(thread, name);
}
/* eventfd(2), from <sys/eventfd.h>. */
static inline int bend_eventfd(unsigned int initial, int flags) { return eventfd(initial, flags); }
#endif
