// BlueZ's libbluetooth (Debian libbluetooth-dev): HCI adapter lookup, RFCOMM sockets.
//
// These headers include <sys/socket.h>, whose bits/ headers are not in Glibc's module:
// in BendPeers, which imports both, Glibc's socket names (SOCK_STREAM, SOCK_CLOEXEC…)
// can end up owned by this module, depending on which file the compiler reads first,
// and a file importing only Glibc then fails with "cannot find 'SOCK_STREAM'". So every
// BendPeers file that uses socket names imports CBluetooth too.
#include <sys/socket.h>
#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/rfcomm.h>

// Replaces the macro BDADDR_ANY (a compound literal Swift cannot import): all zeros.
static inline bdaddr_t bendsynth_bdaddr_any(void) {
    bdaddr_t a = {{0, 0, 0, 0, 0, 0}};
    return a;
}

// SDP: the service record the instrument registers and the search `peers --bluetooth` runs.
#include <bluetooth/sdp.h>
#include <bluetooth/sdp_lib.h>

// Replaces the macro BDADDR_LOCAL (a compound literal): the local SDP server's address.
static inline bdaddr_t bendsynth_bdaddr_local(void) {
    bdaddr_t a = {{0, 0, 0, 0xff, 0xff, 0xff}};
    return a;
}
