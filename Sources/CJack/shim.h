// SPDX-License-Identifier: GPL-3.0-or-later
// CJack: libjack (JACK Audio Connection Kit, jackd2's client library) as Swift imports it:
// the client, ports, callbacks and the MIDI port buffers.
#include <jack/jack.h>
#include <jack/midiport.h>

// JACK_DEFAULT_AUDIO_TYPE and JACK_DEFAULT_MIDI_TYPE are string-literal macros Swift does
// not import ("32 bit float mono audio", "8 bit raw midi"); these return them. They can
// go when Swift imports string-literal macros.
static inline const char *cjack_default_audio_type(void) { return JACK_DEFAULT_AUDIO_TYPE; }
static inline const char *cjack_default_midi_type(void) { return JACK_DEFAULT_MIDI_TYPE; }

// jack_client_open is variadic (a server name may follow JackServerName), which Swift
// cannot call; the server is named by JACK_DEFAULT_SERVER in the environment instead.
static inline jack_client_t *cjack_client_open(const char *name, jack_options_t options, jack_status_t *status) {
    return jack_client_open(name, options, status);
}
