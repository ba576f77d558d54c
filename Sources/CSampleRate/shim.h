// CSampleRate: the C API as Swift imports it.
#include <samplerate.h>
