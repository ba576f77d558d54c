// SPDX-License-Identifier: GPL-3.0-or-later
// A fake input device for tests: see include/CFakeEvdev.h. The ioctl answers follow
// drivers/input/evdev.c (evdev_do_ioctl, handle_eviocgbit, bits_to_user, str_to_user,
// evdev_handle_mt_request) and the client buffer follows its __pass_event.
#define _GNU_SOURCE
#include "CFakeEvdev.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVICES 8
#define MAX_SLOTS 64
#define BITS_PER_LONG_ (8 * sizeof(long))
#define NLONGS_(n) (((n) + BITS_PER_LONG_ - 1) / BITS_PER_LONG_)
#define MT_FIRST ABS_MT_TOUCH_MAJOR
#define MT_COUNT (ABS_MAX - ABS_MT_TOUCH_MAJOR + 1)

struct fake_device {
    int used;
    int read_fd, write_fd;
    dev_t st_dev;
    ino_t st_ino;
    char name[256];
    struct input_id id;
    unsigned long ev_bits[NLONGS_(EV_CNT)];
    unsigned long key_bits[NLONGS_(KEY_CNT)], rel_bits[NLONGS_(REL_CNT)], abs_bits[NLONGS_(ABS_CNT)];
    unsigned long msc_bits[NLONGS_(MSC_CNT)], led_bits[NLONGS_(LED_CNT)], snd_bits[NLONGS_(SND_CNT)];
    unsigned long ff_bits[NLONGS_(FF_CNT)], sw_bits[NLONGS_(SW_CNT)], prop_bits[NLONGS_(INPUT_PROP_CNT)];
    unsigned long key_state[NLONGS_(KEY_CNT)], led_state[NLONGS_(LED_CNT)];
    unsigned long snd_state[NLONGS_(SND_CNT)], sw_state[NLONGS_(SW_CNT)];
    struct input_absinfo abs[ABS_CNT];
    /// MT values by code (from ABS_MT_TOUCH_MAJOR) and slot; the slot MT events go to.
    int32_t mt[MT_COUNT][MAX_SLOTS];
    int slot;
    /// The client buffer (evdev_client): head, tail, packet_head, size a power of two.
    struct input_event *buffer;
    unsigned bufsize, head, tail, packet_head;
    int stalled;
    long counters[FAKE_EVDEV_COUNTERS];
};

static struct fake_device devices[MAX_DEVICES];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void set_bit_(unsigned long *bits, unsigned n, int on) {
    unsigned long mask = 1UL << (n % BITS_PER_LONG_);
    if (on) bits[n / BITS_PER_LONG_] |= mask; else bits[n / BITS_PER_LONG_] &= ~mask;
}

static int test_bit_(const unsigned long *bits, unsigned n) {
    return (bits[n / BITS_PER_LONG_] >> (n % BITS_PER_LONG_)) & 1;
}

/// The device behind `fd`: the same descriptor number AND the same pipe (a closed and
/// reused descriptor is not the device any more). Called with the lock held.
static struct fake_device *find(int fd) {
    for (int i = 0; i < MAX_DEVICES; i++) {
        struct fake_device *d = &devices[i];
        if (!d->used || d->read_fd != fd) continue;
        struct stat st;
        if (fstat(fd, &st) != 0 || st.st_dev != d->st_dev || st.st_ino != d->st_ino) return NULL;
        return d;
    }
    return NULL;
}

static int fail(int code) {
    errno = code;
    return -1;
}

int fake_evdev_create(const char *name, uint16_t bustype, uint16_t vendor, uint16_t product,
                      uint16_t version, int bufsize) {
    if (bufsize < 8 || bufsize > 4096 || (bufsize & (bufsize - 1))) return fail(EINVAL);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return -1;
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    struct stat st;
    fstat(fds[0], &st);
    pthread_mutex_lock(&lock);
    struct fake_device *d = NULL;
    for (int i = 0; i < MAX_DEVICES && !d; i++) if (!devices[i].used) d = &devices[i];
    if (!d) {
        pthread_mutex_unlock(&lock);
        close(fds[0]);
        close(fds[1]);
        return fail(ENOSPC);
    }
    memset(d, 0, sizeof(*d));
    d->used = 1;
    d->read_fd = fds[0];
    d->write_fd = fds[1];
    d->st_dev = st.st_dev;
    d->st_ino = st.st_ino;
    strncpy(d->name, name, sizeof(d->name) - 1);
    d->id = (struct input_id){ .bustype = bustype, .vendor = vendor, .product = product, .version = version };
    set_bit_(d->ev_bits, EV_SYN, 1);
    d->buffer = calloc((size_t)bufsize, sizeof(struct input_event));
    d->bufsize = (unsigned)bufsize;
    pthread_mutex_unlock(&lock);
    return fds[0];
}

static unsigned long *type_bits(struct fake_device *d, unsigned type, unsigned *max) {
    switch (type) {
    case 0: *max = EV_MAX; return d->ev_bits;
    case EV_KEY: *max = KEY_MAX; return d->key_bits;
    case EV_REL: *max = REL_MAX; return d->rel_bits;
    case EV_ABS: *max = ABS_MAX; return d->abs_bits;
    case EV_MSC: *max = MSC_MAX; return d->msc_bits;
    case EV_LED: *max = LED_MAX; return d->led_bits;
    case EV_SND: *max = SND_MAX; return d->snd_bits;
    case EV_FF: *max = FF_MAX; return d->ff_bits;
    case EV_SW: *max = SW_MAX; return d->sw_bits;
    default: return NULL;
    }
}

int fake_evdev_enable(int fd, uint16_t type, uint16_t code) {
    pthread_mutex_lock(&lock);
    struct fake_device *d = find(fd);
    unsigned max = 0;
    unsigned long *bits = d && type > 0 ? type_bits(d, type, &max) : NULL;
    int rc = 0;
    if (!bits || code > max) rc = fail(EINVAL);
    else {
        set_bit_(d->ev_bits, type, 1);
        set_bit_(bits, code, 1);
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

int fake_evdev_enable_property(int fd, uint16_t prop) {
    pthread_mutex_lock(&lock);
    struct fake_device *d = find(fd);
    int rc = 0;
    if (!d || prop > INPUT_PROP_MAX) rc = fail(EINVAL); else set_bit_(d->prop_bits, prop, 1);
    pthread_mutex_unlock(&lock);
    return rc;
}

int fake_evdev_set_abs(int fd, uint16_t code, int32_t minimum, int32_t maximum, int32_t resolution, int32_t value) {
    pthread_mutex_lock(&lock);
    struct fake_device *d = find(fd);
    int rc = 0;
    if (!d || code > ABS_MAX) rc = fail(EINVAL);
    else {
        set_bit_(d->ev_bits, EV_ABS, 1);
        set_bit_(d->abs_bits, code, 1);
        d->abs[code] = (struct input_absinfo){ .value = value, .minimum = minimum, .maximum = maximum, .resolution = resolution };
        if (code == ABS_MT_SLOT) d->slot = value;
        if (code == ABS_MT_TRACKING_ID)
            for (int s = 0; s < MAX_SLOTS; s++) d->mt[ABS_MT_TRACKING_ID - MT_FIRST][s] = -1;
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

/// The slots the device has (ABS_MT_SLOT's maximum + 1), 0 without slots.
static int slot_count(struct fake_device *d) {
    if (!test_bit_(d->abs_bits, ABS_MT_SLOT)) return 0;
    int n = d->abs[ABS_MT_SLOT].maximum + 1;
    return n < 0 ? 0 : n > MAX_SLOTS ? MAX_SLOTS : n;
}

/// Complete packets of the client buffer into the pipe (evdev_read returns only those).
static void flush(struct fake_device *d) {
    while (d->tail != d->packet_head) {
        struct input_event e = d->buffer[d->tail];
        d->tail = (d->tail + 1) & (d->bufsize - 1);
        if (write(d->write_fd, &e, sizeof(e)) == (ssize_t)sizeof(e)) d->counters[FAKE_EVDEV_EVENTS_WRITTEN]++;
    }
}

/// evdev.c __pass_event: the newest event in; on overflow every unread event goes,
/// leaving SYN_DROPPED and the newest one.
static void pass_event(struct fake_device *d, const struct input_event *e) {
    unsigned mask = d->bufsize - 1;
    d->buffer[d->head++] = *e;
    d->head &= mask;
    if (d->head == d->tail) {
        d->tail = (d->head - 2) & mask;
        d->buffer[d->tail] = (struct input_event){ .time = e->time, .type = EV_SYN, .code = SYN_DROPPED, .value = 0 };
        d->packet_head = d->tail;
        d->counters[FAKE_EVDEV_DROPS]++;
    }
    if (e->type == EV_SYN && e->code == SYN_REPORT) d->packet_head = d->head;
}

int fake_evdev_emit(int fd, uint16_t type, uint16_t code, int32_t value) {
    pthread_mutex_lock(&lock);
    struct fake_device *d = find(fd);
    if (!d) {
        pthread_mutex_unlock(&lock);
        return fail(EBADF);
    }
    // The device's state, as input_handle_event keeps it.
    switch (type) {
    case EV_KEY: if (code <= KEY_MAX) set_bit_(d->key_state, code, value != 0); break;
    case EV_LED: if (code <= LED_MAX) set_bit_(d->led_state, code, value != 0); break;
    case EV_SND: if (code <= SND_MAX) set_bit_(d->snd_state, code, value != 0); break;
    case EV_SW: if (code <= SW_MAX) set_bit_(d->sw_state, code, value != 0); break;
    case EV_ABS:
        if (code == ABS_MT_SLOT) {
            if (value >= 0 && value < slot_count(d)) d->slot = value;
            d->abs[ABS_MT_SLOT].value = d->slot;
        } else if (code >= MT_FIRST && code <= ABS_MAX && slot_count(d) > 0) {
            d->mt[code - MT_FIRST][d->slot] = value;
        } else if (code <= ABS_MAX) {
            d->abs[code].value = value;
        }
        break;
    default: break;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    struct input_event e = { .type = type, .code = code, .value = value };
    e.time.tv_sec = now.tv_sec;
    e.time.tv_usec = now.tv_nsec / 1000;
    pass_event(d, &e);
    if (!d->stalled) flush(d);
    pthread_mutex_unlock(&lock);
    return 0;
}

int fake_evdev_stall(int fd, int on) {
    pthread_mutex_lock(&lock);
    struct fake_device *d = find(fd);
    if (d) {
        d->stalled = on;
        if (!on) flush(d);
    }
    pthread_mutex_unlock(&lock);
    return d ? 0 : fail(EBADF);
}

long fake_evdev_count(int fd, int what) {
    pthread_mutex_lock(&lock);
    struct fake_device *d = find(fd);
    long n = d && what >= 0 && what < FAKE_EVDEV_COUNTERS ? d->counters[what] : -1;
    pthread_mutex_unlock(&lock);
    return n;
}

int fake_evdev_destroy(int fd) {
    pthread_mutex_lock(&lock);
    struct fake_device *d = NULL;
    for (int i = 0; i < MAX_DEVICES && !d; i++) if (devices[i].used && devices[i].read_fd == fd) d = &devices[i];
    if (d) {
        close(d->write_fd);
        free(d->buffer);
        memset(d, 0, sizeof(*d));
    }
    pthread_mutex_unlock(&lock);
    return d ? 0 : fail(EBADF);
}

/// bits_to_user: the bitmap up to `maxbit`, at most `size` bytes. - Returns: bytes copied.
static int bits_out(const unsigned long *bits, unsigned maxbit, unsigned size, void *arg) {
    unsigned len = (unsigned)(NLONGS_(maxbit + 1) * sizeof(long));
    if (len > size) len = size;
    memcpy(arg, bits, len);
    return (int)len;
}

/// One evdev ioctl of a fake device (evdev_do_ioctl). Called with the lock held.
static int answer(struct fake_device *d, unsigned long request, void *arg) {
    unsigned nr = _IOC_NR(request), size = _IOC_SIZE(request), dir = _IOC_DIR(request);
    d->counters[FAKE_EVDEV_IOCTLS]++;
    if (request == EVIOCGRAB) return 0;
    if (dir != _IOC_READ) return fail(EINVAL);
    switch (nr) {
    case 0x01: *(int *)arg = EV_VERSION; return 0;                             // EVIOCGVERSION
    case 0x02: memcpy(arg, &d->id, sizeof(d->id)); return 0;                   // EVIOCGID
    case 0x03: return fail(ENOSYS);                                            // EVIOCGREP: no EV_REP
    case 0x06: {                                                               // EVIOCGNAME(len)
        unsigned len = (unsigned)strlen(d->name) + 1;
        if (len > size) len = size;
        memcpy(arg, d->name, len);
        return (int)len;
    }
    case 0x07: case 0x08: return fail(ENOENT);                                 // EVIOCGPHYS, EVIOCGUNIQ
    case 0x09: return bits_out(d->prop_bits, INPUT_PROP_MAX, size, arg);       // EVIOCGPROP
    case 0x0a: {                                                               // EVIOCGMTSLOTS(len)
        int32_t *ip = arg;
        unsigned code = (unsigned)ip[0];
        int slots = slot_count(d);
        if (slots == 0 || code < MT_FIRST || code > ABS_MAX) return fail(EINVAL);
        int max = (int)((size - sizeof(int32_t)) / sizeof(int32_t));
        for (int i = 0; i < slots && i < max; i++) ip[1 + i] = d->mt[code - MT_FIRST][i];
        d->counters[FAKE_EVDEV_MTSLOTS_QUERIES]++;
        return 0;
    }
    case 0x18: d->counters[FAKE_EVDEV_KEY_QUERIES]++; return bits_out(d->key_state, KEY_MAX, size, arg);  // EVIOCGKEY
    case 0x19: return bits_out(d->led_state, LED_MAX, size, arg);              // EVIOCGLED
    case 0x1a: return bits_out(d->snd_state, SND_MAX, size, arg);              // EVIOCGSND
    case 0x1b: return bits_out(d->sw_state, SW_MAX, size, arg);                // EVIOCGSW
    default: break;
    }
    if (nr >= 0x20 && nr < 0x20 + EV_CNT) {                                    // EVIOCGBIT(ev, len)
        unsigned max = 0;
        unsigned long *bits = type_bits(d, nr - 0x20, &max);
        if (!bits) return fail(EINVAL);
        return bits_out(bits, max, size, arg);
    }
    if (nr >= 0x40 && nr < 0x40 + ABS_CNT) {                                   // EVIOCGABS(abs)
        unsigned code = nr - 0x40;
        if (!test_bit_(d->abs_bits, code)) return fail(EINVAL);
        struct input_absinfo info = d->abs[code];
        unsigned len = size < sizeof(info) ? size : (unsigned)sizeof(info);
        memcpy(arg, &info, len);
        d->counters[FAKE_EVDEV_ABS_QUERIES]++;
        return 0;
    }
    return fail(EINVAL);
}

/// Interposes libc's ioctl for the whole test executable: a fake device's descriptor is
/// answered here; any other goes to the kernel unchanged.
int ioctl(int fd, unsigned long request, ...) {
    va_list ap;
    va_start(ap, request);
    void *arg = va_arg(ap, void *);
    va_end(ap);
    pthread_mutex_lock(&lock);
    struct fake_device *d = _IOC_TYPE(request) == 'E' ? find(fd) : NULL;
    if (d) {
        int rc = answer(d, request, arg);
        pthread_mutex_unlock(&lock);
        return rc;
    }
    pthread_mutex_unlock(&lock);
    return (int)syscall(SYS_ioctl, fd, request, arg);
}
