// SPDX-License-Identifier: GPL-3.0-or-later
// Test support only: a fake input device behind a pipe, so that libevdev's real code
// (libevdev_new_from_fd, and the state sync after SYN_DROPPED through
// LIBEVDEV_READ_FLAG_SYNC) runs in tests without uinput or /dev/input.
//
// fake_evdev.c defines ioctl(): an executable's own symbols win over libc.so's, so the
// calls libevdev.so makes land there. For a descriptor made by fake_evdev_create it answers
// the evdev ioctls (EVIOCGVERSION, EVIOCGID, EVIOCGNAME, EVIOCGPHYS/UNIQ (none), EVIOCGPROP,
// EVIOCGBIT, EVIOCGKEY/LED/SND/SW, EVIOCGABS, EVIOCGMTSLOTS, EVIOCGRAB) from the device's
// state, as drivers/input/evdev.c does; every other descriptor goes to the kernel.
//
// The device's state changes by the events the test emits, as the kernel's does
// (ABS_MT_SLOT selects the slot the MT values go to; keys, abs values). Events go through
// a model of the kernel's per-client buffer (evdev.c's __pass_event): when it is full,
// every unread event is dropped, leaving SYN_DROPPED and the newest event. Complete packets
// (up to a SYN_REPORT) reach the pipe at once, unless the test stalls the device: then
// they stay in the buffer (the reader is not reading) until fake_evdev_stall(fd, 0).
#pragma once
#include <stdint.h>

/// Makes a device with no capabilities yet. `bufsize`: events the client buffer holds
/// (a power of two, 8…4096; the kernel's minimum is 64). - Returns: the descriptor to
/// read it from (the read end of a pipe, non-blocking), or -1 with errno.
int fake_evdev_create(const char *name, uint16_t bustype, uint16_t vendor, uint16_t product,
                      uint16_t version, int bufsize);
/// Declares an event type and code (EV_KEY/BTN_TOUCH, EV_ABS/ABS_X, …). - Returns: 0, or -1.
int fake_evdev_enable(int fd, uint16_t type, uint16_t code);
/// Declares an input property (INPUT_PROP_DIRECT, …).
int fake_evdev_enable_property(int fd, uint16_t prop);
/// Declares an absolute axis with its range, resolution and current value.
int fake_evdev_set_abs(int fd, uint16_t code, int32_t minimum, int32_t maximum, int32_t resolution, int32_t value);
/// The device sends one event: its state changes, the event goes into the client buffer.
int fake_evdev_emit(int fd, uint16_t type, uint16_t code, int32_t value);
/// on = 1: the reader stalls (events stay in the client buffer, which may overflow);
/// on = 0: what the buffer holds in complete packets reaches the pipe.
int fake_evdev_stall(int fd, int on);

/// Counters, by `what`.
enum {
    FAKE_EVDEV_DROPS = 0,         ///< SYN_DROPPEDs the buffer inserted (overflows)
    FAKE_EVDEV_MTSLOTS_QUERIES,   ///< EVIOCGMTSLOTS ioctls answered
    FAKE_EVDEV_KEY_QUERIES,       ///< EVIOCGKEY ioctls answered
    FAKE_EVDEV_ABS_QUERIES,       ///< EVIOCGABS ioctls answered
    FAKE_EVDEV_IOCTLS,            ///< every ioctl answered for the device
    FAKE_EVDEV_EVENTS_WRITTEN,    ///< events that reached the pipe
    FAKE_EVDEV_COUNTERS
};
long fake_evdev_count(int fd, int what);

/// Forgets the device and closes the pipe's write end (not the read end: the reader owns it).
int fake_evdev_destroy(int fd);
