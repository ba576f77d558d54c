// SPDX-License-Identifier: GPL-3.0-or-later
// CLO: liblo (Open Sound Control) as Swift imports it. bendsynth uses its message
// codec (lo_message_deserialise / lo_message_serialise); it reads the sockets itself,
// because liblo 0.31 cannot bind a unicast server to one address (it always listens
// on every interface), and plain OSC must stay on loopback unless asked.
#include <lo/lo.h>
