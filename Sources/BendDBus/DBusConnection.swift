// SPDX-License-Identifier: GPL-3.0-or-later
import BendSystem
import CSystemd
import Glibc

/// A connection to a D-Bus bus through libsystemd's sd-bus: method calls (blocking or
/// with the reply on the loop), objects of our own (every method call to a path goes to
/// one handler, which replies now or later), signal matches, and an `EventLoop` that
/// runs it all (the bus descriptor watched, sd-bus's timeouts as timers).
///
/// sd-bus is not thread-safe: before `attach(to:)` use the connection from one setup
/// thread; after it, only on the loop's thread (handlers run there; other threads go
/// through `perform`).
public final class DBusConnection: @unchecked Sendable {
    let bus: OpaquePointer
    private var slots: [OpaquePointer] = []
    private var handlers: [Unmanaged<Handler>] = []
    private var loop: EventLoop?
    private var watch: EventLoop.Handler?
    private var timer: EventLoop.Timer?
    private var closed = false
    /// Called on the loop's thread when the bus connection is lost (then the loop no
    /// longer runs this connection). Set before `attach`.
    public var onDisconnect: ((DBusError) -> Void)?

    /// A Swift closure an sd-bus callback reaches through its userdata.
    final class Handler {
        let body: (DBusMessage) -> Bool
        init(_ body: @escaping (DBusMessage) -> Bool) { self.body = body }
    }

    /// Waits for the bus's Hello (sd-bus starts connections asynchronously): from then on
    /// nothing of sd-bus's start-up is left for the loop thread to race with.
    private init(bus: OpaquePointer) {
        self.bus = bus
        var name: UnsafePointer<CChar>?
        uniqueName = sd_bus_get_unique_name(bus, &name) >= 0 ? name.map { String(cString: $0) } ?? "" : ""
    }

    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else /run/dbus/system_bus_socket).
    /// - Throws: `DBusError` naming `sd_bus_open_system` and the errno (no bus running).
    public static func system() throws(DBusError) -> DBusConnection {
        var bus: OpaquePointer?
        let r = sd_bus_open_system(&bus)
        guard r >= 0, let bus else { throw DBusError(call: "cannot reach the system D-Bus (sd_bus_open_system)", errno: -r) }
        return DBusConnection(bus: bus)
    }

    /// The bus at `address` ("unix:path=/run/…/bus"): a private bus (tests).
    /// - Throws: `DBusError` naming the address and the errno.
    public static func connect(address: String) throws(DBusError) -> DBusConnection {
        var bus: OpaquePointer?
        var r = sd_bus_new(&bus)
        guard r >= 0, let bus else { throw DBusError(call: "sd_bus_new", errno: -r) }
        r = sd_bus_set_address(bus, address)
        if r >= 0 { r = sd_bus_set_bus_client(bus, 1) }
        if r >= 0 { r = sd_bus_start(bus) }
        guard r >= 0 else {
            sd_bus_close_unref(bus)
            throw DBusError(call: "cannot reach the D-Bus at \(address)", errno: -r)
        }
        return DBusConnection(bus: bus)
    }

    deinit { close() }

    /// Detaches from the loop, drops every object, match and handler, and closes the bus.
    /// - Thread: the connection's (or any, once its loop ended).
    public func close() {
        guard !closed else { return }
        closed = true
        detach()
        for s in slots { sd_bus_slot_unref(s) }
        slots.removeAll()
        _ = sd_bus_flush(bus)
        sd_bus_close_unref(bus)
        for h in handlers { h.release() }
        handlers.removeAll()
    }

    /// This connection's unique name (":1.42"; "" when the bus refused our Hello).
    public let uniqueName: String

    // MARK: - Calls

    /// A method call message (append arguments, then `call` or `send`).
    public func methodCall(_ destination: String, _ path: String, _ interface: String, _ member: String) throws(DBusError) -> DBusMessage {
        var m: OpaquePointer?
        let r = sd_bus_message_new_method_call(bus, &m, destination, path, interface, member)
        guard r >= 0, let m else { throw DBusError(call: "\(interface).\(member)", errno: -r) }
        return DBusMessage(adopting: m)
    }

    /// Calls `interface.member` on `destination` at `path` and waits for the reply (up to
    /// `timeout` seconds). Returns the reply's arguments.
    /// - Throws: `DBusError` with the error the peer replied or the local failure.
    /// - Thread: the connection's (blocks it; on the loop's thread, only at setup).
    @discardableResult
    public func call(_ destination: String, _ path: String, _ interface: String, _ member: String,
                     _ arguments: [DBusValue] = [], timeout: Double = 5) throws(DBusError) -> [DBusValue] {
        let m = try methodCall(destination, path, interface, member)
        try m.append(arguments)
        var error = sd_bus_error()
        defer { sd_bus_error_free(&error) }
        var reply: OpaquePointer?
        let r = sd_bus_call(bus, m.raw, UInt(timeout * 1_000_000), &error, &reply)
        if let loop { loop.execute { [weak self] in self?.process() } }   // messages queued meanwhile
        guard r >= 0, let reply else {
            if let name = error.name {
                throw DBusError(name: String(cString: name), message: error.message.map { String(cString: $0) } ?? "", call: "\(interface).\(member)")
            }
            throw DBusError(call: "\(interface).\(member)", errno: -r)
        }
        return DBusMessage(adopting: reply).arguments()
    }

    /// Calls without waiting: `reply` runs on the loop's thread with the reply's
    /// arguments or the error (a timeout after `timeout` seconds too).
    /// - Thread: the connection's.
    public func callAsync(_ destination: String, _ path: String, _ interface: String, _ member: String,
                          _ arguments: [DBusValue] = [], timeout: Double = 25,
                          reply: @escaping (Result<[DBusValue], DBusError>) -> Void) throws(DBusError) {
        let m = try methodCall(destination, path, interface, member)
        try m.append(arguments)
        let box = Unmanaged.passRetained(Handler { message in
            if let e = message.error { reply(.failure(DBusError(name: e.name, message: e.message, call: "\(interface).\(member)"))) } else { reply(.success(message.arguments())) }
            return true
        })
        let r = sd_bus_call_async(bus, nil, m.raw, { m, userdata, _ in
            let box = Unmanaged<Handler>.fromOpaque(userdata!)
            defer { box.release() }
            _ = box.takeUnretainedValue().body(DBusMessage(retaining: m!))
            return 1
        }, box.toOpaque(), UInt(timeout * 1_000_000))
        if r < 0 { box.release(); throw DBusError(call: "\(interface).\(member)", errno: -r) }
        refresh()
    }

    // MARK: - Objects and matches

    /// Every message addressed to `path` (method calls of any interface) goes to
    /// `handler`, which returns true when it answered (now, or later with `reply`); false
    /// lets sd-bus answer "unknown method".
    /// - Thread: the connection's.
    public func export(path: String, _ handler: @escaping (DBusMessage) -> Bool) throws(DBusError) {
        try add("sd_bus_add_object(\(path))", handler) { slot, callback, userdata in sd_bus_add_object(bus, slot, path, callback, userdata) }
    }

    /// Signals matching `rule` ("type='signal',sender='org.bluez',…") go to `handler`.
    /// - Thread: the connection's (blocks while the bus adds the match).
    public func match(_ rule: String, _ handler: @escaping (DBusMessage) -> Void) throws(DBusError) {
        try add("AddMatch(\(rule))", { handler($0); return false }) { slot, callback, userdata in sd_bus_add_match(bus, slot, rule, callback, userdata) }
    }

    private func add(_ what: String, _ body: @escaping (DBusMessage) -> Bool,
                     _ register: (UnsafeMutablePointer<OpaquePointer?>, sd_bus_message_handler_t, UnsafeMutableRawPointer) -> Int32) throws(DBusError) {
        let box = Unmanaged.passRetained(Handler(body))
        var slot: OpaquePointer?
        let r = register(&slot, { m, userdata, _ in
            Unmanaged<Handler>.fromOpaque(userdata!).takeUnretainedValue().body(DBusMessage(retaining: m!)) ? 1 : 0
        }, box.toOpaque())
        guard r >= 0, let slot else { box.release(); throw DBusError(call: what, errno: -r) }
        slots.append(slot)
        handlers.append(box)
    }

    /// Replies to the method call `call` with `values`. - Thread: the connection's.
    public func reply(to call: DBusMessage, _ values: [DBusValue] = []) {
        var m: OpaquePointer?
        guard sd_bus_message_new_method_return(call.raw, &m) >= 0, let m else { return }
        let message = DBusMessage(adopting: m)
        guard (try? message.append(values)) != nil else { return }
        _ = sd_bus_send(bus, message.raw, nil)
        refresh()
    }

    /// Replies to `call` with the error `name` ("org.bluez.Error.Rejected") and `text`.
    /// - Thread: the connection's.
    public func replyError(to call: DBusMessage, name: String, _ text: String) {
        var e = sd_bus_error()
        defer { sd_bus_error_free(&e) }
        _ = sd_bus_error_set(&e, name, text)
        _ = sd_bus_reply_method_error(call.raw, &e)
        refresh()
    }

    // MARK: - The event loop

    /// From now on `loop` runs this connection: its descriptor is watched, incoming
    /// messages are dispatched to the handlers, sd-bus's timeouts fire. Call before the
    /// loop starts or on its thread. - Thread: the connection's.
    public func attach(to loop: EventLoop) {
        self.loop = loop
        watch = loop.add(fd: sd_bus_get_fd(bus), events: events) { [weak self] _ in self?.process() }
        loop.execute { [weak self] in self?.process() }
    }

    /// Stops the loop running this connection. - Thread: the loop's.
    public func detach() {
        if let loop, let watch { loop.remove(watch) }
        if let loop, let timer { loop.cancel(timer) }
        watch = nil
        timer = nil
        loop = nil
    }

    /// Runs `work` with this connection on its loop's thread (at once when called there
    /// or when it has no loop), then dispatches what it caused. - Thread: any.
    public func perform(_ work: @escaping @Sendable (DBusConnection) -> Void) {
        guard let loop, !loop.isLoopThread else { work(self); return }
        loop.execute { [self] in
            guard !closed else { return }
            work(self)
            process()
        }
    }

    /// Dispatches every queued message, then watches for what sd-bus waits for next.
    private func process() {
        guard !closed, loop != nil else { return }
        var r: Int32
        repeat { r = sd_bus_process(bus, nil) } while r > 0
        guard r >= 0 else {   // the bus went away (dbus-daemon or the peer ended)
            detach()
            onDisconnect?(DBusError(call: "sd_bus_process", errno: -r))
            return
        }
        refresh()
    }

    private var events: IOEvents {
        let e = sd_bus_get_events(bus)
        var out: IOEvents = []
        if e > 0 && e & Int32(POLLIN) != 0 { out.insert(.readable) }
        if e > 0 && e & Int32(POLLOUT) != 0 { out.insert(.writable) }
        return out
    }

    /// The watched events and the timer after sd-bus's state changed (a send queued, a
    /// call waiting for its reply).
    private func refresh() {
        guard let loop, let watch, !closed else { return }
        loop.setEvents(watch, events)
        if let timer { loop.cancel(timer) }
        timer = nil
        var usec: UInt = 0
        if sd_bus_get_timeout(bus, &usec) >= 0, usec != UInt.max {
            timer = loop.schedule(at: UInt64(usec) &* 1000) { [weak self] in self?.timer = nil; self?.process() }
        }
    }
}
