// SPDX-License-Identifier: GPL-3.0-or-later
// CEvdev: libevdev (reading input devices) and the kernel's input event structs.
// libevdev wraps the ioctls Swift cannot call (EVIOCGBIT, EVIOCGABS(code), EVIOCGRAB
// through libevdev_grab), so no macro wrappers are needed beyond the one below.
#include <libevdev/libevdev.h>
#include <linux/input.h>
#include <sys/inotify.h>

/// sizeof(struct input_event): the unit of a raw read from an event node (24 bytes on
/// 64-bit glibc). Swift's MemoryLayout gives the same; kept here so tests can check it.
static inline int cevdev_input_event_size(void) { return (int)sizeof(struct input_event); }
