// BlueZ's libbluetooth (Debian libbluetooth-dev): HCI adapter lookup, RFCOMM sockets.
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
