// SPDX-License-Identifier: GPL-3.0-or-later
// CFFTW: FFTW 3's double-precision C API as Swift imports it (the band-limited tone
// levels: exact periodic band-limiting and oversampling of a looping tone).
#include <fftw3.h>
