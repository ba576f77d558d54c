// SPDX-License-Identifier: GPL-3.0-or-later
// CSndFile: the C API as Swift imports it.
#include <sndfile.h>

// SF_INSTRUMENT's `loops` is an array of an anonymous struct, which Swift does not
// import (the member is missing from the imported type). These read and write loop `i`
// (0…15) of an SF_INSTRUMENT; they can go when Swift imports anonymous struct arrays.
typedef struct { int mode; unsigned int start; unsigned int end; unsigned int count; } csndfile_loop;

static inline csndfile_loop csndfile_instrument_loop(const SF_INSTRUMENT *instrument, int i) {
    csndfile_loop loop = { instrument->loops[i].mode, instrument->loops[i].start, instrument->loops[i].end, instrument->loops[i].count };
    return loop;
}

static inline void csndfile_set_instrument_loop(SF_INSTRUMENT *instrument, int i, csndfile_loop loop) {
    instrument->loops[i].mode = loop.mode;
    instrument->loops[i].start = loop.start;
    instrument->loops[i].end = loop.end;
    instrument->loops[i].count = loop.count;
}
