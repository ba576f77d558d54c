// CALSA: the C API as Swift imports it.
#include <alsa/asoundlib.h>
