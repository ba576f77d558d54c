// SPDX-License-Identifier: GPL-3.0-or-later
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

/* The message-level sd-bus API BendDBus wraps (connection, messages read and written one
 * value at a time, objects, matches, event-loop integration); non-variadic calls only. */
typedef struct sd_bus_message sd_bus_message;
typedef struct sd_bus_slot sd_bus_slot;
typedef int (*sd_bus_message_handler_t)(sd_bus_message *m, void *userdata, sd_bus_error *ret_error);
extern int sd_bus_new(sd_bus **ret);
extern int sd_bus_set_address(sd_bus *bus, const char *address);
extern int sd_bus_set_bus_client(sd_bus *bus, int b);
extern int sd_bus_start(sd_bus *bus);
extern sd_bus *sd_bus_close_unref(sd_bus *bus);
extern int sd_bus_get_unique_name(sd_bus *bus, const char **unique);
extern int sd_bus_get_fd(sd_bus *bus);
extern int sd_bus_get_events(sd_bus *bus);
extern int sd_bus_get_timeout(sd_bus *bus, unsigned long *timeout_usec);
extern int sd_bus_process(sd_bus *bus, sd_bus_message **r);
extern int sd_bus_flush(sd_bus *bus);
extern int sd_bus_send(sd_bus *bus, sd_bus_message *m, unsigned long *cookie);
extern int sd_bus_call(sd_bus *bus, sd_bus_message *m, unsigned long usec, sd_bus_error *ret_error, sd_bus_message **reply);
extern int sd_bus_call_async(sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m, sd_bus_message_handler_t callback, void *userdata,
                             unsigned long usec);
extern int sd_bus_add_match(sd_bus *bus, sd_bus_slot **slot, const char *match, sd_bus_message_handler_t callback, void *userdata);
extern int sd_bus_add_object(sd_bus *bus, sd_bus_slot **slot, const char *path, sd_bus_message_handler_t callback, void *userdata);
extern sd_bus_slot *sd_bus_slot_unref(sd_bus_slot *slot);
extern int sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,
                                          const char *interface, const char *member);
extern int sd_bus_message_new_method_return(sd_bus_message *call, sd_bus_message **m);
extern sd_bus_message *sd_bus_message_ref(sd_bus_message *m);
extern sd_bus_message *sd_bus_message_unref(sd_bus_message *m);
extern int sd_bus_message_get_type(sd_bus_message *m, unsigned char *type);
extern const char *sd_bus_message_get_path(sd_bus_message *m);
extern const char *sd_bus_message_get_interface(sd_bus_message *m);
extern const char *sd_bus_message_get_member(sd_bus_message *m);
extern const char *sd_bus_message_get_sender(sd_bus_message *m);
extern const sd_bus_error *sd_bus_message_get_error(sd_bus_message *m);
extern int sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p);
extern int sd_bus_message_open_container(sd_bus_message *m, char type, const char *contents);
extern int sd_bus_message_close_container(sd_bus_message *m);
extern int sd_bus_message_read_basic(sd_bus_message *m, char type, void *p);
extern int sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents);
extern int sd_bus_message_exit_container(sd_bus_message *m);
extern int sd_bus_message_peek_type(sd_bus_message *m, char *type, const char **contents);
extern int sd_bus_reply_method_error(sd_bus_message *call, const sd_bus_error *e);
extern int sd_bus_error_set(sd_bus_error *e, const char *name, const char *message);

#endif
