// SPDX-License-Identifier: GPL-3.0-or-later
// CALSA: the alsa-lib API as Swift imports it.
#include <alsa/asoundlib.h>

// alsa-lib prints its own diagnostics ("ALSA lib confmisc.c:...") to stderr while
// probing PCMs; we report failures ourselves with snd_strerror. The handler type is
// variadic, which Swift cannot define, hence this C one.
static void calsa_quiet_error_handler(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}
/// Silences alsa-lib's stderr diagnostics (snd_lib_error_set_handler).
static inline void calsa_silence_library_messages(void) {
    snd_lib_error_set_handler(calsa_quiet_error_handler);
}
