// SPDX-License-Identifier: GPL-3.0-or-later
/* MXCSR access for flushing denormals on the render thread. Swift has no access to
 * the SSE control register; these wrap the <xmmintrin.h> intrinsics. */
#ifndef BEND_CFLOATENV_H
#define BEND_CFLOATENV_H
#include <xmmintrin.h>

/* MXCSR bits: FTZ (flush results to zero, 0x8000) and DAZ (denormal inputs are zero, 0x0040). */
#define BEND_MXCSR_FTZ_DAZ 0x8040u

/* The calling thread's MXCSR. */
static inline unsigned int bend_get_mxcsr(void) { return _mm_getcsr(); }
/* Sets the calling thread's MXCSR. */
static inline void bend_set_mxcsr(unsigned int value) { _mm_setcsr(value); }
#endif
