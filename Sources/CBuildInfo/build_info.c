// SPDX-License-Identifier: GPL-3.0-or-later
#include "build_info.h"

#ifndef BENDSYNTH_VERSION
#define BENDSYNTH_VERSION "unknown"
#endif

const char *bendsynth_build_version(void) { return BENDSYNTH_VERSION; }
