// CSndFile: the C API as Swift imports it.
#include <sndfile.h>
