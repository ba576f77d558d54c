// SPDX-License-Identifier: GPL-3.0-or-later
// BlueZ's libbluetooth (Debian libbluetooth-dev): RFCOMM sockets and address strings only;
// everything else (the service record, discovery, pairing) goes through bluetoothd's D-Bus API.
//
// These headers include <sys/socket.h>, whose bits/ headers are not in Glibc's module:
// in BendPeers, which imports both, Glibc's socket names (SOCK_STREAM, SOCK_CLOEXEC…)
// can end up owned by this module, depending on which file the compiler reads first,
// and a file importing only Glibc then fails with "cannot find 'SOCK_STREAM'". So every
// BendPeers file that uses socket names imports CBluetooth too.
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/rfcomm.h>

// Replaces the macro BDADDR_ANY (a compound literal Swift cannot import): all zeros.
static inline bdaddr_t bendsynth_bdaddr_any(void) {
    bdaddr_t a = {{0, 0, 0, 0, 0, 0}};
    return a;
}
