// SPDX-License-Identifier: GPL-3.0-or-later
// CSampleRate: the C API as Swift imports it.
#include <samplerate.h>
