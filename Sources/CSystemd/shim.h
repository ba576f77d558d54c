/* CSystemd: libsystemd's service notification (sd_notify(3)) and D-Bus client (sd-bus)
 * calls bendsynth uses.
 *
 * Like Sources/CSystem/shim.h, this header includes no system header on purpose:
 * <systemd/sd-daemon.h> pulls in <sys/socket.h>, and a system header parsed here as well
 * as in Glibc can have its names claimed by this module in some compile orders and vanish
 * from files that import only Glibc (the intermittent "cannot find 'SOCK_STREAM'" of
 * Sources/CBluetooth/shim.h). The declarations below are libsystemd's own (sd-daemon.h,
 * sd-bus.h of systemd 252), with uint64_t/uint32_t spelt as their x86-64/aarch64 types. */
#ifndef BEND_CSYSTEMD_H
#define BEND_CSYSTEMD_H

typedef struct sd_bus sd_bus;
typedef struct sd_bus_error {
    const char *name;
    const char *message;
    int _need_free;
} sd_bus_error;

extern int sd_notify(int unset_environment, const char *state);
extern int sd_bus_open_system(sd_bus **ret);
extern sd_bus *sd_bus_flush_close_unref(sd_bus *bus);
extern void sd_bus_error_free(sd_bus_error *e);
extern int sd_bus_get_property_trivial(sd_bus *bus, const char *destination, const char *path, const char *interface,
                                       const char *member, sd_bus_error *ret_error, char type, void *ret_ptr);
extern int sd_bus_call_method(sd_bus *bus, const char *destination, const char *path, const char *interface,
                              const char *member, sd_bus_error *ret_error, void **reply, const char *types, ...);

/* sd_bus_call_method is variadic (its arguments follow a D-Bus signature), and Swift
 * cannot call C variadic functions: this wrapper fixes the signature "tu" of
 * org.freedesktop.RealtimeKit1.MakeThreadRealtime(thread: u64, priority: u32). */
static inline int csd_rtkit_make_thread_realtime(sd_bus *bus, unsigned long long thread, unsigned int priority, sd_bus_error *error) {
    return sd_bus_call_method(bus, "org.freedesktop.RealtimeKit1", "/org/freedesktop/RealtimeKit1",
                              "org.freedesktop.RealtimeKit1", "MakeThreadRealtime", error, 0,
                              "tu", thread, priority);
}
#endif
