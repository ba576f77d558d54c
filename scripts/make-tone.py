#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Writes Assets/synth_tone_mono.caf, bendsynth's default tone.

One second (48 000 frames) of mono 32-bit float at 48 kHz: a 440 Hz sine plus
harmonics 2, 3 and 4 at -6, -12 and -18 dB relative to the fundamental, all in
sine phase, scaled so the largest sample is -3 dBFS. Every partial completes a
whole number of cycles in the file (440, 880, 1320, 1760), so the loop is seamless.

Plain Python 3 (no numpy); the file is written through libsndfile with ctypes.
Usage: python3 scripts/make-tone.py [OUT.caf]
"""
import ctypes
import ctypes.util
import math
import sys

RATE = 48_000
FRAMES = 48_000
FUNDAMENTAL = 440.0
HARMONICS_DB = [(1, 0.0), (2, -6.0), (3, -12.0), (4, -18.0)]  # (harmonic number, dB re fundamental)
PEAK_DBFS = -3.0

# sndfile.h constants
SF_FORMAT_CAF = 0x180000
SF_FORMAT_FLOAT = 0x0006
SFM_WRITE = 0x20


class SF_INFO(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int),
                ("channels", ctypes.c_int), ("format", ctypes.c_int),
                ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]


def tone():
    partials = [(n * FUNDAMENTAL, 10 ** (db / 20)) for n, db in HARMONICS_DB]
    raw = [sum(a * math.sin(2 * math.pi * f * i / RATE) for f, a in partials) for i in range(FRAMES)]
    scale = 10 ** (PEAK_DBFS / 20) / max(abs(s) for s in raw)
    return [s * scale for s in raw]


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "Assets/synth_tone_mono.caf"
    lib = ctypes.CDLL(ctypes.util.find_library("sndfile") or "libsndfile.so.1")
    lib.sf_open.restype = ctypes.c_void_p
    lib.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(SF_INFO)]
    lib.sf_strerror.restype = ctypes.c_char_p
    lib.sf_strerror.argtypes = [ctypes.c_void_p]
    lib.sf_writef_float.restype = ctypes.c_int64
    lib.sf_writef_float.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_float), ctypes.c_int64]
    lib.sf_close.argtypes = [ctypes.c_void_p]

    info = SF_INFO(0, RATE, 1, SF_FORMAT_CAF | SF_FORMAT_FLOAT, 0, 0)
    handle = lib.sf_open(out.encode(), SFM_WRITE, ctypes.byref(info))
    if not handle:
        sys.exit(f"make-tone: sf_open({out}): {lib.sf_strerror(None).decode()}")
    samples = (ctypes.c_float * FRAMES)(*tone())
    written = lib.sf_writef_float(handle, samples, FRAMES)
    if written != FRAMES:
        sys.exit(f"make-tone: sf_writef_float({out}): {lib.sf_strerror(ctypes.c_void_p(handle)).decode()}")
    if lib.sf_close(handle) != 0:
        sys.exit(f"make-tone: sf_close({out}) failed")
    print(f"{out}: {FRAMES} frames, {RATE} Hz, mono float32 CAF, peak {PEAK_DBFS} dBFS")


if __name__ == "__main__":
    main()
