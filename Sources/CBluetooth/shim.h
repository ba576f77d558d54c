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
