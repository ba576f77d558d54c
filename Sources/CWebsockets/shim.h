// SPDX-License-Identifier: GPL-3.0-or-later
// libwebsockets (Debian libwebsockets-dev, 4.1): the web controller's HTTP, WebSocket and
// TLS (linked against OpenSSL 3). Chosen over civetweb: Debian's civetweb 1.15 loads
// OpenSSL with dlopen and looks for SSL_get_peer_certificate, which OpenSSL 3 has only
// as a macro, so its HTTPS crashes on the first request (civetweb issue #1334).
#include <libwebsockets.h>

// LWS_PRE (bytes lws needs before a payload it writes) is a computed macro; this wrapper
// can go when Swift imports function-like macros.
static inline size_t cws_pre(void) { return LWS_PRE; }
