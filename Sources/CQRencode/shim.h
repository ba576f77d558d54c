// SPDX-License-Identifier: GPL-3.0-or-later
// libqrencode (Debian libqrencode-dev): the web controller's URL drawn as a QR code.
#include <qrencode.h>
