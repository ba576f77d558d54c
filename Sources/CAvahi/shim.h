// SPDX-License-Identifier: GPL-3.0-or-later
// Avahi client (Debian libavahi-client-dev): DNS-SD publishing and browsing through a
// running avahi-daemon (over D-Bus), with the threaded poll.
#include <avahi-client/client.h>
#include <avahi-client/lookup.h>
#include <avahi-client/publish.h>
#include <avahi-common/address.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
