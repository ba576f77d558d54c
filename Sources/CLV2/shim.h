// SPDX-License-Identifier: GPL-3.0-or-later
// CLV2: the LV2 plugin API (Debian's lv2-dev, header-only) as Swift imports it: the
// descriptor, URID mapping, atoms (sequences, the forge), MIDI, the worker, state,
// log, options and buffer sizes. Nothing to link: a host passes every function in.
#include <lv2/core/lv2.h>
#include <lv2/core/lv2_util.h>
#include <lv2/atom/atom.h>
#include <lv2/atom/forge.h>
#include <lv2/atom/util.h>
#include <lv2/buf-size/buf-size.h>
#include <lv2/log/log.h>
#include <lv2/midi/midi.h>
#include <lv2/options/options.h>
#include <lv2/patch/patch.h>
#include <lv2/state/state.h>
#include <lv2/urid/urid.h>
#include <lv2/worker/worker.h>

// LV2_Log_Log.printf is variadic, which Swift cannot call through a function pointer:
// this passes one ready-made line (Swift formats it) as "%s". Can go when Swift calls
// C variadic function pointers.
static inline int clv2_log(const LV2_Log_Log *log, LV2_URID type, const char *line) {
    return log->printf(log->handle, type, "%s", line);
}
