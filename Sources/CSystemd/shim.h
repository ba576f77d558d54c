// CSystemd: libsystemd's service notification (sd_notify) as Swift imports it.
#include <systemd/sd-daemon.h>
